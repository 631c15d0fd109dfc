"""Text reprs: the hloscope CLI's own output, from the CLI compiled to WASI and run in this
process by wasmtime (``_wasm.py``), else the native CLI.

``HLOSCOPE_TEXT=wasm|cli`` picks one (default: the wasm, which the package carries):
  wasm: ``static/hloscope-cli.wasm`` (or ``wasm/gen/hloscope-cli.wasm`` of the repository this
        package sits in) in wasmtime: no Node, no native CLI, no subprocess;
  cli:  the native CLI: ``$HLOSCOPE_CLI``, else ``hloscope`` on PATH when it is not this
        package's own console script, else ``build/native/hloscope`` of the repository.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent

# the CLI's error line: `file:line:col: CODE: message` (core/cli/main.c)
_WHERE = re.compile(r"^(.*):(\d+):(\d+): (HS_[A-Z0-9_]+): (.*)$", re.M)


class HloscopeError(ValueError):
    """The core refused the input. ``str()`` is what the CLI said on stderr (its
    ``file:line:col: CODE: message`` line); ``.code``, ``.line``, ``.column`` and ``.message`` are
    read from that line (``code``, ``line`` and ``column`` None where the CLI named none, as for an
    unreadable file), ``.status`` is the CLI's exit status."""

    def __init__(self, text, status=None):
        super().__init__(text)
        self.status = status
        m = _WHERE.search(text or "")
        self.file = m.group(1) if m else None
        self.line = int(m.group(2)) if m else None
        self.column = int(m.group(3)) if m else None
        self.code = m.group(4) if m else None
        self.message = m.group(5) if m else (text or "").strip()


def _native():
    env = os.environ.get("HLOSCOPE_CLI")
    if env is not None:
        return env if env and os.access(env, os.X_OK) else None
    found = shutil.which("hloscope")
    if found and not _is_console_script(found):
        return found
    repo = HERE.parents[2] / "build" / "native" / "hloscope"  # notebook/jupyter/hloscope -> repo
    return str(repo) if os.access(repo, os.X_OK) else None


def _is_console_script(path):
    """True for the ``hloscope`` that pip wrote for this package (a Python script, not the CLI)."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!" and b"hloscope._wasm" in f.read(4096)
    except OSError:
        return False


def _wasm_ready():
    from . import _wasm

    if _wasm.wasm_path() is None:
        return "the package carries no hloscope-cli.wasm (npm run build:wasm, then tools/build-wheel.sh)"
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        return "wasmtime is not installed (pip install wasmtime)"
    return None


def runner():
    """(name, how): ("wasm", None), ("cli", [native CLI]), or (None, why neither can run)."""
    want = os.environ.get("HLOSCOPE_TEXT", "")
    if want not in ("", "wasm", "cli"):
        return None, f"HLOSCOPE_TEXT={want}: expected wasm or cli"
    if want in ("", "wasm"):
        why = _wasm_ready()
        if why is None:
            return "wasm", None
        if want == "wasm":
            return None, f"HLOSCOPE_TEXT=wasm, but {why}"
    exe = _native()
    if exe:
        return "cli", [exe]
    if want == "cli":
        return None, "HLOSCOPE_TEXT=cli, but no native hloscope CLI was found (npm run build:native; or set HLOSCOPE_CLI)"
    return None, f"no text here: {why}, and no native hloscope CLI was found; in a notebook the widget shows the result"


def run(command, paths, *, json=False, cwd=None, with_stderr=False):
    """Runs ``hloscope COMMAND [--json] PATHS`` and returns its standard output (with_stderr: the
    pair of its standard output and what it said on standard error, stripped).
    Raises HloscopeError when the CLI fails, RuntimeError when nothing can run."""
    name, how = runner()
    if name is None:
        raise RuntimeError(how)
    args = [command] + (["--json"] if json else []) + [str(p) for p in paths]
    if name == "wasm":
        from . import _wasm

        rc, out, err = _wasm.run(args, cwd=cwd)
    else:
        proc = subprocess.run(how + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    said = err.decode("utf-8", "replace").strip()
    if rc != 0:
        raise HloscopeError(said or f"hloscope ({name}) exited with status {rc}", rc)
    out = out.decode("utf-8", "replace")
    return (out, said) if with_stderr else out
