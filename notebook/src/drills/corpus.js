// Our own captures, packed into the page by the bundler: every
// fixtures/cpu-jax-0.4.38/<id>/{after_optimizations.txt, stablehlo.mlir, source.py, MANIFEST.json}
// that exists at build time can be named by the templates below (esbuild bundles each match;
// `with { type: 'text' }` picks its text loader whatever the build's loader table says).
// Nothing is fetched: the drills work offline and from file://.
//
// The answers are not here: drills parse these texts with the core at run time.

export const CAPTURE_DIR = 'cpu-jax-0.4.38';

/** The eight programs of GYM·13, and the ones GYM·07 offers first. */
export const FUSIONCOUNT_PROGRAMS = ['exp', 'chain', 'rowbcast', 'rowsum_sqrt', 'matmul', 'matmul_tanh', 'softmax', 'sincos'];

/** Further captures the x-ray offers when they exist (they are tried, and skipped when absent). */
export const XRAY_PROGRAMS = [
  ...FUSIONCOUNT_PROGRAMS,
  'mlp', 'layernorm', 'rmsnorm', 'logsumexp', 'attention', 'naive_attention', 'causal', 'mha', 'gqa', 'rope',
  'scan', 'remat', 'moe', 'grads', 'dequant',
];

/**
 * What each program computes, shown when its source.py cannot be read. The expression is
 * the program, not the answer: counts come from parsing the optimized module.
 */
export const EXPRESSIONS = {
  exp: { title: 'one elementwise op', code: 'y = jnp.exp(x)' },
  chain: { title: 'a chain of elementwise ops', code: 'y = jnp.tanh(jnp.exp(x) + 1.0)' },
  rowbcast: { title: 'a row broadcast and a multiply', code: 'y = x * v[None, :]' },
  rowsum_sqrt: { title: 'a reduction then elementwise', code: 'y = jnp.sqrt(jnp.sum(x, axis=1))' },
  matmul: { title: 'a matmul on its own', code: 'y = x @ x' },
  matmul_tanh: { title: 'a matmul then elementwise', code: 'y = jnp.tanh(x @ x)' },
  softmax: { title: 'softmax over rows', code: 'y = jax.nn.softmax(x, axis=1)' },
  sincos: { title: 'two independent chains, added', code: 'y = jnp.sin(x) + jnp.cos(x)' },
};

import { programFromSource } from './words.js';
export { provenance } from './words.js';

const ID_RE = /^[a-z0-9_]+$/;

function check(id) {
  if (!ID_RE.test(id || '')) throw new Error(`not a capture id: ${JSON.stringify(id)}`);
}

const cache = new Map();
function once(key, f) {
  if (!cache.has(key)) {
    const p = f();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return cache.get(key);
}

function missing(id, file) {
  return () => { throw new Error(`capture ${CAPTURE_DIR}/${id}/${file} is not in this build`); };
}

/** The optimized HLO text of capture `id`. */
export function optimizedHlo(id) {
  check(id);
  return once(`${id}/hlo`, () => import(`../../../fixtures/cpu-jax-0.4.38/${id}/after_optimizations.txt`, { with: { type: 'text' } })
    .then((m) => m.default, missing(id, 'after_optimizations.txt')));
}

/** The StableHLO text XLA received for capture `id`. */
export function stablehlo(id) {
  check(id);
  return once(`${id}/mlir`, () => import(`../../../fixtures/cpu-jax-0.4.38/${id}/stablehlo.mlir`, { with: { type: 'text' } })
    .then((m) => m.default, missing(id, 'stablehlo.mlir')));
}

/** The program's Python source. */
export function sourcePy(id) {
  check(id);
  return once(`${id}/py`, () => import(`../../../fixtures/cpu-jax-0.4.38/${id}/source.py`, { with: { type: 'text' } })
    .then((m) => m.default, missing(id, 'source.py')));
}

/** The capture's MANIFEST.json, parsed. */
export function manifest(id) {
  check(id);
  return once(`${id}/manifest`, () => import(`../../../fixtures/cpu-jax-0.4.38/${id}/MANIFEST.json`, { with: { type: 'json' } })
    .then((m) => m.default, missing(id, 'MANIFEST.json')));
}

/** The one-line program of capture `id` (see programFromSource), from its source.py or EXPRESSIONS. */
export async function program(id) {
  let src = null;
  try { src = await sourcePy(id); } catch { /* not captured with a source: use the table */ }
  return programFromSource(id, src, EXPRESSIONS[id]);
}
