// Issue 33 item 9: the types are checked. wasm/hloscope.d.ts is hand-written; here it is held to
// what the core says and does:
//   - its unions (Format, DocumentFormat, ResultKind, ErrorCode, WarningCode) equal the core's
//     registry (`registry()`, read from the wasm);
//   - what hloscope.mjs exports at run time is what the d.ts declares, no more, no less;
//   - tests/types/usage.ts, a typed user of the API, compiles with `tsc --noEmit` (TypeScript
//     from npm, a devDependency), and its `@ts-expect-error` lines are refused;
//   - the results the core gives on real fixtures, written out as TypeScript object literals
//     `satisfies` their interfaces, compile: a key the core writes that the d.ts does not name,
//     or one the d.ts requires that the core leaves out, fails tsc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffPairs, fixtureCases, levelsFixtures, newestFixtureSet, repoRoot, sharedCaptures } from '../fixtures.mjs';

const dts = readFileSync(join(repoRoot, 'wasm/hloscope.d.ts'), 'utf8');
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
const wasmBuilt = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = (!wasmBuilt && 'the wasm core is not built (npm run build:wasm)') || false;

/** The members of `export type NAME = "a" | "b" ...;` in the d.ts. */
function union(name) {
  const m = new RegExp(`^export type ${name} = ([^;]*);`, 'm').exec(dts);
  assert.ok(m, `wasm/hloscope.d.ts declares no union ${name}`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}

function runTsc(project) {
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '-p', project], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (e) {
    return `${e.stdout || ''}${e.stderr || ''}` || String(e);
  }
}

test('the unions of the d.ts are the core\'s registry: formats, document formats, result kinds, error and warning codes', { skip }, () => {
  const r = api.registry();
  assert.deepEqual(union('Format'), r.formats.map((f) => f.name));
  assert.deepEqual(union('DocumentFormat'), r.formats.filter((f) => f.document).map((f) => f.name));
  assert.deepEqual(union('ResultKind'), r.kinds.map((k) => k.name));
  assert.deepEqual(union('TextKind'), [...new Set(r.commands.filter((c) => c.text).map((c) => c.kind))]);
  assert.deepEqual(union('ErrorCode'), r.codes.map((c) => c.name));
  assert.deepEqual(union('WarningCode'), r.warnings.map((w) => w.name));
});

test('hloscope.mjs exports exactly the functions and classes the d.ts declares', { skip }, () => {
  const declared = [...dts.matchAll(/^export (?:function|class|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(api).sort());
});

test('a typed user of the API compiles with tsc --noEmit, and what the types must refuse is refused', () => {
  assert.ok(existsSync(tsc), 'typescript is not installed: npm ci installs it (a devDependency)');
  assert.equal(runTsc(join(repoRoot, 'tests/types')), '');
});

test('the core\'s results on real fixtures satisfy their interfaces (no key the d.ts lacks, none it requires missing)', { skip }, () => {
  const set = newestFixtureSet();
  const cases = fixtureCases(undefined, { set }).filter((c) => ['softmax', 'mlp', 'scan'].includes(c.id));
  assert.ok(cases.length >= 2, `fixtures of ${set}: ${cases.map((c) => c.id)}`);
  const lines = [
    '// Written by tests/node/types.test.mjs: the core\'s results on real fixtures, as the d.ts types them.',
    "import type * as T from '../../wasm/hloscope.mjs';",
  ];
  let n = 0;
  const put = (type, value, what) => { lines.push(`// ${what}`, `export const r${n++} = ${JSON.stringify(value)} satisfies T.${type};`); };
  for (const c of cases) {
    const hlo = readFileSync(c.file('after_optimizations.txt'), 'utf8');
    const stablehlo = readFileSync(c.file('stablehlo.mlir'), 'utf8');
    for (const [label, text] of [['after_optimizations.txt', hlo], ['stablehlo.mlir', stablehlo], ['jaxpr.txt', readFileSync(c.file('jaxpr.txt'), 'utf8')]]) {
      const doc = api.parse(text);
      const what = `${set}/${c.id}/${label}`;
      put('Summary', doc.summary(), what);
      put('FusionCensus', doc.fusions(), what);
      put('Spills', doc.spills(), what);
      put('Computations', doc.computations(), what);
      put('Decisions', doc.decisions(), what);
      put('Overlap', doc.overlap(), what);
      doc.free();
    }
    put('Layouts', api.layouts(hlo), `${c.id} layouts`);
    put('Xray', api.xray(stablehlo, hlo), `${c.id} xray`);
    const pb = c.file('profile.xplane.pb');
    if (pb) {
      const prof = api.parseProfile(readFileSync(pb));
      put('Profile', prof.summary(), `${c.id} profile`);
      put('Timeline', prof.timeline({ hlo }), `${c.id} timeline`);
      prof.free();
    }
    const ba = c.files((f) => f.endsWith('-buffer-assignment.txt'), 'dump')[0];
    if (ba) put('Memory', api.readMemory(readFileSync(ba, 'utf8'), hlo), `${c.id} buffer assignment`);
    const listing = c.file('dump/FILES.txt');
    if (listing) put('Passes', api.readPasses(readFileSync(listing, 'utf8')), `${c.id} dump listing`);
  }
  put('Layout', api.layout('bf16[8,128]{1,0:T(8,128)(2,1)}'), 'one type');
  const lv = levelsFixtures().find((c) => c.files((f) => f.endsWith('.ll')).length);
  if (lv) {
    const ll = lv.files((f) => f.endsWith('ir-with-opt.ll'))[0] || lv.files((f) => f.endsWith('.ll'))[0];
    const hlo = lv.files((f) => f.endsWith('after_optimizations.txt'))[0];
    put('Llvm', api.readLlvm(readFileSync(ll, 'utf8'), hlo ? readFileSync(hlo, 'utf8') : undefined), `${lv.id} llvm`);
  }
  put('Registry', api.registry(), 'registry');
  // the diff: without profiles, with a profile of each side (the pairs' own: times known), and
  // with profiles of other programs (two fixtures' own: times unknown)
  for (const p of diffPairs().filter((x) => x.file('a.xplane.pb') && x.file('b.xplane.pb')).slice(0, 2)) {
    const [a, b] = ['a', 'b'].map((s) => readFileSync(p.file(`${s}.after_optimizations.txt`), 'utf8'));
    put('Diff', api.diff(a, b), `${p.label} diff`);
    put('Diff', api.diff(a, b, { profiles: ['a', 'b'].map((s) => readFileSync(p.file(`${s}.xplane.pb`))) }), `${p.label} diff with profiles`);
  }
  const [c0, c1] = cases;
  if (c0.file('profile.xplane.pb') && c1.file('profile.xplane.pb')) {
    put('Diff', api.diff(readFileSync(c0.file('after_optimizations.txt'), 'utf8'), readFileSync(c1.file('after_optimizations.txt'), 'utf8'),
      { profiles: [readFileSync(c1.file('profile.xplane.pb')), readFileSync(c0.file('profile.xplane.pb'))] }), `${c0.id} against ${c1.id}, profiles swapped`);
  }
  // other people's real TPU and GPU material, when ../shared is beside us (read in place)
  const shared = (sub, keep) => sharedCaptures(sub, keep);
  for (const f of [...shared('memory', (n) => n.endsWith('.txt')), ...shared('oom-variants', (n) => n.endsWith('.txt')),
    ...shared('buffers', (n) => n.endsWith('.txt'))]) {
    try { put('Memory', api.readMemory(readFileSync(f, 'utf8')), f.slice(f.indexOf('captures/'))); } catch (e) { if (!(e instanceof api.HloscopeError)) throw e; }
  }
  for (const f of [...shared('tpu-v6e', (n) => n.endsWith('.txt')), ...shared('gpu-semantics', (n) => n.endsWith('.txt')).slice(0, 6)]) {
    let doc;
    try { doc = api.parse(readFileSync(f, 'utf8')); } catch (e) { if (e instanceof api.HloscopeError) continue; throw e; }
    const what = f.slice(f.indexOf('captures/'));
    put('Summary', doc.summary(), what);
    put('FusionCensus', doc.fusions(), what);
    put('Spills', doc.spills(), what);
    put('Decisions', doc.decisions(), what);
    put('Overlap', doc.overlap(), what);
    put('Xray', api.xray('', readFileSync(f, 'utf8')), `${what} xray`);
    doc.free();
  }
  for (const f of shared('profiles', (n) => n.endsWith('.xplane.pb'))) {
    const prof = api.parseProfile(readFileSync(f));
    put('Profile', prof.summary(), f.slice(f.indexOf('captures/')));
    put('Timeline', prof.timeline(), f.slice(f.indexOf('captures/')));
    prof.free();
  }
  const dir = join(repoRoot, 'build/types');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.ts'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
    files: ['results.ts'],
  }));
  assert.equal(runTsc(dir), '', `${n} results written to build/types/results.ts`);
});
