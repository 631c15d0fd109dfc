// The wasm build under Node: the same fixture cases as the native tests, and byte-for-byte the
// same JSON as the native CLI (`hloscope <kind> --json`). Skips with a message when a build is
// missing; `npm test` builds both first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fixtureCases, sharedCaptures } from '../fixtures.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const captures = path.resolve(root, '../shared/captures/tpu-v6e');
const hasCaptures = existsSync(captures);

const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

/** Every dump we can test: the shared TPU captures (in place) and our own fixtures. */
function inputs() {
  const files = hasCaptures ? sharedCaptures('tpu-v6e') : [];
  for (const c of fixtureCases()) {
    for (const name of ['after_optimizations.txt', 'stablehlo.mlir', 'stablehlo.debug.mlir']) {
      const p = c.file(name);
      if (p && statSync(p).size < 4e6) files.push(p);
    }
  }
  return files;
}

function pairs() {
  const out = [];
  if (hasCaptures) {
    for (const p of ['jit_naive_attention', 'jit_gelu_mlp', 'jit_row_softmax']) {
      out.push([path.join(captures, `${p}.stablehlo.mlir`), path.join(captures, `${p}.after_optimizations.trimmed.txt`)]);
    }
  }
  for (const c of fixtureCases()) {
    const l = c.file('stablehlo.mlir');
    const r = c.file('after_optimizations.txt');
    if (l && r) out.push([l, r]);
  }
  return out;
}

const skipWasm = !wasmBuilt && 'wasm not built (npm run build:wasm)';
const skipBoth = skipWasm || (!existsSync(cli) && 'native CLI not built (npm run build:native)');

test('the TPU attention capture gives the course figures through the JS API', { skip: skipWasm || (!hasCaptures && 'SKIPPED: ../shared/captures is absent') }, () => {
  const left = readFileSync(path.join(captures, 'jit_naive_attention.stablehlo.mlir'), 'utf8');
  const right = readFileSync(path.join(captures, 'jit_naive_attention.after_optimizations.trimmed.txt'), 'utf8');
  const x = api.xray(left, right);
  assert.equal(x.summary.stat, '21 lines in -> 31 lines decided · 3 fusion ops · 3 carry bf16[1024,1024]');
  assert.equal(x.summary.big.memory_space, 1);
  const doc = api.parse(right);
  assert.equal(doc.format, 'hlo');
  const f = doc.fusions();
  assert.equal(f.fusion_computations, 3);
  assert.equal(f.fusion_ops, 3);
  assert.equal(f.fusion_ops_nested, 2);
  const s = doc.spills();
  assert.deepEqual(s.big && [s.big.type, s.big.bytes], ['bf16[1024,1024]', 2097152]);
  assert.equal(s.carriers.length, 3);
  assert.equal(doc.summary().warnings.length, 1);
  doc.free();
  doc.free(); // idempotent
  assert.throws(() => doc.fusions(), { name: 'HloscopeError', code: 'HS_E_FREED' });
});

test('CLI and wasm agree byte for byte on every fixture', { skip: skipBoth }, () => {
  let n = 0;
  for (const file of inputs()) {
    const text = readFileSync(file, 'utf8');
    const doc = api.parse(text);
    for (const kind of ['summary', 'fusions', 'spills', 'computations']) {
      const native = execFileSync(cli, [kind, '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }).replace(/\n$/, '');
      assert.equal(doc.json(kind), native, `${path.relative(root, file)}: ${kind}`);
      n++;
    }
    doc.free();
  }
  for (const [l, r] of pairs()) {
    const native = execFileSync(cli, ['xray', '--json', l, r], { encoding: 'utf8', maxBuffer: 1 << 28 }).replace(/\n$/, '');
    assert.equal(api.xrayJSON(readFileSync(l, 'utf8'), readFileSync(r, 'utf8')), native, `xray ${path.relative(root, r)}`);
    n++;
  }
  assert.ok(n > 0);
});

test('parse errors are typed and agree with the CLI', { skip: skipBoth }, () => {
  const cases = [
    'HloModule m\n\nENTRY %main {\n  %a = f32[2]{0} parameter(0)\n  garbage here\n}\n',
    'HloModule m\nENTRY %e {\n  %a = f32[2 parameter(0)\n}\n',
    'hello world\n',
    '',
  ];
  for (const text of cases) {
    let err;
    try { api.parse(text); } catch (e) { err = e; }
    assert.ok(err instanceof api.HloscopeError, JSON.stringify(text));
    const r = spawnSync(cli, ['summary', '-'], { input: text, encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`^-:${err.line}:${err.column}: ${err.code}: `));
  }
});

test('xray errors say which side failed', { skip: skipWasm }, () => {
  assert.throws(() => api.xray('module @m {\n func.func @main() {\n return\n }\n}\n', 'not a dump'), (e) => e.side === 'right' && e.code === 'HS_E_FORMAT');
});

test('non-ASCII and lone surrogates go in without corrupting the text', { skip: skipWasm }, () => {
  const text = 'HloModule m\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  ROOT %a = f32[2]{0} parameter(0), metadata={op_name="héllo \uD800 <img src=x onerror=alert(1)>"}\n}\n';
  const doc = api.parse(text);
  assert.equal(doc.summary().instructions, 1);
  doc.free();
});

test('a large text (50 MB of real modules) goes in without quadratic copies', { skip: skipWasm || (!hasCaptures && 'SKIPPED: ../shared/captures is absent') }, () => {
  const one = readFileSync(path.join(captures, 'jit_naive_attention.after_optimizations.with_frame_tables.txt'), 'utf8');
  const k = Math.ceil(50e6 / one.length);
  const big = Array(k).fill(one).join('\n');
  const t0 = performance.now();
  const doc = api.parse(big);
  const f = doc.fusions();
  doc.free();
  const ms = performance.now() - t0;
  assert.equal(f.fusion_ops, 3 * k);
  assert.equal(f.fusion_computations, 3 * k);
  console.log(`# parsed ${(big.length / 1e6).toFixed(1)} MB (${k} modules) in ${ms.toFixed(0)} ms through the JS API`);
});

test('remat marks in op_name are named in the x-ray (the remat fixture: jax.checkpoint)', { skip: skipWasm }, () => {
  const dir = path.join(root, 'fixtures/cpu-jax-0.4.38/remat');
  if (!existsSync(dir)) return;
  const x = api.xray(readFileSync(path.join(dir, 'stablehlo.mlir'), 'utf8'), readFileSync(path.join(dir, 'after_optimizations.txt'), 'utf8'));
  assert.ok(x.right.some((l) => l.note.includes('remat mark')), 'a line names its remat mark');
});

test('a blank left side x-rays the optimized HLO alone, in wasm and in the CLI alike', { skip: skipBoth || (!hasCaptures && 'SKIPPED: ../shared/captures is absent') }, () => {
  const right = path.join(captures, 'jit_naive_attention.after_optimizations.trimmed.txt');
  const x = api.xrayJSON(' \n', readFileSync(right, 'utf8'));
  const empty = path.join(root, 'build/empty-left.txt');
  writeFileSync(empty, '');
  const native = execFileSync(cli, ['xray', '--json', empty, right], { encoding: 'utf8' }).replace(/\n$/, '');
  assert.equal(x, native);
  const j = JSON.parse(x);
  assert.equal(j.summary.stat, '31 lines decided · 3 fusion ops · 3 carry bf16[1024,1024]');
  assert.deepEqual(j.left, []);
  assert.equal(j.right.length, 31);
});
