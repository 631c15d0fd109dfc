// Views own their work (issue 9, the review's bugs 1 and 2), in real Chromium on the served
// notebook:
//  - a standalone <xla-summary> or <xla-fusion-table> given a text analyses it under its own
//    engine key, and forgets it when given another text or removed from the page, so the
//    worker holds no text of a view that is gone;
//  - an error the worker reports arrives as an HloscopeError (instanceof works), with its code;
//  - <xla-memory>, <xla-padding>, <xla-levels> and <xla-pipeline> read their inputs in the worker:
//    no call into the core on the page's main thread (a spy on the page's wasm exports counts 0),
//    and the worker's own calls, counted by name, are the work each view needs: the levels view
//    parses its HLO once for eight .ll parts (the text form parsed it nine times).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SPY, addCell, cell, coreCalls, launch, openPage, pasteInto, repoRoot, runWithShiftEnter, serveDist, setDumpName,
  skipWithoutChromium, typeInto, waitForDump, waitForNotebook } from './harness.mjs';

const HLO = join(repoRoot, 'fixtures/cpu-jax-0.4.38/softmax/after_optimizations.txt');
const LEVELS = join(repoRoot, 'fixtures/levels/cpu-jax-0.4.38/softmax');
const MEMORY = join(repoRoot, 'fixtures/cpu-jax-0.10.2/gqa/dump/module_0000.jit_gqa.cpu_after_optimizations-buffer-assignment.txt');
const MEMORY_HLO = join(repoRoot, 'fixtures/cpu-jax-0.10.2/gqa/dump/module_0000.jit_gqa.cpu_after_optimizations.txt');
const LISTING_A = join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/attention/FILES.txt');
const LISTING_B = join(repoRoot, 'fixtures/passes/cpu-jax-0.12.0.1/attention/FILES.txt');
const ARCHIVE = join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/attention/dump.tar.gz');

describe('views own their work', { skip: skipWithoutChromium ?? false, timeout: 120000 }, () => {
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

  async function open(t, opts = {}) {
    const p = await openPage(chrome.browser, server.url, opts);
    t.after(() => p.close());
    await waitForNotebook(p.page);
    assert.equal(await p.page.evaluate(() => window.hloscopeNotebook.analysisInWorker), true, 'analyses run in the worker');
    return p;
  }

  test('a standalone view\'s text is released when the view is given another text or removed', async (t) => {
    const p = await open(t);
    const text = readFileSync(HLO, 'utf8');
    const res = await p.page.evaluate(async (text) => {
      const drawn = (v, sel) => new Promise((ok) => {
        const check = () => (v.shadowRoot.querySelector(sel) ? ok() : requestAnimationFrame(check));
        check();
      });
      const keys = () => window.hloscopeNotebook.engineKeys();
      const s = document.createElement('xla-summary');
      const f = document.createElement('xla-fusion-table');
      document.body.append(s, f);
      s.text = text;
      f.text = text;
      await Promise.all([drawn(s, '.card:not([hidden]) dl'), drawn(f, 'tbody tr')]);
      const first = { s: s.engineKey, f: f.engineKey };
      const held = await keys();
      // A new text replaces the old one in the worker.
      s.text = `${text}\n`;
      await drawn(s, '.card:not([hidden]) dl');
      const second = s.engineKey;
      const afterReplace = await keys();
      s.remove();
      f.remove();
      const afterRemove = await keys();
      return { first, second, held, afterReplace, afterRemove, released: [s.engineKey, f.engineKey] };
    }, text);
    assert.ok(res.first.s && res.first.f, 'each view analyses under its own key');
    assert.ok(res.held.includes(res.first.s) && res.held.includes(res.first.f), 'the worker holds both texts while shown');
    assert.ok(!res.afterReplace.includes(res.first.s), 'a replaced text is forgotten');
    assert.ok(res.afterReplace.includes(res.second), 'the new text is held');
    assert.ok(!res.afterRemove.includes(res.second) && !res.afterRemove.includes(res.first.f),
      `removed views hold nothing in the worker (still held: ${res.afterRemove.join(', ')})`);
    assert.deepEqual(res.released, [null, null]);
    assert.deepEqual(p.errors, []);
  });

  test('the memory, padding, levels and pipeline views read in the worker: no core call on the page\'s thread; the levels HLO parsed once', async (t) => {
    const p = await open(t, { initScript: CORE_SPY });
    const part = (level, i) => readFileSync(join(LEVELS, `module_0001.jit_softmax.ir-${level}.part_0${i}.ll`), 'utf8');
    const inputs = {
      memory: readFileSync(MEMORY, 'utf8'),
      hlo: readFileSync(HLO, 'utf8'),
      levels: {
        hlo: readFileSync(join(LEVELS, 'module_0001.jit_softmax.cpu_after_optimizations.txt'), 'utf8'),
        noopt: [0, 1, 2, 3].map((i) => part('no-opt', i)),
        opt: [0, 1, 2, 3].map((i) => part('with-opt', i)),
      },
      listingA: readFileSync(LISTING_A, 'utf8'),
      listingB: readFileSync(LISTING_B, 'utf8'),
      // a picked folder (the levels' files and a decoy) and a dropped archive: Files, read in the worker
      folder: [...['module_0001.jit_softmax.cpu_after_optimizations.txt', ...['no-opt', 'with-opt'].flatMap((l) => [0, 1, 2, 3].map((i) => `module_0001.jit_softmax.ir-${l}.part_0${i}.ll`))]
        .map((n) => ({ name: `softmax/${n}`, text: readFileSync(join(LEVELS, n), 'utf8') })), { name: 'softmax/notes.md', text: 'not a dump file' }],
      archive: [...readFileSync(ARCHIVE)],
    };
    const main0 = await coreCalls(p.page);
    const res = await p.page.evaluate(async (inputs) => {
      const calls = () => window.hloscopeNotebook.engineCalls();
      // what the worker called between two counts (the op queue runs in order: a count taken
      // after a view is drawn holds all of that view's work)
      const work = (a, b) => Object.fromEntries(Object.keys(b).filter((k) => b[k] !== (a[k] ?? 0)).map((k) => [k, b[k] - (a[k] ?? 0)]));
      const once = (el, ev) => new Promise((ok) => el.addEventListener(ev, (e) => ok(e), { once: true }));
      const until = (f) => new Promise((ok) => { const check = () => (f() ? ok() : requestAnimationFrame(check)); check(); });
      // the example notebook's own cells (its x-ray) finish first: the worker is quiet for 500 ms
      for (let last = JSON.stringify(await calls()), quiet = 0; quiet < 5; quiet++) {
        await new Promise((ok) => setTimeout(ok, 100));
        const now = JSON.stringify(await calls());
        if (now !== last) { last = now; quiet = -1; }
      }
      const out = {};
      const status = (v) => v.shadowRoot.querySelector('.status, [data-testid="pipeline-status"]')?.textContent ?? '';

      let c0 = await calls();
      const m = document.createElement('xla-memory');
      document.body.append(m);
      const read = once(m, 'xla-memory-read');
      m.text = inputs.memory;
      const mem = (await read).detail;
      out.memory = { work: work(c0, await calls()), kind: mem.kind, rows: m.shadowRoot.querySelectorAll('[data-testid="allocation"]').length, data: m.data === mem };

      c0 = await calls();
      const pad = document.createElement('xla-padding');
      document.body.append(pad);
      pad.text = inputs.hlo;
      await until(() => pad.shadowRoot.querySelector('[data-testid="padding-row"]') || /layouts:/.test(status(pad)));
      out.padding = { work: work(c0, await calls()), rows: pad.shadowRoot.querySelectorAll('[data-testid="padding-row"]').length, values: pad.data?.values, status: status(pad) };

      // a levels view given its input by `give`, and what it showed, with the worker's work for it
      const levelsView = async (give) => {
        const c = await calls();
        const v = document.createElement('xla-levels');
        document.body.append(v);
        const ready = once(v, 'levels-ready');
        give(v);
        const ev = await ready;
        return [v, { work: work(c, await calls()), kernels: ev.detail.kernels, sections: v.shadowRoot.querySelectorAll('section.level').length, status: status(v) }];
      };
      const [lv, levels] = await levelsView((v) => { v.texts = inputs.levels; });
      out.levels = levels;

      c0 = await calls();
      const pp = document.createElement('xla-pipeline');
      document.body.append(pp);
      const loaded = once(pp, 'pipeline-load');
      await pp.load(inputs.listingA);
      const detail = (await loaded).detail;
      await pp.load(inputs.listingB, 'b');
      out.pipeline = { work: work(c0, await calls()), label: detail.label, files: pp.data?.files.length, compared: pp.compareData?.passes.length ?? 0, status: status(pp) };

      // the same two views given Files (a folder picked, an archive dropped): the core's rules
      // (which files hold the levels, the archive's sniff and walk) run in the worker too
      const [lf, levelsFiles] = await levelsView((v) => {
        v.folder = inputs.folder.map((f) => ({ name: f.name, file: new File([f.text], f.name.split('/').pop()) }));
      });
      out.levelsFiles = levelsFiles;

      c0 = await calls();
      const pa = document.createElement('xla-pipeline');
      document.body.append(pa);
      const loadedA = once(pa, 'pipeline-load');
      await pa.load([{ name: 'dump.tar.gz', file: new File([new Uint8Array(inputs.archive)], 'dump.tar.gz') }]);
      const detailA = (await loadedA).detail;
      out.pipelineArchive = { work: work(c0, await calls()), label: detailA.label, files: pa.data?.files.length, status: status(pa) };
      for (const v of [m, pad, lv, pp, lf, pa]) v.remove();
      return out;
    }, inputs);
    const main1 = await coreCalls(p.page);
    t.diagnostic(JSON.stringify(res));
    assert.equal(main1.calls - main0.calls, 0, `the page's main thread called the core: ${JSON.stringify(main1.byExport)}`);
    assert.equal(main1.instances, main0.instances, 'no core was started on the main thread');

    assert.equal(res.memory.kind, 'buffer_assignment');
    assert.ok(res.memory.rows > 0 && res.memory.data);
    assert.equal(res.memory.work.readMemory, 1);

    assert.ok(res.padding.rows > 0 && res.padding.values > 0, res.padding.status);
    assert.equal(res.padding.work.parse, 1, 'the padding table: one parse');
    assert.equal(res.padding.work.layouts ?? 0, 0, 'not layouts(text), which parses again');

    assert.equal(res.levels.status, '');
    assert.equal(res.levels.sections, 3);
    assert.ok(res.levels.kernels.length >= 1);
    assert.equal(res.levels.work.parse, 1, 'the levels view parses its HLO once');
    assert.equal(res.levels.work.readLlvm, 8, 'each of the eight .ll parts read once, joined to that document');
    assert.deepEqual(Object.keys(res.levels.work).filter((k) => !['load', 'parse', 'readLlvm'].includes(k)), [], 'no other core work');

    assert.equal(res.pipeline.label, 'listing');
    assert.equal(res.pipeline.files, inputs.listingA.split('\n').filter(Boolean).length);
    assert.ok(res.pipeline.compared > 0, res.pipeline.status);
    assert.deepEqual([res.pipeline.work.readPasses, res.pipeline.work.comparePasses], [1, 1]);

    assert.equal(res.levelsFiles.status, '');
    assert.equal(res.levelsFiles.sections, 3);
    assert.deepEqual(res.levelsFiles.kernels, res.levels.kernels, 'a picked folder shows what its three texts show');
    assert.deepEqual([res.levelsFiles.work.dumpLevels, res.levelsFiles.work.parse, res.levelsFiles.work.readLlvm], [1, 1, 8],
      'the core picks the files in the worker; the HLO parsed once, each .ll part read once');

    assert.equal(res.pipelineArchive.label, 'dump.tar.gz');
    assert.ok(res.pipelineArchive.files > 0, res.pipelineArchive.status);
    assert.equal(res.pipelineArchive.work.readArchive, 1, 'the archive walked in the worker');
    assert.equal(res.pipelineArchive.work.readPasses, 1);
    assert.deepEqual(p.errors, []);
  });

  test('without a worker the same four views read on the page (the engine\'s fallback)', async (t) => {
    const p = await openPage(chrome.browser, server.url, { initScript: 'window.Worker = undefined;' });
    t.after(() => p.close());
    await waitForNotebook(p.page);
    assert.equal(await p.page.evaluate(() => window.hloscopeNotebook.analysisInWorker), false);
    const part = (level) => readFileSync(join(LEVELS, `module_0001.jit_softmax.ir-${level}.part_00.ll`), 'utf8');
    const inputs = { memory: readFileSync(MEMORY, 'utf8'), hlo: readFileSync(HLO, 'utf8'), listing: readFileSync(LISTING_A, 'utf8'),
      levels: { hlo: readFileSync(join(LEVELS, 'module_0001.jit_softmax.cpu_after_optimizations.txt'), 'utf8'), noopt: [part('no-opt')], opt: [part('with-opt')] } };
    const res = await p.page.evaluate(async (inputs) => {
      const once = (el, ev) => new Promise((ok) => el.addEventListener(ev, (e) => ok(e), { once: true }));
      const until = (f) => new Promise((ok) => { const check = () => (f() ? ok() : requestAnimationFrame(check)); check(); });
      const [m, pad, lv, pp] = ['xla-memory', 'xla-padding', 'xla-levels', 'xla-pipeline'].map((n) => document.body.appendChild(document.createElement(n)));
      const read = once(m, 'xla-memory-read');
      m.text = inputs.memory;
      pad.text = inputs.hlo;
      const ready = once(lv, 'levels-ready');
      lv.texts = inputs.levels;
      await pp.load(inputs.listing);
      await Promise.all([read, ready, until(() => pad.data)]);
      return { memory: m.data?.kind, padding: pad.data?.values, levels: lv.shadowRoot.querySelectorAll('section.level').length, files: pp.data?.files.length, calls: await window.hloscopeNotebook.engineCalls() };
    }, inputs);
    assert.deepEqual(res, { memory: 'buffer_assignment', padding: 15, levels: 3, files: inputs.listing.split('\n').filter(Boolean).length, calls: {} });
    assert.deepEqual(p.errors, []);
  });

  test('show.memory(report, hlo) joins the report to its HLO in the worker', async (t) => {
    const p = await open(t, { initScript: CORE_SPY });
    for (const [name, file] of [['ba', MEMORY], ['h', MEMORY_HLO]]) {
      const d = await addCell(p.page, 'dump');
      await setDumpName(p.page, d, name);
      await pasteInto(p.page, d, readFileSync(file, 'utf8'));
      await waitForDump(p.page, d);
    }
    const main0 = await coreCalls(p.page);
    const c = await addCell(p.page, 'code');
    await typeInto(p.page, c, 'show.memory(ba, h)');
    await runWithShiftEnter(p.page, c);
    const v = `${cell(c)} xla-memory`;
    await p.page.locator(`${v} [data-testid="allocation"]`).first().waitFor({ timeout: 30000 });
    const totals = await p.page.evaluate((sel) => document.querySelector(sel).data.totals, v);
    assert.ok(totals.values_joined > 0, `the values are joined to the HLO's instructions: ${JSON.stringify(totals)}`);
    assert.equal((await coreCalls(p.page)).calls - main0.calls, 0, 'read and joined in the worker');
    assert.deepEqual(p.errors, []);
  });

  test('an error from the worker is an HloscopeError, in a code cell and on a view', async (t) => {
    const p = await open(t);
    const c = await addCell(p.page, 'code');
    await typeInto(p.page, c, [
      "const x = document.createElement('xla-xray');",
      'show(x);',
      "const e = await new Promise((ok) => { x.addEventListener('xray-error', (ev) => ok(ev.detail.error)); x.left = 'this is not a dump'; x.right = 'HloModule m\\n\\nENTRY %e { ROOT %p = f32[ parameter(0) }'; });",
      "print(String(e instanceof HloscopeError), e.name, e.code, e.side ?? '')",
    ].join('\n'));
    await runWithShiftEnter(p.page, c);
    await p.page.waitForSelector(`${cell(c)} .output pre.out-text`);
    const out = await p.page.textContent(`${cell(c)} .output pre.out-text`);
    assert.match(out, /^true HloscopeError HS_E_\w+/);
    assert.deepEqual(p.errors, []);
  });
});
