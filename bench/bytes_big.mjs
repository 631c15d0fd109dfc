// A dump file past the browser's string limit, dropped on the notebook in Chromium (issue 17,
// item 10): a Blob of `MB` megabytes (default 600; a real optimized module repeated, several
// modules in one text being valid input) is written to a temporary file and uploaded to a
// dump cell, read as bytes in the worker and analysed. Prints one JSON line: the time, the
// status line, the module count (which must be the number of copies), the page's errors.
// Run: node notebook/build.mjs && node bench/bytes_big.mjs [MB]
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCell, cell, launch, openPage, repoRoot, serveDist, waitForDump, waitForNotebook } from '../tests/browser/harness.mjs';

const mb = Number(process.argv[2]) || 600;
const server = await serveDist();
const chrome = await launch();
// BYTES_MIN (bytes) lowers the threshold, to try the path quickly on a small file.
let path = null;
const p = await openPage(chrome.browser, server.url, process.env.BYTES_MIN ? { initScript: `window.hloscopeBytesMin = ${Number(process.env.BYTES_MIN)};` } : {});
try {
  await waitForNotebook(p.page);
  const d = await addCell(p.page, 'dump');
  // A file on disk, uploaded through the cell's file input (as a user picks it: a File backed
  // by the disk file; a Blob of that size made in the page hits Chromium's blob storage limits).
  const one = readFileSync(join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt'));
  const copies = Math.ceil(mb * 2 ** 20 / one.length);
  path = join(tmpdir(), `hloscope-big-${process.pid}.after_optimizations.txt`);
  const fd = openSync(path, 'w');
  const block = Buffer.concat(new Array(1000).fill(one));
  for (let k = 0; k < copies; k += 1000) writeSync(fd, k + 1000 <= copies ? block : block.subarray(0, (copies - k) * one.length));
  closeSync(fd);
  const size = statSync(path).size;
  const t0 = Date.now();
  await p.page.setInputFiles(`${cell(d)} [data-testid=dump-file]`, path);
  const progress = setInterval(async () => console.error(await p.page.textContent(`${cell(d)}`).catch(() => '?')), 10000);
  const meta = await waitForDump(p.page, d, 570000).finally(() => clearInterval(progress));
  const ms = Date.now() - t0;
  const modules = await p.page.evaluate((sel) => document.querySelector(sel)?.textContent, `${cell(d)} [data-testid=dump-meta]`);
  console.log(JSON.stringify({ bytes: size, copies, overStringLimit: size > 2 ** 29 - 24, ms, meta, modulesSaid: /(\d[\d,]*) modules/.exec(modules)?.[1] ?? null, errors: p.errors }));
} finally {
  if (path) rmSync(path, { force: true });
  await p.close();
  await chrome.close();
  await server.close();
}
