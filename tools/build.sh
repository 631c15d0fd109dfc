#!/usr/bin/env bash
# `npm run build`: the wasm module, then the static site in dist/ (notebook, gym, single file).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build-wasm.sh
node notebook/build.mjs
# The Python package's wheel (dist/hloscope-*.whl); says loudly when PyPI is needed and unreachable.
rc=0
bash tools/build-wheel.sh || rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then exit "$rc"; fi
