// The diff view (issue 38 item 5) in Chromium: the notebook's diff cell on two real dumps of
// fixtures/diff-pairs (an MLP's gradient compiled without and with jax.checkpoint, jax 0.12.0.1)
// offered as "diff with <other cell>", computed in the worker (no call into the core on the
// page's thread), aligns the matched lines of the core's own diff (computed here in Node by the
// JS API) on one row, and a click on a change entry scrolls both sides so that its lines are in
// view; the embed form <xla-diff src-a src-b> on a course page renders with no request leaving
// it, says a side that does not parse by name, keeps pasted markup as text, and keeps about a
// window of rows in the DOM for a 6,000-line pair.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CORE_SPY, addCell, cell, cellIds, coreCalls, launch, openPage, pasteInto, repoRoot, serveDist, setDumpName, skipWithoutChromium,
  waitForDump, waitForNotebook,
} from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { diffPairs, fixtureCases } from '../fixtures.mjs';

const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;

const pair = (label) => {
  const p = diffPairs().find((c) => c.label === label);
  assert.ok(p, `the pair ${label}`);
  return { a: readFileSync(p.file('a.after_optimizations.txt'), 'utf8'), b: readFileSync(p.file('b.after_optimizations.txt'), 'utf8') };
};

let hs = null;
/** The core's own diff of two texts (the JS API in Node): what the page must agree with. */
async function coreDiff(a, b) {
  if (!hs) { hs = await import(join(repoRoot, 'wasm/hloscope.mjs')); await hs.load(); }
  return hs.diff(a, b);
}

let dist;
let site;
let chrome;
before(async () => {
  if (skip) return;
  dist = await serveDist();
  site = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  await dist?.close();
  await site?.close();
});

/**
 * In the page: for each [A line, B line], where the view (`sel`) draws the two lines, each
 * scrolled into view: { la, lb, same (one row by the layout), a: { row, top, far }, b: {...} }
 * (top: the drawn row's height on screen, with both lines in view when they share a row; far:
 * marked "matched on another row").
 */
function placesOf(page, sel, pairs) {
  return page.evaluate(async ([sel, pairs]) => {
    const v = document.querySelector(sel);
    const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const at = (side, line) => {
      const r = v.shadowRoot.querySelector(`.col.${side} .row[data-line="${line}"]`);
      return r ? { row: Number(r.dataset.row), top: Math.round(r.getBoundingClientRect().top), far: r.classList.contains('far') } : null;
    };
    const out = [];
    for (const [la, lb] of pairs) {
      const same = v.rowOf('a', la) === v.rowOf('b', lb);
      v.scrollToRow(v.rowOf('a', la));
      await frame();
      const a = at('a', la);
      if (!same) { v.scrollToRow(v.rowOf('b', lb)); await frame(); }
      out.push({ la, lb, same, a, b: at('b', lb) });
    }
    return out;
  }, [sel, pairs]);
}

/** In the page: is `line` of `side` drawn inside its column's window, and highlighted? */
function shown(page, sel, side, line) {
  return page.evaluate(([sel, side, line]) => {
    const v = document.querySelector(sel);
    const sc = v.scroller(side).getBoundingClientRect();
    const r = v.shadowRoot.querySelector(`.col.${side} .row[data-line="${line}"]`);
    if (!r) return { drawn: false };
    const b = r.getBoundingClientRect();
    return { drawn: true, visible: b.top >= sc.top - 1 && b.bottom <= sc.bottom + 1, hl: r.classList.contains('hl') };
  }, [sel, side, line]);
}

function checkAligned(places, label) {
  let together = 0;
  for (const p of places) {
    assert.ok(p.a && p.b, `${label}: pair ${p.la}/${p.lb} not drawn (${JSON.stringify(p)})`);
    if (p.same) {
      assert.equal(p.a.row, p.b.row, `${label}: pair ${p.la}/${p.lb}: rows in the DOM`);
      assert.equal(p.a.top, p.b.top, `${label}: pair ${p.la}/${p.lb} on one row, drawn at two heights`);
      assert.ok(!p.a.far && !p.b.far, `${label}: pair ${p.la}/${p.lb} on one row, marked as on another`);
      together++;
    } else {
      assert.ok(p.a.row !== p.b.row && p.a.far && p.b.far, `${label}: pair ${p.la}/${p.lb} on two rows and not marked so`);
    }
  }
  return together;
}

test('the notebook: two HLO dumps offer "diff with", the cell aligns the core\'s pairs, a change entry scrolls both sides', { skip }, async (t) => {
  const { a, b } = pair('cpu-jax-0.12.0.1/mlp_grad-remat');
  const core = await coreDiff(a, b);
  const p = await openPage(chrome.browser, dist.url, { initScript: CORE_SPY });
  t.after(() => p.close());
  const { page } = p;
  await waitForNotebook(page);
  const before = (await coreCalls(page)).calls;
  const ra = await addCell(page, 'dump');
  await setDumpName(page, ra, 'plain');
  await pasteInto(page, ra, a);
  const rb = await addCell(page, 'dump');
  await setDumpName(page, rb, 'remat');
  await pasteInto(page, rb, b);
  await waitForDump(page, ra);
  await waitForDump(page, rb);
  // each offers the diff with the other, A being the cell above
  const offer = async (id) => page.$$eval(`${cell(id)} [data-testid=suggest] button`, (bs) => bs.map((x) => ({ text: x.textContent, code: x.dataset.code })));
  assert.ok((await offer(ra)).some((x) => x.text === 'diff with remat' && x.code === 'show.diff(plain, remat)'), JSON.stringify(await offer(ra)));
  const sug = (await offer(rb)).find((x) => x.text === 'diff with plain');
  assert.equal(sug?.code, 'show.diff(plain, remat)', JSON.stringify(await offer(rb)));
  await page.locator(`${cell(rb)} [data-testid=suggest] button`, { hasText: 'diff with plain' }).click();
  const ids = await cellIds(page);
  const c = ids[ids.indexOf(rb) + 1];
  const sel = `${cell(c)} xla-diff`;
  await page.waitForFunction((s) => {
    const err = document.querySelector(s.replace(' xla-diff', ' [data-testid=cell-error]'));
    if (err) throw new Error(`cell error: ${err.textContent}`);
    return document.querySelector(s)?.diff;
  }, sel, { timeout: 30000 });
  // the verdict and the counts are the core's
  assert.equal(await page.$eval(sel, (v) => v.shadowRoot.querySelector('[data-testid=verdict]').textContent), core.verdict);
  assert.equal(await page.$eval(sel, (v) => v.diff.pairs_count), core.pairs.length);
  assert.match(await page.$eval(sel, (v) => v.shadowRoot.querySelector('.col.a header').textContent), /^A: plain/);
  // every pair of the core's JSON: on one row, drawn at one height, or marked as matched elsewhere
  const places = await placesOf(page, sel, core.pairs);
  const together = checkAligned(places, 'mlp_grad-remat');
  assert.ok(together >= core.pairs.length - 10 && together > 40, `${together} of ${core.pairs.length} pairs side by side`);
  // a change entry whose lines lie far apart on the two sides: both scroll to it, highlighted
  const entries = await page.$eval(sel, (v) => v.entries);
  const want = core.fusions.filter((f) => f.change !== 'same').length + core.materialized.length + core.calls.length;
  assert.equal(entries.length, want, 'every change listed');
  for (const k of [0, entries.findIndex((e) => e.kind === 'materialized'), entries.length - 1]) {
    const e = entries[k];
    await page.locator(`${sel} >> button.entry[data-k="${k}"]`).click();
    await page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))));
    for (const side of ['a', 'b']) {
      if (!e[side].length) continue;
      const s = await shown(page, sel, side, e[side][0]);
      assert.deepEqual(s, { drawn: true, visible: true, hl: true }, `${e.title}: side ${side} line ${e[side][0]}`);
    }
  }
  // a line matched with one on another row: a click shows its partner at its own height (the
  // columns scroll apart), and "scroll together again" lines the rows up again
  const far = places.find((x) => !x.same);
  assert.ok(far, 'the pair has lines matched across rows');
  await page.evaluate(([s, la]) => { const v = document.querySelector(s); v.scrollToRow(v.rowOf('a', la)); }, [sel, far.la]);
  await page.locator(`${sel} >> .col.a .row[data-line="${far.la}"]`).click();
  await page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))));
  assert.equal(await page.$eval(sel, (v) => v.linked), false, 'the columns scrolled apart');
  const tops = await page.$eval(sel, (v, [la, lb]) => ['a', 'b'].map((side) => {
    const r = v.shadowRoot.querySelector(`.col.${side} .row[data-line="${side === 'a' ? la : lb}"]`);
    return r && { top: Math.round(r.getBoundingClientRect().top), hl: r.classList.contains('hl') };
  }), [far.la, far.lb]);
  assert.ok(tops[0] && tops[1] && tops[0].top === tops[1].top && tops[0].hl && tops[1].hl, `partner beside it: ${JSON.stringify(tops)}`);
  await page.locator(`${sel} >> button.align`).click();
  assert.equal(await page.$eval(sel, (v) => v.linked && v.scroller('a').scrollTop === v.scroller('b').scrollTop), true);
  // nothing of it ran on the page's thread
  assert.equal((await coreCalls(page)).calls, before, 'the diff and the dumps were read in the worker');
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.external, []);
});

test('the embed form: <xla-diff src-a src-b> on a course page, offline; bad input said, markup kept as text', { skip }, async (t) => {
  const core = await coreDiff(readFileSync(join(repoRoot, 'fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_grad-remat/a.after_optimizations.txt'), 'utf8'),
    readFileSync(join(repoRoot, 'fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_grad-remat/b.after_optimizations.txt'), 'utf8'));
  const p = await openPage(chrome.browser, `${site.url}tests/browser/pages/diff.html`);
  t.after(() => p.close());
  const { page } = p;
  await page.waitForFunction(() => document.querySelector('#remat')?.diff, null, { timeout: 30000 });
  assert.equal(await page.$eval('#remat', (v) => v.shadowRoot.querySelector('[data-testid=verdict]').textContent), core.verdict);
  const some = [core.pairs[0], core.pairs[Math.floor(core.pairs.length / 2)], core.pairs.at(-1)];
  checkAligned(await placesOf(page, '#remat', some), 'embed');
  // another pair set as texts
  const nofusion = pair('cpu-jax-0.10.2/mlp_softmax-nofusion');
  const core2 = await coreDiff(nofusion.a, nofusion.b);
  await page.evaluate((x) => { document.querySelector('#texts').texts = x; }, nofusion);
  await page.waitForFunction((v) => document.querySelector('#texts').diff?.verdict === v, core2.verdict, { timeout: 15000 });
  assert.match(await page.$eval('#texts', (v) => v.shadowRoot.querySelector('.col.b header').textContent), /^B: after/);
  checkAligned(await placesOf(page, '#texts', core2.pairs), 'nofusion');
  // a side that is no HLO: an error naming the side, markup shown as text, no crash
  const hostile = '<img src=x onerror="window.__pwned=1"><b>not a module</b>';
  await page.evaluate(([a, b]) => { document.querySelector('#texts').texts = { a, b }; }, [nofusion.a, hostile]);
  await page.waitForFunction(() => /diff failed/.test(document.querySelector('#texts').shadowRoot.querySelector('.status').textContent), null, { timeout: 15000 });
  assert.match(await page.$eval('#texts', (v) => v.shadowRoot.querySelector('.status').textContent), /side B/);
  assert.equal(await page.evaluate(() => document.querySelector('#texts').shadowRoot.querySelectorAll('img, b:not(header b)').length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.external, []);
});

test('a 6,000-line pair (the transformer step under jax 0.4.38 and 0.10.2): rows drawn a window at a time', { skip }, async (t) => {
  const pick = (set) => readFileSync(fixtureCases().find((c) => c.set === set && c.id === 'transformer_step').file('after_optimizations.txt'), 'utf8');
  const texts = { a: pick('cpu-jax-0.4.38'), b: pick('cpu-jax-0.10.2') };
  const core = await coreDiff(texts.a, texts.b);
  const p = await openPage(chrome.browser, `${site.url}tests/browser/pages/diff.html`);
  t.after(() => p.close());
  const { page } = p;
  await page.waitForFunction(() => customElements.get('xla-diff'));
  await page.evaluate((x) => { document.querySelector('#texts').texts = x; }, texts);
  await page.waitForFunction(() => document.querySelector('#texts').diff, null, { timeout: 30000 });
  const rows = () => page.$eval('#texts', (v) => ['a', 'b'].map((s) => v.shadowRoot.querySelectorAll(`.col.${s} .row`).length));
  for (const n of await rows()) assert.ok(n > 10 && n < 200, `${n} rows in the DOM`);
  // pairs from the start, the middle and the end of A, aligned or marked
  const pick3 = [core.pairs[5], core.pairs[Math.floor(core.pairs.length / 2)], core.pairs.at(-3)];
  checkAligned(await placesOf(page, '#texts', pick3), 'transformer_step');
  for (const n of await rows()) assert.ok(n < 200, `${n} rows in the DOM after scrolling`);
  // the listed changes are the core's, capped in the DOM and counted
  const listed = await page.$eval('#texts', (v) => ({ entries: v.entries.length, buttons: v.shadowRoot.querySelectorAll('button.entry').length }));
  const want = core.fusions.filter((f) => f.change !== 'same').length + core.materialized.length + core.calls.length
    + core.transfers.filter((x) => x.change !== 'same').length;
  assert.equal(listed.entries, want);
  assert.ok(listed.buttons <= 400 && listed.buttons === Math.min(want, 400), JSON.stringify(listed));
  assert.deepEqual(p.errors, []);
});
