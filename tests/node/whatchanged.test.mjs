// GYM·14 "what changed?": the round builder (notebook/src/drills/whatchanged-words.js) on the real
// pairs of fixtures/diff-pairs/, fed the way the page feeds it (the wasm core's diff(a, b) and each
// side's results). Every round's right answer agrees with the native CLI's `hloscope diff --json`
// of the same pair, and every wrong choice is wrong by it; on the pairs where no op_name was
// renamed, the fusion round's right fusion holds an op_name XLA's oracle lists as having changed
// fusion membership (oracle.json, from jaxlib's two parsed modules) and each wrong one holds none.
// "which side is faster?" is asked on the pairs with a profile of each side ({a,b}.xplane.pb, as
// the page bundles them), answered by the CLI's `--profiles` time; and on a synthetic Diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { diffPairs, repoRoot } from '../fixtures.mjs';
import { NONE, fusionRound, programBlock, readSide, sidesWords, spillRound, timeRound, whatchangedRounds } from '../../notebook/src/drills/whatchanged-words.js';

const cli = path.join(repoRoot, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(repoRoot, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = (!wasmBuilt && 'SKIPPED: the wasm core is not built (npm run build:wasm)')
  || (!existsSync(cli) && `SKIPPED: no native CLI at ${cli} (npm run build:native)`) || false;
const pairs = diffPairs();

/** A seeded random in [0, 1) (an LCG), so that each seed draws other choices. */
function seeded(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const hasProfiles = (c) => !!(c.file('a.xplane.pb') && c.file('b.xplane.pb'));
function cliDiff(c) {
  const prof = hasProfiles(c) ? ['--profiles', c.file('a.xplane.pb'), c.file('b.xplane.pb')] : [];
  const r = spawnSync(cli, ['diff', '--json', ...prof, c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt')], { maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, `${c.label}: hloscope diff: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

/** The op_names each fusion op's body holds (nested bodies included), read from the text itself. */
function fusionOpNames(text) {
  const comps = new Map();
  let cur = null;
  for (const l of text.split('\n')) {
    const head = /^(?:ENTRY )?%?([\w.-]+) .*\{\s*$/.exec(l);
    if (head) { cur = head[1]; comps.set(cur, []); continue; }
    if (cur && /^\s/.test(l)) comps.get(cur).push(l);
  }
  const names = (comp, seen = new Set()) => {
    if (seen.has(comp)) return [];
    seen.add(comp);
    const out = [];
    for (const l of comps.get(comp) || []) {
      const m = /op_name="([^"]+)"/.exec(l);
      if (m) out.push(m[1].replace(/jit\(main\)\//g, ''));
      const called = /calls=%?([\w.-]+)/.exec(l);
      if (called) out.push(...names(called[1], seen));
    }
    return out;
  };
  const byFusion = new Map();
  for (const lines of comps.values()) {
    for (const l of lines) {
      const m = /^\s*(?:ROOT )?%?([\w.-]+) = .*\bfusion\(.*calls=%?([\w.-]+)/.exec(l);
      if (m) byFusion.set(m[1], names(m[2]));
    }
  }
  return byFusion;
}

test('the real pairs are there', () => {
  assert.ok(pairs.length >= 12, `fixtures/diff-pairs/ holds ${pairs.length} pairs`);
  for (const c of pairs) {
    for (const f of ['a.after_optimizations.txt', 'b.after_optimizations.txt', 'MANIFEST.json', 'source.py', 'oracle.json']) {
      assert.ok(c.file(f), `${c.label}: ${f} is missing`);
    }
  }
});

test('every round of every real pair agrees with `hloscope diff --json` of the pair', { skip }, () => {
  const counts = { fusion: 0, spill: 0, none: 0, time: 0, oracle: 0 };
  for (const c of pairs) {
    const a = readFileSync(c.file('a.after_optimizations.txt'), 'utf8');
    const b = readFileSync(c.file('b.after_optimizations.txt'), 'utf8');
    const want = cliDiff(c);
    const diff = api.diff(a, b, hasProfiles(c) ? { profiles: ['a', 'b'].map((s) => readFileSync(c.file(`${s}.xplane.pb`))) } : {});
    assert.equal(diff.verdict, want.verdict, `${c.label}: the page's diff is the CLI's`);
    const sides = { a: readSide(api, a), b: readSide(api, b) };
    const oracle = JSON.parse(readFileSync(c.oracle, 'utf8'));
    const renamed = oracle.op_names_on_one_side.a.length + oracle.op_names_on_one_side.b.length > 0;
    const changedNames = new Set(oracle.op_names_whose_fusion_membership_changed.map((n) => n.replace(/jit\(main\)\//g, '')));
    const held = { a: fusionOpNames(a), b: fusionOpNames(b) };
    const addedB = want.materialized.filter((m) => m.change === 'added' && m.side === 'b').map((m) => m.value);
    for (let seed = 1; seed <= 6; seed++) {
      const rounds = whatchangedRounds(diff, sides, seeded(seed));
      assert.equal(new Set(rounds.map((r) => r.type)).size, rounds.length, `${c.label}: one round of each type at most`);
      for (const r of rounds) {
        const what = `${c.label} seed ${seed} ${r.type}`;
        const values = r.choices.map((x) => x.value);
        assert.equal(new Set(values).size, values.length, `${what}: choices repeat: ${values}`);
        assert.ok(values.includes(r.answer), `${what}: the answer ${r.answer} is not among the choices`);
        assert.ok(values.length >= 2, `${what}: ${values.length} choice`);
        assert.equal(r.verdict, want.verdict);
        assert.ok(r.entry.length > 0 && r.why.length > 0);
        if (r.type === 'fusion') {
          const entryOf = (v) => want.fusions.find((f) => f[r.side].includes(v));
          assert.notEqual(entryOf(r.answer)?.change ?? 'same', 'same', `${what}: ${r.answer} is in a "same" entry of the CLI's diff`);
          for (const v of values.filter((x) => x !== r.answer)) assert.equal(entryOf(v)?.change, 'same', `${what}: wrong choice ${v}`);
          if (!renamed) {
            assert.ok(held[r.side].get(r.answer).some((n) => changedNames.has(n)), `${what}: ${r.answer} holds no op_name XLA's oracle says changed fusion`);
            for (const v of values.filter((x) => x !== r.answer)) assert.ok(!held[r.side].get(v).some((n) => changedNames.has(n)), `${what}: wrong choice ${v} holds an op_name the oracle says changed`);
            counts.oracle++;
          }
          counts.fusion++;
        } else if (r.type === 'spill') {
          assert.equal(r.side, 'b');
          assert.ok(values.includes(NONE), `${what}: "none of these" is always offered`);
          if (r.answer === NONE) { assert.deepEqual(addedB, [], `${what}: "none" but the CLI's diff has new spills`); counts.none++; } else assert.ok(addedB.includes(r.answer), `${what}: ${r.answer} is not an added materialized entry of B`);
          for (const v of values.filter((x) => x !== r.answer)) assert.ok(!addedB.includes(v), `${what}: wrong choice ${v} is a new spill by the CLI`);
          counts.spill++;
        } else {
          assert.equal(want.time.differs, true, `${what}: asked though the core says the times do not differ`);
          assert.equal(r.answer, want.time.a_ps < want.time.b_ps ? 'a' : 'b', `${what}: the faster side by the CLI's time`);
          counts.time++;
        }
      }
      // A pair with no changed fusion beside an unchanged one on a side gives no fusion round.
      const askable = ['a', 'b'].some((s) => want.fusions.some((f) => f.change !== 'same' && f[s].length) && want.fusions.some((f) => f.change === 'same' && f[s].length));
      assert.equal(rounds.some((r) => r.type === 'fusion'), askable, `${c.label}: fusion round iff a side has changed and same fusions`);
    }
    // the pairs with profiles have a time; a time round exactly when the core says the times differ
    assert.equal(want.time !== null, hasProfiles(c), `${c.label}: time ${want.time ? 'without' : 'missing with'} profiles`);
    const timeAsked = whatchangedRounds(diff, sides, seeded(1)).some((r) => r.type === 'time');
    assert.equal(timeAsked, want.time?.differs === true, `${c.label}: time round iff the times differ`);
  }
  if (pairs.some(hasProfiles) && pairs.filter(hasProfiles).some((c) => cliDiff(c).time.differs)) assert.ok(counts.time > 0);
  assert.ok(counts.fusion > 0 && counts.spill > 0 && counts.none > 0 && counts.oracle > 0, JSON.stringify(counts));
});

test('the pair of one module twice: no fusion round, and "none of these" spills', { skip }, () => {
  const c = pairs.find((p) => p.label === 'cpu-jax-0.4.38/mlp_softmax-opt0');
  const text = readFileSync(c.file('a.after_optimizations.txt'), 'utf8');
  const diff = api.diff(text, text);
  const sides = { a: readSide(api, text), b: readSide(api, text) };
  assert.equal(fusionRound(diff, sides), null);
  assert.equal(spillRound(diff, sides).answer, NONE);
});

test('what differs, in words, from the MANIFEST; the program from source.py', () => {
  const m = (label) => JSON.parse(readFileSync(pairs.find((p) => p.label === label).file('MANIFEST.json'), 'utf8'));
  assert.deepEqual(sidesWords(m('cpu-jax-0.12.0.1/mlp_softmax-opt0')), ['A: default flags', 'B: XLA_FLAGS=--xla_backend_optimization_level=0']);
  assert.deepEqual(sidesWords(m('cpu-jax-0.12.0.1/mlp_softmax-nofusion')), ['A: default flags', 'B: XLA_FLAGS=--xla_disable_hlo_passes=fusion']);
  assert.deepEqual(sidesWords(m('cpu-jax-0.4.38/matmul_chain-f32-bf16')), ['A: variant f32', 'B: variant bf16']);
  assert.deepEqual(sidesWords(m('cpu-jax-0.4.38/mlp_grad-remat')), ['A: variant plain', 'B: variant checkpoint']);
  assert.deepEqual(sidesWords(null), []);
  const c = pairs.find((p) => p.label === 'cpu-jax-0.10.2/mlp_grad-remat');
  const block = programBlock(readFileSync(c.file('source.py'), 'utf8'), 'mlp_grad');
  assert.match(block, /^def layer\(w, h\):/);
  assert.match(block, /layer = jax\.checkpoint\(layer\)/);
  assert.doesNotMatch(block, /matmul_chain|mlp_softmax/);
  assert.equal(programBlock('x = 1\n', 'mlp_grad'), null);
});

// A Diff as wasm/hloscope.d.ts types it, with the `time` that two profiles would give.
function syntheticDiff(time) {
  return {
    a: { module: 'jit_f', fusion_ops: 1, fusion_computations: 1, instructions: 5, partial: null, hbm_bytes: { read: 8, written: 4 } },
    b: { module: 'jit_f', fusion_ops: 1, fusion_computations: 1, instructions: 5, partial: null, hbm_bytes: { read: 8, written: 4 } },
    matched: { instructions: 5, unmatched_a: 0, unmatched_b: 0, by: { op_name: 0, source: 0, structure: 5, name: 0 } },
    pairs: [], fusions: [{ change: 'same', a: ['fusion'], b: ['fusion'], moved: [], source: [], a_lines: [3], b_lines: [3] }],
    materialized: [], calls: [], transfers: [], environment: [], passes: null, time, verdict: 'Same by meaning.',
  };
}

test('"which side is faster?" appears when the diff has a time, answered by it', () => {
  // as the core gives it: ops largest change first, `differs` beyond its noise threshold
  const time = (a_ps, b_ps, ops, differs = a_ps !== b_ps) => ({ a_ps, b_ps, a_runs: 5, b_runs: 5, a_program: null, b_program: null, unknown: null,
    ops, differs, noise: { total_pct: 5, op_pct: 1 } });
  const slowerB = syntheticDiff(time(2_000_000, 3_000_000, [
    { a: 'dot.1', b: 'dot.2', a_ps: 500_000, b_ps: 1_400_000, a_line: 4, b_line: 4 },
    { a: 'fusion', b: 'fusion', a_ps: 1_500_000, b_ps: 1_600_000, a_line: 3, b_line: 3 },
  ]));
  const r = timeRound(slowerB);
  assert.equal(r.type, 'time');
  assert.deepEqual(r.choices.map((c) => c.value), ['a', 'b']);
  assert.equal(r.answer, 'a');
  assert.match(r.why, /^A is faster: A took 2\.0 µs per run, B 3\.0 µs \(B \+50\.0%\)/);
  assert.match(r.entry[1], /A's dot\.1 0\.5 µs → B's dot\.2 1\.4 µs/, 'the entry: the op whose time moved most');
  assert.equal(timeRound(syntheticDiff(time(3_000_000, 1_000_000, []))).answer, 'b');
  assert.equal(timeRound(syntheticDiff(time(1_000_000, 1_000_000, []))), null, 'a tie asks nothing');
  assert.equal(timeRound(syntheticDiff(time(1_000_000, 1_020_000, [], false))), null, 'within the noise: nothing asked');
  assert.equal(timeRound(syntheticDiff(time(null, 1_000_000, [], null))), null, 'a side unknown: nothing asked');
  assert.equal(timeRound(syntheticDiff(null)), null, 'no profiles: no round');
  assert.deepEqual(whatchangedRounds(slowerB, {}).map((x) => x.type), ['time']);
  assert.deepEqual(whatchangedRounds(syntheticDiff(null), {}), []);
});
