// Issue 17, item 10: a dump read as bytes (parseBytes, analyzeBytes), never one JS string, so
// files past the browser's string limit (about 512 MB) are read up to the core's 4 GB. The
// counts come from XLA's own HloModuleProto (the fixture's oracle.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BYTES, analyzeBytes, tooLargeForCore } from '../../notebook/src/views/analysis-core.js';
import { repoRoot } from '../fixtures.mjs';

const dir = join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.mjs'));

function oracleCounts() {
  const o = JSON.parse(readFileSync(join(dir, 'oracle.json'), 'utf8')).modules[0];
  return { computations: o.computations.length, instructions: o.computations.reduce((n, c) => n + c.instruction_count, 0) };
}

/** The file's bytes cut into chunks of `n` (a stream's parts; cuts fall inside lines and UTF-8). */
function chunksOf(bytes, n) {
  const out = [];
  for (let i = 0; i < bytes.length; i += n) out.push(new Uint8Array(bytes.subarray(i, i + n)));
  return out;
}

test('parseBytes reads a dump given in chunks: the counts are XLA\'s', { skip: !haveWasm && 'the wasm core is not built' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const bytes = readFileSync(join(dir, 'after_optimizations.txt'));
  const want = oracleCounts();
  for (const n of [1, 777, bytes.length]) {
    const doc = api.parseBytes(chunksOf(bytes, n));
    try {
      const s = doc.summary();
      assert.equal(s.computations, want.computations, `chunks of ${n}`);
      assert.equal(s.instructions, want.instructions, `chunks of ${n}`);
    } finally {
      doc.free();
    }
  }
  assert.throws(() => api.parseBytes('text'), /Uint8Array/);
  // A bad dump as bytes: the same error as the text path, with line and column.
  let textErr;
  let bytesErr;
  const bad = readFileSync(join(dir, 'after_optimizations.txt'), 'utf8').replace(/ROOT /, 'ROOT = ');
  try { api.parse(bad).free(); } catch (e) { textErr = e; }
  try { api.parseBytes(new TextEncoder().encode(bad)).free(); } catch (e) { bytesErr = e; }
  assert.ok(textErr && bytesErr);
  assert.equal(bytesErr.message, textErr.message);
  assert.equal(bytesErr.line, textErr.line);
});

test('analyzeBytes: the core reads every byte, the page gets a head of the text', { skip: !haveWasm && 'the wasm core is not built' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const bytes = readFileSync(join(dir, 'after_optimizations.txt'));
  const text = bytes.toString('utf8');
  const out = analyzeBytes(api, chunksOf(bytes, 1000), () => {}, 2000);
  const want = oracleCounts();
  assert.equal(out.error, undefined);
  assert.equal(out.format, 'hlo');
  assert.equal(out.summary.instructions, want.instructions);
  assert.equal(out.bytes, bytes.length);
  assert.equal(out.lines, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  // The head ends at a line break within the first 2000 bytes, and is the text's beginning.
  assert.ok(out.head_of.bytes <= 2000 && out.head_of.bytes > 1000, `head of ${out.head_of.bytes} bytes`);
  assert.equal(bytes[out.head_of.bytes - 1], 10);
  assert.equal(out.head_of.lines, text.slice(0, out.head_of.bytes).split('\n').length - 1);
  assert.equal(out.starts.length - 1, out.head_of.lines);
  assert.ok(out.fusions.fusion_ops > 0);
});

test('the page refuses only files past the core\'s memory, and says why', () => {
  assert.equal(tooLargeForCore(610 * 2 ** 20), null);
  assert.equal(tooLargeForCore(MAX_BYTES), null);
  assert.match(tooLargeForCore(5 * 2 ** 30), /^this file is 5\.00 GiB: the page's core \(WebAssembly\) has 4 GiB of memory/);
});
