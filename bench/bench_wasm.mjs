// bench_wasm.mjs FILE [REPEAT]: parse + fusion census through the JS API (string copy into wasm
// memory included), best of REPEAT; prints one JSON line like bench_parse.
import { readFileSync } from 'node:fs';
import { load, parse } from '../wasm/hloscope.mjs';

const [file, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 3);
const text = readFileSync(file, 'utf8');
const bytes = Buffer.byteLength(text);
await load();
let best = Infinity;
let census;
for (let i = 0; i < repeat; i++) {
  const t0 = performance.now();
  const doc = parse(text);
  census = doc.census(); // the counts, as the native bench takes them
  doc.free();
  best = Math.min(best, (performance.now() - t0) / 1000);
}
const rss = process.memoryUsage().rss;
console.log(JSON.stringify({
  bytes,
  fusion_ops: census.fusion_ops,
  fusion_computations: census.fusion_computations,
  seconds: Number(best.toFixed(4)),
  mb_per_s: Number((bytes / 1e6 / best).toFixed(1)),
  process_rss_bytes: rss,
}));
