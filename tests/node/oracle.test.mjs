// The core against the compiler, through the wasm API: for every captured jax CPU module
// (fixtures/cpu-jax-*/<id>/), the computations, instructions (name, opcode, type), fusions
// (name, kind, calls) and fused computations the core reads from after_optimizations.txt equal
// what XLA itself reports in that folder's oracle.json (decoded from the HloModuleProto of the
// compiled executable by fixtures/capture/capture.py).  The comparison is tests/oracle/hlo/check.mjs,
// run in-process; on failure the message lists every mismatch, one per line.
//
// Skips, saying why, when the wasm build (npm run build:wasm) or the captures (npm run capture)
// are missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { checkAll, findFixtures, wasmBackend } from '../oracle/hlo/check.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wasmFile = join(root, 'wasm/gen/hloscope_core.wasm');
const apiFile = join(root, 'wasm/hloscope.mjs');

const skip = !existsSync(wasmFile) || !existsSync(apiFile)
  ? `the wasm core is not built (${existsSync(apiFile) ? 'wasm/gen/hloscope_core.wasm' : 'wasm/hloscope.mjs'} missing): run npm run build:wasm`
  : findFixtures().length === 0
    ? 'no fixtures/cpu-jax-*/*/oracle.json: run npm run capture'
    : false;

test('the wasm core reads every captured module as XLA itself reports it', { skip }, async () => {
  const backend = await wasmBackend(apiFile);
  const { checked, mismatches } = await checkAll(backend);
  assert.ok(checked > 0, 'no fixture was checked');
  assert.deepEqual(mismatches, [], `${mismatches.length} mismatches against the oracle:\n${mismatches.join('\n')}`);
});
