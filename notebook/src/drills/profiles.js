// Our own captured profiles for the timeline drill (GYM·08), packed into the page by the
// bundler as bytes (notebook/build.mjs loads `.pb` files with esbuild's binary loader): for each
// program below, fixtures/cpu-jax-0.4.38/<id>/profile.xplane.pb, what jax.profiler wrote for 5
// calls of the jitted program on XLA:CPU (fixtures/README.md). The rounds are not here: the
// drill reads these bytes with the core at run time. As in corpus.js, each import is a
// pattern (`${S}`), so a profile missing from the checkout only skips that program.

export const PROFILE_DIR = 'cpu-jax-0.4.38';

const S = '';
const FILES = {
  softmax: () => import(`../../../fixtures/cpu-jax-0.4.38/softmax/profile.xplane.pb${S}`),
  attention: () => import(`../../../fixtures/cpu-jax-0.4.38/attention/profile.xplane.pb${S}`),
  naive_attention: () => import(`../../../fixtures/cpu-jax-0.4.38/naive_attention/profile.xplane.pb${S}`),
  mlp: () => import(`../../../fixtures/cpu-jax-0.4.38/mlp/profile.xplane.pb${S}`),
  layernorm: () => import(`../../../fixtures/cpu-jax-0.4.38/layernorm/profile.xplane.pb${S}`),
  logsumexp: () => import(`../../../fixtures/cpu-jax-0.4.38/logsumexp/profile.xplane.pb${S}`),
  matmul_tanh: () => import(`../../../fixtures/cpu-jax-0.4.38/matmul_tanh/profile.xplane.pb${S}`),
  gqa: () => import(`../../../fixtures/cpu-jax-0.4.38/gqa/profile.xplane.pb${S}`),
};

export const TIMELINE_PROGRAMS = Object.keys(FILES);

/** The bytes of a captured profile (a Uint8Array); rejects when it is not in this build. */
export async function profileBytes(id) {
  const f = FILES[id];
  if (!f) throw new Error(`no captured profile ${JSON.stringify(id)}`);
  const m = await f();
  return m.default;
}
