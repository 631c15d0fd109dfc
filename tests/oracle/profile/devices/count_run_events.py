#!/usr/bin/env python3
"""count_run_events.py FILE PROGRAM RUN: the raw events of one run of a TPU program, counted
from the protobuf (standard library only, no code shared with the core, nothing read from
hloscope's JSON).

On every /device:TPU:N plane the program's XLA Modules events (named PROGRAM(<id>)) are put in
time order; the RUN-th (1-based) is that chip's window of the run, from its start to its end
(the event's own times: line timestamp_ns * 1000 + offset_ps, duration_ps). Counted: the events
of the XLA Ops and Async XLA Ops lines of that plane whose own start lies in the window. Prints
{"planes": {plane: {"window": [start_ps, end_ps], "XLA Ops": n, "Async XLA Ops": m}}, "total": n}.
The wire walk is make_profiles.py's.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_profiles  # noqa: E402  (the protobuf wire walk)


def fields(b):
    """(field, value) of a message: make_profiles.py's wire walk"""
    return ((f, v) for f, _, v, _ in make_profiles.fields(b))


def count(path, program, run):
    out = {}
    for f, plane in fields(open(path, 'rb').read()):
        if f != 1:
            continue
        pf = list(fields(plane))
        name = next((v.decode() for g, v in pf if g == 2), '')
        if not name.startswith('/device:TPU:'):
            continue
        names = {}
        for g, v in pf:
            if g == 4:
                kv = dict(fields(v))
                meta = dict(fields(kv.get(2, b'')))
                names[kv.get(1, 0)] = meta.get(2, b'').decode('utf-8', 'replace')
        lines = {}
        for g, v in pf:
            if g != 3:
                continue
            lf = list(fields(v))
            lname = next((x.decode() for h, x in lf if h == 2), '')
            ts = next((x for h, x in lf if h == 3), 0) * 1000
            evs = []
            for h, x in lf:
                if h == 4:
                    e = dict(fields(x))
                    evs.append((ts + e.get(2, 0), e.get(3, 0), names.get(e.get(1, 0), '')))
            lines[lname] = evs
        runs = sorted((s, d) for s, d, n in lines.get('XLA Modules', []) if n.rpartition('(')[0] == program)
        if len(runs) < run:
            continue
        start, dur = runs[run - 1]
        end = start + dur
        row = {'window': [start, end]}
        for ln in ('XLA Ops', 'Async XLA Ops'):
            row[ln] = sum(1 for s, d, n in lines.get(ln, []) if start <= s < end)
        out[name] = row
    return {'planes': out, 'total': sum(r['XLA Ops'] + r['Async XLA Ops'] for r in out.values())}


if __name__ == '__main__':
    print(json.dumps(count(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
