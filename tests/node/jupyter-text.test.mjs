// The Python package's text path without a native CLI (notebook/jupyter/src/cli.mjs: the wasm
// under Node) prints byte for byte what the native CLI prints, for every command on every fixture
// and on the shared captures when they are there. Skips with a message when a build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { diffPairs, filesBeside, fixtureCases, fixtureSubfolders, passFixtures, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const skip = !existsSync(cli) ? `no native CLI at ${cli} (npm run build:native)`
  : !wasmBuilt ? 'no wasm build (npm run build:wasm)' : false;

function cases() {
  const out = [];
  for (const c of fixtureCases()) {
    const hlo = c.file('after_optimizations.txt');
    if (!hlo) continue;
    for (const cmd of ['summary', 'fusions', 'spills', 'computations', 'decisions']) out.push([cmd, hlo]);
    const shlo = c.file('stablehlo.mlir');
    if (shlo) out.push(['xray', shlo, hlo], ['decisions', shlo]);
    if (c.file('jaxpr.txt')) out.push(['decisions', c.file('jaxpr.txt')]);
    for (const p of ['profile.xplane.pb', 'profile.trace.json.gz']) {
      const f = c.file(p);
      if (f) out.push(['profile', f], ['timeline', f], ['timeline', f, '--hlo', hlo]);
    }
    const dump = c.file('dump');
    if (dump) out.push(['passes', dump]);
    for (const f of c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump')) out.push(['memory', f], ['memory', f, hlo]);
  }
  for (const p of diffPairs()) {
    const [a, b] = [p.file('a.after_optimizations.txt'), p.file('b.after_optimizations.txt')];
    out.push(['diff', a, b], ['diff', '--json', a, b], ['diff', b, path.join(root, 'tests/jupyter/test_text.py')]);
    const [pa, pb] = [p.file('a.xplane.pb'), p.file('b.xplane.pb')];
    if (pa && pb) out.push(['diff', '--profiles', pa, pb, a, b], ['diff', '--profiles', pb, pa, a, b], ['diff', '--profiles', pa, path.join(root, 'tests/jupyter/test_text.py'), a, b]);
  }
  // profiles of other programs: the time unknown, said the same way
  const [s0, s1] = fixtureCases().filter((c) => c.file('profile.xplane.pb')).slice(0, 2);
  if (s0 && s1) out.push(['diff', '--profiles', s1.file('profile.xplane.pb'), s0.file('profile.xplane.pb'), s0.file('after_optimizations.txt'), s1.file('after_optimizations.txt')]);
  out.push(['fusions', path.join(root, 'tests/jupyter/test_text.py')]); // not a dump: the same error
  out.push(['memory', path.join(root, 'tests/jupyter/test_text.py')]); // not a memory text: the same error
  out.push(['decisions', path.join(root, 'tests/jupyter/test_text.py')]);
  const left = sharedPath('captures/tpu-v6e/jit_naive_attention.stablehlo.mlir');
  const right = sharedPath('captures/tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt');
  if (left && right) out.push(['xray', left, right], ['spills', right], ['fusions', right]);
  for (const f of sharedCaptures('profiles', (n) => n.endsWith('.xplane.pb'))) out.push(['profile', f], ['timeline', f]);
  for (const f of sharedCaptures('profiles-multidevice', (n) => n.endsWith('.xplane.pb'))) out.push(['profile', f], ['timeline', f]);
  out.push(...severalProfiles());
  for (const c of passFixtures()) if (c.file('dump.tar.gz')) out.push(['passes', c.file('dump.tar.gz')]);
  for (const f of sharedCaptures('pass-names', (n) => n.endsWith('.txt'))) out.push(['passes', f]);
  for (const f of sharedCaptures('memory', (n) => n.endsWith('.txt'))) out.push(['memory', f]);
  return out;
}

/** A multi-process job's profiles (fixtures/profiles/<capture>/, one .xplane.pb per process): the
 * files, their folder, one log_dir per process as jax.profiler writes them (each file
 * <hostname>.xplane.pb), a log_dir of two runs (the newest read, the CLI says so on stderr), and a
 * folder without a profile (the same error). */
function severalProfiles() {
  const out = [];
  const tmp = mkdtempSync(path.join(tmpdir(), 'hloscope-profiles-'));
  process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
  for (const name of fixtureSubfolders('profiles')) {
    const dir = path.join(root, 'fixtures/profiles', name);
    const files = filesBeside(path.join(dir, 'MANIFEST.json'), (n) => n.endsWith('.xplane.pb'));
    if (files.length < 2) continue;
    const logDirs = files.map((f, k) => {
      const d = path.join(tmp, name, `process_${k}`);
      mkdirSync(path.join(d, 'plugins/profile/2026_12_03_13_05_49'), { recursive: true });
      copyFileSync(f, path.join(d, 'plugins/profile/2026_12_03_13_05_49/vm.xplane.pb'));
      return d;
    });
    const twoRuns = path.join(tmp, name, 'two-runs');
    for (const [run, f] of [['2026_12_03_13_05_49', files[0]], ['2026_12_03_13_07_02', files.at(-1)]]) {
      mkdirSync(path.join(twoRuns, 'plugins/profile', run), { recursive: true });
      copyFileSync(f, path.join(twoRuns, 'plugins/profile', run, 'vm.xplane.pb'));
    }
    out.push(['timeline', ...files], ['timeline', '--json', ...files], ['timeline', dir], ['timeline', ...files, '--program', 'jit_step'],
      ['timeline', ...logDirs], ['timeline', '--json', logDirs[1], files[0], logDirs[2]], ['timeline', twoRuns],
      ['profile', ...files], ['profile', '--json', dir], ['profile', ...logDirs]);
  }
  const empty = path.join(tmp, 'empty-run');
  mkdirSync(path.join(empty, 'plugins/profile/2026_12_03_13_05_49'), { recursive: true });
  out.push(['timeline', empty], ['profile', path.join(root, 'tests/jupyter')]);
  return out;
}

test('node cli.mjs prints what the native CLI prints', { skip, timeout: 300000 }, async (t) => {
  const absent = sharedAbsent();
  if (absent) t.diagnostic(`${absent}: fixtures only`);
  const { run } = await import('../../notebook/jupyter/src/cli.mjs');
  let n = 0;
  for (const args of cases()) {
    const want = spawnSync(cli, args, { maxBuffer: 1 << 28 });
    const got = await run(args);
    const what = `hloscope ${args.map((a) => path.relative(root, a)).join(' ')}`;
    assert.equal(got.code, want.status, `${what}: exit status`);
    assert.equal(got.stderr, want.stderr.toString(), `${what}: stderr`);
    assert.ok(got.stdout.equals(want.stdout), `${what}: stdout differs\n--- native\n${want.stdout.toString().slice(0, 3000)}\n--- node\n${got.stdout.toString().slice(0, 3000)}`);
    n++;
  }
  t.diagnostic(`${n} commands equal`);
});

test('cli.mjs formats %.Nf as C does, exact ties to even included (coreutils printf as the reference)', async () => {
  const { fixed } = await import('../../notebook/jupyter/src/cli.mjs');
  // Ties a picosecond count makes (1062500 ps = 1.0625 us), shares (0.25, 0.75) and plain values.
  const cases = [[1.0625, 3], [0.25, 1], [0.75, 1], [2.5, 0], [3.5, 0], [0.35, 1], [12.125, 2], [99.95, 1],
    [-0.125, 2], [354.3045, 3], [0.0005, 3], [1.0005, 3], [1062.5, 0], [7.8125, 3], [100, 1], [1e-7, 3]];
  // The double itself, exactly, as a C hex float (printf reads decimals as long doubles).
  const hex = (x) => {
    const v = new DataView(new ArrayBuffer(8));
    v.setFloat64(0, x);
    const bits = v.getBigUint64(0);
    const exp = Number((bits >> 52n) & 0x7ffn) - 1023;
    return `${x < 0 ? '-' : ''}0x1.${(bits & ((1n << 52n) - 1n)).toString(16).padStart(13, '0')}p${exp}`;
  };
  const want = spawnSync('printf', [cases.map(([, d]) => `%.${d}f\\n`).join(''), ...cases.map(([x]) => hex(x))],
    { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  assert.equal(want.status, 0, want.stderr);
  assert.deepEqual(cases.map(([x, d]) => fixed(x, d)), want.stdout.trimEnd().split('\n'));
});
