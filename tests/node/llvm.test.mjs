// readLlvm / llvmJSON (the wasm build) on every captured .ll: byte for byte what the native
// `hloscope llvm --json` prints, the loops and parameters LLVM's tools report
// (tests/oracle/llvm/oracle.json), each kernel joined to its HLO, and the bad-input cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { filesBeside, oracleFile, sharedAbsent, sharedPath } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skipWasm = !wasmBuilt && 'wasm not built (bash tools/build-wasm.sh)';
const oracle = JSON.parse(readFileSync(oracleFile('llvm', 'oracle.json'), 'utf8'));

const files = Object.keys(oracle.files)
  .map((rel) => ({ rel, file: rel.startsWith('../shared/') ? sharedPath(rel.slice(10)) : path.join(root, rel) }))
  .filter(({ file }) => file);
if (sharedAbsent('llvm')) console.log(`${sharedAbsent('llvm')}: its .ll files are not read`);

/** The after_optimizations HLO beside a .ll that shares its module_NNNN. */
function hloFor(file) {
  const m = /module_\d+\./.exec(path.basename(file));
  const cands = filesBeside(file, (n) => n.endsWith('after_optimizations.txt') && (!m || n.includes(m[0])));
  assert.equal(cands.length, 1, `one HLO for ${file}: ${cands}`);
  return cands[0];
}

test('readLlvm matches LLVM\'s tools and joins every kernel to its HLO', { skip: skipWasm }, () => {
  assert.ok(files.length >= 20);
  for (const { rel, file } of files) {
    const got = api.readLlvm(readFileSync(file, 'utf8'), readFileSync(hloFor(file), 'utf8'));
    const want = oracle.files[rel];
    assert.deepEqual(got.functions.map((f) => f.name).sort(), [...want.nm_defined].sort(), rel);
    for (const f of got.functions) {
      const w = want.functions[f.name];
      assert.equal(f.params.length, w.params, `${rel} @${f.name} params`);
      const loops = f.loops.map((l) => ({ depth: l.depth, header: l.header, backedge_taken: l.backedge_taken }))
        .sort((a, b) => (a.header < b.header ? -1 : 1));
      assert.deepEqual(loops, w.loops.map(({ depth, header, backedge_taken }) => ({ depth, header, backedge_taken })), `${rel} @${f.name} loops`);
      assert.deepEqual([...f.vector_widths].sort(), w.vector_types, `${rel} @${f.name} vectors`);
      if (f.kernel) assert.ok(f.hlo, `${rel}: kernel @${f.name} joined`);
    }
    assert.equal(got.dropped.length, got.functions.filter((f) => f.hlo).length);
  }
});

test('the add at three levels: 1024 elements, a scalar loop, then <8 x float>', { skip: skipWasm }, () => {
  const dir = path.join(root, 'fixtures/levels/cpu-jax-0.4.38/add');
  const hlo = readFileSync(path.join(dir, 'module_0001.jit_add.cpu_after_optimizations.txt'), 'utf8');
  const noopt = api.readLlvm(readFileSync(path.join(dir, 'module_0001.jit_add.ir-no-opt.ll'), 'utf8'), hlo);
  const opt = api.readLlvm(readFileSync(path.join(dir, 'module_0001.jit_add.ir-with-opt.ll'), 'utf8'), hlo);
  // the HLO says f32[1024]; the loop bound 1024 is in the no-opt text ("icmp uge i64 %..., 1024")
  assert.equal(noopt.functions[0].loops[0].trip_count, 1024);
  assert.deepEqual(noopt.functions[0].vector_widths, []);
  assert.equal(noopt.functions[0].ops.fadd, 1);
  // the optimized loop steps by 32 (4 x <8 x float>) to 1024: 32 iterations
  assert.equal(opt.functions[0].loops[0].trip_count, 32);
  assert.deepEqual(opt.functions[0].vector_widths, ['<8 x float>']);
  assert.equal(opt.functions[0].ops.fadd, 4);
  assert.equal(noopt.dropped[0].hlo, 'add.3');
  assert.deepEqual(noopt.dropped[0].shapes.hlo_operands, ['f32[1024]', 'f32[1024]']);
});

test('the wasm JSON is byte for byte the native CLI\'s', { skip: skipWasm || (!existsSync(cli) && 'native CLI not built') }, () => {
  for (const { file } of files) {
    const h = hloFor(file);
    const native = execFileSync(cli, ['llvm', file, '--hlo', h, '--json'], { encoding: 'utf8' }).replace(/\n$/, '');
    assert.equal(api.llvmJSON(readFileSync(file, 'utf8'), readFileSync(h, 'utf8')), native, file);
  }
});

test('bad input: a cut file keeps the functions before the cut; HLO is not LLVM IR', { skip: skipWasm }, () => {
  const file = path.join(root, 'fixtures/levels/cpu-jax-0.4.38/softmax/module_0001.jit_softmax.ir-no-opt.part_00.ll');
  const text = readFileSync(file, 'utf8');
  const whole = api.readLlvm(text);
  const cut = api.readLlvm(text.slice(0, text.lastIndexOf('\ndefine ') + 30));
  assert.deepEqual(cut.functions.map((f) => f.name), whole.functions.slice(0, -1).map((f) => f.name));
  assert.equal(cut.warnings[0].code, 'HS_W_TRUNCATED');
  const hlo = readFileSync(path.join(root, 'fixtures/levels/cpu-jax-0.4.38/add/module_0001.jit_add.cpu_after_optimizations.txt'), 'utf8');
  assert.throws(() => api.readLlvm(hlo), (e) => e.code === 'HS_E_FORMAT' && /not LLVM IR/.test(e.message) && e.side === 'left' && e.line === 1);
  assert.throws(() => api.readLlvm(text, 'not hlo at all {'), (e) => e.side === 'right');
  // the registry knows the format: detectFormat names it, parse() points elsewhere
  assert.equal(api.detectFormat(text), 'llvm');
  assert.ok(api.registry().formats.some((f) => f.name === 'llvm' && f.document === false));
  assert.throws(() => api.parse(text), (e) => e.code === 'HS_E_FORMAT' && /LLVM IR/.test(e.message));
});

// Which level a .ll is: XLA names the file (*.ir-no-opt.ll before LLVM's optimizer,
// *.ir-with-opt.ll after); the core reads it from the text (`optimized`: a define carrying
// local_unnamed_addr), which is what the levels view and a dump cell go by.
test('the core tells an optimized .ll from an unoptimized one as XLA named them (fixtures and shared captures)', () => {
  const named = files.filter(({ rel }) => /\.ir-(no|with)-opt[.]/.test(rel));
  assert.ok(named.length >= 10, `${named.length} named .ll files`);
  for (const { rel, file } of named) {
    const j = JSON.parse(execFileSync(cli, ['llvm', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
    assert.equal(j.optimized, /\.ir-with-opt[.]/.test(rel), rel);
    if (api) assert.equal(api.readLlvm(readFileSync(file, 'utf8')).optimized, j.optimized, `${rel}: wasm`);
  }
});
