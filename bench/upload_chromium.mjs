// Upload to first view (issue 37, item 3), in Chromium: from the dump cell's file input's change
// event to the cell showing its reading (format, lines, fusion ops) and its suggested views. Real
// optimized HLO (our fixtures, the shared TPU captures when present), made at bench time: ~2 MB
// (whole modules) and ~50 MB (all of them, repeated). Warm: the page's worker has analysed its
// example and warmed its core up (the page does that once it is idle); cold: the file is given the
// moment the page says it is ready (worker and wasm still starting). Prints each figure beside its goal, and where the time went: the worker's steps
// (read, core loaded, parsing, summarising, counting fusions, finding the big intermediate, sent)
// and the page's (answer received, analysis stored, meta and suggestions shown, then the text in
// the cell: its editor, or the head of a big text).
//   node notebook/build.mjs && node bench/upload_chromium.mjs [--json]   (npm run bench:chromium runs it)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { addCell, cell, launch, openPage, repoRoot, serveDist, waitForNotebook } from '../tests/browser/harness.mjs';
import { printFigures } from './goal.mjs';

/** The goals, in ms. */
export const GOALS = { small: 150, big: 1500, cold: 400 };

/** The two inputs, written under bench/out: [{ label, path, bytes }]. */
export function makeInputs() {
  const list = (args) => execFileSync('node', [join(repoRoot, 'tests/fixtures.mjs'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter(Boolean);
  let srcs = list(['fixtures', 'after_optimizations.txt']);
  try { srcs = srcs.concat(list(['shared', 'tpu-v6e', '.after_optimizations.with_frame_tables.txt'])); } catch { /* no shared captures */ }
  const texts = srcs.map((s) => readFileSync(s, 'utf8'));
  const out = join(repoRoot, 'bench/out');
  mkdirSync(out, { recursive: true });
  // ~2 MB: whole modules, largest first, until the next would pass 2 MB
  const small = [];
  let n = 0;
  for (const t of [...texts].sort((a, b) => b.length - a.length)) if (n + t.length + 1 <= 2e6) { small.push(t); n += t.length + 1; }
  const body = texts.join('\n');
  const big = Array(Math.ceil(50e6 / body.length)).fill(body).join('\n');
  const inputs = [['2 MB', 'upload-2mb.txt', small.join('\n')], ['50 MB', 'upload-50mb.txt', big]];
  return inputs.map(([label, name, text]) => {
    const path = join(out, name);
    writeFileSync(path, text);
    return { label, path, bytes: Buffer.byteLength(text) };
  });
}

/** Runs in the page: resolves when the dump cell `sel` shows its reading and suggestions; ms since the change event. */
function watchUpload(sel) {
  window.__up = new Promise((resolve) => {
    let t0 = null;
    document.addEventListener('change', (e) => { if (e.target.matches?.('input[type=file]')) t0 ??= performance.now(); }, true);
    const c = document.querySelector(sel);
    const done = () => /fusion ops/.test(c.querySelector('[data-testid=dump-meta]')?.textContent || '') && c.querySelector('[data-testid=suggest] button');
    const obs = new MutationObserver(() => {
      if (t0 == null || !done()) return;
      const t1 = performance.now();
      obs.disconnect();
      const mark = (n) => { const m = performance.getEntriesByName(n).filter((x) => x.startTime >= t0).at(-1); return m ? Math.round(m.startTime - t0) : null; };
      const r = { ms: t1 - t0, page: { analyze: mark('hs:dump:analyze'), answer: mark('hs:engine:answer'), result: mark('hs:dump:result'), stored: mark('hs:dump:stored'), shown: mark('hs:dump:shown') } };
      // the text in the cell (its editor, or its head for a big one) comes a task later
      const text = () => {
        r.page.text = mark('hs:dump:text');
        if (r.page.text == null && performance.now() - t1 < 3000) setTimeout(text, 5); else resolve(r);
      };
      text();
    });
    obs.observe(c, { subtree: true, childList: true, characterData: true });
  });
}

/** One upload of `path` into a new dump cell; `warm`: after the example's analysis. */
async function once(browser, url, path, warm) {
  const p = await openPage(browser, url);
  try {
    if (warm) {
      await waitForNotebook(p.page);
      await p.page.waitForFunction(() => window.hloscopeNotebook.warmed, null, { timeout: 60000 });
    }
    else await p.page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60000, polling: 5 });
    const id = await addCell(p.page, 'dump');
    await p.page.evaluate(watchUpload, cell(id));
    // the way a person does: the cell's Upload button, then the file chooser
    const [chooser] = await Promise.all([p.page.waitForEvent('filechooser'), p.page.click(`${cell(id)} [data-action=upload]`)]);
    await chooser.setFiles(path);
    const r = await p.page.evaluate(() => window.__up);
    // the worker's steps, from its answer (the dump cell marks it)
    r.worker = await p.page.evaluate(() => performance.getEntriesByName('hs:dump:result').at(-1)?.detail?.steps ?? null);
    if (p.errors.length) throw new Error(p.errors.join('; '));
    return r;
  } finally {
    await p.close();
  }
}

export async function measureUpload({ rounds = 3 } = {}) {
  const inputs = makeInputs();
  const server = await serveDist();
  const chrome = await launch();
  const out = [];
  try {
    for (const inp of inputs) {
      for (const warm of [true, false]) {
        const runs = [];
        for (let r = 0; r < rounds; r++) runs.push(await once(chrome.browser, server.url, inp.path, warm));
        runs.sort((a, b) => a.ms - b.ms);
        out.push({ input: inp.label, bytes: inp.bytes, warm, median: runs[runs.length >> 1], runs: runs.map((x) => Math.round(x.ms)) });
      }
    }
  } finally {
    await chrome.close();
    await server.close();
  }
  return out;
}

export function printUpload(rows) {
  const goal = (r) => (r.input === '2 MB' ? GOALS.small : GOALS.big) + (r.warm ? 0 : GOALS.cold);
  printFigures('upload to first view (file input change -> the dump cell\'s reading and suggested views; median of runs)',
    rows.map((r) => [`${r.input} dump, ${r.warm ? 'worker started' : 'cold page'} (runs ${r.runs.join(', ')} ms)`, r.median.ms, 'ms', goal(r)]));
  for (const r of rows) {
    const w = (r.median.worker || []).map(([n, t]) => `${n} ${t}`).join(', ');
    const p = Object.entries(r.median.page).map(([n, t]) => `${n} ${t}`).join(', ');
    console.log(`  ${r.input} ${r.warm ? 'warm' : 'cold'}: page (ms after change): ${p}; worker (ms after its start): ${w}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await measureUpload();
  printUpload(rows);
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
}
