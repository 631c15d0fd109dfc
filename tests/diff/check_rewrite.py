"""XLA's own parser accepts every rewrite tests/diff/rewrite.mjs makes, with the module's
instruction and computation counts unchanged: the self-diffs of tests/node/diff.test.mjs compare
a module with valid HLO, not with a text only our reader would take. Needs jaxlib: run with the
python of a capture venv (it prints a skip line and passes without one):

    build/capture/venv-0.12.0.1/bin/python tests/diff/check_rewrite.py
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from fixtures import walker  # noqa: E402


def from_text():
    try:
        from jax._src.lib import xla_client as xc
    except ImportError:
        return None
    owner = getattr(xc, "_xla", None)
    if owner is not None and hasattr(owner, "hlo_module_from_text"):
        return owner.hlo_module_from_text
    try:
        from jaxlib import _hlo
        return _hlo.hlo_module_from_text
    except ImportError:
        from jaxlib import xla_extension
        return xla_extension.hlo_module_from_text


def counts(parse, text):
    m = parse(text)
    comps = list(m.computations())
    return len(comps), sum(len(c.instructions()) for c in comps if hasattr(c, "instructions"))


def main():
    parse = from_text()
    if parse is None:
        print("SKIPPED: no jaxlib in this python (run it with build/capture/venv-*/bin/python)")
        return 0
    files = walker("fixtures", "after_optimizations.txt")["files"]
    for sub, suffix in (("gpu-semantics", ""), ("tpu-v6e", ".txt"), ("tpu-layouts", ".txt")):
        got = walker("shared", sub, suffix)
        if got["absent"]:
            print(got["absent"])
        files += got["files"]
    bad, checked, refused = [], 0, []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            try:
                want = counts(parse, fh.read())
            except Exception:  # noqa: BLE001  an older jaxlib refuses a newer dump itself
                refused.append(f)
                continue
        for flag in ([], ["--strip"]):
            text = subprocess.run(["node", os.path.join(HERE, "rewrite.mjs"), *flag, f], check=True,
                                  stdout=subprocess.PIPE).stdout.decode()
            try:
                got = counts(parse, text)
            except Exception as e:  # noqa: BLE001
                bad.append(f"{f} {flag}: XLA's parser refused it: {str(e)[:200]}")
                continue
            if got != want:
                bad.append(f"{f} {flag}: computations, instructions {got}, not {want}")
            checked += 1
    print(f"{checked} rewrites read by XLA's parser with the same counts; {len(bad)} not; "
          f"{len(refused)} originals this jaxlib refuses itself (left out)")
    for b in bad:
        print("  " + b)
    assert not bad and checked == 2 * (len(files) - len(refused)) and checked, bad
    return 0


if __name__ == "__main__":
    sys.exit(main())
