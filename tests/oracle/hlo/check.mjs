#!/usr/bin/env node
// Compares the core's reading of every captured optimized module with XLA's own account of it.
//
//   node tests/oracle/hlo/check.mjs --cli build/native/hloscope     the native CLI (child_process)
//   node tests/oracle/hlo/check.mjs --wasm                          the wasm build (wasm/hloscope.mjs)
//   options: --fixtures DIR (default: fixtures/), --only SUBSTRING (fixture label filter), --quiet,
//            --dump (also read dump/*.cpu_after_optimizations.txt, the dump's own printout of the
//            same module: short form without `%` on jax 0.4.x; labelled <fixture>[dump])
//
// For every fixtures/cpu-jax-*/<id>/oracle.json (written by fixtures/capture/capture.py from the
// HloModuleProto XLA serialized for the compiled executable), the core reads that folder's
// after_optimizations.txt and the two are compared, per module (matched by order):
//   - the fused computations (oracle fusion_computations): the set of `calls` of the core's
//     fusions, the census count `fusion_computations`, and which computations are "fused";
//   - every fusion instruction: name, kind, calls, and whether it is nested;
//   - the computation names in order, entry and fused roles;
//   - the instruction count of every computation, and each instruction's name, opcode, type.
// One line per mismatch, naming the fixture and the field; exit status 1 on any mismatch,
// 2 when the checker itself cannot run (no fixtures, backend missing).
//
// No dependencies: Node 20 ES module.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureCases } from '../../fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PER_COMPUTATION_LIMIT = 12; // instruction mismatches printed per computation before "... and N more"

/** Every fixture folder holding an oracle.json, as { label, dir, oracle, hlo } sorted by label. */
export function findFixtures(fixturesDir = join(ROOT, 'fixtures'), { dump = false } = {}) {
  const out = [];
  for (const c of fixtureCases(fixturesDir)) {
    const { label, dir, oracle } = c;
    if (!oracle) continue;
    out.push({ label, dir, oracle, hlo: join(dir, 'after_optimizations.txt') });
    if (dump) for (const hlo of c.files((f) => f.endsWith('.cpu_after_optimizations.txt'), 'dump')) out.push({ label: `${label}[dump]`, dir, oracle, hlo });
  }
  return out;
}

/** A backend reads optimized HLO text and returns { computations, fusions } (the JS API shapes). */
export function cliBackend(binary) {
  const bin = resolve(binary);
  if (!existsSync(bin)) throw new Error(`no CLI at ${binary} (build it with npm run build:native)`);
  const run = (cmd, file) => JSON.parse(execFileSync(bin, [cmd, file, '--json'], {
    encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'],
  }));
  return {
    name: `cli ${relative(process.cwd(), bin) || bin}`,
    read: async (file) => ({ computations: run('computations', file), fusions: run('fusions', file) }),
    close: async () => {},
  };
}

export async function wasmBackend(apiPath = join(ROOT, 'wasm', 'hloscope.mjs')) {
  if (!existsSync(apiPath)) throw new Error(`no ${relative(ROOT, apiPath)} (build it with npm run build:wasm)`);
  const api = await import(pathToFileURL(apiPath).href);
  await api.load();
  return {
    name: 'wasm',
    read: async (file) => {
      const d = api.parse(readFileSync(file, 'utf8'));
      try {
        return { computations: d.computations(), fusions: d.fusions() };
      } finally {
        d.free();
      }
    },
    close: async () => {},
  };
}

const q = (v) => (v === undefined ? 'missing' : JSON.stringify(v));

/**
 * Compares the core's { computations, fusions } with one oracle.json; returns mismatch lines.
 * The census has no per-module split: with several modules it is compared with all of them.
 */
export function compare(label, oracle, core) {
  const out = [];
  const say = (s) => out.push(`${label}: ${s}`);
  const omods = oracle.modules || [];
  const cmods = (core.computations && core.computations.modules) || [];
  if (cmods.length !== omods.length) say(`modules: count core=${cmods.length} oracle=${omods.length}`);

  // ---- per module: computations and their instructions
  for (let m = 0; m < omods.length; m++) {
    const om = omods[m];
    const cm = cmods[m];
    const mtag = omods.length > 1 ? `module ${m} ` : '';
    if (!cm) continue;
    if (cm.name !== om.name) say(`${mtag}module name core=${q(cm.name)} oracle=${q(om.name)}`);
    const onames = om.computations.map((c) => c.name);
    const cnames = cm.computations.map((c) => c.name);
    if (onames.length !== cnames.length) {
      say(`${mtag}computations: count core=${cnames.length} oracle=${onames.length}`);
    }
    const cByName = new Map(cm.computations.map((c) => [c.name, c]));
    const oSet = new Set(onames);
    for (const n of onames) if (!cByName.has(n)) say(`${mtag}computation ${n}: missing in core`);
    for (const n of cnames) if (!oSet.has(n)) say(`${mtag}computation ${n}: not in oracle`);
    const common = onames.filter((n) => cByName.has(n));
    const coreOrder = cnames.filter((n) => oSet.has(n));
    if (common.join('\n') !== coreOrder.join('\n')) {
      const i = common.findIndex((n, k) => n !== coreOrder[k]);
      say(`${mtag}computations: order differs at position ${i}: core=${q(coreOrder[i])} oracle=${q(common[i])}`);
    }
    for (const oc of om.computations) {
      const cc = cByName.get(oc.name);
      if (!cc) continue;
      const ctag = `${mtag}computation ${oc.name}`;
      const coreEntry = cc.role === 'entry';
      const coreFused = cc.role === 'fused';
      if (coreEntry !== oc.is_entry) say(`${ctag}: is_entry core=${coreEntry} (role ${q(cc.role)}) oracle=${oc.is_entry}`);
      if (coreFused !== oc.is_fusion_computation) {
        say(`${ctag}: is_fusion_computation core=${coreFused} (role ${q(cc.role)}) oracle=${oc.is_fusion_computation}`);
      }
      const cins = cc.instructions || [];
      const oins = oc.instructions;
      if (cins.length !== oc.instruction_count) {
        say(`${ctag}: instruction_count core=${cins.length} oracle=${oc.instruction_count}`);
      }
      // Instructions: by position when the names line up, else by name (and say what is missing).
      const lines = [];
      const sameNames = cins.length === oins.length && cins.every((ci, k) => ci.name === oins[k].name);
      if (sameNames) {
        oins.forEach((oi, k) => {
          const ci = cins[k];
          if (ci.opcode !== oi.opcode) lines.push(`instruction ${oi.name}: opcode core=${q(ci.opcode)} oracle=${q(oi.opcode)}`);
          if (ci.type !== oi.type) lines.push(`instruction ${oi.name}: type core=${q(ci.type)} oracle=${q(oi.type)}`);
        });
      } else {
        const cIns = new Map(cins.filter((ci) => !ci.made).map((ci) => [ci.name, ci]));
        const oIns = new Set(oins.map((oi) => oi.name));
        // Instructions the reader made (a compact get-tuple-element "%t#1", a nested operand) have
        // the names XLA's parser gives them, not the compiler's: matched by opcode and type.
        const made = new Map();
        for (const ci of cins.filter((c) => c.made)) {
          const k = `${ci.opcode} ${ci.type}`;
          made.set(k, (made.get(k) || 0) + 1);
        }
        for (const oi of oins) {
          const ci = cIns.get(oi.name);
          const mk = `${oi.opcode} ${oi.type}`;
          if (!ci && made.get(mk)) { made.set(mk, made.get(mk) - 1); continue; }
          if (!ci) { lines.push(`instruction ${oi.name}: missing in core (oracle opcode ${q(oi.opcode)}, type ${q(oi.type)})`); continue; }
          if (ci.opcode !== oi.opcode) lines.push(`instruction ${oi.name}: opcode core=${q(ci.opcode)} oracle=${q(oi.opcode)}`);
          if (ci.type !== oi.type) lines.push(`instruction ${oi.name}: type core=${q(ci.type)} oracle=${q(oi.type)}`);
        }
        for (const ci of cins) if (!ci.made && !oIns.has(ci.name)) lines.push(`instruction ${ci.name}: not in oracle (core opcode ${q(ci.opcode)})`);
        for (const [k, n] of made) if (n > 0) lines.push(`${n} instruction(s) the reader made (${k}) have no match in the oracle`);
        const on = oins.map((oi) => oi.name).filter((n) => cIns.has(n));
        const cn = cins.map((ci) => ci.name).filter((n) => oIns.has(n));
        const i = on.findIndex((n, k) => n !== cn[k]);
        if (i >= 0) lines.push(`instructions: order differs at position ${i}: core=${q(cn[i])} oracle=${q(on[i])}`);
      }
      lines.slice(0, PER_COMPUTATION_LIMIT).forEach((l) => say(`${ctag}: ${l}`));
      if (lines.length > PER_COMPUTATION_LIMIT) say(`${ctag}: ... and ${lines.length - PER_COMPUTATION_LIMIT} more instruction mismatches`);
    }
  }

  // ---- the fusion census (one for the whole text)
  const census = core.fusions || {};
  const cf = census.fusions || [];
  const oFusions = omods.flatMap((om) => om.fusions);
  const oFusedComps = omods.flatMap((om) => om.fusion_computations);
  const fusedComputationsOf = new Set(omods.flatMap((om) => om.computations.filter((c) => c.is_fusion_computation).map((c) => c.name)));
  if (census.fusion_computations !== oFusedComps.length) {
    say(`fusion_computations: count core=${q(census.fusion_computations)} oracle=${oFusedComps.length}`);
  }
  const coreCalls = [...new Set(cf.map((f) => f.calls))];
  const oSetF = new Set(oFusedComps);
  const cSetF = new Set(coreCalls);
  for (const n of oFusedComps) if (!cSetF.has(n)) say(`fusion_computations: ${n} missing in core`);
  for (const n of coreCalls) if (!oSetF.has(n)) say(`fusion_computations: ${n} not in oracle`);
  if (census.fusion_ops !== oFusions.length) say(`fusion_ops: count core=${q(census.fusion_ops)} oracle=${oFusions.length}`);
  const oNested = oFusions.filter((f) => fusedComputationsOf.has(f.computation)).length;
  if (census.fusion_ops_nested !== undefined && census.fusion_ops_nested !== oNested) {
    say(`fusion_ops_nested: count core=${q(census.fusion_ops_nested)} oracle=${oNested}`);
  }
  if (census.fusion_ops_top_level !== undefined && census.fusion_ops_top_level !== oFusions.length - oNested) {
    say(`fusion_ops_top_level: count core=${q(census.fusion_ops_top_level)} oracle=${oFusions.length - oNested}`);
  }
  const cByFusion = new Map(cf.map((f) => [f.name, f]));
  const oByFusion = new Set(oFusions.map((f) => f.name));
  for (const of of oFusions) {
    const c = cByFusion.get(of.name);
    if (!c) { say(`fusion ${of.name}: missing in core (oracle kind ${q(of.kind)}, calls ${q(of.calls)})`); continue; }
    if (c.kind !== of.kind) say(`fusion ${of.name}: kind core=${q(c.kind)} oracle=${q(of.kind)}`);
    if (c.calls !== of.calls) say(`fusion ${of.name}: calls core=${q(c.calls)} oracle=${q(of.calls)}`);
    const nested = fusedComputationsOf.has(of.computation);
    if (c.nested !== undefined && c.nested !== nested) say(`fusion ${of.name}: nested core=${c.nested} oracle=${nested} (sits in ${of.computation})`);
  }
  for (const c of cf) if (!oByFusion.has(c.name)) say(`fusion ${c.name}: not in oracle`);
  const on = oFusions.map((f) => f.name).filter((n) => cByFusion.has(n));
  const cn = cf.map((f) => f.name).filter((n) => oByFusion.has(n));
  const i = on.findIndex((n, k) => n !== cn[k]);
  if (i >= 0) say(`fusions: order differs at position ${i}: core=${q(cn[i])} oracle=${q(on[i])}`);
  return out;
}

/** Runs every fixture through a backend; returns { checked, mismatches: [lines] }. */
export async function checkAll(backend, { fixturesDir, only, dump = false } = {}) {
  const fixtures = findFixtures(fixturesDir, { dump }).filter((f) => !only || f.label.includes(only));
  const mismatches = [];
  for (const f of fixtures) {
    const oracle = JSON.parse(readFileSync(f.oracle, 'utf8'));
    if (!existsSync(f.hlo)) { mismatches.push(`${f.label}: ${relative(f.dir, f.hlo)} missing`); continue; }
    let core;
    try {
      core = await backend.read(f.hlo);
    } catch (e) {
      const msg = String((e && (e.stderr || e.message)) || e).trim().split('\n')[0];
      mismatches.push(`${f.label}: core failed to read ${relative(f.dir, f.hlo)}: ${msg}`);
      continue;
    }
    mismatches.push(...compare(f.label, oracle, core));
  }
  return { checked: fixtures.length, mismatches };
}

async function main(argv) {
  let backend = null;
  let fixturesDir;
  let only;
  let quiet = false;
  let dump = false;
  const usage = 'usage: node tests/oracle/hlo/check.mjs (--cli PATH | --wasm) [--fixtures DIR] [--only SUBSTRING] [--dump] [--quiet]';
  try {
    for (let k = 0; k < argv.length; k++) {
      const a = argv[k];
      if (a === '--cli') backend = cliBackend(argv[++k] || join(ROOT, 'build/native/hloscope'));
      else if (a === '--wasm') backend = await wasmBackend();
      else if (a === '--fixtures') fixturesDir = resolve(argv[++k]);
      else if (a === '--only') only = argv[++k];
      else if (a === '--quiet') quiet = true;
      else if (a === '--dump') dump = true;
      else if (a === '-h' || a === '--help') { console.log(usage); return 0; }
      else { console.error(`check.mjs: unknown argument ${a}\n${usage}`); return 2; }
    }
  } catch (e) {
    console.error(`check.mjs: ${e.message}`);
    return 2;
  }
  if (!backend) { console.error(usage); return 2; }
  const { checked, mismatches } = await checkAll(backend, { fixturesDir, only, dump });
  await backend.close();
  if (checked === 0) {
    console.error('check.mjs: no fixtures/cpu-jax-*/*/oracle.json found (run npm run capture)');
    return 2;
  }
  for (const line of mismatches) console.log(line);
  const bad = new Set(mismatches.map((l) => l.split(': ')[0])).size;
  if (!quiet || mismatches.length) {
    console.error(`oracle check (${backend.name}): ${checked} texts checked, ${mismatches.length} mismatches in ${bad}`);
  }
  return mismatches.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
