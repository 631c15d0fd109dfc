// The LLVM IR reader against LLVM's own tools (tests/oracle/llvm/oracle.json, written by
// make-oracle.py with llvm-as, llvm-nm, llvm-dis and opt from LLVM 19; see there what was
// stripped for the oracle run only). Run through the native CLI:
//   node tests/oracle/llvm/check.mjs --cli build/native/hloscope [--shared ../shared]
// Checks, for every captured .ll: defined function names (llvm-nm) and parameter counts
// (llvm-dis), loop headers, depths and block counts (print<loops>), backedge-taken counts (scalar evolution),
// vector types (as llvm-dis prints them); each kernel joined to its HLO fusion (--hlo with the
// dump folder); a cut file gives the functions before the cut plus a warning; a non-LLVM text
// is refused as such.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noShared, oracleFile, sharedAbsent, sharedDir } from '../../fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const cli = resolve(opt('--cli', join(root, 'build/native/hloscope')));
const shared = resolve(opt('--shared', sharedDir)); // HLOSCOPE_NO_SHARED=1 hides it as the walker does
const oracle = JSON.parse(readFileSync(oracleFile('llvm', 'oracle.json'), 'utf8'));

const SHARED_KEY = '../shared/'; // how the oracle names the files it read of the shared folder
let failures = 0, checked = 0, skippedShared = 0;
const fail = (file, msg) => { failures++; console.log(`FAIL ${file}: ${msg}`); };
const llvm = (file, extra = []) => {
  const r = spawnSync(cli, ['llvm', file, '--json', ...extra], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { rc: r.status, out: r.stdout, err: r.stderr };
};

for (const [rel, want] of Object.entries(oracle.files)) {
  const inShared = rel.startsWith(SHARED_KEY);
  const path = inShared ? join(shared, rel.slice(SHARED_KEY.length)) : join(root, rel);
  if ((inShared && noShared) || !existsSync(path)) {
    if (inShared) { skippedShared++; continue; }
    fail(rel, 'missing'); continue;
  }
  const bytes = readFileSync(path);
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== want.sha256) { fail(rel, `changed since the oracle was made (sha256 ${sha}): rerun make-oracle.py`); continue; }
  if (want.error) { fail(rel, `the oracle could not read it: ${want.error}`); continue; }
  const hloDir = dirname(path);
  const r = llvm(path, ['--hlo', hloDir]);
  if (r.rc !== 0) { fail(rel, `exit ${r.rc}: ${r.err}`); continue; }
  const got = JSON.parse(r.out);
  const names = got.functions.map((f) => f.name).sort();
  if (JSON.stringify(names) !== JSON.stringify([...want.nm_defined].sort()))
    fail(rel, `defined functions ${names} != llvm-nm ${want.nm_defined}`);
  for (const f of got.functions) {
    const w = want.functions[f.name];
    if (!w) { fail(rel, `@${f.name} not in llvm-dis`); continue; }
    if (f.params.length !== w.params) fail(rel, `@${f.name}: ${f.params.length} params, llvm-dis ${w.params}`);
    const loops = f.loops.map((l) => ({ depth: l.depth, header: l.header, blocks: l.blocks, backedge_taken: l.backedge_taken }))
      .sort((a, b) => (a.header < b.header ? -1 : a.header > b.header ? 1 : 0));
    const wl = w.loops.map((l) => ({ depth: l.depth, header: l.header, blocks: l.blocks, backedge_taken: l.backedge_taken }));
    if (JSON.stringify(loops) !== JSON.stringify(wl))
      fail(rel, `@${f.name}: loops ${JSON.stringify(loops)} != opt ${JSON.stringify(wl)}`);
    for (const l of f.loops) {
      if (l.backedge_taken !== null && l.trip_count !== l.backedge_taken && l.trip_count !== l.backedge_taken + 1)
        fail(rel, `@${f.name}: trip_count ${l.trip_count} vs backedge_taken ${l.backedge_taken}`);
    }
    const vw = [...f.vector_widths].sort();
    if (JSON.stringify(vw) !== JSON.stringify(w.vector_types))
      fail(rel, `@${f.name}: vector types ${vw} != llvm-dis ${w.vector_types}`);
    if (f.kernel && !f.hlo) fail(rel, `kernel @${f.name} not joined to an HLO instruction of ${hloDir}`);
    checked++;
  }
  // a cut in the middle: the functions before the cut, and a warning
  const text = bytes.toString('utf8');
  const cut = text.lastIndexOf('\ndefine ') > 0 ? text.lastIndexOf('\ndefine ') + 40 : text.length >> 1;
  const tmp = mkdtempSync(join(tmpdir(), 'hs-llvm-'));
  try {
    const p = join(tmp, 'cut.ll');
    writeFileSync(p, text.slice(0, cut));
    const c = llvm(p);
    if (c.rc !== 0) fail(rel, `cut copy: exit ${c.rc} ${c.err}`);
    else {
      const j = JSON.parse(c.out);
      const before = got.functions.slice(0, got.functions.length - 1).map((f) => f.name);
      const gotNames = j.functions.map((f) => f.name);
      if (JSON.stringify(gotNames) !== JSON.stringify(before))
        fail(rel, `cut copy: functions ${gotNames} != the ones before the cut ${before}`);
      if (!j.warnings.some((w) => w.code === 'HS_W_TRUNCATED')) fail(rel, 'cut copy: no HS_W_TRUNCATED warning');
    }
  } finally { rmSync(tmp, { recursive: true, force: true }); }
}

// a text that is not LLVM IR says so
{
  const hlo = join(root, 'fixtures/levels/cpu-jax-0.4.38/add/module_0001.jit_add.cpu_after_optimizations.txt');
  const r = llvm(hlo);
  if (r.rc !== 2 || !/not LLVM IR/.test(r.err)) fail('HLO text', `expected exit 2 and "not LLVM IR", got ${r.rc} ${r.err}`);
}

if (skippedShared) console.log(`${sharedAbsent('llvm') || `SKIPPED: ${shared}/captures/llvm lacks them`}: ${skippedShared} files not checked`);
const stripped = Object.entries(oracle.files).filter(([, w]) => w.stripped?.length);
for (const [rel, w] of stripped) console.log(`note: for the oracle run only, LLVM 19 read ${rel} with ${w.stripped.join(', ')} stripped (newer than LLVM 19)`);
console.log(`llvm oracle (${oracle.llvm.join(' ')}): ${checked} functions checked, ${failures} failures`);
process.exit(failures ? 1 : 0);
