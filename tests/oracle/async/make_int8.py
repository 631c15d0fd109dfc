#!/usr/bin/env python3
"""A real s8 result that another kernel reads, captured: the control beside the workspaces (the rule
is about readers, not types).

    JAX_PLATFORMS=cpu build/capture/venv-0.12.0.1/bin/python tests/oracle/async/make_int8.py

Compiles PROGRAM (below) with the jax of the venv on the CPU and writes, beside this script:
  int8_sort.after_optimizations.txt  jax.jit(f).lower(*args).compile().as_text(), as XLA printed it
  int8_sort.json                     provenance (program, jax/jaxlib, backend, command, date) and
                                     XLA's own account of who reads each tuple element of the
                                     ENTRY's tuple-shaped kernels: from the HloModuleProto of the
                                     compiled module (fixtures/capture/hlo_proto.py; tuple_index is
                                     HloInstructionProto field 13), the kernels (not
                                     get-tuple-element, tuple, bitcast) reading it through a
                                     get-tuple-element of that index
The sort returns (s8[65536], f32[65536]): the s8 keys are read by the reduce-max kernel, the f32
values only leave as the output. check.mjs holds `spills` to it: the big intermediate is the s8
element (a carrier), never the f32 one nobody reads.
"""
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "fixtures", "capture"))
import hlo_proto  # noqa: E402

PROGRAM = '''
import jax, jax.numpy as jnp, numpy as np

def int8_sort(q, v):
    k, vs = jax.lax.sort((q, v), num_keys=1)
    return jnp.max(k), vs

def example_args():
    return (np.random.default_rng(0).integers(-127, 128, (65536,)).astype(np.int8),
            np.random.default_rng(1).standard_normal((65536,)).astype(np.float32))
'''


def readers(proto):
    m = hlo_proto.decode_module(proto)
    tix = {}
    for fno, _, v in hlo_proto.fields(proto):
        if fno != 3:
            continue
        for f2, _, v2 in hlo_proto.fields(v):
            if f2 != 2:
                continue
            iid, ti = 0, 0
            for f3, _, v3 in hlo_proto.fields(v2):
                if f3 == 35:
                    iid = hlo_proto._signed64(v3)
                elif f3 == 13:
                    ti = hlo_proto._signed64(v3)
            tix[iid] = ti
    entry = next(c for c in m["computations"] if c["name"] == m["entry_computation_name"])
    by_id = {i["id"]: i for i in entry["instructions"]}
    out = {}
    for ins in entry["instructions"]:
        elems = (ins["shape"] or {}).get("tuple_shapes") or []
        if not elems or ins["opcode"] in ("tuple", "parameter", "get-tuple-element"):
            continue
        per = [[] for _ in elems]
        for g in entry["instructions"]:
            if g["opcode"] != "get-tuple-element" or g["operand_ids"][:1] != [ins["id"]]:
                continue
            for u in entry["instructions"]:
                if g["id"] in u["operand_ids"] and u["opcode"] not in ("get-tuple-element", "tuple", "bitcast"):
                    per[tix.get(g["id"], 0)].append(u["name"])
        out[ins["name"]] = {"opcode": ins["opcode"], "element_readers": per}
    del by_id
    return out


def main():
    import jax
    import jaxlib
    ns = {}
    exec(PROGRAM, ns)
    args = ns["example_args"]()
    compiled = jax.jit(ns["int8_sort"]).lower(*args).compile()
    text = compiled.as_text()
    try:
        from jaxlib import _hlo
        proto = _hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
        parser = "jaxlib._hlo.hlo_module_from_text"
    except ImportError:
        from jaxlib import xla_extension
        proto = xla_extension.hlo_module_from_text(text).as_serialized_hlo_module_proto()
        parser = "jaxlib.xla_extension.hlo_module_from_text"
    with open(os.path.join(HERE, "int8_sort.after_optimizations.txt"), "w") as f:
        f.write(text)
    prov = {"program": PROGRAM.strip(), "function": "int8_sort", "jax": jax.__version__, "jaxlib": jaxlib.__version__,
            "backend": jax.default_backend(), "command": "JAX_PLATFORMS=cpu python tests/oracle/async/make_int8.py",
            "made": "jax.jit(int8_sort).lower(*example_args()).compile().as_text()", "parser": parser,
            "date": datetime.date.today().isoformat(), "readers": readers(proto)}
    with open(os.path.join(HERE, "int8_sort.json"), "w") as f:
        json.dump(prov, f, indent=1)
        f.write("\n")
    print(json.dumps(prov["readers"]))


if __name__ == "__main__":
    main()
