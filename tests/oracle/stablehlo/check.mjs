#!/usr/bin/env node
// Differential test (issue 40): hloscope's StableHLO reader against MLIR's own parser, on the
// corpus of corpus.mjs (ctest `stablehlo_oracle`).
//
//   node tests/oracle/stablehlo/check.mjs --driver build/native/tests/hs_diff_driver [--seed N]
//        [--oracle FILE] [--print-failing] [--quiet]
//
// MLIR's verdicts are in tests/oracle/stablehlo/oracle-seed<N>.json (make_oracle.py, with jax; jax
// is not needed here). The corpus is regenerated from its seed and every text's sha1 must equal
// the oracle's (else the generator, the fixtures or the shared captures changed: rerun
// make_oracle.py). The texts made from ../shared/captures are read when it is present; without
// it they are skipped, and the test says so.
//
// A text is MLIR-accepted when any jax version's MLIR accepts it. Then hloscope must read it
// without an error and without a syntax warning (HS_W_SKIPPED_LINE, HS_W_TRUNCATED), with
// MLIR's counts (newest accepting version): functions (func.func) = computations, ops (every op
// but builtin.module and func.func, nested ones included) = instructions, less the known
// difference below. A text every version refuses must get from hloscope an error or a warning
// at the line MLIR's error names (newest version).
//
// Known differences (printed with their count on every run):
//   - the pretty reduce `stablehlo.reduce(%x init: %c) applies stablehlo.add across ...`: MLIR
//     builds the reducer's body, two ops (the op and its stablehlo.return) the text does not
//     write; hloscope counts the ops written, so MLIR's count is 2 more per `applies`.
// KNOWN_FAILURES lists the ids that fail today (none); the test fails on any other and prints
// "NOW PASSES" for a listed one that passes.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCorpus, sha1, writeRecords, SHARED_SUBS, SHARED_GENERIC_FILE } from './corpus.mjs';
import { oracleFile, sharedAbsent } from '../../fixtures.mjs';

export const KNOWN_FAILURES = [];

function cmpVersion(a, b) {
  const pa = a.split('.').map(Number), pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d) return d;
  }
  return 0;
}

/** The ops MLIR makes that the text does not write: two per pretty `applies` reduce. */
export function impliedOps(text) {
  return 2 * (text.match(/\)\s+applies\s+[\w.]+/g) || []).length;
}

const SYNTAX_WARNINGS = new Set(['HS_W_SKIPPED_LINE', 'HS_W_TRUNCATED']);

/** Why hloscope's result for one text disagrees with MLIR's, or null when it agrees. */
export function judge(oc, text, got) {
  const versions = Object.keys(oc).filter((k) => k !== 'sha1').sort(cmpVersion);
  const accepting = versions.filter((v) => oc[v].ok);
  if (!got) return 'no result from hloscope';
  if (accepting.length) {
    const m = oc[accepting[accepting.length - 1]];
    if (got.error) return `MLIR accepts; hloscope: ${got.error.line}:${got.error.column ?? got.error.col}: ${got.error.message}`;
    const s = got.summary;
    const bad = (s.warnings || []).filter((w) => SYNTAX_WARNINGS.has(w.code));
    if (bad.length) return `MLIR accepts; hloscope warns: ${bad[0].line}:${bad[0].column}: ${bad[0].message}`;
    const implied = impliedOps(text);
    const diffs = [];
    if (s.computations !== m.functions) diffs.push(`functions ${s.computations} (MLIR ${m.functions})`);
    if (s.instructions + implied !== m.ops) diffs.push(`ops ${s.instructions}${implied ? ` + ${implied} implied` : ''} (MLIR ${m.ops})`);
    return diffs.length ? `counts differ: ${diffs.join(', ')}` : null;
  }
  const newest = oc[versions[versions.length - 1]];
  const why = (newest.message || '').split('\n').find((l) => /error/.test(l)) ?? '';
  const at = got.error ? [got.error.line] : (got.summary.warnings || []).map((w) => w.line);
  if (!at.length) return `MLIR refuses (line ${newest.line}: ${why.trim()}); hloscope reads it with no error and no warning`;
  if (Number.isInteger(newest.line) && !at.includes(newest.line)) {
    return `MLIR refuses at line ${newest.line} (${why.trim()}); hloscope's ${got.error ? 'error is' : 'warnings are'} at line ${at.join(',')}`;
  }
  return null;
}

export function run({ driver, seed = 1, oracle, quiet = false, printFailing = false }) {
  const oraclePath = oracle || oracleFile('stablehlo', `oracle-seed${seed}.json`);
  const doc = JSON.parse(readFileSync(oraclePath, 'utf8'));
  const texts = doc.texts;
  const sharedGone = SHARED_SUBS.map((s) => sharedAbsent(s)).filter(Boolean);
  const corpus = buildCorpus({ seed, shared: true });
  const out = { total: corpus.length, pass: 0, failures: [], known: [], nowPasses: [], stale: [], implied: 0, impliedTexts: 0, skipped: [] };
  for (const reason of sharedGone) out.skipped.push(`${reason}: the texts made from it are not read`);
  if (!sharedGone.length && !existsSync(SHARED_GENERIC_FILE)) {
    out.skipped.push(`SKIPPED: the generic forms of ../shared/captures (${SHARED_GENERIC_FILE}) are absent: make_oracle.py writes them`);
  }
  for (const c of corpus) {
    const oc = texts[c.id];
    if (!oc || oc.sha1 !== sha1(c.text)) out.stale.push(c.id);
  }
  const dir = mkdtempSync(join(tmpdir(), 'hs-shlo-diff-'));
  let results;
  try {
    const file = join(dir, 'corpus.bin');
    writeRecords(file, corpus);
    const stdout = execFileSync(driver, [file], { maxBuffer: 1 << 28 }).toString();
    results = new Map(stdout.trim().split('\n').filter(Boolean).map((l) => { const j = JSON.parse(l); return [j.id, j]; }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const c of corpus) {
    const oc = texts[c.id];
    if (!oc || oc.sha1 !== sha1(c.text)) continue;
    const why = judge(oc, c.text, results.get(c.id));
    const implied = impliedOps(c.text);
    if (implied && !why) {
      out.implied += implied;
      out.impliedTexts++;
    }
    const known = KNOWN_FAILURES.includes(c.id);
    if (!why) {
      out.pass++;
      if (known) out.nowPasses.push(c.id);
    } else if (known) out.known.push({ id: c.id, why });
    else out.failures.push({ id: c.id, why });
  }
  if (!quiet || out.failures.length) {
    for (const f of out.failures) console.log(`FAIL ${f.id}: ${f.why}`);
  }
  for (const k of out.known) console.log(`known failure ${k.id}: ${k.why}`);
  for (const n of out.nowPasses) console.log(`NOW PASSES ${n} (take it off KNOWN_FAILURES)`);
  for (const s of out.skipped) console.log(s);
  console.log(`known difference: ${out.implied} ops MLIR builds for the pretty \`applies\` reduce in ${out.impliedTexts} texts (2 each; hloscope counts the ops written)`);
  if (out.stale.length) console.log(`STALE: ${out.stale.length} texts differ from the oracle's (first: ${out.stale[0]}): rerun tests/oracle/stablehlo/make_oracle.py`);
  console.log(`stablehlo differential (seed ${seed}, ${doc.provenance.versions.map((v) => `jax ${v.jax}`).join(', ')}): ${out.pass}/${out.total - out.stale.length} agree with MLIR, ${out.failures.length} fail, ${out.known.length} known`);
  if (printFailing) console.log(JSON.stringify([...out.failures, ...out.known].map((f) => f.id), null, 1));
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
  const driver = opt('--driver', 'build/native/tests/hs_diff_driver');
  if (!existsSync(driver)) {
    console.error(`no driver at ${driver}: build it (npm run build:native)`);
    process.exit(1);
  }
  const out = run({ driver, seed: Number(opt('--seed', '1')), oracle: opt('--oracle'), quiet: args.includes('--quiet'), printFailing: args.includes('--print-failing') });
  process.exit(out.failures.length || out.stale.length ? 1 : 0);
}
