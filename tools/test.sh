#!/usr/bin/env bash
# `npm test`: installs what is missing, builds everything, runs every test suite:
#   1. native (ctest): unit + fixture tests, the CLI, the oracle comparison through the CLI
#   2. the same native tests under AddressSanitizer + UndefinedBehaviorSanitizer, and a short
#      libFuzzer run over the parsers
#   3. the wasm build under Node (node --test tests/node): same cases, byte-identical JSON
#   4. the pages in real Chromium (node --test tests/browser)
#   5. the Python package (node --test tests/jupyter): its wheel, text reprs, JupyterLab in Chromium
#      (it fetches its venv from PyPI the first time, into build/, and skips loudly without PyPI)
# No step needs the network once tools/setup.sh has run. Suites report with their own runners.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
step() { printf '\n==== %s (%ss)\n' "$1" "$(( $(date +%s) - start ))"; }

step "setup"
bash tools/setup.sh all

step "native build and tests"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j2
ctest --test-dir build/native --output-on-failure --timeout 600

step "sanitizer build (address, undefined) and tests"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DHS_SANITIZE=ON >/dev/null
cmake --build build/asan -j2
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure --timeout 900 -E oracle_cli

step "libFuzzer: a fixed, repeatable run seeded from the fixtures and captures"
bash tests/fuzz/run.sh --ci

step "wasm build"
bash tools/build-wasm.sh

step "node tests of the wasm build"
node --test tests/node/

step "browser tests (Chromium)"
node notebook/build.mjs
node --test --test-concurrency=1 tests/browser/

step "the Python package: wheel offline, text reprs, JupyterLab in Chromium (venv under build/, PyPI once)"
node --test --test-concurrency=1 tests/jupyter/

step "done"
