// The drills' way to the wasm core. `hs:api` is the JS API (wasm/hloscope.mjs) as the
// notebook's build (notebook/build.mjs) provides it to every bundle: with the wasm inlined,
// or a stand-in whose load() rejects with a clear message when the wasm was not built.
// The drills call the API on the main thread: the captures are small, and a pasted dump is
// parsed once per round.
import * as api from 'hs:api';

let ready = null;

/** Resolves to the loaded API; rejects (and lets the next call retry) when the core cannot load. */
export function core() {
  if (!ready) {
    ready = Promise.resolve().then(() => api.load()).then(() => api);
    ready.catch(() => { ready = null; });
  }
  return ready;
}

/** Parses `text` and returns what `f(doc)` returns, freeing the document either way. */
export async function withDoc(text, f) {
  const hs = await core();
  const doc = hs.parse(text);
  try {
    return await f(doc, hs);
  } finally {
    doc.free();
  }
}

/** An error from the core (or anything else) in words, with its position when it has one. */
export { errorWords } from '../core-words.js';
