"""XLA's own printing of layouts, as a reference for hloscope's layout reader (layout.c).

Runs XLA's Layout printer (xla/layout.cc, through jaxlib's xla_client.Layout) on a set of
minor-to-major orders, tilings and element sizes, and writes layout_reference.json: for each
case the parts we gave XLA and the text XLA printed. tests/native/test_memory.c reads every
printed layout back and checks the parts. Sizes are not in here: jaxlib exposes no tiled
shape-size function on CPU, so the padding oracle is XLA's own sizes printed in dumps and
messages (buffer-assignment values, TPU allocation lists).

    /work/cache/venv-0.12/bin/python tests/oracle/memory/make_layout_reference.py
"""
import json
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import jax
import jaxlib
from jax._src.lib import xla_client as xc

CASES = [
    ([1, 0], [], 0),
    ([0, 1], [], 0),
    ([1, 2, 0], [(8, 128)], 0),
    ([1, 0], [(8, 128), (2, 1)], 0),
    ([1, 0], [(8, 128), (2, 1)], 16),
    ([1, 0], [(8, 128), (4, 1)], 8),
    ([0], [(128,)], 0),
    ([0], [(1024,)], 32),
    ([], [(128,)], 0),
    ([], [(256,)], 0),
    ([2, 1, 0], [(8, 128)], 0),
    ([3, 2, 1, 0], [(16, 128), (2, 1)], 0),
    ([1, 0], [(32, 128), (4, 1)], 4),
    ([1, 0], [], 4),
]


def main():
    out = []
    for m2m, tiles, bits in CASES:
        layout = xc.Layout(m2m, tiles, bits)
        out.append({"minor_to_major": m2m, "tiles": [list(t) for t in tiles], "element_size_bits": bits,
                    "printed": layout.to_string()})
    doc = {
        "provenance": {
            "script": "tests/oracle/memory/make_layout_reference.py",
            "printer": "xla_client.Layout(minor_to_major, tiling, element_size_in_bits).to_string() (XLA's Layout::Print)",
            "jax": jax.__version__, "jaxlib": jaxlib.__version__, "python": sys.version.split()[0],
            "platform": platform.platform(), "utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "cases": out,
    }
    path = Path(__file__).with_name("layout_reference.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(out)} layouts -> {path}")


if __name__ == "__main__":
    main()
