#!/usr/bin/env bash
# WebAssembly build: wasm/gen/hloscope_core.{mjs,wasm} and wasm/gen/hloscope_core.single.mjs (the
# reactor with Emscripten's JS glue: browser, Node), and wasm/gen/hloscope-cli.wasm (the CLI as a
# WASI command: Python runs it in wasmtime). The HLO reader's files are compiled with the profile
# tools/pgo-train.sh makes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh all
# the HLO reader's profile (tools/pgo-train.sh: seconds once built); without one the build goes on
profile=$(bash tools/pgo-train.sh | tail -n 1) || profile=
[ -n "$profile" ] || echo "build-wasm: no profile for the HLO reader (see above): the wasm parse is built without it, 5-9% slower" >&2
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DHS_DEPS_DIR="$PWD/build/deps" -DHS_PGO_PROFILE="$profile" >/dev/null
cmake --build build/wasm -j2
ls -l wasm/gen/
