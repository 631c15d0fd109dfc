#!/usr/bin/env node
// Compares the core's decisions with jax's and XLA's own records of every fixture.
//
//   node tests/oracle/hlo/decisions.mjs --cli build/native/hloscope   the native CLI
//   node tests/oracle/hlo/decisions.mjs --wasm                        the wasm build (wasm/hloscope.mjs)
//   options: --fixtures DIR (default: fixtures/), --only SUBSTRING, --quiet
//
// jaxpr.txt against jaxpr_eqns.json (written from jax's Jaxpr objects by
// fixtures/capture/jaxpr_eqns.py): the decisions jax's equations imply (convert_element_type to
// more or fewer bits = upcast / downcast, broadcast_in_dim = broadcast, transpose, remat2 /
// checkpoint / remat / optimization_barrier = remat) must equal the core's, kind, from/to dtype,
// result shape and nesting path, in order. Order: jax's walk visits an equation and then the
// jaxprs its parameters hold; the text prints inline bodies in that order, but newer jax hoists a
// shared body above its user (`let name = { lambda ... } in`), so the comparison is per nesting
// path (the order within each path), and over the whole sequence when the text hoists nothing.
//
// after_optimizations.txt against oracle.json (XLA's HloModuleProto): every broadcast and
// transpose instruction XLA lists is a decision with its name and type, and every upcast or
// downcast decision names a convert instruction whose element type is the decision's `to`.
//
// One line per mismatch; exit status 1 on any, 2 when the checker cannot run.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureCases } from '../../fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const REMAT = new Set(['remat', 'remat2', 'checkpoint', 'remat_call', 'optimization_barrier']);

/** Fixture folders with a jaxpr_eqns.json: { label, dir } sorted by label. */
export function findDecisionFixtures(fixturesDir = join(ROOT, 'fixtures')) {
  return fixtureCases(fixturesDir).filter((c) => c.file('jaxpr_eqns.json')).map(({ label, dir }) => ({ label, dir }));
}

const typeOf = (a) => `${a.hlo}[${a.shape.join(',')}]`;

/** The decisions jax's own equation record implies, in jax's walk order. */
export function expectedDecisions(rec) {
  const out = [];
  for (const e of rec.eqns) {
    const i = e.in[0], o = e.out[0];
    const shape = e.out.length === 1 ? typeOf(o) : `(${e.out.map(typeOf).join(', ')})`;
    let kind = null, from = null, to = null;
    if (e.primitive === 'convert_element_type') {
      if (!i || !o || !i.bits || !o.bits || i.bits === o.bits) continue;
      kind = o.bits > i.bits ? 'upcast' : 'downcast';
      from = i.hlo;
      to = o.hlo;
    } else if (e.primitive === 'broadcast_in_dim' || e.primitive === 'transpose') {
      kind = e.primitive === 'transpose' ? 'transpose' : 'broadcast';
      from = i.hlo;
      to = o.hlo;
    } else if (REMAT.has(e.primitive)) {
      kind = 'remat';
    } else continue;
    out.push({ kind, from, to, shape, path: e.path, body: e.body, primitive: e.primitive });
  }
  return out;
}

const key = (d) => `${d.kind} ${d.from}->${d.to} ${d.shape} @${d.path || '-'}`;

/** Mismatch lines between the core's decisions (in line order) and the expected ones (in jax's
 * walk order, each with the body it sits in). Within each nesting path, the core's sequence must
 * be the bodies' sequences laid end to end, each body whole and in jax's order (hoisted bodies
 * are printed above their users, so the bodies of one path may come in another order); when the
 * text hoists nothing, the whole sequence must equal jax's walk order. */
export function compareJaxpr(label, core, expected, text) {
  const bad = [];
  const paths = new Set([...core.map((d) => d.path), ...expected.map((d) => d.path)]);
  for (const p of paths) {
    const got = core.filter((d) => d.path === p).map(key);
    const bodies = new Map();
    for (const d of expected.filter((x) => x.path === p)) {
      if (!bodies.has(d.body)) bodies.set(d.body, []);
      bodies.get(d.body).push(key(d));
    }
    const left = [...bodies.values()];
    let i = 0;
    while (i < got.length) {
      const k = left.findIndex((b) => b.every((x, j) => got[i + j] === x));
      if (k < 0) {
        const want = left.map((b) => b[0]).join(' | ') || '(nothing more)';
        bad.push(`${label}: jaxpr path "${p}" from decision ${i} (core ${got[i]}) no remaining jax body matches; their first decisions: ${want}`);
        break;
      }
      i += left[k].length;
      left.splice(k, 1);
    }
    if (i >= got.length && left.length) bad.push(`${label}: jaxpr path "${p}": jax has ${left.flat().length} more: ${left.flat()[0]}`);
  }
  if (!/^let /m.test(text)) {
    const x = core.map(key).join('\n'), y = expected.map(key).join('\n');
    if (x !== y) bad.push(`${label}: jaxpr decisions in line order differ from jax's walk order`);
  }
  return bad;
}

export function compareHlo(label, core, oracle) {
  const bad = [];
  const instrs = new Map();
  for (const m of oracle.modules) for (const c of m.computations) for (const i of c.instructions) instrs.set(i.name, i);
  const byName = new Map(core.map((d) => [d.name, d]));
  for (const [name, i] of instrs) {
    if (i.opcode !== 'broadcast' && i.opcode !== 'transpose') continue;
    const d = byName.get(name);
    if (!d) bad.push(`${label}: hlo ${i.opcode} ${name} is not a decision`);
    else if (d.kind !== i.opcode || d.shape !== i.type) bad.push(`${label}: hlo ${name}: core ${d.kind} ${d.shape}, XLA ${i.opcode} ${i.type}`);
  }
  for (const d of core) {
    if (d.kind !== 'upcast' && d.kind !== 'downcast') continue;
    const i = instrs.get(d.name);
    if (!i || i.opcode !== 'convert' || !i.type.startsWith(`${d.to}[`) || i.type !== d.shape)
      bad.push(`${label}: hlo ${d.kind} ${d.name} ${d.shape}: XLA has ${i ? `${i.opcode} ${i.type}` : 'no such instruction'}`);
  }
  return bad;
}

/** Checks every fixture with `read(file) -> decisions JSON`; returns { checked, mismatches }. */
export async function checkAll(read, { fixturesDir, only } = {}) {
  const mismatches = [];
  let checked = 0;
  for (const f of findDecisionFixtures(fixturesDir)) {
    if (only && !f.label.includes(only)) continue;
    const rec = JSON.parse(readFileSync(join(f.dir, 'jaxpr_eqns.json'), 'utf8'));
    const text = readFileSync(join(f.dir, 'jaxpr.txt'), 'utf8');
    const got = await read(join(f.dir, 'jaxpr.txt'));
    if (got.warnings.length) mismatches.push(`${f.label}: jaxpr warnings: ${got.warnings.map((w) => w.message).join('; ')}`);
    mismatches.push(...compareJaxpr(f.label, got.decisions, expectedDecisions(rec), text));
    if (existsSync(join(f.dir, 'oracle.json'))) {
      const hlo = await read(join(f.dir, 'after_optimizations.txt'));
      mismatches.push(...compareHlo(f.label, hlo.decisions, JSON.parse(readFileSync(join(f.dir, 'oracle.json'), 'utf8'))));
    }
    checked++;
  }
  return { checked, mismatches };
}

export function cliReader(binary) {
  const bin = resolve(binary);
  if (!existsSync(bin)) throw new Error(`no CLI at ${binary}`);
  return async (file) => JSON.parse(execFileSync(bin, ['decisions', file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 }));
}

export async function wasmReader(apiPath = join(ROOT, 'wasm', 'hloscope.mjs')) {
  const api = await import(pathToFileURL(apiPath).href);
  await api.load();
  return async (file) => {
    const d = api.parse(readFileSync(file, 'utf8'));
    try {
      return d.decisions();
    } finally {
      d.free();
    }
  };
}

async function main(argv) {
  let read = null, fixturesDir, only, quiet = false;
  try {
    for (let k = 0; k < argv.length; k++) {
      const a = argv[k];
      if (a === '--cli') read = cliReader(argv[++k]);
      else if (a === '--wasm') read = await wasmReader();
      else if (a === '--fixtures') fixturesDir = resolve(argv[++k]);
      else if (a === '--only') only = argv[++k];
      else if (a === '--quiet') quiet = true;
      else throw new Error(`unknown argument ${a}`);
    }
    if (!read) throw new Error('usage: node tests/oracle/hlo/decisions.mjs (--cli PATH | --wasm) [--fixtures DIR] [--only S] [--quiet]');
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  const { checked, mismatches } = await checkAll(read, { fixturesDir, only });
  for (const m of mismatches) console.log(m);
  if (!checked) {
    console.error('no fixture with a jaxpr_eqns.json found');
    return 2;
  }
  if (!quiet || mismatches.length) console.error(`${checked} fixtures, ${mismatches.length} mismatches`);
  return mismatches.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
