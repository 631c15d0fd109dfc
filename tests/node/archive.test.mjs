// Issue 33 item 4: the dump-folder rules are the core's, so the CLI and the page (the wasm, with
// the platform's DecompressionStream) give the same entries, warnings and errors for the same
// archive, and pick the same files: the memory report's HLO, a .ll's HLO. Archives are the
// committed fixtures/passes ones and copies made here (.tar, .zip stored/deflated/bzip2, a
// gzipped step inside a tar, cut and garbled). Skips with a message when a build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fixtureCases, filesBeside, levelsFixtures, passFixtures, repoRoot } from '../fixtures.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(repoRoot, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = (!wasmBuilt && 'wasm build missing (npm run build:wasm)') || (!existsSync(cli) && 'native CLI not built (npm run build:native)') || false;
const python = spawnSync('python3', ['-V']).status === 0;

/** `hloscope ARGS`: { rc, out, err }. */
function run(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { rc: r.status, out: r.stdout, err: r.stderr };
}

/** The CLI and the page on one archive file: the same JSON, or the same error (code and message). */
async function same(file, label = path.basename(file)) {
  const native = run(['passes', '--json', file]);
  let page;
  try {
    page = { json: api.passesJSON(await api.readArchive(readFileSync(file)), { label }) };
  } catch (e) {
    page = { code: e.code, message: e.message };
  }
  if (native.rc === 0) {
    assert.equal(page.json, native.out.trimEnd(), `${label}: the page's JSON is the CLI's (${page.message ?? ''})`);
    return JSON.parse(native.out);
  }
  // the CLI: "PATH:0:0: CODE: message"; the page: HloscopeError { code, message }
  const m = /^.*?:0:0: (HS_E_\w+): (.*)$/m.exec(native.err);
  assert.ok(m, `${label}: the CLI says ${native.err}`);
  assert.deepEqual({ code: page.code, message: page.message }, { code: m[1], message: m[2] }, label);
  return null;
}

let tmp;
test.before(() => { tmp = mkdtempSync(path.join(tmpdir(), 'hs-archive-')); });
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('every committed dump archive: the same JSON from the CLI and the page', { skip }, async () => {
  const dirs = passFixtures().map((c) => c.dir);
  assert.ok(dirs.length >= 6);
  for (const d of dirs) assert.ok(await same(path.join(d, 'dump.tar.gz'), 'dump.tar.gz'), d);
});

test('.tar, .zip (stored, deflated, bzip2), a gzipped step inside: the same entries and warnings', { skip: skip || (!python && 'no python3') }, async () => {
  const gz = readFileSync(path.join(passFixtures()[0].dir, 'dump.tar.gz'));
  const tar = gunzipSync(gz);
  writeFileSync(path.join(tmp, 'd.tar'), tar);
  const t = await same(path.join(tmp, 'd.tar'), 'd.tar');
  assert.equal(t.warnings.length, 0);
  // a zip with each member stored, deflated, or bzip2 (read by name only, with a warning)
  const py = `
import tarfile, zipfile, io, sys
t = tarfile.open(sys.argv[1])
with zipfile.ZipFile(sys.argv[2], 'w') as z:
    for i, m in enumerate(x for x in t.getmembers() if x.isfile()):
        how = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2][i % 3]
        z.writestr(zipfile.ZipInfo(m.name), t.extractfile(m).read(), compress_type=how)
# a tar whose steps are gzipped (module_x...txt.gz), as people commit them
import gzip
out = tarfile.open(sys.argv[3], 'w')
for m in t.getmembers():
    if not m.isfile(): continue
    data = t.extractfile(m).read()
    if m.name.endswith('.txt'):
        data = gzip.compress(data); m.name += '.gz'
    m.size = len(data)
    out.addfile(m, io.BytesIO(data))
out.close()
`;
  const r = spawnSync('python3', ['-c', py, path.join(tmp, 'd.tar'), path.join(tmp, 'd.zip'), path.join(tmp, 'gz-steps.tar')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const z = await same(path.join(tmp, 'd.zip'), 'd.zip');
  assert.ok(z.warnings.some((w) => w.code === 'HS_W_ARCHIVE_UNREAD' && /compression method 12/.test(w.message)), JSON.stringify(z.warnings[0]));
  assert.equal(z.files.length, t.files.length);
  const g = await same(path.join(tmp, 'gz-steps.tar'), 'gz-steps.tar');
  // the gzipped steps count as their text does
  assert.deepEqual(g.modules.map((m) => m.steps.map((s) => s.counts)), t.modules.map((m) => m.steps.map((s) => s.counts)));
});

test('cut and garbled archives: the same error (with its byte) or the same warning', { skip: skip || (!python && 'no python3') }, async () => {
  const gz = readFileSync(path.join(passFixtures()[0].dir, 'dump.tar.gz'));
  const tar = gunzipSync(gz);
  const zipFile = path.join(tmp, 'd.zip');
  if (!existsSync(zipFile)) spawnSync('python3', ['-c', 'import zipfile,tarfile,sys; t=tarfile.open(sys.argv[1]); z=zipfile.ZipFile(sys.argv[2],"w",zipfile.ZIP_DEFLATED); [z.writestr(m.name, t.extractfile(m).read()) for m in t.getmembers() if m.isfile()]; z.close()', path.join(tmp, 'd.tar'), zipFile]);
  const zip = readFileSync(zipFile);
  // past the first file (its GNU long-name block first), 100 bytes into the next header
  let past = 0;
  for (let type = ''; type !== '0';) {
    type = String.fromCharCode(tar[past + 156]);
    past += 512 + Math.ceil(parseInt(tar.subarray(past + 124, past + 136).toString('latin1').replace(/\0.*$/, '').trim(), 8) / 512) * 512;
  }
  const cases = [
    ['cut.tar.gz', gz.subarray(0, 3000)],
    ['cut-header.tar', tar.subarray(0, past + 100)],
    ['cut-data.tar', tar.subarray(0, 512 * 2)],
    ['cut.zip', zip.subarray(0, 3000)],
    ['cut-end.zip', zip.subarray(0, zip.length - 10)],
    ['junk.zip', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200)])],
    ['empty.tgz', Buffer.alloc(0)],
    ['text.gz', gzipSync(Buffer.from('module_0001.jit_f.0000.p.after_x.before_y.txt\n'))],
  ];
  // a flipped byte in the tar's headers and in the zip's central directory
  for (let k = 0; k < 40; k++) {
    const t = Buffer.from(tar.subarray(0, 512 * 40));
    t[(k * 7919) % t.length] ^= 0x5a;
    cases.push([`flip${k}.tar`, t]);
    const z = Buffer.from(zip);
    z[z.length - 1 - ((k * 104729) % Math.min(z.length, 4000))] ^= 0x5a;
    cases.push([`flip${k}.zip`, z]);
  }
  let errors = 0;
  for (const [name, bytes] of cases) {
    const f = path.join(tmp, name);
    writeFileSync(f, bytes);
    if (!(await same(f, name))) errors++;
  }
  assert.ok(errors >= 8, `${errors} of ${cases.length} are errors`);
  const cut = run(['passes', '--json', path.join(tmp, 'cut-header.tar')]);
  assert.match(cut.out, new RegExp(`"HS_W_ARCHIVE_TRUNCATED".*ends mid-header at byte ${past} \\(100 bytes`));
  const bad = run(['passes', path.join(tmp, 'cut.zip')]);
  assert.match(bad.err, /HS_E_FORMAT: corrupt zip archive: no end-of-central-directory record in its last 3000 bytes/);
});

test('a memory report\'s HLO and a .ll\'s HLO: the page asks the core what the CLI finds', { skip }, () => {
  // memory: the page lists the folder, asks for the sibling, joins it: the CLI's JSON
  const reports = fixtureCases().flatMap((c) => c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump')).slice(0, 6);
  assert.ok(reports.length >= 2, 'fixtures with a dump folder and its memory texts');
  for (const r of reports) {
    const names = filesBeside(r).map((p) => path.basename(p));
    const sib = api.dumpSiblingHlo(names, path.basename(r));
    assert.equal(sib, path.basename(r).replace(/-(buffer-assignment|memory-usage-report)\.txt$/, '.txt'), r);
    const page = api.readMemoryJSON(readFileSync(r, 'utf8'), readFileSync(path.join(path.dirname(r), sib), 'utf8'), path.basename(r));
    assert.equal(page, run(['memory', '--json', r]).out.trimEnd(), r);
  }
  // llvm: the CLI's --hlo DIR against the page's dumpHloForLl over the same names
  let n = 0;
  for (const c of levelsFixtures()) {
    for (const ll of c.files(/\.ll$/)) {
      const names = filesBeside(ll).map((p) => path.basename(p));
      const hlo = api.dumpHloForLl(names, path.basename(ll));
      const native = run(['llvm', '--json', ll, '--hlo', c.dir]);
      assert.equal(native.rc, 0, native.err);
      assert.equal(api.llvmJSON(readFileSync(ll, 'utf8'), readFileSync(path.join(c.dir, hlo), 'utf8')), native.out.trimEnd(), ll);
      n++;
    }
    const levels = api.dumpLevels(c.files(/\.(ll|txt)$/).map((p) => path.basename(p)));
    if (c.files(/\.ll$/).length) assert.ok(levels && levels.hlo && levels.noopt.length && levels.opt.length, c.label);
    else assert.equal(levels, null, c.label);
  }
  assert.ok(n >= 3);
  assert.equal(api.dumpLevels(['a.txt']), null);
  assert.equal(api.archiveKind(new Uint8Array([0x1f, 0x8b, 8])), 'gzip');
  assert.equal(api.archiveKind(new TextEncoder().encode('module_0001.x.txt')), 'none');
});

test('the JSON does not depend on the order the files came in (the core sorts them)', { skip }, async () => {
  const entries = await api.readArchive(readFileSync(path.join(passFixtures()[1].dir, 'dump.tar.gz')));
  const plain = entries.map((e) => ({ name: e.name, data: e.data }));
  assert.equal(api.passesJSON([...plain].reverse(), { label: 'x' }), api.passesJSON(plain, { label: 'x' }));
  assert.equal(api.passesJSON(entries, { label: 'x' }), api.passesJSON(plain, { label: 'x' }));
});
