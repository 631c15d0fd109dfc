// The HBM traffic estimate against XLA's own figure: `compiled.cost_analysis()["bytes accessed"]`,
// recorded by the capture in every fixture's oracle.json. Through the wasm build (the CLI prints
// the same bytes: wasm.test.mjs checks that).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fixtureCases } from '../fixtures.mjs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const built = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));

test('hbm_bytes (read + written) agrees with XLA cost_analysis "bytes accessed" on every fixture', { skip: !built && 'wasm not built (npm run build:wasm)' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  let n = 0;
  let exact = 0;
  const off = [];
  for (const c of fixtureCases()) {
    const { set: v, id } = c;
    if (!c.file('oracle.json')) continue;
    const xla = JSON.parse(readFileSync(c.file('oracle.json'), 'utf8')).cost_analysis?.['bytes accessed'];
    if (!xla) continue;
    const doc = api.parse(readFileSync(c.file('after_optimizations.txt'), 'utf8'));
    const { read, written } = doc.spills().hbm_bytes;
    doc.free();
    const ratio = (read + written) / xla;
    n++;
    if (read + written === xla) exact++;
    else off.push(`${v}/${id}: ours ${read + written}, XLA ${xla} (${((ratio - 1) * 100).toFixed(3)}%)`);
    assert.ok(Math.abs(ratio - 1) < 0.005, `${v}/${id}: ours ${read + written} vs XLA ${xla}`);
  }
  assert.ok(n >= 50, `fixtures with a cost analysis: ${n}`);
  assert.ok(exact >= 40, `exact on ${exact} of ${n}`);
  console.log(`# HBM estimate equals XLA's bytes accessed on ${exact} of ${n} fixtures; within 0.5% on the rest:\n# ${off.join('\n# ')}`);
});
