// bench/parse_chromium.mjs [FILE] [ROUNDS]: the wasm core's parse + fusion census in real
// Chromium (headless, the test flags), the engine the notebook's users run, interleaved round
// by round with the native bench on the same file, as bench/run.sh does under Node. In the page:
// the JS API (wasm/hloscope.mjs, served from the repository with the wasm beside it) reads the
// file's bytes (parseBytes: the copy into wasm memory timed) and the same text as a JS string
// (parse: transcoding timed), best of 3 per round. FILE defaults to bench/out/real-hlo-50mb.txt
// (npm run bench makes it), else bench/out/upload-50mb.txt (bench/upload_chromium.mjs makes it). Prints one JSON line; not a test (a big file, a browser).
//        npm run bench:chromium
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chromiumPath, launch, openPage, repoRoot } from '../tests/browser/harness.mjs';
import { startServer } from '../notebook/serve.mjs';

// npm run bench makes real-hlo-50mb.txt; bench/upload_chromium.mjs (run first by npm run bench:chromium) upload-50mb.txt
const file = process.argv[2] || ['real-hlo-50mb.txt', 'upload-50mb.txt'].map((f) => join(repoRoot, 'bench/out', f)).find(existsSync)
  || join(repoRoot, 'bench/out/real-hlo-50mb.txt');
const rounds = Number(process.argv[3] || 4);
const native = join(repoRoot, 'build/native/hloscope_bench');
for (const [path, how] of [[file, 'npm run bench makes it'], [native, 'bash tools/build-native.sh'], [join(repoRoot, 'wasm/gen/hloscope_core.wasm'), 'bash tools/build-wasm.sh']]) {
  if (!existsSync(path)) {
    console.error(`no ${path}: ${how}`);
    process.exit(2);
  }
}
const rel = relative(repoRoot, file);
if (rel.startsWith('..')) {
  console.error(`${file} is outside the repository: the page is served from it`);
  process.exit(2);
}
const server = await startServer({ root: repoRoot, port: 0 });
const chrome = await launch();
const p = await openPage(chrome.browser, `${server.url}package.json`);
const best = { native: Infinity, bytes: Infinity, string: Infinity };
const perRound = [];
let census = null;
try {
  await p.page.evaluate(async (url) => {
    const api = await import('/wasm/hloscope.mjs');
    const { bestParse } = await import('/bench/time_parse.mjs');
    await api.load();
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    globalThis.benchInput = { api, bestParse, bytes, text: new TextDecoder().decode(bytes) };
  }, `/${rel}`);
  for (let r = 0; r < rounds; r++) {
    const n = JSON.parse(execFileSync(native, [file, '3'], { encoding: 'utf8' }));
    const w = await p.page.evaluate(() => {
      const { api, bestParse, bytes, text } = globalThis.benchInput;
      const b = bestParse(api, bytes);
      const s = bestParse(api, text);
      return { bytes: b.seconds, string: s.seconds, fusion_ops: b.census.fusion_ops };
    });
    if (w.fusion_ops !== n.fusion_ops) throw new Error(`census differs: Chromium ${w.fusion_ops}, native ${n.fusion_ops} fusion ops`);
    census = n.fusion_ops;
    best.native = Math.min(best.native, n.seconds);
    best.bytes = Math.min(best.bytes, w.bytes);
    best.string = Math.min(best.string, w.string);
    perRound.push(Number((w.bytes / n.seconds).toFixed(2)));
  }
} finally {
  await p.close();
  await chrome.close();
  await server.close();
}
if (p.errors.length || p.external.length) throw new Error(`page errors ${p.errors.join('; ')}; requests out ${p.external.join(', ')}`);
const r3 = (x) => Number(x.toFixed(3));
console.log(JSON.stringify({
  file: rel,
  rounds,
  fusion_ops: census,
  chromium: execFileSync(chromiumPath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
  native_seconds: r3(best.native),
  chromium_bytes_seconds: r3(best.bytes),
  chromium_string_seconds: r3(best.string),
  bytes_over_native: Number((best.bytes / best.native).toFixed(2)),
  string_over_native: Number((best.string / best.native).toFixed(2)),
  rounds_bytes_over_native: perRound,
}));
