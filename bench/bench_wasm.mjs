// bench_wasm.mjs FILE [REPEAT] [bytes|string]: parse + fusion census through the JS API, best of
// REPEAT; prints one JSON line like bench_parse.
//   bytes (the default): the file's bytes, as native reads them and as the notebook reads an
//     uploaded file (parseBytes: one copy into wasm memory, timed);
//   string: a JS string, as pasted text arrives (parse: transcoded into wasm memory, timed).
import { readFileSync } from 'node:fs';
import * as api from '../wasm/hloscope.mjs';
import { bestParse } from './time_parse.mjs';

const [file, repeatArg, modeArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 3);
const mode = modeArg || 'bytes';
if (mode !== 'bytes' && mode !== 'string') throw new Error(`bench_wasm: mode is bytes or string, not ${mode}`);
const input = mode === 'bytes' ? new Uint8Array(readFileSync(file)) : readFileSync(file, 'utf8');
const bytes = mode === 'bytes' ? input.length : Buffer.byteLength(input);
await api.load();
const { seconds: best, census } = bestParse(api, input, repeat);
const rss = process.memoryUsage().rss;
console.log(JSON.stringify({
  mode,
  bytes,
  fusion_ops: census.fusion_ops,
  fusion_computations: census.fusion_computations,
  seconds: Number(best.toFixed(4)),
  mb_per_s: Number((bytes / 1e6 / best).toFixed(1)),
  process_rss_bytes: rss,
}));
