#!/usr/bin/env bash
# The native HLO reader, profile-guided (gcc): build/pgo-native is the core with its reader's files
# instrumented (HS_NATIVE_PGO=generate; CMakeLists.txt says which); its bench parses and counts
# the fusions of every committed optimized fixture and of the bench's captured kinds of module, as
# tools/pgo-train.sh does for the wasm; the counts (build/pgo-native/counts) then guide
# build/native's compile (HS_NATIVE_PGO=use). Real dumps only: the branch weights are those of
# real input. The stamp beside the counts changes only when they do, so an unchanged core does
# not recompile. Prints the cmake arguments for build/native (nothing, and exits 0, where gcc or
# node is missing or the training fails: build/native then goes without).
#   bash tools/pgo-native.sh            (tools/build-native.sh and tools/test.sh call it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for tool in gcc node; do
  if ! command -v "$tool" >/dev/null; then
    echo "pgo-native: no $tool: the native core is built without a profile" >&2
    exit 0
  fi
done
gen=build/pgo-native
counts=$root/$gen/counts
train=$root/$gen/train
# (CMakeLists.txt refuses HS_NATIVE_PGO with a compiler other than gcc: the configure fails then)
if ! cmake -S . -B "$gen" -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=OFF -DHS_NATIVE_PGO=generate \
  -DHS_NATIVE_PGO_DIR="$train" "$@" >/dev/null 2>&1 ||
  ! cmake --build "$gen" --target hloscope_bench -j2 >/dev/null 2>&1; then
  echo "pgo-native: the instrumented build failed: the native core is built without a profile" >&2
  exit 0
fi
rm -rf "$train"
mkdir -p "$train"
# the texts, and the prefix that runs without address randomisation (tools/pgo-texts.sh)
source tools/pgo-texts.sh
pgo_texts "$gen/texts"
for f in "${texts[@]}"; do
  "${norand[@]}" "$gen/hloscope_bench" "$f" 3 >/dev/null 2>&1 || true
done
shopt -s nullglob globstar
gcda=("$train"/**/*.gcda)
if [ ${#gcda[@]} -eq 0 ]; then
  echo "pgo-native: the instrumented core wrote no counts: the native core is built without a profile" >&2
  exit 0
fi
# the counts replace the last ones only when they differ (the stamp is what the objects depend on)
sum=$(cd "$train" && find . -name '*.gcda' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ ! -f "$counts/stamp" ] || [ "$(cat "$counts/stamp")" != "$sum" ]; then
  rm -rf "$counts"
  mv "$train" "$counts"
  echo "$sum" >"$counts/stamp"
fi
rm -rf "$train"
echo "-DHS_NATIVE_PGO=use -DHS_NATIVE_PGO_DIR=$counts"
