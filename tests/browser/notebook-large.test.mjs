// A 50 MB optimized HLO, pasted and dropped: analysed in the worker while the page stays
// responsive (main-thread long tasks measured with PerformanceObserver('longtask')), and its
// x-ray scrolls smoothly (frame gaps measured while scrolling). The figures are printed as
// test diagnostics; the bounds below are generous so that a loaded 2-core CI machine passes,
// while a parse on the main thread (seconds) would fail them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addCell, cell, cellIds, launch, openPage, serveDist, setDumpName, skipWithoutChromium, waitForNotebook,
} from './harness.mjs';

const SIZE = 50e6;
// On a quiet machine the figures are far below these (see the diagnostics: no long task at all
// for a paste, one under 100 ms for a drop; 17 ms median frames); the bounds leave room for a
// busy 2-core CI machine, and a parse on the main thread (seconds) still fails them.
const MAX_LONG_TASK_MS = 500; // the longest main-thread task allowed while a 50 MB dump is analysed
const MAX_P95_FRAME_MS = 500; // the 95th percentile frame while scrolling the x-ray (300 ms seen with 8 builds running beside it)
const MAX_FRAME_GAP_MS = 1000; // the longest frame while scrolling

/**
 * Runs in the page: a valid optimized HLO module of about `target` bytes, a chain of kLoop
 * fusions (each with its own fused computation), like a large real module's shape.
 */
function makeBigHlo(target) {
  const head = 'HloModule jit_big, entry_computation_layout={(f32[1024,512]{1,0})->f32[1024,512]{1,0}}\n\n';
  const comps = [];
  const entry = ['ENTRY %main (p: f32[1024,512]) -> f32[1024,512] {', '  %p = f32[1024,512]{1,0} parameter(0)'];
  let size = head.length + 200;
  let prev = '%p';
  for (let n = 0; size < target; n++) {
    const c = `%fused_computation.${n} (param_0.${n}: f32[1024,512]) -> f32[1024,512] {\n` +
      `  %param_0.${n} = f32[1024,512]{1,0} parameter(0)\n` +
      `  %exponential.${n} = f32[1024,512]{1,0} exponential(%param_0.${n}), metadata={op_name="jit(big)/exp" source_file="big.py" source_line=${n}}\n` +
      `  ROOT %add.${n} = f32[1024,512]{1,0} add(%exponential.${n}, %param_0.${n})\n}\n\n`;
    const e = `  %fusion.${n} = f32[1024,512]{1,0} fusion(${prev}), kind=kLoop, calls=%fused_computation.${n}, metadata={op_name="jit(big)/exp"}`;
    comps.push(c);
    entry.push(e);
    prev = `%fusion.${n}`;
    size += c.length + e.length + 1;
  }
  entry[entry.length - 1] = entry[entry.length - 1].replace(/^ {2}%/, '  ROOT %');
  entry.push('}');
  const text = `${head}${comps.join('')}${entry.join('\n')}\n`;
  return { text, fusions: comps.length };
}

/** Runs in the page: starts recording long tasks and main-thread stalls (a 10 ms heartbeat). */
function startWatch() {
  const w = { long: [], maxGap: 0, last: performance.now() };
  w.obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) w.long.push(Math.round(e.duration)); });
  w.obs.observe({ type: 'longtask' });
  w.iv = setInterval(() => {
    const now = performance.now();
    w.maxGap = Math.max(w.maxGap, now - w.last);
    w.last = now;
  }, 10);
  window.__watch = w;
}

function stopWatch() {
  const w = window.__watch;
  clearInterval(w.iv);
  w.obs.takeRecords().forEach((e) => w.long.push(Math.round(e.duration)));
  w.obs.disconnect();
  return { long: w.long, maxLongTask: Math.max(0, ...w.long), maxHeartbeatGap: Math.round(w.maxGap) };
}

/** Runs in the page: scrolls a column of an x-ray for `frames` frames; returns frame timing. */
async function scrollXray({ sel, side, frames, step }) {
  const x = document.querySelector(sel);
  const sc = x.scroller(side);
  const gaps = [];
  const long = [];
  const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(Math.round(e.duration)); });
  obs.observe({ type: 'longtask' });
  let last = await new Promise((ok) => requestAnimationFrame(ok));
  for (let f = 0; f < frames; f++) {
    sc.scrollTop += step;
    const t = await new Promise((ok) => requestAnimationFrame(ok));
    gaps.push(t - last);
    last = t;
  }
  // Small steps (a wheel): rows are recycled; they must stay in line order, each with its own line.
  for (let f = 0; f < 60; f++) {
    sc.scrollTop += f % 3 === 2 ? -50 : 90;
    const t = await new Promise((ok) => requestAnimationFrame(ok));
    gaps.push(t - last);
    last = t;
  }
  const ordered = [...x.shadowRoot.querySelectorAll(`.col.${side} .row`)].map((r) => [Number(r.dataset.line), Number(r.querySelector('.ln').textContent), r.querySelector('.tx').textContent]);
  const inOrder = ordered.every(([l, ln], k) => l === ln && (k === 0 || l === ordered[k - 1][0] + 1));
  const sample = ordered.slice(30, 33);
  // Jump far, then check the rows shown are the lines at that place.
  sc.scrollTop = sc.scrollHeight / 2;
  await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  const rows = [...x.shadowRoot.querySelectorAll(`.col.${side} .row`)];
  const top = sc.scrollTop;
  const visible = rows.filter((r) => {
    const b = r.getBoundingClientRect();
    const s = sc.getBoundingClientRect();
    return b.top >= s.top && b.bottom <= s.bottom;
  });
  obs.disconnect();
  gaps.sort((a, b) => a - b);
  return {
    frames: gaps.length,
    medianFrame: Math.round(gaps[gaps.length >> 1]),
    p95Frame: Math.round(gaps[Math.floor(gaps.length * 0.95)]),
    maxFrame: Math.round(gaps[gaps.length - 1]),
    longTasks: long,
    domRows: rows.length,
    firstVisibleLine: Number(visible[0]?.dataset.line),
    // The column maps its scroll range onto all lines (compressed past a few million pixels).
    expectedFirstLine: Math.ceil((top / (sc.scrollHeight - sc.clientHeight)) * (x.summary.lines_out * 18 - sc.clientHeight) / 18) + 1,
    firstVisibleText: visible[0]?.querySelector('.tx').textContent ?? '',
    inOrder,
    sample,
  };
}

describe('notebook with a 50 MB dump', { skip: skipWithoutChromium ?? false, timeout: 300000 }, () => {
  let server;
  let chrome;
  before(async () => {
    server = await serveDist();
    chrome = await launch();
  });
  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  /** A page holding one empty dump cell named `big` and the generated text in window.__big. */
  async function setup(t) {
    const p = await openPage(chrome.browser, server.url);
    t.after(() => p.close());
    await waitForNotebook(p.page);
    for (const id of await cellIds(p.page)) await p.page.click(`${cell(id)} [data-action=delete]`);
    const id = await addCell(p.page, 'dump');
    await setDumpName(p.page, id, 'big');
    const info = await p.page.evaluate(`(() => { const r = (${makeBigHlo})(${SIZE}); window.__big = r.text; return { bytes: r.text.length, fusions: r.fusions, lines: r.text.split('\\n').length - 1 }; })()`);
    return { p, id, info };
  }

  async function analyseAndXray(t, p, id, info, start) {
    const page = p.page;
    await page.evaluate(startWatch);
    const t0 = Date.now();
    await start();
    // Visible progress while the worker reads and parses.
    await page.waitForSelector(`${cell(id)} [data-testid=progress]`, { timeout: 5000 });
    await page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
      cell(id), { timeout: 120000, polling: 100 });
    const analysedMs = Date.now() - t0;
    const meta = await page.textContent(`${cell(id)} [data-testid=dump-meta]`);
    assert.match(meta, new RegExp(`optimized HLO · ${info.lines.toLocaleString('en-US')} lines`));
    assert.match(meta, new RegExp(`${info.fusions.toLocaleString('en-US')} fusion ops`));
    // The suggested view for a lone HLO dump is its x-ray.
    const sug = page.locator(`${cell(id)} [data-testid=suggest] button.primary`);
    assert.equal(await sug.textContent(), 'x-ray of big');
    await sug.click();
    const ids = await cellIds(page);
    const x = ids[ids.indexOf(id) + 1];
    await page.waitForFunction((sel) => {
      const el = document.querySelector(`${sel} xla-xray`);
      const err = document.querySelector(`${sel} [data-testid=cell-error]`);
      if (err) throw new Error(err.textContent);
      return el?.summary && el.shadowRoot.querySelector('.row');
    }, cell(x), { timeout: 120000, polling: 100 });
    const xrayMs = Date.now() - t0;
    // Saving the 50 MB dump to IndexedDB happens on the page too: wait for it inside the window.
    await page.waitForFunction(() => !window.hloscopeNotebook.unsaved, null, { timeout: 60000 });
    const savedMs = Date.now() - t0;
    const watch = await page.evaluate(stopWatch);
    const stat = await page.$eval(`${cell(x)} xla-xray`, (el) => el.summary.stat);
    assert.match(stat, new RegExp(`^${info.lines} lines decided · ${info.fusions} fusion ops`));

    const scroll = await page.evaluate(scrollXray, { sel: `${cell(x)} xla-xray`, side: 'right', frames: 120, step: 2400 });
    const report = {
      bytes: info.bytes, lines: info.lines, analysedMs, xrayMs, savedMs,
      maxLongTaskMs: watch.maxLongTask, longTasks: watch.long.length, maxHeartbeatGapMs: watch.maxHeartbeatGap,
      scroll: { ...scroll, sample: undefined, longTasks: scroll.longTasks.length, maxScrollLongTask: Math.max(0, ...scroll.longTasks) },
    };
    t.diagnostic(JSON.stringify(report));
    console.log(`# ${t.name}: ${JSON.stringify(report)}`);
    assert.ok(watch.maxLongTask < MAX_LONG_TASK_MS, `longest main-thread task ${watch.maxLongTask} ms (all: ${watch.long.join(', ')})`);
    assert.ok(scroll.p95Frame < MAX_P95_FRAME_MS, `95th percentile frame while scrolling ${scroll.p95Frame} ms`);
    assert.ok(scroll.maxFrame < MAX_FRAME_GAP_MS, `longest frame while scrolling ${scroll.maxFrame} ms`);
    assert.ok(scroll.domRows < 200, `virtualized: ${scroll.domRows} rows in the DOM`);
    assert.equal(scroll.inOrder, true, 'after small scrolls the recycled rows are consecutive lines');
    const truth = await page.evaluate((lines) => {
      const c = window.hloscopeNotebook.state.cells.find((x) => x.name === 'big');
      const all = c.text.split('\n');
      return lines.map(([l]) => all[l - 1]);
    }, scroll.sample);
    assert.deepEqual(scroll.sample.map(([, , text]) => text), truth, 'each row shows its own line');
    assert.ok(Math.abs(scroll.firstVisibleLine - scroll.expectedFirstLine) <= 1,
      `the rows shown after a jump are the lines there (${scroll.firstVisibleLine} vs ${scroll.expectedFirstLine})`);
    // Hover: the notes of a big x-ray stay in the worker and arrive on hover.
    const row = page.locator(`${cell(x)} xla-xray .col.right .row`).nth(5);
    await row.hover();
    await page.waitForFunction((sel) => {
      const tip = document.querySelector(sel).shadowRoot.querySelector('.tip');
      return !tip.hidden && !tip.textContent.endsWith('…') && tip.textContent.split('\n')[1]?.length > 10;
    }, `${cell(x)} xla-xray`, { timeout: 10000 });
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
    return { x };
  }

  test('a 50 MB optimized HLO pasted is analysed off the main thread, and its x-ray scrolls', async (t) => {
    const { p, id, info } = await setup(t);
    // The clipboard's data is ready before the paste, as it is when a person presses Ctrl+V.
    await p.page.evaluate(() => { window.__dt = new DataTransfer(); window.__dt.setData('text/plain', window.__big); });
    await analyseAndXray(t, p, id, info, () => p.page.evaluate((sel) => {
      const target = document.querySelector(`${sel} .cm-content`);
      target.focus();
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: window.__dt, bubbles: true, cancelable: true }));
    }, cell(id)));
    // Reload: the 50 MB dump comes back from IndexedDB (stored as a Blob), whole.
    const before = await p.page.evaluate((sel) => {
      const ok = window.__big === window.hloscopeNotebook.state.cells.find((c) => c.name === 'big').text;
      window.__big = null;
      window.__dt = null;
      return ok;
    }, cell(id));
    assert.equal(before, true, 'the cell holds exactly the pasted text');
    const t0 = Date.now();
    await p.page.reload();
    await waitForNotebook(p.page);
    // Renaming the dump while it is still being read back must not overwrite the stored copy.
    await setDumpName(p.page, id, 'large');
    await p.page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
      cell(id), { timeout: 120000, polling: 200 });
    const restoredIn = Date.now() - t0;
    const readBack = () => p.page.evaluate(() => {
      const c = window.hloscopeNotebook.state.cells.find((x) => x.name === 'large');
      return { length: c.text.length, head: c.text.slice(0, 40), tail: c.text.slice(-2) };
    });
    const whole = { length: info.bytes, head: 'HloModule jit_big, entry_computation_lay', tail: '}\n' };
    assert.deepEqual(await readBack(), whole);
    t.diagnostic(`restored ${info.bytes} characters in ${restoredIn} ms`);
    await p.page.waitForFunction(() => !window.hloscopeNotebook.unsaved, null, { timeout: 60000 });
    await p.page.reload();
    await waitForNotebook(p.page);
    await p.page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
      cell(id), { timeout: 120000, polling: 200 });
    assert.deepEqual(await readBack(), whole, 'still whole after a rename during the read-back and another reload');
  });

  test('a 50 MB optimized HLO dropped as a file is analysed off the main thread, and its x-ray scrolls', async (t) => {
    const { p, id, info } = await setup(t);
    await p.page.evaluate(() => {
      window.__dt = new DataTransfer();
      window.__dt.items.add(new File([window.__big], 'big_module.txt', { type: 'text/plain' }));
      window.__big = null;
    });
    await analyseAndXray(t, p, id, info, () => p.page.evaluate((sel) => {
      const target = document.querySelector(sel);
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: window.__dt, bubbles: true, cancelable: true }));
    }, cell(id)));
  });
});
