#!/usr/bin/env bash
# Speed and memory of parse + fusion census on 50 MB or more of real optimized HLO (real
# modules repeated: several modules in one text is valid input), natively and in wasm under
# Node, beside `wc -l` on the same file in the same run. Writes bench/out/results.json.
#   npm run bench            (builds what is missing first)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/hloscope_bench ] || bash tools/build-native.sh >/dev/null
[ -f wasm/gen/hloscope_core.wasm ] || bash tools/build-wasm.sh >/dev/null
mkdir -p bench/out
input=bench/out/real-hlo-50mb.txt
# Sources: our own captured optimized HLO (every fixture), plus the shared TPU captures when present.
mapfile -t sources < <(ls fixtures/cpu-jax-*/*/after_optimizations.txt 2>/dev/null; ls ../shared/captures/tpu-v6e/*.after_optimizations.with_frame_tables.txt 2>/dev/null)
if [ ${#sources[@]} -eq 0 ]; then echo "bench: no real optimized HLO found (fixtures/ or ../shared/captures)" >&2; exit 1; fi
python3 - "$input" "${sources[@]}" <<'PY'
import sys
out, srcs = sys.argv[1], sys.argv[2:]
body = "\n".join(open(s, encoding="utf-8").read() for s in srcs)
k = int(50.5e6 // len(body.encode())) + 1
with open(out, "w", encoding="utf-8") as f:
    f.write("\n".join([body] * k))
PY
bytes=$(stat -c %s "$input")
echo "input: $input, $bytes bytes from ${#sources[@]} real modules, repeated"
native=$(build/native/hloscope_bench "$input" 5)
wasm=$(node bench/bench_wasm.mjs "$input" 5)
# wc -l: best of 5 wall times
wc_best=$(python3 - "$input" <<'PY'
import subprocess, sys, time
best = 1e9
for _ in range(5):
    t = time.perf_counter(); subprocess.run(["wc", "-l", sys.argv[1]], check=True, capture_output=True); best = min(best, time.perf_counter() - t)
print(f"{best:.4f}")
PY
)
python3 - "$native" "$wasm" "$wc_best" "$bytes" <<'PY'
import json, sys
n, w, wc, b = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
res = {
  "input_bytes": b,
  "native": n, "wasm_node": w,
  "wc_l_seconds": wc, "wc_l_mb_per_s": round(b / 1e6 / wc, 1),
  "native_over_wc_l": round(n["seconds"] / wc, 2),
  "wasm_over_native": round(w["seconds"] / n["seconds"], 2),
}
json.dump(res, open("bench/out/results.json", "w"), indent=2)
print(f"native   parse+census {n['mb_per_s']:8.1f} MB/s  peak RSS {n['peak_over_input']:.2f}x input  ({n['fusion_ops']} fusion ops)")
print(f"wasm     parse+census {w['mb_per_s']:8.1f} MB/s  ({res['wasm_over_native']}x native; string copy included)")
print(f"wc -l                 {res['wc_l_mb_per_s']:8.1f} MB/s  (native parse takes {res['native_over_wc_l']}x wc -l)")
assert n["fusion_ops"] == w["fusion_ops"], "native and wasm census differ"
PY
