#!/usr/bin/env node
// Differential test: hloscope against XLA's own HLO parser, on the corpus of corpus.mjs.
//
//   node tests/differential/check.mjs --driver build/native/tests/hs_diff_driver [--seed N]
//        [--oracle FILE] [--print-failing] [--quiet]
//   --oracle: another oracle file (a longer run: see tests/differential/README.md)
//
// XLA's verdicts are in tests/oracle/differential/oracle-seed<N>.json (written by make_oracle.py there, with
// jaxlib; jaxlib is not needed here). The corpus is regenerated from its seed and every text's
// sha1 must equal the oracle's (else: the generator or the fixtures changed; rerun make_oracle.py).
//
// A text is XLA-accepted when any jaxlib version of the oracle accepts it. Then hloscope must read
// it without an error, with XLA's counts (newest accepting version): computations, instructions,
// fusion ops, fused computations. A text every version rejects must get from hloscope an error or
// a warning at the offending line: the line the generator broke (or the next one, where a missing
// brace shows), or the line the newest jaxlib names.
//
// KNOWN_FAILURES (below) lists the cases that fail today (the reader does not yet follow XLA's
// grammar: issue 10). The test fails on a failing case NOT on the list, prints the list's cases
// that fail, and reports those on the list that now pass (take them off the list).
// --print-failing prints the current failing ids as a JS array, to paste below.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCorpus, sha1, writeCorpus } from './corpus.mjs';
import { oracleFile as oracleData, oracleFiles } from '../fixtures.mjs';

function cmpVersion(a, b) {
  const pa = a.split('.').map(Number), pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d) return d;
  }
  return 0;
}

/** Why hloscope's result for one case disagrees with XLA's, or null when it agrees. */
export function judge(oc, got) {
  const versions = Object.keys(oc.xla).sort(cmpVersion);
  const accepting = versions.filter((v) => oc.xla[v].ok);
  if (accepting.length) {
    const x = oc.xla[accepting[accepting.length - 1]];
    if (!got || got.error) return `XLA accepts; hloscope: ${got ? `${got.error.line}:${got.error.column ?? got.error.col}: ${got.error.message}` : 'no result'}`;
    const s = got.summary;
    const have = { computations: s.computations, instructions: s.instructions, fusion_ops: got.fusion_ops, fusion_computations: got.fusion_computations };
    const diffs = Object.keys(have).filter((k) => have[k] !== x[k]).map((k) => `${k} ${have[k]} (XLA ${x[k]})`);
    return diffs.length ? `counts differ: ${diffs.join(', ')}` : null;
  }
  const newest = oc.xla[versions[versions.length - 1]];
  const lines = new Set([oc.line, oc.line + 1, newest.line].filter((l) => Number.isInteger(l)));
  if (!got) return 'no result';
  if (got.error) {
    return lines.has(got.error.line) ? null : `XLA rejects at line ${[...lines].join('/')}; hloscope's error is at line ${got.error.line}`;
  }
  const wl = (got.summary.warnings || []).map((w) => w.line);
  if (wl.some((l) => lines.has(l))) return null;
  return `XLA rejects (line ${[...lines].join('/')}: ${(newest.message || '').split('\n').find((l) => /error:/.test(l)) ?? ''}); hloscope accepts${wl.length ? ` with warnings at lines ${wl.join(',')}` : ' with no warning'}`;
}

export function runCheck({ driver, seed, oracleFile }) {
  const oracle = JSON.parse(readFileSync(oracleFile ?? oracleData('differential', `oracle-seed${seed}.json`), 'utf8'));
  const recs = buildCorpus({ seed: oracle.seed, count: oracle.count });
  if (recs.length !== oracle.cases.length) throw new Error(`corpus has ${recs.length} texts, the oracle ${oracle.cases.length}: rerun make_oracle.py`);
  const drift = recs.filter((r, i) => r.id !== oracle.cases[i].id || sha1(r.text) !== oracle.cases[i].sha1);
  if (drift.length) throw new Error(`${drift.length} corpus texts differ from the oracle's (first: ${drift[0].id}): the generator or the fixtures changed; rerun python3 tests/oracle/differential/make_oracle.py --seed ${oracle.seed} --count ${oracle.count}`);
  const dir = mkdtempSync(join(tmpdir(), 'hs-diff-'));
  let out;
  try {
    writeCorpus(recs, join(dir, 'corpus.bin'));
    out = execFileSync(resolve(driver), [join(dir, 'corpus.bin')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const got = new Map();
  for (const line of out.split('\n')) if (line) { const j = JSON.parse(line); got.set(j.id, j); }
  const failing = [];
  for (const oc of oracle.cases) {
    const why = judge(oc, got.get(oc.id.replace(/\s/g, '_')));
    if (why) failing.push({ id: oc.id, why });
  }
  return { oracle, failing, total: oracle.cases.length };
}

function main() {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
  const driver = opt('--driver');
  if (!driver || !existsSync(driver)) {
    console.error(`differential: no driver at ${driver} (cmake --build build/native builds hs_diff_driver)`);
    process.exit(2);
  }
  const files = opt('--oracle') ? [resolve(opt('--oracle'))]
    : oracleFiles('differential', opt('--seed') ? new RegExp(`^oracle-seed${opt('--seed')}\\.json$`) : /^oracle-seed\d+\.json$/);
  let bad = 0;
  for (const oracleFile of files) {
    const { oracle, failing, total } = runCheck({ driver, oracleFile });
    const seed = oracle.seed;
    const prov = oracle.provenance;
    console.log(`differential seed ${seed}: ${total} texts, oracle jaxlib ${prov.jaxlib.map((v) => v.jaxlib).join(', ')} (${prov.date})`);
    if (args.includes('--print-failing')) {
      console.log(JSON.stringify(failing.map((f) => f.id), null, 1));
      continue;
    }
    const known = new Set(KNOWN_FAILURES);
    const newFail = failing.filter((f) => !known.has(f.id));
    const stillKnown = failing.filter((f) => known.has(f.id));
    const failingIds = new Set(failing.map((f) => f.id));
    const fixed = KNOWN_FAILURES.filter((id) => oracle.cases.some((c) => c.id === id) && !failingIds.has(id));
    console.log(`  agree: ${total - failing.length}; known failures still failing: ${stillKnown.length} (list has ${KNOWN_FAILURES.length})`);
    if (!args.includes('--quiet')) for (const f of stillKnown) console.log(`  known failure: ${f.id}: ${f.why}`);
    for (const id of fixed) console.log(`  NOW PASSES (take it off KNOWN_FAILURES): ${id}`);
    for (const f of newFail) console.log(`  FAIL: ${f.id}: ${f.why}`);
    bad += newFail.length;
  }
  if (bad) {
    console.log(`differential: ${bad} cases disagree with XLA and are not known failures`);
    process.exit(1);
  }
}

// Cases that fail today: none since the reader follows XLA's grammar (issue 10). Never add a case
// to it to make a regression pass.
const KNOWN_FAILURES = [
];

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
