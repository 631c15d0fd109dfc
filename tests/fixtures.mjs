// The one walker over what the tests read from disk, for every JS test and bench script (node,
// oracle, differential, linear, browser, bench), and through its command line for the Python
// and shell ones. No other test or bench file lists fixtures/ or ../shared itself:
// tests/node/walker-guard.test.mjs fails if one does. It knows:
//   - fixture cases: fixtures/cpu-jax-<version>/<id>/ (fixtureCases), fixtures/passes/<version>/<id>/
//     (passFixtures), fixtures/levels/<version>/<id>/ (levelsFixtures) and fixtures/diff-pairs/<version>/<pair>/
//     (diffPairs), each a case object
//     { set, id, label, dir, oracle, file(name), files(keep, sub) }; oracle is the case's own
//     oracle.json (XLA's account, captured with it: it stays with its fixture), or null;
//   - the folders of fixtures/ (fixtureFolders, fixtureSubfolders: the provenance test), the
//     fixture sets (fixtureSets, newestFixtureSet) and a file's neighbours (filesBeside);
//   - the case folders tests/cases/<case>/ with their input.* (caseFolders, caseSharedInput);
//   - the oracle data of tests/oracle/<area>/ (oracleFile, oracleFiles; area: hlo, llvm, stablehlo, async, types,
//     profile, memory, differential; tests/oracle/README.md);
//   - the shared captures ../shared/captures/<sub>/ (sharedCaptures, sharedPath), read in place:
//     other people's data, absent from a fresh clone. sharedAbsent(sub) gives the reason a test
//     skips with ("SKIPPED: ../shared/captures/<sub> is absent ..."), or false.
//
// Environment:
//   HLOSCOPE_NO_SHARED=1   every suite behaves as if ../shared were absent (any value but "" and
//                          "0"); tools/test.sh runs the suites that read ../shared once that way.
//                          The C tests (tests/native/testutil.h), tests/jupyter/test_text.py and
//                          the shell tests honour the same variable.
//   HLOSCOPE_SHARED, HS_SHARED_DIR   the shared folder when it is not ../shared beside the repository.
//
// Command line (for Python, through tests/fixtures.py, and shell; paths one a line, or JSON with --json):
//   node tests/fixtures.mjs fixtures NAME          every fixture case's file NAME that exists
//   node tests/fixtures.mjs files REL [SUFFIX]     the files of fixtures/REL (one case's folder) ending in SUFFIX
//   node tests/fixtures.mjs levels SUFFIX          the files of every fixtures/levels case ending in SUFFIX
//   node tests/fixtures.mjs shared SUB [SUFFIX]    the files of ../shared/captures/SUB ending in SUFFIX;
//                                                  the skip reason on stderr when absent (--json: {absent, files})
//   node tests/fixtures.mjs oracle AREA NAME       the path of tests/oracle/AREA/NAME
//
// The rules the guard test holds every test to (in full: tests/README.md):
//   1. only this file (and tests/native/testutil.h in C) lists fixtures/ or ../shared (readdirSync,
//      readdir, opendir, glob, ls, find); other listings are on the guard's reviewed list;
//   2. no test reads a clock (performance.now, Date.now, process.hrtime, time.perf_counter, ...):
//      timed figures live in bench/, printed beside their goals; tests assert behaviour and counts.
//      Excepted: tests/linear/ (issue 10's linear time: a ratio of CPU times of one driver at N
//      and 4N, best of 6 attempts, run serially, timed in C by its driver), the oracle scripts'
//      provenance dates, tests/fuzz/run.sh's report;
//   3. no assertion names a duration; 4. every test asserts, and no missing file passes silently.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const fixturesDir = join(repoRoot, 'fixtures');
export const oracleDir = join(repoRoot, 'tests/oracle');

const env = process.env;
/** True when HLOSCOPE_NO_SHARED is set to anything but "" or "0". */
export const noShared = !!env.HLOSCOPE_NO_SHARED && env.HLOSCOPE_NO_SHARED !== '0';
export const sharedDir = resolve(env.HLOSCOPE_SHARED || env.HS_SHARED_DIR || join(repoRoot, '../shared'));
export const sharedCapturesDir = join(sharedDir, 'captures');

const isDir = (p) => { try { return statSync(p).isDirectory(); } catch { return false; } };
const subdirs = (d) => (isDir(d) ? readdirSync(d).sort().filter((n) => isDir(join(d, n))) : []);

/**
 * Why ../shared/captures/<sub> cannot be read here, in words a skip prints, or false when it can:
 * absent beside the repository, or hidden by HLOSCOPE_NO_SHARED=1.
 */
export function sharedAbsent(sub = '') {
  const rel = sub ? `../shared/captures/${sub}` : '../shared/captures';
  if (noShared) return `SKIPPED: ${rel} is treated as absent (HLOSCOPE_NO_SHARED=1)`;
  if (!existsSync(join(sharedCapturesDir, sub))) {
    return `SKIPPED: ${rel} is absent (${join(sharedCapturesDir, sub)}: other people's data, read in place)`;
  }
  return false;
}

/** The absolute path of rel under the shared folder ('captures/tpu-v6e/x.txt'), or null when it is
 * absent or HLOSCOPE_NO_SHARED=1 hides it. */
export function sharedPath(rel) {
  if (noShared) return null;
  const p = join(sharedDir, rel);
  return existsSync(p) ? p : null;
}

/** The files in the folder of `file` (a fixture's or a shared capture's) whose names pass `keep`, sorted. */
export function filesBeside(file, keep = () => true) {
  const d = dirname(file);
  if (noShared && d.startsWith(sharedDir)) return [];
  return readdirSync(d).sort().filter((n) => keep(n) && !isDir(join(d, n))).map((n) => join(d, n));
}

/** The files of ../shared/captures/<sub> whose names pass `keep`, sorted; [] when absent or hidden. */
export function sharedCaptures(sub, keep = () => true) {
  const d = join(sharedCapturesDir, sub);
  if (sharedAbsent(sub)) return [];
  return readdirSync(d).sort().filter((f) => keep(f) && !isDir(join(d, f))).map((f) => join(d, f));
}

/** One case folder dir, as { set, id, label, dir, oracle, file(name), files(keep, sub) }. */
function caseOf(set, id, dir) {
  const file = (name) => { const p = join(dir, name); return existsSync(p) ? p : null; };
  return {
    set, id, label: `${set}/${id}`, dir,
    /** The case's own oracle.json (XLA's account, captured with it), or null. */
    oracle: file('oracle.json'),
    /** The path of the case's file `name` when it exists, else null. */
    file,
    /** The files of the case folder (or of its subfolder `sub`, e.g. 'dump') whose names pass `keep` (a
     * function or a RegExp), sorted, as paths; [] when the folder is absent. */
    files(keep = () => true, sub = '') {
      const d = join(dir, sub);
      const ok = keep instanceof RegExp ? (n) => keep.test(n) : keep;
      return isDir(d) ? readdirSync(d).sort().filter((n) => ok(n) && !isDir(join(d, n))).map((n) => join(d, n)) : [];
    },
  };
}

/** The cases two levels under root (<set>/<id>/), sets whose names pass setOk, sorted by set then id. */
function casesUnder(root, setOk = () => true) {
  const out = [];
  for (const set of subdirs(root).filter(setOk)) for (const id of subdirs(join(root, set))) out.push(caseOf(set, id, join(root, set, id)));
  return out;
}

/** The fixture sets fixtures/cpu-jax-<version>/, sorted by name. */
export function fixtureSets(dir = fixturesDir) {
  return subdirs(dir).filter((s) => s.startsWith('cpu-jax-'));
}

/** The set of the newest jax (versions compared as numbers). */
export function newestFixtureSet(dir = fixturesDir) {
  const v = (s) => s.slice('cpu-jax-'.length).split('.').map(Number);
  const cmp = (a, b) => {
    const x = v(a), y = v(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
    return 0;
  };
  return fixtureSets(dir).sort(cmp).at(-1);
}

/**
 * Every fixture case folder fixtures/cpu-jax-<version>/<id>/, sorted by set then id (the order
 * the differential corpus and the bench depend on); { set } keeps one set.
 */
export function fixtureCases(dir = fixturesDir, { set } = {}) {
  return casesUnder(dir, (s) => s.startsWith('cpu-jax-') && (!set || s === set));
}

/** fixtures/passes/<version>/<id>/: dump folders of every pass step (dump.tar.gz, FILES.txt, oracle.json). */
export function passFixtures(dir = join(fixturesDir, 'passes')) {
  return casesUnder(dir);
}

/** fixtures/levels/<version>/<id>/: HLO and LLVM IR of three small programs (<xla-levels>, hloscope llvm). */
export function levelsFixtures(dir = join(fixturesDir, 'levels')) {
  return casesUnder(dir);
}

/** fixtures/diff-pairs/<version>/<pair>/: two compiles of one program (a. and b.after_optimizations.txt, oracle.json). */
export function diffPairs(dir = join(fixturesDir, 'diff-pairs')) {
  return casesUnder(dir);
}

/** The folders two levels under fixtures/ ('<set>/<folder>', the capture scripts' own folder aside), sorted. */
export function fixtureFolders(dir = fixturesDir) {
  return subdirs(dir).filter((s) => s !== 'capture').flatMap((s) => subdirs(join(dir, s)).map((f) => `${s}/${f}`));
}

/** The names of the folders directly under fixtures/<rel>, sorted. */
export function fixtureSubfolders(rel, dir = fixturesDir) {
  return subdirs(join(dir, rel));
}

/** The case folders tests/cases/<case>/ (input.* + expect; tests/cases/README.md), sorted: { name, dir, input }. */
export function caseFolders(dir = join(repoRoot, 'tests/cases')) {
  return subdirs(dir).map((name) => {
    const d = join(dir, name);
    const input = readdirSync(d).find((f) => f.startsWith('input.'));
    return { name, dir: d, input: input ? join(d, input) : null };
  });
}

/**
 * The file a case folder's input.shared names (its first line, a path under ../shared), or
 * { skip } with the reason when the shared folder is absent or hidden.
 */
export function caseSharedInput(rel) {
  const p = sharedPath(rel);
  if (p) return { path: p };
  const sub = rel.replace(/^captures\//, '').split('/')[0];
  return { skip: sharedAbsent(sub) || `SKIPPED: ../shared/${rel} is absent (other people's data, read in place)` };
}

export const ORACLE_AREAS = ['hlo', 'llvm', 'profile', 'memory', 'differential', 'stablehlo', 'async', 'types'];

/** The path of oracle data file `name` of `area` (tests/oracle/<area>/<name>); throws on an unknown area. */
export function oracleFile(area, name) {
  if (!ORACLE_AREAS.includes(area)) throw new Error(`no oracle area ${area} (${ORACLE_AREAS.join(', ')})`);
  return join(oracleDir, area, name);
}

/** The oracle data files of `area` whose names match `re`, sorted, as paths. */
export function oracleFiles(area, re) {
  const d = oracleFile(area, '');
  return isDir(d) ? readdirSync(d).sort().filter((n) => re.test(n)).map((n) => join(d, n)) : [];
}

// ---- the command line, for Python and shell tests and bench scripts ---------------------------

function main(argv) {
  const json = argv.includes('--json');
  const [what, a, b = ''] = argv.filter((x) => x !== '--json');
  let files;
  let absent = false;
  if (what === 'fixtures' && a) files = fixtureCases().map((c) => c.file(a)).filter(Boolean);
  else if (what === 'files' && a) files = caseOf('', a, join(fixturesDir, a)).files((n) => n.endsWith(b));
  else if (what === 'levels' && a) files = levelsFixtures().flatMap((c) => c.files((n) => n.endsWith(a)));
  else if (what === 'diff-pairs' && a) files = diffPairs().map((c) => c.file(a)).filter(Boolean);
  else if (what === 'shared' && a) {
    absent = sharedAbsent(a);
    files = sharedCaptures(a, (f) => f.endsWith(b));
    if (absent && !json) console.error(absent);
  } else if (what === 'oracle' && a && b) files = [oracleFile(a, b)];
  else {
    console.error('usage: node tests/fixtures.mjs (fixtures NAME | files REL [SUFFIX] | levels SUFFIX | diff-pairs NAME | shared SUB [SUFFIX] | oracle AREA NAME) [--json]');
    return 2;
  }
  if (json) console.log(JSON.stringify({ absent, files }));
  else if (files.length) console.log(files.join('\n'));
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) process.exitCode = main(process.argv.slice(2));
