// GYM·14's real pairs: two compiles of one program, packed into the page by the bundler from
// fixtures/diff-pairs/<set>/<pair>/{a,b}.after_optimizations.txt, MANIFEST.json, source.py and,
// where captured, {a,b}.xplane.pb (made by fixtures/capture/diff_pairs.py). notebook/build.mjs lists them with the fixture walker
// (`hs:diff-pairs`); each file is a lazy import, so nothing is fetched and the drill works from
// file://. The answers are not here: the drill diffs the two texts with the core at run time.
import { PAIRS } from 'hs:diff-pairs';

/** A pair's id: "<jax version>/<pair>", e.g. "0.12.0.1/mlp_grad-remat". */
const idOf = (p) => `${p.set.replace(/^cpu-jax-/, '')}/${p.pair}`;
const byId = new Map(PAIRS.map((p) => [idOf(p), p]));

/** Every bundled pair's id, in the walker's order. */
export const PAIR_IDS = [...byId.keys()];

/** Where pair `id` was read from: "fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_grad-remat". */
export function pairDir(id) {
  const p = byId.get(id);
  return p ? `fixtures/diff-pairs/${p.set}/${p.pair}` : null;
}

const cache = new Map();

/** { id, dir, a, b, manifest, source, profiles } of pair `id` (source and manifest null when not
 * bundled; profiles [A's, B's] .xplane.pb bytes, null when the pair has none). */
export function loadPair(id) {
  const p = byId.get(id);
  if (!p) return Promise.reject(new Error(`no pair ${JSON.stringify(id)} in this build`));
  if (!cache.has(id)) {
    const get = (k) => (p.files[k] ? Promise.resolve().then(p.files[k]).then((m) => m.default) : Promise.resolve(null));
    const r = Promise.all([get('a'), get('b'), get('manifest'), get('source').catch(() => null), get('a_profile'), get('b_profile')])
      .then(([a, b, manifest, source, pa, pb]) => ({ id, dir: pairDir(id), a, b, manifest, source, profiles: pa && pb ? [pa, pb] : null }));
    cache.set(id, r);
    r.catch(() => cache.delete(id));
  }
  return cache.get(id);
}
