// The rows of <xla-diff> (notebook/src/views/diff-core.js) on the core's diff of real pairs: the
// committed pairs of fixtures/diff-pairs, the transformer step compiled by jax 0.4.38 against
// 0.10.2 (5,000+ lines a side), and the shared TPU/GPU modules against themselves rewritten by
// tests/diff/rewrite.mjs (computations reordered: pairs that cross). On each:
//   - every line of each side appears on exactly one row, and rows keep each side's line order;
//   - every pair of the core's `pairs` whose lines do not cross another aligned pair sits on one
//     row: the aligned pairs are as many as the longest set of pairs that do not cross (counted
//     here by a plain O(n^2) search, not by the module's patience sort), and each pair left out
//     crosses an aligned one (rows keeping both orders cannot hold it);
//   - unmatched instructions' lines have a row to themselves (the other side blank);
//   - the colours: every unmatched line, every new or gone value and every fusion op of a changed
//     entry is marked; the listed changes are the core's entries other than `same`, with lines of
//     their own side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { diffPairs, fixtureCases, repoRoot, sharedAbsent, sharedCaptures } from '../fixtures.mjs';
import { rewriteHlo } from '../diff/rewrite.mjs';
import { MARKS, alignRows, changeEntries, diffTexts, lineKinds, lineMarks } from '../../notebook/src/views/diff-core.js';

const haveWasm = existsSync(path.join(repoRoot, 'wasm/gen/hloscope_core.mjs'));
const skip = haveWasm ? false : 'SKIPPED: the wasm core is not built (npm run build:wasm)';

let hs = null;
async function core() {
  if (!hs) { hs = await import('../../wasm/hloscope.mjs'); await hs.load(); }
  return hs;
}

const lineCount = (t) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0);

/** The length of a longest set of pairs increasing on both sides (O(n^2): the oracle for small n). */
function longestNonCrossing(pairs) {
  const p = [...pairs].sort((x, y) => x[0] - y[0]);
  const best = new Array(p.length).fill(1);
  let top = 0;
  for (let i = 0; i < p.length; i++) {
    for (let j = 0; j < i; j++) if (p[j][0] < p[i][0] && p[j][1] < p[i][1] && best[j] + 1 > best[i]) best[i] = best[j] + 1;
    top = Math.max(top, best[i]);
  }
  return top;
}

function checkLayout(what, d, L, nA, nB) {
  // every line once, in order
  for (const [s, lines, n, rowOf] of [['a', L.a, nA, L.rowOfA], ['b', L.b, nB, L.rowOfB]]) {
    const seen = lines.filter((l) => l > 0);
    assert.equal(seen.length, n, `${what}: side ${s} has ${n} lines, ${seen.length} on rows`);
    for (let k = 0; k < seen.length; k++) assert.equal(seen[k], k + 1, `${what}: side ${s}: row order breaks at line ${k + 1}`);
    for (let l = 1; l <= n; l++) assert.equal(lines[rowOf[l]], l, `${what}: side ${s}: rowOf(${l})`);
  }
  assert.equal(L.a.length, L.rows);
  for (let r = 0; r < L.rows; r++) assert.ok(L.a[r] || L.b[r], `${what}: row ${r} is blank on both sides`);
  // the pairs: aligned ones on one row, the others crossing an aligned one
  const onRow = d.pairs.filter(([a, b]) => L.rowOfA[a] === L.rowOfB[b]);
  assert.equal(onRow.length, L.aligned, `${what}: aligned pairs`);
  assert.equal(L.aligned + L.elsewhere, d.pairs.length, `${what}: aligned + elsewhere`);
  assert.equal(L.aligned, longestNonCrossing(d.pairs), `${what}: the aligned pairs are a longest non-crossing set`);
  const aligned = onRow.sort((x, y) => x[0] - y[0]);
  for (const [a, b] of d.pairs) {
    if (L.rowOfA[a] === L.rowOfB[b]) continue;
    // the aligned pair just before a (in A's order) and just after it: b must fall outside them
    let lo = 0;
    let hi = aligned.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (aligned[m][0] < a) lo = m + 1; else hi = m; }
    const before = aligned[lo - 1]?.[1] ?? 0;
    const after = aligned[lo]?.[1] ?? Infinity;
    assert.ok(b < before || b > after, `${what}: pair ${a}/${b} crosses no aligned pair (${before}..${after}) yet is not aligned`);
    assert.equal(L.partnerA[a], b);
    assert.equal(L.partnerB[b], a);
  }
  // unmatched instructions alone on their rows
  for (const [s, other, rowOf] of [['a', L.b, L.rowOfA], ['b', L.a, L.rowOfB]]) {
    for (const l of d.unmatched[s]) assert.equal(other[rowOf[l]], 0, `${what}: unmatched ${s} line ${l} shares its row`);
  }
}

function checkMarks(what, d, L, nA, nB) {
  const m = lineMarks(d, nA, nB);
  const code = (x) => MARKS.indexOf(x);
  for (const s of ['a', 'b']) for (const l of d.unmatched[s]) assert.ok(m[s][l] >= code('unmatched'), `${what}: unmatched ${s} ${l} not coloured`);
  for (const v of d.materialized) assert.equal(m[v.side][v.line], code('spill'), `${what}: ${v.value} not coloured`);
  for (const f of d.fusions) {
    if (f.change === 'same') continue;
    for (const s of ['a', 'b']) for (const l of f[`${s}_lines`]) assert.ok(m[s][l] >= code('fusion'), `${what}: fusion op ${s} ${l}`);
  }
  const want = d.fusions.filter((f) => f.change !== 'same').length + d.materialized.length + d.calls.length
    + d.transfers.filter((t) => t.change !== 'same').length;
  const entries = changeEntries(d);
  assert.equal(entries.length, want, `${what}: listed changes`);
  for (const e of entries) {
    for (const [s, n] of [['a', nA], ['b', nB]]) for (const l of e[s]) assert.ok(l >= 1 && l <= n, `${what}: ${e.title}: ${s} line ${l}`);
    assert.ok(e.a.length || e.b.length, `${what}: ${e.title} has no line to show`);
  }
  return entries;
}

async function checkPair(what, ta, tb) {
  const api = await core();
  const d = api.diff(ta, tb);
  const nA = lineCount(ta);
  const nB = lineCount(tb);
  const L = alignRows(d.pairs, nA, nB, d.unmatched, { a: lineKinds(ta, nA), b: lineKinds(tb, nB) });
  checkLayout(what, d, L, nA, nB);
  const entries = checkMarks(what, d, L, nA, nB);
  // what the worker returns is the same layout
  const out = diffTexts(api, ta, tb);
  assert.deepEqual([...out.layout.a], [...L.a], `${what}: diffTexts' rows`);
  assert.equal(out.diff.pairs, undefined);
  assert.equal(out.diff.pairs_count, d.pairs.length);
  return { d, L, entries };
}

test('the committed pairs: matched lines on one row, each side in order, every line once', { skip }, async (t) => {
  const pairs = diffPairs();
  assert.ok(pairs.length >= 12, `only ${pairs.length} pairs`);
  let crossing = 0;
  let listed = 0;
  for (const p of pairs) {
    const { L, entries } = await checkPair(p.label, readFileSync(p.file('a.after_optimizations.txt'), 'utf8'), readFileSync(p.file('b.after_optimizations.txt'), 'utf8'));
    crossing += L.elsewhere;
    listed += entries.length;
  }
  assert.ok(crossing > 0, 'some real pair has pairs that cross (else the check of crossing pairs proves nothing)');
  t.diagnostic(`${pairs.length} pairs, ${crossing} matched pairs on other rows, ${listed} changes listed`);
});

test('a large real pair: the transformer step under jax 0.4.38 and 0.10.2 (5,000+ lines a side)', { skip }, async (t) => {
  const pick = (set) => fixtureCases().find((c) => c.set === set && c.id === 'transformer_step')?.file('after_optimizations.txt');
  const a = pick('cpu-jax-0.4.38');
  const b = pick('cpu-jax-0.10.2');
  assert.ok(a && b, 'the transformer_step fixtures');
  const ta = readFileSync(a, 'utf8');
  const tb = readFileSync(b, 'utf8');
  assert.ok(lineCount(ta) > 5000 && lineCount(tb) > 5000);
  const { d, L, entries } = await checkPair('transformer_step 0.4.38 -> 0.10.2', ta, tb);
  t.diagnostic(`${L.rows} rows, ${d.pairs.length} pairs (${L.aligned} side by side), ${entries.length} changes listed`);
});

const sharedSubs = ['tpu-v6e', 'gpu-semantics'];
for (const sub of sharedSubs) {
  test(`shared ${sub} modules against themselves rewritten: pairs that cross, every line once`, { skip: skip || sharedAbsent(sub) }, async (t) => {
    const files = sharedCaptures(sub, (n) => /after_optimizations.*\.txt$/.test(n));
    assert.ok(files.length, `no optimized modules in ${sub}`);
    let n = 0;
    let crossing = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const { d, L } = await checkPair(path.basename(f), text, rewriteHlo(text));
      assert.equal(d.matched.unmatched_a, 0, `${f}: the rewrite is the same module`);
      crossing += L.elsewhere;
      n++;
    }
    t.diagnostic(`${n} modules, ${crossing} pairs on other rows`);
  });
}
