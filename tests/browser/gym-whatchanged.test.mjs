// GYM·14 "what changed?" in real Chromium, on the gym page (dist/gym.html) served from 127.0.0.1.
//
// Acceptance: the drill scores a right answer (streak 1) and a wrong one (streak back to 0, best
// kept), a right one again, and keeps its streak in localStorage (hloscope.streak.v1.whatchanged)
// across a reload. Which choice is right is read outside the page: the native CLI's
// `hloscope diff --json` of the pair the round shows (a fusion of a diff entry whose change is not
// `same` on the side the prompt names; the value of an `added` materialized entry on side b, or
// "none of these" when the diff has none; the side with less time). After the answer the drill
// shows the core's verdict (the CLI's, word for word) and the entry that made it right.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, launch, openPage, repoRoot, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { diffPairs } from '../fixtures.mjs';

const cli = join(repoRoot, 'build/native/hloscope');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const pairs = new Map(diffPairs().map((c) => [`${c.set.replace(/^cpu-jax-/, '')}/${c.id}`, c]));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || (!existsSync(cli) && `no native CLI at ${cli} (npm run build:native): the answers are read from it`)
  || (!pairs.size && 'fixtures/diff-pairs/ holds no pair')
  || false;
const sel = 'xla-drill[skill="whatchanged"]';
const KEY = 'hloscope.streak.v1.whatchanged';

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

const cliDiffs = new Map();
function cliDiff(id) {
  if (!cliDiffs.has(id)) {
    const c = pairs.get(id);
    assert.ok(c, `the drill shows pair ${id}, which is not one of fixtures/diff-pairs/`);
    // A pair with a profile on each side gives the time rounds: the CLI reads them as the drill does.
    const prof = existsSync(c.file('a.xplane.pb')) && existsSync(c.file('b.xplane.pb'))
      ? ['--profiles', c.file('a.xplane.pb'), c.file('b.xplane.pb')] : [];
    const r = spawnSync(cli, ['diff', '--json', ...prof, c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt')], { maxBuffer: 1 << 26 });
    assert.equal(r.status, 0, `hloscope diff ${id}: ${r.stderr}`);
    cliDiffs.set(id, JSON.parse(r.stdout.toString()));
  }
  return cliDiffs.get(id);
}

/** Whether the CLI's diff makes choice `value` of a round of `type` (on `side`) right. */
function isRight(d, type, side, value) {
  if (type === 'fusion') {
    const e = d.fusions.find((f) => f[side].includes(value));
    assert.ok(e, `${value} is in no fusions entry of side ${side}`);
    return e.change !== 'same';
  }
  if (type === 'spill') {
    const added = d.materialized.filter((m) => m.change === 'added' && m.side === 'b').map((m) => m.value);
    return value === '(none)' ? added.length === 0 : added.includes(value);
  }
  if (type === 'time') {
    assert.ok(d.time, 'a time round on a pair the CLI reads no profiles of');
    return value === (d.time.a_ps < d.time.b_ps ? 'a' : 'b');
  }
  throw new Error(`unknown round type ${type}`);
}

/** The round on offer: { id, type, side, choices, right, wrong }, with right/wrong from the CLI. */
async function round(page) {
  await page.waitForFunction((s) => {
    const root = document.querySelector(s)?.shadowRoot;
    return root?.querySelector('.choice[aria-disabled="false"]') && root.querySelector('.program[data-program]')?.dataset.program;
  }, sel, { timeout: 30000 }).catch(async () => {
    const shown = await page.evaluate((s) => document.querySelector(s)?.shadowRoot?.querySelector('.body')?.innerText ?? '(no drill)', sel).catch(() => '?');
    assert.fail(`no GYM·14 round within 30 s; the drill shows: ${shown.slice(0, 400)}`);
  });
  const id = await page.locator(`${sel} .program`).getAttribute('data-program');
  const type = await page.locator(`${sel} .prompt`).getAttribute('data-type');
  const side = await page.locator(`${sel} .prompt`).getAttribute('data-side');
  const choices = await page.locator(`${sel} .choice`).evaluateAll((bs) => bs.map((b) => b.dataset.value));
  const d = cliDiff(id);
  const right = choices.filter((v) => isRight(d, type, side, v));
  assert.equal(right.length, 1, `${id} ${type}: exactly one right choice among ${choices.join(', ')}; the CLI makes ${right.join(', ') || 'none'} right`);
  return { id, type, side, choices, right: right[0], wrong: choices.filter((v) => v !== right[0]), diff: d };
}

async function verdict(page, re) {
  await page.waitForFunction(([s, src]) => new RegExp(src).test(document.querySelector(s)?.shadowRoot?.querySelector('.verdict')?.textContent || ''),
    [sel, re.source], { timeout: 5000 }).catch(async () => assert.fail(`verdict: ${await page.locator(`${sel} .verdict`).textContent()}, expected ${re}`));
}

async function streakIs(page, current, best) {
  await page.waitForFunction(([s, c, b]) => {
    const el = document.querySelector(s)?.shadowRoot?.querySelector('.streak');
    return el?.dataset.current === String(c) && el.dataset.best === String(b);
  }, [sel, current, best], { timeout: 5000 }).catch(async () => {
    const el = page.locator(`${sel} .streak`);
    assert.fail(`streak ${await el.getAttribute('data-current')} best ${await el.getAttribute('data-best')}, expected ${current} best ${best}`);
  });
}

test('GYM·14: scores a right and a wrong answer, shows the core\'s verdict and entry, keeps its streak across a reload', { skip }, async () => {
  const gym = await openPage(chrome.browser, `${server.url}dist/gym.html`);
  try {
    const { page } = gym;
    // right
    let r = await round(page);
    await page.locator(`${sel} .choice[data-value="${r.right}"]`).click();
    await verdict(page, /^right: streak 1/);
    await streakIs(page, 1, 1);
    assert.equal(await page.locator(`${sel} .core-verdict`).textContent(), r.diff.verdict, 'the verdict shown is the core\'s');
    assert.ok(await page.locator(`${sel} .entry li`).count() > 0, 'the entry that made it right is shown');
    assert.equal(await page.locator(`${sel} .choice.correct`).getAttribute('data-value'), r.right);
    // wrong
    await page.locator(`${sel} .next`).click();
    r = await round(page);
    await page.locator(`${sel} .choice[data-value="${r.wrong[0]}"]`).click();
    await verdict(page, /^not this time: streak back to 0 \(best 1\)/);
    await streakIs(page, 0, 1);
    assert.equal(await page.locator(`${sel} .choice.correct`).getAttribute('data-value'), r.right, 'the right choice is marked after a wrong one');
    assert.equal(await page.locator(`${sel} .choice.wrong`).getAttribute('data-value'), r.wrong[0]);
    // right again
    await page.locator(`${sel} .next`).click();
    r = await round(page);
    await page.locator(`${sel} .choice[data-value="${r.right}"]`).click();
    await streakIs(page, 1, 1);
    const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
    assert.equal(stored.v, 1);
    assert.equal(stored.current, 1);
    assert.equal(stored.best, 1);
    // the streak survives a reload
    await page.reload({ waitUntil: 'load' });
    await round(page);
    await streakIs(page, 1, 1);
    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('GYM·14: a pinned question on a pinned pair, and each question the pairs give agrees with the CLI', { skip }, async () => {
  // The course-page attributes: program (one pair) and question (one kind of round).
  const gym = await openPage(chrome.browser, `${server.url}dist/gym.html`);
  try {
    const { page } = gym;
    const seen = [];
    for (const [id, question] of [['0.12.0.1/mlp_grad-remat', 'fusion'], ['0.12.0.1/mlp_grad-remat', 'spill'], ['0.4.38/mlp_softmax-opt0', 'spill'], ['0.12.0.1/mlp_softmax-opt0', 'time']]) {
      await page.evaluate(([p, q]) => {
        const d = document.querySelector('xla-drill[skill="whatchanged"]');
        d.setAttribute('program', p);
        d.setAttribute('question', q);
        d.setAttribute('skill', 'whatchanged'); // unchanged: remount by hand
        d.remove();
        document.querySelector('main').append(d);
      }, [id, question]);
      const r = await round(page);
      assert.equal(r.id, id);
      assert.equal(r.type, question);
      seen.push(`${id} ${question} -> ${r.right}`);
      if (id === '0.4.38/mlp_softmax-opt0') assert.equal(r.right, '(none)', 'the same module twice: no new spill');
    }
    assert.equal(seen.length, 4);
    assert.deepEqual(gym.errors, []);
  } finally {
    await gym.close();
  }
});
