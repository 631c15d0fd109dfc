// Shared helpers of the browser tests (node:test + playwright-core driving Debian's Chromium).
//
//   ensureBuilt()            builds dist/ (node notebook/build.mjs) when dist/index.html is missing
//                            or HLOSCOPE_REBUILD=1; `npm test` builds first, so this is for single runs
//   serveDist()              -> { url, close() }  dist/ on 127.0.0.1, a free port
//   launch()                 -> { browser, close() }  Chromium with the TOOLCHAIN.md flags
//   openPage(browser, url)   -> { page, context, errors, external, close() }  a fresh context (fresh
//                            storage); every request that is not 127.0.0.1, file:, data: or blob: is
//                            aborted and recorded in `external`; page errors and console errors are
//                            recorded in `errors`
//   sharedDir / shared(rel)  ../shared next to the repository (CI has it; a user's clone may not),
//                            from the walker (tests/fixtures.mjs): shared() returns null when absent
//                            or hidden by HLOSCOPE_NO_SHARED=1, so tests can t.skip(sharedAbsent(sub))
//   repoRoot, distDir, chromiumPath, skipWithoutChromium (a reason string, or null)
//   CORE_SPY, coreCalls(page)  an init script that counts the page's own (main-thread) calls into
//                            the wasm core, and the counts: work counted, not timed (no parse on
//                            the main thread is a count of 0; a worker's calls are not counted)
//   waitForNotebook(page), and the notebook page helpers at the end (cellIds, addCell, cell,
//   pasteInto, typeInto, setDumpName, waitForDump, waitForXray, runWithShiftEnter, waitSaved,
//   notebookState, deepCount)
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../notebook/serve.mjs';
import { sharedAbsent, sharedDir, sharedPath } from '../fixtures.mjs';

export { sharedAbsent, sharedDir };

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const distDir = process.env.HLOSCOPE_DIST ? resolve(process.env.HLOSCOPE_DIST) : join(repoRoot, 'dist');
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why browser tests cannot run here, or null. */
export const skipWithoutChromium = existsSync(chromiumPath)
  ? null : `no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`;

/** The absolute path of a file under ../shared, or null when it is not there (or hidden). */
export const shared = sharedPath;

/** What `node notebook/build.mjs` writes that the browser tests open. */
const BUILT = ['index.html', 'hloscope.html', 'gym.html', 'hloscope-drills.js'];

export function ensureBuilt() {
  if (process.env.HLOSCOPE_REBUILD === '1' || BUILT.some((f) => !existsSync(join(distDir, f)))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
}

export async function serveDist() {
  ensureBuilt();
  return await startServer({ root: distDir, port: 0 });
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

export async function launch() {
  // playwright-core gives every launch a fresh temporary user-data-dir (it refuses a
  // --user-data-dir argument), and newContext() gives each test fresh storage on top.
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
  return {
    browser,
    async close() { await browser.close().catch(() => {}); },
  };
}

/** True for URLs a page may load: the local server, files, and in-page data. */
export function isLocalUrl(url) {
  if (/^(data|blob|about|file):/i.test(url)) return true;
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:') && u.hostname === '127.0.0.1';
  } catch {
    return false;
  }
}

/**
 * Opens `url` in a fresh browser context. Options: { context } to reuse one (a reload test),
 * { initScript } run before the page's scripts, { acceptDownloads }.
 */
export async function openPage(browser, url, opts = {}) {
  const context = opts.context || await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  const errors = [];
  const external = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (isLocalUrl(u)) return route.continue();
    external.push(u);
    return route.abort('blockedbyclient');
  });
  // Requests the router does not see (a worker's, a service worker's) still show up here.
  context.on('request', (r) => { if (!isLocalUrl(r.url()) && !external.includes(r.url())) external.push(r.url()); });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
  page.on('crash', () => errors.push('page crashed'));
  if (opts.initScript) await page.addInitScript(opts.initScript);
  if (url) await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    context,
    errors,
    external,
    async close() { if (!opts.context) await context.close().catch(() => {}); },
  };
}

/**
 * An init script (openPage's initScript) counting, on the page's main thread, the wasm instances
 * made (WebAssembly.instantiate / instantiateStreaming) and every call into their exported
 * functions: window.__hsCore = { instances, calls, byExport }. Workers are not touched (init
 * scripts run in pages only), so a parse in the analysis worker counts nothing and one on the
 * main thread counts its calls. Exports are minified; the counts are by name as exported.
 */
export const CORE_SPY = `(() => {
  const spy = window.__hsCore = { instances: 0, calls: 0, byExport: {} };
  const wrap = (result) => {
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    const exports = {};
    for (const [k, v] of Object.entries(instance.exports)) {
      exports[k] = typeof v !== 'function' ? v : function (...a) {
        spy.calls++;
        spy.byExport[k] = (spy.byExport[k] || 0) + 1;
        return v.apply(this, a);
      };
    }
    spy.instances++;
    return result instanceof WebAssembly.Instance ? { exports } : { module: result.module, instance: { exports } };
  };
  const instantiate = WebAssembly.instantiate;
  const streaming = WebAssembly.instantiateStreaming;
  WebAssembly.instantiate = function (...a) { return instantiate.apply(this, a).then(wrap); };
  if (streaming) WebAssembly.instantiateStreaming = function (...a) { return streaming.apply(this, a).then(wrap); };
})();`;

/** The counts CORE_SPY keeps: { instances, calls, byExport }. */
export async function coreCalls(page) {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.__hsCore)));
}

/** Waits until the notebook page has started (restored or built its notebook). */
export async function waitForNotebook(page) {
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60000 });
}

// ---------------------------------------------------------------- notebook page helpers
// (used by the notebook tests; driving the page the way a person does: toolbar buttons,
// editors, paste and drop events)
/** Ids of the cells, in order. */
export async function cellIds(page) {
  return page.$$eval('.cells > .cell', (els) => els.map((e) => e.dataset.id));
}

/** Clicks a toolbar "+ kind" button and returns the new cell's id. */
export async function addCell(page, kind) {
  const before = new Set(await cellIds(page));
  // Blur first: the toolbar adds after the focused cell, and tests want the end.
  await page.evaluate(() => document.activeElement?.blur());
  await page.click(`.toolbar [data-action=add-${kind}]`);
  const ids = await cellIds(page);
  const id = ids.find((x) => !before.has(x));
  if (!id) throw new Error(`no ${kind} cell was added`);
  return id;
}

export const cell = (id) => `.cell[data-id="${id}"]`;

/** Dispatches a paste of `text` into a cell (into its editor when it has one), as Ctrl+V does. */
export async function pasteInto(page, id, text) {
  await page.evaluate(({ sel, text }) => {
    const c = document.querySelector(sel);
    const target = c.querySelector('.cm-content') || c.querySelector('.bigdump') || c;
    target.focus?.();
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true, composed: true }));
  }, { sel: cell(id), text });
}

/** Types into a cell's editor (replacing nothing: the editor should be empty). */
export async function typeInto(page, id, text) {
  await page.click(`${cell(id)} .cm-content`);
  await page.keyboard.insertText(text);
}

export async function setDumpName(page, id, name) {
  await page.fill(`${cell(id)} input.name`, name);
}

/** Waits until a dump cell shows its analysis (format, lines, ...) and returns that line. */
export async function waitForDump(page, id, timeout = 30000) {
  await page.waitForFunction((sel) => {
    const m = document.querySelector(`${sel} [data-testid=dump-meta]`);
    return m && /lines/.test(m.textContent);
  }, cell(id), { timeout });
  return page.textContent(`${cell(id)} [data-testid=dump-meta]`);
}

/** Waits for an <xla-xray> inside a cell to show its lines; returns its stat line. */
export async function waitForXray(page, id, timeout = 30000) {
  const sel = `${cell(id)} xla-xray`;
  await page.waitForFunction((s) => {
    const x = document.querySelector(s);
    const err = document.querySelector(s.replace(' xla-xray', ' [data-testid=cell-error]'));
    if (err) throw new Error(`cell error: ${err.textContent}`);
    return x && x.summary && x.shadowRoot.querySelector('.row');
  }, sel, { timeout });
  return page.$eval(sel, (x) => x.shadowRoot.querySelector('.stat').textContent);
}

/** Runs a code cell with Shift+Enter from its editor. */
export async function runWithShiftEnter(page, id) {
  await page.click(`${cell(id)} .cm-content`);
  await page.keyboard.press('Shift+Enter');
}

/** Waits until the save indicator says "saved" (after the last change). */
export async function waitSaved(page) {
  await page.waitForFunction(() => {
    const s = document.querySelector('[data-testid=save-status]');
    return s && s.dataset.state === 'saved' && !window.hloscopeNotebook.unsaved;
  }, null, { timeout: 15000 });
}

export async function notebookState(page) {
  return page.evaluate(() => window.hloscopeNotebook.state);
}

/** Every element in the document and in open shadow roots matching `selector`. (CodeMirror draws
 * empty `img.cm-widgetBuffer` elements beside widgets such as placeholders: exclude them.) */
export async function deepCount(page, selector) {
  return page.evaluate((selector) => {
    let n = 0;
    const walk = (root) => {
      n += root.querySelectorAll(selector).length;
      for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
    };
    walk(document);
    return n;
  }, selector);
}

// ---------------------------------------------------------------- drill helpers
/**
 * The GYM·13 answer button (`<xla-drill skill="fusioncount">` at `sel`) whose range holds the
 * count `n`, or with `holds` false one whose range does not, as a locator; fails when none does.
 */
export async function countChoice(page, sel, n, holds = true) {
  const ranges = await page.locator(`${sel} .choice`).evaluateAll((bs) => bs.map((b) => ({ value: b.dataset.value, lo: Number(b.dataset.lo), hi: Number(b.dataset.hi) })));
  const c = ranges.find((r) => (r.lo <= n && n <= r.hi) === holds);
  if (!c) throw new Error(`${sel}: no choice ${holds ? 'holds' : 'leaves out'} ${n}: ${JSON.stringify(ranges)}`);
  return page.locator(`${sel} .choice[data-value="${c.value}"]`);
}
