#!/usr/bin/env python3
"""XProf's own per-op tables for some profiles, as the reference tests/native/test_profile.c
holds the core against (tests/oracle/profile/xprof_reference.json).

    python3 -m venv build/xprof-venv && build/xprof-venv/bin/pip install xprof==2.24.2
    build/xprof-venv/bin/python tests/oracle/profile/make_xprof_reference.py > tests/oracle/profile/xprof_reference.json

It runs XProf's `hlo_stats` tool (xprof.convert.raw_to_tool_data.xspace_to_tool_data, the
table the XProf UI shows as "HLO Op Stats") on each .xplane.pb and keeps, per (program id,
HLO op): occurrences, total time and total self time (XProf prints microseconds).

XProf writes a cache file (ALL_HOSTS.op_stats_v2.pb) beside the profile it reads, even with
use_saved_result=False, so each profile is reached through a symbolic link in its own folder
under build/xprof-work/: nothing is written beside the shared captures or the fixtures, and
nothing is copied.

What XProf does differently from the core, recorded here rather than hidden:
  - TPU: hlo_stats merges every /device:TPU:N plane (the v6e x4 sample's ops show 4x the
    occurrences of the first core), while the core counts the first TPU plane only
    (FORMATS.md section 5); the test compares per-occurrence self time there.
  - XLA:CPU: hlo_stats has no rows for host-only profiles (XLA:CPU thunks on /host:CPU
    threads are not device ops to it), so the CPU fixture is listed with no ops.
"""
import json
import os
import sys
import tempfile

from xprof.convert import raw_to_tool_data
from xprof import version as xprof_version

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures', 'profiles'))
PROFILES = [
    'shared/xprof_tpu_inference_2.xplane.pb',
    'shared/tracelens_mi300_jax08_gemm.xplane.pb',
    'shared/tracelens_mi300_jax08_attention.xplane.pb',
    'fixtures/cpu-jax-0.10.2/softmax/profile.xplane.pb',
]


def source(key):
    if key.startswith('shared/'):
        return os.path.join(SHARED, key[len('shared/'):])
    return os.path.join(ROOT, key)


def hlo_stats(path):
    work_root = os.path.join(ROOT, 'build', 'xprof-work')
    os.makedirs(work_root, exist_ok=True)
    work = tempfile.mkdtemp(dir=work_root)
    link = os.path.join(work, 'host.xplane.pb')
    os.symlink(path, link)
    data, _ = raw_to_tool_data.xspace_to_tool_data([link], 'hlo_stats', {'use_saved_result': False})
    if isinstance(data, bytes):
        data = data.decode()
    table = json.loads(data) if data else {'cols': [], 'rows': []}
    cols = [c['id'] for c in table['cols']]
    rows = []
    for r in table['rows']:
        x = dict(zip(cols, [c['v'] if c else None for c in r['c']]))
        rows.append({'program_id': x['program_id'], 'name': x['hlo_op_name'],
                     'occurrences': int(x['occurrences']), 'total_us': x['total_time'],
                     'self_us': x['total_self_time']})
    rows.sort(key=lambda r: (r['name'], r['program_id']))
    return rows


def main():
    out = {
        'how': 'tests/oracle/profile/make_xprof_reference.py: XProf hlo_stats per (program id, HLO op)',
        'xprof': getattr(xprof_version, '__version__', None) or getattr(xprof_version, 'VERSION', None),
        'command': 'build/xprof-venv/bin/python tests/oracle/profile/make_xprof_reference.py',
        'profiles': {},
    }
    for key in PROFILES:
        if os.path.exists(source(key)):
            out['profiles'][key] = {'rows': hlo_stats(source(key))}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
