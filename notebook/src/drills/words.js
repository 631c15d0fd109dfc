// Pure functions behind the drills' words and answers: no DOM, no wasm, no bundler-only
// imports, so node tests (tests/node/drills.test.mjs) run them on the core's real output.
import { plural, listWords } from './dom.js';

import { BOOKKEEPING_OPS as BOOKKEEPING, memorySpaceWords } from '../core-words.js';

const KIND_WORDS = {
  kLoop: ['a loop fusion', 'loop fusions', 'every op in it done in one pass over the data'],
  kInput: ['an input fusion', 'input fusions', 'a reduction, with the work around it riding along in its pass'],
  kOutput: ['an output fusion', 'output fusions', 'built around the op that writes its output'],
  kCustom: ['a custom fusion', 'custom fusions', 'emitted the backend\'s own way'],
};

const SCALAR_RESULT = /^\(?\s*(?:[a-z0-9]+\[\](?:\{[^}]*\})?\s*,?\s*)+\)?$/;

/**
 * The ops a module runs outside fusions, in printed order: the entry computation's and those
 * of computations it calls (XLA:CPU wraps work in `call`s to parallel_* computations), without
 * bookkeeping, calls, fusions, and the scalar reducer bodies that reduce ops apply.
 */
export function standaloneOps(computations) {
  const mod = computations?.modules?.[0];
  if (!mod) return [];
  const ops = [];
  for (const c of mod.computations) {
    if (c.role !== 'entry' && c.role !== 'called') continue;
    if (c.role === 'called' && c.result && SCALAR_RESULT.test(c.result)) continue;
    for (const i of c.instructions) {
      if (i.opcode === 'fusion' || i.opcode === 'call' || BOOKKEEPING.has(i.opcode)) continue;
      ops.push(i.opcode);
    }
  }
  return ops;
}

/** "reduce-window ×2 and reduce ×2" */
function countedWords(ops) {
  const counts = new Map();
  for (const op of ops) counts.set(op, (counts.get(op) || 0) + 1);
  return listWords([...counts].map(([op, n]) => (n > 1 ? `${op} ×${n}` : op)));
}

/** What a fusion census says, in words (the reveal of GYM·13). */
export function explainCensus(census, computations) {
  const n = census.fusion_computations;
  const standalone = standaloneOps(computations);
  const sentences = [];
  if (n === 0) {
    if (standalone.length === 1) {
      sentences.push(`The optimized module holds no fused computation: it runs ${standalone[0]} as one op of its own, and a single op has nothing to merge with.`);
    } else if (standalone.length > 1) {
      sentences.push(`The optimized module holds no fused computation: it runs ${countedWords(standalone)} as separate ops; XLA on this backend fused none of them together.`);
    } else {
      sentences.push('The optimized module holds no fused computation: no instruction in it is a fusion.');
    }
  } else {
    const kinds = census.fusions.filter((f) => !f.nested).map((f) => f.kind);
    const distinctKinds = [...new Set(kinds)];
    sentences.push(`The optimized module holds ${plural(n, 'fused computation')}, called by ${plural(census.fusion_ops, 'fusion instruction')}.`);
    for (const k of distinctKinds) {
      const c = kinds.filter((x) => x === k).length;
      const [one, many, what] = KIND_WORDS[k] || [`a ${k} fusion`, `${k} fusions`, null];
      const who = c === 1 ? (kinds.length === 1 ? 'It is' : 'One is') : c === kinds.length ? (c === 2 ? 'Both are' : `All ${c} are`) : `${c} are`;
      sentences.push(`${who} ${c === 1 ? one : many}${what ? `: ${what}` : ''}.`);
    }
    if (census.fusion_ops_nested > 0) {
      sentences.push(`${plural(census.fusion_ops_nested, 'fusion instruction')} sit${census.fusion_ops_nested === 1 ? 's' : ''} inside another fused body; each body still counts once.`);
    }
    if (census.fusion_ops > n && census.fusion_ops_nested === 0) {
      sentences.push('Some fusion instructions call the same body, which counts once.');
    }
    if (standalone.length) {
      sentences.push(`Outside the fusions the module runs ${countedWords(standalone)} as ${standalone.length === 1 ? 'an op' : 'ops'} of ${standalone.length === 1 ? 'its' : 'their'} own${n > 1 ? ': the fused passes cannot cross them' : ''}.`);
    }
  }
  return sentences.join(' ');
}

/**
 * The four choices of GYM·13 for a module of `n` fused computations: adjacent ranges of one
 * width, exactly one holding `n`, as `{ lo, hi, value: 'lo-hi', label }`. The width is drawn
 * between a twentieth and a quarter of `n` (at least 1: single counts for small modules), so
 * that telling the ranges apart takes counting at any size and the width says little of
 * where `n` is among them. The range
 * holding `n` sits at a random place among the four and `n` at a random place inside it, so
 * neither the order nor the middle of a range gives it away; no range goes below 0.
 * `random` returns numbers in [0, 1).
 */
export function countChoices(n, random = Math.random) {
  const pick = (k) => Math.min(k - 1, Math.floor(random() * k));
  const w = Math.max(1, Math.round(n * (0.05 + 0.2 * random())));
  const at = pick(Math.min(3, Math.floor(n / w)) + 1); // the place of n's range among the four
  const into = pick(Math.min(w - 1, n - at * w) + 1); // the place of n inside it
  const first = n - into - at * w;
  return [0, 1, 2, 3].map((k) => {
    const lo = first + k * w;
    const hi = lo + w - 1;
    return { lo, hi, value: `${lo}-${hi}`, label: lo === hi ? String(lo) : `${lo}–${hi}` };
  });
}

/** A memory space in words (one wording for every page: ../core-words.js). */
export function memoryWords(space, backend = null) {
  return memorySpaceWords(space, backend);
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
 * Provenance in words from a capture's MANIFEST.json: chip, jax version, how and when it was
 * captured ("cpu (TFRT_CPU_0, x86_64) · jax 0.4.38 · captured by bash fixtures/capture/run.sh
 * (npm run capture) on 2026-11-29"). Says nothing it cannot read; null when it reads nothing.
 */
export function provenance(m) {
  if (!m || typeof m !== 'object') return null;
  const get = (path) => path.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), m);
  const str = (...paths) => {
    for (const p of paths) {
      const v = get(p);
      if (typeof v === 'string' && v.trim()) return v.trim();
      if (typeof v === 'number') return String(v);
    }
    return null;
  };
  const backend = str('platform.jax_backend', 'backend', 'chip', 'device_kind', 'platform');
  const devices = get('platform.devices');
  const device = Array.isArray(devices) && typeof devices[0] === 'string' ? devices[0] : str('device');
  const machine = str('platform.machine');
  const chipBits = [device, machine].filter(Boolean);
  const chip = backend ? `${backend}${chipBits.length ? ` (${chipBits.join(', ')})` : ''}` : (chipBits.join(', ') || null);
  const jax = str('jax', 'packages.jax', 'jax_version', 'versions.jax');
  const jaxlib = str('jaxlib', 'packages.jaxlib', 'jaxlib_version');
  const how = str('command.run', 'how.capture', 'captured_by', 'method', 'command.capture');
  const date = str('date_utc', 'date');
  const parts = [];
  if (chip) parts.push(chip);
  if (jax) parts.push(`jax ${jax}${jaxlib && jaxlib !== jax ? ` (jaxlib ${jaxlib})` : ''}`);
  if (how) parts.push(`captured by ${how}${date ? ` on ${date.slice(0, 10)}` : ''}`);
  return parts.length ? parts.join(' · ') : null;
}
