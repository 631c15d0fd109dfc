// The pure parts of the profile cell and the GYM·08 drill, on the core's own output:
// which file of a dropped log folder is read (the newest run, the XSpace first), the dump line
// that defines an op, and the rounds a timeline gives (their answers checked against the
// timeline's own numbers, and, for the built-in captures, against jaxlib's profile data API).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { oracleFile, sharedAbsent, sharedPath } from '../fixtures.mjs';
import { pickProfile, defineLine } from '../../notebook/src/notebook/profile-files.js';
import { timelineRounds, topOpRound, hiddenRound, unaskedRound } from '../../notebook/src/drills/timeline-words.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const tpu = sharedPath('captures/profiles/xprof_tpu_inference_2.xplane.pb');

test('pickProfile: the newest run of a log folder, the .xplane.pb first, and says so', () => {
  const f = (p) => ({ path: p, file: null });
  const r = pickProfile([
    f('logs/plugins/profile/2024_05_01_10_00_00/host.xplane.pb'),
    f('logs/plugins/profile/2024_05_02_09_00_00/host.trace.json.gz'),
    f('logs/plugins/profile/2024_05_02_09_00_00/host.xplane.pb'),
    f('logs/events.out.tfevents.1'),
  ]);
  assert.equal(r.entry.path, 'logs/plugins/profile/2024_05_02_09_00_00/host.xplane.pb');
  assert.equal(r.run, '2024_05_02_09_00_00');
  assert.match(r.note, /newest of 2 runs: 2024_05_02_09_00_00/);
  assert.match(r.note, /1 other file of that run left aside/);
  // a picked profile/ folder (no plugins/ above it) or one run's folder: its run still named
  const picked = pickProfile([f('profile/2024_05_01_10_00_00/host.xplane.pb'), f('profile/2024_05_02_09_00_00/host.xplane.pb')]);
  assert.equal(picked.entry.path, 'profile/2024_05_02_09_00_00/host.xplane.pb');
  assert.match(picked.note, /newest of 2 runs: 2024_05_02_09_00_00/);
  assert.match(pickProfile([f('2024_05_02_09_00_00/host.xplane.pb')]).note, /\(run 2024_05_02_09_00_00\)$/);
  assert.equal(pickProfile([f('mine/a.xplane.pb')]).run, null);
  // a multi-process job: every .xplane.pb of the run, read together
  const job = pickProfile([
    f('logs/plugins/profile/2024_05_02_09_00_00/host_b.xplane.pb'),
    f('logs/plugins/profile/2024_05_02_09_00_00/host_a.xplane.pb'),
    f('logs/plugins/profile/2024_05_02_09_00_00/host_a.trace.json.gz'),
  ]);
  assert.deepEqual(job.entries.map((e) => e.path), ['logs/plugins/profile/2024_05_02_09_00_00/host_a.xplane.pb', 'logs/plugins/profile/2024_05_02_09_00_00/host_b.xplane.pb']);
  assert.match(job.note, /read 2 files together/);
  assert.equal(pickProfile([f('notes.txt')]), null);
  assert.equal(pickProfile([f('a.trace.json.gz')]).entry.path, 'a.trace.json.gz');
});

test('defineLine: the dump line that defines %name, numbered as the text numbers it', () => {
  const dump = readFileSync(path.join(root, 'fixtures/cpu-jax-0.4.38/softmax/after_optimizations.txt'), 'utf8');
  const lines = dump.split('\n');
  const k = lines.findIndex((l) => /^\s*(ROOT )?%\S+ = \S+ fusion\(/.test(l));
  const name = /%(\S+) = /.exec(lines[k])[1];
  assert.deepEqual(defineLine(dump, name), { line: k + 1, text: lines[k] });
  assert.equal(defineLine(dump, 'no_such_op'), null);
});

// The op with the most self time per run, as jaxlib's own events give it (host_op_self_ps:
// each op event's duration minus the op events it encloses; tests/oracle/profile/make_jaxlib_reference.py).
function jaxlibTopSelf(id, program) {
  const ref = JSON.parse(readFileSync(oracleFile('profile', 'jaxlib_reference.json'), 'utf8'));
  const selfs = ref.profiles[`fixtures/cpu-jax-0.4.38/${id}/profile.xplane.pb`].host_op_self_ps;
  const theirs = Object.entries(selfs).filter(([k]) => k.startsWith(`${program}|`)).sort((a, b) => b[1] - a[1]);
  return { top: theirs[0][0].slice(program.length + 1), totals: Object.fromEntries(theirs) };
}

test('rounds of the built-in captures: the top op is the one jaxlib gives the most self time', { skip: !wasmBuilt && 'wasm not built' }, () => {
  let seen = 0;
  for (const id of ['softmax', 'attention', 'naive_attention', 'mlp', 'layernorm']) {
    const file = path.join(root, `fixtures/cpu-jax-0.4.38/${id}/profile.xplane.pb`);
    assert.ok(existsSync(file), `${file} is missing: an in-repo fixture`);
    const prof = api.parseProfile(readFileSync(file));
    const t = prof.timeline();
    prof.free();
    const r = topOpRound(t);
    assert.ok(r, `${id}: no round`);
    assert.equal(r.answer, jaxlibTopSelf(id, r.program).top, `${id}: ${r.answer}`);
    assert.ok(r.choices.some((c) => c.value === r.answer));
    assert.match(r.prompt, /self time/);
    assert.ok(timelineRounds(t).length >= 1);
    seen++;
  }
  assert.equal(seen, 5);
});

// Naive attention on XLA:CPU: call.3 encloses reduce-window.clone, which does the work. The op
// with the most time in all (inclusive) is the wrapper; the round asks about self time, and
// offers the wrapper beside the answer.
test('naive attention: the answer is the kernel, not the call that wraps it', { skip: !wasmBuilt && 'wasm not built' }, () => {
  const prof = api.parseProfile(readFileSync(path.join(root, 'fixtures/cpu-jax-0.4.38/naive_attention/profile.xplane.pb')));
  const t = prof.timeline();
  prof.free();
  const r = topOpRound(t);
  const ref = JSON.parse(readFileSync(oracleFile('profile', 'jaxlib_reference.json'), 'utf8')).profiles['fixtures/cpu-jax-0.4.38/naive_attention/profile.xplane.pb'];
  const [inclusive] = Object.entries(ref.host_op_total_ps).sort((a, b) => b[1] - a[1])[0];
  const wrapper = inclusive.split('|')[1];
  assert.equal(r.answer, jaxlibTopSelf('naive_attention', r.program).top);
  assert.notEqual(r.answer, wrapper, 'the answer must not be the op with the most inclusive time');
  assert.ok(r.choices.some((c) => c.value === wrapper), `the wrapper ${wrapper} is offered: ${r.choices.map((c) => c.value)}`);
  assert.match(r.why, new RegExp(`${wrapper.replace('.', '\\.')} [^,]* of its own \\([^)]* in all, the rest in the ops it encloses\\)`));
});

// On real accelerators: the same round on the shared TPU v6e and MI300X profiles; XProf's own
// hlo_stats (tests/oracle/profile/xprof_reference.json, self time per program id and op) names the
// same op. The core counts the first TPU plane, XProf all four: the ranking is what is compared.
test('TPU and GPU profiles: the op with the most self time is the one XProf\'s hlo_stats names', { skip: (!wasmBuilt && 'wasm not built') || (!existsSync(tpu) && 'SKIPPED: ../shared/captures is absent') }, () => {
  const xprof = JSON.parse(readFileSync(oracleFile('profile', 'xprof_reference.json'), 'utf8')).profiles;
  let rounds = 0;
  for (const [key, { rows }] of Object.entries(xprof)) {
    if (!key.startsWith('shared/')) continue;
    const prof = api.parseProfile(readFileSync(sharedPath(`captures/profiles/${key.slice('shared/'.length)}`)));
    const t = prof.timeline();
    prof.free();
    const r = topOpRound(t);
    if (!r) continue; // a program of one op gives no round
    const top = t.programs.reduce((a, b) => (b.envelope_ps > a.envelope_ps ? b : a));
    const theirs = rows.filter((x) => x.program_id === top.program_id).sort((a, b) => b.self_us - a.self_us);
    assert.equal(r.answer, theirs[0].name, `${key}: ${r.answer}, XProf ${theirs[0].name}`);
    rounds++;
  }
  assert.ok(rounds >= 2, `${rounds} rounds`);
});

test('the TPU sample gives a "did this copy hide?" round whose answer follows its numbers', { skip: (!wasmBuilt && 'wasm not built') || (!tpu && sharedAbsent('profiles/xprof_tpu_inference_2.xplane.pb')) }, () => {
  const prof = api.parseProfile(readFileSync(tpu));
  const t = prof.timeline();
  prof.free();
  const r = hiddenRound(t);
  assert.ok(r);
  const a = t.async.find((x) => r.prompt.startsWith(`${x.start} → ${x.done}`));
  assert.equal(r.answer, a.exposed_ps * 10 <= a.in_flight_ps ? 'yes' : 'no');
});

// "which kernel did no line of the program ask for?": XLA:TPU's naive attention
// (../shared/captures/tpu-v6e). The optimized module's %online-softmax is a custom call to
// tpu_custom_call, and the program's StableHLO holds no custom_call: the compiler substituted
// it. The profile is a minimal trace JSON naming the module's ops on a TPU XLA Ops line (as in
// tests/native/test_timeline.c); what is checked is read from the two dump texts.
const tpuHlo = sharedPath('captures/tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt');
const tpuStablehlo = sharedPath('captures/tpu-v6e/jit_naive_attention.stablehlo.mlir');
const NAIVE_TRACE = JSON.stringify({
  traceEvents: [
    { ph: 'M', pid: 2, name: 'process_name', args: { name: '/device:TPU:0' } },
    { ph: 'M', pid: 2, tid: 1, name: 'thread_name', args: { name: 'XLA Ops' } },
    { ph: 'M', pid: 2, tid: 2, name: 'thread_name', args: { name: 'XLA Modules' } },
    { ph: 'X', pid: 2, tid: 2, ts: 0, dur: 100, name: 'jit_naive_attention(7)' },
    { ph: 'X', pid: 2, tid: 1, ts: 2, dur: 3, name: 'fusion.1' },
    { ph: 'X', pid: 2, tid: 1, ts: 5, dur: 3, name: 'fusion.2' },
    { ph: 'X', pid: 2, tid: 1, ts: 10, dur: 30, name: 'fusion' },
    { ph: 'X', pid: 2, tid: 1, ts: 50, dur: 40, name: 'online-softmax' },
  ],
});

test('the "which kernel did no line ask for?" round: the custom call the StableHLO does not hold', { skip: (!wasmBuilt && 'wasm not built') || ((!tpuHlo || !tpuStablehlo) && sharedAbsent('tpu-v6e/jit_naive_attention.stablehlo.mlir')) }, () => {
  const hlo = readFileSync(tpuHlo, 'utf8');
  const stablehlo = readFileSync(tpuStablehlo, 'utf8');
  // from the texts: the instruction that calls tpu_custom_call; the StableHLO asks for no custom call
  const substituted = /%(\S+) = [^\n]* custom-call\([^\n]*custom_call_target="tpu_custom_call"/.exec(hlo)[1];
  assert.equal(stablehlo.includes('custom_call'), false);
  const prof = api.parseProfile(new TextEncoder().encode(NAIVE_TRACE));
  const t = prof.timeline({ hlo, stablehlo });
  const without = prof.timeline({ hlo });
  prof.free();
  const r = unaskedRound(t);
  assert.ok(r, 'no round');
  assert.equal(r.type, 'unasked');
  assert.equal(r.answer, substituted);
  assert.match(r.prompt, /^which kernel of jit_naive_attention did no line of the program ask for\?$/);
  // every other choice is an instruction of the same dump
  const others = r.choices.map((c) => c.value).filter((v) => v !== r.answer);
  assert.ok(others.length >= 1);
  for (const o of others) assert.match(hlo, new RegExp(`%${o.replace(/[.]/g, '\\.')} = [^\\n]*`));
  assert.ok(timelineRounds(t).some((x) => x.type === 'unasked'));
  // without the StableHLO the core cannot tell: no such round
  assert.equal(unaskedRound(without), null);
});
