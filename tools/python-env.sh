#!/usr/bin/env bash
# Makes (once) a Python virtual environment under build/ from PyPI, from pinned requirements,
# and prints its path. Used by tools/build-wheel.sh and tests/jupyter/.
#   tools/python-env.sh wheel     build/wheel-venv: setuptools + wheel (builds the hloscope wheel)
#   tools/python-env.sh jupyter   build/jupyter-venv: JupyterLab, anywidget, jax 0.4.38 (the tests)
# The venv is kept while its requirements file is unchanged (a stamp holds its sha256), so a
# second run costs nothing. Exit status 77 when the venv is missing and PyPI cannot be reached.
# Python: $HLOSCOPE_PYTHON, else Debian's /usr/bin/python3, else python3 on PATH (3.9 or newer).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: tools/python-env.sh wheel|jupyter}
req=notebook/jupyter/requirements-$what.txt
venv=build/$what-venv
[ -f "$req" ] || { echo "python-env: no $req" >&2; exit 1; }
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.hloscope-stamp" 2>/dev/null)" = "$want" ]; then
  echo "$venv"
  exit 0
fi
py=${HLOSCOPE_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=$(command -v python3 || true); fi
fi
[ -n "$py" ] || { echo "python-env: no python3 (apt-get install -y python3 python3-venv)" >&2; exit 1; }
index=${PIP_INDEX_URL:-https://pypi.org/simple/}
if ! "$py" - "$index" >/dev/null 2>&1 <<'PY'
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/pip/", timeout=20).read(1)
PY
then
  echo "python-env: PyPI ($index) cannot be reached and $venv is missing or out of date" >&2
  exit 77
fi
echo "python-env: making $venv from $req (PyPI, $("$py" -V))" >&2
rm -rf "$venv"
"$py" -m venv "$venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
echo "$want" > "$venv/.hloscope-stamp"
echo "$venv"
