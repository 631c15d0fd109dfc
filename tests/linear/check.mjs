#!/usr/bin/env node
// Linear time: every pathological case of cases.mjs is read at size N and 4N in the same run
// (hs_time_driver: hs_parse + census, + the decisions for the cases DRIVER_ARGS names; N and 4N read in turn for REPEAT rounds in one process, the
// best CPU time of each over up to 6 such attempts, stopping at the first within bound); 4x the
// input may cost at most 4.5x the time. Ratios, never absolute times, are asserted. A case over the
// bound is measured again at 2N and 8N, then at 4N and 16N, and fails only if it is over the bound
// at every scale: growth from the algorithm shows at every scale, a memory-hierarchy knee or a
// crowded machine at one or two (CI once read truncated at 5.68x, 8 MB against 32 MB, where this
// machine reads 3.9-4.4x; beside two fuzzers, duplicates read 5.9x at N and 5.7x at 2N, 3.9x alone).
//
//   node tests/linear/check.mjs --driver build/native/tests/hs_time_driver [--only CASE] [--scale K] [--full]
//
// --scale multiplies every N. --full: the issue's sizes as 4N (a 1M-line module, 200k instructions,
// 100k computations and modules, a 100 MB line, 100k-deep nesting, 60 MB of truncated dumps);
// minutes, and several GB of memory; not in npm test.
// A pair whose 4N time is under MIN_SECONDS is below what the clock can judge on a shared
// machine and passes as "too fast to measure". Under a sanitizer build the ratios are printed
// but not asserted (the instrumentation dominates); the inputs still must not crash.
//
// KNOWN_FAILURES: cases above 4.5x today (none since the names tables keep hash bits in their
// slots and resolve reads each line once: lines, instructions and computations measured
// 3.8-4.35x, 2026-11-30, under load). A failing case not on the list fails the test; a listed
// case that passes is reported (take it off).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES, DRIVER_ARGS, FULL_SIZES } from './cases.mjs';

const LIMIT = 4.5;
const MIN_SECONDS = 0.02;
const REPEAT = 5;
// N for each case: 4N takes about 0.05-0.2 s of CPU natively when linear; large enough that N
// too is past the caches (at half these sizes N partly fits and 4N reads 4.4-4.5x the time)
export const TEST_SIZES = {
  truncated: 8e6, lines: 120e3, instructions: 120e3, computations: 24e3, duplicates: 24e3, oneline: 24e6, nesting: 40e3,
  stablehlo_locs: 10e3, stablehlo_gaps: 100e3, stablehlo_nesting: 40e3,
};

const KNOWN_FAILURES = [];

function time(driver, files, repeat, extra = []) {
  const out = execFileSync(driver, [...extra, files[0], String(repeat), ...files.slice(1)], { encoding: 'utf8', timeout: 600e3 });
  return out.trim().split('\n').map((l) => JSON.parse(l));
}

/** N and 4N, interleaved in one process: best of each over up to `attempts` runs of `repeat` rounds. */
function measurePair(driver, name, n, dir, { repeat, attempts }) {
  const f1 = join(dir, `${name}-1.txt`), f4 = join(dir, `${name}-4.txt`);
  writeFileSync(f1, CASES[name](n));
  writeFileSync(f4, CASES[name](4 * n));
  let small, big;
  try {
    for (let a = 0; a < attempts; a++) {
      const [s, b] = time(driver, [f1, f4], repeat, DRIVER_ARGS[name]);
      small = !small || s.seconds < small.seconds ? s : small;
      big = !big || b.seconds < big.seconds ? b : big;
      if (big.seconds / small.seconds <= LIMIT || big.seconds < MIN_SECONDS) break;
    }
  } finally {
    rmSync(f1, { force: true });
    rmSync(f4, { force: true });
  }
  const ratio = big.seconds / Math.max(small.seconds, 1e-9);
  const verdict = big.seconds < MIN_SECONDS ? 'fast' : ratio <= LIMIT ? 'ok' : 'slow';
  return { name, n, small, big, ratio, verdict };
}

/**
 * { name, n, small, big, ratio, verdict: 'ok'|'fast'|'slow', over } for one case. A pair over the
 * bound is measured again one scale up (2N and 8N), and if over it there too, one more (4N and
 * 16N): an algorithm that grows faster than its input does so at every scale, while a cache or
 * page-size knee between N and 4N, or a machine whose neighbours crowd the larger working set
 * for a while, shows at one or two. The case is slow only if every scale is; `over` keeps the
 * pairs that were over before the last one decided.
 */
export function measure(driver, name, n, dir, { repeat = REPEAT, attempts = 3, confirm = true } = {}) {
  const over = [];
  for (let scale = 1; ; scale *= 2) {
    const r = measurePair(driver, name, scale * n, dir, { repeat, attempts });
    if (r.verdict !== 'slow' || !confirm || scale === 4) return { ...r, over };
    over.push(r);
  }
}

function main() {
  const args = process.argv.slice(2);
  const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d; };
  const driver = resolve(opt('--driver', 'build/native/tests/hs_time_driver'));
  const scale = Number(opt('--scale', 1));
  const names = opt('--only') ? [opt('--only')] : Object.keys(TEST_SIZES);
  const dir = mkdtempSync(join(tmpdir(), 'hs-linear-'));
  let bad = 0;
  // a sanitizer build: an eighth of the sizes, ratios printed only (crashes still fail)
  writeFileSync(join(dir, 'probe.txt'), 'HloModule p\n');
  const sanitized = time(driver, [join(dir, 'probe.txt')], 1)[0].sanitized;
  const k = sanitized ? scale / 8 : scale;
  const failing = [];
  try {
    for (const name of names) {
      const n = args.includes('--full') ? Math.round(FULL_SIZES[name] / 4) : Math.round(TEST_SIZES[name] * k);
      const r = measure(driver, name, n, dir, sanitized ? { repeat: 1, attempts: 1, confirm: false } : { attempts: KNOWN_FAILURES.includes(name) ? 1 : 6 });
      const mb = (x) => (x.bytes / 1e6).toFixed(1);
      for (const o of r.over) {
        console.log(`linear ${name.padEnd(13)} N ${mb(o.small)} MB ${o.small.seconds.toFixed(4)} s, 4N ${mb(o.big)} MB ` +
          `${o.big.seconds.toFixed(4)} s: ${o.ratio.toFixed(2)}x > ${LIMIT}x; measured again one scale up:`);
      }
      const read = r.big.ok ? `${r.big.instructions} instructions, ${r.big.warnings} warnings` : `error at line ${r.big.error_line}`;
      console.log(`linear ${name.padEnd(13)} N ${mb(r.small)} MB ${r.small.seconds.toFixed(4)} s, 4N ${mb(r.big)} MB ${r.big.seconds.toFixed(4)} s: ` +
        `${r.ratio.toFixed(2)}x ${r.verdict === 'fast' ? '(too fast to measure)' : r.verdict === 'ok' ? 'ok' : `> ${LIMIT}x`} (${read})`);
      if (r.verdict === 'slow') failing.push(name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (sanitized) {
    console.log('linear: sanitizer build: ratios printed, not asserted');
    return;
  }
  for (const name of failing) {
    if (KNOWN_FAILURES.includes(name)) console.log(`  known failure: ${name}`);
    else { console.log(`  FAIL: ${name} grows faster than the input`); bad++; }
  }
  for (const name of KNOWN_FAILURES) if (names.includes(name) && !failing.includes(name)) console.log(`  NOW PASSES (take it off KNOWN_FAILURES): ${name}`);
  console.log(`linear: known failures ${KNOWN_FAILURES.length}: ${KNOWN_FAILURES.join(', ') || 'none'}`);
  if (bad) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
