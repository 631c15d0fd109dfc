// GYM·03 spot the decision (dist/gym.html) in real Chromium.
//
// The line the test clicks comes from outside our code: jax's own equation record of the
// program (fixtures/cpu-jax-0.4.38/<id>/jaxpr_eqns.json, read from jax's Jaxpr objects) says
// which equation is the first upcast / broadcast / remat, as the k-th equation of its primitive;
// the text says on which line the k-th `= <primitive>` equation begins (these jaxprs print every
// body inline, so jax's walk order is the text's order).
//
//   - a round; a right pick (streak 1, the target marked, the sentence); a wrong pick (streak 0,
//     the wrong line marked); three right in a row tick the path's goal-3 items;
//   - the learner's own pasted jaxpr (the newest jax's capture, which the page does not hold)
//     makes rounds;
//   - keyboard only: Tab to the lines, arrows, Enter, then Enter on "next round", Space.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, repoRoot, distDir, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { newestFixtureSet } from '../fixtures.mjs';

const capDir = join(repoRoot, 'fixtures/cpu-jax-0.4.38');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs')) && existsSync(join(repoRoot, 'wasm/hloscope.mjs'));
const haveRecords = ['mlp', 'remat'].every((id) => existsSync(join(capDir, id, 'jaxpr_eqns.json')));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || (!haveRecords && 'the jaxpr equation records are missing (fixtures/capture/jaxpr_eqns.py)')
  || false;

const SEL = '#gym-03';
const REMAT = new Set(['remat', 'remat2', 'checkpoint', 'remat_call', 'optimization_barrier']);
let server;
let chrome;
let gymUrl;

before(async () => {
  if (skip) return;
  if (!existsSync(join(distDir, 'gym.html')) || !existsSync(join(distDir, 'gym.js'))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  gymUrl = `${server.url}dist/gym.html`;
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

/** Does jax's record of this equation make it a decision of `target`? */
function isTarget(e, target) {
  if (target === 'upcast') return e.primitive === 'convert_element_type' && e.in[0]?.bits && e.out[0]?.bits > e.in[0].bits;
  if (target === 'broadcast') return e.primitive === 'broadcast_in_dim';
  if (target === 'remat') return REMAT.has(e.primitive);
  return false;
}

/** The line of the first `target` equation: from jax's record (which equation, as the k-th of its
 *  primitive) and the text (where the k-th equation of that primitive begins). */
function expectedLine(eqns, text, target) {
  const i = eqns.findIndex((e) => isTarget(e, target));
  assert.ok(i >= 0, `no ${target} in jax's record`);
  const prim = eqns[i].primitive;
  const k = eqns.slice(0, i).filter((e) => e.primitive === prim).length;
  const re = new RegExp(`^\\s*(\\S+:\\S+\\s+)*= ${prim}(\\[|\\s|$)`);
  const starts = text.split('\n').map((l, n) => (re.test(l) ? n + 1 : 0)).filter(Boolean);
  assert.ok(starts.length > k, `the text has ${starts.length} ${prim} equations, jax ${k + 1}+`);
  return starts[k];
}

function fixtureLine(id, target) {
  const eqns = JSON.parse(readFileSync(join(capDir, id, 'jaxpr_eqns.json'), 'utf8')).eqns;
  return expectedLine(eqns, readFileSync(join(capDir, id, 'jaxpr.txt'), 'utf8'), target);
}

async function roundOn(page) {
  try {
    await page.waitForFunction((s) => {
      const root = document.querySelector(s)?.shadowRoot;
      const ln = root?.querySelector('.ln[data-line="1"]');
      return ln && ln.getAttribute('aria-disabled') === 'false' && root.querySelector('.prompt[data-target]') && root.querySelector('.program[data-program]');
    }, SEL, { timeout: 20000 });
  } catch {
    const shown = await page.evaluate((s) => document.querySelector(s)?.shadowRoot?.querySelector('.body')?.innerText ?? '(no drill)', SEL).catch(() => '?');
    assert.fail(`no GYM·03 round within 20 s; the drill shows: ${shown.slice(0, 400)}`);
  }
  const id = await page.locator(`${SEL} .program`).getAttribute('data-program');
  const target = await page.locator(`${SEL} .prompt`).getAttribute('data-target');
  return { id, target };
}

async function streakIs(page, n) {
  await page.waitForFunction(([s, want]) => document.querySelector(s)?.shadowRoot?.querySelector('.streak')?.dataset.current === String(want), [SEL, n], { timeout: 5000 })
    .catch(async () => assert.fail(`streak ${await page.locator(`${SEL} .streak`).getAttribute('data-current').catch(() => '?')}, expected ${n}`));
}

async function verdict(page, re) {
  await page.waitForFunction(([s, src]) => new RegExp(src).test(document.querySelector(s)?.shadowRoot?.querySelector('.verdict')?.textContent || ''), [SEL, re.source], { timeout: 5000 })
    .catch(async () => assert.fail(`verdict ${JSON.stringify(await page.locator(`${SEL} .verdict`).textContent())}, expected ${re}`));
}

const PROMPTS = { upcast: 'upcasts a dtype', broadcast: 'makes a hidden broadcast explicit', remat: 'marks recomputation' };

test('GYM·03: a round, a right pick, a wrong pick, the streak and the path', { skip }, async () => {
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page } = gym;
    assert.equal((await page.locator(`${SEL} .title`).textContent()).trim(), 'GYM·03 spot the decision');
    for (let k = 1; k <= 3; k++) {
      const { id, target } = await roundOn(page);
      assert.equal(await page.locator(`${SEL} .prompt`).textContent(), `click the first line where the framework ${PROMPTS[target]}`);
      // the jaxpr on screen is the capture's, one button per line
      const text = readFileSync(join(capDir, id, 'jaxpr.txt'), 'utf8');
      assert.equal(await page.locator(`${SEL} .ln`).count(), text.split('\n').length - 1);
      const want = fixtureLine(id, target);
      await page.locator(`${SEL} .ln[data-line="${want}"]`).click();
      await verdict(page, new RegExp(`^right: streak ${k}\\b`));
      await streakIs(page, k);
      assert.match(await page.locator(`${SEL} .ln.target`).getAttribute('data-line'), new RegExp(`^${want}$`));
      assert.match(await page.locator(`${SEL} .why`).first().textContent(), new RegExp(`^line ${want}: `));
      await page.locator(`${SEL} button.next`).click();
    }
    const ticked = await page.locator('xla-path-progress[controls] .item[data-done="true"]').evaluateAll((els) => els.map((e) => e.dataset.item));
    assert.ok(ticked.includes('spot-3') && ticked.includes('spot-3-fusion') && !ticked.includes('spot-5'), `ticked ${ticked}`);

    // A wrong pick: line 1 (the lambda header) is never a decision.
    const { id, target } = await roundOn(page);
    const want = fixtureLine(id, target);
    await page.locator(`${SEL} .ln[data-line="1"]`).click();
    await verdict(page, /^not this time: streak back to 0 \(best 3\)/);
    await streakIs(page, 0);
    assert.equal(await page.locator(`${SEL} .ln.picked-wrong`).getAttribute('data-line'), '1');
    assert.equal(await page.locator(`${SEL} .ln.target`).getAttribute('data-line'), String(want));
    assert.match(await page.locator(`${SEL} .wrong-pick`).textContent(), /^you picked line 1 is not /);
    // one click per round: a second click (the line says it is disabled) changes nothing
    assert.equal(await page.locator(`${SEL} .ln[data-line="${want}"]`).getAttribute('aria-disabled'), 'true');
    await page.locator(`${SEL} .ln[data-line="${want}"]`).click({ force: true });
    await streakIs(page, 0);

    // The StableHLO and HLO views are there, with their own first line.
    await page.locator(`${SEL} button.view[data-view="stablehlo"]`).click();
    await page.waitForFunction((s) => document.querySelector(s).shadowRoot.querySelector('.lines').dataset.view === 'stablehlo', SEL);
    assert.match(await page.locator(`${SEL} .ln[data-line="1"] .tx`).textContent(), /^module @jit_/);
    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('GYM·03: the learner\'s own pasted jaxpr makes rounds', { skip }, async () => {
  const newest = newestFixtureSet();
  const dir = join(repoRoot, 'fixtures', newest, 'layernorm');
  const text = readFileSync(join(dir, 'jaxpr.txt'), 'utf8');
  const eqns = JSON.parse(readFileSync(join(dir, 'jaxpr_eqns.json'), 'utf8')).eqns;
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page } = gym;
    await roundOn(page);
    await page.locator(`${SEL} details.own summary`).click();
    await page.locator(`${SEL} textarea`).fill(text);
    await page.locator(`${SEL} button.own-go`).click();
    await page.waitForFunction((s) => document.querySelector(s).shadowRoot.querySelector('.program').dataset.program === '', SEL);
    const targets = ['upcast', 'broadcast', 'remat'].filter((t) => eqns.some((e) => isTarget(e, t)));
    assert.ok(targets.length >= 2, `${newest}/layernorm: targets ${targets}`);
    assert.match(await page.locator(`${SEL} .program .code`).textContent(), new RegExp(`^jaxpr · ${text.split('\n').length - 1} lines · ${targets.length} rounds`));
    for (const [k, target] of targets.entries()) {
      assert.equal(await page.locator(`${SEL} .prompt`).getAttribute('data-target'), target);
      await page.locator(`${SEL} .ln[data-line="${expectedLine(eqns, text, target)}"]`).click();
      await verdict(page, new RegExp(`^right: streak ${k + 1}\\b`));
      assert.match(await page.locator(`${SEL} .caption`).textContent(), /your dump/);
      await page.locator(`${SEL} button.next`).click();
    }
    // after the pasted dump's rounds, the captures again
    const r = await roundOn(page);
    assert.ok(r.id, 'back to a capture');
    // something with no decision says so
    await page.locator(`${SEL} textarea`).fill('{ lambda ; a:f32[4]. let b:f32[4] = exp a in (b,) }\n');
    await page.locator(`${SEL} button.own-go`).click();
    await page.waitForFunction((s) => /nothing to spot/.test(document.querySelector(s).shadowRoot.querySelector('.own .error').textContent), SEL);
    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('GYM·03: keyboard only', { skip }, async () => {
  const gym = await openPage(chrome.browser, gymUrl);
  try {
    const { page } = gym;
    const { id, target } = await roundOn(page);
    const focusedLine = () => page.evaluate((s) => {
      const a = document.querySelector(s)?.shadowRoot?.activeElement;
      return a && a.classList.contains('ln') ? Number(a.dataset.line) : null;
    }, SEL);
    let n = null;
    for (let k = 0; k < 60 && n === null; k++) {
      await page.keyboard.press('Tab');
      n = await focusedLine();
    }
    assert.equal(n, 1, 'Tab reaches the first line');
    const want = fixtureLine(id, target);
    for (let k = 1; k < want; k++) await page.keyboard.press('ArrowDown');
    assert.equal(await focusedLine(), want);
    await page.keyboard.press('Enter');
    await verdict(page, /^right: streak 1\b/);
    // the focus is on "next round"; Enter there gives a new round with the focus on its first line
    assert.equal(await page.evaluate((s) => document.querySelector(s).shadowRoot.activeElement?.className, SEL), 'next');
    await page.keyboard.press('Enter');
    const r2 = await roundOn(page);
    assert.equal(await focusedLine(), 1);
    const want2 = fixtureLine(r2.id, r2.target);
    await page.keyboard.press('End');
    const end = await focusedLine();
    assert.ok(end > 1);
    await page.keyboard.press('Home');
    for (let k = 1; k < want2; k++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp'); // one line above the target: wrong
    await page.keyboard.press('Space');
    await verdict(page, /^not this time: streak back to 0/);
    assert.equal(await page.locator(`${SEL} .ln.picked-wrong`).getAttribute('data-line'), String(want2 - 1));
    assert.deepEqual(gym.errors, []);
  } finally {
    await gym.close();
  }
});
