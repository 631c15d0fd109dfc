// Dump folders through the JS API (wasm): archives read client-side, per-step counts against XLA's
// own parser (oracle.json of fixtures/passes), the shared GPU listing, compare, bad input, and the
// same bytes as `hloscope passes --json`. Skips with a message when the wasm build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { passFixtures, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const noListings = sharedAbsent('pass-names');
const gpuListing = () => sharedPath('captures/pass-names/gpu_shawnwang18_xla_vit_pjit_train_step.txt');
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = wasmBuilt ? false : 'wasm build missing (npm run build:wasm)';

const fixtures = passFixtures().map((c) => c.dir);

async function fromArchive(dir) {
  const entries = await api.readArchive(readFileSync(path.join(dir, 'dump.tar.gz')));
  return api.readPasses(entries, { label: 'dump.tar.gz' });
}

test('per-step counts equal XLA\'s parser on every step file (tar.gz read client-side)', { skip }, async () => {
  assert.ok(fixtures.length >= 6, 'fixtures/passes holds 3 programs x 2 jax versions');
  let checked = 0;
  for (const dir of fixtures) {
    const oracle = JSON.parse(readFileSync(path.join(dir, 'oracle.json'), 'utf8')).files;
    const r = await fromArchive(dir);
    const steps = r.modules.flatMap((m) => m.steps);
    const stepFiles = r.files.filter((f) => f.kind === 'step').map((f) => f.name);
    // the steps equal the step files written (names with a 4-digit step and .after_)
    const written = r.files.map((f) => f.name).filter((n) => /\.\d{4}\.[^.]+\.after_/.test(n));
    assert.deepEqual(stepFiles.sort(), written.sort(), dir);
    assert.equal(steps.length, written.length, dir);
    for (const s of steps) {
      const want = oracle[s.file];
      assert.ok(want && !want.error, `${dir}: oracle has ${s.file}`);
      const { computations, instructions, fusion_ops, fusion_computations, opcodes } = s.counts;
      assert.deepEqual({ computations, instructions, fusion_ops, fusion_computations, opcodes },
        { computations: want.computations, instructions: want.instructions, fusion_ops: want.fusion_ops,
          fusion_computations: want.fusion_computations, opcodes: want.opcodes }, `${dir} ${s.file}`);
      checked++;
    }
    const m = r.modules[0];
    assert.equal(m.backend, 'cpu');
    assert.equal(typeof m.watershed, 'number');
    const firstFusion = steps.find((s) => s.counts.fusion_ops > 0);
    assert.equal(m.first_fusion, firstFusion.n);
    assert.ok(firstFusion.diff.fusions_formed.length > 0 || firstFusion.diff.added.fusion > 0);
  }
  assert.ok(checked > 150);
});

test('the same JSON as `hloscope passes --json`', { skip: skip || (!existsSync(cli) && 'native CLI not built') }, async () => {
  for (const dir of fixtures) {
    const native = execFileSync(cli, ['passes', '--json', path.join(dir, 'dump.tar.gz')], { encoding: 'utf8' }).trimEnd();
    const entries = await api.readArchive(readFileSync(path.join(dir, 'dump.tar.gz')));
    assert.equal(api.passesJSON(entries, { label: 'dump.tar.gz' }), native, dir);
  }
});

test('a .zip of the folder reads the same as the .tar.gz', { skip: skip || (spawnSync('python3', ['-V']).status !== 0 && 'no python3') }, async () => {
  const dir = fixtures[0];
  const tmp = mkdtempSync(path.join(tmpdir(), 'hs-passes-'));
  try {
    execFileSync('tar', ['-m', '-xzf', path.join(dir, 'dump.tar.gz'), '-C', tmp]);
    execFileSync('python3', ['-m', 'zipfile', '-c', path.join(tmp, 'd.zip'), 'passes'], { cwd: tmp });
    const z = api.readPasses(await api.readArchive(readFileSync(path.join(tmp, 'd.zip'))), { label: 'dump.tar.gz' });
    const t = await fromArchive(dir);
    assert.deepEqual(z.modules, t.modules);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the shared GPU listing: 158 steps over 23 pipelines, watershed at step 96', { skip: skip || noListings }, () => {
  const r = api.readPasses(readFileSync(gpuListing(), 'utf8'));
  assert.equal(r.modules.length, 1);
  const m = r.modules[0];
  assert.equal(m.steps.length, 158);
  assert.equal(m.pipelines.length, 23);
  assert.equal(m.watershed, 96);
  assert.equal(m.backend, 'gpu');
  assert.equal(r.unknown, 0);
  const all = sharedCaptures('pass-names');
  assert.ok(all.length >= 6, `${all.length} listings`);
  for (const f of all) {
    const text = readFileSync(f, 'utf8');
    const rr = api.readPasses(text);
    assert.equal(rr.files.length, text.split('\n').filter(Boolean).length, f);
    assert.ok(rr.files.every((x) => typeof x.kind === 'string'));
  }
});

test('compare: our CPU dump against the GPU listing gives each pass its origin', { skip: skip || noListings }, async () => {
  const cpu = (await api.readArchive(readFileSync(path.join(root, 'fixtures/passes/cpu-jax-0.4.38/attention/dump.tar.gz'))));
  const gpu = readFileSync(gpuListing(), 'utf8');
  const c = api.comparePasses(cpu, gpu, { labels: ['cpu', 'gpu'] });
  const origin = Object.fromEntries(c.passes.map((p) => [p.pass, p.origin]));
  assert.equal(origin['layout-assignment'], 'both');
  assert.equal(origin['gpu-conv-rewriter'], 'b');
  assert.equal(origin['sharding-remover'], 'a');
  assert.equal(c.a.label, 'cpu');
  // origins agree with the two folders read alone
  const a = new Set(api.readPasses(cpu).modules.flatMap((m) => m.pipelines.flatMap((p) => p.passes)));
  const b = new Set(api.readPasses(gpu).modules.flatMap((m) => m.pipelines.flatMap((p) => p.passes)));
  for (const p of c.passes) assert.equal(p.origin, a.has(p.pass) && b.has(p.pass) ? 'both' : a.has(p.pass) ? 'a' : 'b', p.pass);
});

test('bad input: empty, no XLA names, junk lines, corrupt archive', { skip }, async () => {
  assert.throws(() => api.readPasses([]), (e) => e.code === 'HS_E_EMPTY');
  assert.throws(() => api.readPasses(''), (e) => e.code === 'HS_E_EMPTY');
  assert.throws(() => api.readPasses([{ name: 'notes.md', data: 'hi' }]), (e) => e.code === 'HS_E_FORMAT' && /none of the 1 names/.test(e.message));
  const r = api.readPasses('junk here\nmodule_0001.jit_f.0000.p.after_pipeline-start.before_x.txt\n');
  assert.equal(r.modules[0].steps.length, 1);
  assert.ok(r.warnings.some((w) => w.code === 'HS_W_DUMP_JUNK_LINE' && w.line === 1));
  const gz = readFileSync(path.join(fixtures[0], 'dump.tar.gz'));
  await assert.rejects(api.readArchive(gz.subarray(0, 3000)), (e) => e.code === 'HS_E_FORMAT' && /gzip/.test(e.message));
  await assert.rejects(api.readArchive(new Uint8Array(100)), (e) => e.code === 'HS_E_FORMAT');
  const bad = new Uint8Array(1024);
  bad.set(new TextEncoder().encode('module_0001.x.txt'), 0);
  bad.set(new TextEncoder().encode('ustar'), 257);
  await assert.rejects(api.readArchive(bad), (e) => e.code === 'HS_E_FORMAT' && /checksum/.test(e.message));
});

// Issue 35: people commit gzipped dumps. A step named with ".gz" is wanted for its bytes, and its
// gunzipped text counts as the plain step's does.
test('a gzipped step (.txt.gz) counts as its text does', { skip }, async () => {
  assert.equal(api.passesWantsBytes('module_0001.jit_f.cpu_after_optimizations.txt.gz'), true);
  assert.equal(api.passesWantsBytes('module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt.gz'), false);
  const all = await api.readArchive(readFileSync(path.join(fixtures[0], 'dump.tar.gz')));
  const entries = all.filter((e) => e.data && api.passesWantsBytes(e.name)).slice(0, 3);
  assert.ok(entries.length > 0);
  const { gzipSync } = await import('node:zlib');
  const gz = await Promise.all(entries.map(async (e) => ({ name: `${e.name}.gz`, data: await api.gunzip(gzipSync(e.data)) })));
  const a = api.readPasses(entries.map((e) => ({ name: e.name, data: e.data })));
  const b = api.readPasses(gz);
  assert.ok(a.modules.some((m) => m.steps.some((st) => st.counts)), 'the plain steps are counted');
  assert.deepEqual(b.modules.map((m) => m.steps.map((s) => s.counts)), a.modules.map((m) => m.steps.map((s) => s.counts)));
  assert.deepEqual(b.files.map((f) => f.kind), a.files.map((f) => f.kind));
});
