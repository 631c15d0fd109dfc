// The drills' answers, checked against the compiler: for every GYM·13 program, the count the
// drill asks for (parse(text).fusions().fusion_computations, through the wasm API exactly as
// the page calls it) equals the number of fused computations XLA itself reports in the
// capture's oracle.json (modules[0].fusion_computations, written by XLA's own HLO parser).
// The reveal's words and lists are checked against the same census, and the x-ray round's
// target set against its definition.
//
// Skips, saying why, when the wasm build (npm run build:wasm) or the captures are missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { fixtureCases } from '../fixtures.mjs';
import { explainCensus, countChoices, programFromSource, targetLines, provenance } from '../../notebook/src/drills/words.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wasmFile = join(root, 'wasm/gen/hloscope_core.wasm');
const apiFile = join(root, 'wasm/hloscope.mjs');
const capDir = join(root, 'fixtures/cpu-jax-0.4.38');
const PROGRAMS = ['exp', 'chain', 'rowbcast', 'rowsum_sqrt', 'matmul', 'matmul_tanh', 'softmax', 'sincos'];

const noWasm = !existsSync(wasmFile) || !existsSync(apiFile)
  ? `the wasm core is not built (${existsSync(apiFile) ? 'wasm/gen/hloscope_core.wasm' : 'wasm/hloscope.mjs'} missing): run npm run build:wasm`
  : false;

function captureMissing(id, files = ['after_optimizations.txt', 'oracle.json']) {
  const gone = files.filter((f) => !existsSync(join(capDir, id, f)));
  return gone.length ? `capture fixtures/cpu-jax-0.4.38/${id} lacks ${gone.join(', ')}: run npm run capture` : false;
}

let api = null;
async function hs() {
  if (!api) {
    api = await import(apiFile);
    await api.load();
  }
  return api;
}

/** XLA's own fused computations for the first module, as the oracle lists them. */
function oracleFused(id) {
  const o = JSON.parse(readFileSync(join(capDir, id, 'oracle.json'), 'utf8'));
  const fc = o?.modules?.[0]?.fusion_computations;
  assert.ok(Array.isArray(fc), `${id}/oracle.json: modules[0].fusion_computations is not a list`);
  return fc;
}

for (const id of PROGRAMS) {
  test(`GYM·13 ${id}: the drill's answer equals XLA's own count of fused computations`, { skip: noWasm || captureMissing(id) }, async () => {
    const { parse } = await hs();
    const text = readFileSync(join(capDir, id, 'after_optimizations.txt'), 'utf8');
    const doc = parse(text);
    try {
      const census = doc.fusions();
      const computations = doc.computations();
      const expected = oracleFused(id);
      assert.equal(census.fusion_computations, expected.length, `${id}: core counts ${census.fusion_computations}, XLA's oracle lists ${expected.length}`);
      // Each fusion the reveal lists calls a body XLA also names.
      const names = new Set(expected.map((c) => (typeof c === 'string' ? c : c?.name)).filter(Boolean));
      if (names.size) for (const f of census.fusions) assert.ok(names.has(f.calls), `${id}: ${f.name} calls ${f.calls}, which the oracle does not list`);
      // The reveal: its count sentence matches, and every op list is non-empty text.
      const words = explainCensus(census, computations);
      if (census.fusion_computations === 0) assert.match(words, /no fused computation/);
      else assert.match(words, new RegExp(`holds ${census.fusion_computations} fused computation`));
      for (const f of census.fusions) assert.ok(f.ops.length > 0, `${id}: ${f.name} lists no ops`);
    } finally {
      doc.free();
    }
  });
}

test('GYM·13 prompts: each program reads as one line from its source.py', { skip: captureMissing('exp', ['source.py']) }, () => {
  for (const id of PROGRAMS) {
    const file = join(capDir, id, 'source.py');
    assert.ok(existsSync(file), `${file} is missing: an in-repo fixture`);
    const p = programFromSource(id, readFileSync(file, 'utf8'));
    assert.equal(p.from, 'source.py', `${id}: no return line found in source.py`);
    assert.match(p.code, /^y = \S/);
    assert.ok(!p.code.includes('\n'));
  }
});

test('GYM·13 captions: every MANIFEST.json gives provenance words', { skip: captureMissing('exp', ['MANIFEST.json']) }, () => {
  for (const id of PROGRAMS) {
    const file = join(capDir, id, 'MANIFEST.json');
    assert.ok(existsSync(file), `${file} is missing: an in-repo fixture`);
    const words = provenance(JSON.parse(readFileSync(file, 'utf8')));
    assert.ok(words, `${id}: MANIFEST.json yields no provenance`);
    assert.match(words, /jax 0\.4\.38/, `${id}: provenance "${words}" does not name the jax version`);
  }
});

test('GYM·07: a round exists exactly when the core finds a big intermediate, and its targets are carrying fusion lines', { skip: noWasm || captureMissing('softmax', ['stablehlo.mlir', 'after_optimizations.txt']) }, async (t) => {
  const { xray } = await hs();
  let rounds = 0;
  for (const id of PROGRAMS) {
    assert.equal(captureMissing(id, ['stablehlo.mlir', 'after_optimizations.txt']), false);
    const left = readFileSync(join(capDir, id, 'stablehlo.mlir'), 'utf8');
    const right = readFileSync(join(capDir, id, 'after_optimizations.txt'), 'utf8');
    const x = xray(left, right);
    const targets = targetLines(x);
    if (!x.summary.big) {
      assert.equal(targets, null, `${id}: no big intermediate, yet a round`);
      continue;
    }
    rounds++;
    const rightLines = right.split('\n');
    for (const n of targets) {
      const l = x.right.find((r) => r.line === n);
      assert.equal(l.class, 'fusion');
      assert.equal(l.carries, true);
      assert.match(rightLines[n - 1], /fusion/, `${id}: target line ${n} is not a fusion line: ${rightLines[n - 1]}`);
    }
    assert.ok(targets.length <= x.summary.carry, `${id}: more targets than carrying lines`);
  }
  // Not every CPU program has a round; say how many do (visible with --test-reporter=spec).
  t.diagnostic(`x-ray rounds among the eight captures: ${rounds}`);
});
// GYM·13's choices: four adjacent ranges, one holding the count, that tell counts apart at any
// size. The counts are XLA's own (every capture's oracle.json, transformer_step's 235 and 390
// among them), and every count up to 400.
test('GYM·13 choices discriminate at any count: the right range at any place, the count anywhere in it', () => {
  const counts = new Set(Array.from({ length: 401 }, (_, n) => n));
  for (const { file } of fixtureCases()) {
    const o = file('oracle.json');
    if (o) counts.add(JSON.parse(readFileSync(o, 'utf8')).modules[0].fusion_computations.length);
  }
  assert.ok(counts.has(235) && counts.has(390), 'transformer_step\'s counts are among them');
  for (const n of counts) {
    const places = new Set();
    const offsets = new Set();
    for (let k = 0; k < 200; k++) {
      const c = countChoices(n);
      assert.equal(c.length, 4);
      const w = c[0].hi - c[0].lo + 1;
      assert.ok(c.every((r, i) => r.lo >= 0 && r.hi - r.lo + 1 === w && (i === 0 || r.lo === c[i - 1].hi + 1)), `${n}: ${JSON.stringify(c)}`);
      assert.ok(w <= Math.max(1, Math.ceil(n / 4)), `${n}: ranges of ${w} do not tell it apart`);
      const holding = c.filter((r) => r.lo <= n && n <= r.hi);
      assert.equal(holding.length, 1, `${n}: ${JSON.stringify(c)}`);
      assert.equal(new Set(c.map((r) => r.label)).size, 4);
      places.add(c.indexOf(holding[0]));
      offsets.add(n - holding[0].lo);
    }
    // Past the first few counts the right range takes every place, and the count is not
    // always in the middle of it (nor always at one end).
    if (n >= 3) assert.equal(places.size, 4, `${n}: the right range only at ${[...places]}`);
    if (n >= 40) assert.ok(offsets.size >= 3, `${n}: the count sits only at ${[...offsets]} in its range`);
  }
});

// The streak store's rules, in-process (the browser tests check the same in Chromium).
test('streaks: right adds one, wrong resets current and keeps best; stored values are repaired; export and import', async () => {
  const store = new Map();
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', {
    configurable: true,
    value: {
      getItem: (k) => (store.has(k) ? store.get(k) : null),
      setItem: (k, v) => { store.set(k, String(v)); },
      removeItem: (k) => { store.delete(k); },
      key: (i) => [...store.keys()][i] ?? null,
      get length() { return store.size; },
    },
  });
  try {
    const s = await import('../../notebook/src/streaks.js');
    s._resetForTests();
    assert.equal(s.storageMode(), 'local');
    assert.equal(s.keyFor('fusioncount'), 'hloscope.streak.v1.fusioncount');
    s.recordAnswer('fusioncount', true);
    s.recordAnswer('fusioncount', true);
    assert.deepEqual({ ...s.getStreak('fusioncount'), updated: null }, { v: 1, current: 2, best: 2, updated: null });
    s.recordAnswer('fusioncount', false);
    assert.deepEqual([s.getStreak('fusioncount').current, s.getStreak('fusioncount').best], [0, 2]);
    for (const [raw, cur, best] of [['{oops', 0, 0], ['7', 7, 7], ['[1]', 0, 0], ['{"v":1,"current":3,"best":1,"updated":null}', 3, 3], ['null', 0, 0]]) {
      store.set('hloscope.streak.v1.xray', raw);
      const r = s.getStreak('xray');
      assert.deepEqual([r.current, r.best], [cur, best], raw);
      assert.deepEqual(JSON.parse(store.get('hloscope.streak.v1.xray')), r, `${raw} is written back repaired`);
    }
    const exported = s.exportProgress();
    store.clear();
    assert.deepEqual(s.importProgress(exported), ['fusioncount', 'xray']);
    assert.equal(s.getStreak('fusioncount').best, 2);
    assert.throws(() => s.importProgress('{"format":"other"}'), TypeError);
    assert.throws(() => s.importProgress('not json'), TypeError);
    assert.throws(() => s.keyFor('../evil'), TypeError);
    // localStorage that throws: memory, no error.
    Object.defineProperty(globalThis, 'localStorage', { configurable: true, get() { throw new Error('denied'); } });
    s._resetForTests();
    assert.equal(s.storageMode(), 'memory');
    assert.equal(s.recordAnswer('fusioncount', true).current, 1);
  } finally {
    if (saved) Object.defineProperty(globalThis, 'localStorage', saved);
    else delete globalThis.localStorage;
  }
});
