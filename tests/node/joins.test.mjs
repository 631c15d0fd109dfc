// The parse-once joins of the JS API (issue 33 item 6, the review's "the JS API drops C's
// parse-once joins"): readLlvm / llvmJSON and readMemory / readMemoryJSON take the optimized HLO
// as an HloDocument already parsed as well as its text, and a document has its own layouts().
// Each form gives byte for byte the JSON of the text form (which parses the HLO itself), on every
// levels fixture (every .ll part of both levels joined to one document) and on our fixtures'
// buffer assignments and usage reports; the document is borrowed, not freed, and a freed one is
// refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { fixtureCases, levelsFixtures } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = !wasmBuilt && 'wasm not built (bash tools/build-wasm.sh)';
const read = (f) => readFileSync(f, 'utf8');

test('every .ll of a module joined to one parse of its HLO: the JSON of the text form', { skip }, () => {
  let joined = 0;
  for (const c of levelsFixtures()) {
    const [hloFile] = c.files(/after_optimizations\.txt$/);
    const lls = c.files(/\.ll$/);
    if (!hloFile || !lls.length) continue;
    const hloText = read(hloFile);
    const doc = api.parse(hloText);
    try {
      for (const ll of lls) {
        const text = read(ll);
        assert.equal(api.llvmJSON(text, doc), api.llvmJSON(text, hloText), `${c.label} ${path.basename(ll)}`);
        assert.deepEqual(api.readLlvm(text, doc), api.readLlvm(text, hloText));
        joined++;
      }
      // the joins borrowed the document: it still answers
      assert.equal(doc.summary().format, 'hlo');
      assert.equal(JSON.stringify(doc.layouts()), JSON.stringify(api.layouts(hloText)), `${c.label} layouts`);
    } finally {
      doc.free();
    }
    assert.throws(() => api.readLlvm(read(lls[0]), doc), (e) => e instanceof api.HloscopeError && e.code === 'HS_E_FREED');
  }
  assert.ok(joined >= 10, `only ${joined} .ll files joined`);
});

test('an LLVM IR error says its side (the LLVM IR) with a document too', { skip }, () => {
  const c = levelsFixtures().find((x) => x.files(/after_optimizations\.txt$/).length);
  const doc = api.parse(read(c.files(/after_optimizations\.txt$/)[0]));
  try {
    const e = (() => { try { api.readLlvm('HloModule m\n', doc); } catch (err) { return err; } return null; })();
    assert.ok(e instanceof api.HloscopeError, 'HLO is not LLVM IR');
    const t = (() => { try { api.readLlvm('HloModule m\n', read(c.files(/after_optimizations\.txt$/)[0])); } catch (err) { return err; } return null; })();
    assert.deepEqual([e.code, e.line, e.column, e.side, e.message], [t.code, t.line, t.column, t.side, t.message]);
  } finally {
    doc.free();
  }
});

test('a memory text joined to a document: the JSON of the text form', { skip }, () => {
  let joined = 0;
  for (const set of ['cpu-jax-0.4.38', 'cpu-jax-0.10.2']) {
    for (const c of fixtureCases(undefined, { set })) {
      const reports = c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump');
      const [hloFile] = c.files(/after_optimizations\.txt$/, 'dump');
      if (!reports.length || !hloFile) continue;
      const hloText = read(hloFile);
      const doc = api.parse(hloText);
      try {
        for (const r of reports) {
          const name = path.basename(r);
          const byDoc = api.readMemoryJSON(read(r), doc, name);
          assert.equal(byDoc, api.readMemoryJSON(read(r), hloText, name), `${c.label} ${name}`);
          joined += JSON.parse(byDoc).totals?.values_joined ? 1 : 0;
        }
        assert.deepEqual(api.readMemory(read(reports[0]), doc), api.readMemory(read(reports[0]), hloText));
      } finally {
        doc.free();
      }
    }
  }
  assert.ok(joined >= 1, 'no memory text was joined to its HLO');
});
