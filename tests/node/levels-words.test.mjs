// The levels view's loop words (notebook/src/views/llvm-analysis.js nestWords) over the loops the
// core reads (readLlvm, the wasm build) in fixtures/levels: nests follow the core's depths and
// line ranges. The expected trip counts are in the texts (XLA's loop bounds); the core's depths
// are checked against LLVM's print<loops> in tests/node/llvm.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { levelsFixtures } from '../fixtures.mjs';
import { loopNests, nestWords } from '../../notebook/src/views/llvm-analysis.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const skip = !wasmBuilt && 'wasm not built (bash tools/build-wasm.sh)';

/** The core's loops of function `fn` in file `name` of levels fixture set/id. */
function loopsOf(set, id, name, fn) {
  const c = levelsFixtures().find((x) => x.set === set && x.id === id);
  assert.ok(c, `fixtures/levels/${set}/${id} is missing: an in-repo fixture`);
  const [file] = c.files((n) => n === name);
  assert.ok(file, `${set}/${id}/${name} is missing`);
  const f = api.readLlvm(readFileSync(file, 'utf8')).functions.find((x) => x.name === fn);
  assert.ok(f, `no function ${fn} in ${name}`);
  return f.loops;
}

test('a 64x loop holding a 4x and then a 128x loop is one nest, not three loops in a chain', { skip }, () => {
  const loops = loopsOf('cpu-jax-0.4.38', 'softmax', 'module_0001.jit_softmax.ir-with-opt.part_03.ll', 'broadcast_divide_fusion');
  assert.deepEqual(loops.map((L) => L.depth), [1, 2, 2]);
  const nests = loopNests([loops]);
  assert.equal(nests.length, 1);
  assert.deepEqual(nests[0].children.map((n) => n.loop.trip_count), [4, 128]);
  assert.equal(nestWords([loops]), '1 loop nest, 2 deep (trip counts 64 × (4, then 128))');
});

test('one loop, a two-deep chain, and nests of two functions side by side', { skip }, () => {
  const add = loopsOf('cpu-jax-0.4.38', 'add', 'module_0001.jit_add.ir-no-opt.ll', 'add.3');
  assert.equal(nestWords([add]), '1 loop (trip counts 1024)');
  const exp = loopsOf('cpu-jax-0.4.38', 'softmax', 'module_0001.jit_softmax.ir-no-opt.part_02.ll', 'subtract_exponential_fusion');
  assert.equal(nestWords([exp]), '1 loop nest, 2 deep (trip counts 64 × 128)');
  // three two-deep nests (the same function's loops given three times, as three kernels' parts
  // are): three nests, never "6 loops (64 × 128 × 64 × 128 × ...)"
  assert.equal(nestWords([exp, exp, exp]), '3 loop nests, each 2 deep (trip counts 64 × 128; 64 × 128; 64 × 128)');
  assert.equal(nestWords([add, exp]), '2 loop nests, 1 and 2 deep (trip counts 1024; 64 × 128)');
  assert.equal(nestWords([]), 'no loop');
});
