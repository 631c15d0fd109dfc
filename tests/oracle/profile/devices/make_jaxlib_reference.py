#!/usr/bin/env python3
"""A second reader of the multi-device, multi-host and steps profiles: jaxlib's own profile data
API (jax.profiler.ProfileData, XLA's C++ XSpace reader), no code shared with the core. Writes
tests/oracle/profile/devices/jaxlib_reference.json, the oracle of tests/native/check_profiles_oracle.py
for what XProf's tables do not give: the runs of each program on each TPU chip and their
envelope (its XLA Modules events: how many, and their summed duration), each file's process id
and host, and the steps (the Steps line's events; the train annotations they were made from; the
time inside each step of the XLA:CPU thunks that no other thunk of the same thread contains).

    build/capture/venv-0.10.2/bin/python tests/oracle/profile/devices/make_jaxlib_reference.py > tests/oracle/profile/devices/jaxlib_reference.json

(bash fixtures/capture/run.sh --venvs --version 0.10.2 makes that venv; any jax >= 0.4.36 works.)
"""
import json
import os
import subprocess
import sys

import jax
from jax.profiler import ProfileData

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..'))
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures'))
MULTI = 'profiles/multiprocess-cpu-jax-0.10.2'  # under fixtures/, listed by the one walker
sys.path.insert(0, os.path.join(ROOT, 'tests'))
from fixtures import walker  # noqa: E402  (the one walker, tests/fixtures.mjs)


def ps(ns):
    return int(round(ns * 1000))


def modules(path):
    """per TPU plane: per program (its XLA Modules event name) runs and summed duration"""
    out = {}
    for p in ProfileData.from_file(path).planes:
        if not p.name.startswith('/device:TPU:'):
            continue
        progs = {}
        for l in p.lines:
            if l.name != 'XLA Modules':
                continue
            for e in l.events:
                x = progs.setdefault(e.name, {'runs': 0, 'envelope_ps': 0})
                x['runs'] += 1
                x['envelope_ps'] += ps(e.duration_ns)
        out[p.name] = progs
    return out


def process(path):
    d = ProfileData.from_file(path)
    pid = None
    for p in d.planes:
        if p.name in ('/host:CPU', '/host:metadata'):
            pid = pid or dict(p.stats).get('process_id')
    return {'pid': pid}


def steps(path):
    d = ProfileData.from_file(path)
    cpu = next(p for p in d.planes if p.name == '/host:CPU')
    lines = list(cpu.lines)
    steps = [{'name': e.name, 'start_ps': ps(e.start_ns), 'duration_ps': ps(e.duration_ns)}
             for l in lines if l.name == 'Steps' for e in l.events]
    train = [{'step_num': dict(e.stats).get('step_num'), 'start_ps': ps(e.start_ns), 'duration_ps': ps(e.duration_ns)}
             for l in lines if l.name == 'python' for e in l.events if e.name == 'train']
    # the thunks (events with hlo_op) that no other thunk of the same thread contains
    tops = []
    for l in lines:
        evs = sorted(((ps(e.start_ns), ps(e.duration_ns)) for e in l.events if 'hlo_op' in dict(e.stats)),
                     key=lambda x: (x[0], -x[1]))
        end = -1
        for s, du in evs:
            if s + du <= end:
                continue
            tops.append((s, du))
            end = max(end, s + du)
    for st in steps:
        st['top_thunks_ps'] = sum(du for s, du in tops if st['start_ps'] <= s < st['start_ps'] + st['duration_ps'])
    return {'steps': steps, 'train': train}


def main():
    made_dir = os.path.join(ROOT, 'build', 'oracle-profile')
    made = subprocess.run([sys.executable, os.path.join(HERE, 'make_profiles.py'), made_dir], check=True,
                          capture_output=True, text=True).stdout.split()
    out = {'how': 'tests/oracle/profile/devices/make_jaxlib_reference.py: jax.profiler.ProfileData', 'jax': jax.__version__,
           'modules': {}, 'processes': {}, 'steps': {}}
    x4 = os.path.join(SHARED, 'profiles-multidevice', 'xprof_tpu_v6e_x4_inference_2.xplane.pb')
    if os.path.exists(x4):
        out['modules']['shared/profiles-multidevice/xprof_tpu_v6e_x4_inference_2.xplane.pb'] = modules(x4)
    for name in made:
        if name.startswith('tpu_'):
            out['modules'][name] = modules(os.path.join(made_dir, name))
    for path in walker('files', MULTI, '.xplane.pb')['files']:
        out['processes'][os.path.basename(path)] = process(path)
    if 'steps_cpu.xplane.pb' in made:
        out['steps']['steps_cpu.xplane.pb'] = steps(os.path.join(made_dir, 'steps_cpu.xplane.pb'))
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
