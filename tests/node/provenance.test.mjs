// Every fixture is real compiler or profiler output with its provenance beside it: this checks
// that the provenance still describes the bytes. Each folder two levels under fixtures/ has a
// MANIFEST.json; every file a manifest hashes ("files": {name: {sha256, size|bytes}}, written by
// the capture scripts when they captured it) still has that size and sha256, so a fixture edited
// by hand after its capture fails here; and a version folder's manifest (fixtures/capture/
// manifest.py) names exactly the program folders under it, by the sha256 of their own manifests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureFolders, fixtureSubfolders, fixturesDir as fixtures } from '../fixtures.mjs';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// fixtures/<set>/<folder>, the capture scripts' own folder aside
const folders = fixtureFolders();

test('every fixture folder has a MANIFEST.json', () => {
  assert.ok(folders.length > 0, 'no fixture folders');
  assert.deepEqual(folders.filter((f) => !existsSync(join(fixtures, f, 'MANIFEST.json'))), []);
});

test('every file a manifest hashes still has its size and sha256', () => {
  let checked = 0;
  const differ = [];
  const visit = (rel) => {
    const man = join(fixtures, rel, 'MANIFEST.json');
    if (existsSync(man)) {
      const files = JSON.parse(readFileSync(man, 'utf8')).files;
      for (const [name, want] of Object.entries(files && typeof files === 'object' ? files : {})) {
        const file = join(fixtures, rel, name);
        if (!existsSync(file)) { differ.push(`${rel}/${name}: missing`); continue; }
        const bytes = readFileSync(file);
        const size = want.size ?? want.bytes;
        if (bytes.length !== size || sha256(bytes) !== want.sha256) differ.push(`${rel}/${name}: ${bytes.length} bytes, not the ${size} captured`);
        checked++;
      }
    }
    for (const d of fixtureSubfolders(rel)) visit(join(rel, d));
  };
  for (const f of folders) visit(f);
  assert.deepEqual(differ, []);
  assert.ok(checked > 100, `only ${checked} files hashed`);
});

test('a version folder manifest names its program folders by their manifests', () => {
  for (const set of ['levels', 'passes', 'types']) {
    if (!existsSync(join(fixtures, set))) continue;
    for (const v of fixtureSubfolders(set)) {
      const rel = join(set, v);
      const man = JSON.parse(readFileSync(join(fixtures, rel, 'MANIFEST.json'), 'utf8'));
      assert.deepEqual(Object.keys(man.programs).sort(), fixtureSubfolders(rel), rel);
      for (const [p, { manifest_sha256: want }] of Object.entries(man.programs)) {
        const own = JSON.parse(readFileSync(join(fixtures, rel, p, 'MANIFEST.json'), 'utf8'));
        assert.equal(sha256(readFileSync(join(fixtures, rel, p, 'MANIFEST.json'))), want, `${rel}/${p}: its MANIFEST.json changed after the version manifest was written`);
        assert.equal(own.jax, man.jax, `${rel}/${p}`);
      }
      assert.equal(`cpu-jax-${man.jax}`, v, `${rel}: the folder is named after the jax that wrote it`);
    }
  }
});
