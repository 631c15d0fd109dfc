// Our own captures, packed into the page by the bundler: for each program below, its
// fixtures/cpu-jax-0.4.38/<id>/{after_optimizations.txt, stablehlo.mlir, source.py, MANIFEST.json}.
// Nothing is fetched: the drills work offline and from file://.
//
// Each import names one file with an empty template slot after it (`${S}`): esbuild then
// treats it as a pattern, bundles the file when it exists, and a capture missing from the
// checkout fails at run time (that program is skipped) instead of failing the whole build.
// `with { type: 'text' }` picks the text loader whatever the build's loader table says.
// Programs are listed one by one so that large captures made for benchmarks
// (transformer_step: 1 MB of HLO) stay out of the pages.
//
// The answers are not here: drills parse these texts with the core at run time.

import { programFromSource } from './words.js';
export { provenance } from './words.js';

export const CAPTURE_DIR = 'cpu-jax-0.4.38';

/** The eight programs of GYM·13, and the ones GYM·07 offers first. */
export const FUSIONCOUNT_PROGRAMS = ['exp', 'chain', 'rowbcast', 'rowsum_sqrt', 'matmul', 'matmul_tanh', 'softmax', 'sincos'];

/** The captures the x-ray offers (those missing from the build are skipped). */
export const XRAY_PROGRAMS = [
  ...FUSIONCOUNT_PROGRAMS,
  'attention', 'naive_attention', 'causal', 'mha', 'gqa', 'layernorm', 'rmsnorm', 'logsumexp', 'mlp', 'moe',
  'grads', 'remat', 'rope', 'scan', 'dequant', 'psum', 'sharded',
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

const S = '';
const FILES = {
  exp: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/exp/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/exp/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/exp/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/exp/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  chain: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/chain/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/chain/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/chain/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/chain/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  rowbcast: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/rowbcast/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/rowbcast/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/rowbcast/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/rowbcast/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  rowsum_sqrt: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/rowsum_sqrt/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/rowsum_sqrt/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/rowsum_sqrt/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/rowsum_sqrt/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  matmul: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  matmul_tanh: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  softmax: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  sincos: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/sincos/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/sincos/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/sincos/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/sincos/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  attention: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  naive_attention: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  causal: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/causal/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/causal/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/causal/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/causal/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  mha: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/mha/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/mha/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/mha/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/mha/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  gqa: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  layernorm: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  rmsnorm: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/rmsnorm/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/rmsnorm/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/rmsnorm/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/rmsnorm/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  logsumexp: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  mlp: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  moe: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/moe/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/moe/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/moe/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/moe/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  grads: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/grads/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/grads/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/grads/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/grads/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  remat: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/remat/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/remat/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/remat/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/remat/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  rope: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/rope/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/rope/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/rope/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/rope/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  scan: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/scan/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/scan/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/scan/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/scan/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  dequant: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/dequant/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/dequant/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/dequant/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/dequant/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  psum: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/psum/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/psum/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/psum/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/psum/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
  sharded: {
    hlo: () => import(`../../../fixtures/cpu-jax-0.4.38/sharded/after_optimizations.txt${S}`, { with: { type: 'text' } }),
    mlir: () => import(`../../../fixtures/cpu-jax-0.4.38/sharded/stablehlo.mlir${S}`, { with: { type: 'text' } }),
    py: () => import(`../../../fixtures/cpu-jax-0.4.38/sharded/source.py${S}`, { with: { type: 'text' } }),
    manifest: () => import(`../../../fixtures/cpu-jax-0.4.38/sharded/MANIFEST.json${S}`, { with: { type: 'json' } }),
  },
};

function file(id, what, name) {
  check(id);
  const load = FILES[id]?.[what];
  if (!load) return Promise.reject(new Error(`capture ${id} is not one this page bundles`));
  // A pattern with no match throws synchronously: start inside a promise.
  return once(`${id}/${what}`, () => Promise.resolve().then(load).then((m) => m.default, missing(id, name)));
}

/** The optimized HLO text of capture `id`. */
export const optimizedHlo = (id) => file(id, 'hlo', 'after_optimizations.txt');
/** The StableHLO text XLA received for capture `id`. */
export const stablehlo = (id) => file(id, 'mlir', 'stablehlo.mlir');
/** The program's Python source. */
export const sourcePy = (id) => file(id, 'py', 'source.py');
/** The capture's MANIFEST.json, parsed. */
export const manifest = (id) => file(id, 'manifest', 'MANIFEST.json');

/** The one-line program of capture `id` (see programFromSource), from its source.py or EXPRESSIONS. */
export async function program(id) {
  let src = null;
  try { src = await sourcePy(id); } catch { /* not captured with a source: use the table */ }
  return programFromSource(id, src, EXPRESSIONS[id]);
}
