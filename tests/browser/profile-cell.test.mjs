// The notebook's profile cell in Chromium: a jax.profiler log folder dropped (picked) on it
// shows the timeline of the newest run and says which; a click on an op shows its line from a
// dump cell of the same module; a garbled profile gives a clear message and the cell stays; a
// truncated one shows what was read with a warning. The profiles are our own captures
// (fixtures/cpu-jax-0.4.38); the line expected is the dump's own text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, serveDist, skipWithoutChromium, repoRoot, waitForNotebook, addCell, cell, pasteInto, waitForDump, setDumpName } from './harness.mjs';

const cap = join(repoRoot, 'fixtures/cpu-jax-0.4.38');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || (!existsSync(join(cap, 'softmax/profile.xplane.pb')) && 'the captures are missing') || false;

let server;
let chrome;
let tmp;

before(async () => {
  if (skip) return;
  server = await serveDist();
  chrome = await launch();
  tmp = mkdtempSync(join(tmpdir(), 'hs-profile-'));
});
after(async () => {
  await chrome?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function timelineShown(page, id) {
  await page.waitForFunction((sel) => {
    const v = document.querySelector(`${sel} xla-timeline`);
    return v && !v.hidden && v.shadowRoot.querySelectorAll('tr.op').length > 0;
  }, cell(id), { timeout: 60000 }).catch(async () => {
    assert.fail(`no timeline; the cell says: ${await page.textContent(cell(id)).catch(() => '?')}`);
  });
}

test('a dropped log folder shows the newest run\'s timeline; a click shows the HLO line of the dump cell', { skip }, async () => {
  // logs/plugins/profile/<run>/host.xplane.pb: an older run (exp) and the newest (softmax)
  const logs = join(tmp, 'logs');
  for (const [run, id] of [['2024_01_01_10_00_00', 'exp'], ['2024_01_02_09_30_00', 'softmax']]) {
    mkdirSync(join(logs, 'plugins/profile', run), { recursive: true });
    copyFileSync(join(cap, id, 'profile.xplane.pb'), join(logs, 'plugins/profile', run, 'host.xplane.pb'));
  }
  writeFileSync(join(logs, 'events.out.tfevents.0'), 'not a profile');
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const dumpText = readFileSync(join(cap, 'softmax/after_optimizations.txt'), 'utf8');
    const d = await addCell(page, 'dump');
    await setDumpName(page, d, 'soft');
    await pasteInto(page, d, dumpText);
    await waitForDump(page, d);
    const prof = await addCell(page, 'profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-folder]`, logs);
    await timelineShown(page, prof);
    assert.match(await page.textContent(`${cell(prof)} [data-testid=profile-note]`), /2024_01_02_09_30_00/);
    assert.match(await page.textContent(`${cell(prof)} [data-testid=profile-note]`), /newest of 2 runs/);
    const sel = `${cell(prof)} xla-timeline`;
    const ops = await page.locator(`${sel} tr.op`).evaluateAll((rs) => rs.map((r) => r.dataset.op));
    const reading = await page.locator(`${sel} .reading`).textContent();
    assert.match(reading, /^jit_softmax ran 5 times/);
    await page.locator(`${sel} tr.op[data-op="${ops[0]}"] td.name button`).click();
    const line = await page.locator(`${sel} pre.hlo`).textContent();
    assert.ok(dumpText.split('\n').includes(line), `not a line of the dump: ${line}`);
    assert.ok(line.includes(`%${ops[0]} = `));
    assert.match(await page.locator(`${sel} tr.detail .status`).first().textContent(), /dump cell soft/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});

// The folder a learner picks may be the run's profile/ folder (what TensorBoard's log folder
// shows under plugins/) or one run's own folder: the cell still finds the runs, shows the newest
// and names it. And with no warning to give, it draws no warning box.
test('a picked profile/ folder or run folder names its run; no empty warning box', { skip }, async () => {
  // the newer run: jax 0.12's softmax, whose profile has run ids (the core warns of nothing);
  // the older: jax 0.4.38's exp (no run ids: the core says how it counted the runs)
  const profile = join(tmp, 'picked', 'profile');
  for (const [run, from] of [['2024_01_01_10_00_00', join(cap, 'exp')], ['2024_01_02_09_30_00', join(repoRoot, 'fixtures/cpu-jax-0.12.0.1/softmax')]]) {
    mkdirSync(join(profile, run), { recursive: true });
    copyFileSync(join(from, 'profile.xplane.pb'), join(profile, run, 'host.xplane.pb'));
  }
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    const box = async () => page.locator(`${cell(prof)} [data-testid=profile-error]`).evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, height: r.height, border: getComputedStyle(e).borderTopWidth };
    });
    assert.deepEqual(await box(), { text: '', height: 0, border: '0px' }, 'nothing to say, no box, before a profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-folder]`, profile);
    await timelineShown(page, prof);
    const note = await page.textContent(`${cell(prof)} [data-testid=profile-note]`);
    assert.match(note, /the newest of 2 runs: 2024_01_02_09_30_00/);
    assert.match(await page.locator(`${cell(prof)} xla-timeline .reading`).textContent(), /^jit_softmax ran 5 times/);
    assert.deepEqual(await box(), { text: '', height: 0, border: '0px' }, 'a profile without warnings draws no warning box');

    await page.setInputFiles(`${cell(prof)} [data-testid=profile-folder]`, join(profile, '2024_01_01_10_00_00'));
    await page.waitForFunction((s) => /\(run 2024_01_01_10_00_00\)/.test(document.querySelector(`${s} [data-testid=profile-note]`)?.textContent || ''), cell(prof), { timeout: 60000 });
    await page.waitForFunction((s) => /^jit_exp/.test(document.querySelector(`${s} xla-timeline`)?.shadowRoot?.querySelector('.reading')?.textContent || ''), cell(prof), { timeout: 60000 });
    const warned = await box();
    assert.match(warned.text, /^warning: 1 program without run ids/);
    assert.ok(warned.height > 0 && warned.border !== '0px', 'a warning is drawn in its box');
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});

test('a garbled profile: a clear message, the cell stays; a truncated one: the timeline of what was read, with a warning', { skip }, async () => {
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, { name: 'broken.xplane.pb', mimeType: 'application/octet-stream', buffer: Buffer.from('this is not a profile at all') });
    await page.waitForFunction((s) => document.querySelector(`${s} [data-testid=profile-error]`)?.textContent, cell(prof), { timeout: 60000 });
    assert.match(await page.textContent(`${cell(prof)} [data-testid=profile-error]`), /^broken\.xplane\.pb: not a profile hloscope can read.*\[HS_E_FORMAT\]/);
    assert.ok(await page.isVisible(cell(prof)), 'the cell stays');
    const whole = readFileSync(join(cap, 'attention/profile.xplane.pb'));
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, { name: 'cut.xplane.pb', mimeType: 'application/octet-stream', buffer: whole.subarray(0, Math.floor(whole.length * 0.9)) });
    await page.waitForFunction((s) => /warning/.test(document.querySelector(`${s} [data-testid=profile-error]`)?.textContent || ''), cell(prof), { timeout: 60000 });
    assert.match(await page.textContent(`${cell(prof)} [data-testid=profile-error]`), /warning: .*truncated/);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

// Dropping, not picking: the cell's drop handler reads the DataTransfer's items and walks
// folders through webkitGetAsEntry. Chromium lets a page build a DataTransfer of files but not
// of a folder (a synthetic item has no FileSystemEntry), so the folder is given as entries
// that keep that API's contract (isFile/isDirectory, file(), createReader().readEntries() in
// batches until an empty one) over real File objects of our captures. A plain file drop goes
// through a real DataTransfer (no entries: its files).
test('a dropped profile folder (drag and drop, DataTransfer) shows the newest run\'s timeline; a dropped file too', { skip }, async () => {
  const b64 = (id) => readFileSync(join(cap, id, 'profile.xplane.pb')).toString('base64');
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    await page.evaluate(({ sel, exp, softmax }) => {
      const file = (name, data) => new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name);
      const fileEntry = (name, data) => ({ isFile: true, isDirectory: false, name, file: (ok) => setTimeout(() => ok(file(name, data))) });
      const dirEntry = (name, children) => ({
        isFile: false, isDirectory: true, name,
        createReader() { let given = false; return { readEntries(ok) { setTimeout(() => { ok(given ? [] : children); given = true; }); } }; },
      });
      const logs = dirEntry('logs', [
        dirEntry('plugins', [dirEntry('profile', [
          dirEntry('2024_01_01_10_00_00', [fileEntry('host.xplane.pb', exp)]),
          dirEntry('2024_01_02_09_30_00', [fileEntry('host.xplane.pb', softmax)]),
        ])]),
        fileEntry('events.out.tfevents.0', btoa('not a profile')),
      ]);
      const dt = { types: ['Files'], files: [], items: [{ kind: 'file', webkitGetAsEntry: () => logs }] };
      const target = document.querySelector(sel);
      for (const type of ['dragover', 'drop']) {
        const ev = new Event(type, { bubbles: true, cancelable: true });
        Object.defineProperty(ev, 'dataTransfer', { value: dt });
        target.dispatchEvent(ev);
      }
    }, { sel: cell(prof), exp: b64('exp'), softmax: b64('softmax') });
    await timelineShown(page, prof);
    const note = await page.textContent(`${cell(prof)} [data-testid=profile-note]`);
    assert.match(note, /logs\/plugins\/profile\/2024_01_02_09_30_00\/host\.xplane\.pb/);
    assert.match(note, /newest of 2 runs/);
    assert.match(await page.locator(`${cell(prof)} xla-timeline .reading`).textContent(), /^jit_softmax ran 5 times/);

    // one file in a real DataTransfer
    await page.evaluate(({ sel, exp }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(exp), (c) => c.charCodeAt(0))], 'exp.xplane.pb'));
      const target = document.querySelector(sel);
      target.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
      target.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
    }, { sel: cell(prof), exp: b64('exp') });
    await page.waitForFunction((s) => /^read exp\.xplane\.pb/.test(document.querySelector(`${s} [data-testid=profile-note]`)?.textContent || ''), cell(prof), { timeout: 60000 });
    await page.waitForFunction((s) => /^jit_exp/.test(document.querySelector(`${s} xla-timeline`)?.shadowRoot?.querySelector('.reading')?.textContent || ''), cell(prof), { timeout: 60000 });
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});

test('a big profile shows progress from inside the parse, and Cancel ends its worker; the cell then reads another', { skip }, async () => {
  // an XSpace repeated is an XSpace (its planes repeated): 40 copies of our largest capture,
  // about 40 MB, a parse of seconds in the worker
  const one = readFileSync(join(cap, 'transformer_step/profile.xplane.pb'));
  const big = join(tmp, 'big.xplane.pb');
  writeFileSync(big, Buffer.concat(Array.from({ length: 40 }, () => one)));
  const p = await openPage(chrome.browser, `${server.url}index.html`, {
    initScript: () => {
      window.__ended = 0;
      const end = Worker.prototype.terminate;
      Worker.prototype.terminate = function () { window.__ended++; return end.call(this); };
    },
  });
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, big);
    // the stage words follow the core's parse (its own progress, not the file read)
    await page.waitForFunction((sel) => /^(scanning the file|reading events)… \d+%/.test(document.querySelector(`${sel} [data-testid=profile-stage]`)?.textContent || ''), cell(prof), { timeout: 60000, polling: 20 });
    assert.equal(await page.isVisible(`${cell(prof)} [data-action=profile-cancel]`), true);
    const ended = await page.evaluate(() => window.__ended);
    await page.click(`${cell(prof)} [data-action=profile-cancel]`);
    await page.waitForFunction((sel) => /cancelled/.test(document.querySelector(`${sel} [data-testid=profile-note]`)?.textContent || ''), cell(prof), { timeout: 10000 });
    assert.equal(await page.evaluate(() => window.__ended), ended + 1, 'the profile\'s worker was ended');
    assert.equal(await page.textContent(`${cell(prof)} [data-testid=profile-error]`), '');
    assert.equal(await page.isVisible(`${cell(prof)} [data-testid=profile-progress]`), false);
    assert.equal(await page.isVisible(`${cell(prof)} [data-action=profile-cancel]`), false);
    // the cell reads the next profile as if nothing happened
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, join(cap, 'softmax/profile.xplane.pb'));
    await timelineShown(page, prof);
    assert.doesNotMatch(await page.textContent(`${cell(prof)} [data-testid=profile-note]`), /cancelled/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});
