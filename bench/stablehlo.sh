#!/usr/bin/env bash
# The StableHLO read (issue 40): parse + census of about 50 MB of real StableHLO (every fixture's
# stablehlo.mlir and stablehlo.debug.mlir, and the shared TPU captures' when present, listed by
# the one walker, repeated: several modules in one text read as several), natively, beside
# `wc -l` on the same file, interleaved over rounds, the best of each. Prints MB/s and the ratio
# to wc -l; writes bench/out/stablehlo.json. No goal is asserted: the figures are compared by
# hand before and after a change of the reader (run it with another build's hloscope_bench).
#   bash bench/stablehlo.sh [HLOSCOPE_BENCH ...]     (default build/native/hloscope_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/hloscope_bench ] || bash tools/build-native.sh >/dev/null
mkdir -p bench/out
input=bench/out/real-stablehlo-50mb.mlir
mapfile -t sources < <(node tests/fixtures.mjs fixtures stablehlo.mlir; node tests/fixtures.mjs fixtures stablehlo.debug.mlir;
  node tests/fixtures.mjs shared tpu-v6e .mlir 2>/dev/null)
if [ ${#sources[@]} -eq 0 ]; then echo "bench: no real StableHLO found (fixtures/ or ../shared/captures)" >&2; exit 1; fi
python3 - "$input" "${sources[@]}" <<'PY'
import sys
out, srcs = sys.argv[1], sys.argv[2:]
body = "\n".join(open(s, encoding="utf-8").read() for s in srcs)
k = int(50.5e6 // len(body.encode())) + 1
with open(out, "w", encoding="utf-8") as f:
    f.write("\n".join([body] * k))
PY
bytes=$(stat -c %s "$input")
echo "stablehlo input: $input, $bytes bytes from ${#sources[@]} real texts, repeated"
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=(build/native/hloscope_bench)
rounds=${HS_BENCH_ROUNDS:-4}
declare -A best
wc_best=
for ((r = 1; r <= rounds; r++)); do
  for b in "${benches[@]}"; do
    s=$("$b" "$input" 3 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["seconds"])')
    if [ -z "${best[$b]:-}" ] || python3 -c "import sys; sys.exit(0 if $s < ${best[$b]} else 1)"; then best[$b]=$s; fi
  done
  for _ in 1 2 3; do
    t0=$(date +%s.%N); wc -l "$input" >/dev/null; t1=$(date +%s.%N)
    w=$(python3 -c "print($t1 - $t0)")
    if [ -z "$wc_best" ] || python3 -c "import sys; sys.exit(0 if $w < $wc_best else 1)"; then wc_best=$w; fi
  done
done
json="{\"bytes\":$bytes,\"wc_seconds\":$wc_best,\"benches\":{"
sep=
for b in "${benches[@]}"; do
  python3 -c "b=$bytes; s=${best[$b]}; w=$wc_best; print(f'stablehlo read, $b: {s:.3f} s, {b / s / 1e6:.0f} MB/s, {s / w:.1f}x wc -l ({w:.3f} s)')"
  json+="$sep\"$b\":${best[$b]}"
  sep=,
done
echo "$json}}" >bench/out/stablehlo.json
