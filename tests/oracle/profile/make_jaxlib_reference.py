#!/usr/bin/env python3
"""A second reader of the same profiles: jaxlib's own profile data API (jax.profiler.ProfileData,
XLA's C++ XSpace reader bound to Python), no code shared with the core. Writes per profile the
planes in file order, each with its lines and the number of events on each line, for
tests/native/test_timeline.c to hold the core's `planes` against; and, for the XLA:CPU fixtures
the timeline drill uses, each op's total time on /host:CPU (what the drill's "which op took the
most device time per run?" was checked against), and each op's self time there: its duration minus
the durations of the op events directly inside it on the same thread line (XLA:CPU's `call.N`
thunk encloses the kernel that does the work), what the drill's "which op spent the most time
in its own code?" is checked against in tests/browser/timeline.test.mjs and
tests/node/timeline-drill.test.mjs.

    bash fixtures/capture/run.sh --venvs --version 0.12.0.1
    build/capture/venv-0.12.0.1/bin/python tests/oracle/profile/make_jaxlib_reference.py > tests/oracle/profile/jaxlib_reference.json

(any Python with jax >= 0.4.36 installed works: ProfileData ships in jaxlib.)
"""
import json
import os
import sys

import jax
from jax.profiler import ProfileData

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures', 'profiles'))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
from fixtures import walker  # noqa: E402  (the one walker, tests/fixtures.mjs)


def read(path):
    d = ProfileData.from_file(path)
    planes = []
    for p in d.planes:
        planes.append({'name': p.name,
                       'lines': [{'name': l.name, 'events': sum(1 for _ in l.events)} for l in p.lines]})
    return planes


def host_op_lines(path):
    """XLA:CPU profiles: per /host:CPU line, its op events as [start_ps, end_ps, key], where key
    is 'hlo_module|hlo_op'."""
    d = ProfileData.from_file(path)
    for p in d.planes:
        if p.name != '/host:CPU':
            continue
        for l in p.lines:
            evs = []
            for e in l.events:
                st = dict(e.stats)
                if 'hlo_op' not in st:
                    continue
                start = int(round(e.start_ns * 1000))
                evs.append([start, start + int(round(e.duration_ns * 1000)),
                            '%s|%s' % (st.get('hlo_module'), str(st['hlo_op']).split('::')[-1])])
            yield evs


def host_op_totals(path):
    """Total duration (ps) of the /host:CPU op events per (hlo_module, hlo_op)."""
    tot = {}
    for evs in host_op_lines(path):
        for start, end, k in evs:
            tot[k] = tot.get(k, 0) + end - start
    return tot


def host_op_selfs(path):
    """Self time (ps) of the /host:CPU op events per (hlo_module, hlo_op): each event's duration
    minus the durations of the op events it directly encloses on its line."""
    tot = {}
    for evs in host_op_lines(path):
        evs.sort(key=lambda x: (x[0], -x[1]))
        own = [end - start for start, end, _ in evs]
        stack = []  # indexes of the open events, innermost last
        for i, (start, end, _) in enumerate(evs):
            while stack and not (start >= evs[stack[-1]][0] and end <= evs[stack[-1]][1]):
                stack.pop()
            if stack:
                own[stack[-1]] -= end - start
            stack.append(i)
        for (_, _, k), o in zip(evs, own):
            tot[k] = tot.get(k, 0) + max(o, 0)
    return tot


def main():
    keys = ['shared/' + os.path.basename(p) for p in walker('shared', 'profiles', '.xplane.pb')['files']]
    keys += sorted(os.path.relpath(p, ROOT) for p in walker('fixtures', 'profile.xplane.pb')['files'])
    out = {'how': 'tests/oracle/profile/make_jaxlib_reference.py: jax.profiler.ProfileData planes, lines, events per line',
           'jax': jax.__version__, 'profiles': {}}
    for k in keys:
        path = os.path.join(SHARED, k[len('shared/'):]) if k.startswith('shared/') else os.path.join(ROOT, k)
        out['profiles'][k] = {'planes': read(path)}
        if k.startswith('fixtures/cpu-jax-0.4.38/'):
            out['profiles'][k]['host_op_total_ps'] = host_op_totals(path)
            out['profiles'][k]['host_op_self_ps'] = host_op_selfs(path)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
