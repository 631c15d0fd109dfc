// The pure parts of the profile cell and the GYM·08 drill, on the core's own output:
// which file of a dropped log folder is read (the newest run, the XSpace first), the dump line
// that defines an op, and the rounds a timeline gives (their answers checked against the
// timeline's own numbers, and, for the built-in captures, against jaxlib's profile data API).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { pickProfile, defineLine } from '../../notebook/src/notebook/profile-files.js';
import { timelineRounds, topOpRound, hiddenRound } from '../../notebook/src/drills/timeline-words.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
const tpu = path.resolve(root, '../shared/captures/profiles/xprof_tpu_inference_2.xplane.pb');

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

test('rounds of the built-in captures: the top op is the one jaxlib gives the most time', { skip: !wasmBuilt && 'wasm not built' }, () => {
  const ref = JSON.parse(readFileSync(path.join(root, 'tests/profile/jaxlib_reference.json'), 'utf8'));
  for (const id of ['softmax', 'attention', 'mlp', 'layernorm']) {
    const file = path.join(root, `fixtures/cpu-jax-0.4.38/${id}/profile.xplane.pb`);
    if (!existsSync(file)) continue;
    const prof = api.parseProfile(readFileSync(file));
    const t = prof.timeline();
    prof.free();
    const r = topOpRound(t);
    assert.ok(r, `${id}: no round`);
    const totals = ref.profiles[`fixtures/cpu-jax-0.4.38/${id}/profile.xplane.pb`].host_op_total_ps;
    const theirs = Object.entries(totals).filter(([k]) => k.startsWith(`${r.program}|`)).sort((a, b) => b[1] - a[1]);
    assert.equal(`${r.program}|${r.answer}`, theirs[0][0], `${id}: ${r.answer} vs jaxlib ${theirs[0][0]}`);
    assert.ok(r.choices.some((c) => c.value === r.answer));
    assert.ok(timelineRounds(t).length >= 1);
  }
});

test('the TPU sample gives a "did this copy hide?" round whose answer follows its numbers', { skip: (!wasmBuilt && 'wasm not built') || (!existsSync(tpu) && 'SKIPPED: ../shared/captures is absent') }, () => {
  const prof = api.parseProfile(readFileSync(tpu));
  const t = prof.timeline();
  prof.free();
  const r = hiddenRound(t);
  assert.ok(r);
  const a = t.async.find((x) => r.prompt.startsWith(`${x.start} → ${x.done}`));
  assert.equal(r.answer, a.exposed_ps * 10 <= a.in_flight_ps ? 'yes' : 'no');
});
