"""The wasm CLI in Python against the native CLI, case by case (run by tests/jupyter/jupyter.test.mjs
with a fresh venv's python, the wheel and wasmtime installed, and a PATH holding neither node nor
hloscope). Reads CASES.json, written by the test: [{argv, cwd, rc, sha256, stdout_head, error}]
with what the native CLI did (its exit status, the sha256 of its stdout, and the code, line and
column of its `file:line:col: CODE: message` stderr line, or null; for a report, the sha256 of the
page it wrote, its date masked). Runs every case in this one
process through hloscope._text.run, the call str(result) and result.json() make (the wasm in
wasmtime), and prints one JSON line: {"cases": N, "mismatches": [...]}.

Usage: python wasm_parity.py CASES.json
"""
import hashlib
import json
import os
import re
import shutil
import sys


def main():
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    assert shutil.which("node") is None, f"node is on PATH ({shutil.which('node')}): the test wants none"
    assert shutil.which("hloscope") is None, f"hloscope is on PATH ({shutil.which('hloscope')}): the test wants none"
    os.environ.pop("HLOSCOPE_TEXT", None)
    os.environ.pop("HLOSCOPE_CLI", None)
    from hloscope import _text, _wasm
    from hloscope._text import HloscopeError

    name, how = _text.runner()
    assert name == "wasm", f"the runner is {name}: {how}"
    # a WASI command: it imports wasi_snapshot_preview1 and nothing else (no Emscripten glue)
    _, _, module = _wasm._load()
    others = sorted({f"{i.module}.{i.name}" for i in module.imports if i.module != "wasi_snapshot_preview1"})
    assert not others, f"the wasm imports {others}"
    bad = []
    for c in cases:
        argv, cwd = c["argv"], c["cwd"]
        rc, out, err = _wasm.run(argv, cwd=cwd)
        got = {"rc": rc, "sha256": hashlib.sha256(out).hexdigest()}
        want = {"rc": c["rc"], "sha256": c["sha256"]}
        if got != want:
            bad.append({"argv": argv, "cwd": cwd, "want": want, "got": got, "stdout_head": out[:300].decode("utf-8", "replace"),
                        "want_head": c.get("stdout_head", ""), "stderr": err.decode("utf-8", "replace")[:500]})
            continue
        if c.get("out_sha256"):  # a report: the page it wrote, its date masked
            page = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "DATE", open(c["out"], encoding="utf-8").read())
            if hashlib.sha256(page.encode()).hexdigest() != c["out_sha256"]:
                bad.append({"argv": argv, "why": "the report page differs"})
        if c["rc"] == 0:
            continue
        # the error as the API raises it: code, line, column of the native CLI's stderr line
        try:
            _text.run(argv[0], argv[1:], cwd=cwd)
            bad.append({"argv": argv, "cwd": cwd, "why": "no HloscopeError"})
        except HloscopeError as e:
            raised = {"code": e.code, "line": e.line, "column": e.column}
            if raised != c["error"]:
                bad.append({"argv": argv, "cwd": cwd, "why": "error fields", "want": c["error"], "got": raised, "text": str(e)})
    print(json.dumps({"cases": len(cases), "mismatches": bad}))


if __name__ == "__main__":
    main()
