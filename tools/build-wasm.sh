#!/usr/bin/env bash
# WebAssembly build: wasm/gen/hloscope_core.{mjs,wasm} and wasm/gen/hloscope_core.single.mjs (the
# reactor with Emscripten's JS glue: browser, Node), and wasm/gen/hloscope-cli.wasm (the CLI as a
# WASI command: Python runs it in wasmtime).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh all
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DHS_DEPS_DIR="$PWD/build/deps" >/dev/null
cmake --build build/wasm -j2
ls -l wasm/gen/
