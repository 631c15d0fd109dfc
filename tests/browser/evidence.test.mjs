// Results that never mislead (issue 17, items 1, 2, 3 and 5), in Chromium on real dumps: the
// shared TPU captures read in place (skipped with a message when ../shared is absent) and our
// own capture's dump folder.
//  1. a dump is paired by evidence (module name, entry signature), not by position: another
//     program is not offered as the first x-ray, and the x-ray says so when asked anyway;
//  2. HLO before optimizations is named so, offers no kernel views and makes no spill claim;
//  3. a dump cut before its entry computation says "partial" in every view and names no big
//     intermediate;
//  5. the carrier count follows DESIGN.md's rule; the other lines of that type are context.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addCell, cell, cellIds, launch, openPage, pasteInto, repoRoot, runWithShiftEnter, serveDist, setDumpName, shared, sharedAbsent,
  skipWithoutChromium, typeInto, waitForDump, waitForNotebook, waitForXray,
} from './harness.mjs';

const NAIVE = join(repoRoot, 'fixtures/cpu-jax-0.4.38/naive_attention');
const TPU = 'captures/tpu-v6e';

describe('results that never mislead', { skip: skipWithoutChromium ?? false, timeout: 300000 }, () => {
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

  async function suggestions(page, id) {
    return page.$$eval(`${cell(id)} [data-testid=suggest] button`, (bs) => bs.map((b) => ({ text: b.textContent, primary: b.classList.contains('primary'), code: b.dataset.code })));
  }

  async function runCode(page, code) {
    const c = await addCell(page, 'code');
    await typeInto(page, c, code);
    await runWithShiftEnter(page, c);
    return c;
  }

  test('1: pairs by evidence: another program under the example is not x-rayed with it first', async (t) => {
    const gelu = shared(`${TPU}/jit_gelu_mlp.after_optimizations.trimmed.txt`);
    const geluIn = shared(`${TPU}/jit_gelu_mlp.stablehlo.mlir`);
    if (!gelu || !geluIn) { t.skip(sharedAbsent('tpu-v6e')); return; }
    const p = await open(t);
    // The example notebook holds naive attention (stablehlo, hlo); the user adds their own HLO.
    const mine = await addCell(p.page, 'dump');
    await setDumpName(p.page, mine, 'mine');
    await pasteInto(p.page, mine, readFileSync(gelu, 'utf8'));
    await waitForDump(p.page, mine);
    let s = await suggestions(p.page, mine);
    assert.equal(s[0].text, 'x-ray of mine', 'the first suggestion is the dump on its own');
    assert.ok(s.some((x) => x.text === 'x-ray stablehlo → mine (different program?)' && !x.primary), JSON.stringify(s));
    // The user's own StableHLO, added below, pairs with the user's HLO, not with the example's above it.
    const mineIn = await addCell(p.page, 'dump');
    await setDumpName(p.page, mineIn, 'mine_in');
    await pasteInto(p.page, mineIn, readFileSync(geluIn, 'utf8'));
    await waitForDump(p.page, mineIn);
    s = await suggestions(p.page, mineIn);
    assert.equal(s[0].text, 'x-ray mine_in → mine');
    s = await suggestions(p.page, mine);
    assert.equal(s[0].text, 'x-ray mine_in → mine');
    // Asked for anyway, the x-ray of two programs says so plainly.
    const c = await runCode(p.page, 'show.xray(stablehlo, mine)');
    await waitForXray(p.page, c);
    const notice = await p.page.$eval(`${cell(c)} xla-xray`, (x) => x.shadowRoot.querySelector('[data-testid=partial]').textContent);
    assert.match(notice, /two different programs \(module jit_naive_attention vs jit_gelu_mlp/);
    assert.deepEqual(p.errors, []);
  });

  test('2: HLO before optimizations is named so and makes no spill or HBM claim', async (t) => {
    const p = await open(t);
    const file = join(NAIVE, 'dump/module_0001.jit_naive_attention.before_optimizations.txt');
    const text = readFileSync(file, 'utf8');
    assert.ok(!/is_scheduled=true/.test(text) && !/ fusion\(/.test(text), 'the capture is unscheduled and unfused');
    const d = await addCell(p.page, 'dump');
    await setDumpName(p.page, d, 'pre');
    await pasteInto(p.page, d, text);
    const meta = await waitForDump(p.page, d);
    assert.match(meta, /^HLO before optimizations · 43 lines/);
    assert.doesNotMatch(meta, /fusion ops/);
    const s = await suggestions(p.page, d);
    assert.deepEqual(s.map((x) => x.text), ['summary'], 'no x-ray or fusion table of kernels not decided yet');
    const c = await runCode(p.page, 'show.summary(pre)');
    await p.page.waitForSelector(`${cell(c)} xla-summary >> css=.card:not([hidden]) dl`);
    const card = await p.page.$eval(`${cell(c)} xla-summary`, (x) => x.shadowRoot.textContent);
    const rows = await p.page.$eval(`${cell(c)} xla-summary`, (x) => [...x.shadowRoot.querySelectorAll('dt')].map((dt) => dt.textContent));
    assert.match(card, /HLO before optimizations/);
    assert.match(card, /stage.*before optimizations/);
    assert.deepEqual(rows.filter((r) => /spill|HBM|big intermediate/.test(r)), [], 'no spill, HBM or big-intermediate row');
    assert.doesNotMatch(card, /so it spills|writes it to HBM/);
    assert.match(card, /nothing can be said about spills or HBM traffic/);
    // The same text uploaded under the dump folder's own file name: the name is evidence too.
    const up = await addCell(p.page, 'dump');
    await p.page.setInputFiles(`${cell(up)} [data-testid=dump-file]`, file);
    assert.match(await waitForDump(p.page, up), /^HLO before optimizations/);
    assert.deepEqual(p.errors, []);
  });

  test('3: a dump cut before its entry says partial in every view and names no big intermediate', async (t) => {
    const p = await open(t);
    const whole = readFileSync(join(NAIVE, 'after_optimizations.txt'), 'utf8');
    let cut = Math.floor(whole.length * 0.6);
    cut = whole.lastIndexOf('\n', cut) + 1;
    const text = whole.slice(0, cut);
    assert.ok(!text.includes('\nENTRY '), 'the cut is before the entry computation');
    const lines = text.split('\n').length - 1;
    // The computation the text ends in: the last one opened, from the text itself.
    const inside = [...text.matchAll(/^%([\w.-]+) /gm)].pop()[1];
    const d = await addCell(p.page, 'dump');
    await setDumpName(p.page, d, 'cut');
    await pasteInto(p.page, d, text);
    const meta = await waitForDump(p.page, d);
    const want = `partial: the dump ends at line ${lines} inside ${inside}`;
    assert.ok(meta.includes(want), `${meta} names the cut`);
    const c = await runCode(p.page, 'show.summary(cut)\nshow.fusions(cut)\nshow.xray(null, cut)');
    await waitForXray(p.page, c);
    await p.page.waitForSelector(`${cell(c)} xla-summary >> css=.card:not([hidden]) dl`);
    const views = await p.page.$eval(cell(c), (el) => ['xla-summary', 'xla-fusion-table', 'xla-xray'].map((tag) => {
      const v = el.querySelector(tag);
      return { tag, partial: v.shadowRoot.querySelector('[data-testid=partial]')?.textContent ?? '', all: v.shadowRoot.textContent };
    }));
    for (const v of views) assert.ok(v.partial.includes(want), `${v.tag} says "${want}": ${v.partial}`);
    const card = views[0].all;
    const rows = await p.page.$eval(`${cell(c)} xla-summary`, (x) => [...x.shadowRoot.querySelectorAll('dt')].map((dt) => dt.textContent));
    assert.deepEqual(rows.filter((r) => /spill|HBM|big intermediate/.test(r)), [], 'no spill, HBM or big-intermediate row');
    assert.doesNotMatch(card, /so it spills|writes it to HBM/);
    assert.match(card, /ends before its entry computation/);
    assert.doesNotMatch(views[2].all, / carry /, 'the x-ray counts no carriers');
    assert.deepEqual(p.errors, []);
  });

  test('4: several modules in one text: a module column, a picker, sorting by size', async (t) => {
    const p = await open(t);
    // Two of our captures pasted as one text; XLA's own protos (oracle.json) say which fusions each holds.
    const ids = ['softmax', 'layernorm'];
    const dir = (id) => join(repoRoot, 'fixtures/cpu-jax-0.4.38', id);
    const text = ids.map((id) => readFileSync(join(dir(id), 'after_optimizations.txt'), 'utf8')).join('\n');
    const oracle = ids.map((id) => JSON.parse(readFileSync(join(dir(id), 'oracle.json'), 'utf8')).modules[0]);
    const fusionsOf = (m) => m.computations.flatMap((c) => c.instructions).filter((i) => i.opcode === 'fusion').map((i) => i.name).sort();
    const d = await addCell(p.page, 'dump');
    await setDumpName(p.page, d, 'two');
    await pasteInto(p.page, d, text);
    await waitForDump(p.page, d);
    const c = await runCode(p.page, 'show.fusions(two)\nshow.summary(two)');
    const sel = `${cell(c)} xla-fusion-table`;
    await p.page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('tbody tr'), sel);
    const read = () => p.page.$eval(sel, (x) => ({
      head: [...x.shadowRoot.querySelectorAll('th')].map((th) => th.textContent),
      rows: [...x.shadowRoot.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
      options: [...x.shadowRoot.querySelectorAll('[data-testid=module-picker] option')].map((o) => o.value),
    }));
    let v = await read();
    await p.page.waitForSelector(`${cell(c)} xla-summary >> css=.card:not([hidden]) dl`);
    const card = await p.page.$eval(`${cell(c)} xla-summary`, (x) => x.shadowRoot.textContent);
    assert.ok(card.includes(`modules2: ${oracle.map((m) => m.name).join(', ')}`), `the summary names the modules: ${card}`);
    assert.deepEqual(v.head, ['fusion', 'kind', 'ops held', 'output type', 'size', 'memory space', 'module']);
    assert.deepEqual(v.options, ['', ...oracle.map((m) => m.name)]);
    for (const m of oracle) {
      assert.deepEqual(v.rows.filter((r) => r[6] === m.name).map((r) => r[0]).sort(), fusionsOf(m), `fusions of ${m.name}`);
    }
    // Pick one module.
    await p.page.locator(`${sel} [data-testid=module-picker]`).selectOption(oracle[1].name);
    v = await read();
    assert.deepEqual(v.rows.map((r) => r[0]).sort(), fusionsOf(oracle[1]));
    // Sort by size, largest first: bytes from each row's own type text.
    await p.page.locator(`${sel} [data-testid=module-picker]`).selectOption('');
    await p.page.locator(`${sel} th button[data-key=bytes]`).click();
    v = await read();
    const W = { f32: 4, bf16: 2, f16: 2, s32: 4, u32: 4, pred: 1, s8: 1, u8: 1, f64: 8, s64: 8 };
    const bytes = (ty) => [...ty.matchAll(/(\w+)\[([\d,]*)\]/g)].reduce((sum, [, dt, dims]) =>
      sum + (W[dt] ?? 0) * dims.split(',').filter(Boolean).reduce((a, n) => a * Number(n), 1), 0);
    const sizes = v.rows.map((r) => bytes(r[3]));
    assert.deepEqual(sizes, [...sizes].sort((a, b) => b - a), `rows by size: ${v.rows.map((r) => r[3]).join(' ')}`);
    // One bad module: the others are read, and the bad one is named with its error.
    const lines = readFileSync(join(dir(ids[1]), 'after_optimizations.txt'), 'utf8').split('\n');
    const at = lines.findIndex((l) => / fusion\(/.test(l));
    lines[at] = '  this line is not HLO';
    const bad = `${readFileSync(join(dir(ids[0]), 'after_optimizations.txt'), 'utf8')}\n${lines.join('\n')}`;
    const e = await addCell(p.page, 'dump');
    await setDumpName(p.page, e, 'one_bad');
    await pasteInto(p.page, e, bad);
    await p.page.waitForSelector(`${cell(e)} [data-testid=module-error]`);
    const meta = await p.page.textContent(`${cell(e)} [data-testid=dump-meta]`);
    assert.match(meta, new RegExp(`module ${oracle[1].name} not read: .*\\(line ${bad.split('\n').indexOf(lines[at]) + 1}, column \\d+\\)`));
    const c2 = await runCode(p.page, 'show.fusions(one_bad)');
    const sel2 = `${cell(c2)} xla-fusion-table`;
    await p.page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('tbody tr'), sel2);
    const names = await p.page.$eval(sel2, (x) => [...x.shadowRoot.querySelectorAll('tbody tr')].map((tr) => tr.children[0].textContent));
    assert.deepEqual(names.sort(), fusionsOf(oracle[0]));
    assert.deepEqual(p.errors, []);
  });

  test('5: carriers are the lines a learner acts on; other lines of that type are context', async (t) => {
    const left = shared(`${TPU}/jit_naive_attention.stablehlo.mlir`);
    const right = shared(`${TPU}/jit_naive_attention.after_optimizations.trimmed.txt`);
    if (!left || !right) { t.skip(sharedAbsent('tpu-v6e')); return; }
    const p = await open(t);
    const rt = readFileSync(right, 'utf8').split('\n');
    // DESIGN.md (checked by hand): the fused computation's ROOT convolution, the kOutput fusion
    // that writes it, the online-softmax custom call that reads it.
    const want = [/ROOT %convolution/, /kind=kOutput/, /ROOT %online-softmax/].map((re) => rt.findIndex((l) => re.test(l)) + 1);
    const typed = rt.map((l, i) => (/=\s*bf16\[1024,1024\]|-> bf16\[1024,1024\]/.test(l) ? i + 1 : 0)).filter(Boolean);
    const a = await addCell(p.page, 'dump');
    await setDumpName(p.page, a, 'tin');
    await pasteInto(p.page, a, readFileSync(left, 'utf8'));
    const b = await addCell(p.page, 'dump');
    await setDumpName(p.page, b, 'tout');
    await pasteInto(p.page, b, readFileSync(right, 'utf8'));
    await waitForDump(p.page, a);
    await waitForDump(p.page, b);
    const c = await runCode(p.page, 'show.xray(tin, tout)');
    const stat = await waitForXray(p.page, c);
    assert.match(stat, / 3 carry bf16\[1024,1024\]$/);
    const got = await p.page.$eval(`${cell(c)} xla-xray`, (x) => {
      const rows = [...x.shadowRoot.querySelectorAll('.col.right .row')];
      const lines = (cls) => rows.filter((r) => r.classList.contains(cls)).map((r) => Number(r.dataset.line));
      return { counted: lines('u'), context: lines('uc'), legend: x.shadowRoot.querySelector('.legend').textContent };
    });
    assert.deepEqual(got.counted, want);
    for (const l of typed) if (!want.includes(l)) assert.ok(got.context.includes(l), `line ${l} (of that type) is context`);
    assert.match(got.legend, /the line that computes it, the kernel that writes it, each kernel that reads it/);
    assert.match(got.legend, /context, not counted/);
    assert.deepEqual(p.errors, []);
  });
});
