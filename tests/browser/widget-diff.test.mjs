// The Python package's widget front end (notebook/jupyter/src/widget.js, bundled into
// hloscope/static/widget.mjs) for `hloscope.diff(a, b)`: kind 'diff' shows the same <xla-diff>
// as the notebook, the diff computed in the page by the bundled core. Driven here with a model
// of the anywidget shape ({ get, on, off }) on a plain page in Chromium, so it runs without
// JupyterLab (tests/jupyter/jupyter.test.mjs runs it inside JupyterLab too): the verdict is the
// core's (the JS API in Node), the matched lines of the core's pairs sit on one row or are marked,
// and a side that does not parse is said by name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openPage, repoRoot, skipWithoutChromium } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { diffPairs } from '../fixtures.mjs';

const bundle = join(repoRoot, 'notebook/jupyter/hloscope/static/widget.mjs');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;

let server;
let chrome;
before(async () => {
  if (skip) return;
  if (!existsSync(bundle) || process.env.HLOSCOPE_REBUILD === '1') {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/jupyter/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  await server?.close();
});

/** In the page: renders the widget for { kind, left, right } into #out with a fake model. */
function render(page, model) {
  return page.evaluate(async ([url, m]) => {
    const mod = await import(url);
    const host = document.createElement('div');
    host.id = 'out';
    document.body.replaceChildren(host);
    const fake = { get: (k) => m[k] ?? '', on() {}, off() {} };
    mod.default.render({ model: fake, el: host });
  }, [`${server.url}notebook/jupyter/hloscope/static/widget.mjs`, model]);
}

test('hloscope.diff\'s widget: the same <xla-diff>, the core\'s verdict, pairs aligned; a bad side named', { skip }, async (t) => {
  const p = diffPairs().find((c) => c.label === 'cpu-jax-0.4.38/mlp_softmax-nofusion');
  const a = readFileSync(p.file('a.after_optimizations.txt'), 'utf8');
  const b = readFileSync(p.file('b.after_optimizations.txt'), 'utf8');
  const hs = await import(join(repoRoot, 'wasm/hloscope.mjs'));
  await hs.load();
  const core = hs.diff(a, b);
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/diff.html`);
  t.after(close);
  await render(page, { kind: 'diff', left: a, right: b });
  await page.waitForFunction(() => document.querySelector('#out xla-diff')?.diff, null, { timeout: 30000 });
  assert.equal(await page.$eval('#out xla-diff', (v) => v.shadowRoot.querySelector('[data-testid=verdict]').textContent), core.verdict);
  const rows = await page.$eval('#out xla-diff', (v, pairs) => pairs.map(([la, lb]) => {
    const same = v.rowOf('a', la) === v.rowOf('b', lb);
    return same || (v.rowOf('a', la) >= 0 && v.rowOf('b', lb) >= 0);
  }), core.pairs);
  assert.ok(rows.every(Boolean), 'every pair has its rows');
  const together = await page.$eval('#out xla-diff', (v, pairs) => pairs.filter(([la, lb]) => v.rowOf('a', la) === v.rowOf('b', lb)).length, core.pairs);
  assert.ok(together > core.pairs.length / 2, `${together} of ${core.pairs.length} side by side`);
  // B is no HLO: the widget's error line names the side
  await render(page, { kind: 'diff', left: a, right: 'not a module <b>x</b>' });
  await page.waitForSelector('#out [data-testid=hloscope-error]', { timeout: 15000 });
  const err = await page.textContent('#out [data-testid=hloscope-error]');
  assert.match(err, /^hloscope: .*\(b side/, err);
  assert.equal(await page.$$eval('#out b', (bs) => bs.length), 0, 'markup shown as text');
  assert.deepEqual(errors, []);
  assert.deepEqual(external, []);
});
