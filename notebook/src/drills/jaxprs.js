// The captures' jaxprs (fixtures/cpu-jax-0.4.38/<id>/jaxpr.txt: str(jax.make_jaxpr(f)(*args))),
// packed into the page the way corpus.js packs the optimized HLO and StableHLO: one import per
// file with an empty template slot, so a missing file skips that program at run time instead
// of failing the build. GYM·03 reads them; the decisions come from the core at run time.
import { CAPTURE_DIR } from './corpus.js';

const S = '';
const JAXPRS = {
  exp: () => import(`../../../fixtures/cpu-jax-0.4.38/exp/jaxpr.txt${S}`, { with: { type: 'text' } }),
  chain: () => import(`../../../fixtures/cpu-jax-0.4.38/chain/jaxpr.txt${S}`, { with: { type: 'text' } }),
  rowbcast: () => import(`../../../fixtures/cpu-jax-0.4.38/rowbcast/jaxpr.txt${S}`, { with: { type: 'text' } }),
  rowsum_sqrt: () => import(`../../../fixtures/cpu-jax-0.4.38/rowsum_sqrt/jaxpr.txt${S}`, { with: { type: 'text' } }),
  matmul: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul/jaxpr.txt${S}`, { with: { type: 'text' } }),
  matmul_tanh: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/jaxpr.txt${S}`, { with: { type: 'text' } }),
  softmax: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/jaxpr.txt${S}`, { with: { type: 'text' } }),
  sincos: () => import(`../../../fixtures/cpu-jax-0.4.38/sincos/jaxpr.txt${S}`, { with: { type: 'text' } }),
  attention: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/jaxpr.txt${S}`, { with: { type: 'text' } }),
  naive_attention: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/jaxpr.txt${S}`, { with: { type: 'text' } }),
  causal: () => import(`../../../fixtures/cpu-jax-0.4.38/causal/jaxpr.txt${S}`, { with: { type: 'text' } }),
  mha: () => import(`../../../fixtures/cpu-jax-0.4.38/mha/jaxpr.txt${S}`, { with: { type: 'text' } }),
  gqa: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/jaxpr.txt${S}`, { with: { type: 'text' } }),
  layernorm: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/jaxpr.txt${S}`, { with: { type: 'text' } }),
  rmsnorm: () => import(`../../../fixtures/cpu-jax-0.4.38/rmsnorm/jaxpr.txt${S}`, { with: { type: 'text' } }),
  logsumexp: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/jaxpr.txt${S}`, { with: { type: 'text' } }),
  mlp: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/jaxpr.txt${S}`, { with: { type: 'text' } }),
  moe: () => import(`../../../fixtures/cpu-jax-0.4.38/moe/jaxpr.txt${S}`, { with: { type: 'text' } }),
  grads: () => import(`../../../fixtures/cpu-jax-0.4.38/grads/jaxpr.txt${S}`, { with: { type: 'text' } }),
  remat: () => import(`../../../fixtures/cpu-jax-0.4.38/remat/jaxpr.txt${S}`, { with: { type: 'text' } }),
  rope: () => import(`../../../fixtures/cpu-jax-0.4.38/rope/jaxpr.txt${S}`, { with: { type: 'text' } }),
  scan: () => import(`../../../fixtures/cpu-jax-0.4.38/scan/jaxpr.txt${S}`, { with: { type: 'text' } }),
  dequant: () => import(`../../../fixtures/cpu-jax-0.4.38/dequant/jaxpr.txt${S}`, { with: { type: 'text' } }),
  psum: () => import(`../../../fixtures/cpu-jax-0.4.38/psum/jaxpr.txt${S}`, { with: { type: 'text' } }),
  sharded: () => import(`../../../fixtures/cpu-jax-0.4.38/sharded/jaxpr.txt${S}`, { with: { type: 'text' } }),
};

const cache = new Map();

/** The jaxpr text of capture `id` (rejects when this build does not hold it). */
export function jaxpr(id) {
  if (!/^[a-z0-9_]+$/.test(id || '') || !JAXPRS[id]) return Promise.reject(new Error(`capture ${id} has no jaxpr in this page`));
  if (!cache.has(id)) {
    const p = Promise.resolve().then(JAXPRS[id]).then((m) => m.default, () => {
      throw new Error(`capture ${CAPTURE_DIR}/${id}/jaxpr.txt is not in this build`);
    });
    cache.set(id, p);
    p.catch(() => cache.delete(id));
  }
  return cache.get(id);
}

/** The programs whose jaxprs this page packs. */
export const JAXPR_PROGRAMS = Object.keys(JAXPRS);
