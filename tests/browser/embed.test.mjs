// A course page embedding the drills with one script tag (tests/browser/pages/embed.html:
// plain HTML, <script src="dist/hloscope-drills.js">, two <xla-drill skill="fusioncount">
// and an <xla-path-progress>). The two drills share one streak, the path follows, the
// answers are XLA's own counts (oracle.json), and the page works served and from file://
// with no request leaving it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countChoice, launch, openPage, repoRoot, distDir, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';

const capDir = join(repoRoot, 'fixtures/cpu-jax-0.4.38');
const pageFile = join(repoRoot, 'tests/browser/pages/embed.html');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs')) && existsSync(join(repoRoot, 'wasm/hloscope.mjs'));
const haveCaptures = ['exp', 'chain', 'softmax', 'layernorm'].every((id) => existsSync(join(capDir, id, 'oracle.json')));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || (!haveCaptures && 'the captures are missing (npm run capture)')
  || false;

let server;
let chrome;

before(async () => {
  if (skip) return;
  if (!existsSync(join(distDir, 'hloscope-drills.js'))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

const answer = (id) => JSON.parse(readFileSync(join(capDir, id, 'oracle.json'), 'utf8')).modules[0].fusion_computations.length;

async function round(page, sel) {
  await page.waitForFunction((s) => {
    const b = document.querySelector(s)?.shadowRoot?.querySelector('.choice');
    return b && b.getAttribute('aria-disabled') === 'false';
  }, sel, { timeout: 15000 });
  return page.locator(`${sel} .program`).getAttribute('data-program');
}

async function answerRight(page, sel) {
  const id = await round(page, sel);
  await (await countChoice(page, sel, answer(id))).click();
  await page.waitForFunction((s) => /^right/.test(document.querySelector(s).shadowRoot.querySelector('.verdict').textContent), sel);
  await page.locator(`${sel} button.next`).click();
}

const current = (page, sel) => page.locator(`${sel} .streak`).getAttribute('data-current');

async function both(page, n) {
  await page.waitForFunction((want) => ['#first', '#second'].every((s) => document.querySelector(s)?.shadowRoot?.querySelector('.streak')?.dataset.current === String(want)), n, { timeout: 5000 })
    .catch(async () => assert.fail(`streaks ${await current(page, '#first')} / ${await current(page, '#second')}, expected ${n}`));
}

test('the page is plain HTML with one script tag', () => {
  const html = readFileSync(pageFile, 'utf8');
  const scripts = html.match(/<script\b[^>]*>/g) || [];
  assert.deepEqual(scripts, ['<script src="../../../dist/hloscope-drills.js">']);
  assert.equal((html.match(/<xla-drill skill="fusioncount"/g) || []).length, 2);
});

test('two drills of one skill share one streak, and the path follows (served)', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/embed.html`);
  try {
    await both(page, 0);
    await answerRight(page, '#first');
    await both(page, 1);
    await answerRight(page, '#second');
    await both(page, 2);
    await answerRight(page, '#first');
    await both(page, 3);
    const ticked = await page.locator('#path .item[data-done="true"]').evaluateAll((els) => els.map((e) => e.dataset.item));
    assert.deepEqual(ticked, ['fusioncount-3']);
    // A wrong answer in the second resets both.
    const id = await round(page, '#second');
    await (await countChoice(page, '#second', answer(id), false)).click();
    await both(page, 0);
    assert.equal(await page.locator('#first .streak').getAttribute('data-best'), '3');
    assert.deepEqual(await page.locator('#path .item[data-done="true"]').evaluateAll((els) => els.map((e) => e.dataset.item)), ['fusioncount-3']);
    // No x-ray drill on this page: the reveal opens the notebook's <xla-xray> in place.
    const id2 = await round(page, '#first');
    await (await countChoice(page, '#first', answer(id2))).click();
    await page.locator('#first details.xray-inline summary').click();
    await page.waitForFunction(() => /lines in -> \d+ lines decided/.test(document.querySelector('#first').shadowRoot.querySelector('xla-xray')?.shadowRoot?.textContent || ''), null, { timeout: 15000 });
    await both(page, 1);
    // The elements the script registers.
    assert.deepEqual(await page.evaluate(() => ['xla-drill', 'xla-xray', 'xla-path-progress'].map((n) => !!customElements.get(n))), [true, true, true]);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});

test('the same page works from file:// (one classic script, nothing fetched)', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, pathToFileURL(pageFile).href);
  try {
    await answerRight(page, '#first');
    await both(page, 1);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});

/** The right answer of an x-ray round, from the core's own x-ray of the pair (the API in Node). */
async function xrayTargets(id) {
  const hs = await import(join(repoRoot, 'wasm/hloscope.mjs'));
  await hs.load();
  const x = hs.xray(readFileSync(join(capDir, id, 'stablehlo.mlir'), 'utf8'), readFileSync(join(capDir, id, 'after_optimizations.txt'), 'utf8'));
  return x.right.filter((l) => l.class === 'fusion' && l.carries).map((l) => l.line);
}

test('the x-ray drill takes the pair a host page names (src-left, src-right), and the learner\'s own pair', { skip }, async () => {
  const targets = await xrayTargets('softmax');
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/xray-src.html`);
  try {
    await page.locator(`#x .lines.right .ln[data-line="${targets[0]}"]`).waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#x select').inputValue(), 'page');
    assert.match(await page.locator('#x .caption').textContent(), /softmax\/stablehlo\.mlir/);
    for (const n of targets) await page.locator(`#x .lines.right .ln[data-line="${n}"]`).click();
    await page.locator('#x button.check').click();
    await page.waitForFunction(() => /^right: streak 1\b/.test(document.querySelector('#x').shadowRoot.querySelector('.verdict').textContent));

    // The learner's own pair (here: layernorm's, pasted).
    const lt = await xrayTargets('layernorm');
    await page.locator('#x details.own summary').click();
    await page.locator('#x details.own textarea').first().fill(readFileSync(join(capDir, 'layernorm', 'stablehlo.mlir'), 'utf8'));
    await page.locator('#x details.own textarea').nth(1).fill(readFileSync(join(capDir, 'layernorm', 'after_optimizations.txt'), 'utf8'));
    await page.locator('#x button.own-go').click();
    // Wait for the new pair's lines (the old pair's stay on screen until the x-ray is ready).
    await page.waitForFunction(() => /jit_layernorm/.test(document.querySelector('#x').shadowRoot.querySelector('.lines.right .ln[data-line="1"]')?.textContent || ''));
    for (const n of lt) await page.locator(`#x .lines.right .ln[data-line="${n}"]`).click();
    await page.locator('#x button.check').click();
    await page.waitForFunction(() => /^right: streak 2\b/.test(document.querySelector('#x').shadowRoot.querySelector('.verdict').textContent));
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally {
    await close();
  }
});
