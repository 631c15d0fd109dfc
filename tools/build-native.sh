#!/usr/bin/env bash
# Native build: library, CLI (build/native/hloscope), bench and tests (tools/test.sh builds with
# it). Pass SANITIZE=1 for the address+undefined build in build/asan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh native
if [ "${SANITIZE:-0}" = 1 ]; then
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DHS_SANITIZE=ON >/dev/null
  cmake --build build/asan -j2
else
  # link-time optimised, the HLO reader profile-guided (tools/pgo-native.sh; without its counts,
  # neither)
  pgo=$(bash tools/pgo-native.sh)
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release ${pgo:--DHS_NATIVE_PGO=} >/dev/null
  cmake --build build/native -j2
fi
