// Main-thread long tasks while the notebook takes a real paste (Ctrl+V from the clipboard) of a
// ~20 MB dump (issue 17, item 10): PerformanceObserver('longtask') in Chromium, with the time
// Chromium spends in the clipboard read itself (DataTransfer.getData, which the page cannot
// split: getAsString and navigator.clipboard.read() take one task of the same order) told apart.
// Run: node notebook/build.mjs && node bench/paste_longtask.mjs [MB]   (prints one JSON line)
// tests/browser/paste-longtask.test.mjs runs measurePaste() with a generous bound.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { addCell, cell, launch, openPage, repoRoot, serveDist, waitForDump, waitForNotebook } from '../tests/browser/harness.mjs';

const INIT = `
  window.__clip = [];
  const g = DataTransfer.prototype.getData;
  DataTransfer.prototype.getData = function (k) {
    const t = performance.now();
    const r = g.call(this, k);
    window.__clip.push([t, performance.now()]);
    return r;
  };`;

/** Pastes `mb` MB (a real module repeated) into a new dump cell; returns the figures. */
export async function measurePaste(mb = 20, { browser, url } = {}) {
  const own = !browser;
  const server = own ? await serveDist() : null;
  const chrome = own ? await launch() : null;
  const p = await openPage(browser ?? chrome.browser, url ?? server.url, { initScript: INIT });
  try {
    await p.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url ?? server.url });
    await waitForNotebook(p.page);
    const d = await addCell(p.page, 'dump');
    const one = readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt'), 'utf8');
    const length = await p.page.evaluate(async ({ one, n }) => {
      const big = one.repeat(Math.ceil(n / one.length));
      await navigator.clipboard.writeText(big);
      return big.length;
    }, { one, n: mb * 1e6 });
    await p.page.click(`${cell(d)} .cm-content`);
    await p.page.evaluate(() => {
      window.__lt = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await p.page.keyboard.press('Control+V');
    const meta = await waitForDump(p.page, d, 180000);
    const analysedMs = Date.now() - t0;
    // Long tasks that come after the analysis (its result shown, the store's write) count too.
    await p.page.waitForFunction(() => !window.hloscopeNotebook.unsaved, null, { timeout: 60000 });
    const r = await p.page.evaluate(() => {
      const clip = window.__clip;
      const inClip = ([s, d]) => clip.some(([a, b]) => s <= a + 1 && s + d >= b - 1);
      const ours = window.__lt.filter((x) => !inClip(x));
      const withClip = window.__lt.filter(inClip);
      return {
        clipboardReadMs: Math.round(Math.max(0, ...clip.map(([a, b]) => b - a))),
        clipboardTaskMs: Math.round(Math.max(0, ...withClip.map((x) => x[1]))),
        otherLongTasks: ours.length,
        maxOtherLongTaskMs: Math.round(Math.max(0, ...ours.map((x) => x[1]))),
        otherLongTasksMs: ours.map((x) => Math.round(x[1])),
        stored: window.hloscopeNotebook.state.cells.at(-1).text.length,
      };
    });
    return { bytes: length, meta, analysedMs, ...r, errors: p.errors };
  } finally {
    await p.close();
    await chrome?.close();
    await server?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await measurePaste(Number(process.argv[2]) || 20);
  console.log(JSON.stringify(r));
}
