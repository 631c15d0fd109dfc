// The one fixture walker of the node tests: our own captures (fixtures/cpu-jax-<version>/<id>/)
// and the case folders (tests/cases/<case>/), in name order. Not a test file itself.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** [{ set, id, dir }] for every fixtures/cpu-jax-<version>/<id>/ folder. */
export function fixtureDirs(fixturesDir = path.join(root, 'fixtures')) {
  const out = [];
  if (!existsSync(fixturesDir)) return out;
  for (const set of readdirSync(fixturesDir).filter((d) => d.startsWith('cpu-jax-')).sort()) {
    const setDir = path.join(fixturesDir, set);
    if (!statSync(setDir).isDirectory()) continue;
    for (const id of readdirSync(setDir).sort()) {
      const dir = path.join(setDir, id);
      if (statSync(dir).isDirectory()) out.push({ set, id, dir });
    }
  }
  return out;
}

/** [{ name, dir }] for every tests/cases/<case>/ folder. */
export function caseDirs() {
  const dir = path.join(root, 'tests/cases');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort()
    .map((name) => ({ name, dir: path.join(dir, name) }))
    .filter((c) => statSync(c.dir).isDirectory());
}
