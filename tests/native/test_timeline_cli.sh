#!/usr/bin/env bash
# `hloscope timeline`: its options, exit codes and fixed JSON keys, on our own CPU fixture.
set -u
H=${HLOSCOPE:?set HLOSCOPE to the hloscope binary}
SRC=${HS_SOURCE_DIR:?set HS_SOURCE_DIR to the repository}
F=$SRC/fixtures/cpu-jax-0.10.2/softmax
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name, condition result
  if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
out=$("$H" timeline "$F/profile.xplane.pb" --hlo "$F/after_optimizations.txt" --stablehlo "$F/stablehlo.mlir" --json); rc=$?
check "timeline exits 0" $([ $rc = 0 ]; echo $?)
check "top-level keys" $(echo "$out" | grep -q '^{"programs":\[{"name":"jit_softmax","program_id":"0","runs":5,"envelope_ps":[0-9]*,"per_run_ps":[0-9]*,"device_count":1,"runs_differ":false,' && echo "$out" | grep -q '}\],"rows":\[{' ; echo $?)
check "row keys" $(echo "$out" | grep -q '{"name":"[^"]*","program_id":"0","module":"jit_softmax","kind":"fusion","written_by":"[a-z]*","occurrences":5,"total_ps":[0-9]*,"self_ps":[0-9]*,"per_run_ps":[0-9]*,"share":[0-9.e-]*,"hlo":{"line":[0-9]*,"text":"'; echo $?)
check "async, reading, warnings" $(echo "$out" | grep -q '"async":\[\],"reading":"jit_softmax ran 5 times, [^"]*","warnings":\[\],"open":{"name":"jit_softmax","program_id":"0"},"devices":\[{"plane":"/host:CPU",'; echo $?)
out=$("$H" timeline "$F/profile.trace.json.gz" --program jit_softmax); rc=$?
check "gzipped trace JSON, text output" $([ $rc = 0 ] && echo "$out" | grep -q 'jit_softmax ran 5 times'; echo $?)
"$H" timeline "$F/profile.xplane.pb" --hlo "$tmp/missing.txt" >/dev/null 2>&1; rc=$?
check "unreadable dump exits 1" $([ $rc = 1 ]; echo $?)
printf 'garbage' >"$tmp/bad.pb"
"$H" timeline "$tmp/bad.pb" >/dev/null 2>"$tmp/err"; rc=$?
check "not a profile exits 2 with file:line:col" $([ $rc = 2 ] && grep -q "^$tmp/bad.pb:0:0: HS_E_FORMAT" "$tmp/err"; echo $?)
"$H" timeline >/dev/null 2>&1; rc=$?
check "no profile: usage, exit 1" $([ $rc = 1 ]; echo $?)
"$H" timeline "$F/profile.xplane.pb" --program >/dev/null 2>&1; rc=$?
check "option without value: exit 1" $([ $rc = 1 ]; echo $?)
# Several processes' log_dirs (multiprocess.py writes one per process, each file named
# <hostname>.xplane.pb): read together, in the order given, as their files are.
M=$SRC/fixtures/profiles/multiprocess-cpu-jax-0.10.2
for k in 0 1 2; do
  mkdir -p "$tmp/p$k/plugins/profile/2026_12_03_13_05_49" && cp "$M/process_$k.xplane.pb" "$tmp/p$k/plugins/profile/2026_12_03_13_05_49/vm.xplane.pb"
done
pids() { grep -o '"pid":[0-9]*' | tr '\n' ' '; }
want=$("$H" timeline --json "$M/process_0.xplane.pb" "$M/process_1.xplane.pb" "$M/process_2.xplane.pb" | pids)
out=$("$H" timeline --json "$tmp/p0" "$tmp/p1" "$tmp/p2" 2>"$tmp/err" | pids); rc=$?
check "three log_dirs: three hosts, as their files ($out)" $([ $rc = 0 ] && [ -n "$want" ] && [ "$out" = "$want" ]; echo $?)
out=$("$H" timeline --json "$tmp/p2" "$M/process_0.xplane.pb" "$tmp/p1" | pids)
want=$("$H" timeline --json "$M/process_2.xplane.pb" "$M/process_0.xplane.pb" "$M/process_1.xplane.pb" | pids)
check "folders and files: in the order given ($out)" $([ -n "$want" ] && [ "$out" = "$want" ]; echo $?)
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
