// <xla-memory> on a plain course page (tests/browser/pages/memory.html, one script tag): a pasted
// TPU out-of-memory message shows the bar of used against capacity, the largest allocations and
// the explanation; a pasted GPU message with a tab-indented peak-buffer list shows the buffers;
// prose is refused in words. The numbers shown are the text's own (binary units). No request
// leaves the page; the shared messages are read in place (skipped when ../shared is absent).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  addCell, cell, cellIds, launch, openPage, pasteInto, repoRoot, distDir, serveDist, setDumpName, shared as sharedPath, sharedAbsent, skipWithoutChromium,
  waitForDump, waitForNotebook,
} from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';

const shared = sharedPath('captures/memory');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs')) && existsSync(join(repoRoot, 'wasm/hloscope.mjs'));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || sharedAbsent('memory')
  || false;

let server;
let chrome;

before(async () => {
  if (skip) return;
  if (!existsSync(join(distDir, 'hloscope-drills.js')) || process.env.HLOSCOPE_REBUILD === '1') {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

async function paste(page, text) {
  const box = page.locator('#mem textarea');
  await box.fill(text);
}

test('a pasted TPU message shows the bar, the allocations and the explanation; a GPU tab list shows its buffers', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/memory.html`);
  try {
    await paste(page, readFileSync(join(shared, '01_tpu_hbm_easydel_166.txt'), 'utf8'));
    await page.locator('#mem .bar').waitFor({ timeout: 15000 });
    const legend = await page.locator('#mem [data-testid="legend"]').textContent();
    assert.equal(legend, '63.80 GiB used of 30.75 GiB hbm · 33.05 GiB over');
    assert.equal(await page.locator('#mem .bar .over').count(), 1);
    const rows = page.locator('#mem [data-testid="allocation"]');
    assert.equal(await rows.count(), 2);
    const first = await rows.nth(0).locator('td').allTextContents();
    assert.equal(first[1], '2.00 GiB');
    assert.equal(first[2], 'f32[32,4096,4096]{1,2,0:T(8,128)}');
    assert.match(first[4], /^dot_general · fusion\.1265\.remat3/);
    assert.equal(first[5], 'attention_module.py:1059');
    assert.match(await page.locator('#mem [data-testid="explanation"]').textContent(), /needs 63\.80 GiB but TPU hbm has 30\.75 GiB/);
    assert.match(await page.locator('#mem .warn').textContent(), /cut short/);

    await paste(page, readFileSync(join(shared, '17_gpu_tapnet_48_peak_buffers_tabs.txt'), 'utf8'));
    await page.waitForFunction(() => document.querySelector('#mem').shadowRoot.querySelector('h3')?.textContent.includes('GPU'), null, { timeout: 15000 });
    const gpuRows = page.locator('#mem [data-testid="allocation"]');
    assert.equal(await gpuRows.count(), 6);
    const cells = await gpuRows.nth(0).locator('td').allTextContents();
    assert.deepEqual(cells.slice(0, 4), ['10', '4.00 MiB', 'f32[512,2048]', 'parameter']);

    await paste(page, 'The training run went fine until the third epoch, then it stopped.');
    await page.waitForFunction(() => /not an XLA memory message/.test(document.querySelector('#mem').shadowRoot.querySelector('.status').textContent), null, { timeout: 15000 });
    assert.equal(await page.locator('#mem .card').isHidden(), true);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});

test('what was already allocated is in the bar and the legend, and the cause is said (issue 35)', { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/memory.html`);
  try {
    // the runtime's table with the figures issue 35 quotes (our own text in its words)
    await paste(page, 'RESOURCE_EXHAUSTED: Attempting to allocate 3.95G. That was not possible.\n  HBM capacity 8.00G\n' +
      '  Currently allocated: 6.08G\n  Program requirement: 3.95G (4,237,689,856 bytes)\n');
    await page.locator('#mem .bar').waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#mem [data-testid="legend"]').textContent(),
      '6.08 GiB already allocated + 3.95 GiB requested of 8.00 GiB hbm · 2.03 GiB over');
    assert.match(await page.locator('#mem [data-testid="explanation"]').textContent(), /6\.08 GiB were already allocated by earlier programs/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('pasted text stays text: markup in a message is not interpreted', { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/memory.html`);
  try {
    await paste(page, 'RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %<img src=x onerror=alert(1)>\nScoped allocation with size 34.90M and limit 32.00M exceeded scoped vmem limit by 2.90M.');
    await page.locator('#mem .bar').waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#mem img').count(), 0);
    assert.equal(await page.locator('#mem [data-testid="legend"]').textContent(), '34.90 MiB requested of 32.00 MiB vmem · 2.90 MiB over');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('the padding table of a TPU module, largest padding first', { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/memory.html`);
  try {
    const text = readFileSync(resolve(shared, '../tpu-layouts/tpu_v6e__module_0004.jit__threefry_seed.cl_804429027.after_optimizations.txt'), 'utf8');
    await page.evaluate((t) => { document.querySelector('#pad').text = t; }, text);
    const rows = page.locator('#pad [data-testid="padding-row"]');
    await rows.first().waitFor({ timeout: 15000 });
    const first = await rows.nth(0).locator('td').allTextContents();
    assert.deepEqual(first.slice(0, 2), ['508 B', '512 B']); /* s32[]{:T(128)}: 4 bytes laid out in 512 */
    assert.equal(first[4], 's32[]{:T(128)}');
    assert.equal(first[5], 'scalar; tiled 128');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test("the x-ray's hover says each value's layout in words", { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/memory.html`);
  try {
    const text = readFileSync(resolve(shared, '../tpu-layouts/tpu_v6e__module_0004.jit__threefry_seed.cl_804429027.after_optimizations.txt'), 'utf8');
    const line = text.split('\n').findIndex((l) => /copy = s32\[\]\{:T\(128\)S\(6\)\}/.test(l)) + 1;
    assert.ok(line > 0);
    await page.evaluate((t) => new Promise((res) => {
      const x = document.querySelector('#xr');
      x.addEventListener('xray-ready', () => res(), { once: true });
      x.right = t;
    }), text);
    await page.waitForFunction((n) => /layout: scalar; tiled 128; lives in memory space 6/.test(document.querySelector('#xr').noteFor('right', n)), line, { timeout: 15000 });
    const note = await page.evaluate((n) => document.querySelector('#xr').noteFor('right', n), line);
    assert.match(note, /padding 508 B/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('in the notebook: a message pasted into a dump cell is named, offers the memory view, and shows it', { skip, timeout: 180000 }, async () => {
  const dist = await serveDist();
  const { page, errors, external, close } = await openPage(chrome.browser, dist.url);
  try {
    await waitForNotebook(page);
    const cases = [
      ['oom', '01_tpu_hbm_easydel_166.txt', /^XLA out-of-memory message · \d+ lines/, 2, '63.80 GiB used of 30.75 GiB hbm · 33.05 GiB over'],
      ['gpu', '17_gpu_tapnet_48_peak_buffers_tabs.txt', /^XLA out-of-memory message · \d+ lines/, 6, null],
    ];
    for (const [name, file, meta, nrows, legend] of cases) {
      const d = await addCell(page, 'dump');
      await setDumpName(page, d, name);
      await pasteInto(page, d, readFileSync(join(shared, file), 'utf8'));
      assert.match(await waitForDump(page, d), meta);
      const sug = page.locator(`${cell(d)} [data-testid=suggest] button.primary`);
      assert.equal(await sug.textContent(), 'memory view');
      await sug.click();
      const ids = await cellIds(page);
      const v = `${cell(ids[ids.indexOf(d) + 1])} xla-memory`;
      await page.locator(`${v} [data-testid="allocation"]`).first().waitFor({ timeout: 15000 });
      assert.equal(await page.locator(`${v} [data-testid="allocation"]`).count(), nrows);
      if (legend) assert.equal(await page.locator(`${v} [data-testid="legend"]`).textContent(), legend);
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
    await dist.close();
  }
});

test('in the notebook: an optimized HLO dump offers its padding table', { skip, timeout: 180000 }, async () => {
  const dist = await serveDist();
  const { page, errors, close } = await openPage(chrome.browser, dist.url);
  try {
    await waitForNotebook(page);
    const d = await addCell(page, 'dump');
    await setDumpName(page, d, 'tpu');
    await pasteInto(page, d, readFileSync(resolve(shared, '../tpu-layouts/tpu_v6e__module_0028.jit_add.cl_804429027.after_optimizations.txt'), 'utf8'));
    await waitForDump(page, d);
    const sug = page.locator(`${cell(d)} [data-testid=suggest] button`, { hasText: 'padding table' });
    await sug.click();
    const ids = await cellIds(page);
    const v = `${cell(ids[ids.indexOf(d) + 1])} xla-padding`;
    await page.locator(`${v} [data-testid="padding-row"]`).first().waitFor({ timeout: 15000 });
    assert.equal(await page.locator(`${v} [data-testid="padding-row"]`).count(), 6);
    assert.deepEqual(errors, []);
  } finally {
    await close();
    await dist.close();
  }
});

// Issue 35 item 4: a buffer assignment's backend comes from XLA's dump file name. The page
// handed the core the text alone, so an uploaded A100 buffer assignment showed no backend; now
// the file's name goes with its bytes to the core (as the CLI and Python give it), and the view
// says GPU. What says GPU is XLA's own name for the file (`..._sm_8.0_gpu_after_optimizations-
// buffer-assignment.txt`), not our reading of the text.
test('in the notebook: an uploaded buffer assignment is read with its file name, so its backend is said', { skip: skip || sharedAbsent('buffers'), timeout: 180000 }, async () => {
  const dist = await serveDist();
  const { page, errors, external, close } = await openPage(chrome.browser, dist.url);
  try {
    await waitForNotebook(page);
    const files = [
      ['gpu_a100__module_0003.SyncTensorsGraph.5.sm_8.0_gpu_after_optimizations-buffer-assignment.txt', 'GPU'],
      ['tpu_v6e__module_0004.jit__threefry_seed.cl_804429027.after_optimizations-buffer-assignment.txt', 'TPU'],
    ];
    for (const [name, backend] of files) {
      const d = await addCell(page, 'dump');
      await page.setInputFiles(`${cell(d)} [data-testid=dump-file]`, sharedPath(`captures/buffers/${name}`));
      await waitForDump(page, d);
      const sug = page.locator(`${cell(d)} [data-testid=suggest] button.primary`);
      assert.equal(await sug.textContent(), 'memory view');
      await sug.click();
      const ids = await cellIds(page);
      const v = `${cell(ids[ids.indexOf(d) + 1])} xla-memory`;
      await page.locator(`${v} [data-testid="allocation"]`).first().waitFor({ timeout: 15000 });
      const head = await page.locator(`${v} h3`).textContent();
      assert.match(head, new RegExp(`· ${backend}\\b`), `${name}: ${head}`);
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
    await dist.close();
  }
});
