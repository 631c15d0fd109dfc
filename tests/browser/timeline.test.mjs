// Profiles in Chromium: the GYM·08 timeline drill (gym page and a course page), the
// <xla-timeline> view, and the notebook's profile cell.
//
// Acceptance: five right answers give streak 5 on every timeline drill (the gym's and both of
// the course page's, open in another tab). The answers the test clicks come from outside our
// code: jaxlib's profile data API read the same captured profiles
// (tests/oracle/profile/jaxlib_reference.json, host_op_self_ps: each op's self time, so the op with
// the most self time per run of its program is the one with the most self time in all). Before
// an answer the drill says nothing that names it (the core's reading, which names the op with
// the most time, comes after).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, repoRoot, distDir, shared, sharedAbsent, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { oracleFile } from '../fixtures.mjs';

const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;
const ref = JSON.parse(readFileSync(oracleFile('profile', 'jaxlib_reference.json'), 'utf8'));

let server;
let chrome;

before(async () => {
  if (skip) return;
  if (!existsSync(join(distDir, 'gym.html')) || !existsSync(join(distDir, 'hloscope-drills.js'))) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

/** The op jaxlib's reading gives the most self time, among the offered choices. */
function rightChoice(id, choices, module = `jit_${id}`) {
  const totals = ref.profiles[`fixtures/cpu-jax-0.4.38/${id}/profile.xplane.pb`]?.host_op_self_ps;
  assert.ok(totals, `no jaxlib reading of ${id}`);
  let best = null;
  for (const c of choices) {
    const t = totals[`${module}|${c}`] ?? 0;
    if (!best || t > best.t) best = { c, t };
  }
  return best.c;
}

async function round(page, sel) {
  await page.waitForFunction((s) => {
    const root = document.querySelector(s)?.shadowRoot;
    return root?.querySelector('.choice:not([aria-disabled])') && root.querySelector('.program[data-program]');
  }, sel, { timeout: 30000 }).catch(async () => {
    const shown = await page.evaluate((s) => document.querySelector(s)?.shadowRoot?.querySelector('.body')?.innerText ?? '(no drill)', sel).catch(() => '?');
    assert.fail(`${sel}: no round within 30 s; the drill shows: ${shown.slice(0, 400)}`);
  });
  const id = await page.locator(`${sel} .program`).getAttribute('data-program');
  const type = await page.locator(`${sel} .prompt`).getAttribute('data-type');
  const choices = await page.locator(`${sel} .choice`).evaluateAll((bs) => bs.map((b) => b.dataset.value));
  const module = /per run of (\S+)\?$/.exec(await page.locator(`${sel} .prompt`).textContent())?.[1];
  return { id, type, choices, module };
}

async function streakIs(page, sel, n) {
  await page.waitForFunction(([s, want]) => document.querySelector(s)?.shadowRoot?.querySelector('.streak')?.dataset.current === String(want),
    [sel, n], { timeout: 5000 }).catch(async () => {
    const got = await page.locator(`${sel} .streak`).getAttribute('data-current').catch(() => '?');
    assert.fail(`${sel} shows streak ${got}, expected ${n}`);
  });
}

test('GYM·08: five right answers give streak 5 on every timeline drill (gym and course page)', { skip }, async () => {
  const gym = await openPage(chrome.browser, `${server.url}dist/gym.html`);
  try {
    const { page } = gym;
    const sel = 'xla-drill[skill="timeline"]';
    const course = await gym.context.newPage();
    await course.goto(`${server.url}tests/browser/pages/timeline.html`);
    for (let k = 1; k <= 5; k++) {
      const r = await round(page, sel);
      assert.equal(r.type, 'top', `round ${k}: ${r.type}`);
      const want = rightChoice(r.id, r.choices, r.module);
      // Nothing on the drill names the answer before it is given.
      const before = await page.locator(sel).evaluate((d) => {
        const shown = d.shadowRoot.querySelector('.drill').cloneNode(true);
        shown.querySelector('.choices').remove();
        shown.querySelectorAll('[hidden]').forEach((e) => e.remove());
        return shown.textContent;
      });
      assert.doesNotMatch(before, /most device time|took the most/, `round ${k} on ${r.id} says before the answer: ${before}`);
      assert.ok(!before.includes(want), `round ${k} on ${r.id}: ${want} is named outside its button before the answer: ${before}`);
      await page.locator(`${sel} .choice[data-value="${want}"]`).click();
      await page.waitForFunction((s) => /^right: streak/.test(document.querySelector(s)?.shadowRoot?.querySelector('.verdict')?.textContent || ''), sel, { timeout: 5000 })
        .catch(async () => assert.fail(`round ${k} on ${r.id}: ${await page.locator(`${sel} .verdict`).textContent()}`));
      await streakIs(page, sel, k);
      // After it, the caption gives the core's reading of the profile.
      assert.match(await page.locator(`${sel} .caption`).textContent(), /read by the hloscope core at run time: jit_\w+ ran \d+ times/);
      if (k < 5) await page.locator(`${sel} .next`).click();
    }
    await streakIs(course, '#first', 5);
    await streakIs(course, '#second', 5);
    // the path item of the skill (goal 3) ticks on the gym page
    const ticked = await page.locator('xla-path-progress[controls] .item[data-done="true"]').evaluateAll((els) => els.map((e) => e.dataset.item));
    assert.ok(ticked.includes('timeline-3'), `ticked: ${ticked}`);
    // the pinned drill of the course page: softmax's rounds, answered from the same reading
    const r = await round(course, '#second');
    assert.equal(r.id, 'softmax');
    await course.locator(`#second .choice[data-value="${rightChoice('softmax', r.choices, r.module)}"]`).click();
    await streakIs(course, '#first', 6);
    assert.deepEqual(gym.errors, []);
    assert.deepEqual(gym.external, []);
  } finally {
    await gym.close();
  }
});

test('<xla-timeline> on a course page: rows, an explanation on hover, a click opens the HLO line', { skip: skip || (!existsSync(join(repoRoot, 'build/native/hloscope')) && 'the native CLI is not built') }, async () => {
  const p = await openPage(chrome.browser, `${server.url}tests/browser/pages/timeline.html`);
  try {
    const { page } = p;
    // the course page's script registers <xla-timeline>; the timeline comes from the CLI
    const dir = join(repoRoot, 'fixtures/cpu-jax-0.4.38/softmax');
    const dump = readFileSync(join(dir, 'after_optimizations.txt'), 'utf8');
    const t = JSON.parse(execFileSync(join(repoRoot, 'build/native/hloscope'),
      ['timeline', '--json', join(dir, 'profile.xplane.pb'), '--hlo', join(dir, 'after_optimizations.txt')]).toString());
    await page.waitForFunction(() => customElements.get('xla-timeline'));
    await page.evaluate((tl) => {
      const v = document.createElement('xla-timeline');
      v.id = 'tl';
      document.body.append(v);
      v.data = { timeline: tl, name: 'softmax' };
    }, t);
    const names = await page.locator('#tl tr.op').evaluateAll((rs) => rs.map((r) => r.dataset.op));
    assert.ok(names.length >= 3, names.join());
    const first = names[0];
    await page.locator(`#tl tr.op[data-op="${first}"] td.name button`).click();
    const hlo = await page.locator('#tl pre.hlo').textContent();
    assert.ok(hlo.includes(`%${first} = `), hlo);
    assert.ok(dump.split('\n').includes(hlo), 'the line shown is a line of the dump');
    assert.match(await page.locator('#tl tr.op').first().getAttribute('title'), /per run/);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

// "which kernel did no line of the program ask for?" in the page: a course page's drill with
// src= (a profile), hlo= and stablehlo= (XLA:TPU's naive attention, ../shared/captures/tpu-v6e,
// served to the page by request interception). The profile is the minimal trace JSON of
// tests/node/timeline-drill.test.mjs; the right answer is read from the dump text: the
// instruction that calls tpu_custom_call (the StableHLO holds no custom_call).
const tpuDir = shared('captures/tpu-v6e');
test('GYM·08: the "which kernel did no line of the program ask for?" round, answered from the dumps', { skip: skip || (!tpuDir && sharedAbsent('tpu-v6e')) }, async () => {
  const hlo = readFileSync(join(tpuDir, 'jit_naive_attention.after_optimizations.trimmed.txt'), 'utf8');
  const stablehlo = readFileSync(join(tpuDir, 'jit_naive_attention.stablehlo.mlir'), 'utf8');
  const substituted = /%(\S+) = [^\n]* custom-call\([^\n]*custom_call_target="tpu_custom_call"/.exec(hlo)[1];
  assert.equal(stablehlo.includes('custom_call'), false);
  const trace = JSON.stringify({ traceEvents: [
    { ph: 'M', pid: 2, name: 'process_name', args: { name: '/device:TPU:0' } },
    { ph: 'M', pid: 2, tid: 1, name: 'thread_name', args: { name: 'XLA Ops' } },
    { ph: 'M', pid: 2, tid: 2, name: 'thread_name', args: { name: 'XLA Modules' } },
    { ph: 'X', pid: 2, tid: 2, ts: 0, dur: 100, name: 'jit_naive_attention(7)' },
    { ph: 'X', pid: 2, tid: 1, ts: 2, dur: 3, name: 'fusion.1' },
    { ph: 'X', pid: 2, tid: 1, ts: 5, dur: 3, name: 'fusion.2' },
    { ph: 'X', pid: 2, tid: 1, ts: 10, dur: 30, name: 'fusion' },
    { ph: 'X', pid: 2, tid: 1, ts: 50, dur: 40, name: 'online-softmax' },
  ] });
  const p = await openPage(chrome.browser, `${server.url}tests/browser/pages/timeline.html`);
  try {
    const { page } = p;
    const bodies = { 'naive.trace.json': trace, 'naive.hlo.txt': hlo, 'naive.stablehlo.mlir': stablehlo };
    await page.route(/\/own\/(naive\.[a-z.]+)$/, (route) => {
      const name = /\/own\/(naive\.[a-z.]+)$/.exec(route.request().url())[1];
      return route.fulfill({ status: 200, contentType: 'text/plain', body: bodies[name] });
    });
    await page.waitForFunction(() => customElements.get('xla-drill'));
    await page.evaluate(() => {
      const d = document.createElement('xla-drill');
      d.id = 'own';
      d.setAttribute('skill', 'timeline');
      d.setAttribute('src', 'own/naive.trace.json');
      d.setAttribute('hlo', 'own/naive.hlo.txt');
      d.setAttribute('stablehlo', 'own/naive.stablehlo.mlir');
      document.body.append(d);
    });
    let r = null;
    for (let k = 0; k < 4; k++) { // the drill alternates round types: an unasked round comes within two
      r = await round(page, '#own');
      if (r.type === 'unasked') break;
      await page.locator(`#own .choice[data-value="${r.choices[0]}"]`).click();
      await page.locator('#own .next').click();
    }
    assert.equal(r.type, 'unasked');
    assert.match(await page.locator('#own .prompt').textContent(), /^which kernel of jit_naive_attention did no line of the program ask for\?$/);
    assert.ok(r.choices.includes(substituted) && r.choices.length >= 2, `choices ${r.choices}`);
    const before = Number(await page.locator('#own .streak').getAttribute('data-current'));
    await page.locator(`#own .choice[data-value="${substituted}"]`).click();
    await page.waitForFunction(() => /^right: streak/.test(document.querySelector('#own')?.shadowRoot?.querySelector('.verdict')?.textContent || ''), null, { timeout: 5000 })
      .catch(async () => assert.fail(`not right: ${await page.locator('#own .verdict').textContent()}`));
    await streakIs(page, '#own', before + 1);
    assert.match(await page.locator('#own .why').textContent(), /custom call.*tpu_custom_call/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});
