// bench_profile_wasm.mjs FILE: parseProfile + timeline through the JS API; prints one JSON line:
// seconds for each step, the process's peak RSS and the wasm memory the core grew to.
// By default the file streams into the core in 4 MiB chunks (profileSink, as the notebook's
// worker reads a file: one copy of it); WHOLE=1 reads it whole into JS first and calls
// parseProfile (two copies while parsing).
import { openSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { load, parseProfile, profileSink } from '../wasm/hloscope.mjs';

const [file] = process.argv.slice(2);
const whole = process.env.WHOLE === '1';
await load();
const size = statSync(file).size;
const t0 = performance.now();
let prof;
if (whole) {
  const bytes = readFileSync(file);
  prof = parseProfile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
} else {
  const sink = profileSink(size);
  const fd = openSync(file, 'r');
  const buf = new Uint8Array(4 << 20);
  for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) sink.write(buf.subarray(0, n));
  closeSync(fd);
  prof = sink.parse();
}
const t1 = performance.now();
const t = prof.timeline();
const t2 = performance.now();
prof.free();
console.log(JSON.stringify({
  bytes: size,
  mode: whole ? 'parseProfile (whole file in JS)' : 'profileSink (streamed)',
  rows: t.rows.length,
  parse_seconds: Number(((t1 - t0) / 1000).toFixed(3)),
  timeline_seconds: Number(((t2 - t1) / 1000).toFixed(3)),
  mb_per_s: Number((size / 1e6 / ((t1 - t0) / 1000)).toFixed(1)),
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
}));
