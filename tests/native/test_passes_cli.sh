#!/usr/bin/env bash
# `hloscope passes`: a folder, its .tar.gz, .tar and .zip, a listing file; --compare; bad input.
set -u
H=${HLOSCOPE:?set HLOSCOPE to the hloscope binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DUMP=$ROOT/fixtures/cpu-jax-0.4.38/attention/passes
# the one walker (tests/fixtures.mjs) lists fixtures and ../shared; it honours HLOSCOPE_NO_SHARED=1
walk() { "${NODE:-node}" "$ROOT/tests/fixtures.mjs" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
steps() { python3 -c 'import json,sys; j=json.load(sys.stdin); m=j["modules"][0]; print(len(m["steps"]), sum(1 for s in m["steps"] if s["counts"]))'; }

# the step files XLA wrote, counted from the names
names=$(walk files cpu-jax-0.4.38/attention/passes | xargs -n1 basename)
n=$(echo "$names" | grep '^module_' | grep '\.after_' | grep -vc 'after_optimizations')
out=$("$H" passes --json "$DUMP" | steps); check "folder: $n steps with counts ($out)" $([ "$out" = "$n $n" ]; echo $?)
tar -czf "$tmp/d.tar.gz" -C "$(dirname "$DUMP")" passes
out=$("$H" passes --json "$tmp/d.tar.gz" | steps); check "tar.gz: $out" $([ "$out" = "$n $n" ]; echo $?)
tar -cf "$tmp/d.tar" -C "$(dirname "$DUMP")" passes
out=$("$H" passes --json "$tmp/d.tar" | steps); check "tar: $out" $([ "$out" = "$n $n" ]; echo $?)
(cd "$(dirname "$DUMP")" && python3 -m zipfile -c "$tmp/d.zip" passes)
out=$("$H" passes --json "$tmp/d.zip" | steps); check "zip: $out" $([ "$out" = "$n $n" ]; echo $?)
echo "$names" >"$tmp/listing.txt"
out=$("$H" passes --json "$tmp/listing.txt" | steps); check "listing: $out" $([ "$out" = "$n 0" ]; echo $?)
"$H" passes "$DUMP" | grep -q "layout watershed at step"; check "human output names the watershed" $?

# bad input: each a clear message and exit 2
mkdir "$tmp/empty"
"$H" passes "$tmp/empty" 2>"$tmp/err" >/dev/null; rc=$?
check "empty folder" $([ $rc = 2 ] && grep -q 'HS_E_EMPTY' "$tmp/err"; echo $?)
mkdir "$tmp/other" && echo hi >"$tmp/other/notes.md"
"$H" passes "$tmp/other" 2>"$tmp/err" >/dev/null; rc=$?
check "no XLA files" $([ $rc = 2 ] && grep -q 'HS_E_FORMAT: none of the 1 names' "$tmp/err"; echo $?)
head -c 3000 "$tmp/d.tar.gz" >"$tmp/cut.tar.gz"
"$H" passes "$tmp/cut.tar.gz" 2>"$tmp/err" >/dev/null; rc=$?
check "corrupt .tar.gz" $([ $rc = 2 ] && grep -q 'corrupt gzip' "$tmp/err"; echo $?)
head -c 3000 "$tmp/d.zip" >"$tmp/cut.zip"
"$H" passes "$tmp/cut.zip" 2>"$tmp/err" >/dev/null; rc=$?
check "corrupt .zip" $([ $rc = 2 ] && grep -q 'corrupt zip' "$tmp/err"; echo $?)
printf 'junk line\nmodule_0001.jit_f.0000.p.after_pipeline-start.before_x.txt\n' >"$tmp/junk.txt"
out=$("$H" passes --json "$tmp/junk.txt"); rc=$?
check "listing with junk lines: read, and reported" $([ $rc = 0 ] && echo "$out" | grep -q '"HS_W_DUMP_JUNK_LINE","line":1'; echo $?)

G=$(walk shared pass-names gpu_shawnwang18_xla_vit_pjit_train_step.txt) # empty, and the reason said, when absent
if [ -n "$G" ]; then
  "$H" passes "$G" | grep -q '158 steps over 23 pipelines, layout watershed at step 96'; check "GPU listing" $?
  out=$("$H" passes --compare --json "$DUMP" "$G")
  check "compare: layout-assignment in both" $(echo "$out" | grep -q '{"pass":"layout-assignment","origin":"both"'; echo $?)
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
