// The timed unit of the wasm benches: parse + fusion census + free through the JS API, the best
// of `repeat`. `input` is the file's bytes (parseBytes: the copy into wasm memory timed) or a JS
// string (parse: transcoding timed). Shared by bench_wasm.mjs (Node) and parse_chromium.mjs (the
// page imports it from the served repository), so both engines time the same thing.
export function bestParse(api, input, repeat = 3) {
  let seconds = Infinity;
  let census;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    const doc = typeof input === 'string' ? api.parse(input) : api.parseBytes(input);
    census = doc.census(); // the counts, as the native bench takes them
    doc.free();
    seconds = Math.min(seconds, (performance.now() - t0) / 1000);
  }
  return { seconds, census };
}
