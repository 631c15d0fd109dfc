// The time in `hloscope diff --profiles PA PB A B` (issue 38): on every real pair with a profile
// of each side (fixtures/diff-pairs/<set>/<pair>/{a,b}.xplane.pb, fixtures/capture/diff_pairs.py
// --profiles), each side's time per run, its runs and every op's time per run equal XProf's
// account of that profile (oracle.json "time", fixtures/capture/diff_time_oracle.py: XProf 2.24.2's
// trace_viewer events, within its 1 ns rounding); ops are joined through the diff's instruction
// matching (an op with both lines is one of `pairs`); --fail-on time+P% exits 3 exactly when B's
// time per run exceeds A's by more than P percent; the JS API gives the CLI's bytes. On the shared
// GPU/TPU profiles (no shared HLO text is the module they ran) the time is unknown, never another
// program's. Runs the native CLI; skips with a message when it is not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { diffPairs, repoRoot, sharedAbsent, sharedPath } from '../fixtures.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const skip = existsSync(cli) ? false : `SKIPPED: no native CLI at ${cli} (npm run build:native)`;
const wasmBuilt = existsSync(path.join(repoRoot, 'wasm/gen/hloscope_core.mjs'));
const pairs = diffPairs().filter((c) => c.file('a.xplane.pb') && c.file('b.xplane.pb'));

function run(...args) {
  const r = spawnSync(cli, ['diff', ...args], { maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}
function timed(c, ...extra) {
  return run(...extra, '--profiles', c.file('a.xplane.pb'), c.file('b.xplane.pb'), c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt'));
}

test('the 0.12.0.1 pairs carry a profile of each side', () => {
  const want = diffPairs().filter((c) => c.set === 'cpu-jax-0.12.0.1');
  assert.ok(want.length >= 4);
  assert.deepEqual(pairs.filter((c) => c.set === 'cpu-jax-0.12.0.1').map((c) => c.id), want.map((c) => c.id));
  for (const c of pairs) {
    const o = JSON.parse(readFileSync(c.oracle, 'utf8'));
    assert.ok(o.time?.a && o.time?.b, `${c.label}: oracle.json has no "time" (fixtures/capture/diff_time_oracle.py)`);
    const m = JSON.parse(readFileSync(c.file('MANIFEST.json'), 'utf8'));
    for (const f of ['a.xplane.pb', 'b.xplane.pb']) {
      assert.ok(m.files[f], `${c.label}: MANIFEST.json lists no ${f}`);
      assert.ok(m.files[f].size < 1 << 20, `${c.label}: ${f} is ${m.files[f].size} bytes`);
    }
  }
});

test('each side\'s time per run and every op\'s time equal XProf\'s; ops follow the matching', { skip }, () => {
  for (const c of pairs) {
    const r = timed(c, '--json');
    assert.equal(r.status, 0, `${c.label}: ${r.stderr}`);
    const j = JSON.parse(r.stdout);
    const oracle = JSON.parse(readFileSync(c.oracle, 'utf8')).time;
    const t = j.time;
    assert.equal(t.unknown, null, `${c.label}: ${t.unknown}`);
    const pairSet = new Set(j.pairs.map(([x, y]) => `${x}/${y}`));
    const matchedA = new Set(j.pairs.map(([x]) => x));
    for (const s of ['a', 'b']) {
      const o = oracle[s];
      assert.equal(t[`${s}_program`].name, o.module, `${c.label} ${s}: the program is the side's module`);
      assert.equal(t[`${s}_runs`], o.runs, `${c.label} ${s}: runs`);
      // XProf prints microseconds with 3 decimals: a run's window is within 2 ns of the exact one
      assert.ok(Math.abs(t[`${s}_ps`] - o.per_run_us * 1e6) <= 2000, `${c.label} ${s}: ${t[`${s}_ps`]} ps per run, XProf ${o.per_run_us} us`);
      const rows = t.ops.filter((e) => e[`${s}_ps`] !== null);
      assert.deepEqual(rows.map((e) => e[s]).sort(), Object.keys(o.ops).sort(), `${c.label} ${s}: the ops profiled`);
      for (const e of rows) {
        const x = o.ops[e[s]];
        const tol = (1000 * x.occurrences) / o.runs + 1;
        assert.ok(Math.abs(e[`${s}_ps`] - x.per_run_us * 1e6) <= tol, `${c.label} ${s} ${e[s]}: ${e[`${s}_ps`]} ps, XProf ${x.per_run_us} us`);
      }
    }
    for (const e of t.ops) {
      if (e.a_line !== null && e.b_line !== null) assert.ok(pairSet.has(`${e.a_line}/${e.b_line}`), `${c.label}: ${e.a} (line ${e.a_line}) and ${e.b} (line ${e.b_line}) are not a matched pair`);
      if (e.a_line !== null && e.b === null) assert.ok(!matchedA.has(e.a_line), `${c.label}: ${e.a} is matched but its partner is not named`);
    }
    // largest change first (changes under the noise threshold count as none)
    const noise = (Math.max(t.a_ps, t.b_ps) * t.noise.op_pct) / 100;
    const key = (e) => { const d = Math.abs((e.b_ps ?? 0) - (e.a_ps ?? 0)); return d < noise ? 0 : d; };
    for (let k = 1; k < t.ops.length; k++) assert.ok(key(t.ops[k - 1]) >= key(t.ops[k]), `${c.label}: ops not sorted by change at ${k}`);
    // the verdict opens with the time when the totals differ beyond the noise
    const pct = (100 * (t.b_ps - t.a_ps)) / t.a_ps;
    assert.equal(t.differs, Math.abs(pct) > t.noise.total_pct);
    if (t.differs) assert.match(j.verdict, new RegExp(`^B is ${Math.round(Math.abs(pct))}% ${pct > 0 ? 'slower' : 'faster'} per run: `));
    else assert.doesNotMatch(j.verdict, /per run/);
  }
});

test('--fail-on time+P% exits 3 exactly when B is more than P% slower per run', { skip }, () => {
  for (const c of pairs) {
    const j = JSON.parse(timed(c, '--json').stdout);
    const pct = (100 * (j.time.b_ps - j.time.a_ps)) / j.time.a_ps;
    for (const p of [0, 1, 5, 25, 100, 1000, Math.max(0, Math.floor(pct) - 1), Math.max(0, Math.ceil(pct) + 1)]) {
      const r = timed(c, '--fail-on', `time+${p}%`);
      const holds = j.time.b_ps > j.time.a_ps * (1 + p / 100);
      assert.equal(r.status, holds ? 3 : 0, `${c.label}: time+${p}% (B ${pct.toFixed(1)}%): ${r.stderr}`);
      if (holds) assert.match(r.stderr, /time\+\d+%: B takes [\d.]+% longer per run than A/);
    }
  }
  // without profiles the condition cannot be decided: exit 1, saying so
  const c = pairs[0];
  if (!c) return;
  const r = run('--fail-on', 'time+5%', c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /needs a profile on each side/);
});

test('the human text prints each side\'s time and the ops', { skip }, () => {
  for (const c of pairs) {
    const r = timed(c);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\ntime A: [\d.]+ [mun]?s per run, \d+ runs \(jit_\w+, program \d+\)\ntime B: /);
    assert.match(r.stdout, /\n {2}A [\d.]+ [mun]?s \S+ {2}B /);
  }
});

test('JS diffJSON(a, b, { profiles }) gives the CLI\'s bytes', { skip: skip || (!wasmBuilt && 'SKIPPED: no wasm build (npm run build:wasm)') }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  for (const c of pairs) {
    const [a, b] = ['a', 'b'].map((s) => readFileSync(c.file(`${s}.after_optimizations.txt`), 'utf8'));
    const profiles = ['a', 'b'].map((s) => readFileSync(c.file(`${s}.xplane.pb`)));
    assert.equal(api.diffJSON(a, b, { profiles }), timed(c, '--json').stdout.replace(/\n$/, ''), c.label);
    // parsed profiles do too, and a bad profile names its side
    const parsed = profiles.map((x) => api.parseProfile(x));
    assert.equal(api.diffJSON(a, b, { profiles: parsed }), timed(c, '--json').stdout.replace(/\n$/, ''));
    for (const p of parsed) p.free();
    assert.throws(() => api.diffJSON(a, b, { profiles: [profiles[0], new Uint8Array([0x7b, 0x7b])] }), (e) => e.side === 'b');
  }
});

// The shared GPU/TPU profiles ran programs no shared HLO text is: jit_add of the MI300X profile is
// another compile than the TPU's jit_add module, the TPU profile has no jit_add at all. The time is
// unknown, said why, and --fail-on time+P% cannot decide.
test('shared GPU/TPU profiles: unknown, not another program\'s time', { skip: skip || sharedAbsent('profiles') }, () => {
  const hlo = sharedPath('captures/tpu-layouts/tpu_v6e__module_0028.jit_add.cl_804429027.after_optimizations.txt');
  const gpu = sharedPath('captures/profiles/tracelens_mi300_jax08_attention.xplane.pb');
  const tpu = sharedPath('captures/profiles/xprof_tpu_inference_2.xplane.pb');
  if (!hlo || !gpu || !tpu) return;
  const r = run('--json', '--profiles', gpu, tpu, hlo, hlo);
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout).time;
  assert.equal(t.a_ps, null);
  assert.equal(t.b_ps, null);
  assert.equal(t.differs, null);
  assert.deepEqual(t.ops, []);
  assert.match(t.unknown, /^A: its profile ran jit_add, but not this compile of it .*; B: its profile holds no run of jit_add \(it ran jit__psum/);
  assert.match(JSON.parse(r.stdout).verdict, /^The time per run of A is unknown: .* The time per run of B is unknown: /);
  const f = run('--fail-on', 'time+5%', '--profiles', gpu, tpu, hlo, hlo);
  assert.equal(f.status, 1);
  assert.match(f.stderr, /time per run of A is unknown/);
  // one side known: a real pair's A with the TPU profile as B's
  const c = pairs[0];
  if (!c) return;
  const m = JSON.parse(run('--json', '--profiles', c.file('a.xplane.pb'), tpu, c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt')).stdout).time;
  assert.ok(m.a_ps > 0);
  assert.equal(m.b_ps, null);
  assert.ok(m.ops.length > 0 && m.ops.every((e) => e.b_ps === null));
  // the TPU profile ran a jit_f too (another program): named, and refused as not this compile
  assert.match(m.unknown, /^B: its profile ran jit_f, but not this compile of it \(.* are not instructions of this module\)$/);
});
