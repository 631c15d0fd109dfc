#!/usr/bin/env bash
# Fuzz the readers with libFuzzer (clang-14 from Debian, which the emscripten package brings).
#   bash tests/fuzz/run.sh [SECONDS]     explore every harness for SECONDS each (default 60; > 0), new inputs kept in build/fuzz/corpus-<name>
#   bash tests/fuzz/run.sh --ci          a fixed, repeatable run (seed 1) for npm test
#   bash tests/fuzz/run.sh --runs N [NAME]  N executions of each harness (or of NAME), full harnesses
#   bash tests/fuzz/run.sh --long NAME [N]  the long run of one harness (default 10M executions): the
#       lean build (-DHS_FUZZ_LEAN), small inputs; log in build/fuzz/longrun-NAME.log (README.md)
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
  "hlo|-DHS_FUZZ_HLO|fixtures/cpu-jax-*/*/after_optimizations.txt fixtures/cpu-jax-*/*/dump/*before_optimizations.txt tests/cases/hlo-*/input.txt tests/cases/err-*/input.txt ../shared/captures/tpu-v6e/*.txt"
  "stablehlo|-DHS_FUZZ_STABLEHLO|fixtures/cpu-jax-*/*/stablehlo.mlir fixtures/cpu-jax-*/*/stablehlo.debug.mlir tests/cases/stablehlo-*/input.mlir ../shared/captures/tpu-v6e/*.mlir"
  "jaxpr|-DHS_FUZZ_JAXPR|fixtures/cpu-jax-*/*/jaxpr.txt"
  "profile|-DHS_FUZZ_PROFILE|fixtures/cpu-jax-*/*/profile.xplane.pb ../shared/captures/profiles/*.xplane.pb"
  "timeline|-DHS_FUZZ_TIMELINE|fixtures/cpu-jax-0.*/*/profile.xplane.pb ../shared/captures/profiles/*.xplane.pb"
  "decisions|-DHS_FUZZ_DECISIONS|fixtures/cpu-jax-*/*/jaxpr.txt fixtures/cpu-jax-*/*/stablehlo.mlir fixtures/cpu-jax-0.12.0.1/*/after_optimizations.txt ../shared/captures/tpu-v6e/*.txt"
  "memory|-DHS_FUZZ_MEMORY|../shared/captures/memory/*.txt ../shared/captures/errors/*.txt"
  "buffers|-DHS_FUZZ_BUFFERS|fixtures/cpu-jax-0.12.0.1/*/dump/*-buffer-assignment*.txt fixtures/cpu-jax-0.12.0.1/*/dump/*-memory-usage-report.txt ../shared/captures/buffers/*.txt"
  "layout|-DHS_FUZZ_LAYOUT|"
  "llvm|-DHS_FUZZ_LLVM|fixtures/levels/*/*/*.ll ../shared/captures/llvm/*.ll"
)
# The long run's input size limit per harness (--long; the default is 2048 bytes): room for the
# structure each reader follows, no more (the readers are linear: an input twice as long costs
# about twice the time). One type with its layout is short; the memory texts are scanned by many
# patterns; a protobuf needs room for its nested messages.
declare -A LONG_MAX_LEN=([parse]=4096 [layout]=256 [memory]=1024 [buffers]=1024 [profile]=8192 [timeline]=8192 [dumpset]=4096)

# the core, compiled once (instrumented for the fuzzer, not linked with its main)
mkdir -p "$out/obj"
objs=()
newest_h=$(ls -t $(find core/src -name '*.h') core/include/hloscope.h | head -n 1) # any header changed: all rebuilt
for src in $(find core/src -name '*.c' | sort); do
  o=$out/obj/$(basename "$src" .c).o # base names are unique across core/src (tests/native/check_layers.py)
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
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
# --long builds only the harness it runs: want NAME is true unless the run is `--long` of another
want() { [ "$ARG1" != "--long" ] || [ "$ARG2" = "$1" ]; }
build_harness() { # NAME SOURCE: the full harness, or with --long its lean build fuzz_NAME_lean
  if [ "${ARG1:-}" = "--long" ]; then build "fuzz_${1}_lean" "$2" -DHS_FUZZ_LEAN; else build "fuzz_$1" "$2"; fi
}
ARG1=${1:-} ARG2=${2:-}
want parse && build_harness parse tests/fuzz/fuzz_parse.c
# fuzz_dumpset: dump-folder names and listings (a leading split byte, then a listing)
want dumpset && build_harness dumpset tests/fuzz/fuzz_dumpset.c
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
  names+=("$name")
  if [ "${1:-}" = "--long" ]; then # the lean binary of the one harness asked for
    [ "${2:-}" = "$name" ] || continue
    build "fuzz_${name}_lean" tests/fuzz/fuzz_reader.c "$flags" -DHS_FUZZ_LEAN
  else
    build "fuzz_$name" tests/fuzz/fuzz_reader.c "$flags"
  fi
  # shellcheck disable=SC2086
  seed_dir "$name" '' $globs
done
# extra seeds for the StableHLO reader (issue 40): the generic forms MLIR prints of our fixtures
# (tests/oracle/stablehlo/generic.bin.gz), and the generated, mutated and broken texts of its
# differential corpus (tests/oracle/stablehlo/corpus.mjs --seeds)
if [ -d "$out/seeds-stablehlo" ]; then
  node tests/oracle/stablehlo/corpus.mjs --seeds "$out/seeds-stablehlo" >/dev/null
fi
# extra seeds: the trace-event JSON of the profiles (gunzipped here, under build/), and the
# distinct types-with-layouts of the TPU captures and our dumps, one type a seed
for name in profile timeline; do
  mkdir -p "$out/seeds-$name"
  for f in fixtures/cpu-jax-0.12.0.1/*/profile.trace.json.gz; do
    [ -f "$f" ] && { zcat "$f" 2>/dev/null || true; } | head -c 65536 >"$out/seeds-$name/trace-$(basename "$(dirname "$f")")"
  done
done
n=0
mkdir -p "$out/seeds-layout"
while IFS= read -r t; do
  printf '%s' "$t" >"$out/seeds-layout/type$n"
  n=$((n + 1))
done < <(cat ../shared/captures/tpu-layouts/*.txt ../shared/captures/tpu-v6e/*.txt ../shared/captures/buffers/*.txt \
  fixtures/cpu-jax-0.12.0.1/*/after_optimizations.txt 2>/dev/null | grep -ohE '[a-z0-9]+\[[0-9,]*\]\{[^{}]*\}' | sort -u | head -n 200)

common="-max_len=65536 -rss_limit_mb=2048"
if [ "${1:-}" = "--long" ]; then
  # The long run (issue 10: 10M executions, ASan + UBSan, zero crashes): the lean build, inputs
  # up to LONG_MAX_LEN, a hang is an input that takes over 10 s. ASan keeps a 4-frame stack per
  # allocation instead of 30 (the readers allocate on every line; a crash's input is then
  # replayed with the full binary for the whole report). Under nice: it shares the machine.
  name=${2:?"--long NAME [RUNS]: NAME is one of: dumpset ${names[*]}"}
  runs=${3:-10000000}
  bin=$out/fuzz_${name}_lean seeds=$out/seeds-$name
  [ -x "$bin" ] || { echo "no harness named $name (one of: dumpset ${names[*]})" >&2; exit 2; }
  mkdir -p "$out/corpus-long-$name" "$out/crashes-$name"
  # HS_FUZZ_WORKER=N (N > 1): one more worker on the same corpus, on another core, with its own
  # seed (-seed=N) and its own log (longrun-NAME-wN.log); the workers' executions add up
  worker=${HS_FUZZ_WORKER:-1}
  tag=$name$([ "$worker" = 1 ] || echo "-w$worker")
  log=$out/longrun-$tag.log
  maxlen=${LONG_MAX_LEN[$name]:-2048}
  # HS_FUZZ_MAX_TIME=SECONDS stops the run earlier (libFuzzer's -max_total_time); the corpus in
  # build/fuzz/corpus-long-NAME is kept, so a later run goes on from where this one stopped
  maxtime=${HS_FUZZ_MAX_TIME:-0}
  echo "fuzz_$name (lean, worker $worker): $runs runs, -max_len=$maxlen, max time ${maxtime}s (0: none), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')" | tee "$log"
  start=$(date +%s)
  touch "$out/.longrun-$tag.start" # crashes: the inputs written after this
  set +e
  ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=4} nice -n 19 "$bin" -runs="$runs" -max_len="$maxlen" -rss_limit_mb=2048 \
    -timeout=10 -max_total_time="$maxtime" -seed="$worker" -print_final_stats=1 -artifact_prefix="$out/crashes-$name/" \
    "$out/corpus-long-$name" "$seeds" >"$out/longrun-$tag.out" 2>&1
  rc=$?
  set -e
  end=$(date +%s)
  { grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|Done [0-9]+ runs|stat::|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$out/longrun-$tag.out" || true
    echo "exit $rc, wall $((end - start)) s, crashes: $(find "$out/crashes-$name" -type f -newer "$out/.longrun-$tag.start" | wc -l)"; } | tee -a "$log"
  exit $rc
elif [ "${1:-}" = "--ci" ]; then
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
