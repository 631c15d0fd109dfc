#!/usr/bin/env bash
# Fuzz the readers with libFuzzer (clang-14 from Debian, which the emscripten package brings).
#   bash tests/fuzz/run.sh [SECONDS]     explore every harness for SECONDS each (default 60; > 0), new inputs kept in build/fuzz/corpus-<name>
#   bash tests/fuzz/run.sh --ci          a fixed, repeatable run (seed 1) for npm test
#   bash tests/fuzz/run.sh --runs N [NAME]  N executions of each harness (or of NAME): the long run, see tests/fuzz/README.md
# Harnesses: fuzz_parse (any bytes, the format detector chooses, x-ray of a split) and one per
# reader (fuzz_reader.c), listed in READERS below. Seeds: our fixtures' dumps and, when present,
# the shared captures (read in place).
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-clang-14}
out=build/fuzz
mkdir -p "$out"
libs=$(pkg-config --cflags --libs jansson libpcre2-8 zlib 2>/dev/null || pkg-config --cflags --libs jansson libpcre2-8)
cflags="-g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DPCRE2_CODE_UNIT_WIDTH=8 -Icore/include -Icore/src"

# One line per reader: NAME|compile flag|seed files (globs). A new reader adds its line here, e.g.
#   "newfmt|-DHS_FUZZ_NEWFMT|fixtures/cpu-jax-*/*/newfmt.txt"   (and its #elif in fuzz_reader.c)
READERS=(
  "hlo|-DHS_FUZZ_HLO|fixtures/cpu-jax-*/*/after_optimizations.txt fixtures/cpu-jax-*/*/dump/*before_optimizations.txt ../shared/captures/tpu-v6e/*.txt"
  "stablehlo|-DHS_FUZZ_STABLEHLO|fixtures/cpu-jax-*/*/stablehlo.mlir fixtures/cpu-jax-*/*/stablehlo.debug.mlir"
  "jaxpr|-DHS_FUZZ_JAXPR|fixtures/cpu-jax-*/*/jaxpr.txt"
  "profile|-DHS_FUZZ_PROFILE|fixtures/cpu-jax-*/*/profile.xplane.pb ../shared/captures/profiles/*.xplane.pb"
)

# the core, compiled once (instrumented for the fuzzer, not linked with its main)
mkdir -p "$out/obj"
objs=()
for src in core/src/*.c; do
  o=$out/obj/$(basename "$src" .c).o
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ core/src/internal.h -nt "$o" ] || [ core/include/hloscope.h -nt "$o" ]; then
    # shellcheck disable=SC2086
    $CC ${cflags/fuzzer,/fuzzer-no-link,} -c "$src" -o "$o"
  fi
  objs+=("$o")
done

build() { # NAME SOURCE FLAGS...
  local name=$1 src=$2
  shift 2
  # shellcheck disable=SC2086
  $CC $cflags "$@" "$src" "${objs[@]}" $libs -o "$out/$name"
}

seed_dir() { # NAME PREFIX_BYTE GLOBS: up to 64 KB of each file (libFuzzer favours small inputs)
  local name=$1 lead=$2 n=0 f
  shift 2
  local dir=$out/seeds-$name
  mkdir -p "$dir"
  cp tests/fuzz/regressions/* "$dir/" 2>/dev/null || true
  # shellcheck disable=SC2068
  for f in $@; do
    [ -f "$f" ] || continue
    { printf "$lead"; head -c 65536 "$f"; } >"$dir/seed$n"
    n=$((n + 1))
  done
}

names=(parse)
build fuzz_parse tests/fuzz/fuzz_parse.c
# fuzz_dumpset: dump-folder names and listings (a leading split byte, then a listing)
build fuzz_dumpset tests/fuzz/fuzz_dumpset.c
mkdir -p "$out/seeds-dumpset"
cp tests/fuzz/regressions/dumpset-* "$out/seeds-dumpset/" 2>/dev/null || true
for f in fixtures/passes/*/*/FILES.txt fixtures/cpu-jax-0.4.38/attention/passes/FILES.txt; do
  [ -f "$f" ] || continue
  { printf '\x80'; cat "$f"; } >"$out/seeds-dumpset/$(echo "$f" | tr / _)"
done
# fuzz_parse: a leading split byte, then a real dump or profile
seed_dir parse '\x80' fixtures/cpu-jax-*/*/after_optimizations.txt fixtures/cpu-jax-*/*/stablehlo.mlir ../shared/captures/tpu-v6e/* \
  fixtures/cpu-jax-0.4.38/{exp,softmax,scan}/profile.xplane.pb ../shared/captures/profiles/*.xplane.pb \
  ../shared/captures/memory/* ../shared/captures/buffers/* fixtures/cpu-jax-0.10.2/softmax/dump/*-buffer-assignment.txt \
  fixtures/levels/*/*/*.ll ../shared/captures/llvm/*.ll
for line in "${READERS[@]}"; do
  IFS='|' read -r name flags globs <<<"$line"
  build "fuzz_$name" tests/fuzz/fuzz_reader.c "$flags"
  # shellcheck disable=SC2086
  seed_dir "$name" '' $globs
  names+=("$name")
done

common="-max_len=65536 -rss_limit_mb=2048"
if [ "${1:-}" = "--ci" ]; then
  # fuzz_parse explores (it reaches every reader through the detector); the per-reader harnesses
  # replay the regressions only (their seed pass under ASan costs minutes on 2 cores)
  echo "fuzz_parse: seed 1, 4000 runs"
  "$out/fuzz_parse" -seed=1 -runs=4000 $common "$out/seeds-parse" 2>&1 | tail -n 2
  echo "fuzz_dumpset: seed 1, 1500 runs"
  "$out/fuzz_dumpset" -seed=1 -runs=1500 -max_len=16384 -rss_limit_mb=2048 "$out/seeds-dumpset" 2>&1 | tail -n 2
  for name in "${names[@]:1}"; do
    echo "fuzz_$name: the regressions"
    "$out/fuzz_$name" $common tests/fuzz/regressions/* 2>&1 | tail -n 1
  done
elif [ "${1:-}" = "--runs" ]; then
  [ -z "${3:-}" ] || [ "$3" = dumpset ] && "$out/fuzz_dumpset" -runs="$2" -max_len=16384 -rss_limit_mb=2048 "$out/seeds-dumpset" 2>&1 | tail -n 3
  for name in "${names[@]}"; do
    [ -n "${3:-}" ] && [ "$3" != "$name" ] && continue
    mkdir -p "$out/corpus-$name"
    echo "fuzz_$name: $2 runs"
    "$out/fuzz_$name" -runs="$2" $common "$out/corpus-$name" "$out/seeds-$name" 2>&1 | tail -n 5
  done
else
  "$out/fuzz_dumpset" -max_total_time="${1:-60}" -max_len=16384 -rss_limit_mb=2048 "$out/seeds-dumpset" 2>&1 | tail -n 3
  for name in "${names[@]}"; do
    mkdir -p "$out/corpus-$name"
    "$out/fuzz_$name" -max_total_time="${1:-60}" $common "$out/corpus-$name" "$out/seeds-$name" 2>&1 | tail -n 5
  done
fi
