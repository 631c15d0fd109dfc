// A report page (`hloscope report`, issue 39) opened from file:// in Chromium, every request but the
// file itself refused and recorded: a report of a real GPU dump, an out-of-memory message and a
// TPU profile (../shared/captures) with our CPU StableHLO/HLO pair shows the census, the memory
// figures and the top op as the CLI's JSON says them, each input's full view below, and no
// request leaves the page. A redacted report's rendered text holds none of the names it hid.
// "Save as page" writes a page that opens with the same cells and the same carried bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, launch, openPage, repoRoot, serveDist, sharedAbsent, shared, skipWithoutChromium } from './harness.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const work = mkdtempSync(path.join(tmpdir(), 'hs-report-page-'));
const fx = path.join(repoRoot, 'fixtures/cpu-jax-0.4.38/naive_attention');
const files = {
  gpu: shared('captures/gpu-semantics/gpu_a100__lorrax__module_0039.jit_fft.sm_8.0_gpu_after_optimizations.txt'),
  oom: shared('captures/memory/13_gpu_jax_13428_peak_buffers.txt'),
  tpuProfile: shared('captures/profiles/xprof_tpu_inference_2.xplane.pb'),
};
const skip = skipWithoutChromium || (!existsSync(cli) ? `no native CLI at ${cli} (npm run build:native)` : false);
const noShared = Object.values(files).some((f) => !f) ? (sharedAbsent() || sharedAbsent('memory') || sharedAbsent('profiles') || sharedAbsent('gpu-semantics') || 'SKIPPED: a capture this test reads is missing from ../shared/captures') : false;

const cliJson = (...args) => {
  const r = spawnSync(cli, [args[0], '--json', ...args.slice(1)], { maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, String(r.stderr));
  return JSON.parse(r.stdout.toString());
};

function makeReport(name, inputs, extra = []) {
  ensureBuilt();
  const out = path.join(work, `${name}.html`);
  const r = spawnSync(cli, ['report', '--out', out, ...extra, ...inputs]);
  assert.equal(r.status, 0, String(r.stderr));
  return out;
}

/** Opens a page from file://, recording every request that is not the page's own file or in-page data. */
async function openFile(browser, file) {
  const own = pathToFileURL(file).href;
  const p = await openPage(browser, null);
  const outside = [];
  p.context.on('request', (r) => { if (r.url() !== own && !/^(data|blob|about):/.test(r.url())) outside.push(r.url()); });
  await p.page.goto(own, { waitUntil: 'load' });
  await p.page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30000 });
  return { ...p, outside };
}

/** Waits until every dump cell has its analysis and every code cell ran (views drawn). */
async function settle(page) {
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll('.cell')];
    const status = cells.map((c) => c.querySelector('[data-testid=dump-status], .status')?.textContent ?? '');
    return cells.length > 0 && !status.some((s) => /reading|analysing|running/i.test(s));
  }, null, { timeout: 60000 });
}

test('a report of a real GPU dump, an OOM message and a TPU profile shows their answers offline', { skip: skip || noShared, timeout: 180000 }, async () => {
  const inputs = [path.join(fx, 'stablehlo.mlir'), path.join(fx, 'after_optimizations.txt'), files.gpu, files.oom, files.tpuProfile];
  const out = makeReport('real', inputs);
  const fu = cliJson('fusions', files.gpu);
  const mem = cliJson('memory', files.oom);
  const tl = cliJson('timeline', files.tpuProfile);
  const { browser, close } = await launch();
  try {
    const p = await openFile(browser, out);
    const { page } = p;
    await page.waitForSelector('[data-testid=report-banner]:not([hidden])');
    // the overview: the census, the memory sentence and the top op, as the CLI says them
    const overview = await page.locator('#overview').innerText();
    assert.match(overview, new RegExp(`${fu.fusion_ops} fusion ops? \\(${fu.fusion_computations} fused computations?\\)`));
    assert.ok(overview.includes(mem.explanation), `the memory sentence: ${mem.explanation}`);
    assert.ok(overview.includes(`Top op by its own time: ${tl.rows[0].name}`), `the top op ${tl.rows[0].name}`);
    assert.ok(overview.includes(`${(100 * tl.rows[0].share).toFixed(1)}% of the run`));
    assert.ok(overview.includes('The x-ray'), 'the StableHLO and its HLO pair');
    // each full view a click away: the links lead to cells of this page
    const hrefs = await page.locator('#overview a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(hrefs.length >= inputs.length);
    for (const h of hrefs) assert.ok(await page.locator(h).count(), `${h} is a cell of the page`);
    await page.locator('#overview a[href="#input-4"]').first().click();
    assert.equal(await page.evaluate(() => location.hash), '#input-4');
    // the views below: the x-ray, the fusion tables, the memory view, the timeline
    await page.waitForFunction(() => document.querySelectorAll('xla-xray').length >= 1 && document.querySelectorAll('xla-fusion-table').length >= 2 &&
      document.querySelectorAll('xla-memory').length >= 1, null, { timeout: 60000 });
    await page.waitForFunction(() => { const t = document.querySelector('xla-timeline'); return t && !t.hidden; }, null, { timeout: 90000 });
    const note = await page.locator('[data-testid=profile-note]').innerText();
    assert.match(note, /xprof_tpu_inference_2\.xplane\.pb/);
    // a report page does not touch the notebook this browser keeps
    const stored = await page.evaluate(() => new Promise((ok) => {
      const r = indexedDB.open('hloscope-notebook');
      r.onsuccess = () => { const db = r.result; const has = db.objectStoreNames.contains('meta'); db.close(); ok(has); };
      r.onerror = () => ok(false);
    }));
    assert.equal(stored, false, 'no notebook database made');
    assert.deepEqual(p.outside, [], 'no request left the file');
    assert.deepEqual(p.external, []);
    assert.deepEqual(p.errors, []);
    await p.close();
  } finally {
    await close();
  }
});

test('a redacted report says none of the names it hid', { skip: skip || noShared, timeout: 120000 }, async () => {
  const inputs = [files.gpu, files.tpuProfile];
  const out = makeReport('redacted', inputs, ['--redact']);
  const hidden = [path.basename(files.gpu), path.basename(files.tpuProfile), 'jit_fft', ...cliJson('timeline', files.tpuProfile).programs.map((x) => x.name)];
  const { browser, close } = await launch();
  try {
    const p = await openFile(browser, out);
    await p.page.waitForFunction(() => { const t = document.querySelector('xla-timeline'); return t && !t.hidden; }, null, { timeout: 90000 });
    await p.page.waitForFunction(() => document.querySelectorAll('xla-fusion-table').length >= 1, null, { timeout: 60000 });
    const text = await p.page.evaluate(() => {
      // the page's text, shadow roots included (the views draw there); not the page's own script
      const walk = (root) => {
        const out = [];
        const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(); n; n = w.nextNode()) if (!/^(SCRIPT|STYLE)$/.test(n.parentNode?.nodeName)) out.push(n.nodeValue);
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) out.push(walk(e.shadowRoot));
        for (const e of root.querySelectorAll('input, textarea')) out.push(e.value);
        return out.join('\n');
      };
      return walk(document.body);
    });
    assert.match(text, /Redacted/);
    for (const n of hidden) assert.ok(!text.includes(n), `${n} shown on the page`);
    assert.deepEqual(p.outside, []);
    await p.close();
  } finally {
    await close();
  }
});

test('Save as page: a page with the same cells and the same carried bytes, saved again as often as wanted', { skip, timeout: 120000 }, async () => {
  const inputs = [path.join(fx, 'stablehlo.mlir'), path.join(fx, 'after_optimizations.txt'), path.join(fx, 'profile.xplane.pb')];
  const out = makeReport('ours', inputs);
  const { browser, close } = await launch();
  try {
    const first = await openFile(browser, out);
    await first.page.waitForFunction(() => { const t = document.querySelector('xla-timeline'); return t && !t.hidden; }, null, { timeout: 60000 });
    // an edit: a Markdown cell added at the end is carried too
    const before = await first.page.evaluate(() => window.hloscopeNotebook.state);
    // the toolbar's button downloads the page
    const [download] = await Promise.all([first.page.waitForEvent('download'), first.page.click('[data-action=save-page]')]);
    assert.match(download.suggestedFilename(), /\.html$/);
    assert.ok(readFileSync(await download.path(), 'utf8').includes('id="hs-report"'), 'the download is a report page');
    const html = await first.page.evaluate(() => window.hloscopeNotebook.pageHTML());
    await first.close();
    const again = path.join(work, 'again.html');
    writeFileSync(again, html);
    const second = await openFile(browser, again);
    await second.page.waitForFunction(() => { const t = document.querySelector('xla-timeline'); return t && !t.hidden; }, null, { timeout: 60000 });
    const after = await second.page.evaluate(() => window.hloscopeNotebook.state);
    assert.deepEqual(after.cells.map((c) => [c.kind, c.name, c.text]), before.cells.map((c) => [c.kind, c.name, c.text]));
    const ids = await second.page.evaluate(() => [...document.querySelectorAll('.cell')].map((c) => c.id).filter(Boolean));
    assert.ok(ids.includes('overview') && ids.includes('input-3'), `anchors kept: ${ids}`);
    // the page saved again is the same page again (the core replaces the data block)
    const third = await second.page.evaluate(() => window.hloscopeNotebook.pageHTML());
    const block = (h) => h.slice(0, h.indexOf('<script type="application/json" id="hs-report">'));
    assert.equal(block(third), block(html), 'the page around the data is unchanged');
    assert.equal((third.match(/id="hs-report"/g) || []).length, 1);
    assert.deepEqual(second.outside, []);
    assert.deepEqual(second.errors, []);
    await second.close();
    assert.ok(readFileSync(again, 'utf8').length < readFileSync(out, 'utf8').length + 200000);
  } finally {
    await close();
  }
});

test('two compiles of one program: the page opens on their diff', { skip, timeout: 120000 }, async () => {
  const pair = path.join(repoRoot, 'fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_softmax-nofusion');
  const out = makeReport('pair', [path.join(pair, 'a.after_optimizations.txt'), path.join(pair, 'b.after_optimizations.txt')]);
  const { browser, close } = await launch();
  try {
    const p = await openFile(browser, out);
    await p.page.waitForFunction(() => document.querySelector('#pair-1 xla-diff'), null, { timeout: 60000 });
    const top = await p.page.evaluate(() => document.getElementById('pair-1').getBoundingClientRect().top);
    assert.ok(Math.abs(top) < 200, `the diff cell is at the top of the view (${top} px)`);
    assert.deepEqual(p.outside, []);
    await p.close();
  } finally {
    await close();
  }
});

test('Save as page from the served notebook: the page beside it is the template', { skip, timeout: 120000 }, async () => {
  const server = await serveDist();
  const { browser, close } = await launch();
  try {
    const p = await openPage(browser, server.url);
    await p.page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30000 });
    await p.page.waitForFunction(() => window.hloscopeNotebook.state.cells.some((c) => c.kind === 'dump'), null, { timeout: 30000 });
    const html = await p.page.evaluate(() => window.hloscopeNotebook.pageHTML());
    const state = await p.page.evaluate(() => window.hloscopeNotebook.state);
    const m = /<script type="application\/json" id="hs-report">([\s\S]*?)<\/script>/.exec(html);
    assert.ok(m, 'a data block');
    const payload = JSON.parse(m[1]);
    assert.deepEqual(payload.cells.map((c) => c.kind), state.cells.map((c) => c.kind));
    assert.ok(html.includes('id="hs-app"'), 'the single file, its script inline');
    assert.deepEqual(p.external, []);
    await p.close();
  } finally {
    await close();
    await server.close();
  }
});
