// Async pairs and workspaces against XLA's own parser (tests/oracle/async/oracle.json, written by
// make_oracle.py from the HloModuleProto jaxlib's hlo_module_from_text gives). Run through the
// native CLI:
//   node tests/oracle/async/check.mjs --cli build/native/hloscope
// Checks, on every shared GPU text (../shared/captures/gpu-semantics/):
//  - `overlap --json`: each start has its done, and every transfer's kind, done, computation,
//    sync and overlapped equal XLA's (overlapped: the kernels between start and done in XLA's
//    schedule for that computation; null when the module has no schedule; [] when is_sync);
//  - `spills --json`: every custom-call tuple element XLA shows no instruction reading is in
//    `unread`, none else is, and none of them is the big intermediate; a workspace (the last
//    s8/u8 element) is reported as one.
// Skips plainly when ../shared is absent or HLOSCOPE_NO_SHARED=1.
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
if (absent) {
  console.log(absent);
  process.exit(0);
}
let failures = 0, pairs = 0, unreadChecked = 0, files = 0;
const fail = (file, msg) => { failures++; console.log(`FAIL ${file}: ${msg}`); };
const run = (cmd, file) => {
  const r = spawnSync(cli, [cmd, file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${file}: exit ${r.status} ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

for (const [rel, want] of Object.entries(oracle.files)) {
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
console.log(`async oracle (${oracle.parser}, jaxlib ${oracle.jaxlib}): ${files} texts, ${pairs} transfers, ${unreadChecked} unread elements checked, ${failures} failures`);
process.exit(failures ? 1 : 0);
