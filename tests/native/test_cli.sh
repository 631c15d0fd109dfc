#!/usr/bin/env bash
# The CLI's interface: exit codes, the file:line:col error format, JSON on --json.
set -u
H=${HLOSCOPE:?set HLOSCOPE to the hloscope binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name, condition result
  if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
printf 'HloModule m\n\nENTRY %%main {\n  %%a = f32[2]{0} parameter(0)\n  garbage here\n}\n' >"$tmp/bad.hlo"
"$H" summary "$tmp/bad.hlo" >/dev/null 2>"$tmp/err"; rc=$?
check "parse error exits 2" $([ $rc = 2 ]; echo $?)
check "error is file:line:col: message" $(grep -q "^$tmp/bad.hlo:5:11: HS_E_SYNTAX: expected" "$tmp/err"; echo $?)
printf 'HloModule m\n\nENTRY %%main (a: f32[2]) -> f32[2] {\n  ROOT %%a = f32[2]{0} parameter(0)\n}\n' >"$tmp/ok.hlo"
out=$("$H" summary --json "$tmp/ok.hlo"); rc=$?
check "success exits 0" $([ $rc = 0 ]; echo $?)
check "summary JSON keys" $(echo "$out" | grep -q '^{"format":"hlo","module":"m","modules":1,"lines":5,"computations":1,"instructions":1,"warnings":\[\],"stage":"before_optimizations","partial":null,"params":\["f32\[2\]"\],"results":\["f32\[2\]"\]}$'; echo $?)
"$H" fusions "$tmp/missing.hlo" >/dev/null 2>&1; rc=$?
check "unreadable file exits 1" $([ $rc = 1 ]; echo $?)
"$H" frobnicate "$tmp/ok.hlo" >/dev/null 2>&1; rc=$?
check "unknown command exits 1" $([ $rc = 1 ]; echo $?)
out=$(cat "$tmp/ok.hlo" | "$H" fusions --json -); rc=$?
check "stdin with -" $([ $rc = 0 ] && echo "$out" | grep -q '"fusion_computations":0'; echo $?)
"$H" xray "$tmp/ok.hlo" "$tmp/bad.hlo" >/dev/null 2>"$tmp/err"; rc=$?
check "xray names the failing side" $([ $rc = 2 ] && grep -q "bad.hlo:5:" "$tmp/err"; echo $?)
"$H" --help | grep -q "usage: hloscope"; check "help" $?
out=$("$H" layout 'bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)}'); rc=$?
check "layout in words" $([ $rc = 0 ] && echo "$out" | grep -q '^row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on TPU)$'; echo $?)
"$H" layout 'f32[2]{0:Q(1)}' >/dev/null 2>"$tmp/err"; rc=$?
check "bad layout exits 2 with its column" $([ $rc = 2 ] && grep -q '^type:1:10: HS_E_SYNTAX' "$tmp/err"; echo $?)
printf 'RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.\n' >"$tmp/oom.txt"
out=$("$H" memory --json "$tmp/oom.txt"); rc=$?
check "memory JSON keys" $([ $rc = 0 ] && echo "$out" | grep -q '^{"kind":"oom","backend":"gpu","memory_space":null,"requested_bytes":6291456,"used_bytes":null,"capacity_bytes":null,"exceeded_bytes":null,"allocations":\[\],"totals":{},"explanation":'; echo $?)
printf 'RESOURCE_EXHAUSTED: Quota exceeded for quota metric\n' >"$tmp/quota.txt"
"$H" memory "$tmp/quota.txt" >/dev/null 2>"$tmp/err"; rc=$?
check "not a memory message exits 2" $([ $rc = 2 ] && grep -q 'not an XLA memory message' "$tmp/err"; echo $?)
out=$("$H" layouts --json "$tmp/ok.hlo"); rc=$?
check "layouts JSON" $([ $rc = 0 ] && echo "$out" | grep -q '^{"values":1,"logical_bytes":8,"padded_bytes":8,"padding_bytes":0,'; echo $?)
printf '{ lambda ; a:f32[4]. let\n    b:bf16[4] = convert_element_type[new_dtype=bfloat16 weak_type=False] a\n    c:f32[2,4] = broadcast_in_dim[\n      broadcast_dimensions=(1,)\n      shape=(2, 4)\n    ] b\n    d:f32[4,2] = transpo' >"$tmp/cut.jaxpr"
out=$("$H" decisions --json "$tmp/cut.jaxpr"); rc=$?
check "decisions JSON keys, the wrapped equation's first line, a cut jaxpr warns" $([ $rc = 0 ] && echo "$out" | grep -q '^{"format":"jaxpr","decisions":\[{"kind":"downcast","line":2,"name":"b","from":"f32","to":"bf16","shape":"bf16\[4\]","detail":"[^"]*","source":null,"path":""},{"kind":"broadcast","line":3,"name":"c",.*"code":"HS_W_TRUNCATED"'; echo $?)
"$H" decisions "$tmp/cut.jaxpr" | grep -q "^warning: 7:" ; check "decisions prints the warning" $?
# A file of 1 MiB or more is mapped, not read (core/cli/main.c map_input): the same answers as the
# same bytes through stdin, which is read; whole, and cut inside an instruction
{ printf 'HloModule big\n\nENTRY %%main (p: f32[8]) -> f32[8] {\n  %%p = f32[8]{0} parameter(0)\n'
  for i in $(seq 1 20000); do printf '  %%a.%d = f32[8]{0} add(f32[8]{0} %%p, f32[8]{0} %%p), metadata={op_name="jit(f)/add"}\n' "$i"; done
  printf '  ROOT %%r = f32[8]{0} negate(%%a.20000)\n}\n'; } >"$tmp/big.hlo"
head -c 1500000 "$tmp/big.hlo" >"$tmp/bigcut.hlo"
for f in big bigcut; do
  for c in summary computations; do
    a=$("$H" $c --json "$tmp/$f.hlo" 2>&1; echo "rc=$?"); b=$("$H" $c --json - <"$tmp/$f.hlo" 2>&1; echo "rc=$?")
    check "$f.hlo ($(wc -c <"$tmp/$f.hlo") bytes) mapped and through stdin: the same $c" $([ "$a" = "$b" ] && echo "$a" | grep -q '^{"'; echo $?)
  done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
