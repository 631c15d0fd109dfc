#!/usr/bin/env python3
"""make_profiles.py OUT_DIR: multi-device and multi-host profiles made of real device planes.

Written at test time (tests/native/check_profiles_oracle.py) and when the reference is made
(make_reference.py), never committed: each is other people's real planes, moved between files,
not data of our own. Standard library only (a protobuf wire-format walk over the XSpace field
numbers of tsl/profiler/protobuf/xplane.proto); no code shared with the core. Deterministic: the
same inputs give the same bytes (the reference records their sha256). The protobuf wire walk and
writer are bench/make_big_xplane.py's.

From ../shared/captures/profiles-multidevice/xprof_tpu_v6e_x4_inference_2.xplane.pb (four TPU v6e
chips, /device:TPU:0-3):
  tpu_plane_<k>.xplane.pb       one chip alone, with /host:metadata (what XProf reads per chip)
  tpu_host0.xplane.pb, tpu_host1.xplane.pb
                                the four chips as two hosts' files: TPU:0-1 (with the host planes)
                                and TPU:2-3, hostnames "host0" / "host1"
From ../shared/captures/profiles/tracelens_mi300_jax08_{gemm,attention}.xplane.pb (one MI300X
busy, /device:GPU:1-7 empty planes):
  gpu8_<name>.xplane.pb         GPU:0's lines and metadata copied into GPU:1-7, each line's
                                timestamp shifted by k microseconds on GPU:k
  gpu8_<name>_plane_<k>.xplane.pb   GPU:k alone, with /host:metadata
From fixtures/profiles/multiprocess-cpu-jax-0.10.2/process_2.xplane.pb (XLA:CPU, three steps
annotated with jax.profiler.StepTraceAnnotation: /host:CPU events named "train" with a step_num
stat, and no Steps line):
  steps_cpu.xplane.pb           the same profile with a "Steps" line added to /host:CPU: one event
                                per "train" event, at its offset and with its duration, named by
                                its step_num (as a TPU Steps line names its steps)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
# the wire walk and writer of bench/make_big_xplane.py: fields(b) gives (field, wire, value, raw bytes)
from make_big_xplane import enc_varint, fields, ld  # noqa: E402
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures'))
TPU_X4 = os.path.join(SHARED, 'profiles-multidevice', 'xprof_tpu_v6e_x4_inference_2.xplane.pb')
GPU = {n: os.path.join(SHARED, 'profiles', 'tracelens_mi300_jax08_%s.xplane.pb' % n) for n in ('gemm', 'attention')}
CPU_STEPS = os.path.join(ROOT, 'fixtures', 'profiles', 'multiprocess-cpu-jax-0.10.2', 'process_2.xplane.pb')


def vi(f, v):
    return enc_varint(f << 3) + enc_varint(v)


def planes_of(path):
    data = open(path, 'rb').read()
    return [v for f, w, v, _ in fields(data) if f == 1]


def plane_name(p):
    for f, w, v, _ in fields(p):
        if f == 2:
            return v.decode()
    return ''


def space(planes, hostnames=()):
    return b''.join(ld(1, p) for p in planes) + b''.join(ld(4, h.encode()) for h in hostnames)


def renamed_plane(p, pid, name, shift_ns):
    """A copy of plane p named `name` with id `pid`, each line's timestamp_ns shifted."""
    out = bytearray()
    for f, w, v, raw in fields(p):
        if f == 1 and w == 0:
            out += vi(1, pid)
        elif f == 2:
            out += ld(2, name.encode())
        elif f == 3:
            line = bytearray()
            for g, gw, gv, graw in fields(v):
                line += vi(3, gv + shift_ns) if g == 3 and gw == 0 else graw
            out += ld(3, bytes(line))
        else:
            out += raw
    return bytes(out)


def with_steps_line(p):
    """/host:CPU plus a Steps line made of its `train` events (step_num stat -> the step's name)."""
    stat_names, event_names, lines = {}, {}, []
    for f, w, v, raw in fields(p):
        if f == 5:
            kv = {g: gv for g, _, gv, _ in fields(v)}
            meta = {g: gv for g, _, gv, _ in fields(kv.get(2, b''))}
            stat_names[kv.get(1, 0)] = meta.get(2, b'').decode()
        elif f == 4:
            kv = {g: gv for g, _, gv, _ in fields(v)}
            meta = {g: gv for g, _, gv, _ in fields(kv.get(2, b''))}
            event_names[kv.get(1, 0)] = meta.get(2, b'').decode()
        elif f == 3:
            lines.append(v)
    train = [k for k, n in event_names.items() if n == 'train']
    steps, ts = [], None
    for line in lines:
        lf = list(fields(line))
        for g, gw, gv, _ in lf:
            if g != 4:
                continue
            ev = {h: hv for h, _, hv, _ in fields(gv)}
            if ev.get(1) not in train:
                continue
            step = None
            for h, _, hv, _ in fields(gv):
                if h == 4:
                    st = {x: xv for x, _, xv, _ in fields(hv)}
                    if stat_names.get(st.get(1)) == 'step_num':
                        step = st.get(3, st.get(4))
            ts = next(hv for h, hw, hv, _ in lf if h == 3 and hw == 0)
            steps.append((step, ev.get(2, 0), ev.get(3, 0)))
    if not steps:
        raise SystemExit('make_profiles: no train events with step_num in ' + CPU_STEPS)
    next_id = max(event_names) + 1
    metas, events = b'', b''
    for k, (step, off, dur) in enumerate(sorted(steps, key=lambda s: s[1])):
        mid = next_id + k
        metas += ld(4, vi(1, mid) + ld(2, vi(1, mid) + ld(2, str(step).encode())))
        events += ld(4, vi(1, mid) + vi(2, off) + vi(3, dur))
    line_id = 0x5354455053  # "STEPS"
    steps_line = ld(3, vi(1, line_id) + ld(2, b'Steps') + vi(3, ts) + events)
    out = bytearray()
    placed = False
    for f, w, v, raw in fields(p):
        if f == 4 and not placed:
            out += steps_line
            placed = True
        out += raw
        if f == 4:
            pass
    if not placed:
        out += steps_line
    return bytes(out) + metas


def write(out_dir, name, data, made):
    with open(os.path.join(out_dir, name), 'wb') as fh:
        fh.write(data)
    made.append(name)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    made = []
    if os.path.exists(TPU_X4):
        planes = planes_of(TPU_X4)
        by = {plane_name(p): p for p in planes}
        meta = by['/host:metadata']
        for k in range(4):
            write(out_dir, 'tpu_plane_%d.xplane.pb' % k, space([by['/device:TPU:%d' % k], meta]), made)
        rest = [p for p in planes if not plane_name(p).startswith('/device:TPU:')]
        write(out_dir, 'tpu_host0.xplane.pb', space([by['/device:TPU:0'], by['/device:TPU:1']] + rest, ['host0']), made)
        write(out_dir, 'tpu_host1.xplane.pb', space([by['/device:TPU:2'], by['/device:TPU:3'], meta], ['host1']), made)
    for name, path in GPU.items():
        if not os.path.exists(path):
            continue
        planes = planes_of(path)
        gpu0 = next(p for p in planes if plane_name(p) == '/device:GPU:0')
        meta = next(p for p in planes if plane_name(p) == '/host:metadata')
        out = []
        for p in planes:
            n = plane_name(p)
            if n.startswith('/device:GPU:') and n != '/device:GPU:0':
                k = int(n.rsplit(':', 1)[1])
                p = renamed_plane(gpu0, k, n, 1000 * k)
            out.append(p)
        write(out_dir, 'gpu8_%s.xplane.pb' % name, space(out), made)
        for p in out:
            n = plane_name(p)
            if n.startswith('/device:GPU:'):
                write(out_dir, 'gpu8_%s_plane_%s.xplane.pb' % (name, n.rsplit(':', 1)[1]), space([p, meta]), made)
    if os.path.exists(CPU_STEPS):
        planes = planes_of(CPU_STEPS)
        write(out_dir, 'steps_cpu.xplane.pb',
              space([with_steps_line(p) if plane_name(p) == '/host:CPU' else p for p in planes], ['vm']), made)
    print('\n'.join(made))


if __name__ == '__main__':
    main()
