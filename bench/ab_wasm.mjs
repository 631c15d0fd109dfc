// Two or more builds of the wasm core in one Node process, parse + census of one file, round by
// round: each round runs every build once, back to back (the order reversed every other round),
// and each build's time is taken over the first build's in the same round. Prints each build's
// median ratio and best time, and one JSON line. This machine's speed swings by 2x from minute
// to minute: best-of figures from separate processes compare two machines; a ratio taken within
// a round compares builds.
//   node bench/ab_wasm.mjs FILE ROUNDS DIR...   (DIR: a checkout holding wasm/hloscope.mjs)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bestParse } from './time_parse.mjs';

const [file, roundsArg, ...dirs] = process.argv.slice(2);
if (!file || dirs.length < 2) {
  console.error('usage: node bench/ab_wasm.mjs FILE ROUNDS DIR DIR...');
  process.exit(2);
}
const rounds = Number(roundsArg) || 16;
const input = new Uint8Array(readFileSync(file));
const apis = [];
for (const d of dirs) {
  const api = await import(pathToFileURL(resolve(d, 'wasm/hloscope.mjs')).href);
  await api.load();
  apis.push(api);
}
let fusions = null;
const once = (api) => { // one parse + census, as bench_wasm.mjs times it; ms
  const { seconds, census } = bestParse(api, input, 1);
  if (fusions === null) fusions = census.fusion_ops;
  else if (census.fusion_ops !== fusions) throw new Error(`the builds' censuses differ: ${fusions} against ${census.fusion_ops} fusion ops`);
  return seconds * 1000;
};
for (const a of apis) { once(a); once(a); } // warm: the optimizing compile in place
const ratios = dirs.map(() => []);
const times = dirs.map(() => []);
for (let r = 0; r < rounds; r++) {
  const t = new Array(apis.length);
  for (let j = 0; j < apis.length; j++) {
    const i = r % 2 ? apis.length - 1 - j : j;
    t[i] = once(apis[i]);
  }
  t.forEach((x, i) => { ratios[i].push(x / t[0]); times[i].push(x); });
}
const median = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
const out = dirs.map((d, i) => ({ build: d, median_ratio: +median(ratios[i]).toFixed(3), best_ms: +Math.min(...times[i]).toFixed(1) }));
for (const o of out) console.log(`${o.build.padEnd(32)} median ratio ${o.median_ratio.toFixed(3)}  best ${o.best_ms.toFixed(1)} ms`);
console.log(JSON.stringify({ file, bytes: input.length, rounds, builds: out }));
