// Issue 17, item 6: a click on a StableHLO line must not scroll the x-ray's column sideways.
// The cause was a row box as wide as the longest line: a driver's click (Playwright's
// locator.click) aims at the middle of the row's part inside the window, which lay past the
// left column, missed, and retried with scrollIntoView({ inline: 'end' }), so the code
// scrolled out of sight. Rows are now as wide as the column and the text slides inside them.
// Checked with locator.click and page.mouse.click, keyboard moves and focus, on the attention
// fixture (lines of 171 characters) and the shared TPU capture in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openPage, repoRoot, shared, sharedAbsent, ensureBuilt, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';

const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;

let server;
let chrome;
before(async () => {
  if (skip) return;
  ensureBuilt();
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  await server?.close();
});

const pairs = [
  ['fixture cpu attention', join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/stablehlo.mlir'),
    join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt')],
  ['shared TPU v6e naive attention', shared('captures/tpu-v6e/jit_naive_attention.stablehlo.mlir'),
    shared('captures/tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt')],
];

for (const [name, left, right] of pairs) {
  test(`x-ray columns keep their sideways position: ${name}`, { skip: skip || (!left && sharedAbsent('tpu-v6e')) }, async () => {
    const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/xray-wide.html`);
    try {
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.waitForFunction(() => customElements.get('xla-xray'));
      await page.evaluate(([l, r]) => { const x = document.querySelector('#x'); x.left = l; x.right = r; },
        [readFileSync(left, 'utf8'), readFileSync(right, 'utf8')]);
      await page.waitForFunction(() => document.querySelector('#x').shadowRoot.querySelectorAll('.col.left .row').length > 5, null, { timeout: 30000 });
      const pos = () => page.evaluate(() => {
        const x = document.querySelector('#x');
        return Object.fromEntries(['left', 'right'].map((s) => {
          const sc = x.scroller(s);
          const bar = x.shadowRoot.querySelector(`.col.${s} .hbar`);
          return [s, { scrollLeft: sc.scrollLeft, sideways: bar.scrollLeft, longer: bar.scrollWidth > bar.clientWidth }];
        }));
      });
      const p0 = await pos();
      assert.ok(p0.left.longer, 'the StableHLO has lines longer than its column (else the check proves nothing)');
      const rows = (side) => page.locator(`#x >> .col.${side} .row`);
      for (const side of ['left', 'right']) {
        for (const k of [2, 5, 9]) {
          await rows(side).nth(k).click({ timeout: 5000 });
          assert.deepEqual(await pos(), p0, `locator.click on ${side} row ${k} keeps both columns where they were`);
        }
        const box = await page.locator(`#x >> .col.${side} .scroller`).boundingBox();
        for (const dx of [40, 200, box.width - 30]) {
          await page.mouse.click(box.x + dx, box.y + 70);
          assert.deepEqual(await pos(), p0, `a mouse click ${dx} px into the ${side} column keeps it in place`);
        }
        await page.locator(`#x >> .col.${side} .scroller`).focus();
        for (const key of ['ArrowDown', 'ArrowDown', 'End', 'Home', 'PageDown', 'Enter']) await page.keyboard.press(key);
        assert.deepEqual(await pos(), p0, `focus and keyboard moves in the ${side} column keep it in place`);
      }
      // The text of a clicked line still starts where the column shows it.
      const shown = await page.evaluate(() => {
        const x = document.querySelector('#x');
        const sc = x.scroller('left').getBoundingClientRect();
        const tx = x.shadowRoot.querySelector('.col.left .row .tx').getBoundingClientRect();
        return tx.left >= sc.left && tx.left < sc.left + sc.width / 2;
      });
      assert.ok(shown, 'the left column still shows the start of its lines');
      // The user can still scroll sideways: the arrow keys and a sideways wheel move the text.
      await page.locator('#x >> .col.left .scroller').focus();
      await page.keyboard.press('ArrowRight');
      const p1 = await pos();
      assert.ok(p1.left.sideways > 0 && p1.left.scrollLeft === 0, `ArrowRight scrolls the text sideways (${p1.left.sideways} px)`);
      const box = await page.locator('#x >> .col.left .scroller').boundingBox();
      await page.mouse.move(box.x + 300, box.y + 100);
      await page.mouse.wheel(120, 0);
      await page.waitForFunction((was) => document.querySelector('#x').shadowRoot.querySelector('.col.left .hbar').scrollLeft > was, p1.left.sideways);
      const sx = await page.evaluate(() => new DOMMatrix(getComputedStyle(document.querySelector('#x').shadowRoot.querySelector('.col.left .tx')).transform).m41);
      const bar = (await pos()).left.sideways;
      assert.equal(sx, -bar, 'the text moves with the sideways bar');
      assert.deepEqual(errors, []);
    } finally {
      await close();
    }
  });
}

// Issue 34, item 6: new jax dumps start with about 40 lines of FileNames / FunctionNames /
// StackFrames tables. The x-ray dims them and opens on the first computation (the core's
// summary.open_at); a dump without tables still opens on line 1.
test('an x-ray of a dump with frame tables opens on its first computation, the tables dimmed above it', { skip }, async () => {
  const dir = join(repoRoot, 'fixtures/cpu-jax-0.12.0.1/softmax');
  const hlo = readFileSync(join(dir, 'after_optimizations.txt'), 'utf8');
  const lines = hlo.split('\n');
  const first = lines.findIndex((l) => /^(ENTRY )?%\S+ \(.*\) -> .* \{$/.test(l)) + 1; // the first computation header, as written
  assert.ok(lines.slice(0, first).some((l) => l === 'StackFrames') && first > 10, `frame tables above line ${first}`);
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/xray-wide.html`);
  try {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.waitForFunction(() => customElements.get('xla-xray'));
    const topRow = (side) => page.evaluate((s) => {
      const x = document.querySelector('#x');
      const top = x.scroller(s).getBoundingClientRect().top;
      const rows = [...x.shadowRoot.querySelectorAll(`.col.${s} .row`)].filter((r) => r.getBoundingClientRect().bottom > top + 1);
      rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
      return Number(rows[0]?.dataset.line);
    }, side);
    await page.evaluate(([l, r]) => { const x = document.querySelector('#x'); x.left = l; x.right = r; }, [readFileSync(join(dir, 'stablehlo.mlir'), 'utf8'), hlo]);
    await page.waitForFunction(() => document.querySelector('#x').shadowRoot.querySelectorAll('.col.right .row').length > 5, null, { timeout: 30000 });
    assert.equal(await topRow('right'), first, 'the HLO column opens on its first computation');
    assert.equal(await topRow('left'), 1, 'the StableHLO (no tables) opens on line 1');
    // scrolled back up, the tables are there, dimmed
    await page.evaluate(() => { document.querySelector('#x').scroller('right').scrollTop = 0; });
    await page.waitForFunction(() => Number([...document.querySelector('#x').shadowRoot.querySelectorAll('.col.right .row')].find((r) => r.dataset.line === '3')?.dataset.line) === 3);
    const tableClasses = await page.evaluate((n) => [...document.querySelector('#x').shadowRoot.querySelectorAll('.col.right .row')]
      .filter((r) => Number(r.dataset.line) > 2 && Number(r.dataset.line) < n).map((r) => r.className.split(' ')[1]), first);
    assert.ok(tableClasses.length > 5 && tableClasses.every((c) => c === 'c-dim'), JSON.stringify(tableClasses));
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
