// The analysis worker: parses dumps with the wasm core off the page's main thread, so that a
// 50 MB dump never freezes the page. Bundled by notebook/build.mjs (the wasm is inlined).
//
// Protocol (engine.js is the only client): the page posts { id, op, ...args } and receives
// { id, progress: { stage, done?, total? } } while working, then { id, ok: true, result } or
// { id, ok: false, error }. Texts are kept here by key so that an x-ray of two dump cells
// does not copy megabytes again.
//   analyze { key, text | file }  -> analyzeText() result (+ text when it came from a file)
//   xray    { left, right }       -> xrayTexts() result; left/right are { key } or { text } or null
//   forget  { key }
import * as api from 'hs:api';
import { analyzeText, errorInfo, lineStarts, sideBuffers, xrayTexts } from './views/analysis-core.js';

const texts = new Map(); // key -> { text, starts, maxLen }

function progress(id, stage, done, total) {
  self.postMessage({ id, progress: { stage, done, total } });
}

async function readFile(id, file) {
  const total = file.size;
  if (!file.stream || typeof TextDecoderStream === 'undefined') {
    progress(id, 'reading', 0, total);
    return await file.text();
  }
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  const parts = [];
  let done = 0;
  let last = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    parts.push(value);
    done += value.length; // characters, close enough to bytes for a progress bar
    if (done - last > 1 << 20) { last = done; progress(id, 'reading', Math.min(done, total), total); }
  }
  return parts.join('');
}

function textOf(ref) {
  if (ref == null) return null;
  if (typeof ref.text === 'string') return { text: ref.text, known: null };
  const t = texts.get(ref.key);
  if (!t) throw Object.assign(new Error(`no dump named by key ${ref.key} in the worker`), { code: 'HS_E_NOTFOUND' });
  return { text: t.text, known: { starts: t.starts, maxLen: t.maxLen } };
}

async function handle(msg) {
  const { id, op } = msg;
  if (op === 'analyze') {
    const fromFile = !!msg.file;
    const text = fromFile ? await readFile(id, msg.file) : msg.text;
    progress(id, 'loading core');
    await api.load();
    progress(id, 'parsing', 0, text.length);
    const out = analyzeText(api, text);
    texts.set(msg.key, { text, starts: out.starts, maxLen: out.maxLen });
    if (fromFile) out.text = text;
    // The page gets its own copy of the line starts; the worker keeps this one.
    const starts = out.starts.slice();
    out.starts = starts;
    return { result: out, transfer: [starts.buffer] };
  }
  if (op === 'xray') {
    progress(id, 'loading core');
    await api.load();
    const L = textOf(msg.left);
    const R = textOf(msg.right);
    progress(id, 'x-ray');
    const known = {};
    if (L?.known) known.left = { starts: L.known.starts.slice(), maxLen: L.known.maxLen };
    if (R?.known) known.right = { starts: R.known.starts.slice(), maxLen: R.known.maxLen };
    const out = xrayTexts(api, L ? L.text : null, R ? R.text : null, known);
    // The texts stay on the page already when they came by key: do not clone them back.
    if (out.left && msg.left?.key) out.left.text = null;
    if (out.right && msg.right?.key) out.right.text = null;
    return { result: out, transfer: [...sideBuffers(out.left), ...sideBuffers(out.right)] };
  }
  if (op === 'forget') {
    texts.delete(msg.key);
    return { result: true };
  }
  if (op === 'version') {
    await api.load();
    return { result: api.version() };
  }
  if (op === 'lines') {
    return { result: lineStarts(msg.text) };
  }
  throw new Error(`unknown worker op ${op}`);
}

// One message at a time, in order: the core is single-threaded anyway.
let queue = Promise.resolve();
self.onmessage = (e) => {
  const msg = e.data;
  queue = queue.then(async () => {
    try {
      const { result, transfer } = await handle(msg);
      self.postMessage({ id: msg.id, ok: true, result }, transfer || []);
    } catch (err) {
      self.postMessage({ id: msg.id, ok: false, error: errorInfo(err) });
    }
  });
};
