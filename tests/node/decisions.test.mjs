// The decisions analysis through the wasm API, as GYM·03 calls it (parse(text).decisions()):
//   - every fixture set (jax 0.4.38, 0.10.2 and the newest): the decisions of jaxpr.txt equal
//     what jax's own equation record (jaxpr_eqns.json) implies (kind, dtypes, shape, nesting
//     path, order), and the HLO ones agree with XLA's oracle.json (tests/oracle/hlo/decisions.mjs);
//   - the CLI (`hloscope decisions --json`) prints the same bytes for the jaxpr, the StableHLO and
//     the optimized HLO of every 0.4.38 program, so the first upcast, broadcast and remat lines
//     the drill marks are the ones the CLI shows;
//   - the drill's words (spot-words.js) on that output; a jaxpr cut mid-equation.
// Skips, saying why, when the wasm build or the native CLI is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { checkAll, wasmReader } from '../oracle/hlo/decisions.mjs';
import { fixtureCases, fixtureSets } from '../fixtures.mjs';
import { firstDecision, targetsOf, promptWords, revealSentence, wrongWords } from '../../notebook/src/drills/spot-words.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const apiFile = join(root, 'wasm/hloscope.mjs');
const cli = join(root, 'build/native/hloscope');
const noWasm = !existsSync(join(root, 'wasm/gen/hloscope_core.wasm')) ? 'the wasm core is not built (npm run build:wasm)' : false;
const noCli = !existsSync(cli) ? 'the native CLI is not built (npm run build:native)' : false;

let api = null;
async function hs() {
  if (!api) {
    api = await import(apiFile);
    await api.load();
  }
  return api;
}

test('decisions equal jax\'s equations and XLA\'s instructions on every fixture set', { skip: noWasm }, async () => {
  const { checked, mismatches } = await checkAll(await wasmReader(apiFile));
  const sets = fixtureSets();
  assert.ok(sets.length >= 3, `three jax versions expected, found ${sets.join(', ')}`);
  assert.ok(checked >= 26 * sets.length, `only ${checked} fixtures have a jaxpr_eqns.json`);
  assert.deepEqual(mismatches, []);
});

test('the CLI and the wasm API print the same decisions, in all three formats', { skip: noWasm || noCli }, async () => {
  const { parse } = await hs();
  let firsts = 0;
  for (const c of fixtureCases(undefined, { set: 'cpu-jax-0.4.38' })) {
    if (c.id === 'transformer_step') continue;
    for (const f of ['jaxpr.txt', 'stablehlo.mlir', 'after_optimizations.txt']) {
      const file = c.file(f);
      if (!file) continue;
      const doc = parse(readFileSync(file, 'utf8'));
      let js;
      try { js = doc.json('decisions'); } finally { doc.free(); }
      const native = execFileSync(cli, ['decisions', file, '--json'], { encoding: 'utf8' }).trimEnd();
      assert.equal(js, native, `${c.id}/${f}`);
      const d = JSON.parse(js).decisions;
      for (const t of ['upcast', 'broadcast', 'remat']) if (firstDecision(d, t)) firsts++;
    }
  }
  assert.ok(firsts > 40, `few first decisions found: ${firsts}`);
});

test('the drill\'s words on the core\'s decisions', { skip: noWasm }, async () => {
  const { parse } = await hs();
  const text = readFileSync(join(root, 'fixtures/cpu-jax-0.4.38/mlp/jaxpr.txt'), 'utf8');
  const doc = parse(text);
  const r = doc.decisions();
  doc.free();
  assert.deepEqual(targetsOf(r.decisions), ['upcast', 'broadcast']);
  const up = firstDecision(r.decisions, 'upcast');
  // the line the text itself gives: the first convert_element_type equation
  assert.equal(up.line, text.split('\n').findIndex((l) => l.includes('= convert_element_type')) + 1);
  assert.equal(promptWords('broadcast'), 'click the first line where the framework makes a hidden broadcast explicit');
  assert.match(revealSentence(up), new RegExp(`^line ${up.line}: convert_element_type carries the value from bf16 to f32`));
  const second = r.decisions.filter((d) => d.kind === 'upcast')[1];
  assert.match(wrongWords(r.decisions, second.line, 'upcast'), /an upcast too, but not the first one/);
  assert.match(wrongWords(r.decisions, 1, 'upcast'), /^line 1 is not an upcast/);
  const remat = parse(readFileSync(join(root, 'fixtures/cpu-jax-0.10.2/remat/jaxpr.txt'), 'utf8'));
  const rd = remat.decisions().decisions;
  remat.free();
  assert.deepEqual(targetsOf(rd), ['broadcast', 'remat']);
  assert.match(revealSentence(rd.find((d) => d.path === 'remat2')), /\(inside remat2\)$/);
});

test('a jaxpr cut mid-equation keeps the decisions read before the cut, with a warning', { skip: noWasm }, async () => {
  const { parse } = await hs();
  const text = readFileSync(join(root, 'fixtures/cpu-jax-0.4.38/layernorm/jaxpr.txt'), 'utf8');
  const whole = parse(text);
  const all = whole.decisions().decisions;
  whole.free();
  const lines = text.split('\n');
  const cutLine = all[all.length - 1].line; // cut inside the last decision's equation
  const cut = lines.slice(0, cutLine - 1).join('\n').length + 1 + Math.floor(lines[cutLine - 1].length / 2);
  const doc = parse(text.slice(0, cut));
  const r = doc.decisions();
  doc.free();
  assert.deepEqual(r.decisions, all.filter((d) => d.line < cutLine));
  assert.equal(r.warnings.at(-1).code, 'HS_W_TRUNCATED');
});
