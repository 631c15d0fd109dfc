// The gym page (dist/gym.html) in real Chromium, served from 127.0.0.1.
//
// Acceptance: five right answers on GYM·13 show streak 5 on every fusioncount drill (the
// gym's, and both drills of the embedding page open in another tab) and tick the path item
// whose goal is 5; one wrong answer resets it everywhere. The answers the test clicks come
// from outside our code: XLA's own fused computations in each capture's oracle.json. The
// reveal's op lists are checked against the same oracle. The page keeps working offline,
// and no request leaves it.
//
// GYM·07: the round on softmax is scored right exactly for the carrying fusion lines; a
// pair with no big intermediate says there is no round; lines explain themselves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countChoice, ensureBuilt, launch, openPage, repoRoot, shared, sharedDir, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';

const capDir = join(repoRoot, 'fixtures/cpu-jax-0.4.38');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs')) && existsSync(join(repoRoot, 'wasm/hloscope.mjs'));
const haveCaptures = ['exp', 'softmax'].every((id) => existsSync(join(capDir, id, 'oracle.json')));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm), so the drills have no answers to give')
  || (!haveCaptures && 'the captures are missing (npm run capture)')
  || false;

let server;
let chrome;
let gymUrl;
let embedUrl;

before(async () => {
  if (skip) return;
  ensureBuilt();
  // One origin for the gym and the embedding page, so they share localStorage as a course
  // site and its gym would.
  server = await startServer({ root: repoRoot, port: 0 });
  gymUrl = `${server.url}dist/gym.html`;
  embedUrl = `${server.url}tests/browser/pages/embed.html`;
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

const oracle = (id) => JSON.parse(readFileSync(join(capDir, id, 'oracle.json'), 'utf8')).modules[0];

/** XLA's count of fused computations. */
const xlaCount = (id) => oracle(id).fusion_computations.length;

/** XLA's own ops of each fused computation, without parameter and constant, joined as the reveal joins them. */
function oracleBodies(id) {
  const o = oracle(id);
  return o.fusion_computations.map((name) => {
    const c = o.computations.find((x) => x.name === name);
    return c.instructions.map((i) => i.opcode).filter((op) => op !== 'parameter' && op !== 'constant').join(' · ');
  }).sort();
}

/** Waits for a round to be on offer; on timeout, fails with what the drill shows instead. */
async function fcRound(page, sel) {
  try {
    await page.waitForFunction((s) => {
      const root = document.querySelector(s)?.shadowRoot;
      const b = root?.querySelector('.choice');
      return b && b.getAttribute('aria-disabled') === 'false' && root.querySelector('.program[data-program]');
    }, sel, { timeout: 20000 });
  } catch (e) {
    const shown = await page.evaluate((s) => document.querySelector(s)?.shadowRoot?.querySelector('.body')?.innerText ?? '(no drill)', sel).catch(() => '?');
    assert.fail(`${sel}: no round within 20 s; the drill shows: ${shown.slice(0, 400)}`);
  }
  return await page.locator(`${sel} .program`).getAttribute('data-program');
}

async function streakIs(page, sel, n) {
  await page.waitForFunction(([s, want]) => {
    const el = document.querySelector(s)?.shadowRoot?.querySelector('.streak');
    return el && el.dataset.current === String(want);
  }, [sel, n], { timeout: 5000 }).catch(async () => {
    const got = await page.locator(`${sel} .streak`).getAttribute('data-current').catch(() => '?');
    assert.fail(`${sel} shows streak ${got}, expected ${n}`);
  });
}

async function verdict(page, sel, re) {
  await page.waitForFunction(([s, src]) => new RegExp(src).test(document.querySelector(s)?.shadowRoot?.querySelector('.verdict')?.textContent || ''), [sel, re.source], { timeout: 5000 });
}

/** Opens the gym with GYM·13's "drill me on my dump" box unfolded: { gym, page, fc }. */
async function ownDumpBox() {
  const gym = await openPage(chrome.browser, gymUrl);
  const fc = '#gym-13';
  await fcRound(gym.page, fc);
  await gym.page.locator(`${fc} details.own summary`).click();
  return { gym, page: gym.page, fc };
}

async function tickedItems(page, sel) {
  return page.locator(`${sel} .item[data-done="true"]`).evaluateAll((els) => els.map((e) => e.dataset.item));
}

test('five right answers: streak 5 on every fusioncount drill, the goal-5 item ticks; one wrong resets it (served, then offline)', { skip }, async () => {
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page, context } = gym;
    const fc = '#gym-13';
    const embed = await context.newPage();
    await embed.goto(embedUrl);
    await fcRound(embed, '#first');

    // From here on the network is gone: everything the page needs is already in it.
    await context.setOffline(true);

    const seen = new Set();
    for (let k = 1; k <= 5; k++) {
      const id = await fcRound(page, fc);
      seen.add(id);
      const want = xlaCount(id);
      const btn = await countChoice(page, fc, want);
      if (k % 2) await btn.click();
      else { await btn.focus(); await page.keyboard.press('Enter'); }
      await verdict(page, fc, new RegExp(`^right: streak ${k}\\b`));
      await streakIs(page, fc, k);
      // The reveal: why in words, and what each fusion holds, as XLA's own computations hold it.
      const why = await page.locator(`${fc} .why`).textContent();
      assert.match(why, want === 0 ? /no fused computation/ : /holds \d+ fused computation/);
      const bodies = (await page.locator(`${fc} .bodies code`).allTextContents()).sort();
      assert.deepEqual(bodies, oracleBodies(id), `${id}: reveal lists ${JSON.stringify(bodies)}`);
      const link = page.locator(`${fc} a.xray-link`);
      assert.equal(await link.getAttribute('href'), `#xray=${id}`);
      await page.locator(`${fc} button.next`).click();
    }
    await streakIs(page, fc, 5);
    await streakIs(embed, '#first', 5);
    await streakIs(embed, '#second', 5);
    for (const sel of ['xla-path-progress[controls]', 'xla-path-progress[compact]']) {
      const t = await tickedItems(page, sel);
      assert.ok(t.includes('fusioncount-5') && t.includes('fusioncount-3') && !t.includes('fusioncount-10'), `${sel}: ticked ${t}`);
    }
    assert.deepEqual((await tickedItems(embed, '#path')).filter((x) => x.startsWith('fusioncount')), ['fusioncount-3', 'fusioncount-5']);
    const items = JSON.parse(readFileSync(join(repoRoot, 'notebook/path.json'), 'utf8')).chapters.flatMap((c) => c.items).length;
    assert.match(await page.locator('xla-path-progress[compact] .summary').textContent(), new RegExp(`the xla path · 2/${items}$`));

    // One wrong answer: streak 0 everywhere, best kept; the items reached stay ticked, with
    // the current streak beside them.
    const id = await fcRound(page, fc);
    await (await countChoice(page, fc, xlaCount(id), false)).click();
    await verdict(page, fc, /^not this time: streak back to 0 \(best 5\)/);
    await streakIs(page, fc, 0);
    await streakIs(embed, '#first', 0);
    await streakIs(embed, '#second', 0);
    assert.deepEqual((await tickedItems(page, 'xla-path-progress[controls]')).filter((x) => x.startsWith('fusioncount')), ['fusioncount-3', 'fusioncount-5']);
    assert.deepEqual(await tickedItems(embed, '#path'), ['fusioncount-3', 'fusioncount-5']);
    assert.equal(await embed.locator('#path .item[data-item="fusioncount-5"] .progress').textContent(), 'reached 5 · streak now 0');
    assert.equal(await page.locator(`${fc} .streak`).getAttribute('data-best'), '5');

    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('the gym names its drills and their provenance', { skip }, async () => {
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page } = gym;
    assert.equal((await page.locator('#gym-13 .title').textContent()).trim(), 'GYM·13 count the fusions');
    assert.equal((await page.locator('#gym-07 .title').textContent()).trim(), 'GYM·07 the fusion x-ray');
    const m = JSON.parse(readFileSync(join(capDir, 'exp', 'MANIFEST.json'), 'utf8'));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-provenance]')].every((e) => /jax/.test(e.textContent)));
    for (const t of await page.locator('[data-provenance]').allTextContents()) {
      assert.ok(t.includes(`jax ${m.jax}`), t);
      assert.ok(t.includes(m.platform.jax_backend), t);
      assert.match(t, /captured by/);
    }
    await page.waitForFunction(() => /jax/.test(document.querySelector('#gym-13').shadowRoot.querySelector('.caption').textContent));
    assert.deepEqual(gym.errors, []);
  } finally {
    await gym.close();
  }
});

test('GYM·07: softmax is right exactly when the picks are the carrying fusion lines; exp has no round', { skip }, async () => {
  const hs = await import(join(repoRoot, 'wasm/hloscope.mjs'));
  await hs.load();
  const left = readFileSync(join(capDir, 'softmax', 'stablehlo.mlir'), 'utf8');
  const right = readFileSync(join(capDir, 'softmax', 'after_optimizations.txt'), 'utf8');
  const x = hs.xray(left, right);
  const targets = x.right.filter((l) => l.class === 'fusion' && l.carries).map((l) => l.line);
  assert.ok(x.summary.big && targets.length > 0, 'softmax should have a round with fusion carriers');
  // Each target is a fusion instruction line of the dump (read from the text, not from us).
  for (const n of targets) assert.match(right.split('\n')[n - 1], /= \S+ fusion\(/);

  const gym = await openPage(chrome.browser, `${gymUrl}#xray=softmax`);
  try {
    const { page } = gym;
    const xr = '#gym-07';
    await page.waitForFunction(() => document.querySelector('#gym-07')?.shadowRoot?.querySelector('select')?.value === 'capture:softmax');
    await page.locator(`${xr} .lines.right .ln[data-line="${targets[0]}"]`).waitFor();
    assert.match(await page.locator(`${xr} .stat`).textContent(), /carry f32\[256,256\]/);
    assert.match(await page.locator(`${xr} .memory`).textContent(), /S\(0\)/);
    // Hover explains a line on either side.
    await page.locator(`${xr} .lines.left .ln[data-line="3"]`).hover();
    assert.match(await page.locator(`${xr} .explain`).textContent(), /^left · line 3 · \w+/);
    await page.locator(`${xr} .lines.right .ln[data-line="${targets[0]}"]`).hover();
    assert.match(await page.locator(`${xr} .explain`).textContent(), new RegExp(`^right · line ${targets[0]} · fusion · carries f32\\[256,256\\]`));

    // A wrong set first (one target missing): wrong, streak 0.
    for (const n of targets.slice(1)) await page.locator(`${xr} .lines.right .ln[data-line="${n}"]`).click();
    await page.locator(`${xr} button.check`).click();
    await verdict(page, xr, /^not this time/);
    assert.equal(await page.locator(`${xr} .lines.right .ln[data-line="${targets[0]}"]`).getAttribute('class').then((c) => c.includes('missed')), true);

    // The same pair again, picked right, by keyboard: arrows move, Space toggles.
    await page.locator(`${xr} select`).selectOption('capture:exp');
    await page.waitForFunction(() => /no round/.test(document.querySelector('#gym-07').shadowRoot.querySelector('.prompt').textContent));
    assert.equal(await page.locator(`${xr} .task`).isVisible(), false);
    await page.locator(`${xr} select`).selectOption('capture:softmax');
    await page.locator(`${xr} .lines.right .ln[data-line="${targets[0]}"]`).waitFor();
    await page.locator(`${xr} .lines.right .ln[tabindex="0"]`).focus();
    let at = 1;
    for (const n of targets) {
      while (at < n) { await page.keyboard.press('ArrowDown'); at++; }
      await page.keyboard.press('Space');
    }
    const pressed = await page.locator(`${xr} .lines.right .ln[aria-pressed="true"]`).evaluateAll((els) => els.map((e) => Number(e.dataset.line)));
    assert.deepEqual(pressed, targets);
    await page.locator(`${xr} button.check`).click();
    await verdict(page, xr, /^right: streak 1\b/);
    assert.ok((await tickedItems(page, 'xla-path-progress[controls]')).includes('xray-1'));
    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('drill me on my dump: a pasted module becomes a round; markup in it stays text', { skip }, async () => {
  const { gym, page, fc } = await ownDumpBox();
  try {
    const text = readFileSync(join(capDir, 'softmax', 'after_optimizations.txt'), 'utf8');
    await page.locator(`${fc} details.own textarea`).fill(text);
    await page.locator(`${fc} button.own-go`).click();
    await page.waitForFunction(() => /your dump/.test(document.querySelector('#gym-13').shadowRoot.querySelector('.program').textContent));
    assert.equal(await page.locator(`${fc} .program`).getAttribute('data-program'), '');
    await (await countChoice(page, fc, xlaCount('softmax'))).click();
    await verdict(page, fc, /^right: streak 1\b/);

    // Not HLO, with markup: the core's error shows as text; nothing is parsed as HTML.
    await page.locator(`${fc} details.own textarea`).fill('HloModule <img src=x onerror="window.__pwned=1">\n<b>bold</b> = garbage(');
    await page.locator(`${fc} button.own-go`).click();
    await page.waitForFunction(() => document.querySelector('#gym-13').shadowRoot.querySelector('details.own .error').textContent.length > 0);
    assert.equal(await page.evaluate(() => document.querySelector('#gym-13').shadowRoot.querySelectorAll('img, b').length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(gym.errors, []);
  } finally {
    await gym.close();
  }
});

// Real dumps have many fusions (235 in our transformer step, 34 in a JAX program on 4 A100s):
// the four choices must still tell the count apart. The counts come from XLA: the capture's
// oracle.json, and for the shared GPU and TPU dumps, the distinct bodies the dump's own fusion
// instructions call (read from XLA's printout here, not by the core).
const sharedDumps = [
  'gpu-semantics/gpu_a100__lorrax__module_0063.jit__matvec_impl.sm_8.0_gpu_after_optimizations.txt',
  'tpu-v6e/jit_gelu_mlp.after_optimizations.trimmed.txt',
].map((rel) => [rel, shared(join('captures', rel))]);
function fusedBodiesInText(text) {
  const calls = new Set();
  for (const line of text.split('\n')) {
    const m = /^\s*(?:ROOT )?%?\S+ = .*? fusion\(.*?\bcalls=%?([\w.-]+)/.exec(line);
    if (m) calls.add(m[1]);
  }
  return calls.size;
}

async function countRounds(text, n, label) {
  const { gym, page, fc } = await ownDumpBox();
  try {
    // (set as the value: typing a megabyte through fill() takes longer than the test may)
    await page.locator(`${fc} details.own textarea`).evaluate((ta, v) => { ta.value = v; }, text);
    for (let k = 1; k <= 4; k++) {
      await page.locator(`${fc} button.own-go`).click();
      await page.waitForFunction(() => /your dump/.test(document.querySelector('#gym-13').shadowRoot.querySelector('.program').textContent)
        && document.querySelector('#gym-13').shadowRoot.querySelector('.choice[aria-disabled="false"]'));
      const ranges = await page.locator(`${fc} .choice`).evaluateAll((bs) => bs.map((b) => [Number(b.dataset.lo), Number(b.dataset.hi), b.textContent]));
      assert.equal(ranges.length, 4);
      assert.ok(ranges.every(([, , words]) => !/or more/.test(words)), `${label}: ${JSON.stringify(ranges)}`);
      const holding = ranges.filter(([lo, hi]) => lo <= n && n <= hi);
      assert.equal(holding.length, 1, `${label} (${n}): ${JSON.stringify(ranges)}`);
      assert.ok(holding[0][1] - holding[0][0] + 1 <= Math.max(1, Math.ceil(n / 4)), `${label} (${n}): ${JSON.stringify(ranges)} does not tell it apart`);
      await (await countChoice(page, fc, n)).click();
      await verdict(page, fc, new RegExp(`^right: streak ${k}\\b`));
      assert.match(await page.locator(`${fc} .why`).textContent(), new RegExp(`holds ${n} fused computation`));
    }
    assert.deepEqual(gym.errors, []);
    return 4;
  } finally {
    await gym.close();
  }
}

test('GYM·13 on our transformer step (235 fused computations): the choices tell the count apart, the right one scores', { skip }, async () => {
  assert.equal(await countRounds(readFileSync(join(capDir, 'transformer_step', 'after_optimizations.txt'), 'utf8'), xlaCount('transformer_step'), 'transformer_step'), 4, 'four rounds scored right');
});

for (const [rel, f] of sharedDumps) {
  test(`GYM·13 on ${rel}: the choices tell the count apart, the right one scores`, { skip: skip || (!f && `SKIPPED: ${sharedDir}/captures is absent`) }, async () => {
    const text = readFileSync(f, 'utf8');
    assert.equal(await countRounds(text, fusedBodiesInText(text), rel), 4, 'four rounds scored right');
  });
}

test('keyboard only: Tab reaches the answer buttons of GYM·13 and Enter answers', { skip }, async () => {
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page } = gym;
    await fcRound(page, '#gym-13');
    let found = false;
    for (let i = 0; i < 60 && !found; i++) {
      await page.keyboard.press('Tab');
      found = await page.evaluate(() => {
        const host = document.activeElement;
        return host?.id === 'gym-13' && host.shadowRoot.activeElement?.classList.contains('choice');
      });
    }
    assert.ok(found, 'no answer button of GYM·13 within 60 Tab presses');
    await page.keyboard.press('Enter');
    await verdict(page, '#gym-13', /^(right|not this time)/);
    assert.equal(await page.locator('#gym-13 .verdict').getAttribute('role'), 'status');
    // After answering, Tab goes on to the reveal (the x-ray link, then "next program").
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.textContent);
    assert.ok(/x-ray|next program|^\d+(–\d+)?$/.test(next), `focus went to ${next}`);
    assert.deepEqual(gym.errors, []);
  } finally {
    await gym.close();
  }
});
