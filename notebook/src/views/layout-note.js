// The layout of an optimized-HLO line's result in words, for the x-ray's hover:
// "layout: row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on
// TPU) · padding 0 B". Read by the core (layout() in the JS API) on the page's thread; the first
// hover starts loading the core there and later hovers show the words.
import * as api from 'hs:api';
import { formatBytes } from './common.js';

const TYPE = /^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*([a-z][a-z0-9]*\[[^\]\n]*\]\{[^}\n]*\})/;
const cache = new Map();
let loading = null;

/** The layout words of `lineText`'s result type, or '' (no layout printed, or the core not yet loaded). */
export function layoutNote(lineText) {
  const m = TYPE.exec(lineText);
  if (!m || !m[1].includes(':')) return ''; // only layouts with parts beyond minor-to-major say more than the order
  const type = m[1];
  if (cache.has(type)) return cache.get(type);
  if (!api.isLoaded?.()) {
    loading ??= api.load().catch(() => null);
    return '';
  }
  let note = '';
  try {
    const l = api.layout(type);
    note = `layout: ${l.words}${l.padding_bytes ? ` · padding ${formatBytes(l.padding_bytes)} (${formatBytes(l.padded_bytes)} laid out for ${formatBytes(l.logical_bytes)})` : ' · no padding'}`;
  } catch {
    note = '';
  }
  if (cache.size > 5000) cache.clear();
  cache.set(type, note);
  return note;
}
