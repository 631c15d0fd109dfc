// The wasm build under Node: the same fixture cases as the native tests, and byte-for-byte the
// same JSON as the native CLI (`hloscope <kind> --json`). Skips with a message when a build is
// missing; `npm test` builds both first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fixtureCases, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const noCaptures = sharedAbsent('tpu-v6e');
const capture = (name) => sharedPath(`captures/tpu-v6e/${name}`);

const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

/** Every dump we can test: the shared TPU captures (in place) and our own fixtures. */
function inputs() {
  const files = sharedCaptures('tpu-v6e');
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
  if (!noCaptures) {
    for (const p of ['jit_naive_attention', 'jit_gelu_mlp', 'jit_row_softmax']) {
      out.push([capture(`${p}.stablehlo.mlir`), capture(`${p}.after_optimizations.trimmed.txt`)]);
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

test('the TPU attention capture gives the course figures through the JS API', { skip: skipWasm || noCaptures }, () => {
  const left = readFileSync(capture('jit_naive_attention.stablehlo.mlir'), 'utf8');
  const right = readFileSync(capture('jit_naive_attention.after_optimizations.trimmed.txt'), 'utf8');
  const x = api.xray(left, right);
  assert.equal(x.summary.stat, '21 lines in -> 31 lines decided · 3 fusion ops · 3 carry bf16[1024,1024]');
  assert.equal(x.summary.big.memory_space, 1);
  const doc = api.parse(right);
  assert.equal(doc.format, 'hlo');
  const f = doc.fusions();
  assert.equal(f.fusion_computations, 3);
  assert.equal(f.fusion_ops, 3);
  assert.equal(f.fusion_ops_nested, 2);
  // a bounded list (the page's first rows): the same first rows, and how many there are
  const b = doc.fusions({ rows: 2 });
  assert.deepEqual(b.fusions, f.fusions.slice(0, 2));
  assert.equal(b.fusions_total, f.fusions.length);
  assert.equal(f.fusions_total, undefined);
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

/**
 * Runs fn with TextEncoder.prototype.encodeInto counted (the one way the API copies a string
 * into wasm memory): { calls, read (UTF-16 units), written (bytes) } over every call.
 */
function countingCopies(fn) {
  const real = TextEncoder.prototype.encodeInto;
  const n = { calls: 0, read: 0, written: 0 };
  TextEncoder.prototype.encodeInto = function (s, into) {
    const r = real.call(this, s, into);
    n.calls++;
    n.read += r.read;
    n.written += r.written;
    return r;
  };
  try {
    return { result: fn(), copies: n };
  } finally {
    TextEncoder.prototype.encodeInto = real;
  }
}

/** XLA's own counts for a fixture's module (oracle.json): fusion instructions and fused computations. */
function oracleFusions(dir) {
  const m = JSON.parse(readFileSync(path.join(dir, 'oracle.json'), 'utf8')).modules[0];
  return { ops: m.computations.flatMap((c) => c.instructions).filter((i) => i.opcode === 'fusion').length, computations: m.fusion_computations.length };
}

// Linear, not quadratic: the text crosses into wasm memory in at most two encodeInto calls (a
// second only when the first guess of its UTF-8 size was short), each UTF-16 unit read once and
// each UTF-8 byte written once; so the bytes copied equal the text's UTF-8 size. The 50 MB of
// real modules: our attention fixture (counts from XLA's oracle.json) and, when ../shared is
// there, the TPU capture with frame tables (3 fusions, hand-checked, as the course says).
test('a large text (50 MB of real modules) goes in without quadratic copies', { skip: skipWasm }, () => {
  const fx = path.join(root, 'fixtures/cpu-jax-0.4.38/attention');
  const sources = [[path.join(fx, 'after_optimizations.txt'), oracleFusions(fx)]];
  const tpu = capture('jit_naive_attention.after_optimizations.with_frame_tables.txt');
  if (tpu) sources.push([tpu, { ops: 3, computations: 3 }]);
  else console.log(`${noCaptures}: the TPU capture's part is not run`);
  for (const [file, want] of sources) {
    const one = readFileSync(file, 'utf8');
    const k = Math.ceil(50e6 / one.length);
    const big = Array(k).fill(one).join('\n');
    const { result: f, copies } = countingCopies(() => {
      const doc = api.parse(big);
      try { return doc.fusions(); } finally { doc.free(); }
    });
    assert.equal(f.fusion_ops, want.ops * k, file);
    assert.equal(f.fusion_computations, want.computations * k, file);
    assert.equal(copies.calls, 1, `${file}: an ASCII text goes in with one encodeInto`);
    assert.equal(copies.read, big.length, 'each UTF-16 unit read once');
    assert.equal(copies.written, Buffer.byteLength(big), 'each UTF-8 byte written once');
  }
  // Text whose UTF-8 is much longer than its length (3 bytes a character): the first guess is
  // short, the rest goes in with one more call after one realloc, still once per byte.
  const wide = `HloModule m\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  ROOT %a = f32[2]{0} parameter(0), metadata={op_name="${'\u4e2d'.repeat(4e6)}"}\n}\n`;
  const { result: s, copies } = countingCopies(() => {
    const doc = api.parse(wide);
    try { return doc.summary(); } finally { doc.free(); }
  });
  assert.equal(s.instructions, 1);
  assert.equal(copies.calls, 2, 'one realloc: the rest written after it');
  assert.equal(copies.read, wide.length);
  assert.equal(copies.written, Buffer.byteLength(wide));
});

test('remat marks in op_name are named in the x-ray (the remat fixture: jax.checkpoint)', { skip: skipWasm }, () => {
  const dir = path.join(root, 'fixtures/cpu-jax-0.4.38/remat');
  assert.ok(existsSync(dir), `${dir} is missing: an in-repo fixture`);
  const x = api.xray(readFileSync(path.join(dir, 'stablehlo.mlir'), 'utf8'), readFileSync(path.join(dir, 'after_optimizations.txt'), 'utf8'));
  assert.ok(x.right.some((l) => l.note.includes('remat mark')), 'a line names its remat mark');
});

test('a blank left side x-rays the optimized HLO alone, in wasm and in the CLI alike', { skip: skipBoth || noCaptures }, () => {
  const right = capture('jit_naive_attention.after_optimizations.trimmed.txt');
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
