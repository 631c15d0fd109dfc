// Views own their work (issue 9, the review's bugs 1 and 2), in real Chromium on the served
// notebook:
//  - a standalone <xla-summary> or <xla-fusion-table> given a text analyses it under its own
//    engine key, and forgets it when given another text or removed from the page, so the
//    worker holds no text of a view that is gone;
//  - an error the worker reports arrives as an HloscopeError (instanceof works), with its code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addCell, cell, launch, openPage, repoRoot, runWithShiftEnter, serveDist, skipWithoutChromium, typeInto,
  waitForNotebook } from './harness.mjs';

const HLO = join(repoRoot, 'fixtures/cpu-jax-0.4.38/softmax/after_optimizations.txt');

describe('views own their work', { skip: skipWithoutChromium ?? false, timeout: 120000 }, () => {
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

  async function open(t) {
    const p = await openPage(chrome.browser, server.url);
    t.after(() => p.close());
    await waitForNotebook(p.page);
    assert.equal(await p.page.evaluate(() => window.hloscopeNotebook.analysisInWorker), true, 'analyses run in the worker');
    return p;
  }

  test('a standalone view\'s text is released when the view is given another text or removed', async (t) => {
    const p = await open(t);
    const text = readFileSync(HLO, 'utf8');
    const res = await p.page.evaluate(async (text) => {
      const drawn = (v, sel) => new Promise((ok) => {
        const check = () => (v.shadowRoot.querySelector(sel) ? ok() : requestAnimationFrame(check));
        check();
      });
      const keys = () => window.hloscopeNotebook.engineKeys();
      const s = document.createElement('xla-summary');
      const f = document.createElement('xla-fusion-table');
      document.body.append(s, f);
      s.text = text;
      f.text = text;
      await Promise.all([drawn(s, '.card:not([hidden]) dl'), drawn(f, 'tbody tr')]);
      const first = { s: s.engineKey, f: f.engineKey };
      const held = await keys();
      // A new text replaces the old one in the worker.
      s.text = `${text}\n`;
      await drawn(s, '.card:not([hidden]) dl');
      const second = s.engineKey;
      const afterReplace = await keys();
      s.remove();
      f.remove();
      const afterRemove = await keys();
      return { first, second, held, afterReplace, afterRemove, released: [s.engineKey, f.engineKey] };
    }, text);
    assert.ok(res.first.s && res.first.f, 'each view analyses under its own key');
    assert.ok(res.held.includes(res.first.s) && res.held.includes(res.first.f), 'the worker holds both texts while shown');
    assert.ok(!res.afterReplace.includes(res.first.s), 'a replaced text is forgotten');
    assert.ok(res.afterReplace.includes(res.second), 'the new text is held');
    assert.ok(!res.afterRemove.includes(res.second) && !res.afterRemove.includes(res.first.f),
      `removed views hold nothing in the worker (still held: ${res.afterRemove.join(', ')})`);
    assert.deepEqual(res.released, [null, null]);
    assert.deepEqual(p.errors, []);
  });

  test('an error from the worker is an HloscopeError, in a code cell and on a view', async (t) => {
    const p = await open(t);
    const c = await addCell(p.page, 'code');
    await typeInto(p.page, c, [
      "const x = document.createElement('xla-xray');",
      'show(x);',
      "const e = await new Promise((ok) => { x.addEventListener('xray-error', (ev) => ok(ev.detail.error)); x.left = 'this is not a dump'; x.right = 'HloModule m\\n\\nENTRY %e { ROOT %p = f32[ parameter(0) }'; });",
      "print(String(e instanceof HloscopeError), e.name, e.code, e.side ?? '')",
    ].join('\n'));
    await runWithShiftEnter(p.page, c);
    await p.page.waitForSelector(`${cell(c)} .output pre.out-text`);
    const out = await p.page.textContent(`${cell(c)} .output pre.out-text`);
    assert.match(out, /^true HloscopeError HS_E_\w+/);
    assert.deepEqual(p.errors, []);
  });
});
