#!/usr/bin/env python3
"""XProf's own figures for the multi-device profiles of make_profiles.py and the shared GPU
captures: tests/oracle/profile/devices/xprof_reference.json, the oracle of tests/native/check_profiles_oracle.py.

    python3 -m venv build/xprof-venv && build/xprof-venv/bin/pip install xprof==2.24.2
    build/xprof-venv/bin/python tests/oracle/profile/devices/make_reference.py > tests/oracle/profile/devices/xprof_reference.json

For every one-device file (a TPU chip alone, a GPU alone) XProf's hlo_stats ("HLO Op Stats"):
per (program id, HLO op) occurrences, total and self time (microseconds), which is XProf's figure
for that device. For every GPU profile (the shared MI300X captures and the eight-GPU copies)
XProf's kernel_stats: per kernel its occurrences and total duration, and their sum, XProf's total
device time in kernels. The sha256 of each file made is recorded, so the test knows it reads the
same bytes XProf read.

XProf writes a cache file beside each profile it reads: every file is reached through a symbolic
link in its own folder under build/xprof-work/, so nothing is written beside the captures.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from xprof import version as xprof_version
from xprof.convert import raw_to_tool_data

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..'))
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures'))


def tool(path, name):
    work_root = os.path.join(ROOT, 'build', 'xprof-work')
    os.makedirs(work_root, exist_ok=True)
    work = tempfile.mkdtemp(dir=work_root)
    link = os.path.join(work, 'host.xplane.pb')
    os.symlink(os.path.abspath(path), link)
    data, _ = raw_to_tool_data.xspace_to_tool_data([link], name, {'use_saved_result': False})
    if isinstance(data, bytes):
        data = data.decode()
    table = json.loads(data) if data else {'cols': [], 'rows': []}
    cols = [c['id'] for c in table['cols']]
    return [dict(zip(cols, [c['v'] if c else None for c in r['c']])) for r in table['rows']]


def hlo_stats(path):
    rows = [{'program_id': x['program_id'], 'name': x['hlo_op_name'], 'occurrences': int(x['occurrences']),
             'total_us': x['total_time'], 'self_us': x['total_self_time']} for x in tool(path, 'hlo_stats')]
    return sorted(rows, key=lambda r: (r['name'], r['program_id']))


def kernel_stats(path):
    by = {}
    for x in tool(path, 'kernel_stats'):
        k = by.setdefault(x['kernel_name'], {'occurrences': 0, 'total_us': 0.0})
        k['occurrences'] += int(x['occurrences'])
        k['total_us'] += x['total_duration_us']
    return {'kernels': dict(sorted(by.items())), 'total_us': sum(k['total_us'] for k in by.values())}


def sha(path):
    with open(path, 'rb') as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def main():
    made_dir = os.path.join(ROOT, 'build', 'oracle-profile')
    made = subprocess.run([sys.executable, os.path.join(HERE, 'make_profiles.py'), made_dir], check=True,
                          capture_output=True, text=True).stdout.split()
    out = {'how': 'tests/oracle/profile/devices/make_reference.py: XProf hlo_stats per one-device file, kernel_stats per GPU profile',
           'xprof': getattr(xprof_version, '__version__', None),
           'command': 'build/xprof-venv/bin/python tests/oracle/profile/devices/make_reference.py',
           'made': {}, 'hlo_stats': {}, 'kernel_stats': {}}
    for name in made:
        path = os.path.join(made_dir, name)
        out['made'][name] = sha(path)
        if '_plane_' in name:
            out['hlo_stats'][name] = hlo_stats(path)
        if name.startswith('gpu8_') and '_plane_' not in name:
            out['kernel_stats'][name] = kernel_stats(path)
    for n in ('gemm', 'attention'):
        key = 'shared/profiles/tracelens_mi300_jax08_%s.xplane.pb' % n
        path = os.path.join(SHARED, key[len('shared/'):])
        if os.path.exists(path):
            out['kernel_stats'][key] = kernel_stats(path)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
