// Big inputs (issue 17, item 10): a file past the longest string a browser holds is refused up
// front with the limit and why (not "Invalid string length"), and the analysis names each step
// as it starts, so a page can say "parsing · 122 MB" instead of "0 B of 122 MB".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUSION_ROWS, MAX_TEXT, analyzeText, tooLargeForText } from '../../notebook/src/views/analysis-core.js';
import { repoRoot } from '../fixtures.mjs';

test('a 610 MB file is refused with the limit and what to do', () => {
  const msg = tooLargeForText(610 * 2 ** 20);
  assert.match(msg, /^this file is 610 MiB: a browser holds at most 512 MiB of text in one string/);
  assert.match(msg, /Split it .*command-line tool/);
  assert.equal(tooLargeForText(122 * 2 ** 20), null);
  assert.equal(tooLargeForText(MAX_TEXT), null);
  // The limit is the engine's own: one more character than it does not fit in a string.
  assert.throws(() => 'x'.repeat(MAX_TEXT + 1), RangeError);
});

const wasm = join(repoRoot, 'wasm/gen/hloscope_core.wasm');
test('the analysis names its steps as they start', { skip: !existsSync(wasm) && 'wasm not built (npm run build:wasm)' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const stages = [];
  const out = analyzeText(api, readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/softmax/after_optimizations.txt'), 'utf8'), (s) => stages.push(s));
  assert.equal(out.format, 'hlo');
  assert.deepEqual(stages, ['parsing', 'summarising', 'counting fusions', 'finding the big intermediate']);
});

// A file's own bytes are what the core parses (the worker hands them over with the text): the
// analysis is the same as of the text, the fusion rows capped at FUSION_ROWS with the total said.
test('the analysis of a text and of its bytes agree; the fusion rows are capped, all counted', { skip: !existsSync(wasm) && 'wasm not built (npm run build:wasm)' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const one = readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt'));
  const text = Array(Math.ceil((FUSION_ROWS + 10) / 3)).fill(one.toString('utf8')).join('\n');
  const bytes = Buffer.from(text, 'utf8');
  const a = analyzeText(api, text);
  const b = analyzeText(api, text, undefined, '', [bytes.subarray(0, 1000), bytes.subarray(1000)]);
  const doc = api.parse(text);
  const all = doc.fusions();
  doc.free();
  assert.ok(all.fusions.length > FUSION_ROWS, `${all.fusions.length} fusions`);
  for (const x of [a, b]) {
    assert.equal(x.fusions_total, all.fusions.length);
    assert.deepEqual(x.fusions.fusions, all.fusions.slice(0, FUSION_ROWS));
    assert.equal(x.fusions.fusion_ops, all.fusion_ops);
    assert.equal(x.error, undefined);
  }
  const plain = (x) => JSON.stringify({ ...x, starts: [...x.starts] });
  assert.equal(plain(b), plain(a));
});
