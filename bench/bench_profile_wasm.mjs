// bench_profile_wasm.mjs FILE: parseProfile + timeline through the JS API; prints one JSON line:
// seconds for each step, the process's peak RSS and the wasm memory the core grew to.
// By default the core reads the file by range (parseProfileSource over fs.readSync, as the
// notebook's worker reads a File with FileReaderSync: the file is never held whole); SINK=1
// streams it into the core's memory first (profileSink: one copy of it); WHOLE=1 reads it whole
// into JS first and calls parseProfile (two copies while parsing).
import { openSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { load, memoryBytes, parseProfile, parseProfileSource, profileSink } from '../wasm/hloscope.mjs';

const [file] = process.argv.slice(2);
const whole = process.env.WHOLE === '1';
const sinkMode = process.env.SINK === '1';
let progressCalls = 0;
await load();
const size = statSync(file).size;
const t0 = performance.now();
let prof;
if (whole) {
  const bytes = readFileSync(file);
  prof = parseProfile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
} else if (!sinkMode) {
  const fd = openSync(file, 'r');
  prof = parseProfileSource({
    size,
    read(off, len) {
      const b = new Uint8Array(len);
      for (let got = 0; got < len;) got += readSync(fd, b, got, len - got, off + got);
      return b;
    },
  }, { onProgress: () => { progressCalls++; } });
  closeSync(fd);
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
  mode: whole ? 'parseProfile (whole file in JS)' : sinkMode ? 'profileSink (streamed)' : 'parseProfileSource (read by range)',
  progress_calls: progressCalls,
  wasm_memory_bytes: memoryBytes(),
  rows: t.rows.length,
  parse_seconds: Number(((t1 - t0) / 1000).toFixed(3)),
  timeline_seconds: Number(((t2 - t1) / 1000).toFixed(3)),
  mb_per_s: Number((size / 1e6 / ((t1 - t0) / 1000)).toFixed(1)),
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
}));
