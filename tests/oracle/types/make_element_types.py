"""Every element type XLA has, as jaxlib says, for hloscope's type readers (core/src/types/).

Run with each jax venv; each run writes its own part of element_types.json (keyed by jax version):

    build/capture/venv-0.4.38/bin/python tests/oracle/types/make_element_types.py
    build/capture/venv-0.10.2/bin/python tests/oracle/types/make_element_types.py
    build/capture/venv-0.12.0.1/bin/python tests/oracle/types/make_element_types.py

For each member of jaxlib's PrimitiveType enum (xla_client.PrimitiveType; PRIMITIVE_TYPE_INVALID
and TUPLE aside) it records:
  - "hlo": the shape as XLA prints it (xla_client.Shape.array_shape(type, (2, 3)), or
    Shape.token_shape(); OPAQUE_TYPE has no Shape constructor in jaxlib, so its spelling is the
    one XLA's HLO parser accepts for an opaque parameter, checked below),
  - "xla_printed": the parameter line XLA's HLO parser (hlo_module_from_text) printed back for a
    module whose root is a parameter of that shape, or "xla_error" when it refused it,
  - "mlir": for arrays, the MLIR element type jax lowers the dtype to
    (mlir.dtype_to_ir_type(shape.numpy_dtype())), "tensor": tensor<2x3x...> and "mlir_printed": the
    function type MLIR's parser (ir.Module.parse) printed back. token and opaque have no tensor
    form in StableHLO: they are checked in HLO only.
  - "probes": spellings outside the enum (s2, u2, s1, u1) and whether XLA's HLO parser takes them.
tests/native/test_types.c reads every entry back through both readers (no jax at test time).
"""
import json
import platform
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import jax
import jaxlib
import numpy as np
from jax._src.interpreters import mlir
from jax._src.lib import xla_client as xc
from jax._src.lib.mlir import ir

try:
    from jaxlib import _hlo
    from_text = _hlo.hlo_module_from_text
except ImportError:
    from jaxlib import xla_extension
    from_text = xla_extension.hlo_module_from_text


def xla_round_trip(shape_text):
    text = "HloModule m\n\nENTRY e {\n  ROOT p0 = %s parameter(0)\n}\n" % shape_text
    try:
        mod = from_text(text)
    except Exception as e:  # noqa: BLE001
        return None, str(e).splitlines()[0][:300]
    printed = mod.to_string()
    m = re.search(r"(?m)^\s*ROOT\s+\S+\s*=\s*(.*?)\s+parameter\(0\)", printed)
    return (m.group(1) if m else printed), None


def mlir_round_trip(ctx, tensor):
    text = "func.func @main(%%a: %s) -> %s {\n  return %%a : %s\n}\n" % (tensor, tensor, tensor)
    with ctx:
        mod = ir.Module.parse(text)
        f = mod.body.operations[0]
        return str(f.attributes["function_type"])


def main():
    ctx = mlir.make_ir_context()
    P = xc.PrimitiveType
    names = sorted(n for n in dir(P) if n.isupper() and n not in ("PRIMITIVE_TYPE_INVALID", "TUPLE"))
    types = []
    for name in names:
        pt = getattr(P, name)
        e = {"primitive": name}
        if name == "TOKEN":
            e["hlo"] = str(xc.Shape.token_shape())
        elif name == "OPAQUE_TYPE":
            e["hlo"] = "opaque[]"
        else:
            shape = xc.Shape.array_shape(pt, (2, 3))
            e["hlo"] = str(shape)
            with ctx:
                e["mlir"] = str(mlir.dtype_to_ir_type(np.dtype(shape.numpy_dtype())))
            e["tensor"] = "tensor<2x3x%s>" % e["mlir"]
            e["mlir_printed"] = mlir_round_trip(ctx, e["tensor"])
        printed, err = xla_round_trip(e["hlo"])
        if err:
            e["xla_error"] = err
        else:
            e["xla_printed"] = printed
        types.append(e)
    probes = []
    for s in ("s1", "u1", "s2", "u2"):
        printed, err = xla_round_trip("%s[2,3]{1,0}" % s)
        probes.append({"hlo": "%s[2,3]{1,0}" % s, "xla_printed": printed} if not err else
                      {"hlo": "%s[2,3]{1,0}" % s, "xla_error": err})
    path = Path(__file__).with_name("element_types.json")
    doc = json.loads(path.read_text()) if path.exists() else {"versions": {}}
    doc["provenance"] = {
        "script": "tests/oracle/types/make_element_types.py (run once per jax venv)",
        "sources": "jaxlib's xla_client.PrimitiveType enum, xla_client.Shape's printer, XLA's HLO parser "
                   "(hlo_module_from_text), jax's dtype lowering (mlir.dtype_to_ir_type) and MLIR's parser "
                   "(ir.Module.parse in mlir.make_ir_context())",
    }
    doc["versions"][jax.__version__] = {
        "jax": jax.__version__, "jaxlib": jaxlib.__version__, "python": sys.version.split()[0],
        "platform": platform.platform(), "utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "types": types, "probes": probes,
    }
    doc["versions"] = dict(sorted(doc["versions"].items()))
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"jax {jax.__version__}: {len(types)} types, {len(probes)} probes -> {path}")


if __name__ == "__main__":
    main()
