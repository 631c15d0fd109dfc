#!/usr/bin/env python3
"""Independent facts about the profiles, for tests/native/test_profile.c.

A second reading of the .xplane.pb files, written apart from the C core and sharing no code
with it: a plain protobuf wire-format walk (Python standard library only) over the XSpace
field numbers of xla/tsl/profiler/protobuf/xplane.proto. For each profile it records the
events the counting rules of FORMATS.md section 5 select, grouped by op: occurrences and
total time (TPU: device_duration_ps when present, summed over every TPU chip, as the timeline's
rows and XProf's hlo_stats count them; each chip's programs and runs beside). Self time is left out on purpose (it
needs the nesting rule, which is what the core implements); XProf's own numbers, when they
can be produced, live in xprof_reference.json.

    python3 tests/oracle/profile/wire_facts.py > tests/oracle/profile/wire_facts.json
"""
import json
import os
import struct
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures', 'profiles'))
PROFILES = [
    ('shared', 'xprof_tpu_inference_2.xplane.pb'),
    ('shared', 'tracelens_mi300_jax08_gemm.xplane.pb'),
    ('shared', 'tracelens_mi300_jax08_attention.xplane.pb'),
    ('fixtures', 'cpu-jax-0.10.2/softmax/profile.xplane.pb'),
    ('fixtures', 'cpu-jax-0.4.38/softmax/profile.xplane.pb'),
]


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v = struct.unpack('<Q', b[i:i + 8])[0]
            i += 8
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 5:
            v = struct.unpack('<I', b[i:i + 4])[0]
            i += 4
        else:
            raise ValueError('wire type %d' % w)
        yield f, w, v


def submap(b):
    d = {}
    for f, _, v in fields(b):
        d.setdefault(f, []).append(v)
    return d


def read_plane(b):
    p = submap(b)
    sm, em = {}, {}
    for e in p.get(5, []):
        kv = submap(e)
        sm[kv.get(1, [0])[0]] = submap(kv.get(2, [b''])[0]).get(2, [b''])[0].decode('utf-8', 'replace')
    for e in p.get(4, []):
        kv = submap(e)
        em[kv.get(1, [0])[0]] = submap(kv.get(2, [b''])[0])
    return p, sm, em


def stats(stat_list, sm):
    out = {}
    for s in stat_list:
        d = submap(s)
        name = sm.get(d.get(1, [0])[0], '')
        if 7 in d:
            out[name] = sm.get(d[7][0], '')
        elif 5 in d or 6 in d:
            out[name] = (d.get(5) or d.get(6))[0].decode('utf-8', 'replace')
        elif 3 in d or 4 in d:
            out[name] = (d.get(3) or d.get(4))[0]
        elif 2 in d:
            out[name] = struct.unpack('<d', struct.pack('<Q', d[2][0]))[0]
    return out


def facts(path):
    space = submap(open(path, 'rb').read())
    planes = [read_plane(b) for b in space.get(1, [])]
    names = [p.get(2, [b''])[0].decode() for p, _, _ in planes]
    tpu = [i for i, n in enumerate(names) if n.startswith('/device:TPU:')]
    gpu = [i for i, n in enumerate(names) if n.startswith('/device:GPU:')]
    ops = {}
    programs = {}
    counted_lines = 0

    def add(name, module, dur):
        k = '%s|%s' % (name, module)
        o = ops.setdefault(k, [0, 0])
        o[0] += 1
        o[1] += dur

    def events(line):
        return submap(line).get(4, [])

    if tpu:
        # every TPU plane with an XLA Ops line is a chip: ops summed over the chips; programs and
        # their runs per chip ("programs" holds TPU:0's, "per_plane" every chip's)
        per_plane = {}
        for t in tpu:
            p, sm, em = planes[t]
            lines = {submap(line).get(2, [b''])[0].decode(): line for line in p.get(3, [])}
            if 'XLA Ops' not in lines:
                continue
            progs = {}
            for e in events(lines['XLA Modules']) if 'XLA Modules' in lines else []:
                m = em[submap(e)[1][0]]
                progs[m[2][0].decode()] = progs.get(m[2][0].decode(), 0) + 1
            pid_name = {}
            for prog in progs:
                name, _, pid = prog[:-1].rpartition('(')
                pid_name[int(pid)] = name
            n = 0
            for e in events(lines['XLA Ops']):
                d = submap(e)
                m = em[d[1][0]]
                ms = stats(m.get(5, []), sm)
                es = stats(d.get(4, []), sm)
                name = m.get(4, m.get(2))[0].decode()
                dur = es.get('device_duration_ps', d.get(3, [0])[0])
                add(name, pid_name.get(ms.get('program_id')), dur)
                counted_lines += 1
                n += 1
            per_plane[names[t]] = {'programs': dict(sorted(progs.items())), 'ops_counted': n}
            if not programs:
                programs = progs
        return {'counted_events': counted_lines, 'ops': dict(sorted(ops.items())),
                'programs': dict(sorted(programs.items())), 'per_plane': per_plane}
    else:
        want = gpu if gpu else [i for i, n in enumerate(names) if n == '/host:CPU']
        for i in want:
            p, sm, em = planes[i]
            for line in p.get(3, []):
                ln = submap(line).get(2, [b''])[0].decode()
                if gpu and not ln.startswith('Stream #'):
                    continue
                for e in events(line):
                    d = submap(e)
                    es = stats(d.get(4, []), sm)
                    if 'hlo_op' not in es:
                        continue
                    add(es['hlo_op'].split('::')[-1], es.get('hlo_module'), d.get(3, [0])[0])
                    counted_lines += 1
    return {'counted_events': counted_lines, 'ops': dict(sorted(ops.items())),
            'programs': dict(sorted(programs.items()))}


def main():
    out = {'how': 'tests/oracle/profile/wire_facts.py: an independent wire-format reading (see its docstring)'}
    for where, rel in PROFILES:
        path = os.path.join(SHARED if where == 'shared' else os.path.join(ROOT, 'fixtures'), rel)
        if os.path.exists(path):
            out[rel] = facts(path)
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
