#!/usr/bin/env node
// Differential test: hloscope against XLA's own HLO parser, on the corpus of corpus.mjs.
//
//   node tests/differential/check.mjs --driver build/native/tests/hs_diff_driver [--seed N]
//        [--oracle FILE] [--print-failing] [--quiet]
//   --oracle: another oracle file (a longer run: see tests/differential/README.md)
//
// XLA's verdicts are in tests/differential/oracle-seed<N>.json (written by make_oracle.py with
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
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCorpus, sha1, writeCorpus } from './corpus.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

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
  const oracle = JSON.parse(readFileSync(oracleFile ?? join(HERE, `oracle-seed${seed}.json`), 'utf8'));
  const recs = buildCorpus({ seed: oracle.seed, count: oracle.count });
  if (recs.length !== oracle.cases.length) throw new Error(`corpus has ${recs.length} texts, the oracle ${oracle.cases.length}: rerun make_oracle.py`);
  const drift = recs.filter((r, i) => r.id !== oracle.cases[i].id || sha1(r.text) !== oracle.cases[i].sha1);
  if (drift.length) throw new Error(`${drift.length} corpus texts differ from the oracle's (first: ${drift[0].id}): the generator or the fixtures changed; rerun python3 tests/differential/make_oracle.py --seed ${oracle.seed} --count ${oracle.count}`);
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
    : readdirSync(HERE).filter((f) => /^oracle-seed\d+\.json$/.test(f) && (!opt('--seed') || f === `oracle-seed${opt('--seed')}.json`)).map((f) => join(HERE, f));
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

// Cases that fail today (the reader follows the line layout, not XLA's grammar). The reader
// rewrite shrinks this list to zero; never add a case to it to make a regression pass.
const KNOWN_FAILURES = [
  "fix:cpu-jax-0.12.0.1/moe/dump/module_0008.jit_moe.cpu_after_optimizations.txt",
  "fix:cpu-jax-0.12.0.1/remat/dump/module_0002.jit_remat.before_optimizations.txt",
  "fix:cpu-jax-0.12.0.1/scan/dump/module_0002.jit_scan.before_optimizations.txt",
  "fix:cpu-jax-0.12.0.1/scan/dump/module_0002.jit_scan.cpu_after_optimizations.txt",
  "fix:cpu-jax-0.12.0.1/transformer_step/dump/module_0008.jit_transformer_step.before_optimizations.txt",
  "mut:1:0:linebreak:cpu-jax-0.12.0.1/sharded/after_optimizations.txt",
  "mut:1:1:comments:cpu-jax-0.4.38/naive_attention/dump/module_0001.jit_naive_attention.cpu_after_optimizations.txt",
  "mut:1:3:moduleattrs+linebreak:cpu-jax-0.10.2/gqa/dump/module_0000.jit_gqa.before_optimizations.txt",
  "mut:1:4:comments:cpu-jax-0.10.2/scan/dump/module_0000.jit_scan.cpu_after_optimizations.txt",
  "mut:1:5:comments:cpu-jax-0.10.2/causal/dump/module_0000.jit_causal.cpu_after_optimizations.txt",
  "mut:1:6:moduleattrs:cpu-jax-0.12.0.1/exp/after_optimizations.txt",
  "mut:1:7:moduleattrs:cpu-jax-0.12.0.1/matmul_tanh/dump/module_0002.jit_matmul_tanh.cpu_after_optimizations.txt",
  "mut:1:8:comments:cpu-jax-0.4.38/mha/after_optimizations.txt",
  "mut:1:9:moduleattrs:cpu-jax-0.12.0.1/attention/dump/module_0004.jit_attention.before_optimizations.txt",
  "mut:1:11:moduleattrs:cpu-jax-0.12.0.1/chain/after_optimizations.txt",
  "mut:1:12:linebreak+reorder:cpu-jax-0.4.38/mha/dump/module_0001.jit_mha.cpu_after_optimizations.txt",
  "mut:1:13:comments+reorder:cpu-jax-0.10.2/rmsnorm/dump/module_0000.jit_rmsnorm.before_optimizations.txt",
  "mut:1:16:moduleattrs+linebreak:cpu-jax-0.10.2/rmsnorm/dump/module_0000.jit_rmsnorm.before_optimizations.txt",
  "mut:1:18:moduleattrs:cpu-jax-0.12.0.1/rope/after_optimizations.txt",
  "mut:1:21:linebreak:cpu-jax-0.12.0.1/matmul/after_optimizations.txt",
  "mut:1:23:moduleattrs:cpu-jax-0.10.2/dequant/dump/module_0000.jit_dequant.cpu_after_optimizations.txt",
  "mut:1:24:comments:cpu-jax-0.10.2/rmsnorm/dump/module_0000.jit_rmsnorm.cpu_after_optimizations.txt",
  "mut:1:25:reorder+linebreak:cpu-jax-0.10.2/moe/dump/module_0000.jit_moe.before_optimizations.txt",
  "mut:1:26:linebreak:cpu-jax-0.4.38/naive_attention/dump/module_0001.jit_naive_attention.before_optimizations.txt",
  "mut:1:28:comments:cpu-jax-0.12.0.1/scan/after_optimizations.txt",
  "mut:1:30:moduleattrs+linebreak:cpu-jax-0.10.2/moe/dump/module_0000.jit_moe.cpu_after_optimizations.txt",
  "mut:1:32:linebreak:cpu-jax-0.4.38/scan/after_optimizations.txt",
  "mut:1:33:reorder+linebreak:cpu-jax-0.4.38/chain/dump/module_0001.jit_chain.before_optimizations.txt",
  "mut:1:38:comments:cpu-jax-0.10.2/exp/dump/module_0000.jit_exp.before_optimizations.txt",
  "mut:1:39:comments+linebreak:cpu-jax-0.10.2/mha/dump/module_0000.jit_mha.cpu_after_optimizations.txt",
  "mut:1:40:comments:cpu-jax-0.4.38/dequant/dump/module_0001.jit_dequant.cpu_after_optimizations.txt",
  "mut:1:41:whitespace+linebreak:cpu-jax-0.12.0.1/sincos/dump/module_0002.jit_sincos.before_optimizations.txt",
  "mut:1:43:moduleattrs+linebreak:cpu-jax-0.12.0.1/rowbcast/dump/module_0002.jit_rowbcast.cpu_after_optimizations.txt",
  "mut:1:45:comments:cpu-jax-0.4.38/rope/after_optimizations.txt",
  "mut:1:46:comments:cpu-jax-0.10.2/sincos/after_optimizations.txt",
  "mut:1:47:moduleattrs+comments:cpu-jax-0.12.0.1/rmsnorm/dump/module_0004.jit_rmsnorm.cpu_after_optimizations.txt",
  "mut:1:50:comments:cpu-jax-0.12.0.1/softmax/dump/module_0002.jit_softmax.before_optimizations.txt",
  "mut:1:51:linebreak:cpu-jax-0.4.38/scan/dump/module_0001.jit_scan.cpu_after_optimizations.txt",
  "mut:1:54:moduleattrs:cpu-jax-0.4.38/naive_attention/dump/module_0001.jit_naive_attention.before_optimizations.txt",
  "mut:1:55:moduleattrs:cpu-jax-0.4.38/dequant/dump/module_0001.jit_dequant.cpu_after_optimizations.txt",
  "mut:1:57:linebreak+comments:cpu-jax-0.12.0.1/rope/after_optimizations.txt",
  "mut:1:59:moduleattrs:cpu-jax-0.10.2/rmsnorm/dump/module_0000.jit_rmsnorm.before_optimizations.txt",
  "mut:1:60:reorder+linebreak:cpu-jax-0.12.0.1/rmsnorm/after_optimizations.txt",
  "mut:1:62:linebreak+whitespace:cpu-jax-0.12.0.1/naive_attention/dump/module_0004.jit_naive_attention.cpu_after_optimizations.txt",
  "mut:1:63:linebreak+whitespace:cpu-jax-0.12.0.1/mlp/after_optimizations.txt",
  "mut:1:64:comments:cpu-jax-0.4.38/scan/dump/module_0001.jit_scan.before_optimizations.txt",
  "mut:1:65:comments:cpu-jax-0.12.0.1/exp/after_optimizations.txt",
  "mut:1:71:linebreak:cpu-jax-0.12.0.1/grads/dump/module_0002.jit_grads.cpu_after_optimizations.txt",
  "mut:1:72:comments+reorder:cpu-jax-0.4.38/naive_attention/dump/module_0001.jit_naive_attention.cpu_after_optimizations.txt",
  "mut:1:73:linebreak+moduleattrs:cpu-jax-0.10.2/matmul_tanh/dump/module_0000.jit_matmul_tanh.cpu_after_optimizations.txt",
  "mut:1:74:comments:cpu-jax-0.4.38/remat/dump/module_0001.jit_remat.before_optimizations.txt",
  "mut:1:75:comments:cpu-jax-0.4.38/rowbcast/after_optimizations.txt",
  "mut:1:76:linebreak:cpu-jax-0.4.38/grads/dump/module_0001.jit_grads.before_optimizations.txt",
  "mut:1:77:moduleattrs+whitespace:cpu-jax-0.4.38/naive_attention/after_optimizations.txt",
  "mut:1:78:comments:cpu-jax-0.4.38/exp/after_optimizations.txt",
  "mut:1:79:moduleattrs:cpu-jax-0.4.38/grads/dump/module_0001.jit_grads.cpu_after_optimizations.txt",
  "mut:1:80:moduleattrs:cpu-jax-0.12.0.1/exp/after_optimizations.txt",
  "mut:1:83:reorder+comments:cpu-jax-0.4.38/rope/dump/module_0001.jit_rope.before_optimizations.txt",
  "mut:1:84:linebreak:cpu-jax-0.12.0.1/remat/dump/module_0002.jit_remat.before_optimizations.txt",
  "mut:1:85:moduleattrs+whitespace:cpu-jax-0.10.2/exp/dump/module_0000.jit_exp.cpu_after_optimizations.txt",
  "mut:1:86:reorder+comments:cpu-jax-0.12.0.1/mha/dump/module_0004.jit_mha.cpu_after_optimizations.txt",
  "mut:1:89:moduleattrs:cpu-jax-0.10.2/mha/after_optimizations.txt",
  "mut:1:90:linebreak+whitespace:cpu-jax-0.4.38/layernorm/after_optimizations.txt",
  "mut:1:91:comments+whitespace:cpu-jax-0.4.38/dequant/dump/module_0001.jit_dequant.cpu_after_optimizations.txt",
  "mut:1:92:reorder+comments:cpu-jax-0.12.0.1/rope/after_optimizations.txt",
  "mut:1:93:linebreak:cpu-jax-0.10.2/moe/dump/module_0000.jit_moe.cpu_after_optimizations.txt",
  "mut:1:98:linebreak:cpu-jax-0.10.2/moe/dump/module_0000.jit_moe.cpu_after_optimizations.txt",
  "mut:1:99:linebreak:cpu-jax-0.10.2/sharded/dump/module_0000.jit_sharded.before_optimizations.txt",
  "mut:1:100:comments:cpu-jax-0.12.0.1/rowsum_sqrt/dump/module_0002.jit_rowsum_sqrt.cpu_after_optimizations.txt",
  "mut:1:101:whitespace+comments:cpu-jax-0.12.0.1/softmax/dump/module_0002.jit_softmax.before_optimizations.txt",
  "mut:1:102:linebreak:cpu-jax-0.4.38/remat/dump/module_0001.jit_remat.before_optimizations.txt",
  "mut:1:103:comments:cpu-jax-0.12.0.1/logsumexp/dump/module_0006.jit_logsumexp.before_optimizations.txt",
  "mut:1:104:comments:cpu-jax-0.12.0.1/rope/dump/module_0004.jit_rope.before_optimizations.txt",
  "mut:1:108:comments:cpu-jax-0.12.0.1/attention/dump/module_0004.jit_attention.cpu_after_optimizations.txt",
  "mut:1:110:moduleattrs+reorder:cpu-jax-0.10.2/chain/after_optimizations.txt",
  "mut:1:113:moduleattrs:cpu-jax-0.12.0.1/rmsnorm/dump/module_0004.jit_rmsnorm.cpu_after_optimizations.txt",
  "mut:1:114:reorder+linebreak:cpu-jax-0.10.2/psum/after_optimizations.txt",
  "mut:1:115:linebreak+comments:cpu-jax-0.10.2/logsumexp/after_optimizations.txt",
  "mut:1:117:comments:cpu-jax-0.10.2/grads/dump/module_0000.jit_grads.cpu_after_optimizations.txt",
  "mut:1:118:comments:cpu-jax-0.10.2/matmul/dump/module_0000.jit_matmul.cpu_after_optimizations.txt",
  "gen:1:6",
  "gen:1:11",
  "gen:1:15",
  "gen:1:16",
  "gen:1:17",
  "gen:1:18",
  "gen:1:19",
  "gen:1:23",
  "gen:1:24",
  "gen:1:25",
  "gen:1:28",
  "gen:1:29",
  "gen:1:31",
  "gen:1:38",
  "gen:1:39",
  "gen:1:41",
  "gen:1:43",
  "bad:1:0:stray",
  "bad:1:3:operandsep",
  "bad:1:4:attrvalue",
  "bad:1:7:stray",
  "bad:1:8:opcode",
  "bad:1:16:stray",
  "bad:1:17:attrvalue",
  "bad:1:20:stray",
  "bad:1:21:comment",
  "bad:1:22:attrvalue",
  "bad:1:23:opcode",
  "bad:1:26:stray",
  "bad:1:28:stray",
  "bad:1:29:comment",
  "bad:1:31:operandsep",
  "bad:1:32:closebrace",
  "bad:1:34:attrvalue",
  "bad:1:39:attrvalue",
  "bad:1:44:opcode",
  "bad:1:46:attrvalue",
  "bad:1:48:comment",
  "bad:1:49:operandsep",
  "bad:1:50:operandsep",
  "bad:1:52:attrvalue",
  "bad:1:54:comment",
  "bad:1:57:stray",
  "bad:1:59:comment",
  "bad:1:62:opcode",
  "bad:1:67:comment",
  "bad:1:70:opcode",
];

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
