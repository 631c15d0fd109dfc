// A dump file past the browser's string limit, dropped on the notebook in Chromium (issue 17,
// item 10): a Blob of `MB` megabytes (default 600; a real optimized module repeated, several
// modules in one text being valid input) is made in the page without any string, dropped on a
// dump cell, read as bytes in the worker and analysed. Prints one JSON line: the time, the
// status line, the module count (which must be the number of copies), the page's errors.
// Run: node notebook/build.mjs && node bench/bytes_big.mjs [MB]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addCell, cell, launch, openPage, repoRoot, serveDist, waitForDump, waitForNotebook } from '../tests/browser/harness.mjs';

const mb = Number(process.argv[2]) || 600;
const server = await serveDist();
const chrome = await launch();
const p = await openPage(chrome.browser, server.url);
try {
  await waitForNotebook(p.page);
  const d = await addCell(p.page, 'dump');
  const one = readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt'));
  const copies = Math.ceil(mb * 2 ** 20 / one.length);
  const t0 = Date.now();
  const size = await p.page.evaluate(({ sel, b64, copies }) => {
    const u = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const f = new File(new Array(copies).fill(u), 'big.after_optimizations.txt');
    const dt = new DataTransfer();
    dt.items.add(f);
    document.querySelector(sel).dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    return f.size;
  }, { sel: cell(d), b64: one.toString('base64'), copies });
  const meta = await waitForDump(p.page, d, 570000);
  const ms = Date.now() - t0;
  const modules = await p.page.evaluate((sel) => document.querySelector(sel)?.textContent, `${cell(d)} [data-testid=dump-meta]`);
  console.log(JSON.stringify({ bytes: size, copies, overStringLimit: size > 2 ** 29 - 24, ms, meta, modulesSaid: /(\d[\d,]*) modules/.exec(modules)?.[1] ?? null, errors: p.errors }));
} finally {
  await p.close();
  await chrome.close();
  await server.close();
}
