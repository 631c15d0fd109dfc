// The timeline through the wasm build: `parseProfile(bytes).timelineJSON(options)` must equal the
// native CLI's `hloscope timeline --json PROFILE [--hlo DUMP] [--stablehlo DUMP] [--program P]`
// byte for byte, on the shared captures (read in place) and on our CPU fixtures with their own
// dumps. Skips with a message when a build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { fixtureCases, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const noShared = sharedAbsent('profiles');
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

const skipWasm = !wasmBuilt && 'wasm not built (npm run build:wasm)';
const skipBoth = skipWasm || (!existsSync(cli) && 'native CLI not built (npm run build:native)');

function bytesOf(f) {
  let b = readFileSync(f);
  if (f.endsWith('.gz')) b = gunzipSync(b);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** [profile, options] cases: every shared capture, and each CPU fixture set's softmax/scan with its dumps. */
function cases() {
  const out = [];
  if (!noShared) {
    for (const f of sharedCaptures('profiles', (n) => n.endsWith('.xplane.pb'))) out.push([f, {}]);
    out.push([sharedPath('captures/profiles/tracelens_mi300_jax08_attention.xplane.pb'), { program: 'jit_add' }]);
    out.push([sharedPath('captures/profiles/xprof_tpu_inference_2.xplane.pb'), { program: '12190760917235803885' }]);
  }
  for (const c of fixtureCases().filter((x) => x.id === 'softmax' || x.id === 'scan')) {
    if (!c.file('profile.xplane.pb')) continue;
    const opts = { hlo: path.join(c.dir, 'after_optimizations.txt'), stablehlo: path.join(c.dir, 'stablehlo.mlir') };
    out.push([c.file('profile.xplane.pb'), opts]);
    out.push([path.join(c.dir, 'profile.trace.json.gz'), { hlo: opts.hlo }]);
  }
  return out;
}

test('wasm timelineJSON() equals `hloscope timeline --json` on every case', { skip: skipBoth }, () => {
  if (noShared) console.log(`${noShared} (the shared part)`);
  const all = cases();
  assert.ok(all.length >= 4);
  for (const [f, o] of all) {
    const args = ['timeline', '--json', f];
    if (o.hlo) args.push('--hlo', o.hlo);
    if (o.stablehlo) args.push('--stablehlo', o.stablehlo);
    if (o.program) args.push('--program', o.program);
    const native = execFileSync(cli, args, { maxBuffer: 1 << 28 }).toString('utf8').replace(/\n$/, '');
    const prof = api.parseProfile(bytesOf(f));
    const wasm = prof.timelineJSON({
      hlo: o.hlo && readFileSync(o.hlo, 'utf8'),
      stablehlo: o.stablehlo && readFileSync(o.stablehlo, 'utf8'),
      program: o.program,
    });
    prof.free();
    assert.equal(wasm, native, `${path.relative(root, f)} ${JSON.stringify(o)}: wasm and native differ`);
  }
});

test('timeline(): rows joined to the dump, a bad dump is an HloscopeError, a freed profile says so', { skip: skipWasm }, () => {
  const dir = path.join(root, 'fixtures/cpu-jax-0.10.2/softmax');
  const prof = api.parseProfile(bytesOf(path.join(dir, 'profile.xplane.pb')));
  const t = prof.timeline({ hlo: readFileSync(path.join(dir, 'after_optimizations.txt'), 'utf8'), program: 'jit_softmax' });
  assert.equal(t.programs.length, 1);
  assert.ok(t.rows.length > 0);
  for (const r of t.rows) assert.ok(r.hlo.text.includes(`%${r.name} = `), `${r.name}: ${r.hlo.text}`);
  assert.match(t.reading, /^jit_softmax ran 5 times/);
  assert.throws(() => prof.timeline({ hlo: 'HloModule m\nENTRY %e {\n  oops\n}\n' }),
    (e) => e instanceof api.HloscopeError && /optimized HLO dump/.test(e.message));
  prof.free();
  assert.throws(() => prof.timeline(), (e) => e instanceof api.HloscopeError && e.code === 'HS_E_FREED');
});
