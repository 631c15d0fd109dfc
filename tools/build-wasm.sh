#!/usr/bin/env bash
# WebAssembly build: wasm/gen/hloscope_core.{mjs,wasm} and wasm/gen/hloscope_core.single.mjs (the
# reactor with Emscripten's JS glue: browser, Node), and wasm/gen/hloscope-cli.wasm (the CLI as a
# WASI command: Python runs it in wasmtime).
# Profile-guided: tools/pgo-train.sh first runs an instrumented native CLI over the committed
# fixtures (seconds); without clang-14 it says so and the build goes on without a profile.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh all
if ! profile=$(bash tools/pgo-train.sh | tail -n 1); then
  echo "build-wasm: the profile could not be made (see above): the wasm core is built without it, about 11% slower" >&2
  profile=
fi
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DHS_DEPS_DIR="$PWD/build/deps" -DHS_PGO_PROFILE="$profile" >/dev/null
cmake --build build/wasm -j2
ls -l wasm/gen/
