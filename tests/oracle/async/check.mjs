// Async pairs and workspaces against XLA's own parser (tests/oracle/async/oracle.json, written by
// make_oracle.py from the HloModuleProto jaxlib's hlo_module_from_text gives). Run through the
// native CLI:
//   node tests/oracle/async/check.mjs --cli build/native/hloscope
// Checks, on every shared GPU text (../shared/captures/gpu-semantics/) and the TPU optimized HLO
// texts (tpu-v6e/, tpu-layouts/: copy-start/copy-done prefetches):
//  - `overlap --json`: each start has its done, and every transfer's kind, done, computation,
//    sync and overlapped equal XLA's (overlapped: the kernels between start and done in XLA's
//    schedule for that computation; null when the module has no schedule; [] when is_sync);
//  - `spills --json`: every custom-call tuple element XLA shows no instruction reading is in
//    `unread`, none else is, and none of them is the big intermediate; a workspace (the last
//    s8/u8 element) is reported as one; hbm_bytes equals the HBM estimate make_oracle.py
//    computes from XLA's module (each transfer once, workspaces not written).
// The shared part skips plainly when ../shared is absent or HLOSCOPE_NO_SHARED=1; the int8
// control (our own capture, beside this file) runs always.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { oracleFile, sharedAbsent, sharedPath } from '../../fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const cli = resolve(opt('--cli', join(root, 'build/native/hloscope')));
const oracle = JSON.parse(readFileSync(oracleFile('async', 'oracle.json'), 'utf8'));

const absent = sharedAbsent('gpu-semantics');
if (absent) console.log(absent);
let failures = 0, pairs = 0, unreadChecked = 0, files = 0, hbmChecked = 0;
const fail = (file, msg) => { failures++; console.log(`FAIL ${file}: ${msg}`); };
const run = (cmd, file) => {
  const r = spawnSync(cli, [cmd, file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${file}: exit ${r.status} ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

for (const [rel, want] of absent ? [] : Object.entries(oracle.files)) {
  const path = sharedPath(rel.replace(/^\.\.\/shared\//, ''));
  if (!path) { fail(rel, 'named by the oracle but missing from ../shared'); continue; }
  files++;
  const name = rel.split('/').pop();
  const got = run('overlap', path);
  if (got.scheduled !== want.scheduled) fail(name, `scheduled ${got.scheduled}, XLA ${want.scheduled}`);
  if (got.transfers.length !== want.transfers.length)
    fail(name, `${got.transfers.length} transfers, XLA ${want.transfers.length}`);
  const byKey = new Map(got.transfers.map((t) => [`${t.computation}/${t.start}`, t]));
  for (const w of want.transfers) {
    const g = byKey.get(`${w.computation}/${w.start}`);
    if (!g) { fail(name, `no transfer for ${w.start} in ${w.computation}`); continue; }
    pairs++;
    if (g.done === null) fail(name, `${w.start} has no done`);
    for (const k of ['kind', 'done', 'sync', 'overlapped'])
      if (!same(g[k], w[k])) fail(name, `${w.start}: ${k} ${JSON.stringify(g[k])}, XLA ${JSON.stringify(w[k])}`);
  }
  const sp = run('spills', path);
  // the HBM estimate: equal to the proto walk where we make one (a scheduled module always gets
  // one; an unscheduled test module without fusions is "before optimizations": null, by design)
  if (sp.hbm_bytes === null ? want.scheduled : !same(sp.hbm_bytes, want.hbm_bytes))
    fail(name, `hbm_bytes ${JSON.stringify(sp.hbm_bytes)}, from XLA's module ${JSON.stringify(want.hbm_bytes)}`);
  else if (sp.hbm_bytes) hbmChecked++;
  const ours = sp.unread.filter((u) => u.opcode === 'custom-call').map((u) => [u.computation, u.name, u.index]);
  const key = (u) => u.join('/');
  if (!same(ours.map(key).sort(), want.unread.map(key).sort()))
    fail(name, `unread ${JSON.stringify(ours)}, XLA ${JSON.stringify(want.unread)}`);
  for (const u of sp.unread) {
    unreadChecked++;
    if (sp.big && sp.big.name === u.name && (sp.big.element === u.index || sp.big.element === null))
      fail(name, `the big intermediate is ${u.name} element ${u.index}, which nothing reads`);
    const last = u.opcode === 'custom-call' && u.index > 0 && /^[su]8\[\d+\]/.test(u.type);
    if (last && !u.workspace) fail(name, `${u.name} element ${u.index} (${u.type}) not reported as a workspace`);
  }
}
// The control, our own capture (make_int8.py): a real s8 result another kernel reads is still
// the big intermediate and carried (by its writer and each reader XLA's proto names); the f32
// element beside it, which only leaves as the output, is not.
{
  const prov = JSON.parse(readFileSync(oracleFile('async', 'int8_sort.json'), 'utf8'));
  const text = oracleFile('async', 'int8_sort.after_optimizations.txt');
  const [name, who] = Object.entries(prov.readers)[0];
  const elem = who.element_readers.findIndex((r) => r.length > 0);
  const sp = run('spills', text);
  if (!sp.big || sp.big.name !== name || sp.big.element !== elem || !/^s8\[/.test(sp.big.type))
    fail('int8_sort', `big ${JSON.stringify(sp.big)}, XLA: element ${elem} of ${name} (s8) is read by ${who.element_readers[elem]}`);
  if (sp.unread.some((u) => u.name === name)) fail('int8_sort', `${name} listed as unread: ${JSON.stringify(sp.unread)}`);
  const r = spawnSync(cli, ['xray', '--json', '/dev/null', text], { encoding: 'utf8' });
  const xr = JSON.parse(r.stdout);
  const want = 1 + who.element_readers[elem].length;
  if (xr.summary.carry !== want) fail('int8_sort', `x-ray carry ${xr.summary.carry}, want ${want} (the sort and its readers)`);
}

// The HBM estimate on the small scheduled module, counted by hand (each transfer once: what the
// done delivers is written, what the start reads is read; f32[32] = 128 B, f32[64] = 256 B):
//   ar-start reads p0 128            ar-done writes 128
//   add0 = add(p0, p0) reads 256, writes 128
//   ag-start reads p1 128            ag-done writes f32[64] 256
//   add1 = add(p1, p1) reads 256, writes 128; add2, add3 read 256 each, write 128 each
//   read 128+256+128+256+256+256 = 1280, written 128+128+256+128+128+128 = 896
if (!absent) {
  const rel = 'captures/gpu-semantics/xla_test__gpu_hlo_schedule_test_L1805__ar_ag_start_done_scheduled.hlo';
  const path = sharedPath(rel);
  if (!path) fail(rel, 'missing from ../shared');
  else {
    const h = run('spills', path).hbm_bytes;
    if (!h || h.read !== 1280 || h.written !== 896) fail(rel, `HBM ${JSON.stringify(h)}, by hand read 1280, written 896`);
  }
}
// The profile timeline's async rows name the same kind and bytes (from the profile's embedded
// HLO): the TPU v6e x4 host-offload profile copies with copy-start/copy-done, each pair a
// "copy" whose bytes are its done's result (read here from the row the timeline gives the done).
{
  const absentP = sharedAbsent('profiles-multidevice');
  const prof = absentP ? null : sharedPath('captures/profiles-multidevice/xprof_tpu_v6e_x4_inference_2.xplane.pb');
  if (absentP) console.log(absentP);
  else if (!prof) fail('profiles-multidevice', 'xprof_tpu_v6e_x4_inference_2.xplane.pb missing');
  else {
    const t = run('timeline', prof);
    if (!t.async.length) fail('timeline', 'no async rows on the host-offload profile');
    for (const a of t.async) {
      if (a.kind !== 'copy' || !Number.isInteger(a.bytes) || a.bytes <= 0)
        fail('timeline', `${a.start} -> ${a.done}: kind ${a.kind}, bytes ${a.bytes}`);
      const done = t.rows.find((r) => r.name === a.done && r.module === a.module);
      const want = done?.instruction?.result?.logical_bytes;
      if (!Number.isInteger(want)) fail('timeline', `${a.done}: no row with its instruction's result`);
      else if (want !== a.bytes)
        fail('timeline', `${a.done}: bytes ${a.bytes}, its instruction's result ${want}`);
    }
  }
}

console.log(`async oracle (${oracle.parser}, jaxlib ${oracle.jaxlib}): ${files} texts, ${pairs} transfers, ${unreadChecked} unread elements, ${hbmChecked} HBM estimates checked, ${failures} failures`);
process.exit(failures ? 1 : 0);
