// The one walker over our captured fixtures and the shared captures, for every JS test (node,
// oracle, browser): fixtures/cpu-jax-<version>/<id>/ folders, and ../shared/captures/<sub>/
// files read in place (an empty list when ../shared is absent: callers skip with a reason).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const fixturesDir = join(repoRoot, 'fixtures');
export const sharedCapturesDir = resolve(repoRoot, '../shared/captures');

/**
 * Every fixture case folder, sorted by set then id: { set, id, label: 'set/id', dir,
 * file(name) -> its path when that file exists, else null }.
 */
export function fixtureCases(dir = fixturesDir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const set of readdirSync(dir).sort()) {
    if (!set.startsWith('cpu-jax-')) continue;
    const setDir = join(dir, set);
    if (!statSync(setDir).isDirectory()) continue;
    for (const id of readdirSync(setDir).sort()) {
      const caseDir = join(setDir, id);
      if (!statSync(caseDir).isDirectory()) continue;
      out.push({
        set, id, label: `${set}/${id}`, dir: caseDir,
        file(name) { const p = join(caseDir, name); return existsSync(p) ? p : null; },
      });
    }
  }
  return out;
}

/** The files of ../shared/captures/<sub> whose names pass `keep`, sorted; [] when absent. */
export function sharedCaptures(sub, keep = () => true) {
  const d = join(sharedCapturesDir, sub);
  if (!existsSync(d)) return [];
  return readdirSync(d).sort().filter(keep).map((f) => join(d, f));
}

/** The case folders tests/cases/<case>/ (input.* + expect; tests/cases/README.md), sorted: { name, dir }. */
export function caseFolders(dir = join(repoRoot, 'tests/cases')) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().map((name) => ({ name, dir: join(dir, name) })).filter((c) => statSync(c.dir).isDirectory());
}
