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
check "summary JSON keys" $(echo "$out" | grep -q '^{"format":"hlo","module":"m","modules":1,"lines":5,"computations":1,"instructions":1,"warnings":\[\],"stage":"before_optimizations","partial":null}$'; echo $?)
"$H" fusions "$tmp/missing.hlo" >/dev/null 2>&1; rc=$?
check "unreadable file exits 1" $([ $rc = 1 ]; echo $?)
"$H" frobnicate "$tmp/ok.hlo" >/dev/null 2>&1; rc=$?
check "unknown command exits 1" $([ $rc = 1 ]; echo $?)
out=$(cat "$tmp/ok.hlo" | "$H" fusions --json -); rc=$?
check "stdin with -" $([ $rc = 0 ] && echo "$out" | grep -q '"fusion_computations":0'; echo $?)
"$H" xray "$tmp/ok.hlo" "$tmp/bad.hlo" >/dev/null 2>"$tmp/err"; rc=$?
check "xray names the failing side" $([ $rc = 2 ] && grep -q "bad.hlo:5:" "$tmp/err"; echo $?)
"$H" --help | grep -q "usage: hloscope"; check "help" $?
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
