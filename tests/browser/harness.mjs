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
//   sharedDir / shared(rel)  ../shared next to the repository (CI has it; a user's clone may not):
//                            shared() returns null when absent, so tests can t.skip() with a reason
//   repoRoot, distDir, chromiumPath, skipWithoutChromium (a reason string, or null)
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../notebook/serve.mjs';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const distDir = join(repoRoot, 'dist');
export const sharedDir = resolve(repoRoot, '../shared');
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why browser tests cannot run here, or null. */
export const skipWithoutChromium = existsSync(chromiumPath)
  ? null : `no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`;

/** The absolute path of a file under ../shared, or null when it is not there. */
export function shared(rel) {
  const p = join(sharedDir, rel);
  return existsSync(p) ? p : null;
}

export function ensureBuilt() {
  if (process.env.HLOSCOPE_REBUILD === '1' || !existsSync(join(distDir, 'index.html')) || !existsSync(join(distDir, 'hloscope.html'))) {
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

/** Waits until the notebook page has started (restored or built its notebook). */
export async function waitForNotebook(page) {
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30000 });
}
