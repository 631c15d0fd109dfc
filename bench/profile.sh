#!/usr/bin/env bash
# A big profile: bench/make_big_xplane.py repeats the real events of our largest captured
# profile (fixtures/cpu-jax-0.4.38/transformer_step/profile.xplane.pb) into a ~500 MB
# .xplane.pb under bench/out/ (made, not committed), then times `hloscope timeline --json` (one
# file: read by range) and the JS API's parseProfileSource (the file read by range, as the
# notebook's worker reads it) + timeline under Node, with peak memory and the core's memory
# (SINK=1: profileSink, the file streamed in; WHOLE=1: parseProfile of the whole file). Writes
# bench/out/profile-results.json.       npm run bench:profile   (MB=100 for a smaller file)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/hloscope ] || bash tools/build-native.sh >/dev/null
[ -f wasm/gen/hloscope_core.wasm ] || bash tools/build-wasm.sh >/dev/null
mkdir -p bench/out
src=fixtures/cpu-jax-0.4.38/transformer_step/profile.xplane.pb
big=bench/out/big.xplane.pb
# made once per size (a ~500 MB file takes minutes to write); delete it to make it again
if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" -lt $(( ${MB:-500} * 1000000 )) ] || [ "$(stat -c %s "$big")" -gt $(( ${MB:-500} * 1100000 )) ]; then
  python3 bench/make_big_xplane.py "$src" "$big" "${MB:-500}"
fi
python3 - "$big" <<'PY'
import json, resource, subprocess, sys, time
big = sys.argv[1]
size = __import__('os').path.getsize(big)
t = time.perf_counter()
out = subprocess.run(['build/native/hloscope', 'timeline', '--json', big], check=True, capture_output=True).stdout
native_s = time.perf_counter() - t
native_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
rows = len(json.loads(out)['rows'])
w = json.loads(subprocess.run(['node', 'bench/bench_profile_wasm.mjs', big], check=True, capture_output=True).stdout)
res = {'input_bytes': size,
       'native': {'seconds': round(native_s, 3), 'mb_per_s': round(size / 1e6 / native_s, 1), 'peak_rss_bytes': native_peak,
                  'peak_over_input': round(native_peak / size, 2), 'rows': rows},
       'wasm_node': dict(w, peak_over_input=round(w['peak_rss_bytes'] / size, 2))}
json.dump(res, open('bench/out/profile-results.json', 'w'), indent=2)
print(f"input {size / 1e6:.0f} MB")
print(f"native timeline  {res['native']['seconds']:7.2f} s  {res['native']['mb_per_s']:6.1f} MB/s  peak RSS {res['native']['peak_over_input']:.2f}x input")
print(f"wasm   parse     {w['parse_seconds']:7.2f} s  {w['mb_per_s']:6.1f} MB/s  timeline {w['timeline_seconds']:.2f} s  peak RSS {res['wasm_node']['peak_over_input']:.2f}x input")
print(f"wasm   the core's memory {w['wasm_memory_bytes'] / 1e6:.0f} MB = {w['wasm_memory_bytes'] / size:.2f}x input (goal: at most 2x), "
      f"{w['progress_calls']} progress reports ({w['mode']})")
assert rows == w['rows'], 'native and wasm timelines differ'
PY
