// A 50 MB optimized HLO, pasted and dropped: analysed in the worker, never on the page's own
// thread (the page makes no call into the wasm core while it is read, parsed and saved: counted
// with a spy, tests/browser/harness.mjs CORE_SPY), and its x-ray is virtualized and shows the
// right lines after scrolls and a jump. How long it takes and how smooth the page stays are
// figures, not assertions: bench/notebook_large.mjs runs this same scenario and prints them
// beside their goals (npm run bench:browser).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serveDist, setDumpName, skipWithoutChromium, waitForNotebook, cell } from './harness.mjs';
import { analyseAndXray, drop, paste, setupBig } from '../../bench/notebook_large.mjs';

describe('notebook with a 50 MB dump', { skip: skipWithoutChromium ?? false, timeout: 300000 }, () => {
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

  async function setup(t) {
    const r = await setupBig(chrome.browser, server.url);
    t.after(() => r.p.close());
    return r;
  }

  /** What every run must show: the analysis off the main thread, the counts, the rows. */
  function assertSeen(p, info, seen) {
    assert.equal(seen.inWorker, true, 'the notebook analyses in a Web Worker');
    assert.deepEqual(seen.core, { instances: 0, calls: 0 }, 'no call into the wasm core on the main thread while the dump is read, parsed and saved');
    assert.match(seen.meta, new RegExp(`optimized HLO · ${info.lines.toLocaleString('en-US')} lines`));
    assert.match(seen.meta, new RegExp(`${info.fusions.toLocaleString('en-US')} fusion ops`));
    assert.equal(seen.suggestion, 'x-ray of big');
    assert.match(seen.stat, new RegExp(`^${info.lines} lines decided · ${info.fusions} fusion ops`));
    const { scroll } = seen;
    assert.ok(scroll.domRows < 200, `virtualized: ${scroll.domRows} rows in the DOM`);
    assert.equal(scroll.inOrder, true, 'after small scrolls the recycled rows are consecutive lines');
    assert.deepEqual(scroll.sample.map(([, , text]) => text), seen.truth, 'each row shows its own line');
    assert.ok(Math.abs(scroll.firstVisibleLine - scroll.expectedFirstLine) <= 1,
      `the rows shown after a jump are the lines there (${scroll.firstVisibleLine} vs ${scroll.expectedFirstLine})`);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  }

  test('a 50 MB optimized HLO pasted is analysed off the main thread, and its x-ray scrolls', async (t) => {
    const { p, id, info } = await setup(t);
    const seen = await analyseAndXray(p, id, await paste(p, id));
    t.diagnostic(JSON.stringify({ core: seen.core, domRows: seen.scroll.domRows, longTasks: seen.watch.long.length }));
    assertSeen(p, info, seen);
    // Reload: the 50 MB dump comes back from IndexedDB (stored as a Blob), whole.
    const kept = await p.page.evaluate(() => {
      const ok = window.__big === window.hloscopeNotebook.state.cells.find((c) => c.name === 'big').text;
      window.__big = null;
      window.__dt = null;
      return ok;
    });
    assert.equal(kept, true, 'the cell holds exactly the pasted text');
    await p.page.reload();
    await waitForNotebook(p.page);
    // Renaming the dump while it is still being read back must not overwrite the stored copy.
    await setDumpName(p.page, id, 'large');
    await p.page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
      cell(id), { timeout: 120000, polling: 200 });
    const readBack = () => p.page.evaluate(() => {
      const c = window.hloscopeNotebook.state.cells.find((x) => x.name === 'large');
      return { length: c.text.length, head: c.text.slice(0, 40), tail: c.text.slice(-2) };
    });
    const whole = { length: info.bytes, head: 'HloModule jit_big, entry_computation_lay', tail: '}\n' };
    assert.deepEqual(await readBack(), whole);
    await p.page.waitForFunction(() => !window.hloscopeNotebook.unsaved, null, { timeout: 60000 });
    await p.page.reload();
    await waitForNotebook(p.page);
    await p.page.waitForFunction((sel) => /fusion ops/.test(document.querySelector(`${sel} [data-testid=dump-meta]`)?.textContent || ''),
      cell(id), { timeout: 120000, polling: 200 });
    assert.deepEqual(await readBack(), whole, 'still whole after a rename during the read-back and another reload');
  });

  test('a 50 MB optimized HLO dropped as a file is analysed off the main thread, and its x-ray scrolls', async (t) => {
    const { p, id, info } = await setup(t);
    const seen = await analyseAndXray(p, id, await drop(p, id));
    t.diagnostic(JSON.stringify({ core: seen.core, domRows: seen.scroll.domRows, longTasks: seen.watch.long.length }));
    assertSeen(p, info, seen);
  });
});
