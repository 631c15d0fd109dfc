// hloscope diff (issue 38): every optimized HLO module of the fixtures and of ../shared/captures
// diffed against itself rewritten by tests/diff/rewrite.mjs (every name changed, computations and
// independent instructions reordered; once more with names opaque and metadata removed) is the
// same by meaning: every fusions entry "same", nothing unmatched, every fusion op of each side in
// exactly one entry. And the CI check: --fail-on exits 3 exactly when a condition holds, 1 for
// a list it cannot read. Runs the native CLI; skips with a message when it is not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffPairs, fixtureCases, passFixtures, levelsFixtures, repoRoot, sharedAbsent, sharedCaptures } from '../fixtures.mjs';
import { rewriteHlo } from '../diff/rewrite.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const skip = existsSync(cli) ? false : `SKIPPED: no native CLI at ${cli} (npm run build:native)`;

function diff(...args) {
  const r = spawnSync(cli, ['diff', ...args], { maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function diffJson(a, b) {
  const r = diff('--json', a, b);
  assert.equal(r.status, 0, `diff ${a} ${b}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// Every fusion op of each side is in exactly one entry.
function assertPartition(j, what) {
  for (const s of ['a', 'b']) {
    const names = j.fusions.flatMap((f) => f[s]);
    assert.equal(names.length, j[s].fusion_ops, `${what}: side ${s}: ${names.length} names in fusions, ${j[s].fusion_ops} fusion ops`);
    assert.equal(new Set(names).size, names.length, `${what}: side ${s}: a fusion op in two entries`);
  }
}

// What a side-by-side view aligns: `pairs` holds each side's lines once, each a statement's line
// (`name = ...`) of the same opcode on both sides; a fusion entry's a_lines/b_lines are the lines
// that define the fusion ops it names.
const opcodeAt = (line) => /=\s*(?:\S+\s+)*?([a-z][\w-]*)\(/.exec(line.replace(/\{[^{}]*\}/g, ''))?.[1];
// the result's dimensions alone (element types and layouts dropped): f32[1024,512]{1,0} -> [1024,512]
const dimsAt = (line) => /=\s*(\(.*?\)|[a-z][a-z0-9]*\[[^\]]*\](?:\{[^}]*\})?|token\[\])\s/.exec(line)?.[1]
  .replace(/\{[^{}]*\}/g, '').replace(/[a-z][a-z0-9]*\[/g, '[');
function assertLines(j, aLines, bLines, what) {
  const seenA = new Set(), seenB = new Set();
  for (const [la, lb] of j.pairs) {
    assert.ok(!seenA.has(la) && !seenB.has(lb), `${what}: line ${la}/${lb} paired twice`);
    seenA.add(la), seenB.add(lb);
    assert.equal(opcodeAt(aLines[la - 1]), opcodeAt(bLines[lb - 1]), `${what}: pair ${la}/${lb}:\n${aLines[la - 1]}\n${bLines[lb - 1]}`);
    assert.equal(dimsAt(aLines[la - 1]), dimsAt(bLines[lb - 1]), `${what}: pair ${la}/${lb} of two shapes:\n${aLines[la - 1]}\n${bLines[lb - 1]}`);
  }
  for (const f of j.fusions) {
    for (const [s, lines] of [['a', aLines], ['b', bLines]]) {
      assert.equal(f[`${s}_lines`].length, f[s].length, `${what}: ${s}_lines`);
      f[s].forEach((name, k) => assert.ok(lines[f[`${s}_lines`][k] - 1].includes(`${name} = `), `${what}: ${name} not at line ${f[`${s}_lines`][k]}`));
      // the ops that moved are statements of their side, none of them a fusion op of the entry
      for (const l of f[`${s}_moved_lines`]) {
        assert.ok(opcodeAt(lines[l - 1]), `${what}: ${s}_moved_lines ${l} is no statement: ${lines[l - 1]}`);
        assert.ok(!f[`${s}_lines`].includes(l), `${what}: ${s}_moved_lines ${l} is one of the entry's fusion ops`);
      }
    }
  }
  // the unmatched lines: statements, none of them paired, as many as the counts say
  for (const [s, lines, k] of [['a', aLines, 0], ['b', bLines, 1]]) {
    const paired = new Set(j.pairs.map((p) => p[k]));
    assert.equal(j.unmatched[s].length, j.matched[`unmatched_${s}`], `${what}: unmatched.${s} against matched.unmatched_${s}`);
    for (const l of j.unmatched[s]) {
      assert.ok(opcodeAt(lines[l - 1]) && !paired.has(l), `${what}: unmatched ${s} line ${l}: ${lines[l - 1]}`);
    }
  }
  // a new or gone value's line defines it; a call's lines are as many as its count
  for (const m of j.materialized) {
    const lines = m.side === 'a' ? aLines : bLines;
    assert.ok(lines[m.line - 1].includes(`${m.value} = `), `${what}: ${m.value} not at line ${m.line}`);
  }
  for (const c of j.calls) {
    assert.equal(c.a_lines.length, c.a, `${what}: ${c.target}: a_lines`);
    assert.equal(c.b_lines.length, c.b, `${what}: ${c.target}: b_lines`);
    for (const [l, lines] of [...c.a_lines.map((l) => [l, aLines]), ...c.b_lines.map((l) => [l, bLines])]) assert.ok(lines[l - 1].includes(c.target), `${what}: ${c.target} not on line ${l}`);
  }
}

const fixtureModules = () => [
  ...fixtureCases().map((c) => c.file('after_optimizations.txt')).filter(Boolean),
  ...levelsFixtures().flatMap((c) => c.files(/after_optimizations\.txt$/)),
  ...diffPairs().flatMap((c) => c.files(/after_optimizations\.txt$/)),
];
const sharedSubs = ['tpu-v6e', 'tpu-layouts', 'gpu-semantics', 'llvm'];
const sharedModules = () => sharedSubs.flatMap((s) => sharedCaptures(s, (n) => /after_optimizations.*\.txt$|\.hlo$/.test(n)));

function selfDiffs(t, files) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-diff-'));
  let n = 0;
  try {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const strip of [false, true]) {
        const out = path.join(dir, `${n}${strip ? '.stripped' : ''}.txt`);
        const rewritten = rewriteHlo(text, { strip });
        assert.notEqual(rewritten, text, `${f}: the rewrite changed nothing`);
        writeFileSync(out, rewritten);
        const what = `${path.relative(repoRoot, f)}${strip ? ' (names opaque, metadata removed)' : ' (renamed, reordered)'}`;
        const j = diffJson(f, out);
        assert.equal(j.matched.unmatched_a, 0, `${what}: unmatched in A\n${j.verdict}`);
        assert.equal(j.matched.unmatched_b, 0, `${what}: unmatched in B\n${j.verdict}`);
        assert.equal(j.matched.instructions, j.a.instructions, what);
        const notSame = j.fusions.filter((e) => e.change !== 'same');
        assert.deepEqual(notSame, [], `${what}: entries not the same\n${j.verdict}`);
        assertPartition(j, what);
        assert.deepEqual(j.materialized, [], `${what}: materialized`);
        assert.deepEqual(j.calls, [], `${what}: calls`);
        assert.deepEqual(j.transfers.filter((e) => e.change !== 'same'), [], `${what}: transfers`);
        assert.match(j.verdict, /^Same by meaning/, what);
        assertLines(j, text.split('\n'), rewritten.split('\n'), what);
        n++;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.diagnostic(`${n} self-diffs the same`);
  return n;
}

test('every fixture module diffed against itself rewritten is the same by meaning', { skip }, (t) => {
  const files = fixtureModules();
  assert.ok(files.length >= 20, `only ${files.length} fixture modules`);
  assert.equal(selfDiffs(t, files), files.length * 2);
});

test('every shared capture module diffed against itself rewritten is the same by meaning', { skip }, (t) => {
  const absent = sharedSubs.map((s) => sharedAbsent(s)).find(Boolean);
  if (absent) {
    t.diagnostic(absent);
    t.skip(absent);
    assert.ok(absent.startsWith('SKIPPED:'));
    return;
  }
  const files = sharedModules();
  assert.ok(files.length >= 10, `only ${files.length} shared modules`);
  assert.equal(selfDiffs(t, files), files.length * 2);
});

test('the rewrite is deterministic and renames every defined name', () => {
  const f = fixtureCases().map((c) => c.file('after_optimizations.txt')).find(Boolean);
  assert.ok(f, 'no fixture module');
  const text = readFileSync(f, 'utf8');
  assert.equal(rewriteHlo(text), rewriteHlo(text));
  const defs = [...text.matchAll(/^\s*(?:ROOT\s+)?%([A-Za-z_][\w.\-]*) = /gm)].map((m) => m[1]);
  const out = rewriteHlo(text, { strip: true });
  for (const d of defs) assert.ok(!new RegExp(`%${d.replace(/[.\-]/g, '\\$&')}[^\\w.\\-]`).test(out), `${d} survives`);
  assert.ok(!/metadata=/.test(out), 'metadata survives');
});

test('--fail-on exits 3 exactly when a condition holds, 0 when none, 1 for an unknown one', { skip }, () => {
  const cases = fixtureCases();
  const pick = (set, id) => cases.find((c) => c.set === set && c.id === id)?.file('after_optimizations.txt');
  const ref = pick('cpu-jax-0.12.0.1', 'attention'), other = pick('cpu-jax-0.4.38', 'attention');
  assert.ok(ref && other, 'the attention fixtures');
  const same = diff('--fail-on', 'new-spill,fusion-count,traffic+5%', ref, ref);
  assert.equal(same.status, 0, same.stderr);
  const j = diffJson(ref, other);
  const ta = j.a.hbm_bytes.read + j.a.hbm_bytes.written, tb = j.b.hbm_bytes.read + j.b.hbm_bytes.written;
  const expect = {
    'new-spill': j.materialized.some((m) => m.side === 'b'),
    'fusion-count': j.b.fusion_ops > j.a.fusion_ops,
    'traffic+5%': tb > ta * 1.05,
    'traffic+1000%': tb > ta * 11,
  };
  for (const [cond, holds] of Object.entries(expect)) {
    const r = diff('--fail-on', cond, ref, other);
    assert.equal(r.status, holds ? 3 : 0, `${cond}: ${r.stderr}`);
    if (holds) assert.match(r.stderr, new RegExp(cond.replace(/[+%]/g, '\\$&')));
  }
  const back = diff('--fail-on', 'fusion-count', other, ref);
  assert.equal(back.status, j.a.fusion_ops > j.b.fusion_ops ? 3 : 0);
  assert.equal(diff('--fail-on', 'bogus', ref, other).status, 1);
  assert.equal(diff('--fail-on', 'time+5%', ref, other).status, 1, 'time+P% without profiles cannot run');
  assert.equal(diff(ref).status, 1, 'one side only is a usage error');
});

test('a side cut short is partial, and the verdict says so', { skip }, () => {
  const f = fixtureCases().map((c) => c.file('after_optimizations.txt')).find(Boolean);
  const text = readFileSync(f, 'utf8');
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-diff-'));
  try {
    const cut = path.join(dir, 'cut.txt');
    writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.6)));
    const j = diffJson(f, cut);
    assert.equal(j.a.partial, null);
    assert.notEqual(j.b.partial, null);
    assert.match(j.verdict, /B is cut short/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The real pairs (fixtures/diff-pairs, fixtures/capture/diff_pairs.py): each side's census equals
// XLA's parser on that side; every fusion op in exactly one entry; the op_names whose fusion
// membership changed (on both sides) are those the script over jaxlib's two parsed modules found.
test('real pairs: each side as XLA counts it, the partition, and the op_names that moved', { skip }, (t) => {
  const pairs = diffPairs();
  assert.ok(pairs.length >= 12, `only ${pairs.length} pairs`);
  for (const p of pairs) {
    const oracle = JSON.parse(readFileSync(p.oracle, 'utf8'));
    const j = diffJson(p.file('a.after_optimizations.txt'), p.file('b.after_optimizations.txt'));
    for (const s of ['a', 'b']) {
      for (const k of ['instructions', 'fusion_ops', 'fusion_computations']) assert.equal(j[s][k], oracle.sides[s][k], `${p.label} ${s}.${k}`);
    }
    assertPartition(j, p.label);
    const moved = new Set(j.fusions.flatMap((f) => f.moved));
    // op_names a code change renamed, and those fused beside them, op_names alone cannot judge
    const oneSide = new Set([...oracle.op_names_on_one_side.a, ...oracle.op_names_on_one_side.b, ...oracle.op_names_beside_renamed_ones]);
    const noOpName = new Set([...oracle.sides.a.instruction_names_without_op_name, ...oracle.sides.b.instruction_names_without_op_name]);
    const ours = [...moved].filter((m) => !oneSide.has(m) && !noOpName.has(m)).sort();
    assert.deepEqual(ours, oracle.op_names_whose_fusion_membership_changed, `${p.label}: op_names that moved`);
    if (!oracle.op_names_whose_fusion_membership_changed.length && !oneSide.size) {
      assert.ok(j.fusions.every((f) => f.change === 'same'), `${p.label}: nothing moved, so every entry is the same`);
    }
  }
  t.diagnostic(`${pairs.length} real pairs`);
});

test('JS diff() returns the bytes the CLI prints, and its lines hold the pairs', { skip }, async () => {
  const { load, diffJSON } = await import('../../wasm/hloscope.mjs');
  await load();
  for (const p of diffPairs()) {
    const a = p.file('a.after_optimizations.txt'), b = p.file('b.after_optimizations.txt');
    const ta = readFileSync(a, 'utf8'), tb = readFileSync(b, 'utf8');
    const js = diffJSON(ta, tb);
    assert.equal(js, diff('--json', a, b).stdout.trimEnd(), `${p.label}: JS and CLI differ`);
    const j = JSON.parse(js);
    assert.ok(j.pairs.length > 0 && j.pairs.length <= j.matched.instructions, p.label);
    assertLines(j, ta.split('\n'), tb.split('\n'), p.label);
  }
});

test('real pairs: --fail-on exits 3 exactly when a listed condition holds', { skip }, () => {
  for (const p of diffPairs()) {
    const a = p.file('a.after_optimizations.txt'), b = p.file('b.after_optimizations.txt');
    const oracle = JSON.parse(readFileSync(p.oracle, 'utf8'));
    const j = diffJson(a, b);
    // fusion-count from XLA's own counts; the other two from the diff's figures
    const holds = {
      'fusion-count': oracle.sides.b.fusion_ops > oracle.sides.a.fusion_ops,
      'new-spill': j.materialized.some((m) => m.side === 'b'),
      'traffic+5%': (j.b.hbm_bytes.read + j.b.hbm_bytes.written) > 1.05 * (j.a.hbm_bytes.read + j.a.hbm_bytes.written),
    };
    for (const [cond, want] of Object.entries(holds)) assert.equal(diff('--fail-on', cond, a, b).status, want ? 3 : 0, `${p.label}: ${cond}`);
    const any = Object.values(holds).some(Boolean);
    assert.equal(diff('--fail-on', Object.keys(holds).join(','), a, b).status, any ? 3 : 0, `${p.label}: all three`);
  }
});

test('a dump folder diffed against its own compile().as_text() is the same by meaning', { skip }, (t) => {
  // The dump's *after_optimizations.txt and the text jax returns print one module, with
  // backend_config keys in another order: the same by meaning.
  let n = 0;
  for (const c of fixtureCases()) {
    const dump = c.file('dump'), hlo = c.file('after_optimizations.txt');
    if (!dump || !hlo || !c.files(/after_optimizations\.txt$/, 'dump').length) continue;
    const j = diffJson(dump, hlo);
    assert.equal(j.matched.unmatched_a + j.matched.unmatched_b, 0, `${c.label}: unmatched\n${j.verdict}`);
    assert.ok(j.fusions.every((f) => f.change === 'same'), `${c.label}: ${j.verdict}`);
    assertPartition(j, c.label);
    n++;
  }
  assert.ok(n >= 20, `only ${n} dump folders`);
  t.diagnostic(`${n} dump folders the same as their texts`);
});

test('a library kernel that appeared is a call: XNNPACK/YNNPACK fusions of newer jax', { skip }, () => {
  const cases = fixtureCases();
  const pick = (set) => cases.find((c) => c.set === set && c.id === 'attention')?.file('after_optimizations.txt');
  const a = pick('cpu-jax-0.4.38'), b = pick('cpu-jax-0.10.2');
  assert.ok(a && b, 'the attention fixtures');
  // the count as the text states it: fusions whose backend_config names the kind
  const linesOf = (f) => readFileSync(f, 'utf8').split('\n').flatMap((l, k) => (/ fusion\([^\n]*"fusion_config":\{"kind":"__ynn_fusion"\}/.test(l) ? [k + 1] : []));
  const count = (f) => linesOf(f).length;
  const j = diffJson(a, b);
  const ynn = j.calls.find((c) => c.target === '__ynn_fusion');
  assert.ok(count(b) > 0, 'the newer compile has ynn fusions');
  assert.deepEqual(ynn, { change: 'added', target: '__ynn_fusion', a: count(a), b: count(b), a_lines: linesOf(a), b_lines: linesOf(b) });
  assert.match(j.verdict, /__ynn_fusion 0 -> \d+/);
});

// Transfers (issue 38 with issue 35's overlap): on the shared A100 texts whose collectives run
// under kernels, moving one *-done up to just after its *-start (legal: the done reads only the
// start) leaves every instruction matched and makes that transfer, and only it, "changed": A
// overlapped it with kernels, B with none, and the verdict says so. The kernels under each side
// are what `hloscope overlap` lists for that side.
function overlapOf(f) {
  const r = spawnSync(cli, ['overlap', '--json', f], { maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString()).transfers;
}

test('a transfer no longer overlapped is the one changed entry, and the verdict says so (shared A100 texts)', { skip: skip || sharedAbsent('gpu-semantics') }, () => {
  const files = sharedCaptures('gpu-semantics', (n) => n.endsWith('after_optimizations.txt'))
    .filter((f) => overlapOf(f).some((t) => t.overlapped?.length && t.done));
  assert.ok(files.length >= 2, `${files.length} texts with overlapped transfers`);
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-diff-xfer-'));
  try {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const ts = overlapOf(f);
      const same = diffJson(f, f);
      assert.equal(same.transfers.length, ts.length);
      assert.ok(same.transfers.every((e) => e.change === 'same'));
      const t = ts.find((x) => x.overlapped?.length && x.done);
      const lines = text.split('\n');
      const [done] = lines.splice(t.done_line - 1, 1);
      lines.splice(t.line, 0, done);
      const out = path.join(dir, 'moved.txt');
      writeFileSync(out, lines.join('\n'));
      assert.deepEqual(overlapOf(out).find((x) => x.start === t.start).overlapped, [], `${f}: the moved done leaves nothing under the start`);
      const j = diffJson(f, out);
      assert.equal(j.matched.unmatched_a + j.matched.unmatched_b, 0, j.verdict);
      const changed = j.transfers.filter((e) => e.change !== 'same');
      assert.equal(changed.length, 1, JSON.stringify(changed));
      assert.equal(changed[0].a.start, t.start);
      assert.deepEqual(changed[0].a.overlapped, t.overlapped);
      assert.deepEqual(changed[0].b.overlapped, []);
      assert.match(j.verdict, new RegExp(`no longer overlaps the ${t.kind} ${t.start.replace(/\./g, '\\.')} with any kernel \\(A ran ${t.overlapped.length} under it\\)`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Two dump folders (here their archives, as XLA's --xla_dump_to writes them and people attach
// them): the modules are read by the core's dump-folder reader, and `passes` is the object
// `passes --compare` prints for the same two, with a verdict sentence naming the passes.
test('two dump archives: passes as `passes --compare` gives them, named in the verdict', { skip }, () => {
  const byId = new Map();
  for (const c of passFixtures()) (byId.get(c.id) || byId.set(c.id, []).get(c.id)).push(c);
  const [a, b] = [...byId.values()].find((cs) => cs.length >= 2) || [];
  assert.ok(a && b, 'one program dumped by two jax versions');
  const fa = a.file('dump.tar.gz'), fb = b.file('dump.tar.gz');
  const j = diffJson(fa, fb);
  const compare = spawnSync(cli, ['passes', '--compare', '--json', fa, fb]);
  assert.equal(compare.status, 0, compare.stderr.toString());
  assert.deepEqual(j.passes, JSON.parse(compare.stdout.toString()));
  const only = (o) => j.passes.passes.filter((p) => p.origin === o).length;
  if (only('a')) assert.match(j.verdict, new RegExp(`Passes: ${only('a')} only in A`));
  if (only('b')) assert.match(j.verdict, new RegExp(`${only('b')} only in B`));
  assert.ok(j.a.instructions > 0 && j.b.instructions > 0);
  assert.equal(diffJson(fa, fa).passes.passes.every((p) => p.origin === 'both'), true, 'a folder against itself: every pass in both');
  assert.equal(diffJson(fa, fixtureCases().map((c) => c.file('after_optimizations.txt')).find(Boolean)).passes, null, 'a folder against a text: no passes');
});
