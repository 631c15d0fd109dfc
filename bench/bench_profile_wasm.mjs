// bench_profile_wasm.mjs FILE: parseProfile + timeline through the JS API (the bytes copied into
// wasm memory included); prints one JSON line: seconds for each step, the process's peak RSS
// and the wasm memory the core grew to.
import { readFileSync } from 'node:fs';
import { load, parseProfile } from '../wasm/hloscope.mjs';

const [file] = process.argv.slice(2);
const bytes = readFileSync(file);
await load();
const t0 = performance.now();
const prof = parseProfile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
const t1 = performance.now();
const t = prof.timeline();
const t2 = performance.now();
prof.free();
console.log(JSON.stringify({
  bytes: bytes.length,
  rows: t.rows.length,
  parse_seconds: Number(((t1 - t0) / 1000).toFixed(3)),
  timeline_seconds: Number(((t2 - t1) / 1000).toFixed(3)),
  mb_per_s: Number((bytes.length / 1e6 / ((t1 - t0) / 1000)).toFixed(1)),
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
}));
