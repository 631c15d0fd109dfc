// The layout of an optimized-HLO line's result in words, for the x-ray's hover:
// "layout: row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on
// TPU) · padding 0 B". Read by the core (layout() in the JS API) in the analysis worker
// (engine.layout): the first hover of a type asks, and shows the words when they come.
import * as engine from './engine.js';
import { formatBytes } from './common.js';

const TYPE = /^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*([a-z][a-z0-9]*\[[^\]\n]*\]\{[^}\n]*\})/;
const cache = new Map();
const asked = new Map(); // type -> the answer on its way

/** The type whose layout a line's note says, or null (no layout printed, or one that says no more than the order). */
function typeOf(lineText) {
  const m = TYPE.exec(lineText);
  return m && m[1].includes(':') ? m[1] : null; // only layouts with parts beyond minor-to-major say more than the order
}

function ask(type) {
  let p = asked.get(type);
  if (!p) {
    p = engine.layout(type).then((l) => `layout: ${l.words}${l.padding_bytes ? ` · padding ${formatBytes(l.padding_bytes)} (${formatBytes(l.padded_bytes)} laid out for ${formatBytes(l.logical_bytes)})` : ' · no padding'}`, () => '').then((note) => {
      asked.delete(type);
      if (cache.size > 5000) cache.clear();
      cache.set(type, note);
      return note;
    });
    asked.set(type, p);
  }
  return p;
}

/** The layout words of `lineText`'s result type, or '' (no layout printed, or not read yet: asked now). */
export function layoutNote(lineText) {
  const type = typeOf(lineText);
  if (!type) return '';
  if (cache.has(type)) return cache.get(type);
  ask(type);
  return '';
}

/** The same, once the core has answered. */
export function layoutNoteAsync(lineText) {
  const type = typeOf(lineText);
  if (!type) return Promise.resolve('');
  return cache.has(type) ? Promise.resolve(cache.get(type)) : ask(type);
}
