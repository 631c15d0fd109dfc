// Async transfers and workspaces through the JS API (the wasm build): `doc.overlap()` and
// `doc.spills()` give byte for byte what the native CLI prints (`overlap --json`, `spills --json`)
// on every shared GPU text, and the x-ray says what a transfer is in flight over. XLA's own
// account of the same texts is checked by tests/oracle/async/check.mjs (ctest async_oracle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { sharedAbsent, sharedCaptures } from '../fixtures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/hloscope');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const absent = sharedAbsent('gpu-semantics');
const skip = !wasmBuilt ? 'wasm not built (npm run build:wasm)' : !existsSync(cli) ? 'native CLI not built' : absent;
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

test('overlap and spills agree with the CLI on every shared GPU text', { skip }, () => {
  const files = sharedCaptures('gpu-semantics');
  assert.ok(files.length > 0, 'gpu-semantics lists texts');
  let transfers = 0, workspaces = 0;
  for (const f of files) {
    const doc = api.parse(readFileSync(f, 'utf8'));
    for (const kind of ['overlap', 'spills']) {
      const native = execFileSync(cli, [kind, f, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }).trimEnd();
      assert.equal(doc.json(kind), native, `${path.basename(f)}: ${kind}`);
    }
    const o = doc.overlap();
    transfers += o.transfers.length;
    for (const t of o.transfers) assert.ok(t.done, `${path.basename(f)}: ${t.start} has its done`);
    workspaces += doc.spills().unread.filter((u) => u.workspace).length;
    doc.free();
  }
  assert.ok(transfers > 0, 'the shared GPU texts hold async transfers');
  assert.ok(workspaces > 0, 'the shared GPU texts hold custom-call workspaces');
});

test('the x-ray says what the all-reduce is in flight over, on the scheduled test module', { skip }, () => {
  const f = sharedCaptures('gpu-semantics', (n) => n.includes('ar_ag_start_done_scheduled'))[0];
  assert.ok(f, 'the scheduled all-reduce/all-gather module is among the shared texts');
  const x = JSON.parse(api.xrayJSON('', readFileSync(f, 'utf8')));
  assert.match(x.summary.overlap, /the all-reduce is in flight while add0 runs/);
  const start = x.right.find((l) => /^all-reduce-start begins/.test(l.note));
  assert.ok(start && /in flight while add0 runs/.test(start.note), 'the start line says it');
  assert.ok(x.right.some((l) => /all-gather runs synchronously/.test(l.note)), 'the is_sync all-gather is said to be sync');
});
