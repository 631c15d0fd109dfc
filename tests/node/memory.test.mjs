// readMemory(), layout() and layouts() under Node: byte for byte the JSON of the native CLI
// (`hloscope memory|layout|layouts --json`) on every shared memory text (in place) and on our
// fixtures' buffer assignments and usage reports; the assignment's totals equal the report's.
// Skips with a message when a build or ../shared is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { fixtureCases, sharedAbsent, sharedCaptures } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const noShared = sharedAbsent('memory');
const hasCli = existsSync(cli);
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skipWasm = !wasmBuilt && 'SKIPPED: wasm/gen/hloscope_core.wasm is not built (bash tools/build-wasm.sh)';

function memoryTexts() {
  const files = [];
  for (const d of ['memory', 'buffers', 'errors']) files.push(...sharedCaptures(d));
  for (const set of ['cpu-jax-0.4.38', 'cpu-jax-0.10.2']) {
    for (const c of fixtureCases(undefined, { set })) files.push(...c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump'));
  }
  return files;
}

test('readMemory equals `hloscope memory --json` byte for byte', { skip: skipWasm || (!hasCli && 'SKIPPED: no native CLI') }, () => {
  if (noShared) console.log(`${noShared} (the shared part)`);
  const files = memoryTexts();
  assert.ok(files.length >= 52);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const native = execFileSync(cli, ['memory', '--json', f], { encoding: 'utf8', maxBuffer: 1 << 28 }).trimEnd();
    // the CLI joins a dump's report to the optimized HLO beside it; the API is handed it, and the
    // file's name (a buffer assignment's backend from XLA's dump name, issue 35)
    const sib = f.replace(/-(buffer-assignment|memory-usage-report)\.txt$/, '.txt');
    const hlo = sib !== f && existsSync(sib) ? readFileSync(sib, 'utf8') : '';
    assert.equal(api.readMemoryJSON(text, hlo, f), native, f);
  }
});

test('buffer assignment totals equal the usage report totals (our fixtures)', { skip: skipWasm }, () => {
  let pairs = 0;
  for (const f of memoryTexts().filter((x) => x.endsWith('-buffer-assignment.txt') && x.includes('/fixtures/'))) {
    const r = f.replace(/-buffer-assignment\.txt$/, '-memory-usage-report.txt');
    if (!existsSync(r)) continue;
    const ba = api.readMemory(readFileSync(f, 'utf8'));
    const rep = api.readMemory(readFileSync(r, 'utf8'));
    assert.equal(ba.kind, 'buffer_assignment');
    assert.equal(rep.kind, 'memory_usage_report');
    assert.equal(ba.totals.allocated, rep.totals.total_bytes_used, f);
    // joined to the optimized HLO beside it: every value names an instruction of the module
    const sib = f.replace(/-buffer-assignment\.txt$/, '.txt');
    if (existsSync(sib)) {
      const joined = api.readMemory(readFileSync(f, 'utf8'), readFileSync(sib, 'utf8'));
      const values = joined.allocations.flatMap((a) => a.values || []);
      assert.ok(values.length > 0 && values.every((v) => Number.isInteger(v.line) && v.opcode), f);
      assert.equal(joined.totals.values_joined, values.length);
    }
    pairs++;
  }
  assert.ok(pairs >= 50, `${pairs} pairs`);
});

test('the fixed keys, a TPU message in numbers, and text of another kind refused', { skip: skipWasm }, () => {
  const m = api.readMemory('XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 63.80G of 30.75G hbm. Exceeded hbm capacity by 33.05G.\n');
  assert.deepEqual(Object.keys(m).slice(0, 11), ['kind', 'backend', 'memory_space', 'requested_bytes', 'used_bytes',
    'capacity_bytes', 'exceeded_bytes', 'allocations', 'totals', 'explanation', 'warnings']);
  assert.equal(m.kind, 'oom');
  assert.equal(m.memory_space, 'hbm');
  assert.equal(m.capacity_bytes, Math.round(30.75 * 2 ** 30));
  assert.equal(m.requested_bytes, null);
  for (const bad of ['RESOURCE_EXHAUSTED: Quota exceeded for quota metric', 'just some prose about memory']) {
    assert.throws(() => api.readMemory(bad), (e) => e.code === 'HS_E_FORMAT' && /not an XLA memory message/.test(e.message));
  }
});

test('layout() and layouts() in words, as the CLI prints them', { skip: skipWasm || (!hasCli && 'SKIPPED: no native CLI') }, () => {
  const t = 'bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)}';
  const l = api.layout(t);
  assert.equal(l.words, 'row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on TPU)');
  assert.equal(JSON.stringify(l), execFileSync(cli, ['layout', '--json', t], { encoding: 'utf8' }).trimEnd());
  assert.throws(() => api.layout('f32[2]{0:Q(1)}'), (e) => e.code === 'HS_E_SYNTAX' && e.column === 10);
  const files = sharedCaptures('tpu-layouts');
  files.push(path.join(root, 'fixtures/cpu-jax-0.10.2/softmax/after_optimizations.txt'));
  for (const f of files) {
    const native = execFileSync(cli, ['layouts', '--json', f], { encoding: 'utf8' }).trimEnd();
    assert.equal(JSON.stringify(api.layouts(readFileSync(f, 'utf8'))), native, f);
  }
});

test('a report joined with an HLO that does not parse: read, not joined, and the same warning in the CLI and the page (issue 33)', { skip: skipWasm || (!hasCli && `SKIPPED: no native CLI at ${cli}`) }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-join-'));
  try {
    const bad = 'HloModule broken\n\nENTRY %e {\n  %x = f32[ parameter(0)\n}\n';
    writeFileSync(path.join(dir, 'bad.txt'), bad);
    const reports = [];
    for (const set of ['cpu-jax-0.4.38']) {
      for (const c of fixtureCases(undefined, { set })) reports.push(...c.files(/-buffer-assignment\.txt$/, 'dump'));
    }
    assert.ok(reports.length > 0, 'a buffer assignment among the fixtures');
    for (const r of reports.slice(0, 3)) {
      const out = spawnSync(cli, ['memory', '--json', r, path.join(dir, 'bad.txt')], { encoding: 'utf8' });
      assert.equal(out.status, 0, out.stderr);
      const page = api.readMemoryJSON(readFileSync(r, 'utf8'), bad, path.basename(r));
      assert.equal(page, out.stdout.trimEnd(), 'the page reads the same as the CLI');
      const w = JSON.parse(page).warnings.filter((x) => x.code === 'HS_W_JOIN_SKIPPED');
      assert.equal(w.length, 1);
      assert.match(w[0].message, /does not parse at line 4, column 13 \(HS_E_SYNTAX: /);
      const plain = JSON.parse(api.readMemoryJSON(readFileSync(r, 'utf8'), '', path.basename(r)));
      assert.equal(JSON.parse(page).allocations.length, plain.allocations.length, 'the report is read all the same');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
