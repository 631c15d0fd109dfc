#!/usr/bin/env python3
"""A second reader of the same profiles: jaxlib's own profile data API (jax.profiler.ProfileData,
XLA's C++ XSpace reader bound to Python), no code shared with the core. Writes per profile the
planes in file order, each with its lines and the number of events on each line, for
tests/native/test_timeline.c to hold the core's `planes` against; and, for the XLA:CPU fixtures
the timeline drill uses, each op's total time on /host:CPU (what the drill's "which op took the
most device time per run?" is checked against in tests/browser/timeline.test.mjs).

    /work/cache/venv-0.12/bin/python tests/oracle/profile/make_jaxlib_reference.py > tests/oracle/profile/jaxlib_reference.json

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


def host_op_totals(path):
    """XLA:CPU profiles: total duration (ps) of the /host:CPU events per (hlo_module, hlo_op)."""
    d = ProfileData.from_file(path)
    tot = {}
    for p in d.planes:
        if p.name != '/host:CPU':
            continue
        for l in p.lines:
            for e in l.events:
                st = dict(e.stats)
                if 'hlo_op' not in st:
                    continue
                k = '%s|%s' % (st.get('hlo_module'), str(st['hlo_op']).split('::')[-1])
                tot[k] = tot.get(k, 0) + int(round(e.duration_ns * 1000))
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
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
