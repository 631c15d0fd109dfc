#!/usr/bin/env python3
"""Write tests/oracle/llvm/oracle.json: what LLVM's own tools say about every captured .ll file.

  python3 tests/oracle/llvm/make-oracle.py [--llvm /usr/lib/llvm-19/bin]

Inputs: every *.ll under fixtures/levels/ and ../shared/captures/llvm/ (when present).
For each file, with LLVM's tools (Debian 12's llvm-19 package; tools/setup.sh does not install
it because the tests read the committed oracle.json, not LLVM):
  - functions: `llvm-as` then `llvm-nm` (defined symbols: T/t/W/w), and parameter counts from
    the `define` lines that `llvm-dis` prints back;
  - loops: `opt -passes='print<loops>'`: every loop's header and depth;
  - trip counts: `opt -passes='mem2reg,print<scalar-evolution>'`: "backedge-taken count is N"
    per loop header. mem2reg first: XLA's unoptimized IR keeps its loop counters in allocas,
    which scalar evolution does not look through; mem2reg promotes them to phis and changes
    no block or branch, so the loops (and their header names) are the same ones;
  - vector types: the distinct `<N x T>` that each function's instructions declare, as
    `llvm-dis` prints them.
Where llvm-as cannot read a file (attributes newer than LLVM 19, e.g. `captures(none)`), the
attributes it does not know are stripped for the oracle run only, and the entry says which.
"""
import argparse, datetime, hashlib, json, os, re, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from fixtures import walker  # noqa: E402  (the one walker, tests/fixtures.mjs)
STRIPS = [  # (name, regex) of attributes newer than the LLVM at hand, removed only when needed
    ("captures(...)", re.compile(r"\bcaptures\([^)]*\)\s?")),
    ("initializes(...)", re.compile(r"\binitializes\(\([^)]*\)\)\s?")),
    ("nocreateundeforpoison", re.compile(r"\bnocreateundeforpoison\s?")),
    ("memory(target_mem: ...)", re.compile(r",\s*target_mem: \w+")),
    # alias-scope domains with a third operand (newer LLVM): !{!7, i1 false, !"name"} -> !{!7, !"name"}
    ("alias domain flag (i1 false)", re.compile(r"(?<=distinct !\{)(![0-9]+), i1 (?:false|true)(?=, )")),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm", default="/usr/lib/llvm-19/bin")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"),
                    help="the shared folder beside the repository (its captures/llvm/ is read in place)")
    a = ap.parse_args()
    tool = lambda n: os.path.join(a.llvm, n)
    version = run([tool("opt"), "--version"]).stdout.strip().splitlines()
    files = sorted(walker("levels", ".ll")["files"])
    files += walker("shared", "llvm", ".ll", shared=a.shared)["files"]  # [] when absent
    out = {"generated_by": "tests/oracle/llvm/make-oracle.py", "llvm": [v.strip() for v in version if "version" in v.lower()][:1],
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "files": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            rel = os.path.relpath(path, ROOT)
            if path.startswith(os.path.abspath(a.shared) + os.sep):
                rel = "../shared/" + os.path.relpath(path, a.shared)
            raw = open(path, "rb").read()
            text = raw.decode("utf-8")
            stripped = []
            src = os.path.join(tmp, "in.ll")
            bc = os.path.join(tmp, "in.bc")
            open(src, "w").write(text)
            r = run([tool("llvm-as"), src, "-o", bc])
            for name, rx in STRIPS:
                if r.returncode == 0:
                    break
                if rx.search(text):
                    text = rx.sub(lambda mm: mm.group(1) if mm.re.groups else "", text)
                    stripped.append(name)
                    open(src, "w").write(text)
                    r = run([tool("llvm-as"), src, "-o", bc])
            if r.returncode != 0:
                print(f"oracle: {rel}: llvm-as fails: {r.stderr.strip().splitlines()[0]}", file=sys.stderr)
                out["files"][rel] = {"sha256": hashlib.sha256(raw).hexdigest(), "error": r.stderr.strip()}
                continue
            nm = run([tool("llvm-nm"), bc]).stdout
            defined = sorted(l.split()[-1] for l in nm.splitlines() if re.match(r"^\S+ [TtWw] ", l) or re.match(r"^-+ [TtWw] ", l))
            dis = run([tool("llvm-dis"), bc, "-o", "-"]).stdout
            funcs = {}
            cur = None
            for line in dis.splitlines():
                m = re.match(r'^define .*?@("[^"]*"|[-\w.$]+)\((.*)\)[^()]*\{$', line)
                if m:
                    name = m.group(1).strip('"')
                    params = m.group(2)
                    depth, count, any_ = 0, 0, False
                    for ch in params:
                        if ch in "([{<":
                            depth += 1
                        elif ch in ")]}>":
                            depth -= 1
                        elif ch == "," and depth == 0:
                            count += 1
                        if not ch.isspace():
                            any_ = True
                    cur = {"params": count + 1 if any_ else 0, "vector_types": set(), "loops": []}
                    funcs[name] = cur
                    continue
                if line == "}":
                    cur = None
                    continue
                if cur is not None and line.startswith("  "):
                    code = line.split(";", 1)[0]
                    for v in re.finditer(r"<(?:vscale x )?\d+ x [^<>]+?>", code):
                        cur["vector_types"].add(v.group(0))
            loops = run([tool("opt"), "-disable-output", "-passes=print<loops>", src]).stderr
            fn = None
            for line in loops.splitlines():
                m = re.match(r"^Loop info for function '(.*)':", line)
                if m:
                    fn = m.group(1)
                    continue
                m = re.match(r"^\s*Loop at depth (\d+) containing: (.*)$", line)
                if m and fn in funcs:
                    blocks = m.group(2).split(",")
                    header = next(b for b in blocks if "<header>" in b)
                    header = re.sub(r"<[^>]*>", "", header).lstrip("%").strip('"')
                    funcs[fn]["loops"].append({"depth": int(m.group(1)), "header": header, "blocks": len(blocks)})
            scev = run([tool("opt"), "-disable-output", "-passes=mem2reg,print<scalar-evolution>", src]).stderr
            fn = None
            for line in scev.splitlines():
                m = re.match(r"^Determining loop execution counts for: @(.*)$", line)
                if m:
                    fn = m.group(1).strip('"')
                    continue
                m = re.match(r"^Loop %(.*?): backedge-taken count is (.*)$", line)
                if m and fn in funcs:
                    h = m.group(1).strip('"')
                    v = m.group(2).strip()
                    mm = re.match(r"^i\d+ (-?\d+)$", v)
                    for L in funcs[fn]["loops"]:
                        if L["header"] == h:
                            L["backedge_taken"] = int(mm.group(1)) if mm else None
            for f in funcs.values():
                f["vector_types"] = sorted(f["vector_types"])
                for L in f["loops"]:
                    L.setdefault("backedge_taken", None)
                f["loops"].sort(key=lambda L: L["header"])
            out["files"][rel] = {"sha256": hashlib.sha256(raw).hexdigest(), "stripped": stripped,
                                 "nm_defined": defined, "functions": funcs}
            print(f"oracle: {rel}: {len(funcs)} functions, {sum(len(f['loops']) for f in funcs.values())} loops"
                  + (f" (stripped {', '.join(stripped)})" if stripped else ""), file=sys.stderr)
    out["commands"] = ["llvm-as FILE -o F.bc", "llvm-nm F.bc", "llvm-dis F.bc -o -",
                       "opt -disable-output -passes='print<loops>' FILE",
                       "opt -disable-output -passes='mem2reg,print<scalar-evolution>' FILE"]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
