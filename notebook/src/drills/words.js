// Pure functions behind the drills' words and answers: no DOM, no wasm, no bundler-only
// imports, so node tests (tests/node/drills.test.mjs) run them on the core's real output.
import { plural, listWords } from './dom.js';

// Instructions that move or name data rather than compute: not "ops left on their own".
const BOOKKEEPING = new Set(['parameter', 'constant', 'tuple', 'get-tuple-element', 'bitcast', 'copy', 'after-all', 'partition-id', 'replica-id']);

const KIND_WORDS = {
  kLoop: 'a loop fusion: elementwise work done in one pass over the data',
  kInput: 'an input fusion: a reduction, with the work around it riding along in its pass',
  kOutput: 'an output fusion: built around the op that writes its output',
  kCustom: 'a custom fusion the backend emits its own way',
};

/** What a fusion census says, in words (the reveal of GYM·13). */
export function explainCensus(census, computations) {
  const n = census.fusion_computations;
  const mod = computations?.modules?.[0];
  const entry = mod?.computations?.find((c) => c.role === 'entry');
  const standalone = entry ? entry.instructions.map((i) => i.opcode).filter((op) => op !== 'fusion' && !BOOKKEEPING.has(op)) : [];
  const sentences = [];
  if (n === 0) {
    if (standalone.length === 1) {
      sentences.push(`The optimized module holds no fused computation: the entry computation runs ${standalone[0]} as one op of its own, and a single op has nothing to merge with.`);
    } else if (standalone.length > 1) {
      sentences.push(`The optimized module holds no fused computation: the entry computation runs ${listWords(standalone)} as separate ops, so XLA on this backend found nothing worth fusing.`);
    } else {
      sentences.push('The optimized module holds no fused computation: no instruction in it is a fusion.');
    }
  } else {
    const kinds = census.fusions.filter((f) => !f.nested).map((f) => f.kind);
    const distinctKinds = [...new Set(kinds)];
    sentences.push(`The optimized module holds ${plural(n, 'fused computation')}, called by ${plural(census.fusion_ops, 'fusion instruction')}.`);
    for (const k of distinctKinds) {
      const c = kinds.filter((x) => x === k).length;
      sentences.push(`${c === 1 ? 'One is' : `${c} are`} ${KIND_WORDS[k] || `of kind ${k}`}.`);
    }
    if (census.fusion_ops_nested > 0) {
      sentences.push(`${plural(census.fusion_ops_nested, 'fusion instruction')} sit${census.fusion_ops_nested === 1 ? 's' : ''} inside another fused body; each body still counts once.`);
    }
    if (census.fusion_ops > n && census.fusion_ops_nested === 0) {
      sentences.push('Some fusion instructions call the same body, which counts once.');
    }
    if (n > 1) sentences.push(`Each fused computation is one kernel: the data crosses memory ${n - 1 === 1 ? 'once' : `${n - 1} times`} between them.`);
    if (standalone.length) sentences.push(`Outside the fusions the entry computation runs ${listWords(standalone)} on ${standalone.length === 1 ? 'its' : 'their'} own.`);
  }
  if (n >= 3) sentences.push('"3 or more" is the button for this one.');
  return sentences.join(' ');
}

export function memoryWords(space) {
  switch (space) {
    case null: case undefined: return null;
    case 0: return 'S(0): the default memory (HBM on an accelerator, RAM on the CPU)';
    case 1: return 'S(1): the fast on-chip memory (VMEM on a TPU)';
    case 2: return 'S(2): TPU sync-flag memory';
    case 5: return 'S(5): pinned host memory';
    case 6: return 'S(6): unpinned host memory';
    default: return `S(${space}): memory space ${space}`;
  }
}

/** The lines the learner must find: right-side fusion lines that carry the big intermediate. */
export function targetLines(x) {
  if (!x?.summary?.big) return null;
  return x.right.filter((l) => l.class === 'fusion' && l.carries).map((l) => l.line);
}

/**
 * The one-line program and its arguments, read from source.py: the `return` of the function
 * named like the capture (shown as `y = ...`), and the argument shapes from the docstring
 * ("x: f32[256,256]"). Falls back to `fallback` ({title, code}) when the source says nothing.
 */
export function programFromSource(id, src, fallback = { title: id, code: null }) {
  const out = { id, title: fallback.title, code: fallback.code, args: null, from: 'table' };
  if (!src) return out;
  const lines = src.split('\n');
  const def = lines.findIndex((l) => new RegExp(`^def\\s+${id}\\s*\\(`).test(l));
  if (def >= 0) {
    for (let i = def + 1; i < lines.length && (/^\s/.test(lines[i]) || lines[i] === ''); i++) {
      const m = /^\s+return\s+(.+?)\s*$/.exec(lines[i]);
      if (m) { out.code = `y = ${m[1]}`; out.from = 'source.py'; break; }
    }
  }
  const doc = /"""([\s\S]*?)"""/.exec(src);
  if (doc) {
    const args = [...doc[1].matchAll(/\b([a-z_][a-z0-9_]*):\s*([a-z0-9]+\[[0-9,]*\])/g)].map((m) => `${m[1]}: ${m[2]}`);
    if (args.length) out.args = args.join(', ');
  }
  return out;
}

/**
 * Provenance in words from MANIFEST.json: "cpu, jax 0.4.38, captured by ...". Reads the
 * fields it knows and says nothing it cannot read.
 */
export function provenance(m) {
  if (!m || typeof m !== 'object') return null;
  const pick = (...names) => {
    for (const n of names) {
      const v = n.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), m);
      if (typeof v === 'string' && v.trim()) return v.trim();
      if (typeof v === 'number') return String(v);
    }
    return null;
  };
  const chip = pick('chip', 'device', 'device_kind', 'platform', 'backend', 'capture.chip', 'capture.platform', 'environment.platform');
  const jax = pick('jax', 'jax_version', 'versions.jax', 'capture.jax', 'environment.jax');
  const jaxlib = pick('jaxlib', 'jaxlib_version', 'versions.jaxlib', 'environment.jaxlib');
  const how = pick('how', 'captured_by', 'method', 'capture.how', 'capture.method', 'tool', 'script', 'command', 'capture.script');
  const parts = [];
  if (chip) parts.push(chip);
  if (jax) parts.push(`jax ${jax}${jaxlib && jaxlib !== jax ? ` (jaxlib ${jaxlib})` : ''}`);
  if (how) parts.push(`captured by ${how}`);
  return parts.length ? parts.join(', ') : null;
}
