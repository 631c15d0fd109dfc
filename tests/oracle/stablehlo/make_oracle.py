#!/usr/bin/env python3
"""MLIR's own verdict on every text of the StableHLO differential corpus (issue 40): the oracle
check.mjs compares hloscope's StableHLO reader with.

    python3 tests/oracle/stablehlo/make_oracle.py [--seed 1] [--out FILE]

1. Lists the pretty texts we have through the walker (node corpus.mjs --pretty: the fixtures of
   every jax version, the shared captures when present), and prints each one's generic form
   through MLIR's Python bindings of the newest jax venv (`Module.parse`, then
   `operation.get_asm(print_generic_op_form=True)`): the fixtures' into generic.bin.gz beside this
   script (committed: derived from our own fixtures), the shared captures' into
   build/stablehlo-oracle/shared-generic.bin (never committed: other people's data).
2. Generates the corpus (node corpus.mjs) and reads every text with MLIR's parser in each jax
   venv present (build/capture/venv-0.4.38, venv-0.10.2, venv-0.12.0.1: jaxlib's MLIR with the
   StableHLO, CHLO, func and Shardy dialects registered, `jax._src.interpreters.mlir.make_ir_context()`),
   each part of a text split at `// -----` (as -split-input-file does) on its own.
3. Writes FILE (default tests/oracle/stablehlo/oracle-seed<seed>.json): per text its sha1 and,
   per jax version, {"ok": true, "functions": F, "ops": N} (summed over the parts; `ops` counts
   every op but builtin.module and func.func, nested ones included) or {"ok": false, "line": L,
   "message": ...} (L: the line of the whole text MLIR's first error names, or null).

HS_ORACLE_VENVS (a colon-separated list of venv folders) overrides the venvs.
"""
import datetime
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
VERSIONS = ["0.4.38", "0.10.2", "0.12.0.1"]
SPLIT = re.compile(r"(?m)^// -----.*$")


def read_records(path):
    data = open(path, "rb").read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    pos, out = 0, []
    while pos < len(data):
        assert data[pos:pos + 1] == b"\x1e", pos
        nl = data.index(b"\n", pos)
        rid, n = data[pos + 1:nl].decode().rsplit(" ", 1)
        n = int(n)
        out.append((rid, data[nl + 1:nl + 1 + n].decode("utf-8")))
        pos = nl + 1 + n
    return out


def write_records(path, recs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with (gzip.GzipFile(path, "wb", mtime=0) if path.endswith(".gz") else open(path, "wb")) as f:
        for rid, text in recs:
            b = text.encode("utf-8")
            f.write(b"\x1e" + ("%s %d\n" % (rid, len(b))).encode() + b)


def parts_of(text):
    """The parts of a text split at `// -----` lines, each with the line it starts on (0-based)."""
    out, start, line = [], 0, 0
    for m in SPLIT.finditer(text):
        out.append((text[start:m.start()], line))
        line += text[start:m.end()].count("\n")
        start = m.end()
    out.append((text[start:], line))
    return out


def count(op, acc):
    name = op.operation.name
    if name == "func.func":
        acc[0] += 1
    elif name != "builtin.module":
        acc[1] += 1
    for region in op.operation.regions:
        for block in region.blocks:
            for inner in block.operations:
                count(inner, acc)


def worker(corpus, generic_out):
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    ctx = mlir.make_ir_context()
    if generic_out:  # print generic forms of the listed pretty files: stdin JSON [{id, path}]
        out = []
        for src in json.loads(sys.stdin.read()):
            text = open(src["path"], encoding="utf-8").read()
            mod = ir.Module.parse(text, context=ctx)
            out.append((src["id"], mod.operation.get_asm(print_generic_op_form=True)))
        write_records(generic_out, out)
        return
    for rid, text in read_records(corpus):
        acc = [0, 0]
        res = None
        for part, line0 in parts_of(text):
            try:
                mod = ir.Module.parse(part, context=ctx)
            except Exception as e:  # noqa: BLE001
                msg = str(e)
                m = re.search(r":(\d+):(\d+)", msg)
                res = {"ok": False, "line": line0 + int(m.group(1)) if m else None, "message": msg[:400]}
                break
            count(mod, acc)
        if res is None:
            res = {"ok": True, "functions": acc[0], "ops": acc[1]}
        print(json.dumps({"id": rid, **res}), flush=True)


def venvs():
    if os.environ.get("HS_ORACLE_VENVS"):
        return [v for v in os.environ["HS_ORACLE_VENVS"].split(":") if v]
    return [os.path.join(ROOT, "build", "capture", "venv-" + v) for v in VERSIONS]


def jax_version(py):
    return subprocess.run([py, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"],
                          stdout=subprocess.PIPE, check=True, text=True).stdout.split()


def main():
    args = sys.argv[1:]
    if args and args[0] == "--worker":
        worker(args[1], args[2] if len(args) > 2 else None)
        return
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    out = args[args.index("--out") + 1] if "--out" in args else os.path.join(HERE, "oracle-seed%d.json" % seed)
    pys = [os.path.join(v, "bin", "python") for v in venvs() if os.path.exists(os.path.join(v, "bin", "python"))]
    if not pys:
        sys.exit("no jax venv found: bash fixtures/capture/run.sh --venvs")
    node = "node"
    gen = os.path.join(ROOT, "tests", "oracle", "stablehlo", "corpus.mjs")
    sources = json.loads(subprocess.run([node, gen, "--pretty"], stdout=subprocess.PIPE, check=True, text=True).stdout)
    newest = pys[-1]
    me = os.path.abspath(__file__)
    for shared, path, prefix in [(False, os.path.join(HERE, "generic.bin.gz"), "gen:"),
                                 (True, os.path.join(ROOT, "build", "stablehlo-oracle", "shared-generic.bin"), "shgen:")]:
        # without locations, a fixture's stablehlo.debug.mlir prints as its stablehlo.mlir does
        pick = [{"id": prefix + s["id"].split(":", 1)[1], "path": s["path"]} for s in sources
                if s["shared"] == shared and not s["id"].endswith(".debug.mlir")]
        if not pick:
            continue
        subprocess.run([newest, me, "--worker", "-", path], input=json.dumps(pick), text=True, check=True)
        print("%d generic forms -> %s" % (len(pick), path))
    corpus = os.path.join(ROOT, "build", "stablehlo-oracle", "corpus-%d.bin" % seed)
    subprocess.run([node, gen, "--seed", str(seed), "--out", corpus], check=True)
    texts = read_records(corpus)
    import hashlib
    result = {rid: {"sha1": hashlib.sha1(t.encode("utf-8")).hexdigest()} for rid, t in texts}
    versions = []
    for py in pys:
        jv, jlv = jax_version(py)
        versions.append({"jax": jv, "jaxlib": jlv})
        p = subprocess.run([py, me, "--worker", corpus], stdout=subprocess.PIPE, text=True, check=True)
        for line in p.stdout.splitlines():
            rec = json.loads(line)
            rid = rec.pop("id")
            result[rid][jv] = rec
        print("jax %s: %d texts" % (jv, len(p.stdout.splitlines())))
    doc = {
        "provenance": {
            "what": "MLIR's parser (jaxlib's bindings, jax._src.interpreters.mlir.make_ir_context + ir.Module.parse) on every text of the StableHLO differential corpus",
            "script": "tests/oracle/stablehlo/make_oracle.py --seed %d" % seed,
            "versions": versions,
            "date": datetime.date.today().isoformat(),
            "seed": seed,
        },
        "texts": result,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%d texts -> %s" % (len(result), out))


if __name__ == "__main__":
    main()
