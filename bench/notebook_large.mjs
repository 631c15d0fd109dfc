// The notebook with a 50 MB optimized HLO, pasted and dropped (issue 17): the worker analyses it
// while the page stays responsive, and its x-ray scrolls. This bench prints the figures, each
// beside its goal (met or not): the longest main-thread task while it is analysed (PerformanceObserver
// 'longtask'), the 95th percentile and the longest frame while scrolling the x-ray. On a quiet
// machine: no long task for a paste, one under 100 ms for a drop, 17 ms median frames; the goals
// (500 ms, 500 ms, 1 s) were the bounds tests/browser/notebook-large.test.mjs asserted until issue
// 34 (item 12) moved them here. That test runs the same scenario (analyseAndXray below) and
// asserts what it did: no call into the core on the main thread, the counts, the rows.
//   node notebook/build.mjs && node bench/notebook_large.mjs      (npm run bench:browser runs it too)
import { pathToFileURL } from 'node:url';
import {
  CORE_SPY, addCell, cell, cellIds, coreCalls, launch, openPage, serveDist, setDumpName, waitForNotebook,
} from '../tests/browser/harness.mjs';
import { printFigures } from './goal.mjs';

export const SIZE = 50e6;
/** The figures' goals, in ms (the bounds the test once asserted). */
export const GOALS = { maxLongTaskMs: 500, p95FrameMs: 500, maxFrameMs: 1000 };

/**
 * Runs in the page: a valid optimized HLO module of about `target` bytes, a chain of kLoop
 * fusions (each with its own fused computation), like a large real module's shape.
 */
export function makeBigHlo(target) {
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
export function startWatch() {
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

export function stopWatch() {
  const w = window.__watch;
  clearInterval(w.iv);
  w.obs.takeRecords().forEach((e) => w.long.push(Math.round(e.duration)));
  w.obs.disconnect();
  return { long: w.long, maxLongTask: Math.max(0, ...w.long), maxHeartbeatGap: Math.round(w.maxGap) };
}

/** Runs in the page: scrolls a column of an x-ray for `frames` frames; returns frame timing. */
export async function scrollXray({ sel, side, frames, step }) {
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

/** A page holding one empty dump cell named `big` and the generated text in window.__big. */
export async function setupBig(browser, url) {
  const p = await openPage(browser, url, { initScript: CORE_SPY });
  await waitForNotebook(p.page);
  for (const id of await cellIds(p.page)) await p.page.click(`${cell(id)} [data-action=delete]`);
  const id = await addCell(p.page, 'dump');
  await setDumpName(p.page, id, 'big');
  const info = await p.page.evaluate(`(() => { const r = (${makeBigHlo})(${SIZE}); window.__big = r.text; return { bytes: r.text.length, fusions: r.fusions, lines: r.text.split('\\n').length - 1 }; })()`);
  return { p, id, info };
}

/** Starts the analysis the way a person pastes (Ctrl+V with the clipboard's data ready). */
export async function paste(p, id) {
  await p.page.evaluate(() => { window.__dt = new DataTransfer(); window.__dt.setData('text/plain', window.__big); });
  return () => p.page.evaluate((sel) => {
    const target = document.querySelector(`${sel} .cm-content`);
    target.focus();
    target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: window.__dt, bubbles: true, cancelable: true }));
  }, cell(id));
}

/** Starts the analysis the way a person drops a file on the cell. */
export async function drop(p, id) {
  await p.page.evaluate(() => {
    window.__dt = new DataTransfer();
    window.__dt.items.add(new File([window.__big], 'big_module.txt', { type: 'text/plain' }));
    window.__big = null;
  });
  return () => p.page.evaluate((sel) => {
    const target = document.querySelector(sel);
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: window.__dt, bubbles: true, cancelable: true }));
  }, cell(id));
}

/**
 * The scenario: start() pastes or drops the dump; waits for the progress, the analysis, the
 * x-ray it suggests, the save, then scrolls the x-ray and hovers a row. Returns what it saw:
 * { x (the x-ray cell), meta, suggestion, stat, core (main-thread core calls from the start to
 * the save), inWorker, watch, scroll, truth (the lines the sampled rows should show), figures }.
 */
export async function analyseAndXray(p, id, start) {
  const page = p.page;
  await page.evaluate(startWatch);
  const before = await coreCalls(page);
  const t0 = Date.now();
  await start();
  // Visible progress while the worker reads and parses.
  await page.waitForSelector(`${cell(id)} [data-testid=progress]`, { timeout: 5000 });
  await page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
    cell(id), { timeout: 120000, polling: 100 });
  const analysedMs = Date.now() - t0;
  const meta = await page.textContent(`${cell(id)} [data-testid=dump-meta]`);
  // The suggested view for a lone HLO dump is its x-ray.
  const sug = page.locator(`${cell(id)} [data-testid=suggest] button.primary`);
  const suggestion = await sug.textContent();
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
  const after = await coreCalls(page);
  const inWorker = await page.evaluate(() => window.hloscopeNotebook.analysisInWorker);
  const stat = await page.$eval(`${cell(x)} xla-xray`, (el) => el.summary.stat);
  const scroll = await page.evaluate(scrollXray, { sel: `${cell(x)} xla-xray`, side: 'right', frames: 120, step: 2400 });
  const truth = await page.evaluate((lines) => {
    const c = window.hloscopeNotebook.state.cells.find((y) => y.name === 'big');
    const all = c.text.split('\n');
    return lines.map(([l]) => all[l - 1]);
  }, scroll.sample);
  // Hover: the notes of a big x-ray stay in the worker and arrive on hover.
  const row = page.locator(`${cell(x)} xla-xray .col.right .row`).nth(5);
  await row.hover();
  await page.waitForFunction((sel) => {
    const tip = document.querySelector(sel).shadowRoot.querySelector('.tip');
    return !tip.hidden && !tip.textContent.endsWith('…') && tip.textContent.split('\n')[1]?.length > 10;
  }, `${cell(x)} xla-xray`, { timeout: 10000 });
  const core = { instances: after.instances - before.instances, calls: after.calls - before.calls };
  const figures = {
    analysedMs, xrayMs, savedMs,
    maxLongTaskMs: watch.maxLongTask, longTasks: watch.long.length, maxHeartbeatGapMs: watch.maxHeartbeatGap,
    medianFrameMs: scroll.medianFrame, p95FrameMs: scroll.p95Frame, maxFrameMs: scroll.maxFrame,
    maxScrollLongTaskMs: Math.max(0, ...scroll.longTasks),
  };
  return { x, meta, suggestion, stat, core, inWorker, watch, scroll, truth, figures };
}

/** The figures of a paste and of a drop of the 50 MB dump, each in a fresh page. */
export async function measureLarge() {
  const server = await serveDist();
  const chrome = await launch();
  const out = {};
  try {
    for (const [how, begin] of [['pasted', paste], ['dropped', drop]]) {
      const { p, id } = await setupBig(chrome.browser, server.url);
      try {
        out[how] = (await analyseAndXray(p, id, await begin(p, id))).figures;
      } finally {
        await p.close();
      }
    }
  } finally {
    await chrome.close();
    await server.close();
  }
  return out;
}

/** Prints the figures of measureLarge() beside their goals. */
export function printLarge(r) {
  for (const [how, f] of Object.entries(r)) {
    printFigures(`notebook, a 50 MB optimized HLO ${how} (analysed in ${f.analysedMs} ms, x-ray in ${f.xrayMs} ms, saved in ${f.savedMs} ms)`, [
      ['longest main-thread task while it is analysed', f.maxLongTaskMs, 'ms', GOALS.maxLongTaskMs],
      [`95th percentile frame scrolling its x-ray (median ${f.medianFrameMs} ms)`, f.p95FrameMs, 'ms', GOALS.p95FrameMs],
      ['longest frame scrolling its x-ray', f.maxFrameMs, 'ms', GOALS.maxFrameMs],
    ]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) printLarge(await measureLarge());
