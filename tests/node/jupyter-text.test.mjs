// The Python package's text path without a native CLI (notebook/jupyter/src/cli.mjs: the wasm
// under Node) prints byte for byte what the native CLI prints, for every command on every fixture
// and on the shared captures when they are there. Skips with a message when a build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const skip = !existsSync(cli) ? `no native CLI at ${cli} (npm run build:native)`
  : !wasmBuilt ? 'no wasm build (npm run build:wasm)' : false;
const captures = path.resolve(root, '../shared/captures/tpu-v6e');
const profiles = path.resolve(root, '../shared/captures/profiles');

function cases() {
  const out = [];
  const fx = path.join(root, 'fixtures');
  for (const v of readdirSync(fx).filter((d) => d.startsWith('cpu-jax-')).sort()) {
    for (const id of readdirSync(path.join(fx, v)).sort()) {
      const d = path.join(fx, v, id);
      const hlo = path.join(d, 'after_optimizations.txt');
      if (!existsSync(hlo)) continue;
      for (const cmd of ['summary', 'fusions', 'spills', 'computations']) out.push([cmd, hlo]);
      const shlo = path.join(d, 'stablehlo.mlir');
      if (existsSync(shlo)) out.push(['xray', shlo, hlo]);
      for (const p of ['profile.xplane.pb', 'profile.trace.json.gz']) if (existsSync(path.join(d, p))) out.push(['profile', path.join(d, p)]);
    }
  }
  out.push(['fusions', path.join(root, 'tests/jupyter/test_text.py')]); // not a dump: the same error
  if (existsSync(captures)) {
    const left = path.join(captures, 'jit_naive_attention.stablehlo.mlir');
    const right = path.join(captures, 'jit_naive_attention.after_optimizations.trimmed.txt');
    if (existsSync(left) && existsSync(right)) out.push(['xray', left, right], ['spills', right], ['fusions', right]);
  }
  if (existsSync(profiles)) {
    for (const f of readdirSync(profiles).sort()) if (f.endsWith('.xplane.pb')) out.push(['profile', path.join(profiles, f)]);
  }
  return out;
}

test('node cli.mjs prints what the native CLI prints', { skip, timeout: 300000 }, async (t) => {
  if (!existsSync(captures)) t.diagnostic(`../shared/captures absent: fixtures only (${captures})`);
  const { run } = await import('../../notebook/jupyter/src/cli.mjs');
  let n = 0;
  for (const args of cases()) {
    const want = spawnSync(cli, args, { maxBuffer: 1 << 28 });
    const got = await run(args);
    const what = `hloscope ${args.map((a) => path.relative(root, a)).join(' ')}`;
    assert.equal(got.code, want.status, `${what}: exit status`);
    assert.equal(got.stderr, want.stderr.toString(), `${what}: stderr`);
    assert.ok(got.stdout.equals(want.stdout), `${what}: stdout differs\n--- native\n${want.stdout.toString().slice(0, 3000)}\n--- node\n${got.stdout.toString().slice(0, 3000)}`);
    n++;
  }
  t.diagnostic(`${n} commands equal`);
});
