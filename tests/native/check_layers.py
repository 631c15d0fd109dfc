#!/usr/bin/env python3
"""The core's layering rule (core/README.md), checked on the sources and on the built objects.

    python3 check_layers.py CORE_SRC [OBJECT_DIR]

core/src is one folder per model, layered left to right:
    base <- types <- doc <- analyses <- {profile, memory, dumpset, llvm} <- text <- api
A file includes headers of its own folder and of folders to its left only (doc/hlo is part of
doc; the four readers on one rank do not include each other). With OBJECT_DIR (the library's
objects, CMakeFiles/hloscope.dir/core/src), every symbol an object uses from another object of
the library must be defined in its own folder or one to its left: no call, hence no circle,
crosses a folder from left to right. Base names of the .c files are unique (the fuzz build
keeps one object per base name). Exit 1 with every breach listed.
"""
import os
import re
import subprocess
import sys

RANK = {"base": 0, "types": 1, "doc": 2, "analyses": 3, "profile": 4, "memory": 4, "dumpset": 4, "llvm": 4, "text": 5, "api": 6}


def folder_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in RANK else None


def may_use(user, used):
    return user == used or RANK[used] < RANK[user]


def main():
    src = sys.argv[1]
    objdir = sys.argv[2] if len(sys.argv) > 2 else None
    bad = []
    bases = {}
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            me = folder_of(rel)
            if me is None:
                bad.append(f"{rel}: not inside one of the folders {', '.join(RANK)}")
                continue
            if f.endswith(".c"):
                if f in bases:
                    bad.append(f"{rel}: base name also used by {bases[f]}")
                bases[f] = rel
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or m.group(1) == "hloscope.h":
                    continue
                inc = m.group(1)
                other = folder_of(inc)
                if other is None:
                    bad.append(f"{rel}:{n}: includes \"{inc}\": name headers by their folder (\"doc/doc.h\")")
                elif not may_use(me, other):
                    bad.append(f"{rel}:{n}: {me}/ includes {inc}: {other}/ is not to its left")
    checked = 0
    if objdir:
        defined, uses = {}, {}
        for dirpath, _, files in os.walk(objdir):
            for f in files:
                if not f.endswith(".c.o"):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, objdir).replace(os.sep, "/")
                out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
                for l in out.splitlines():
                    p = l.split()
                    if len(p) == 3 and p[1] in "TDRBC":
                        defined[p[2]] = rel
                    elif len(p) == 2 and p[0] == "U":
                        uses.setdefault(rel, set()).add(p[1])
        for user, syms in sorted(uses.items()):
            for sym in sorted(syms):
                d = defined.get(sym)
                if not d:
                    continue
                checked += 1
                a, b = folder_of(user), folder_of(d)
                if a and b and not may_use(a, b):
                    bad.append(f"{user[:-2]} calls {sym} of {d[:-2]}: {b}/ is not to the left of {a}/")
        if not defined:
            bad.append(f"{objdir}: no objects found")
    for b in bad:
        print(b)
    print(f"check_layers: {len(bases)} sources, {checked} calls between objects checked, {len(bad)} breaches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
