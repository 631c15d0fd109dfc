// The analysis worker: parses dumps with the wasm core off the page's main thread, so that a
// 50 MB dump never freezes the page. Bundled by notebook/build.mjs (the wasm is inlined).
//
// Protocol (engine.js is the only client): the page posts { id, op, ...args } and receives
// { id, progress: { stage, done?, total? } } while working, then { id, ok: true, result } or
// { id, ok: false, error }. Texts are kept here by key so that an x-ray of two dump cells
// does not copy megabytes again.
//   init { wasmBinary }: the page's copy of the wasm bytes, sent first (no answer)
//   text-begin { key }, text-part { key, part }: a big text in slices (no answer), then
//   analyze { key, sliced: true }
//   analyze { key, text | file }  -> analyzeText() result (+ blob: the text as a Blob when it is
//                                   BLOB_MIN or longer); a text read from a file or Blob comes
//                                   first, as { id, textPart } messages
//   xray    { left, right }       -> xrayTexts() result; left/right are { key } or { text } or null
//   diff    { a, b }              -> diffTexts() result (diff-core.js: the core's diff and the rows of
//                                   <xla-diff>, typed arrays transferred); a/b are { key } or { text }
//   note    { ref: { id, side }, index } -> a note held back from a big x-ray (see NOTES_INLINE)
//   forget  { key }
//   keys    {}                    -> the keys of the texts held (for tests: views release theirs)
//   version {}                    -> the core's version
//   reportPage { template, payload } -> the HTML of a report page (the core's hs_report_page)
//   profile { key, file, options } -> the Timeline's JSON text of the profile file (kept by key; progress from
//                                   inside the parse: { stage, done, total, heap }). The page gives
//                                   each profile a worker of its own (a Cancel ends it)
//   timeline { key, options }      -> the Timeline's JSON text of a profile kept by key (a dump to join)
//   memory  { text, hlo, name }    -> readMemory(text, hlo, name) (<xla-memory>, show.memory); hlo is
//                                   a text, { key } or { text }, or null
//   layout  { type }               -> layout(type): one HLO type's layout in words (the x-ray's hover)
//   layouts { key } | { text }     -> the padding table of a dump (<xla-padding>): one parse
//   levels  { hlo, lls: [text] }   -> readLevels(): the HLO parsed ONCE, every .ll joined to that
//                                   document (<xla-levels>): { llvm: [...], fusions, computations }
//                                   (progress)
//   passes  { input, label }       -> readPasses(input, { label }) (<xla-pipeline>); input a listing,
//                                   [{ name, data }], or { files: [{ name, file }] } (Files read here)
//   comparePasses { a, b }         -> comparePasses(a.input, b.input): a/b are { input, label }
//   pickLevels { files }           -> the texts of one module's three levels in a dump folder's
//                                   [{ name, text | file }] (the core's dumpLevels; <xla-levels>)
//   calls   {}                     -> the JS API calls this worker made, by name (tests count work)
//   warm    { ms }                 -> the core's hot code made ready: the HLO texts held parsed again
//                                   for at most ms (the page asks once, when it is idle)
// Each op is one entry of OPS below.
import * as core from 'hs:api';
import { BLOB_MIN, MAX_TEXT, NOTES_INLINE, analyzeBytes, analyzeText, errorInfo, sideBuffers, tooLargeForText, xrayTexts } from './views/analysis-core.js';
import { forgetProfile, loadProfile, timelineTextOf } from './views/profile-core.js';
import { diffBuffers, diffTexts } from './views/diff-core.js';
import { compareFolders, pickLevels, readFolder, readLayouts, readLevels, readMemoryText } from './views/readers-core.js';

// The JS API, each function call counted by name (the `calls` op): tests count the core's work
// (one parse of a levels view's HLO), not its time. Classes (HloscopeError) pass as they are.
const calls = {};
const api = new Proxy(core, {
  get(target, name) {
    const v = target[name];
    if (typeof v !== 'function' || typeof name !== 'string' || /^[A-Z]/.test(name)) return v;
    return (...args) => { calls[name] = (calls[name] || 0) + 1; return v(...args); };
  },
});

const texts = new Map(); // key -> { text, starts, maxLen, format (the core's reading) }
const SLICE = 4_000_000;
const incoming = new Map(); // key -> slices of a big text still arriving (text-begin / text-part)
const held = new Map(); // "id:side" -> notes of a big x-ray (the 8 latest)
let nextNotes = 1;

function progress(id, stage, done, total) {
  self.postMessage({ id, progress: { stage, done, total } });
}

/**
 * A file's text and its bytes: { text, chunks }. The core parses the bytes as they are (no
 * second UTF-8 encoding of the text into its memory); the text is for the page and the views.
 */
async function readFile(id, file) {
  const total = file.size;
  const tooLarge = tooLargeForText(total);
  if (tooLarge) throw Object.assign(new Error(tooLarge), { code: 'HS_E_TOO_LARGE' });
  if (!file.stream) {
    progress(id, 'reading', 0, total);
    return { text: await file.text(), chunks: null };
  }
  // Up to 64 MB in one read (a 50 MB file: 180-230 ms against 220-300 by the stream's chunks
  // in Chromium); bigger files by chunks, with the bytes read as progress.
  if (total <= 64 << 20) {
    progress(id, 'reading', undefined, total);
    const u = new Uint8Array(await file.arrayBuffer());
    return { text: new TextDecoder().decode(u), chunks: [u] };
  }
  const chunks = await readChunks(id, file, 1 << 20);
  const decoder = new TextDecoder();
  const parts = chunks.map((u) => decoder.decode(u, { stream: true }));
  parts.push(decoder.decode());
  return { text: parts.join(''), chunks };
}

/** A file's bytes in the chunks its stream gives (no string, no decoding), with progress. */
async function readChunks(id, file, every = 8 << 20) {
  const total = file.size;
  const reader = file.stream().getReader();
  const chunks = [];
  let done = 0;
  let last = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    chunks.push(value);
    done += value.length;
    if (done - last > every) { last = done; progress(id, 'reading', done, total); }
  }
  return chunks;
}

function textOf(ref) {
  if (ref == null) return null;
  if (typeof ref.text === 'string') return { text: ref.text, known: null };
  const t = texts.get(ref.key);
  if (!t) throw Object.assign(new Error(`no dump named by key ${ref.key} in the worker`), { code: 'HS_E_NOTFOUND' });
  return { text: t.text, known: { starts: t.starts, maxLen: t.maxLen } };
}

/** The worker's ops, by name: each takes the message and returns { result, transfer? }, or null (no answer). */
const OPS = {
  /** The page hands over its copy of the wasm bytes (see hs:api in notebook/build.mjs). */
  init(msg) {
    if (msg.wasmBinary && api.setWasmBinary) api.setWasmBinary(msg.wasmBinary);
    return null;
  },
  'text-begin'(msg) { incoming.set(msg.key, []); return null; },
  'text-part'(msg) { incoming.get(msg.key)?.push(msg.part); return null; },

  async analyze(msg) {
    const { id } = msg;
    const fromFile = !!msg.file;
    // A file past the browser's string limit (msg.bytesMin, msg.headBytes: tests lower them) is read as bytes:
    // the core parses all of it, the page gets the text of its head (issue 17, item 10).
    if (fromFile && msg.file.stream && msg.file.size > (msg.bytesMin ?? MAX_TEXT)) {
      const chunks = await readChunks(id, msg.file);
      progress(id, 'loading core');
      await api.load();
      const out = analyzeBytes(api, chunks, (stage) => progress(id, stage, undefined, msg.file.size), msg.headBytes);
      chunks.length = 0;
      const head = new TextDecoder().decode(await msg.file.slice(0, out.head_of.bytes).arrayBuffer());
      texts.set(msg.key, { text: head, starts: out.starts, maxLen: out.maxLen, format: out.format });
      for (let i = 0; i < head.length; i += SLICE) self.postMessage({ id, textPart: head.slice(i, i + SLICE) });
      out.blob = msg.file;
      const starts = out.starts.slice();
      out.starts = starts;
      return { result: out, transfer: [starts.buffer] };
    }
    // Where the time goes (ms from this op's start; npm run bench:chromium prints them).
    const t0 = performance.now();
    const steps = [];
    const step = (name) => steps.push([name, Math.round(performance.now() - t0)]);
    let text = msg.text;
    let chunks = null;
    if (fromFile) ({ text, chunks } = await readFile(id, msg.file));
    else if (msg.sliced) {
      const parts = incoming.get(msg.key);
      incoming.delete(msg.key);
      if (!parts) throw new Error('the text slices did not arrive');
      text = parts.join('');
    }
    step('read');
    progress(id, 'loading core');
    await api.load();
    step('core loaded');
    // The core parses in one call: say which step runs and how big the text is, not "0 B of".
    const out = analyzeText(api, text, (stage) => { step(stage); progress(id, stage, undefined, text.length); }, msg.name || msg.file?.name || '', chunks);
    chunks = null;
    step('analysed');
    texts.set(msg.key, { text: out.readable ?? text, starts: out.starts, maxLen: out.maxLen, format: out.format });
    // A text read here goes back to the page in slices, one message (one task there) each.
    if (fromFile) {
      for (let i = 0; i < text.length; i += SLICE) self.postMessage({ id, textPart: text.slice(i, i + SLICE) });
    }
    // Big texts go to the page's storage as a Blob (a handle: the page never serializes 50 MB
    // into IndexedDB on its main thread). A file or Blob that came in goes back as it is.
    if (text.length >= BLOB_MIN) out.blob = fromFile ? msg.file : new Blob([text], { type: 'text/plain;charset=utf-8' });
    // The page gets its own copy of the line starts; the worker keeps this one.
    const starts = out.starts.slice();
    out.starts = starts;
    step('sent');
    out.steps = steps;
    return { result: out, transfer: [starts.buffer] };
  },

  async xray(msg) {
    progress(msg.id, 'loading core');
    await api.load();
    const L = textOf(msg.left);
    const R = textOf(msg.right);
    progress(msg.id, 'x-ray');
    const known = {};
    if (L?.known) known.left = { starts: L.known.starts.slice(), maxLen: L.known.maxLen };
    if (R?.known) known.right = { starts: R.known.starts.slice(), maxLen: R.known.maxLen };
    const out = xrayTexts(api, L ? L.text : null, R ? R.text : null, known);
    // The texts stay on the page already when they came by key: do not clone them back.
    if (out.left && msg.left?.key) out.left.text = null;
    if (out.right && msg.right?.key) out.right.text = null;
    // Hundreds of thousands of distinct notes would take the page's main thread a long time to
    // receive: keep them here, and answer 'note' requests on hover.
    const notesId = nextNotes++;
    for (const side of ['left', 'right']) {
      const s = out[side];
      if (s && s.notes.length > NOTES_INLINE) {
        held.set(`${notesId}:${side}`, s.notes);
        s.notes = null;
        s.notesRef = { id: notesId, side };
      }
    }
    while (held.size > 8) held.delete(held.keys().next().value);
    return { result: out, transfer: [...sideBuffers(out.left), ...sideBuffers(out.right)] };
  },

  async diff(msg) {
    progress(msg.id, 'loading core');
    await api.load();
    const A = textOf(msg.a);
    const B = textOf(msg.b);
    if (!A || !B) throw new Error('a diff needs two texts (A and B)');
    progress(msg.id, 'diff');
    const known = { a: A.known ? A.known.starts.length - 1 : undefined, b: B.known ? B.known.starts.length - 1 : undefined };
    const out = diffTexts(api, A.text, B.text, known);
    return { result: out, transfer: diffBuffers(out) };
  },

  note(msg) {
    const notes = held.get(`${msg.ref.id}:${msg.ref.side}`);
    return { result: notes ? notes[msg.index] ?? '' : null };
  },

  async profile(msg) {
    const { id } = msg;
    progress(id, 'loading core');
    await api.load();
    // progress from inside the parse carries the core's memory too (`heap`, bytes: the bench reads it)
    await loadProfile(api, msg.key, msg.file, (p) => self.postMessage({ id, progress: p }));
    progress(id, 'timeline');
    return { result: timelineTextOf(msg.key, msg.options) };
  },

  timeline(msg) {
    return { result: timelineTextOf(msg.key, msg.options) };
  },

  async memory(msg) {
    await api.load();
    const hlo = msg.hlo == null ? '' : typeof msg.hlo === 'string' ? msg.hlo : textOf(msg.hlo).text;
    return { result: readMemoryText(api, msg.text, hlo, msg.name) };
  },

  async layout(msg) {
    await api.load();
    return { result: api.layout(msg.type) };
  },

  async layouts(msg) {
    await api.load();
    return { result: readLayouts(api, textOf(msg).text) };
  },

  async levels(msg) {
    progress(msg.id, 'loading core');
    await api.load();
    progress(msg.id, 'levels');
    return { result: readLevels(api, msg.hlo || '', msg.lls || []) };
  },

  async passes(msg) {
    await api.load();
    return { result: await readFolder(api, msg.input, msg.label) };
  },

  async comparePasses(msg) {
    await api.load();
    return { result: await compareFolders(api, msg.a, msg.b) };
  },

  async pickLevels(msg) {
    await api.load();
    return { result: await pickLevels(api, msg.files) };
  },

  /**
   * Warms the core up while the page is idle: the browser first runs WebAssembly from a quick
   * baseline compile and moves a function to optimized code only once it has run a while, in a
   * later call (a call already running stays on the baseline code). A first 50 MB dump parsed by a
   * fresh core took 2x the time the same parse takes once warm (460 against 230 ms in Chromium).
   * So the HLO texts held here (the notebook's own dumps) are parsed and counted again, for at
   * most `ms`, through the core itself (not the counted API: this is no work a view asked for).
   * Answers with the bytes parsed.
   */
  async warm(msg) {
    await api.load();
    const t0 = performance.now();
    // the texts the core read as HLO (its own reading, kept with each text), up to 4 M characters
    const hlo = [...texts.values()].filter((t) => t.format === 'hlo' && t.text.length < 4e6).map((t) => t.text);
    let bytes = 0;
    const more = () => performance.now() - t0 < (msg.ms ?? 150);
    for (let round = 0; hlo.length && round < 1000 && more(); round++) {
      for (const t of hlo) {
        if (!more()) break;
        let doc;
        try {
          doc = core.parse(t);
          doc.fusions({ rows: 10 });
          doc.spills();
          bytes += t.length;
        } catch { /* a text that does not parse warms nothing */ } finally { doc?.free(); }
      }
    }
    return { result: { bytes, ms: Math.round(performance.now() - t0) } };
  },

  /** The JS API calls made here so far, by name (tests: work counted, not timed). */
  calls() { return { result: { ...calls } }; },

  forget(msg) {
    forgetProfile(msg.key);
    texts.delete(msg.key);
    return { result: true };
  },

  /** The keys of the texts held here (tests check that views release theirs). */
  keys() { return { result: [...texts.keys()] }; },

  async version() {
    await api.load();
    return { result: api.version() };
  },

  /** "Save as page": the payload put into the page by the core. */
  async reportPage(msg) {
    await api.load();
    return { result: api.reportPage(msg.template, msg.payload) };
  },
};

function handle(msg) {
  const op = Object.hasOwn(OPS, msg.op) ? OPS[msg.op] : null;
  if (!op) throw new Error(`unknown worker op ${msg.op}`);
  return op(msg);
}

// One message at a time, in order: the core is single-threaded anyway.
let queue = Promise.resolve();
self.onmessage = (e) => {
  const msg = e.data;
  queue = queue.then(async () => {
    try {
      const r = await handle(msg);
      if (r === null) return; // a message that needs no answer
      const { result, transfer } = r;
      self.postMessage({ id: msg.id, ok: true, result }, transfer || []);
    } catch (err) {
      self.postMessage({ id: msg.id, ok: false, error: errorInfo(err) });
    }
  });
};
