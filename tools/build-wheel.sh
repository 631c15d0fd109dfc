#!/usr/bin/env bash
# The Python package's wheel: dist/hloscope-<version>-py3-none-any.whl (called by `npm run build`
# and the Jupyter tests). Bundles the widget (the wasm inlined) and the WASI build of the CLI (hloscope-cli.wasm)
# (notebook/jupyter/build.mjs, needs `npm run build:wasm`), then `pip wheel` in the Jupyter tests'
# venv when it exists, else in a small venv under build/ (setuptools from PyPI the first time).
# Without PyPI and without a venv it says so loudly and exits 77 (tools/build.sh goes on; the
# Jupyter tests skip, except on CI).
set -euo pipefail
cd "$(dirname "$0")/.."
node notebook/jupyter/build.mjs
rc=0
# The Jupyter tests' venv holds setuptools too: reuse it when it is there (one venv less on CI).
if [ -x build/jupyter-venv/bin/python ] && build/jupyter-venv/bin/python -c \
  'import sys, setuptools; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
  venv=build/jupyter-venv
else
  venv=$(bash tools/python-env.sh wheel) || rc=$?
fi
if [ "$rc" = 77 ]; then
  printf '\n!!!! build-wheel: NOT BUILT: PyPI is unreachable and build/wheel-venv is missing !!!!\n\n' >&2
  exit 77
elif [ "$rc" != 0 ]; then
  exit "$rc"
fi
mkdir -p dist
rm -f dist/hloscope-*.whl
# No build isolation: setuptools comes from the venv, so this needs no network.
"$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation --no-index \
  -w dist notebook/jupyter
rm -rf notebook/jupyter/build notebook/jupyter/*.egg-info
ls -l dist/hloscope-*.whl
