"""`hloscope timeline --json` on profiles from many devices and hosts, against what the
profiler's own tools and a second reader say (tests/oracle/profile/devices/README.md):

  - the four-chip TPU v6e profile (../shared/captures/profiles-multidevice/), read as one file
    and as two hosts' files; the eight-GPU copies of the MI300X profiles: each program's
    device_count is the planes that ran it (jaxlib: XLA Modules events per plane; GPU: every
    plane holds GPU:0's kernels); per device, runs and envelope equal jaxlib's, and each op's
    occurrences, total and self time equal XProf 2.24.2's hlo_stats of that device alone; on
    GPU the devices' totals sum to the rows' totals; TPU:0 equals what was counted before (the
    first chip: its XLA Modules and XLA Ops);
  - kernels under ops and the unattributed row equal XProf's kernel_stats per kernel name, and
    their sum XProf's total device time in kernels (the shared MI300X profiles, the copies);
  - the multi-process capture: one host per process, the slowed one named slowest, pids;
  - the Steps line written from the capture's step annotations: names, durations, busy time;
  - the picture of one run of jit_f on the four chips holds every raw event of that run
    (count_run_events.py over the protobuf);
  - the instruction behind each TPU op: the type rendered from the embedded HloModuleProto is
    the type XLA printed in the op's XLA Ops text.

  python3 tests/native/check_profiles_oracle.py HLOSCOPE
Exits 77 (skipped) when ../shared/captures is absent."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
ORACLE = os.path.join(ROOT, 'tests', 'oracle', 'profile', 'devices')
SHARED = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'captures'))
X4 = os.path.join(SHARED, 'profiles-multidevice', 'xprof_tpu_v6e_x4_inference_2.xplane.pb')
MULTI = os.path.join(ROOT, 'fixtures', 'profiles', 'multiprocess-cpu-jax-0.10.2')
sys.path.insert(0, ORACLE)
import count_run_events  # noqa: E402

bad = 0
checked = 0


def fail(msg):
    global bad
    bad += 1
    print('FAIL ' + msg)


def ok(cond, msg):
    global checked
    checked += 1
    if not cond:
        fail(msg)


def timeline(exe, *paths):
    out = subprocess.run([exe, 'timeline', '--json', *paths], capture_output=True, check=True).stdout
    return json.loads(out)


def near(a, b, tol):
    return abs(a - b) <= tol


def by_plane(j, prog_name):
    g = next(g for g in j['programs'] if g['name'] == prog_name)
    return g, {d['plane']: d for d in g['devices']}


def check_devices_vs_xprof(j, xprof, jaxlib_mods, plane_file, what):
    """per device: runs/envelope (jaxlib) and each op's figures (XProf on that device alone)"""
    planes = sorted({d['plane'] for g in j['programs'] for d in g['devices']})
    for g in j['programs']:
        key = '%s(%s)' % (g['name'], g['program_id'])
        ran = [pl for pl, progs in jaxlib_mods.items() if key in progs] if jaxlib_mods is not None else planes
        ok(g['device_count'] == len(ran), '%s %s: device_count %s, %d planes ran it' % (what, key, g['device_count'], len(ran)))
        for d in g['devices']:
            if jaxlib_mods is not None:
                want = jaxlib_mods[d['plane']][key]
                ok(d['runs'] == want['runs'], '%s %s %s: runs %s, jaxlib %s' % (what, key, d['plane'], d['runs'], want['runs']))
                ok(near(d['envelope_ps'], want['envelope_ps'], 1000 * want['runs']),
                   '%s %s %s: envelope %s, jaxlib %s' % (what, key, d['plane'], d['envelope_ps'], want['envelope_ps']))
    for plane in planes:
        ref = xprof['hlo_stats'][plane_file(plane)]
        ours = {}
        for r in j['rows']:
            if r['kind'] == 'unattributed':
                continue
            dev = r['devices'] if r['device_count'] and r['device_count'] > 1 else None
            fig = next((d for d in dev if d['plane'] == plane), None) if dev else None
            if dev is None:
                g = next(g for g in j['programs'] if g['program_id'] == r['program_id'])
                if g['devices'][0]['plane'] == plane:
                    fig = r
            if fig:
                ours[(r['program_id'], r['name'])] = fig
        ok(len(ours) == len(ref), '%s %s: %d ops, XProf lists %d' % (what, plane, len(ours), len(ref)))
        total = 0
        for x in ref:
            o = ours.get((x['program_id'], x['name']))
            if not o:
                fail('%s %s: XProf lists %s of %s, we do not' % (what, plane, x['name'], x['program_id']))
                continue
            ok(o['occurrences'] == x['occurrences'], '%s %s %s: %s occurrences, XProf %s' % (what, plane, x['name'], o['occurrences'], x['occurrences']))
            for k, xk in (('total_ps', 'total_us'), ('self_ps', 'self_us')):
                ok(near(o[k], x[xk] * 1e6, x[xk] * 1e6 * 1e-6 + 1000 * x['occurrences']),
                   '%s %s %s: %s %s, XProf %s us' % (what, plane, x['name'], k, o[k], x[xk]))
            total += o['total_ps']
        # the device's total is its ops' total
        dev_total = sum(d['total_ps'] for g in j['programs'] for d in g['devices'] if d['plane'] == plane)
        ok(dev_total == total, '%s %s: device total %s, its ops %s' % (what, plane, dev_total, total))


def check_kernels(j, ks, what):
    ours = {}
    for r in j['rows']:
        for k in r.get('kernels') or []:
            o = ours.setdefault(k['name'], [0, 0])
            o[0] += k['occurrences']
            o[1] += k['total_ps']
    ok(sorted(ours) == sorted(ks['kernels']), '%s: kernels %s, XProf %s' % (what, len(ours), len(ks['kernels'])))
    for name, x in ks['kernels'].items():
        o = ours.get(name, [0, 0])
        ok(o[0] == x['occurrences'], '%s %s: %s launches, XProf %s' % (what, name[:40], o[0], x['occurrences']))
        ok(near(o[1], x['total_us'] * 1e6, 1000 * x['occurrences']), '%s %s: %s ps, XProf %s us' % (what, name[:40], o[1], x['total_us']))
    grand = sum(v[1] for v in ours.values())
    ok(near(grand, ks['total_us'] * 1e6, 1000 * sum(x['occurrences'] for x in ks['kernels'].values())),
       '%s: %s ps in kernels, XProf %s us' % (what, grand, ks['total_us']))
    un = [r for r in j['rows'] if r['kind'] == 'unattributed']
    ok(len(un) == 1, '%s: %d unattributed rows' % (what, len(un)))


def main():
    exe = sys.argv[1]
    if not os.path.isdir(SHARED):
        print('SKIPPED: ../shared/captures is absent (the shared TPU and GPU profiles these checks read)')
        sys.exit(77)
    xprof = json.load(open(os.path.join(ORACLE, 'xprof_reference.json')))
    jaxlib = json.load(open(os.path.join(ORACLE, 'jaxlib_reference.json')))
    made_dir = tempfile.mkdtemp(prefix='hs-profiles-')
    made = subprocess.run([sys.executable, os.path.join(ORACLE, 'make_profiles.py'), made_dir], check=True,
                          capture_output=True, text=True).stdout.split()
    for name in made:
        with open(os.path.join(made_dir, name), 'rb') as fh:
            ok(hashlib.sha256(fh.read()).hexdigest() == xprof['made'].get(name), name + ': not the bytes XProf read')
    path = lambda n: os.path.join(made_dir, n)  # noqa: E731

    # the four TPU chips: one file, then two hosts' files
    tpu_file = lambda plane: 'tpu_plane_%s.xplane.pb' % plane.rsplit(':', 1)[1]  # noqa: E731
    one = timeline(exe, X4)
    mods = jaxlib['modules']['shared/profiles-multidevice/xprof_tpu_v6e_x4_inference_2.xplane.pb']
    check_devices_vs_xprof(one, xprof, mods, tpu_file, 'tpu x4')
    two = timeline(exe, path('tpu_host0.xplane.pb'), path('tpu_host1.xplane.pb'))
    mods2 = {}
    for f in ('tpu_host0.xplane.pb', 'tpu_host1.xplane.pb'):
        mods2.update(jaxlib['modules'][f])
    check_devices_vs_xprof(two, xprof, mods2, tpu_file, 'tpu two hosts')
    ok([d['host'] for d in two['devices']] == ['host0', 'host0', 'host1', 'host1'], 'tpu two hosts: hosts %s' % two['devices'])
    for g1 in one['programs']:
        g2 = next(g for g in two['programs'] if g['program_id'] == g1['program_id'])
        strip = lambda ds: [{k: v for k, v in d.items() if k not in ('host', 'file')} for d in ds]  # noqa: E731
        ok(strip(g1['devices']) == strip(g2['devices']), 'tpu: %s per device differs between one file and two' % g1['name'])
    # TPU:0 is what the first chip alone gives
    alone = timeline(exe, path('tpu_plane_0.xplane.pb'))
    for g in alone['programs']:
        _, devs = by_plane(one, g['name'])
        d = devs['/device:TPU:0']
        ok((d['runs'], d['envelope_ps'], d['per_run_ps']) == (g['runs'], g['envelope_ps'], g['per_run_ps']),
           'tpu: %s on TPU:0 is not what TPU:0 alone gives' % g['name'])
    ok('4 TPUs' in one['reading'] and 'unknown' in one['reading'], 'tpu reading: ' + one['reading'])

    # the instruction behind each TPU op: the proto's type is the type XLA printed
    for r in one['rows']:
        i = r['instruction']
        ok(i is not None and i['from'] == 'profile', 'tpu %s: no instruction from the profile' % r['name'])
        if i:
            ok(i['proto_type'] == i['result']['type'], 'tpu %s: proto type %s, XLA printed %s' % (r['name'], i['proto_type'], i['result']['type']))
    cd = next(r for r in one['rows'] if r['name'] == 'copy-done.4')['instruction']
    ok(any(m['memory_space'] == 5 and 'host memory' in m['words'] for m in cd['memory_spaces']), 'copy-done.4: no S(5) in words')

    # the picture of one run of jit_f holds every raw event of that run
    pic = next(g for g in one['programs'] if g['name'] == 'jit_f')['picture']
    raw = count_run_events.count(X4, 'jit_f', pic['run'])
    drawn = {}
    for t in pic['tracks']:
        drawn.setdefault(t['plane'], {})[t['line']] = len(t['events'])
    for plane, want in raw['planes'].items():
        for ln in ('XLA Ops', 'Async XLA Ops'):
            ok(drawn.get(plane, {}).get(ln, 0) == want[ln], 'picture %s %s: %s events, the run holds %s' % (plane, ln, drawn.get(plane, {}).get(ln, 0), want[ln]))
    ok(pic['events'] == raw['total'] and pic['left_out'] == 0, 'picture: %s events, the run holds %s' % (pic['events'], raw['total']))

    # eight GPUs: GPU:0's kernels on every plane
    for n in ('gemm', 'attention'):
        orig = os.path.join(SHARED, 'profiles', 'tracelens_mi300_jax08_%s.xplane.pb' % n)
        j1 = timeline(exe, orig)
        j8 = timeline(exe, path('gpu8_%s.xplane.pb' % n))
        gpu_file = lambda plane, n=n: 'gpu8_%s_plane_%s.xplane.pb' % (n, plane.rsplit(':', 1)[1])  # noqa: E731
        check_devices_vs_xprof(j8, xprof, None, gpu_file, 'gpu8 ' + n)
        for g in j8['programs']:
            ok(g['device_count'] == 8, 'gpu8 %s %s: device_count %s' % (n, g['name'], g['device_count']))
            g1 = next(x for x in j1['programs'] if x['program_id'] == g['program_id'])
            ok(all(d['runs'] == g1['runs'] for d in g['devices']), 'gpu8 %s %s: runs per device differ from one GPU' % (n, g['name']))
            ok(g['runs'] == g1['runs'] and g['per_run_ps'] == g1['per_run_ps'], 'gpu8 %s %s: per run %s, one GPU %s' % (n, g['name'], g['per_run_ps'], g1['per_run_ps']))
            rows_total = sum(r['total_ps'] for r in j8['rows'] if r['program_id'] == g['program_id'])
            ok(sum(d['total_ps'] for d in g['devices']) == rows_total, 'gpu8 %s %s: devices do not sum to the rows' % (n, g['name']))
        check_kernels(j1, xprof['kernel_stats']['shared/profiles/tracelens_mi300_jax08_%s.xplane.pb' % n], 'mi300 ' + n)
        check_kernels(j8, xprof['kernel_stats']['gpu8_%s.xplane.pb' % n], 'gpu8 ' + n)
        ok('8 GPUs' in j8['reading'], 'gpu8 %s reading: %s' % (n, j8['reading']))

    # the multi-process capture: one host per process, the slowed one the slowest
    man = json.load(open(os.path.join(MULTI, 'MANIFEST.json')))
    files = sorted(os.path.join(MULTI, p['file']) for p in man['processes'])
    mp = timeline(exe, *files)
    ok(len(mp['hosts']) == len(files), 'multiprocess: %d hosts for %d processes' % (len(mp['hosts']), len(files)))
    slow = [h['file'] for h in mp['hosts'] if h['slowest']]
    want = [p['file'] for p in man['processes'] if p['slow']]
    ok(slow == want, 'multiprocess: slowest %s, the capture slowed %s' % (slow, want))
    for h in mp['hosts']:
        p = next(p for p in man['processes'] if p['file'] == h['file'])
        ok(h['pid'] == p['pid'] == jaxlib['processes'][h['file']]['pid'], 'multiprocess %s: pid %s' % (h['file'], h['pid']))
        ok(h['device_count'] == 1 and h['runs'] == man['steps'], 'multiprocess %s: %s' % (h['file'], h))
    ok(mp['programs'][0]['device_count'] == len(files), 'multiprocess: device_count %s' % mp['programs'][0]['device_count'])
    ok(want[0] in mp['reading'] and 'slowest' in mp['reading'], 'multiprocess reading: ' + mp['reading'])
    folder = timeline(exe, MULTI)
    ok([h['file'] for h in folder['hosts']] == [h['file'] for h in mp['hosts']], 'multiprocess: the folder reads other files')

    # steps: the Steps line made from the capture's step annotations
    st = timeline(exe, path('steps_cpu.xplane.pb'))
    ref = jaxlib['steps']['steps_cpu.xplane.pb']
    ok([s['name'] for s in st['steps']] == [s['name'] for s in ref['steps']] == [str(t['step_num']) for t in ref['train']],
       'steps: names %s' % [s['name'] for s in st['steps']])
    for s, r in zip(st['steps'], ref['steps']):
        ok(s['duration_ps'] == r['duration_ps'], 'step %s: %s ps, jaxlib %s' % (s['name'], s['duration_ps'], r['duration_ps']))
        ok(s['busy_ps'] == r['top_thunks_ps'], 'step %s: busy %s ps, jaxlib thunks %s' % (s['name'], s['busy_ps'], r['top_thunks_ps']))
        ok(abs(s['share'] - r['top_thunks_ps'] / r['duration_ps']) < 1e-9, 'step %s: share %s' % (s['name'], s['share']))
    ok('3 steps' in st['reading'], 'steps reading: ' + st['reading'])
    print('%d checks on profiles from many devices and hosts, %d failures' % (checked, bad))
    sys.exit(1 if bad else 0)


main()
