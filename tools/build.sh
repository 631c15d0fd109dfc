#!/usr/bin/env bash
# `npm run build`: the wasm module, then the static site in dist/ (notebook, gym, single file).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build-wasm.sh
node notebook/build.mjs
