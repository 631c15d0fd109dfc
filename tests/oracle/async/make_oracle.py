#!/usr/bin/env python3
"""XLA's view of every async transfer in the shared GPU and TPU texts: the oracle check.mjs compares
`hloscope overlap --json` with.

    build/capture/venv-0.12.0.1/bin/python tests/oracle/async/make_oracle.py [--out FILE]

Reads each text of ../shared/captures/gpu-semantics/ and the optimized HLO .txt of tpu-v6e/ and
tpu-layouts/ (listed by the one walker, tests/fixtures.py)
with XLA's own parser (jaxlib's hlo_module_from_text: jaxlib._hlo on jax 0.12, xla_extension on
0.4.38) and decodes the HloModuleProto XLA serializes for the module it parsed
(fixtures/capture/hlo_proto.py; backend_config is HloInstructionProto field 43). Nothing here
reads our reader. Per text, from that proto:
  - scheduled: the module carries an HloScheduleProto;
  - per transfer, in the order of XLA's instruction sequences: kind (the opcode without "-start";
    an async-start's: the ROOT opcode of the computation it calls), start, done (the *-done whose
    operand 0 is the start, through async-update ops), computation, sync (the start's
    backend_config says "is_sync":true), overlapped: null when unscheduled, [] when sync, else
    the instructions strictly between start and done in the schedule's sequence for that
    computation that launch work: not parameter, constant, get-tuple-element, bitcast, tuple,
    opt-barrier, after-all, add-dependency, domain, nor another async start/update/done, send
    or recv (the definition of hloscope's `overlapped`, README.md "overlap").
  - hbm_bytes: {read, written}, the HBM estimate as the README defines it, from the proto alone:
    each instruction of a computation that does not run inside a kernel (not a fused body, not
    a combiner or comparator called by to_apply) that is a kernel (not an alias, control flow,
    or what an async computation runs) reads its operands and writes its result in the default
    memory space (layout memory_space 0); a dynamic-slice reads what it slices, the buffer a
    dynamic-update-slice writes into is not read and only the update is written (alone or as
    a fusion's root; inside a fusion by how the body uses each parameter); a tuple element no
    instruction reads is not written; each transfer once: the done's result written, the
    start's operands read;
  - unread: [computation, custom call, element index] for each element of a tuple-shaped custom
    call that no instruction reads (the workspaces), from operand_ids and tuple_index (field 13).
Writes FILE (default tests/oracle/async/oracle.json), keyed by the text's path under ../shared/.
"""
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "fixtures", "capture"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import hlo_proto  # noqa: E402
from fixtures import walker  # noqa: E402

QUIET = {"parameter", "constant", "get-tuple-element", "bitcast", "tuple", "opt-barrier", "after-all",
         "add-dependency", "domain"}


def is_start(op):
    return op.endswith("-start") or op in ("send", "recv")


def is_async(op):
    return is_start(op) or op.endswith("-done") or op.endswith("-update")


def launches_work(op):
    return op not in QUIET and not is_async(op)


def raw_backend_configs(proto):
    """{instruction id: backend_config text}, from HloInstructionProto field 43."""
    out = {}
    for fno, _, v in hlo_proto.fields(proto):
        if fno != 3:
            continue
        for f2, _, v2 in hlo_proto.fields(v):
            if f2 != 2:
                continue
            iid, bc = 0, b""
            for f3, _, v3 in hlo_proto.fields(v2):
                if f3 == 35:
                    iid = hlo_proto._signed64(v3)
                elif f3 == 43:
                    bc = v3
            out[iid] = bc.decode("utf-8", "replace")
    return out


def tuple_indices(proto):
    """{instruction id: tuple_index} of the get-tuple-elements (HloInstructionProto field 13)."""
    out = {}
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
            out[iid] = ti
    return out


def unread_elements(proto):
    """[computation, custom-call name, element index] for each element of a tuple-shaped custom
    call outside fused computations that no instruction reads: no get-tuple-element of that
    index, no user taking the tuple whole, not its computation's ROOT."""
    m = hlo_proto.decode_module(proto)
    tix = tuple_indices(proto)
    out = []
    for c in m["computations"]:
        if c["is_fusion_computation"]:
            continue
        users = {}
        for ins in c["instructions"]:
            for o in ins["operand_ids"]:
                users.setdefault(o, []).append(ins)
        for ins in c["instructions"]:
            shape = ins["shape"] or {}
            elems = shape.get("tuple_shapes") or []
            if ins["opcode"] != "custom-call" or not elems or ins["id"] == c["root_id"]:
                continue
            read = set()
            for u in users.get(ins["id"], []):
                if u["opcode"] == "get-tuple-element":
                    read.add(tix.get(u["id"], 0))
                else:
                    read.update(range(len(elems)))
            out += [[c["name"], ins["name"], k] for k in range(len(elems)) if k not in read]
    return out


# ---- the HBM estimate from XLA's module: kernels' operands and results, each transfer once ----
ALIASES = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "copy-start", "copy-done",
           "opt-barrier", "after-all", "add-dependency", "domain"}
CONTROL = {"while", "call", "conditional"}
# ops whose called computation runs inside their kernel (to_apply: a combiner, a comparator)
NOT_INNER_CALLERS = CONTROL | {"custom-call", "async-start", "async-update", "async-done"}


def shape_of(buf):
    """ShapeProto: element_type=2 dimensions=3 tuple_shapes=4 layout=5 (LayoutProto memory_space=8)."""
    s = {"type": 0, "dims": [], "tuple": [], "space": 0}
    for fno, wt, v in hlo_proto.fields(buf):
        if fno == 2:
            s["type"] = v
        elif fno == 3:
            s["dims"] += [hlo_proto._signed64(x) for x in hlo_proto._ints(wt, v)]
        elif fno == 4:
            s["tuple"].append(shape_of(v))
        elif fno == 5:
            for f2, _, v2 in hlo_proto.fields(v):
                if f2 == 8:
                    s["space"] = hlo_proto._signed64(v2)
    return s


def raw_instructions(proto):
    """Per computation id: [{id, name, opcode, shape, operands, calls, param, tuple_index}] in proto order."""
    out = {}
    for fno, _, v in hlo_proto.fields(proto):
        if fno != 3:
            continue
        cid, ins = 0, []
        for f2, _, v2 in hlo_proto.fields(v):
            if f2 == 5:
                cid = hlo_proto._signed64(v2)
            if f2 != 2:
                continue
            x = {"id": 0, "name": "", "opcode": "", "shape": None, "operands": [], "calls": [], "param": 0, "tuple_index": 0}
            for f3, w3, v3 in hlo_proto.fields(v2):
                if f3 == 1:
                    x["name"] = v3.decode()
                elif f3 == 2:
                    x["opcode"] = v3.decode()
                elif f3 == 3:
                    x["shape"] = shape_of(v3)
                elif f3 == 9:
                    x["param"] = hlo_proto._signed64(v3)
                elif f3 == 13:
                    x["tuple_index"] = hlo_proto._signed64(v3)
                elif f3 == 35:
                    x["id"] = hlo_proto._signed64(v3)
                elif f3 == 36:
                    x["operands"] += [hlo_proto._signed64(y) for y in hlo_proto._ints(w3, v3)]
                elif f3 == 38:
                    x["calls"] += [hlo_proto._signed64(y) for y in hlo_proto._ints(w3, v3)]
            ins.append(x)
        out[cid] = ins
    return out


def hbm_estimate(proto, type_name):
    m = hlo_proto.decode_module(proto)
    comps = raw_instructions(proto)
    root_of = {c["id"]: c["root_id"] for c in m["computations"]}
    by_id = {x["id"]: x for ins in comps.values() for x in ins}

    def bits(t):
        n = type_name(t)
        if n == "pred":
            return 8
        d = re.match(r"[a-z]+?(\d+)", n)
        return int(d.group(1)) if d and n not in ("token", "opaque", "tuple") else 0

    def nbytes(s):
        if s is None:
            return 0
        if s["tuple"]:
            return sum(nbytes(e) for e in s["tuple"])
        count = 1
        for dim in s["dims"]:
            count *= dim
        return (count * bits(s["type"]) + 7) // 8

    def hbm(s):
        if s is None:
            return 0
        if s["tuple"]:
            return sum(hbm(e) for e in s["tuple"])
        return nbytes(s) if s["space"] <= 0 else 0

    inner, asyncs = set(), set()
    for ins in comps.values():
        for x in ins:
            for c in x["calls"]:
                if x["opcode"] == "fusion" or x["opcode"] not in NOT_INNER_CALLERS:
                    inner.add(c)
                elif x["opcode"].startswith("async-"):
                    asyncs.add(c)
    changed = True
    while changed:  # what an inner computation calls runs inside the kernel too
        changed = False
        for cid in list(inner):
            for x in comps.get(cid, []):
                for c in x["calls"]:
                    if c not in inner:
                        inner.add(c)
                        changed = True

    def is_start(op):
        return op.endswith("-start") or op in ("send", "recv")

    def is_async(op):
        return is_start(op) or op.endswith("-done") or op.endswith("-update")

    def operand_read(x, k):
        o = by_id[x["operands"][k]]
        full = hbm(o["shape"])
        if not full:
            return 0
        if x["opcode"] == "dynamic-slice" and k == 0:
            return hbm(x["shape"])
        if x["opcode"] == "dynamic-update-slice" and k == 0:
            return 0
        if x["opcode"] != "fusion" or not x["calls"]:
            return full
        body = comps.get(x["calls"][0], [])
        param = next((p for p in body if p["opcode"] == "parameter" and p["param"] == k), None)
        if param is None:
            return full
        total = 0
        for u in body:
            for j, t in enumerate(u["operands"]):
                if t != param["id"]:
                    continue
                if j == 0 and u["opcode"] == "dynamic-slice":
                    total += nbytes(u["shape"])
                elif j == 0 and u["opcode"] == "dynamic-update-slice":
                    continue
                else:
                    return full
        return min(total, full)

    def result_written(x):
        r = x
        if x["opcode"] == "fusion" and x["calls"]:
            r = by_id[root_of[x["calls"][0]]]
            while r["opcode"] == "bitcast" and len(r["operands"]) == 1:
                r = by_id[r["operands"][0]]
        s = x["shape"]
        if r["opcode"] == "dynamic-update-slice" and len(r["operands"]) >= 2 and not s["tuple"] and s["space"] <= 0:
            return nbytes(by_id[r["operands"][1]]["shape"])
        return hbm(s)

    users = {}
    for ins in comps.values():
        for x in ins:
            for t in x["operands"]:
                users.setdefault(t, []).append(x)
    read = written = 0
    for cid, ins in comps.items():
        if cid in inner:
            continue
        done_of = {}
        for x in ins:
            if x["opcode"].endswith("-done"):
                y = x
                while y["operands"]:
                    t = by_id[y["operands"][0]]
                    if is_start(t["opcode"]):
                        done_of.setdefault(t["id"], x)
                        break
                    if not t["opcode"].endswith("-update"):
                        break
                    y = t
        for x in ins:
            op = x["opcode"]
            if is_start(op):  # one transfer: what the done delivers, what the start reads
                if x["id"] in done_of:
                    written += hbm(done_of[x["id"]]["shape"])
                read += sum(operand_read(x, k) for k in range(len(x["operands"])))
                continue
            if op in ALIASES or is_async(op) or cid in asyncs or op in CONTROL:
                continue
            w = result_written(x)
            elems = x["shape"]["tuple"]
            if elems and x["id"] != root_of[cid]:
                used = set()
                for u in users.get(x["id"], []):
                    if u["opcode"] == "get-tuple-element":
                        used.add(u["tuple_index"])
                    else:
                        used.update(range(len(elems)))
                for k, e in enumerate(elems):
                    if k not in used:
                        w = max(w - hbm(e), 0)
            written += w
            read += sum(operand_read(x, k) for k in range(len(x["operands"])))
    return {"read": read, "written": written}


def transfers(proto):
    m = hlo_proto.decode_module(proto)
    sched = m["schedule"]
    bcs = raw_backend_configs(proto)
    by_id = {}
    comp_of = {}
    comps = {c["id"]: c for c in m["computations"]}
    for c in m["computations"]:
        for ins in c["instructions"]:
            by_id[ins["id"]] = ins
            comp_of[ins["id"]] = c
    out = []
    for c in m["computations"]:
        order = sched.get(c["id"]) if sched else None
        ids = order if order else [i["id"] for i in c["instructions"]]
        pos = {iid: k for k, iid in enumerate(ids)}
        done_of = {}
        for iid in ids:
            ins = by_id[iid]
            if not ins["opcode"].endswith("-done"):
                continue
            x = ins
            for _ in range(64):
                if not x["operand_ids"]:
                    break
                t = by_id.get(x["operand_ids"][0])
                if t is None:
                    break
                if is_start(t["opcode"]):
                    done_of.setdefault(t["id"], iid)
                    break
                if not t["opcode"].endswith("-update"):
                    break
                x = t
        for iid in ids:
            ins = by_id[iid]
            op = ins["opcode"]
            if not is_start(op):
                continue
            kind = op[:-6] if op.endswith("-start") else op
            if kind == "async" and ins["called_computation_ids"]:
                callee = comps.get(ins["called_computation_ids"][0])
                root = by_id.get(callee["root_id"]) if callee else None
                if root:
                    kind = root["opcode"]
            done = done_of.get(iid)
            sync = bool(re.search(r'"is_sync"\s*:\s*true', bcs.get(iid, "")))
            if not sched or done is None:
                overlapped = None
            elif sync:
                overlapped = []
            else:
                overlapped = [by_id[j]["name"] for j in ids[pos[iid] + 1:pos[done]] if launches_work(by_id[j]["opcode"])]
            out.append({"kind": kind, "start": ins["name"], "done": by_id[done]["name"] if done is not None else None,
                        "computation": c["name"], "sync": sync, "overlapped": overlapped})
    return bool(sched), out


def main():
    out_path = os.path.join(HERE, "oracle.json")
    if "--out" in sys.argv:
        out_path = sys.argv[sys.argv.index("--out") + 1]
    try:
        from jaxlib import _hlo
        from_text, where = _hlo.hlo_module_from_text, "jaxlib._hlo.hlo_module_from_text"
    except ImportError:
        from jaxlib import xla_extension
        from_text, where = xla_extension.hlo_module_from_text, "jaxlib.xla_extension.hlo_module_from_text"
    import jaxlib
    from jax._src.lib import xla_client as xc

    def type_name(n):
        return xc.PrimitiveType(n).name.lower()
    listed = walker("shared", "gpu-semantics")
    if listed["absent"]:
        sys.exit(listed["absent"])
    paths = list(listed["files"])
    # the other shared optimized HLO texts (the TPU captures prefetch with copy-start/copy-done)
    for sub in ("tpu-v6e", "tpu-layouts"):
        more = walker("shared", sub, ".txt")
        paths += [] if more["absent"] else more["files"]
    files = {}
    for path in paths:
        rel = "../shared/" + path[path.index("captures/"):]
        text = open(path, encoding="utf-8").read()
        proto = from_text(text).as_serialized_hlo_module_proto()
        sched, ts = transfers(proto)
        files[rel] = {"scheduled": sched, "transfers": ts, "unread": unread_elements(proto),
                      "hbm_bytes": hbm_estimate(proto, type_name)}
    doc = {"made_by": "tests/oracle/async/make_oracle.py", "parser": where, "jaxlib": jaxlib.__version__,
           "date": datetime.date.today().isoformat(), "files": files}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{out_path}: {len(files)} texts, {sum(len(v['transfers']) for v in files.values())} transfers")


if __name__ == "__main__":
    main()
