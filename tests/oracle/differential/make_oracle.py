#!/usr/bin/env python3
"""XLA's verdict on every text of the differential corpus: the oracle file check.mjs compares with.

    python3 tests/oracle/differential/make_oracle.py [--seed 1] [--count 240] [--out FILE]
        generates the corpus (node tests/differential/corpus.mjs), reads every text with XLA's own
        parser, jaxlib's hlo_module_from_text, in each jax venv present (jax 0.4.38:
        jaxlib.xla_extension; jax 0.12.0.1: jaxlib._hlo), and writes FILE (default
        tests/oracle/differential/oracle-seed<seed>.json). The venvs: build/capture/venv-0.4.38 and
        build/capture/venv-0.12.0.1 (made from the capture pins by
        `bash fixtures/capture/run.sh --venvs --version V`), else /work/cache/venv-0.4.38 and
        /work/cache/venv-0.12; HS_ORACLE_VENVS (a colon-separated list of venv folders) overrides.

Per text: its sha1 (check.mjs regenerates the corpus and refuses a corpus that differs), and per
jaxlib version either {"ok": true, counts} or {"ok": false, "line": L, "message": ...}. The counts
come from the HloModuleProto XLA serializes for the module it parsed (decoded by
fixtures/capture/hlo_proto.py): computations, instructions (over all computations), fusion_ops
(instructions with opcode fusion), fusion_computations (distinct computations called by them).
`line` is the line XLA's error message names ("<line>:<col>: error:"), or null.

A worker process per venv reads the texts one by one and prints one JSON line each; a crash of
XLA's parser (an abort) is recorded as {"ok": false, "crash": true} and the worker restarts.
"""
import json
import os
import re
import subprocess
import sys
import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
# per jax version: the venv the capture script makes, else this machine's cache
VENV_CHOICES = [(os.path.join(ROOT, "build", "capture", "venv-0.4.38"), "/work/cache/venv-0.4.38"),
                (os.path.join(ROOT, "build", "capture", "venv-0.12.0.1"), "/work/cache/venv-0.12")]
DEFAULT_VENVS = [made if os.path.exists(os.path.join(made, "bin", "python")) else cache for made, cache in VENV_CHOICES]


def read_corpus(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        assert data[pos:pos + 1] == b"\x1e", pos
        nl = data.index(b"\n", pos)
        rid, n = data[pos + 1:nl].decode().rsplit(" ", 1)
        n = int(n)
        out.append((rid, data[nl + 1:nl + 1 + n].decode("utf-8")))
        pos = nl + 1 + n
    return out


def worker(corpus, skip):
    sys.path.insert(0, os.path.join(ROOT, "fixtures", "capture"))
    import hlo_proto
    try:
        from jaxlib import _hlo
        from_text = _hlo.hlo_module_from_text
    except ImportError:
        from jaxlib import xla_extension
        from_text = xla_extension.hlo_module_from_text
    for k, (rid, text) in enumerate(read_corpus(corpus)):
        if k < skip:
            continue
        try:
            mod = from_text(text)
        except Exception as e:  # noqa: BLE001
            msg = str(e)
            m = re.search(r"(?m)^\s*(\d+):(\d+): error:", msg) or re.search(r"\b(\d+):(\d+): error", msg)
            res = {"ok": False, "line": int(m.group(1)) if m else None, "message": msg[:400]}
        else:
            pm = hlo_proto.decode_module(mod.as_serialized_hlo_module_proto())
            fused = set()
            fops = 0
            instrs = 0
            for c in pm["computations"]:
                instrs += len(c["instructions"])
                for i in c["instructions"]:
                    if i["opcode"] == "fusion":
                        fops += 1
                        fused.update(i["called_computation_ids"][:1])
            res = {"ok": True, "computations": len(pm["computations"]), "instructions": instrs,
                   "fusion_ops": fops, "fusion_computations": len(fused)}
        print(json.dumps([k, rid, res]), flush=True)


def run_venv(venv, corpus, n):
    py = os.path.join(venv, "bin", "python")
    ver = subprocess.run([py, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"],
                         capture_output=True, text=True, check=True).stdout.split()
    results = [None] * n
    skip = 0
    while skip < n:
        p = subprocess.run([py, __file__, "--worker", corpus, str(skip)], capture_output=True, text=True)
        last = skip - 1
        for line in p.stdout.splitlines():
            k, rid, res = json.loads(line)
            results[k] = res
            last = k
        if last + 1 < n and p.returncode != 0:
            results[last + 1] = {"ok": False, "crash": True, "line": None,
                                 "message": (p.stderr or "")[-300:]}
            skip = last + 2
        else:
            skip = last + 1
            if p.returncode != 0:
                break
    return {"jax": ver[0], "jaxlib": ver[1]}, results


def main():
    args = sys.argv[1:]
    if args and args[0] == "--worker":
        worker(args[1], int(args[2]))
        return
    opt = lambda name, d: args[args.index(name) + 1] if name in args else d  # noqa: E731
    seed, count = int(opt("--seed", "1")), int(opt("--count", "240"))
    out = opt("--out", os.path.join(HERE, f"oracle-seed{seed}.json"))
    corpus = os.path.join(ROOT, "build", "differential", f"corpus-{seed}.bin")
    subprocess.run(["node", os.path.join(ROOT, "tests", "differential", "corpus.mjs"), "--seed", str(seed), "--count", str(count),
                    "--out", corpus], check=True)
    side = json.load(open(corpus + ".json"))
    venvs = [v for v in os.environ.get("HS_ORACLE_VENVS", ":".join(DEFAULT_VENVS)).split(":") if v]
    versions, per = [], []
    for v in venvs:
        if not os.path.exists(os.path.join(v, "bin", "python")):
            print(f"make_oracle: {v} missing, skipped", file=sys.stderr)
            continue
        ver, res = run_venv(v, corpus, len(side))
        versions.append(ver)
        per.append(res)
        print(f"make_oracle: jaxlib {ver['jaxlib']}: {sum(1 for r in res if r and r['ok'])} accepted of {len(res)}",
              file=sys.stderr)
    if not versions:
        sys.exit("make_oracle: no jax venv found: make them with `bash fixtures/capture/run.sh --venvs --version 0.4.38`"
                 " and `--version 0.12.0.1` (PyPI, once), or set HS_ORACLE_VENVS")
    cases = []
    for k, rec in enumerate(side):
        cases.append({"id": rec["id"], "kind": rec["kind"], "line": rec["line"], "sha1": rec["sha1"],
                      "xla": {versions[j]["jaxlib"]: per[j][k] for j in range(len(versions))}})
    doc = {
        "provenance": {
            "oracle": "XLA's HLO parser: jaxlib hlo_module_from_text (jaxlib.xla_extension on 0.4.x, "
                      "jaxlib._hlo on newer), counts from the HloModuleProto it serializes, decoded by "
                      "fixtures/capture/hlo_proto.py",
            "jaxlib": versions,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "corpus": f"node tests/differential/corpus.mjs --seed {seed} --count {count}",
            "written_by": "python3 tests/oracle/differential/make_oracle.py --seed %d --count %d" % (seed, count),
        },
        "seed": seed, "count": count, "cases": cases,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=0, sort_keys=False)
        f.write("\n")
    print(f"make_oracle: wrote {os.path.relpath(out, os.getcwd())}: {len(cases)} texts", file=sys.stderr)


if __name__ == "__main__":
    main()
