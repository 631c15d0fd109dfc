// Interaction on the notebook page (issue 17, items 7, 8, 9 and 11), in Chromium with real dumps
// (our own captures):
//  7. Tab moves through a dump cell's editor instead of indenting it, unless the user has
//     pressed into the editor; the page says how;
//  8. a code cell shows the value of its last expression; the README's API names are in scope;
//  9. several files dropped on a dump cell each become a dump cell;
// 10. a file too big for one browser string is refused with the limit and why;
// 11. a profile dropped on a dump cell is recognised and sent to where profiles are read;
// 14. memory-space words follow the dump's backend.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addCell, cell, cellIds, launch, openPage, pasteInto, repoRoot, runWithShiftEnter, serveDist, setDumpName,
  skipWithoutChromium, typeInto, waitForDump, waitForNotebook,
} from './harness.mjs';

const FX = join(repoRoot, 'fixtures/cpu-jax-0.4.38');

describe('interaction', { skip: skipWithoutChromium ?? false, timeout: 300000 }, () => {
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
    return p;
  }

  /** Drops files (name -> bytes as base64) on a cell, as the browser does for a drag from the desktop. */
  async function dropFiles(page, id, files) {
    await page.evaluate(({ sel, files }) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
      document.querySelector(sel).dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, { sel: cell(id), files: files.map(([name, bytes]) => ({ name, b64: Buffer.from(bytes).toString('base64') })) });
  }

  test('7: Tab moves through a dump editor; after a click into it, Tab indents', async (t) => {
    const p = await open(t);
    const d = await addCell(p.page, 'dump');
    const text = readFileSync(join(FX, 'exp/after_optimizations.txt'), 'utf8');
    await pasteInto(p.page, d, text);
    await waitForDump(p.page, d);
    await p.page.focus(`${cell(d)} input.name`);
    const inEditor = () => p.page.evaluate((sel) => document.activeElement === document.querySelector(`${sel} .cm-content`), cell(d));
    for (let k = 0; k < 12 && !(await inEditor()); k++) await p.page.keyboard.press('Tab');
    assert.ok(await inEditor(), 'Tab reaches the editor');
    await p.page.keyboard.press('Tab');
    assert.equal(await inEditor(), false, 'the next Tab leaves it');
    const state = await p.page.evaluate(() => window.hloscopeNotebook.state);
    assert.equal(state.cells.find((c) => c.name === 'dump1' || c.text.startsWith('HloModule jit_exp')).text, text, 'the dump is unchanged');
    // Pressed into, the editor takes Tab.
    await p.page.click(`${cell(d)} .cm-line >> nth=2`);
    await p.page.keyboard.press('Tab');
    assert.equal(await inEditor(), true);
    const after = await p.page.evaluate((sel) => document.querySelector(`${sel} .cm-content`).textContent, cell(d));
    assert.notEqual(after.length, text.replace(/\n/g, '').length, 'Tab indented');
    assert.match(await p.page.textContent('footer'), /Tab moves between cells; click into an editor for Tab to indent/);
    assert.deepEqual(p.errors, []);
  });

  test('8: a code cell shows its last expression; parseProfile and registry are in scope', async (t) => {
    const p = await open(t);
    const run = async (code) => {
      const c = await addCell(p.page, 'code');
      await typeInto(p.page, c, code);
      await runWithShiftEnter(p.page, c);
      await p.page.waitForSelector(`${cell(c)} .output pre`);
      return p.page.textContent(`${cell(c)} .output pre`);
    };
    assert.equal(await run('const a = 20\na + 22'), '42');
    assert.equal(await run('[typeof parseProfile, typeof registry, typeof detectFormat].join(" ")'), 'function function function');
    assert.equal(await run('detectFormat(hlo.text)'), 'hlo');
    const bytes = readFileSync(join(FX, 'exp/profile.xplane.pb')).toString('base64');
    const out = await run(`const b = Uint8Array.from(atob("${bytes}"), (c) => c.charCodeAt(0));\nconst prof = parseProfile(b);\nconst s = prof.summary();\nprof.free();\ntypeof s`);
    assert.equal(out, 'object');
    assert.deepEqual(p.errors, []);
  });

  test('9: several files dropped on a dump cell each become a dump cell', async (t) => {
    const p = await open(t);
    const d = await addCell(p.page, 'dump');
    const names = ['softmax', 'layernorm'];
    const files = names.map((id) => [`${id}.after_optimizations.txt`, readFileSync(join(FX, id, 'after_optimizations.txt'))]);
    await dropFiles(p.page, d, files);
    const ids = await cellIds(p.page);
    const at = ids.indexOf(d);
    const second = ids[at + 1];
    assert.match(await waitForDump(p.page, d), /^optimized HLO/);
    assert.match(await waitForDump(p.page, second), /^optimized HLO/);
    assert.equal(await p.page.inputValue(`${cell(d)} input.name`), 'softmax_after_optimizations');
    assert.equal(await p.page.inputValue(`${cell(second)} input.name`), 'layernorm_after_optimizations');
    const state = await p.page.evaluate(() => window.hloscopeNotebook.state);
    assert.equal(state.cells[at].text, files[0][1].toString('utf8'));
    assert.equal(state.cells[at + 1].text, files[1][1].toString('utf8'));
    assert.deepEqual(p.errors, []);
  });

  test('14: memory-space words follow the backend the dump was compiled for', async (t) => {
    const p = await open(t);
    // The example notebook: our CPU capture (jax 0.4.38 on CPU, MANIFEST.json), x-rayed at once.
    const manifest = JSON.parse(readFileSync(join(FX, 'naive_attention/MANIFEST.json'), 'utf8'));
    assert.match(JSON.stringify(manifest), /cpu/i);
    const ids = await cellIds(p.page);
    const kinds = await p.page.$$eval('.cells > .cell', (els) => els.map((e) => e.dataset.kind));
    const x = `${cell(ids[kinds.indexOf('code')])} xla-xray`;
    await p.page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('.row'), x);
    const gutter = await p.page.$eval(x, (el) => [...el.shadowRoot.querySelectorAll('.col.right .row .ms')].map((m) => m.textContent).filter(Boolean));
    assert.ok(gutter.length > 0 && gutter.every((g) => g === 'RAM'), `CPU values sit in RAM: ${[...new Set(gutter)]}`);
    const big = await p.page.$eval(x, (el) => el.shadowRoot.querySelector('.big').textContent);
    assert.match(big, /RAM on the CPU/);
    assert.doesNotMatch(big, /HBM/);
    assert.deepEqual(p.errors, []);
  });

  test('10: a file past the core\'s memory is refused with the limit and why', async (t) => {
    const p = await open(t);
    const d = await addCell(p.page, 'dump');
    const same = await p.page.evaluate((sel) => {
      // A 5 GB file, without making one: the page reads `size` first and refuses it (past the
      // string limit, up to 3 GB, files are read as bytes: tests/browser/big-bytes.test.mjs).
      const f = new File(['HloModule m'], 'huge.after_optimizations.txt');
      Object.defineProperty(f, 'size', { value: 5 * 2 ** 30 });
      const dt = new DataTransfer();
      dt.items.add(f);
      const same = dt.files[0] === f;
      document.querySelector(sel).dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      return same;
    }, cell(d));
    if (!same) { t.skip('this Chromium copies dropped File objects: the size cannot be faked'); return; }
    await p.page.waitForSelector(`${cell(d)} [data-testid=too-large]`);
    assert.match(await p.page.textContent(`${cell(d)} [data-testid=too-large]`),
      /^huge\.after_optimizations\.txt: this file is 5\.00 GiB: the page's core \(WebAssembly\) has 4 GiB of memory/);
    assert.deepEqual(p.errors, []);
  });

  test('11: a profile dropped on a dump cell is named a profile and the cell keeps its text', async (t) => {
    const p = await open(t);
    const d = await addCell(p.page, 'dump');
    await setDumpName(p.page, d, 'mine');
    const text = readFileSync(join(FX, 'exp/after_optimizations.txt'), 'utf8');
    await pasteInto(p.page, d, text);
    await waitForDump(p.page, d);
    await dropFiles(p.page, d, [['profile.xplane.pb', readFileSync(join(FX, 'exp/profile.xplane.pb'))]]);
    await p.page.waitForSelector(`${cell(d)} [data-testid=profile-note]`);
    assert.match(await p.page.textContent(`${cell(d)} [data-testid=profile-note]`),
      /^profile\.xplane\.pb is a profile \(an XSpace protobuf\), not a dump: profiles are read by parseProfile\(bytes\)/);
    const state = await p.page.evaluate(() => window.hloscopeNotebook.state);
    assert.equal(state.cells.find((c) => c.name === 'mine').text, text);
    assert.deepEqual(p.errors, []);
  });
});
