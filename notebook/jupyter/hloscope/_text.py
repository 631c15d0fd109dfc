"""Text reprs: the native CLI when it is built, else the same core (wasm) through Node.

Which runs is found in this order (``HLOSCOPE_TEXT=cli|node`` picks one):
  1. the native CLI: ``$HLOSCOPE_CLI``, else ``hloscope`` on PATH, else ``build/native/hloscope``
     of the repository this package sits in (a source checkout);
  2. ``static/cli.mjs`` (carried by the package, wasm inlined) under Node 18+: ``$HLOSCOPE_NODE``,
     else ``node`` on PATH;
  3. neither: the text says so, and how to get one (the widget needs neither).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_CLI = HERE / "static" / "cli.mjs"


class HloscopeError(ValueError):
    """The core refused the input: the message is the CLI's ``file:line:col: CODE: message``."""


def _native():
    env = os.environ.get("HLOSCOPE_CLI")
    if env is not None:
        return env if env and os.access(env, os.X_OK) else None
    found = shutil.which("hloscope")
    if found:
        return found
    repo = HERE.parents[2] / "build" / "native" / "hloscope"  # notebook/jupyter/hloscope -> repo
    return str(repo) if os.access(repo, os.X_OK) else None


def _node():
    if not NODE_CLI.is_file():
        return None
    node = os.environ.get("HLOSCOPE_NODE", shutil.which("node") or "")
    return node if node and os.access(node, os.X_OK) else None


def runner():
    """(name, argv prefix) of the program that prints the texts, or (None, why not)."""
    want = os.environ.get("HLOSCOPE_TEXT", "")
    if want in ("", "cli"):
        exe = _native()
        if exe:
            return "cli", [exe]
        if want == "cli":
            return None, "HLOSCOPE_TEXT=cli, but no native hloscope CLI was found (npm run build:native; or set HLOSCOPE_CLI)"
    if want in ("", "node"):
        node = _node()
        if node:
            return "node", [node, str(NODE_CLI)]
        if want == "node":
            return None, f"HLOSCOPE_TEXT=node, but {'no node on PATH' if NODE_CLI.is_file() else f'{NODE_CLI} is missing'}"
    if want not in ("", "cli", "node"):
        return None, f"HLOSCOPE_TEXT={want}: expected cli or node"
    return None, ("no text here: the native hloscope CLI is not built and Node is not available "
                  "(build the CLI with `npm run build:native`, or install Node 18+); "
                  "in a notebook the widget shows the result without either")


def run(command, paths, *, json=False, cwd=None, with_stderr=False):
    """Runs ``hloscope COMMAND [--json] PATHS`` and returns its standard output (with_stderr: the
    pair of its standard output and what it said on standard error, stripped).
    Raises HloscopeError on a parse error, RuntimeError when nothing can run."""
    name, argv = runner()
    if name is None:
        raise RuntimeError(argv)
    cmd = argv + [command] + (["--json"] if json else []) + [str(p) for p in paths]
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip() or f"{name} exited with status {proc.returncode}"
        raise HloscopeError(msg)
    out = proc.stdout.decode("utf-8", "replace")
    return (out, proc.stderr.decode("utf-8", "replace").strip()) if with_stderr else out
