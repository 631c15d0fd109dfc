#!/usr/bin/env bash
# Fuzz the parsers with libFuzzer (clang-14 from Debian, which the emscripten package brings).
#   bash tests/fuzz/run.sh [SECONDS]     explore for SECONDS (default 60; must be > 0), new inputs kept in build/fuzz/corpus
#   bash tests/fuzz/run.sh --ci          a fixed, repeatable run (seed 1, 4000 inputs) for npm test
# Seeds: our fixtures' dumps and, when present, the shared TPU captures (read in place).
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-clang-14}
out=build/fuzz
mkdir -p "$out/corpus" "$out/seeds"
jansson_flags=$(pkg-config --cflags --libs jansson libpcre2-8)
$CC -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -DPCRE2_CODE_UNIT_WIDTH=8 -Icore/include -Icore/src core/src/*.c tests/fuzz/fuzz_parse.c $jansson_flags \
  -o "$out/fuzz_parse"
# seeds: a leading split byte, then a real dump (capped at 64 KB: libFuzzer favours small inputs)
n=0
cp tests/fuzz/regressions/* "$out/seeds/" 2>/dev/null || true
for f in fixtures/cpu-jax-*/*/after_optimizations.txt fixtures/cpu-jax-*/*/stablehlo.mlir ../shared/captures/tpu-v6e/* \
  fixtures/cpu-jax-0.4.38/{exp,softmax,scan}/profile.xplane.pb ../shared/captures/profiles/*.xplane.pb \
  ../shared/captures/memory/* ../shared/captures/buffers/* fixtures/cpu-jax-0.10.2/softmax/dump/*-buffer-assignment.txt \
  fixtures/levels/*/*/*.ll ../shared/captures/llvm/*.ll; do
  [ -f "$f" ] || continue
  { printf '\x80'; head -c 65536 "$f"; } >"$out/seeds/seed$n"
  n=$((n + 1))
done
if [ "${1:-}" = "--ci" ]; then
  "$out/fuzz_parse" -seed=1 -runs=4000 -max_len=65536 -rss_limit_mb=2048 "$out/seeds" 2>&1 | tail -n 3
else
  "$out/fuzz_parse" -max_total_time="${1:-60}" -max_len=65536 -rss_limit_mb=2048 "$out/corpus" "$out/seeds" 2>&1 | tail -n 5
fi
