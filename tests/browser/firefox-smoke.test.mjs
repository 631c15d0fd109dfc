// The single-file notebook in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by
// firefox.mjs, no Playwright): opened from file:// in a fresh profile, it starts, the wasm core
// loads from the page's own bytes, and no request leaves it. A second test shows the refusing
// works at all in this Firefox (so "nothing refused" above means something): a page that asks
// for http(s) gets each request failed and recorded, and its fetch fails.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchFirefox, skipWithoutFirefox } from './firefox.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const page = join(repoRoot, 'dist/hloscope.html');
const IN_PAGE = /^(file|data|blob|about):/i;

let session = null;
const open = async () => (session ??= await launchFirefox());
after(async () => { await session?.close(); });

test('the single-file notebook opens in Firefox from file://, loads its core, and asks for nothing outside', { timeout: 90000 }, async (t) => {
  const noFirefox = skipWithoutFirefox();
  if (noFirefox) { t.skip(noFirefox); return; }
  if (!existsSync(page)) { t.skip(`no ${page}: build it with node notebook/build.mjs`); return; }
  const t0 = Date.now();
  const s = await open();
  t.diagnostic(`${s.version} (${s.path}) started in ${Date.now() - t0} ms`);
  const t1 = Date.now();
  await s.goto(pathToFileURL(page).href);
  await s.waitFor(`document.documentElement.dataset.ready === 'true'`, { timeout: 40000 });
  const core = await s.waitFor(`(() => { const v = document.querySelector('[data-testid=core-version]')?.textContent || ''; return v.startsWith('core ') && v; })()`, { timeout: 40000 });
  t.diagnostic(`ready with "${core}" ${Date.now() - t1} ms after navigating`);
  assert.match(core, /^core \S/);
  const errors = s.logs.filter((l) => l.level === 'error');
  if (errors.length) t.diagnostic(`the page logged: ${errors.map((l) => l.text).join(' | ')}`);
  assert.deepEqual(s.refused, [], 'requests refused (they would have left the page)');
  assert.deepEqual(s.requests.filter((u) => !IN_PAGE.test(u)), [], 'requests that are not file:, data:, blob: or about:');
});

test('Firefox refuses and records what a page asks for outside (the check above can fail)', { timeout: 60000 }, async (t) => {
  const noFirefox = skipWithoutFirefox();
  if (noFirefox) { t.skip(noFirefox); return; }
  const s = await open();
  await s.goto('about:blank');
  const before = s.refused.length;
  // .invalid never resolves; the requests are failed before any lookup anyway.
  const fetched = await s.evaluate(`fetch('http://hloscope.invalid/probe').then(() => 'fetched', (e) => 'failed: ' + e.message)`);
  const img = await s.evaluate(`new Promise((ok) => { const i = new Image(); i.onload = () => ok('loaded'); i.onerror = () => ok('error'); i.src = 'https://hloscope.invalid/probe.png'; })`);
  assert.match(fetched, /^failed/);
  assert.equal(img, 'error');
  assert.deepEqual(s.refused.slice(before), ['http://hloscope.invalid/probe', 'https://hloscope.invalid/probe.png']);
  assert.ok(s.requests.includes('http://hloscope.invalid/probe'));
  // in-page data is let through
  assert.equal(await s.evaluate(`fetch('data:text/plain,in-page').then((r) => r.text())`), 'in-page');
  assert.equal(s.refused.length, before + 2);
});
