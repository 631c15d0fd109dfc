// Streak rules in real Chromium (tests/browser/pages/streaks.html: two instances of a probe
// drill kind and a path, loaded through the one embed script dist/hloscope-drills.js).
// No wasm needed: the probe kind scores "right" and "wrong" buttons directly.
//
//   right adds one, wrong resets current to 0 and keeps best
//   two instances on one page show one record; the path ticks at its goal and keeps the tick
//   when a wrong answer resets the streak (best, not current), the current streak beside it
//   two pages: the record is there after navigating to another page of the site
//   two tabs: the other tab updates live (storage event), without a reload
//   corrupt and foreign stored values: repaired, no error, the page works
//   localStorage unavailable: a visible note, streaks still count in memory
//   export and import of progress (JSON), and a bad import changes nothing
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, repoRoot, distDir, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';

const KEY = 'hloscope.streak.v1.probe';
const skip = skipWithoutChromium || false;
let server;
let chrome;
let url;

before(async () => {
  if (skip) return;
  if (!existsSync(join(distDir, 'hloscope-drills.js'))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  // The repository root is served so that the test page can name ../../../dist/hloscope-drills.js.
  server = await startServer({ root: repoRoot, port: 0 });
  url = `${server.url}tests/browser/pages/streaks.html`;
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

const streakOf = (page, id) => page.locator(`#${id} .streak`).getAttribute('data-current');
const bestOf = (page, id) => page.locator(`#${id} .streak`).getAttribute('data-best');

async function ready(page) {
  await page.locator('#p1 button.right').waitFor();
  await page.locator('#p2 button.right').waitFor();
}

async function expectStreak(page, n, ids = ['p1', 'p2']) {
  for (const id of ids) {
    await page.waitForFunction(([sel, want]) => {
      const el = document.querySelector(sel)?.shadowRoot?.querySelector('.streak');
      return el && el.dataset.current === String(want);
    }, [`#${id}`, n], { timeout: 5000 }).catch(async () => {
      assert.fail(`#${id} shows streak ${await streakOf(page, id)}, expected ${n}`);
    });
  }
}

async function ticked(page) {
  return page.locator('#path .item[data-done="true"]').evaluateAll((els) => els.map((e) => e.dataset.item));
}

const progressOf = (page, item) => page.locator(`#path .item[data-item="${item}"] .progress`).textContent();

test('right adds one, wrong resets to 0 and keeps best; both instances and the path follow', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, url);
  try {
    await ready(page);
    await expectStreak(page, 0);
    assert.match(await page.locator('#path .summary').textContent(), /the probe path · 0\/2/);
    await page.locator('#p1 button.right').click();
    await expectStreak(page, 1);
    await page.locator('#p2 button.right').click();
    await expectStreak(page, 2);
    assert.deepEqual(await ticked(page), ['probe-2']);
    assert.match(await page.locator('#path .summary').textContent(), /· 1\/2/);
    for (let i = 0; i < 3; i++) await page.locator('#p1 button.right').click();
    await expectStreak(page, 5);
    assert.deepEqual(await ticked(page), ['probe-2', 'probe-5']);
    // The verdict is announced in a live region.
    const live = page.locator('#p1 .verdict');
    assert.equal(await live.getAttribute('aria-live'), 'polite');
    await page.waitForFunction(() => /right: streak 5/.test(document.querySelector('#p1').shadowRoot.querySelector('.verdict').textContent));
    await page.locator('#p2 button.wrong').click();
    await expectStreak(page, 0);
    assert.equal(await bestOf(page, 'p1'), '5');
    // The goals were reached: the ticks stay, the current streak shows beside them.
    assert.deepEqual(await ticked(page), ['probe-2', 'probe-5']);
    assert.match(await page.locator('#path .summary').textContent(), /· 2\/2/);
    assert.equal(await progressOf(page, 'probe-5'), 'reached 5 · streak now 0');
    await page.locator('#p1 button.right').click();
    await expectStreak(page, 1);
    assert.equal(await progressOf(page, 'probe-2'), 'reached 2 · streak now 1');
    assert.equal(await page.locator('#path .item[data-item="probe-2"]').getAttribute('data-current'), '1');
    await page.locator('#p1 button.wrong').click();
    await expectStreak(page, 0);
    await page.waitForFunction(() => /streak back to 0 \(best 5\)/.test(document.querySelector('#p2').shadowRoot.querySelector('.verdict').textContent));
    const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
    assert.equal(stored.v, 1);
    assert.equal(stored.current, 0);
    assert.equal(stored.best, 5);
    assert.ok(!Number.isNaN(Date.parse(stored.updated)));
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});

test('keyboard only: Tab reaches the buttons, Enter and Space answer', { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, url);
  try {
    await ready(page);
    await page.locator('#p1 button.right').focus();
    await page.keyboard.press('Enter');
    await expectStreak(page, 1);
    await page.keyboard.press('Tab'); // to "answer wrong" of the same drill
    const focused = await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent);
    assert.equal(focused, 'answer wrong');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    await expectStreak(page, 2);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('two pages: the record follows the learner to another page of the site', { skip }, async () => {
  const { page, context, errors, close } = await openPage(chrome.browser, url);
  try {
    await ready(page);
    for (let i = 0; i < 3; i++) await page.locator('#p1 button.right').click();
    await expectStreak(page, 3);
    await page.goto('about:blank');
    await page.goto(url);
    await ready(page);
    await expectStreak(page, 3);
    const second = await context.newPage();
    await second.goto(url);
    await ready(second);
    await expectStreak(second, 3);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('two tabs: a streak changed in one tab shows in the other without a reload', { skip }, async () => {
  const a = await openPage(chrome.browser, url);
  try {
    const b = await a.context.newPage();
    await b.goto(url);
    await ready(a.page);
    await ready(b);
    await a.page.locator('#p1 button.right').click();
    await a.page.locator('#p1 button.right').click();
    await expectStreak(b, 2);
    assert.deepEqual(await ticked(b), ['probe-2']);
    await b.locator('#p2 button.wrong').click();
    await expectStreak(a.page, 0);
    assert.deepEqual(await ticked(a.page), ['probe-2']);
    assert.equal(await progressOf(a.page, 'probe-2'), 'reached 2 · streak now 0');
    assert.equal(await bestOf(a.page, 'p1'), '2');
    assert.deepEqual(a.errors, []);
  } finally {
    await a.close();
  }
});

for (const [name, value, current, best] of [
  ['not JSON', '{"v":1,"current":', 0, 0],
  ['a bare count (older widgets)', '4', 4, 4],
  ['another version', '{"v":7,"current":2,"best":9,"updated":"2026-01-01T00:00:00Z"}', 2, 9],
  ['negative and fractional counts', '{"v":1,"current":-3,"best":2.5,"updated":null}', 0, 0],
  ['an array', '[1,2,3]', 0, 0],
  ['best below current', '{"v":1,"current":6,"best":1,"updated":null}', 6, 6],
]) {
  test(`corrupt storage (${name}) is repaired without an error`, { skip }, async () => {
    const init = `(() => { if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1'); localStorage.setItem(${JSON.stringify(KEY)}, ${JSON.stringify(value)}); } })()`;
    const { page, errors, close } = await openPage(chrome.browser, url, { initScript: init });
    try {
      await ready(page);
      await expectStreak(page, current);
      assert.equal(await bestOf(page, 'p1'), String(best));
      const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
      assert.deepEqual({ v: stored.v, current: stored.current, best: stored.best }, { v: 1, current, best });
      await page.locator('#p1 button.right').click();
      await expectStreak(page, current + 1);
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
}

test('localStorage unavailable: a visible note, and streaks still count for this page', { skip }, async () => {
  const init = `Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new DOMException('denied', 'SecurityError'); } });`;
  const { page, errors, close } = await openPage(chrome.browser, url, { initScript: init });
  try {
    await ready(page);
    const note = page.locator('#p1 .note');
    await note.waitFor({ state: 'visible' });
    assert.match(await note.textContent(), /no local storage/);
    assert.ok(await page.locator('#path .note').isVisible());
    await page.locator('#p1 button.right').click();
    await page.locator('#p2 button.right').click();
    await expectStreak(page, 2);
    assert.deepEqual(await ticked(page), ['probe-2']);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('export and import of progress as JSON', { skip }, async () => {
  const { page, errors, close } = await openPage(chrome.browser, url);
  try {
    await ready(page);
    for (let i = 0; i < 2; i++) await page.locator('#p1 button.right').click();
    await expectStreak(page, 2);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#path button.export').click(),
    ]);
    assert.equal(download.suggestedFilename(), 'hloscope-progress.json');
    const { readFile } = await import('node:fs/promises');
    const exported = JSON.parse(await readFile(await download.path(), 'utf8'));
    assert.equal(exported.format, 'hloscope-streaks');
    assert.equal(exported.v, 1);
    assert.deepEqual({ current: exported.streaks.probe.current, best: exported.streaks.probe.best }, { current: 2, best: 2 });

    // Import a file with a longer streak: both instances and the path follow.
    exported.streaks.probe = { v: 1, current: 5, best: 8, updated: '2026-11-01T00:00:00Z' };
    await page.locator('#path input[type=file]').setInputFiles({ name: 'p.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
    await expectStreak(page, 5);
    assert.equal(await bestOf(page, 'p2'), '8');
    assert.deepEqual(await ticked(page), ['probe-2', 'probe-5']);
    await page.waitForFunction(() => /imported probe/.test(document.querySelector('#path').shadowRoot.querySelector('.status').textContent));

    // A file that is not progress changes nothing and says why.
    await page.locator('#path input[type=file]').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
    await page.waitForFunction(() => /not imported/.test(document.querySelector('#path').shadowRoot.querySelector('.status').textContent));
    await expectStreak(page, 5);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
