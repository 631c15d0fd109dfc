#!/usr/bin/env bash
# The profile for the wasm core's HLO reader (profile-guided; CMakeLists.txt applies it to
# core/src/doc/hlo/*.c only): a native bench built with clang-14's front-end instrumentation
# (build/pgo) parses and counts the fusions of every committed optimized fixture and of the
# bench's captured kinds of module, as the page does first with a dump, and llvm-profdata-14
# merges the counts into build/pgo/reader.profdata. Real dumps only: the branch weights are those
# of real input. The file is replaced only when the counts change, so an unchanged reader does
# not recompile the wasm. Prints the profile's path; prints nothing (and exits 0) where clang-14,
# llvm-profdata-14 or node is missing: the wasm build then goes without.
#   bash tools/pgo-train.sh            (tools/build-wasm.sh calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for tool in clang-14 llvm-profdata-14 node; do
  if ! command -v "$tool" >/dev/null; then
    echo "pgo-train: no $tool (tools/setup.sh all installs it): the wasm core is built without a profile" >&2
    exit 0
  fi
done
# HS_METADATA_SHORTCUT=0: the reader as wasm builds it (hlo_attr.c), so that the counts are
# those of the code they guide; HS_NATIVE_MEMORY=0: memory taken as the wasm takes it (no 2 MB
# alignment, glibc's own mmap line: core/src/base/util.c, bench/bench_parse.c). Trained with
# them, the wasm parse was 9-14% slower.
# HS_PGO_GENERATE: the reader's files alone counted (CMakeLists.txt says why).
cmake -S . -B build/pgo -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=OFF -DHS_PGO_GENERATE=ON \
  -DCMAKE_C_FLAGS="-DHS_METADATA_SHORTCUT=0 -DHS_NATIVE_MEMORY=0" >/dev/null
cmake --build build/pgo --target hloscope_bench -j2 >/dev/null
raw=build/pgo/raw
rm -rf "$raw"
mkdir -p "$raw"
# the texts, and the prefix that runs without address randomisation (tools/pgo-texts.sh)
source tools/pgo-texts.sh
pgo_texts build/pgo/texts
for f in "${texts[@]}"; do
  LLVM_PROFILE_FILE="$root/$raw/%p.profraw" "${norand[@]}" build/pgo/hloscope_bench "$f" 3 >/dev/null 2>&1 || true
done
shopt -s nullglob
raws=("$raw"/*.profraw)
if [ ${#raws[@]} -eq 0 ]; then
  echo "pgo-train: the instrumented bench wrote no counts: the wasm core is built without a profile" >&2
  exit 0
fi
llvm-profdata-14 merge -o build/pgo/next.profdata "${raws[@]}"
if cmp -s build/pgo/next.profdata build/pgo/reader.profdata; then
  rm build/pgo/next.profdata
else
  mv build/pgo/next.profdata build/pgo/reader.profdata
fi
rm -rf "$raw"
echo "$root/build/pgo/reader.profdata"
