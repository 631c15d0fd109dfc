// bench/profile_chromium.mjs [FILE]: opens a big profile in the notebook's profile cell in
// Chromium (headless, the test flags), the way a user picks it, and reports: seconds until the
// timeline shows, the peak memory of the browser's processes (PSS from /proc/PID/smaps_rollup,
// sampled every 100 ms and summed over Chromium's process tree, so shared pages count once;
// the renderer holds the page and its worker), the largest single process (RSS), and the longest the page's main thread went without running a timer
// (a frozen page would show the whole parse there). FILE defaults to bench/out/big.xplane.pb
// (made by bench/profile.sh). Writes bench/out/profile-chromium.json.
//        npm run bench:profile:chromium        (not a test: minutes, and a big file)
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openPage, serveDist, repoRoot, waitForNotebook, addCell, cell } from '../tests/browser/harness.mjs';

const file = process.argv[2] || join(repoRoot, 'bench/out/big.xplane.pb');
if (!existsSync(file)) {
  console.error(`no ${file}: run npm run bench:profile first (it makes the big file)`);
  process.exit(2);
}
const size = statSync(file).size;

/** The RSS and PSS (bytes) of every descendant of this process: [{ pid, rss, pss }]. */
function descendants() {
  const kids = new Map();
  const rss = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
      rss.set(Number(d), Number(f[21]) * 4096);
    } catch { /* gone */ }
  }
  const out = [];
  const pss = (pid) => {
    try { return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]) * 1024; } catch { return 0; }
  };
  const walk = (pid) => { for (const k of kids.get(pid) || []) { out.push({ pid: k, rss: rss.get(k) || 0, pss: pss(k) }); walk(k); } };
  walk(process.pid);
  return out;
}

const server = await serveDist();
const chrome = await launch();
let peakSum = 0;
let peakOne = 0;
const sampler = setInterval(() => {
  const ps = descendants();
  peakSum = Math.max(peakSum, ps.reduce((a, p) => a + p.pss, 0));
  peakOne = Math.max(peakOne, ...ps.map((p) => p.rss), 0);
}, 100);
const p = await openPage(chrome.browser, `${server.url}index.html`);
let res;
try {
  const { page } = p;
  await waitForNotebook(page);
  const prof = await addCell(page, 'profile');
  const idle = descendants().reduce((a, q) => a + q.pss, 0);
  // the main thread's longest gap between 50 ms timer ticks while the profile is read
  await page.evaluate(() => {
    window.__gap = 0;
    let last = performance.now();
    window.__tick = setInterval(() => { const t = performance.now(); window.__gap = Math.max(window.__gap, t - last); last = t; }, 50);
  });
  const t0 = Date.now();
  await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, file);
  await page.waitForFunction((sel) => {
    const v = document.querySelector(`${sel} xla-timeline`);
    const err = document.querySelector(`${sel} [data-testid=profile-error]`)?.textContent || '';
    if (err && !/^warning/.test(err)) return true;
    return v && !v.hidden && v.shadowRoot.querySelectorAll('tr.op').length > 0;
  }, cell(prof), { timeout: 0, polling: 500 });
  const seconds = (Date.now() - t0) / 1000;
  const error = await page.textContent(`${cell(prof)} [data-testid=profile-error]`);
  const rows = await page.locator(`${cell(prof)} xla-timeline tr.op`).count();
  const gap = await page.evaluate(() => { clearInterval(window.__tick); return window.__gap; });
  res = {
    input_bytes: size,
    seconds: Number(seconds.toFixed(1)),
    rows,
    error: error || null,
    idle_pss_bytes: idle,
    peak_pss_bytes: peakSum,
    peak_over_input: Number(((peakSum - idle) / size).toFixed(2)),
    peak_one_process_rss_bytes: peakOne,
    main_thread_longest_gap_ms: Math.round(gap),
    page_errors: p.errors,
  };
} finally {
  clearInterval(sampler);
  await p.close();
  await chrome.close();
  await server.close();
}
writeFileSync(join(repoRoot, 'bench/out/profile-chromium.json'), JSON.stringify(res, null, 2));
console.log(`input ${(size / 1e6).toFixed(0)} MB: timeline in ${res.seconds} s, ${res.rows} rows${res.error ? `, error: ${res.error}` : ''}`);
console.log(`Chromium peak PSS ${(res.peak_pss_bytes / 1e6).toFixed(0)} MB (idle ${(res.idle_pss_bytes / 1e6).toFixed(0)} MB: +${res.peak_over_input}x input), largest process RSS ${(res.peak_one_process_rss_bytes / 1e6).toFixed(0)} MB`);
console.log(`main thread: longest gap between 50 ms ticks ${res.main_thread_longest_gap_ms} ms`);
