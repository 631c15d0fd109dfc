#!/usr/bin/env bash
# `npm start`: builds what is missing, then serves the notebook (with a real example loaded) on
# 127.0.0.1 and prints the address. Nothing is fetched by the page: it works offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh all
[ -f wasm/gen/hloscope_core.wasm ] && [ -f wasm/gen/hloscope_core.single.mjs ] || bash tools/build-wasm.sh
[ -f build/native/hloscope ] || bash tools/build-native.sh >/dev/null
node notebook/build.mjs
exec node notebook/serve.mjs
