// Rounds of GYM·14 "what changed?" (skill `whatchanged`), as pure functions of what the core says
// about two compiles of one program: the Diff (`diff(a, b)`, wasm/hloscope.d.ts `Diff`) and each
// side's own results (readSide below). No DOM, no bundler-only imports, no wasm of its own (the
// API is handed in), so tests/node/whatchanged.test.mjs runs them on the core's real output.
//
// Each round is { type, prompt, side, choices: [{ value, label, note }], answer, why, entry,
// verdict, context? }: `entry` is the diff's entry that makes the answer right, in words (lines), and
// `verdict` the core's own sentences. The words name what the core decided; no rule is re-derived
// here: a fusion "changed" is the diff's `fusions` entry that holds it, a new spill is one of its
// `materialized` entries, the faster side is the one its `time` gives less time.
import { plural, listWords } from './dom.js';
import { BOOKKEEPING_OPS } from '../core-words.js';

/** "none of these" in the spill round. */
export const NONE = '(none)';

const num = (n) => Number(n).toLocaleString('en-US');

function us(ps) {
  const v = (ps || 0) / 1e6;
  return v >= 100 ? `${Math.round(v).toLocaleString('en-US')} µs` : `${v.toFixed(1)} µs`;
}

/** k items of list drawn at random (`random` in [0, 1)), in drawn order. */
function draw(list, k, random) {
  const a = [...list];
  const out = [];
  while (a.length && out.length < k) out.push(a.splice(Math.min(a.length - 1, Math.floor(random() * a.length)), 1)[0]);
  return out;
}

/**
 * What the core says about one side, as the rounds read it: its fusion census, its computations,
 * its spills, and the logical bytes of each result type (the core's `layout(type)`). `hs` is the
 * loaded JS API (wasm/hloscope.mjs).
 */
export function readSide(hs, text) {
  const doc = hs.parse(text);
  try {
    const side = { census: doc.fusions(), computations: doc.computations(), spills: doc.spills(), bytes: {} };
    for (const m of side.computations.modules) {
      for (const c of m.computations) {
        for (const i of c.instructions) {
          if (!i.type || i.type in side.bytes) continue;
          try { side.bytes[i.type] = hs.layout(i.type).logical_bytes; } catch { side.bytes[i.type] = null; }
        }
      }
    }
    return side;
  } finally {
    doc.free();
  }
}

/** Every instruction of a side, with its computation: name -> { name, opcode, type, line, comp }. */
function instructions(side) {
  const byName = new Map();
  const byLine = new Map();
  for (const m of side?.computations?.modules || []) {
    for (const c of m.computations) {
      c.instructions.forEach((i, k) => {
        const x = { ...i, comp: c, last: k === c.instructions.length - 1 };
        if (!byName.has(i.name)) byName.set(i.name, x);
        if (!i.made && !byLine.has(i.line)) byLine.set(i.line, x);
      });
    }
  }
  return { byName, byLine };
}

function opsOf(side, name) {
  const f = side?.census?.fusions?.find((x) => x.name === name);
  return f ? (f.ops.join(' · ') || 'no ops besides parameters') : null;
}

/** One fusions entry in words: "changed · A: f.1 → B: f.1 · moved: jit(f)/exp (source.py:12)". */
export function fusionEntryWords(e) {
  const side = (s, names) => `${s}: ${names.length ? names.join(', ') : '(none)'}`;
  const lines = [`fusions entry "${e.change}": ${side('A', e.a)} → ${side('B', e.b)}`];
  if (e.moved?.length) lines.push(`ops that moved: ${e.moved.join(', ')}`);
  if (e.source?.length) lines.push(`their source lines: ${e.source.join(', ')}`);
  return lines;
}

/** One materialized entry in words. */
export function materializedEntryWords(m) {
  return [`materialized entry "${m.change}" on side ${m.side.toUpperCase()}: ${m.value} ${m.shape}, ${num(m.bytes)} bytes`];
}

/**
 * "which fusion changed?": the choices are fusion ops of one side (B when it has both kinds, else
 * A): one right, held by an entry of the diff whose change is not `same` (changed, merged,
 * split, added, removed), and up to three wrong, held by `same` entries. null when no side has a
 * changed fusion beside an unchanged one (nothing to tell apart).
 */
export function fusionRound(diff, sides = {}, random = Math.random) {
  const entries = diff?.fusions || [];
  for (const s of ['b', 'a']) {
    const changed = entries.filter((e) => e.change !== 'same' && e[s].length);
    const same = entries.filter((e) => e.change === 'same' && e[s].length);
    if (!changed.length || !same.length) continue;
    const S = s.toUpperCase();
    const O = s === 'b' ? 'A' : 'B';
    const rightEntry = draw(changed, 1, random)[0];
    const right = draw(rightEntry[s], 1, random)[0];
    const wrong = draw(same.flatMap((e) => e[s].map((name) => ({ name, e }))), 3, random);
    const label = (name) => name;
    const note = (name) => opsOf(sides[s], name);
    const choices = [
      { value: right, label: label(right), note: note(right), entry: rightEntry },
      ...wrong.map((w) => ({ value: w.name, label: label(w.name), note: note(w.name), entry: w.e })),
    ];
    const other = s === 'b' ? 'a' : 'b';
    const sameWords = wrong.map((w) => `${w.name} is "same" (${O}'s ${w.e[other].join(', ')}, the same structure)`);
    const how = {
      changed: `holds other ops than ${O}'s ${rightEntry[other].join(', ')}`,
      merged: s === 'b' ? `is ${plural(rightEntry.a.length, 'fusion')} of A merged into one` : `was merged with ${plural(rightEntry.a.length - 1, 'other fusion')} into B's ${rightEntry.b.join(', ')}`,
      split: s === 'a' ? `was split into B's ${rightEntry.b.join(', ')}` : `is one of the ${rightEntry.b.length} fusions A's ${rightEntry.a.join(', ')} was split into`,
      added: `is new in B: A has no fusion holding its ops`,
      removed: `is gone in B: B has no fusion holding its ops`,
    }[rightEntry.change] || `is in a "${rightEntry.change}" entry`;
    return {
      type: 'fusion',
      side: s,
      prompt: `which fusion of ${S} changed from ${O}?`,
      choices,
      answer: right,
      why: `${right} ${how}${rightEntry.moved?.length ? `: ${listWords(rightEntry.moved.slice(0, 4))}${rightEntry.moved.length > 4 ? ` and ${rightEntry.moved.length - 4} more` : ''} moved` : ''}. ` +
        (sameWords.length ? `${listWords(sameWords)}.` : ''),
      entry: fusionEntryWords(rightEntry),
      verdict: diff.verdict,
      // the other side's fusions, what the learner compares the choices with
      context: { side: other, fusions: (sides[other]?.census?.fusions || []).map((f) => ({ name: f.name, ops: f.ops.join(' · ') || 'no ops besides parameters' })) },
    };
  }
  return null;
}

/**
 * "which intermediate now spills?": B's values, one of them (when the diff has any) the value of
 * a `materialized` entry with change `added` on side `b` (B writes it to memory for another
 * kernel to read; A does not), the others values the diff and the core's own results say do not
 * newly spill: B's counterpart of a value A wrote and B no longer does (a `removed` entry), B's
 * big intermediate when it is A's too (matched by the diff's line pairs), a value inside one of
 * B's fusions, an input of B. "none of these" is always a choice, and the answer when the diff
 * has no new spill. null when nothing of B can be offered.
 */
export function spillRound(diff, sides = {}, random = Math.random) {
  if (!diff || !sides.b) return null;
  const mat = diff.materialized || [];
  const added = mat.filter((m) => m.change === 'added' && m.side === 'b');
  const newNames = new Set(added.map((m) => m.value));
  const B = instructions(sides.b);
  const A = instructions(sides.a);
  const bOfA = new Map((diff.pairs || []).map(([la, lb]) => [la, lb]));
  const bytesB = (type) => sides.b.bytes?.[type] ?? 0;
  const picked = new Map(); // name -> { value, label, note }
  const offer = (x, note) => {
    if (!x || newNames.has(x.name) || picked.has(x.name) || x.name === NONE) return false;
    picked.set(x.name, { value: x.name, label: `${x.name} · ${x.type}`, note });
    return true;
  };
  const pools = [];
  // B's counterparts of values A wrote to memory and B keeps off it.
  pools.push(mat.filter((m) => m.change === 'removed' && m.side === 'a').map((m) => {
    const ax = A.byName.get(m.value);
    const bx = ax ? B.byLine.get(bOfA.get(ax.line)) : null;
    return bx && bx.type === ax.type && [bx, `B keeps it off memory: A wrote ${m.value} (${m.shape}) to memory, B does not (a "removed" entry)`];
  }).filter(Boolean));
  // B's big intermediate, when it is A's too: written on both sides, not new.
  const bigB = sides.b.spills?.big;
  const bigA = sides.a?.spills?.big;
  if (bigB && bigA && bOfA.get(bigA.line) === bigB.line && bigA.type === bigB.type) {
    pools.push([[B.byName.get(bigB.name), `B's big intermediate and A's (${bigA.name}): written to memory on both sides, not newly`]]);
  }
  // Values inside B's fusions (never a body's last instruction, whose value the fusion writes).
  const fusionOf = new Map((sides.b.census?.fusions || []).map((f) => [f.calls, f.name]));
  const inside = [...B.byName.values()].filter((x) => x.comp.role === 'fused' && !x.last && !x.made && x.type &&
    !BOOKKEEPING_OPS.has(x.opcode) && !/^\(/.test(x.type) && !/\[\]$/.test(x.type) && fusionOf.has(x.comp.name));
  inside.sort((p, q) => bytesB(q.type) - bytesB(p.type) || p.line - q.line);
  pools.push(inside.slice(0, 3).map((x) => [x, `computed inside B's fusion ${fusionOf.get(x.comp.name)}: it never leaves the kernel`]));
  // Inputs of B.
  const params = [...B.byName.values()].filter((x) => x.comp.role === 'entry' && x.opcode === 'parameter' && x.type);
  params.sort((p, q) => bytesB(q.type) - bytesB(p.type) || p.line - q.line);
  pools.push(params.slice(0, 2).map((x) => [x, 'an input of the module (a parameter), not an intermediate']));
  // One of each kind first, then the rest in order, up to three.
  for (const pool of pools) for (const [x, note] of pool) if (picked.size < 3 && offer(x, note)) break;
  for (const pool of pools) for (const [x, note] of pool) if (picked.size < 3) offer(x, note);
  const wrong = [...picked.values()];
  const noneChoice = { value: NONE, label: 'none of these', note: null };
  if (added.length) {
    // A new spill the diff pairs with a value of A of another type is a match the rounds cannot
    // vouch for (the same kernel may sit on both sides under the pairing): no spill round.
    const aOfB = new Map((diff.pairs || []).map(([la, lb]) => [lb, la]));
    const mismatched = added.some((m) => {
      const bx = B.byName.get(m.value);
      const ax = bx ? A.byLine.get(aOfB.get(bx.line)) : null;
      return !!ax && ax.type !== bx.type;
    });
    if (mismatched) return null;
    const m = added[0]; // the largest: the core lists them largest first
    const bx = B.byName.get(m.value);
    const right = { value: m.value, label: `${m.value} · ${bx?.type || m.shape}`, note: `B writes ${num(m.bytes)} bytes to memory and reads them back; A does not` };
    if (!wrong.length) return null;
    return {
      type: 'spill',
      side: 'b',
      prompt: 'which value of B now spills: written to memory by one kernel and read back by another, where A does not?',
      choices: [right, ...wrong, { ...noneChoice, note: `not so: B newly writes ${m.value}` }],
      answer: m.value,
      why: `B newly materializes ${m.value} (${m.shape}): ${num(m.bytes)} bytes written and read again that A ${added.length > 1 ? `keeps off memory (and ${plural(added.length - 1, 'more value')} besides)` : 'keeps off memory'}. ` +
        wrong.map((w) => `${w.value}: ${w.note}`).join('; ') + '.',
      entry: materializedEntryWords(m),
      verdict: diff.verdict,
    };
  }
  if (wrong.length < 2) return null;
  return {
    type: 'spill',
    side: 'b',
    prompt: 'which value of B now spills: written to memory by one kernel and read back by another, where A does not?',
    choices: [...wrong, noneChoice],
    answer: NONE,
    why: `none of these: the diff lists no value B newly writes to memory. ` + wrong.map((w) => `${w.value}: ${w.note}`).join('; ') + '.',
    entry: [`materialized: ${mat.length ? mat.map((m) => `"${m.change}" on ${m.side.toUpperCase()}: ${m.value}`).join(', ') : '[] (no entry)'}: no "added" entry on side B`],
    verdict: diff.verdict,
  };
}

/**
 * "which side is faster?": only when the diff carries a profile of each side and the core says
 * the two totals differ beyond its noise threshold (`time.differs`). The entry shown is the op
 * the core lists first (the largest change in time per run).
 */
export function timeRound(diff) {
  const t = diff?.time;
  if (!t || t.differs !== true || typeof t.a_ps !== 'number' || typeof t.b_ps !== 'number') return null;
  const fast = t.a_ps < t.b_ps ? 'a' : 'b';
  const pct = (100 * (t.b_ps - t.a_ps)) / (t.a_ps || 1);
  const top = (t.ops || [])[0];
  const entry = [`time: A ${us(t.a_ps)}, B ${us(t.b_ps)} per run (${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%)`];
  if (top) entry.push(`the op whose time changed most: A's ${top.a ?? '(none)'} ${top.a_ps == null ? '-' : us(top.a_ps)} → B's ${top.b ?? '(none)'} ${top.b_ps == null ? '-' : us(top.b_ps)}`);
  return {
    type: 'time',
    side: null,
    prompt: 'which side is faster?',
    choices: [{ value: 'a', label: 'A', note: us(t.a_ps) }, { value: 'b', label: 'B', note: us(t.b_ps) }],
    answer: fast,
    why: `${fast.toUpperCase()} is faster: A took ${us(t.a_ps)} per run, B ${us(t.b_ps)} (B ${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%)` +
      (top ? `; the op that moved most: ${top.b ?? top.a} (${top.a_ps == null ? '-' : us(top.a_ps)} → ${top.b_ps == null ? '-' : us(top.b_ps)}).` : '.'),
    entry,
    verdict: diff.verdict,
  };
}

/** Every round a pair gives (at most one of each type), in the order fusion, spill, time. */
export function whatchangedRounds(diff, sides, random = Math.random) {
  return [fusionRound(diff, sides, random), spillRound(diff, sides, random), timeRound(diff)].filter(Boolean);
}

/**
 * What differs between the two sides, in words, from the pair's MANIFEST.json (fixtures/capture/
 * diff_pairs.py writes `sides.{a,b}.{variant, xla_flags}`): ["A: default flags", "B:
 * XLA_FLAGS=--xla_backend_optimization_level=0"] for a flag pair, ["A: variant f32", "B: variant
 * bf16"] for a code pair. [] when the manifest says nothing.
 */
export function sidesWords(manifest) {
  const a = manifest?.sides?.a;
  const b = manifest?.sides?.b;
  if (!a || !b) return [];
  const out = [[], []];
  if ((a.variant ?? null) !== (b.variant ?? null)) {
    out[0].push(`variant ${a.variant ?? '(none)'}`);
    out[1].push(`variant ${b.variant ?? '(none)'}`);
  }
  if ((a.xla_flags || '') !== (b.xla_flags || '')) {
    out[0].push(a.xla_flags ? `XLA_FLAGS=${a.xla_flags}` : 'default flags');
    out[1].push(b.xla_flags ? `XLA_FLAGS=${b.xla_flags}` : 'default flags');
  }
  if (!out[0].length) return ['A and B: the same variant and flags'];
  return [`A: ${out[0].join(', ')}`, `B: ${out[1].join(', ')}`];
}

/**
 * The program of a pair, read from its source.py: the block `if name == "<program>":` of
 * `program()` (the function and its arguments, where the variant's code shows), dedented. null
 * when the source does not hold it.
 */
export function programBlock(source, program) {
  if (!source || !program) return null;
  const lines = source.split('\n');
  const start = lines.findIndex((l) => l.trim() === `if name == ${JSON.stringify(program)}:`);
  if (start < 0) return null;
  const indent = /^\s*/.exec(lines[start])[0].length;
  const body = [];
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() && /^\s*/.exec(l)[0].length <= indent) break;
    body.push(l);
  }
  while (body.length && !body.at(-1).trim()) body.pop();
  const cut = Math.min(...body.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)[0].length));
  return body.map((l) => l.slice(cut)).join('\n') || null;
}
