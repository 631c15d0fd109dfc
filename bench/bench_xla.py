"""bench_xla.py FILE: XLA's own HLO parser (jaxlib hlo_module_from_text) on FILE, module by module
(the bench input is several modules one after another; XLA's parser reads one per call). Prints
one JSON line: jaxlib version, bytes and modules it read, modules it refused (a jaxlib older than
the capture may not read a newer dump's sections), seconds (best of REPEAT passes over all
modules, default 1) and MB/s over the bytes read.

Run it with a jax venv's python, e.g. /work/cache/venv-0.4.38/bin/python bench/bench_xla.py FILE."""
import json
import re
import sys
import time

import jaxlib

try:
    from jaxlib import _hlo
    from_text = _hlo.hlo_module_from_text
except ImportError:
    from jaxlib import xla_extension
    from_text = xla_extension.hlo_module_from_text

path = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
text = open(path, encoding="utf-8").read()
modules = [m for m in re.split(r"\n(?=HloModule )", text) if m.strip()]
# the ones XLA reads (timed): each distinct module tried once (the input repeats them)
verdict = {}
for m in modules:
    if m not in verdict:
        try:
            from_text(m)
            verdict[m] = True
        except Exception:  # noqa: BLE001
            verdict[m] = False
readable = [m for m in modules if verdict[m]]
refused = len(modules) - len(readable)
nbytes = sum(len(m.encode()) for m in readable)
best = float("inf")
for _ in range(repeat):
    t0 = time.perf_counter()
    for m in readable:
        from_text(m)
    best = min(best, time.perf_counter() - t0)
print(json.dumps({"jaxlib": jaxlib.__version__, "bytes": nbytes, "modules": len(readable),
                  "modules_refused": refused, "seconds": round(best, 4),
                  "mb_per_s": round(nbytes / 1e6 / best, 1) if readable else None}))
