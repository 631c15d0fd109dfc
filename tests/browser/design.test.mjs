// One design, readable (issue 17, items 12, 13, 15), in Chromium: every text on the notebook and
// the gym reaches WCAG AA contrast (4.5:1; 3:1 for large text), dimmed text included, in light
// and dark (prefers-color-scheme); at 320, 390 and 1400 px neither page overflows sideways.
// The contrast check is our own computed-style walk: each text node's colour (its alpha and
// every ancestor's opacity blended in) against the first opaque background behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addCell, cell, launch, openPage, pasteInto, repoRoot, runWithShiftEnter, serveDist, setDumpName, shared, sharedDir, skipWithoutChromium,
  typeInto, waitForDump, waitForNotebook, waitForXray, cellIds,
} from './harness.mjs';

/** Runs in the page: [{ text, ratio, need, fg, bg }] for every visible text below AA. */
function lowContrast() {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const blend = (fg, bg, a) => ({ r: fg.r * a + bg.r * (1 - a), g: fg.g * a + bg.g * (1 - a), b: fg.b * a + bg.b * (1 - a) });
  const parentOf = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const background = (e) => {
    const layers = [];
    for (let x = e; x; x = parentOf(x)) {
      const c = parse(getComputedStyle(x).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255 };
    const root = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (root && root.a >= 1 && !layers.some((l) => l.a >= 1)) bg = root;
    for (const l of layers.reverse()) bg = blend(l, bg, l.a);
    return bg;
  };
  const bad = [];
  const walk = (root) => {
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      const text = n.textContent.trim();
      const e = n.parentElement;
      if (!text || !e) continue;
      const st = getComputedStyle(e);
      const rect = e.getBoundingClientRect();
      if (st.visibility === 'hidden' || st.display === 'none' || rect.width === 0 || rect.height === 0) continue;
      if (e.closest('[hidden], .sr, .cm-placeholder, option')) continue;
      let alpha = parse(st.color)?.a ?? 1;
      for (let x = e; x; x = parentOf(x)) alpha *= Number(getComputedStyle(x).opacity);
      if (alpha < 0.05) continue; // not shown until hover or focus (then at full opacity)
      const bg = background(e);
      const fg = blend(parse(st.color), bg, alpha);
      const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (l1 + 0.05) / (l2 + 0.05);
      const size = parseFloat(st.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      if (ratio < need - 0.01) bad.push({ text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, need, cls: e.className });
    }
    for (const x of root.querySelectorAll('*')) if (x.shadowRoot) walk(x.shadowRoot);
  };
  walk(document);
  return bad;
}

/**
 * Runs in the page: what is wrong at this width with the cells matching `sel`, as strings:
 * an element (shadow roots included) that runs past its cell's right edge outside a box that
 * scrolls; a line break between two letters or digits inside an op name or a shape (`names`:
 * selectors, searched in shadow roots too); and the header's rows of controls.
 */
function narrowFaults([sel, names]) {
  const bad = [];
  const scrolls = (e) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX);
  const parentOf = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const inScroller = (e, stop) => { for (let x = parentOf(e); x && x !== stop; x = parentOf(x)) if (scrolls(x)) return true; return false; };
  const all = (root, q) => [...root.querySelectorAll(q), ...[...root.querySelectorAll('*')].filter((x) => x.shadowRoot).flatMap((x) => all(x.shadowRoot, q))];
  for (const c of document.querySelectorAll(sel)) {
    const right = c.getBoundingClientRect().right;
    for (const e of all(c, '*')) {
      const r = e.getBoundingClientRect();
      if (r.width && r.right > right + 0.5 && !inScroller(e, c)) bad.push(`${e.tagName.toLowerCase()}.${e.className} ends at ${r.right.toFixed(1)}, past the cell (${right.toFixed(1)})`);
    }
    for (const e of all(c, names)) {
      const text = e.textContent;
      const tops = [];
      const tw = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let n = tw.nextNode(); n; n = tw.nextNode()) {
        for (let i = 0; i < n.length; i++) {
          const range = document.createRange();
          range.setStart(n, i);
          range.setEnd(n, i + 1);
          tops.push(Math.round(range.getBoundingClientRect().top));
        }
      }
      for (let i = 1; i < tops.length; i++) {
        if (tops[i] > tops[i - 1] && /[A-Za-z0-9]/.test(text[i - 1]) && /[A-Za-z0-9]/.test(text[i])) {
          bad.push(`${JSON.stringify(text)} breaks inside a word: ${JSON.stringify(text.slice(0, i))} | ${JSON.stringify(text.slice(i))}`);
          break;
        }
      }
    }
  }
  // rows of the header: its controls' vertical middles, those within a few pixels one row
  const middles = [...document.querySelectorAll('.toolbar > *, .toolbar .actions > *')]
    .map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0).map((r) => r.top + r.height / 2).sort((a, b) => a - b);
  const rows = middles.filter((m, i) => i === 0 || m - middles[i - 1] > 6).length;
  if (rows > 2) bad.push(`the header takes ${rows} rows`);
  return bad;
}

describe('one design, readable', { skip: skipWithoutChromium ?? false, timeout: 300000 }, () => {
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

  async function open(t, path, { width = 1400, scheme = 'light', seed = null } = {}) {
    const context = await chrome.browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
    t.after(() => context.close());
    // The gym deals its rounds with Math.random: a seed makes the page's draw repeatable.
    if (seed != null) {
      await context.addInitScript((s) => {
        let a = s >>> 0;
        Math.random = () => { a = (a + 0x6d2b79f5) >>> 0; let x = Math.imul(a ^ (a >>> 15), 1 | a); x ^= x + Math.imul(x ^ (x >>> 7), 61 | x); return ((x ^ (x >>> 14)) >>> 0) / 4294967296; };
      }, seed);
    }
    const p = await openPage(chrome.browser, `${server.url}${path}`, { context });
    if (path === '') {
      await waitForNotebook(p.page);
      const ids = await cellIds(p.page);
      const kinds = await p.page.$$eval('.cells > .cell', (els) => els.map((e) => e.dataset.kind));
      await waitForXray(p.page, ids[kinds.indexOf('code')]);
    } else {
      await p.page.waitForSelector('xla-drill');
      await p.page.waitForFunction(() => [...document.querySelectorAll('xla-drill')].every((d) => d.textContent.trim() || d.shadowRoot?.textContent.trim()));
    }
    return p;
  }

  for (const scheme of ['light', 'dark']) {
    for (const [name, path] of [['notebook', ''], ['gym', 'gym.html']]) {
      test(`${name}, ${scheme}: every text reaches WCAG AA`, async (t) => {
        const p = await open(t, path, { scheme });
        const bad = await p.page.evaluate(lowContrast);
        assert.deepEqual(bad, [], `${bad.length} texts below AA`);
        assert.deepEqual(p.errors, []);
      });
    }
  }

  test('both pages follow the colour scheme, with the same tokens', async (t) => {
    const bg = {};
    for (const scheme of ['light', 'dark']) {
      for (const [name, path] of [['notebook', ''], ['gym', 'gym.html']]) {
        const p = await open(t, path, { scheme });
        bg[`${name}-${scheme}`] = await p.page.evaluate(() => {
          const s = getComputedStyle(document.documentElement);
          return ['--ink', '--paper', '--copper', '--steel'].map((k) => s.getPropertyValue(k).trim()).join(' ');
        });
      }
    }
    assert.equal(bg['notebook-light'], bg['gym-light']);
    assert.equal(bg['notebook-dark'], bg['gym-dark']);
    assert.notEqual(bg['notebook-light'], bg['notebook-dark']);
  });

  test('16: the gym names the chapters it serves, and a course page can name itself', async (t) => {
    let p = await open(t, 'gym.html');
    const path = JSON.parse(readFileSync(join(repoRoot, 'notebook/path.json'), 'utf8'));
    let line = await p.page.textContent('[data-serves]');
    for (const c of path.chapters) assert.ok(line.includes(c.title), `names ${c.title}: ${line}`);
    p = await open(t, 'gym.html?course=XLA%20floor%20course&course-url=course.html');
    line = await p.page.textContent('[data-serves]');
    assert.match(line, /^drills for XLA floor course, chapters /);
    assert.equal(await p.page.getAttribute('[data-serves] a', 'href'), 'course.html');
  });

  // The gym's rounds are drawn at random, and a long fusion name or profile path in one draw
  // once pushed it 2 px past a 390 px window: at 320 px it is read under several fixed draws.
  const draws = { notebook: [null], gym: [null, 1, 2, 3, 4, 5] };
  for (const width of [320, 390, 1400]) {
    for (const [name, path] of [['notebook', ''], ['gym', 'gym.html']]) {
      test(`${name} at ${width} px: no sideways overflow`, async (t) => {
        for (const seed of width === 320 ? draws[name] : [null]) {
        const p = await open(t, path, { width, seed });
        const o = await p.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
        await p.page.screenshot({ path: `test-results/${name}-${width}.png`, fullPage: false }).catch(() => {});
        assert.ok(o.scroll <= o.view, `${name} is ${o.scroll} px wide in a ${o.view} px window (draw ${seed ?? 'random'})`);
        if (name === 'notebook') {
          // The cell buttons stay on screen.
          const off = await p.page.$$eval('.cell .bar button', (bs) => bs.filter((b) => b.getBoundingClientRect().right > innerWidth).length);
          assert.equal(off, 0, 'cell buttons inside the window');
          assert.ok(await p.page.$('a[href$="gym.html"]'), 'the notebook links to the gym');
        }
        assert.deepEqual(p.errors, []);
        }
      });
    }
  }

  // Phone width with a profile and a memory report open: the program <select> stays in its
  // cell, op names and shapes wrap between their parts (never mid-word), and the header takes
  // two lines. Our own captures (naive attention's profile, the transformer step's buffer
  // assignment), then the shared TPU profile and TPU out-of-memory message when ../shared is here.
  const tpuProfile = shared('captures/profiles/xprof_tpu_inference_2.xplane.pb');
  const tpuOom = shared('captures/memory/01_tpu_hbm_easydel_166.txt');
  for (const [name, profile, memory, why] of [
    ['our captures', join(repoRoot, 'fixtures/cpu-jax-0.4.38/naive_attention/profile.xplane.pb'),
      join(repoRoot, 'fixtures/cpu-jax-0.4.38/transformer_step/dump/module_0001.jit_transformer_step.cpu_after_optimizations-buffer-assignment.txt'), null],
    ['TPU captures', tpuProfile, tpuOom, !(tpuProfile && tpuOom) && `SKIPPED: ${sharedDir}/captures is absent`],
  ]) {
    test(`notebook at 390 px with a profile and a memory report open (${name}): nothing past its cell, no word cut, a two-line header`, { skip: why || (!existsSync(profile) && `${profile} is missing`) }, async (t) => {
      const p = await open(t, '', { width: 390 });
      const { page } = p;
      const prof = await addCell(page, 'profile');
      await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, profile);
      await page.waitForFunction((s) => document.querySelector(`${s} xla-timeline`)?.shadowRoot?.querySelectorAll('tr.op').length > 0, cell(prof), { timeout: 60000 });
      const mem = await addCell(page, 'dump');
      await setDumpName(page, mem, 'report');
      await pasteInto(page, mem, readFileSync(memory, 'utf8'));
      await waitForDump(page, mem);
      const code = await addCell(page, 'code');
      await typeInto(page, code, 'show.memory(report)');
      await runWithShiftEnter(page, code);
      await page.waitForFunction((s) => document.querySelector(`${s} xla-memory`)?.shadowRoot?.querySelector('tr[data-testid=allocation]'), cell(code), { timeout: 30000 });
      await page.screenshot({ path: `test-results/notebook-390-profile-${name.split(' ')[0]}.png`, fullPage: true }).catch(() => {});
      const faults = await page.evaluate(narrowFaults, [`${cell(prof)}, ${cell(code)}`, 'td.name button, tr[data-testid=allocation] td:nth-child(3)']);
      assert.deepEqual(faults, []);
      const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
      assert.ok(o.scroll <= o.view, `the notebook is ${o.scroll} px wide in a ${o.view} px window`);
      assert.deepEqual(p.errors, []);
    });
  }
});
