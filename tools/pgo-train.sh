#!/usr/bin/env bash
# The profile for the wasm core's profile-guided build: a native CLI built with clang-14's
# front-end instrumentation (build/pgo, -DHS_PGO_GENERATE=ON) reads the committed fixtures the
# way users do (summary, fusions, spills, decisions, xray, timeline, profile, passes, layouts,
# llvm), and llvm-profdata merges the counts into build/pgo/hloscope.profdata, which
# tools/build-wasm.sh hands to the wasm build (-DHS_PGO_PROFILE). Real dumps only: the branch
# weights are those of real input. The file is replaced only when the counts change, so an
# unchanged core does not recompile the wasm. Prints the profile's path; prints nothing (and
# exits 0) where clang-14 or llvm-profdata-14 is missing: the wasm build then goes without.
#   bash tools/pgo-train.sh            (tools/build-wasm.sh calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for tool in clang-14 llvm-profdata-14; do
  if ! command -v "$tool" >/dev/null; then
    echo "pgo-train: no $tool (Debian's emscripten package brings it): the wasm core is built without a profile" >&2
    exit 0
  fi
done
cmake -S . -B build/pgo -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=Release -DHS_PGO_GENERATE=ON -DHS_WERROR=OFF >/dev/null
cmake --build build/pgo --target hloscope_cli -j2 >/dev/null
raw=build/pgo/raw
rm -rf "$raw"
mkdir -p "$raw"
cli=build/pgo/hloscope
# without address randomisation where the system allows it: tuple types are hashed by their
# elements' addresses, so their probe counts (and the profile) would differ from run to run
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
run() { LLVM_PROFILE_FILE="$root/$raw/%p.profraw" "${norand[@]}" "$cli" "$@" >/dev/null 2>&1 || true; }
for d in fixtures/cpu-jax-*/*/; do
  hlo=$d/after_optimizations.txt
  [ -f "$hlo" ] || continue
  for cmd in summary fusions spills decisions layouts; do run "$cmd" --json "$hlo"; done
  [ -f "$d/stablehlo.mlir" ] && run xray --json "$d/stablehlo.mlir" "$hlo" && run decisions --json "$d/stablehlo.mlir"
  [ -f "$d/jaxpr.txt" ] && run decisions --json "$d/jaxpr.txt"
  [ -f "$d/profile.xplane.pb" ] && run timeline --json "$d/profile.xplane.pb" --hlo "$hlo"
  [ -f "$d/profile.trace.json.gz" ] && run profile --json "$d/profile.trace.json.gz"
  [ -d "$d/dump" ] && run passes --json "$d/dump"
done
for ll in $(find fixtures/levels -name '*.ll' | sort); do run llvm --json "$ll"; done
for p in fixtures/passes/*/*/; do [ -d "$p" ] && run passes --json "$p"; done
shopt -s nullglob
raws=("$raw"/*.profraw)
if [ ${#raws[@]} -eq 0 ]; then
  echo "pgo-train: the instrumented CLI wrote no counts: the wasm core is built without a profile" >&2
  exit 0
fi
llvm-profdata-14 merge -o build/pgo/next.profdata "${raws[@]}"
if cmp -s build/pgo/next.profdata build/pgo/hloscope.profdata; then
  rm build/pgo/next.profdata
else
  mv build/pgo/next.profdata build/pgo/hloscope.profdata
fi
rm -rf "$raw"
echo "$root/build/pgo/hloscope.profdata"
