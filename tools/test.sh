#!/usr/bin/env bash
# `npm test`: installs what is missing, builds everything, runs every test suite:
#   1. native (ctest): unit + fixture tests, the CLI, the oracle comparison through the CLI
#   2. the same native tests under AddressSanitizer + UndefinedBehaviorSanitizer, and a short
#      libFuzzer run over the parsers
#   3. the wasm build under Node (node --test tests/node): same cases, byte-identical JSON
#   4. the pages in real Chromium (node --test tests/browser)
#   5. the Python package (node --test tests/jupyter): its wheel, text reprs, JupyterLab in Chromium
#      (it fetches its venv from PyPI the first time, into build/, and skips loudly without PyPI)
#   6. the suites that read ../shared (the native ones that do, node's, the Jupyter text reprs) once
#      more with HLOSCOPE_NO_SHARED=1, as a clone with nothing beside it runs them (two minutes
#      on a quiet machine; left out when ../shared is absent already: the run above was that run)
# No step needs the network once tools/setup.sh has run. Suites report with their own runners;
# each step's output is kept in build/test-logs/ (ctest's as JUnit too), and the end names every test
# that skipped, with its reason (tools/test-skips.py).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
logs=build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
n=0
step() { n=$((n + 1)); log=$logs/$(printf '%02d' "$n")-$(echo "$1" | tr -c 'a-zA-Z0-9\n' '-' | cut -c1-40).log; printf '\n==== %s (%ss)\n' "$1" "$(( $(date +%s) - start ))"; }
logged() { "$@" 2>&1 | tee -a "$log"; } # a suite's output, shown and kept for the summary

step "setup"
bash tools/setup.sh all

step "native build and tests"
bash tools/build-native.sh
logged ctest --test-dir build/native -j2 --output-on-failure --timeout 600 --output-junit "$PWD/${log%.log}.junit.xml" --test-output-size-passed 1000000

step "sanitizer build (address, undefined) and tests"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DHS_SANITIZE=ON >/dev/null
cmake --build build/asan -j2
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  logged ctest --test-dir build/asan -j2 --output-on-failure --timeout 900 -E oracle_cli --output-junit "$PWD/${log%.log}.junit.xml" --test-output-size-passed 1000000

step "libFuzzer: a fixed, repeatable run seeded from the fixtures and captures"
bash tests/fuzz/run.sh --ci

step "wasm build"
bash tools/build-wasm.sh

step "node tests of the wasm build"
logged node --test tests/node/

step "browser tests (Chromium)"
node notebook/build.mjs
logged node --test --test-concurrency=1 tests/browser/

step "the Python package: wheel offline, text reprs, JupyterLab in Chromium (venv under build/, PyPI once)"
logged node --test --test-concurrency=1 tests/jupyter/

step "the suites that read ../shared, again as a clone without it (HLOSCOPE_NO_SHARED=1)"
if absent=$(node -e "import('./tests/fixtures.mjs').then((m) => { const a = m.sharedAbsent(); console.log(a || ''); })") && [ -z "$absent" ]; then
  export HLOSCOPE_NO_SHARED=1
  # the native tests that read ../shared (test_truncate's shared part aside: its fixture part takes a minute)
  logged ctest --test-dir build/native -j2 --output-on-failure --timeout 600 --output-junit "$PWD/${log%.log}.junit.xml" --test-output-size-passed 1000000 \
    -R '^(core|profile|dumpset|timeline|evidence|memory|llvm|llvm_oracle|stablehlo_oracle|passes_cli|case/capture-.*)$'
  # the node test files that read ../shared (through tests/fixtures.mjs's shared helpers; the
  # walker-guard test holds every listing to those helpers): the others read only the repository
  mapfile -t shared_tests < <(grep -lE 'sharedAbsent|sharedPath|sharedCaptures|sharedDir|caseSharedInput|noShared' tests/node/*.test.mjs)
  logged node --test "${shared_tests[@]}"
  logged node --test --test-concurrency=1 --test-name-pattern='wheel from npm run build|text reprs' tests/jupyter/
  unset HLOSCOPE_NO_SHARED
else
  echo "${absent}: the run above was already the run without it"
fi

step "done"
# Every test that did not run, and why, from the kept logs and ctest's JUnit files (they hold the
# output of the tests that passed, and so the cmocka tests skipped inside them); a test skipped
# for lack of ../shared names the folder in its reason.
echo "skipped tests, by step, each with the reason it printed:"
python3 tools/test-skips.py "$logs"
echo "npm test: all suites passed in $(( $(date +%s) - start ))s"
