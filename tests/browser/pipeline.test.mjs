// <xla-pipeline> and GYM·12 (<xla-drill skill="pass">) on a course page (tests/browser/pages/
// pipeline.html, one script tag): a real dump folder picked as a folder and its .tar.gz dropped
// both show the stepper; arrow keys step; bad input says what is wrong; the drill's answers are
// the comparison of the two dumps (checked against the native CLI's --compare) and it keeps a
// streak like the other drills; a 5,000-file folder is read in under 2 s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, repoRoot, distDir, skipWithoutChromium, shared, serveDist, waitForNotebook, addCell, cell, waitSaved } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { readBigFolder } from '../../bench/pipeline_folder.mjs';

const folder = join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/passes');
const targz = join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/attention/dump.tar.gz');
const cli = join(repoRoot, 'build/native/hloscope');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;

let server;
let chrome;

before(async () => {
  if (skip) return;
  if (process.env.HLOSCOPE_REBUILD === '1' || !existsSync(join(distDir, 'hloscope-drills.js'))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

const pageUrl = () => `${server.url}tests/browser/pages/pipeline.html`;

async function open() {
  const p = await openPage(chrome.browser, pageUrl());
  await p.page.waitForFunction(() => customElements.get('xla-pipeline') && customElements.get('xla-drill'));
  return p;
}

const stepN = (page) => page.evaluate(() => document.querySelector('#p').step?.n ?? null);

async function dropBytes(page, name, bytes) {
  const dt = await page.evaluateHandle(({ name, b64 }) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    const d = new DataTransfer();
    d.items.add(new File([u8], name));
    return d;
  }, { name, b64: Buffer.from(bytes).toString('base64') });
  await page.locator('#p [data-testid="drop-a"]').dispatchEvent('drop', { dataTransfer: dt });
}

test('a dump folder picked as a folder shows the stepper; arrow keys step', { skip }, async () => {
  const { page, errors, external, close } = await open();
  try {
    await page.locator('#p [data-testid="pick-folder-a"]').setInputFiles(folder);
    await page.locator('#p [data-testid="stepper"]').waitFor();
    const nSteps = readFileSync(join(folder, 'FILES.txt'), 'utf8').split('\n').filter((n) => /\.\d{4}\.[^.]+\.after_/.test(n)).length;
    const info = await page.evaluate(() => { const m = document.querySelector('#p').data.modules[0]; return { steps: m.steps.length, counts: m.steps.every((s) => s.counts), ws: m.watershed }; });
    assert.equal(info.steps, nSteps);
    assert.ok(info.counts, 'a folder gives per-step counts');
    assert.equal(await stepN(page), 0);
    await page.locator('#p [data-testid="stepper"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await stepN(page), 2);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await stepN(page), 1);
    await page.keyboard.press('End');
    assert.equal(await stepN(page), info.steps - 1);
    assert.match(await page.locator('#p [data-testid="step-card"]').textContent(), /just finished/);
    // the watershed step is tagged
    await page.evaluate((ws) => { const el = document.querySelector('#p'); el.go(el.data.modules[0].steps.findIndex((s) => s.n === ws)); }, info.ws);
    await page.locator('#p [data-testid="watershed-tag"]').waitFor();
    assert.ok(await page.locator('#p [data-testid="chart"]').count());
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});

test('the folder\'s files dropped together show the stepper', { skip }, async () => {
  const { page, errors, close } = await open();
  try {
    const names = readFileSync(join(folder, 'FILES.txt'), 'utf8').split('\n').filter(Boolean);
    const files = names.map((n) => ({ name: n, b64: readFileSync(join(folder, n)).toString('base64') }));
    const dt = await page.evaluateHandle((files) => {
      const d = new DataTransfer();
      for (const f of files) d.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
      return d;
    }, files);
    await page.locator('#p [data-testid="drop-a"]').dispatchEvent('drop', { dataTransfer: dt });
    await page.locator('#p [data-testid="stepper"]').waitFor();
    const n = await page.evaluate(() => document.querySelector('#p').data.modules[0].steps.filter((s) => s.counts).length);
    assert.equal(n, names.filter((x) => /\.\d{4}\.[^.]+\.after_/.test(x)).length);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('its .tar.gz dropped shows the stepper; compare with a pasted listing', { skip }, async () => {
  const { page, errors, close } = await open();
  try {
    await dropBytes(page, 'dump.tar.gz', readFileSync(targz));
    await page.locator('#p [data-testid="stepper"]').waitFor();
    const oracle = JSON.parse(readFileSync(join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/attention/oracle.json'), 'utf8')).files;
    const steps = await page.evaluate(() => document.querySelector('#p').data.modules[0].steps);
    for (const s of steps) assert.equal(s.counts.instructions, oracle[s.file].instructions, s.file);
    const gpu = shared('captures/pass-names/gpu_shawnwang18_xla_vit_pjit_train_step.txt');
    if (gpu) {
      await page.locator('#p [data-testid="drop-b"] button', { hasText: 'Paste a listing' }).click();
      await page.locator('#p [data-testid="listing-b"]').fill(readFileSync(gpu, 'utf8'));
      await page.locator('#p [data-testid="read-listing-b"]').click();
      await page.locator('#p [data-testid="pipeline-compare"] table').waitFor();
      const c = await page.evaluate(() => document.querySelector('#p').compareData);
      assert.equal(c.passes.find((p) => p.pass === 'layout-assignment').origin, 'both');
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('bad input: empty folder, no XLA files, junk listing, corrupt archive', { skip }, async () => {
  const { page, close } = await open();
  const status = () => page.locator('#p [data-testid="pipeline-status"]').textContent();
  const waitStatus = (re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#p').shadowRoot.querySelector('[data-testid="pipeline-status"]').textContent), re.source);
  try {
    await page.evaluate(() => document.querySelector('#p').load([]));
    await waitStatus(/HS_E_EMPTY/);
    await page.evaluate(() => document.querySelector('#p').load([{ name: 'notes.md', file: new File(['hi'], 'notes.md') }]));
    await waitStatus(/HS_E_FORMAT: none of the 1 names/);
    await page.evaluate(() => document.querySelector('#p').load('$ ls\nhello world\n'));
    await waitStatus(/HS_E_FORMAT/);
    await dropBytes(page, 'cut.tar.gz', readFileSync(targz).subarray(0, 3000));
    await waitStatus(/corrupt gzip/);
    await dropBytes(page, 'cut.zip', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200)]));
    await waitStatus(/corrupt zip/);
    // a listing with junk lines reads the good names and lists the junk
    await page.evaluate(() => document.querySelector('#p').load('junk line\nmodule_0001.jit_f.0000.simplification.after_pipeline-start.before_algsimp.txt\n'));
    await page.locator('#p [data-testid="pipeline-warnings"]').waitFor();
    assert.match(await page.locator('#p [data-testid="pipeline-warnings"]').textContent(), /line 1: junk/);
    assert.doesNotMatch(await status(), /HS_E/);
  } finally {
    await close();
  }
});

test('GYM·12: answers from the comparison, a streak shared like the other drills', { skip: skip || (!existsSync(cli) && 'native CLI not built') }, async () => {
  const gpu = shared('captures/pass-names/gpu_shawnwang18_xla_vit_pjit_train_step.txt');
  const b = gpu || join(repoRoot, 'fixtures/passes/cpu-jax-0.12.0.1/attention/FILES.txt');
  const cmp = JSON.parse(execFileSync(cli, ['passes', '--compare', '--json', join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/attention/FILES.txt'), b], { encoding: 'utf8' }));
  const truth = Object.fromEntries(cmp.passes.map((p) => [p.pass, p.origin]));
  const { page, errors, close } = await open();
  const ready = (sel) => page.waitForFunction((s) => {
    const c = document.querySelector(s)?.shadowRoot?.querySelector('.choice');
    return c && c.getAttribute('aria-disabled') === 'false';
  }, sel, { timeout: 15000 });
  const streak = (sel) => page.locator(`${sel} .streak`).getAttribute('data-current');
  try {
    for (let i = 0; i < 3; i++) {
      await ready('#d1');
      const pass = await page.locator('#d1 .pass-name').textContent();
      assert.ok(pass in truth, `${pass} is a pass of one of the dumps`);
      await page.locator(`#d1 .choice[data-value="${truth[pass]}"]`).click();
      await page.waitForFunction(() => /^right/.test(document.querySelector('#d1').shadowRoot.querySelector('.verdict').textContent));
      await page.locator('#d1 button.next').click();
    }
    assert.equal(await streak('#d1'), '3');
    assert.equal(await streak('#d2'), '3', 'the other drill of the skill shows the same streak');
    await ready('#d2');
    const pass = await page.locator('#d2 .pass-name').textContent();
    const wrong = ['a', 'b', 'both'].find((v) => v !== truth[pass]);
    await page.locator(`#d2 .choice[data-value="${wrong}"]`).click();
    await page.waitForFunction(() => /^not this time/.test(document.querySelector('#d2').shadowRoot.querySelector('.verdict').textContent));
    assert.equal(await streak('#d1'), '0');
    if (gpu) assert.match(await page.locator('#d1').evaluate((e) => e.shadowRoot.textContent), /shawnwang18\/xla/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('GYM·12 on a page\'s own two listings, given by attribute', { skip }, async () => {
  const { page, errors, close } = await open();
  try {
    await page.waitForFunction(() => document.querySelector('#d3')?.shadowRoot?.querySelector('.choice[aria-disabled="false"]'), null, { timeout: 15000 });
    const truth = { alpha: 'a', beta: 'both', gamma: 'b' };
    const pass = await page.locator('#d3 .pass-name').textContent();
    assert.ok(pass in truth, pass);
    assert.match(await page.locator('#d3 .choice[data-value="a"]').textContent(), /dump one/);
    await page.locator(`#d3 .choice[data-value="${truth[pass]}"]`).click();
    await page.waitForFunction(() => /^right/.test(document.querySelector('#d3').shadowRoot.querySelector('.verdict').textContent));
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('notebook: a folder cell shows the stepper for a picked folder, and keeps it across a reload', { skip }, async () => {
  const nb = await serveDist();
  const { page, context, errors, external, close } = await openPage(chrome.browser, nb.url);
  try {
    await waitForNotebook(page);
    const id = await addCell(page, 'folder');
    await page.locator(`${cell(id)} [data-testid="pick-folder-a"]`).setInputFiles(folder);
    await page.locator(`${cell(id)} [data-testid="stepper"]`).waitFor();
    await page.locator(`${cell(id)} [data-testid="stepper"]`).focus();
    await page.keyboard.press('ArrowRight');
    assert.match(await page.locator(`${cell(id)} [data-testid="step-card"]`).textContent(), /0001/);
    await waitSaved(page);
    const again = await openPage(chrome.browser, nb.url, { context });
    await waitForNotebook(again.page);
    await again.page.locator(`${cell(id)} [data-testid="stepper"]`).waitFor();
    assert.deepEqual([...errors, ...again.errors], []);
    assert.deepEqual(external, []);
    await again.close();
  } finally {
    await close();
    await nb.close();
  }
});

test('a 5,000-file folder is read and shown: every file listed, the steps with HLO counted', { skip }, async (t) => {
  const { page, close } = await open();
  try {
    const r = await readBigFolder(page); // its time: bench/pipeline_folder.mjs (npm run bench:browser)
    t.diagnostic(`${r.files} files, ${r.steps} steps in the first module with steps`);
    assert.equal(r.files, 5000);
    assert.equal(r.steps, 1000, 'the 1,000 step files with real HLO, one module');
  } finally {
    await close();
  }
});
