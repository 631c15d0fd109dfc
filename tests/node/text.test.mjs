// Issue 33 item 1: the core renders every answer. `text(kind, json)` in JS (the wasm's hs_text) is
// byte for byte what the native CLI prints for the same input: every document kind on every fixture,
// the x-ray, profiles and timelines, memory texts, LLVM IR, layouts, dump folders and the diff, and
// the GPU/TPU captures of ../shared when they are there. The renderers are the CLI's own (one C
// function per result kind), so this holds the wasm build and its marshalling, not a second port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { diffPairs, fixtureCases, levelsFixtures, repoRoot, sharedCaptures, sharedPath } from '../fixtures.mjs';

const cli = join(repoRoot, 'build/native/hloscope');
const wasmBuilt = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.wasm'));
const skip = !existsSync(cli) ? `no native CLI at ${cli} (npm run build:native)`
  : !wasmBuilt ? 'no wasm build (npm run build:wasm)' : false;
const api = skip ? null : await import('../../wasm/hloscope.mjs');
if (api) await api.load();

/** The native CLI's standard output for args (it must succeed). */
function native(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `hloscope ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const read = (f) => readFileSync(f, 'utf8');
const DOC_KINDS = ['summary', 'fusions', 'spills', 'computations', 'decisions', 'layouts'];

test('every document kind of every fixture: text() is the CLI\'s text', { skip }, () => {
  let n = 0;
  for (const c of fixtureCases()) {
    for (const f of [c.file('after_optimizations.txt'), c.file('stablehlo.mlir'), c.file('jaxpr.txt')].filter(Boolean)) {
      const doc = api.parse(read(f));
      try {
        for (const k of DOC_KINDS) {
          assert.equal(doc.text(k, f), native(k, f), `${k} ${f}`);
          n++;
        }
        if (doc.format === 'hlo') assert.equal(doc.text('overlap', f), native('overlap', f)), n++;
      } finally {
        doc.free();
      }
    }
  }
  assert.ok(n > 500, `${n} texts compared`);
});

test('the x-ray, the diff, memory texts, LLVM IR and a layout: text() is the CLI\'s text', { skip }, () => {
  let n = 0;
  for (const c of fixtureCases()) {
    const [l, r] = [c.file('stablehlo.mlir'), c.file('after_optimizations.txt')];
    if (l && r) {
      const [lt, rt] = [read(l), read(r)];
      assert.equal(api.text('xray', api.xrayJSON(lt, rt), { name: l, nameB: r, left: lt, right: rt }), native('xray', l, r), `xray ${l}`);
      n++;
    }
    for (const m of c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump')) {
      assert.equal(api.text('memory', api.readMemoryJSON(read(m), read(r), basename(m))), native('memory', m, r), `memory ${m}`);
      n++;
    }
  }
  for (const p of diffPairs()) {
    const [a, b] = [p.file('a.after_optimizations.txt'), p.file('b.after_optimizations.txt')];
    assert.equal(api.text('diff', api.diffJSON(read(a), read(b)), { name: a, nameB: b }), native('diff', a, b), `diff ${p.label}`);
    n++;
  }
  for (const c of levelsFixtures()) {
    for (const ll of c.files(/\.ll$/)) {
      assert.equal(api.text('llvm', api.llvmJSON(read(ll)), { name: ll }), native('llvm', ll), `llvm ${ll}`);
      n++;
    }
  }
  for (const f of sharedCaptures('memory', (x) => x.endsWith('.txt'))) {
    let json;
    try {
      json = api.readMemoryJSON(read(f), '', basename(f));
    } catch {
      continue; // not a memory text: the CLI's error, tested elsewhere
    }
    assert.equal(api.text('memory', json), native('memory', f), `memory ${f}`);
    n++;
  }
  const type = 'bf16[3,5]{0,1:T(8,128)(2,1)}';
  assert.equal(api.text('layout', api.layout(type)), native('layout', type));
  assert.ok(n > 40, `${n} texts compared`);
});

test('profiles and timelines (ours and the shared GPU/TPU ones): text() is the CLI\'s text', { skip }, () => {
  const files = fixtureCases().flatMap((c) => [c.file('profile.xplane.pb')].filter(Boolean));
  files.push(...sharedCaptures('profiles', (n) => n.endsWith('.xplane.pb')));
  let n = 0;
  for (const f of files) {
    const p = api.parseProfile(readFileSync(f));
    try {
      assert.equal(api.text('profile', p.json(), { name: f }), native('profile', f), `profile ${f}`);
      assert.equal(api.text('timeline', p.timelineJSON(), { name: f }), native('timeline', f), `timeline ${f}`);
      n += 2;
    } finally {
      p.free();
    }
  }
  assert.ok(n >= 10, `${n} texts compared`);
});

test('an x-ray of a shared TPU pair and an unknown kind', { skip }, (t) => {
  const l = sharedPath('captures/tpu-v6e/jit_naive_attention.stablehlo.mlir');
  const r = sharedPath('captures/tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt');
  if (l && r) {
    const [lt, rt] = [read(l), read(r)];
    assert.equal(api.text('xray', api.xrayJSON(lt, rt), { name: l, nameB: r, left: lt, right: rt }), native('xray', l, r));
  } else {
    t.diagnostic('../shared/captures/tpu-v6e is absent: the shared x-ray is not compared');
  }
  assert.throws(() => api.text('registry', '{}'), (e) => e instanceof api.HloscopeError && e.code === 'HS_E_ARG');
  assert.throws(() => api.text('fusions', 'not json'), (e) => e instanceof api.HloscopeError);
});
