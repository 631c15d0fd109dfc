// Guards of issue 34, items 11 to 13, over the sources of tests/ and bench/ (read as text; no
// build needed). The rules are written down in tests/README.md and at the top of tests/fixtures.mjs:
//   1. Only the walkers list fixtures/ or ../shared: tests/fixtures.mjs (JS, and through its command
//      line Python and shell) and tests/native/testutil.h (C). Any other directory listing (JS
//      readdirSync/readdir/opendir/glob, `ls`/`find` run as a program, Python os.listdir/scandir/
//      walk/glob/iterdir, C opendir/scandir, shell ls/find) must be on the list below, which
//      says what it lists (never fixtures/ or ../shared); a new one fails until it is reviewed.
//   2. No test reads a clock (performance.now, Date.now, process.hrtime, new Date(), Python
//      time.time/perf_counter/monotonic, C clock_gettime/gettimeofday/clock(), shell $(date)):
//      elapsed times are bench/ figures, printed beside their goals (npm run bench, bench:browser).
//      Excepted, with the reason: tests/linear/ (the linear-time ratio, issue 10), the oracle
//      scripts' provenance dates, and tests/fuzz/run.sh (a runner's report, not a test).
//   3. No assertion names a duration (a value ending in Ms, _ms, Seconds, _seconds, Millis): a
//      bench module a test imports may time things, the test may not bound them.
//   4. Every test asserts: each node:test test() in tests/node, tests/browser and tests/jupyter
//      holds an assertion, each Python def test_ a self.assert*/self.fail; and a missing file
//      is never a silent pass (`if (!existsSync(...)) return;` in a test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../fixtures.mjs';

/** The sources this guard reads: tests/ and bench/, fuzzer regressions and outputs aside. */
function sources() {
  const out = [];
  const walk = (d) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) { if (!['regressions', 'out', 'node_modules', '__pycache__'].includes(n)) walk(p); }
      else if (/\.(mjs|js|py|sh|c|h)$/.test(n)) out.push(relative(repoRoot, p));
    }
  };
  walk(join(repoRoot, 'tests'));
  walk(join(repoRoot, 'bench'));
  return out.map((rel) => ({ rel, lines: readFileSync(join(repoRoot, rel), 'utf8').split('\n') }));
}

/** A line without its comment (whole-line //, #, * and trailing // or /* comments; a rough cut). */
function code(line, rel) {
  if (/^\s*(\/\/|#(?!include)|\*|\/\*)/.test(line)) return '';
  let l = line.replace(/\/\*.*?\*\//g, '');
  if (/\.(mjs|js|c|h)$/.test(rel)) l = l.replace(/(^|[^:'"`\\])\/\/.*$/, '$1');
  return l;
}

const LISTING = {
  js: [/\b(readdirSync|readdir|opendirSync|opendir|globSync|glob)\s*\(/, /\(\s*['"](ls|find)['"]/],
  py: [/\b(os\.listdir|os\.scandir|os\.walk|glob\.i?glob)\s*\(/, /\.(r?glob|iterdir)\s*\(/, /['"](ls|find)['"]/],
  c: [/\b(opendir|scandir)\s*\(/],
  sh: [/(^|[;&|(]|\$\(|\bdo\b|\bthen\b)\s*(ls|find)\s/],
};
const kind = (rel) => (/\.(mjs|js)$/.test(rel) ? 'js' : rel.endsWith('.py') ? 'py' : /\.[ch]$/.test(rel) ? 'c' : 'sh');

const WALKERS = ['tests/fixtures.mjs', 'tests/native/testutil.h'];
/** The other listings: file -> [how many lines list, what they list]. None lists fixtures/ or ../shared. */
const ALLOWED = {
  'tests/node/walker-guard.test.mjs': [1, 'tests/ and bench/: the sources this guard reads'],
  'tests/node/registry.test.mjs': [1, 'notebook/src: the JS sources whose error codes it checks'],
  'tests/jupyter/jupyter.test.mjs': [5, 'dist/ (the wheel npm run build wrote), notebook/jupyter (egg-info left by pip), build/wheelhouse (wasmtime\'s wheel) and the wasm cache folder of a temporary HOME'],
  'tests/jupyter/test_text.py': [2, 'a temporary folder the mlp dump archive was extracted into'],
  'tests/native/test_cases.c': [1, 'one case folder of tests/cases, for its input.* file'],
  'tests/native/test_core.c': [1, 'tests/cases: every case folder'],
  'tests/native/test_fuzz_regressions.c': [1, 'tests/fuzz/regressions: the inputs the fuzzers found'],
  'tests/fuzz/run.sh': [3, 'core/ headers and sources (what to rebuild, one line each) and its own crash folders'],
  'tests/native/check_layers.py': [2, 'core/src (the includes of each folder) and the build\'s object files (their undefined symbols)'],
  'bench/profile_chromium.mjs': [1, '/proc: the browser\'s processes and their memory'],
  'bench/python.py': [4, 'dist/ (the hloscope wheel) and build/wheelhouse (wasmtime\'s wheel) for the bench venv'],
  'bench/jupyter_chromium.mjs': [1, 'dist/: the hloscope wheel installed into the Jupyter venv'],
};

const CLOCKS = {
  js: [/\bperformance\.now\b|\bDate\.now\b|\bprocess\.hrtime\b|\bnew Date\(\s*\)/],
  py: [/\btime\.(time|perf_counter|monotonic|process_time)\b|\bdatetime\.(datetime\.)?now\b|\bdatetime\.now\b/],
  c: [/\b(clock_gettime|gettimeofday)\b|\bclock\(\)/],
  sh: [/\$\(\s*date\b|\$SECONDS\b|^\s*time\s/],
};
/** Where tests/ may read a clock, and why. */
const CLOCK_OK = [
  [/^tests\/linear\//, 'the linear-time check: a ratio of CPU times of one driver at N and 4N (issue 10), best of 6, run serially'],
  [/^tests\/oracle\/[^/]+\/make[-_][\w-]+\.py$/, 'a provenance date written into the oracle data'],
  [/^tests\/fuzz\/run\.sh$/, 'the fuzz runner reports its wall time; owned by the core restructuring'],
];

test('only the walkers list fixtures/ or ../shared: every other directory listing is known and lists something else', () => {
  const found = {};
  for (const { rel, lines } of sources()) {
    const n = lines.filter((l) => LISTING[kind(rel)].some((r) => r.test(code(l, rel)))).length;
    if (n && !WALKERS.includes(rel)) found[rel] = n;
  }
  const want = Object.fromEntries(Object.entries(ALLOWED).map(([f, [n]]) => [f, n]));
  assert.deepEqual(found, want, 'a listing outside the walkers: list fixtures/ and ../shared through tests/fixtures.mjs (or testutil.h), '
    + 'or, for another folder, add the file to ALLOWED with what it lists');
});

test('the walker is what the suites use: each JS suite that reads fixtures/ or ../shared imports tests/fixtures.mjs', () => {
  const bad = [];
  for (const { rel, lines } of sources()) {
    if (kind(rel) !== 'js' || WALKERS.includes(rel) || rel.startsWith('tests/browser/pages/')) continue;
    const text = lines.map((l) => code(l, rel)).join('\n');
    // a path of ../shared built by hand (the walker's sharedPath/sharedCaptures give them)
    if (/\b(join|resolve)\([^)]*(['"`]\.\.\/shared\b|['"`]\.\.['"`],\s*['"`]shared['"`])/.test(text)) bad.push(`${rel}: builds a ../shared path itself`);
    if (/process\.env\.(HS_SHARED_DIR|HLOSCOPE_SHARED|HLOSCOPE_NO_SHARED)\b/.test(text)) bad.push(`${rel}: reads the shared folder's variables itself`);
  }
  assert.deepEqual(bad, []);
});

test('no test reads a clock: elapsed times are bench/ figures', () => {
  const bad = [];
  for (const { rel, lines } of sources()) {
    if (!rel.startsWith('tests/') || CLOCK_OK.some(([r]) => r.test(rel))) continue;
    lines.forEach((l, i) => { if (CLOCKS[kind(rel)].some((r) => r.test(code(l, rel)))) bad.push(`${rel}:${i + 1}: ${l.trim()}`); });
  }
  assert.deepEqual(bad, [], 'move the timing into bench/ (printed beside its goal) and assert behaviour or counts instead');
});

test('no assertion bounds a duration', () => {
  const duration = /\b\w*(Ms|MS|_ms|Millis|Seconds|_seconds)\b/;
  const bad = [];
  for (const { rel, lines } of sources()) {
    if (!rel.startsWith('tests/') || CLOCK_OK.some(([r]) => r.test(rel))) continue;
    lines.forEach((l, i) => {
      const c = code(l, rel);
      if (/\b(assert\w*|self\.assert\w*|assert_\w+)\s*[.(]/.test(c) && duration.test(c.replace(/(['"`]).*?\1/g, ''))) bad.push(`${rel}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.deepEqual(bad, []);
});

test('every test asserts something, and a missing file is never a silent pass', () => {
  const bad = [];
  for (const { rel, lines } of sources()) {
    const text = lines.join('\n');
    if (/\.test\.mjs$/.test(rel) && rel !== 'tests/node/walker-guard.test.mjs') {
      // each test(...) up to the next test( / describe( at the start of a line
      const starts = [...text.matchAll(/^\s*test\(\s*(['"`])(.*?)\1/gm)];
      starts.forEach((m, k) => {
        const end = starts[k + 1]?.index ?? text.length;
        const body = text.slice(m.index, end);
        if (!/\bassert\w*\b|\.rejects\(|\.throws\(/.test(body)) bad.push(`${rel}: test '${m[2]}' asserts nothing`);
      });
    }
    if (/(^|\/)test_\w+\.py$/.test(rel)) {
      const defs = [...text.matchAll(/^( +)def (test_\w+)\(self.*?\):\n((?:\1 .*\n|\s*\n)*)/gm)];
      for (const [, , name, body] of defs) if (!/self\.(assert\w*|fail)\(/.test(body)) bad.push(`${rel}: ${name} asserts nothing`);
    }
    if (rel.startsWith('tests/') && kind(rel) === 'js') {
      lines.forEach((l, i) => { if (/if \(\s*!\s*existsSync\([^)]*\)\s*\)\s*return\s*;/.test(code(l, rel))) bad.push(`${rel}:${i + 1}: a missing file passes silently: ${l.trim()}`); });
    }
  }
  assert.deepEqual(bad, []);
});
