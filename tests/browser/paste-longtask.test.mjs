// Issue 17, item 10: pasting a 20 MB dump (Ctrl+V from the clipboard, in Chromium) leaves the
// main thread free: the whole text reaches the cell and is analysed in the worker, and the page
// makes no call into the wasm core (counted with a spy, tests/browser/harness.mjs CORE_SPY). The
// spy is shown to count: with no Worker the same analysis runs on the main thread and it sees
// the calls. How long the page's own tasks take is a figure, not an assertion:
// bench/paste_longtask.mjs prints it beside its goal (npm run bench:browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SPY, addCell, coreCalls, launch, openPage, pasteInto, repoRoot, serveDist, skipWithoutChromium, waitForDump,
  waitForNotebook } from './harness.mjs';
import { measurePaste } from '../../bench/paste_longtask.mjs';

const skip = skipWithoutChromium ?? false;

test('a 20 MB paste reaches the worker whole: no call into the core on the main thread', { skip, timeout: 300000 }, async (t) => {
  const r = await measurePaste(20);
  t.diagnostic(JSON.stringify({ bytes: r.bytes, stored: r.stored, core: r.core, inWorker: r.inWorker }));
  assert.ok(r.bytes > 19e6);
  assert.equal(r.stored, r.bytes, 'the cell holds the whole pasted text');
  assert.match(r.meta, /fusion ops/);
  assert.equal(r.inWorker, true, 'the notebook analyses in a Web Worker');
  assert.deepEqual(r.core, { instances: 0, calls: 0 }, 'no call into the wasm core on the main thread');
  assert.deepEqual(r.errors, []);
});

test('the spy counts: with no Worker the analysis runs on the main thread, and its calls are seen', { skip, timeout: 120000 }, async (t) => {
  const server = await serveDist();
  const chrome = await launch();
  const p = await openPage(chrome.browser, server.url, { initScript: `${CORE_SPY}\nwindow.Worker = undefined;` });
  t.after(async () => { await p.close(); await chrome.close(); await server.close(); });
  await waitForNotebook(p.page);
  const d = await addCell(p.page, 'dump');
  await pasteInto(p.page, d, readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt'), 'utf8'));
  assert.match(await waitForDump(p.page, d), /fusion ops/);
  assert.equal(await p.page.evaluate(() => window.hloscopeNotebook.analysisInWorker), false, 'no worker: the main-thread fallback');
  const core = await coreCalls(p.page);
  assert.ok(core.instances >= 1 && core.calls > 0, `the main thread's core calls are counted: ${JSON.stringify(core)}`);
});
