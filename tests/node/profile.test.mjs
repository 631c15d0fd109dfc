// Profiles through the wasm build: `parseProfile(bytes).json()` must equal the native CLI's
// `hloscope profile --json FILE` byte for byte on every profile we have (the shared TPU and GPU
// captures, read in place, and every CPU fixture's .xplane.pb and .trace.json.gz). The .gz files
// are gunzipped here with node:zlib for the wasm side; the CLI gunzips them itself. Skips with a
// message when a build is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fixtureCases, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const noShared = sharedAbsent('profiles');

const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

function profiles() {
  const files = sharedCaptures('profiles', (f) => f.endsWith('.xplane.pb'));
  for (const c of fixtureCases()) {
    for (const name of ['profile.xplane.pb', 'profile.trace.json.gz']) {
      const p = c.file(name);
      if (p) files.push(p);
    }
  }
  return files;
}

const skipWasm = !wasmBuilt && 'wasm not built (npm run build:wasm)';
const skipBoth = skipWasm || (!existsSync(cli) && 'native CLI not built (npm run build:native)');

test('wasm parseProfile().json() equals `hloscope profile --json` on every profile', { skip: skipBoth }, () => {
  const files = profiles();
  if (noShared) console.log(`${noShared} (the shared part)`);
  assert.ok(files.length > 0);
  for (const f of files) {
    const native = execFileSync(cli, ['profile', '--json', f], { maxBuffer: 1 << 28 }).toString('utf8').replace(/\n$/, '');
    let bytes = readFileSync(f);
    if (f.endsWith('.gz')) bytes = gunzipSync(bytes);
    const prof = api.parseProfile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const wasm = prof.json();
    prof.free();
    assert.equal(wasm, native, `${path.relative(root, f)}: wasm and native JSON differ`);
  }
});

test('the TPU sample through the JS API: XLA Ops counted, program ids exact', { skip: skipWasm || noShared }, () => {
  const bytes = readFileSync(sharedPath('captures/profiles/xprof_tpu_inference_2.xplane.pb'));
  const prof = api.parseProfile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const s = prof.summary();
  assert.deepEqual(s.device, { plane: '/device:TPU:*', line: 'XLA Ops' }); // every chip
  assert.equal(s.devices.length, 4);
  // the id is above 2^63: a string, never a rounded double
  assert.ok(s.programs.some((p) => p.name === 'jit_f' && p.program_id === '12190760917235803885'));
  assert.ok(s.ops.some((o) => o.name === 'broadcast_add_fusion'));
  prof.free();
  prof.free(); // idempotent
  assert.throws(() => prof.json(), { name: 'HloscopeError', code: 'HS_E_FREED' });
});

test('gunzip() (DecompressionStream) gives the bytes node:zlib gives', { skip: skipWasm }, async () => {
  const fx = profiles().find((f) => f.endsWith('.gz'));
  assert.ok(fx, 'a fixture holds a profile.trace.json.gz (fixtures/README.md)');
  const gz = readFileSync(fx);
  const ours = await api.gunzip(new Uint8Array(gz));
  assert.deepEqual(Buffer.from(ours), gunzipSync(gz));
  const prof = api.parseProfile(ours);
  assert.equal(prof.summary().format, 'trace_json');
  prof.free();
});

test('parse errors are HloscopeErrors with codes and positions', { skip: skipWasm }, () => {
  assert.throws(() => api.parseProfile(new Uint8Array(0)), { name: 'HloscopeError', code: 'HS_E_EMPTY' });
  assert.throws(() => api.parseProfile(new Uint8Array([0x1f, 0x8b, 8, 0])), { name: 'HloscopeError', code: 'HS_E_FORMAT' });
  const bad = new TextEncoder().encode('{"traceEvents":[\n{"ph":"X","ts":,}]}');
  assert.throws(() => api.parseProfile(bad), (e) => e.name === 'HloscopeError' && e.code === 'HS_E_SYNTAX' && e.line === 2);
  assert.throws(() => api.parseProfile('text'), { name: 'HloscopeError', code: 'HS_E_ARG' });
});

test('profileSink: a profile written in chunks into the core reads as parseProfile reads it; misuse says so', { skip: !wasmBuilt && 'wasm not built' }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const bytes = readFileSync(path.join(root, 'fixtures/cpu-jax-0.4.38/transformer_step/profile.xplane.pb'));
  const whole = api.parseProfile(bytes);
  const want = whole.timelineJSON();
  whole.free();
  const sink = api.profileSink(bytes.length);
  for (let at = 0; at < bytes.length; at += 65536) sink.write(bytes.subarray(at, at + 65536));
  assert.equal(sink.written, bytes.length);
  const prof = sink.parse();
  assert.equal(prof.timelineJSON(), want);
  prof.free();
  assert.throws(() => sink.parse(), (e) => e.code === 'HS_E_FREED');
  const small = api.profileSink(4);
  assert.throws(() => small.write(new Uint8Array(5)), (e) => e.code === 'HS_E_ARG');
  small.abort();
  // a truncated write: what was written is read, with a warning (as a cut file)
  const cut = api.profileSink(bytes.length);
  cut.write(bytes.subarray(0, Math.floor(bytes.length * 0.9)));
  const part = cut.parse();
  assert.ok(part.timeline().warnings.some((w) => /truncated/.test(w.message)));
  part.free();
});

test('parseProfileSource: a profile read by range (as the page\'s worker reads a File) reads as parseProfile reads it, with progress; a failing read says so', { skip: !wasmBuilt && 'wasm not built' }, () => {
  const read = (bytes, log) => (off, len) => { log?.push([off, len]); return bytes.subarray(off, off + len); };
  for (const file of ['fixtures/cpu-jax-0.4.38/transformer_step/profile.xplane.pb', 'fixtures/cpu-jax-0.10.2/softmax/profile.xplane.pb']) {
    const bytes = readFileSync(path.join(root, file));
    const whole = api.parseProfile(bytes);
    const want = whole.json();
    whole.free();
    for (const window of [4096, 0]) {
      const reads = [];
      const seen = [];
      const prof = api.parseProfileSource({ size: bytes.length, read: read(bytes, reads) }, { window, onProgress: (p) => seen.push(p) });
      assert.ok(prof.json() === want, `${file} by windows of ${window || 'the default'}: not the profile parseProfile reads`);
      prof.free();
      // every read inside the file; small windows read it by many reads
      assert.ok(reads.every(([o, n]) => o >= 0 && n > 0 && o + n <= bytes.length));
      if (window) assert.ok(reads.length > bytes.length / window, `${reads.length} reads`);
      // progress from inside the parse: the stages in order, each moving forward, ending done
      const stages = [...new Set(seen.map((p) => p.stage))];
      assert.deepEqual(stages, ['scanning', 'reading', 'counting']);
      for (let i = 1; i < seen.length; i++) if (seen[i].stage === seen[i - 1].stage) assert.ok(seen[i].done >= seen[i - 1].done);
      assert.ok(seen.every((p) => p.done <= p.total));
      assert.deepEqual(seen.at(-1), { stage: 'counting', done: 700, total: 700 });
    }
  }
  // trace JSON is read whole through the same call
  const gz = gunzipSync(readFileSync(path.join(root, 'fixtures/cpu-jax-0.4.38/softmax/profile.trace.json.gz')));
  const j = api.parseProfileSource({ size: gz.length, read: read(gz) });
  const w = api.parseProfile(gz);
  assert.equal(j.json(), w.json());
  j.free();
  w.free();
  // a read that fails (a File changed under the page) ends the parse with HS_E_READ and its cause
  const bytes = readFileSync(path.join(root, 'fixtures/cpu-jax-0.4.38/softmax/profile.xplane.pb'));
  let n = 0;
  assert.throws(() => api.parseProfileSource({ size: bytes.length, read: (o, l) => { if (++n > 3) throw new Error('NotReadableError'); return bytes.subarray(o, o + l); } }, { window: 512 }),
    (e) => e instanceof api.HloscopeError && e.code === 'HS_E_READ' && /could not be read/.test(e.message) && e.cause?.message === 'NotReadableError');
  assert.throws(() => api.parseProfileSource({ size: bytes.length, read: () => new Uint8Array(1) }), (e) => e.code === 'HS_E_READ' && /gave 1 bytes/.test(e.cause?.message));
  assert.throws(() => api.parseProfileSource({ size: -1, read: () => null }), (e) => e.code === 'HS_E_ARG');
  // the core's memory is there to be read (it never shrinks)
  assert.ok(api.memoryBytes() >= 64 << 20);
});

test('parseProfiles: a multi-process job\'s files read as one equal `hloscope timeline --json FILES...`', { skip: skipBoth }, () => {
  const dir = path.join(root, 'fixtures/profiles/multiprocess-cpu-jax-0.10.2');
  const names = ['process_0.xplane.pb', 'process_1.xplane.pb', 'process_2.xplane.pb'];
  const native = execFileSync(cli, ['timeline', '--json', ...names.map((n) => path.join(dir, n))], { maxBuffer: 1 << 28 }).toString('utf8').replace(/\n$/, '');
  const prof = api.parseProfiles(names.map((name) => ({ name, bytes: readFileSync(path.join(dir, name)) })));
  const wasm = prof.timelineJSON();
  prof.free();
  assert.equal(wasm, native);
  const t = JSON.parse(wasm);
  assert.deepEqual(t.hosts.map((h) => h.file), names);
  // an unreadable file among them is named in the error
  assert.throws(() => api.parseProfiles([{ name: 'good.xplane.pb', bytes: readFileSync(path.join(dir, names[0])) }, { name: 'bad.xplane.pb', bytes: new Uint8Array([1, 2, 3]) }]),
    (e) => e instanceof api.HloscopeError && /^bad\.xplane\.pb: /.test(e.message));
  assert.throws(() => api.parseProfiles([]), /one file or more/);
});
