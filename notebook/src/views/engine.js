// The page's side of the analysis worker (worker.js). One worker per page, started on first use
// from a URL next to the page (the served notebook) or from a Blob URL of the bundled worker
// source (the single file, course pages). When no worker can start, the same analysis runs on
// the main thread (slower pages, same answers).
//
//   analyze({ key, text | file }, onProgress) -> Promise<analysis>
//   xray({ left, right }, onProgress)         -> Promise<{ summary, left, right }> (compact sides)
//   diff({ a, b }, onProgress)                -> Promise<{ diff, layout, marks, lines }> (diff-core.js diffTexts)
//   memory({ text, hlo, name })               -> Promise<Memory> (readMemory; hlo: a text, { key } or { text }, or null)
//   layout(type)                              -> Promise<Layout> (one type's layout in words)
//   layouts({ key } | { text })               -> Promise<Layouts> (one parse)
//   levels({ hlo, lls }, onProgress)          -> Promise<{ llvm, fusions, computations }> (the HLO parsed once)
//   passes({ input, label })                  -> Promise<Passes> (readPasses; input: a listing,
//                                                [{ name, data }] or { files: [{ name, file }] })
//   pickLevels(files)                         -> Promise<{ hlo, noopt, opt } | null> (a folder's levels)
//   comparePasses({ a, b })                   -> Promise<PassesCompare>; a, b: { input, label }
//   profile({ key, file, options }, onProgress, { signal }) -> Promise<Timeline> (its own worker; signal cancels)
//   timeline({ key, options })                -> Promise<Timeline> of a profile kept by key
//   forget(key)                               the text (or profile, and its worker) held under key is released
//   keys()                                    -> Promise<string[]> the keys held (tests)
//   warm(ms)                                  -> Promise<{ bytes, ms }> the core's hot code made ready
//   calls()                                   -> Promise<{ [fn]: n }> the worker's calls into the JS API (tests)
// The readers other than analyze/xray/diff are readers-core.js, run by the worker or, in the
// fallback, here: the views (AnalysedElement) call no wasm themselves.
import { workerSource, workerUrl } from 'hs:worker-source';
import * as api from 'hs:api';
import { BLOB_MIN, analyzeText, lineStarts, tooLargeForText, xrayTexts } from './analysis-core.js';
import { forgetProfile, loadProfile, timelineOf } from './profile-core.js';
import { diffTexts } from './diff-core.js';
import { compareFolders, isPickedFiles, pickLevels as pickLevelsHere, readFolder, readLayouts, readLevels, readMemoryText } from './readers-core.js';

/**
 * One worker and the calls waiting on it. The page has one for the dumps (`main`: it holds their
 * texts by key) and one per profile being read or kept (a Cancel ends that worker, and with it
 * every byte of its memory: a WebAssembly memory never shrinks, but a worker ended frees it).
 */
class Channel {
  worker = null;
  failed = false;
  pending = new Map();

  /** The worker, started on first use; null when none can start (calls then run here). */
  start() {
    if (this.worker || this.failed) return this.worker;
    try {
      if (typeof Worker === 'undefined') throw new Error('no Worker');
      if (workerSource) {
        const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
        this.worker = new Worker(url);
      } else if (workerUrl) {
        this.worker = new Worker(new URL(workerUrl, document.baseURI));
      } else {
        throw new Error('no worker in this bundle');
      }
    } catch (e) {
      this.failed = true;
      this.worker = null;
      console.warn('hloscope: analysis runs on the main thread:', e.message);
      return null;
    }
    const worker = this.worker;
    // The worker bundle holds no wasm: send this page's bytes first (messages keep their order).
    if (api.wasmBinary) worker.postMessage({ id: 0, op: 'init', wasmBinary: api.wasmBinary });
    worker.onmessage = (e) => {
      const m = e.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.progress) { p.onProgress?.(m.progress); return; }
      if (m.textPart !== undefined) { p.text = (p.text ?? '') + m.textPart; return; }
      performance.mark('hs:engine:answer');
      this.pending.delete(m.id);
      if (m.ok) {
        if (p.text !== undefined) m.result.text = p.text;
        p.resolve(m.result);
      } else p.reject(toError(m.error));
    };
    worker.onerror = (e) => {
      // A worker that fails to load (CSP, missing file) fails every call made so far; later
      // calls run on the main thread.
      e.preventDefault?.();
      this.failed = true;
      this.worker = null;
      const err = new Error(`analysis worker failed: ${e.message || 'could not start'}`);
      for (const [id, p] of this.pending) { this.pending.delete(id); p.fallback ? p.fallback().then(p.resolve, p.reject) : p.reject(err); }
    };
    return worker;
  }

  call(msg, onProgress, fallback) {
    const w = this.start();
    if (!w) return fallback();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, fallback });
      w.postMessage({ id, ...msg });
    });
  }

  /** Ends the worker at once (its memory is freed); every call waiting fails with `reason`. */
  end(reason) {
    this.worker?.terminate();
    this.worker = null;
    for (const [id, p] of this.pending) { this.pending.delete(id); p.reject(reason); }
  }
}

let nextId = 1;
const main = new Channel();
const startWorker = () => main.start();
const call = (msg, onProgress, fallback) => main.call(msg, onProgress, fallback);
/** key -> the Channel of a profile cell (its own worker: the profile is read and kept there) */
const profileChannels = new Map();

/** A worker's error description back as an error: the core's failures as HloscopeError. */
function toError(info) {
  if (info.name === 'HloscopeError') return new api.HloscopeError(info, info.side || undefined);
  const e = new Error(info.message);
  if (info.name) e.name = info.name;
  if (info.code != null) e.code = info.code;
  e.line = info.line;
  e.column = info.column;
  if (info.side) e.side = info.side;
  return e;
}

// Main-thread copies of the texts the worker holds by key (for the fallback path only).
const localTexts = new Map();

/** Strings longer than this cross to the worker in slices, one per task (see sendText). */
const SLICE = 1_000_000; // characters a message: about 2 MB to clone, a few ms (4M took 80-100 ms on a loaded machine)

const tick = () => new Promise((ok) => setTimeout(ok, 0));

/**
 * Posting a 50 MB string copies it on this thread in one go (about 90 ms in Chromium): send it
 * in slices, each in its own task, so that no single task is long. The worker joins them.
 */
async function sendText(key, text) {
  const w = startWorker();
  if (!w || text.length <= SLICE) return false;
  w.postMessage({ id: 0, op: 'text-begin', key });
  for (let i = 0; i < text.length; i += SLICE) {
    await tick();
    w.postMessage({ id: 0, op: 'text-part', key, part: text.slice(i, i + SLICE) });
  }
  return true;
}

export function analyze({ key, text, file, name = '' }, onProgress) {
  if (text && text.length > SLICE && startWorker()) {
    return sendText(key, text).then((sent) => analyzeNow({ key, text: sent ? undefined : text, file, name, sliced: sent, fallbackText: text }, onProgress));
  }
  return analyzeNow({ key, text, file, name }, onProgress);
}

function analyzeNow({ key, text, file, name = '', sliced = false, fallbackText }, onProgress) {
  return call({ op: 'analyze', key, text, file, name, sliced, bytesMin: globalThis.hloscopeBytesMin, headBytes: globalThis.hloscopeHeadBytes }, onProgress, async () => {
    const tooLarge = file && tooLargeForText(file.size);
    if (tooLarge) throw Object.assign(new Error(tooLarge), { code: 'HS_E_TOO_LARGE' });
    const t = file ? await file.text() : (text ?? fallbackText);
    onProgress?.({ stage: 'parsing' });
    await api.load();
    const out = analyzeText(api, t, undefined, name || file?.name || '');
    localTexts.set(key, out.readable ?? t);
    if (file) out.text = t;
    if (t.length >= BLOB_MIN) out.blob = file || new Blob([t], { type: 'text/plain;charset=utf-8' });
    return out;
  });
}

/** left/right: { key } of an analysed dump, { text }, or null (one-sided x-ray). */
export function xray({ left, right }, onProgress) {
  return call({ op: 'xray', left, right }, onProgress, async () => {
    await api.load();
    const t = (r) => (r == null ? null : r.text ?? localTexts.get(r.key));
    const out = xrayTexts(api, t(left), t(right));
    if (left?.key) out.left.text = null;
    if (right?.key) out.right.text = null;
    return out;
  });
}

/**
 * What changed between two compiles: the core's diff of A and B (each { key } of an analysed
 * dump or { text }) with the rows of <xla-diff> (diff-core.js diffTexts), computed in the worker.
 */
export function diff({ a, b }, onProgress) {
  return call({ op: 'diff', a, b }, onProgress, async () => {
    await api.load();
    const t = (r, side) => {
      const x = r?.text ?? localTexts.get(r?.key);
      if (x == null) throw Object.assign(new Error(`no text for side ${side.toUpperCase()} of the diff`), { code: 'HS_E_NOTFOUND', side });
      return x;
    };
    return diffTexts(api, t(a, 'a'), t(b, 'b'));
  });
}

/** A note the worker held back from a big x-ray (side.notesRef); null when it is gone. */
export function note(ref, index) {
  return call({ op: 'note', ref, index }, null, async () => null);
}

/** The error a cancelled profile read rejects with (name AbortError, code HS_E_CANCELLED). */
function cancelled() {
  return Object.assign(new Error('cancelled: the profile was not read'), { name: 'AbortError', code: 'HS_E_CANCELLED' });
}

/** Ends the worker of the profile under key (or `ch`, when it is still the one under key). */
function endProfile(key, ch = profileChannels.get(key)) {
  ch?.end(cancelled());
  if (profileChannels.get(key) === ch) profileChannels.delete(key);
}

/**
 * Reads a profile file (.xplane.pb, .trace.json[.gz]) in a worker of its own, keeps it there by
 * key, and returns its timeline (options: { hlo, stablehlo, program }). A big `.xplane.pb` is
 * read by slices as the core parses it (progress: { stage, done, total } follows the parse). A
 * second profile under the same key ends the first one's worker (its memory goes with it).
 * `signal` (an AbortSignal) cancels: the worker is ended and the promise rejects with an
 * AbortError (code HS_E_CANCELLED). With no worker, the read runs here and cannot be cancelled.
 */
export function profile({ key, file, options }, onProgress, { signal } = {}) {
  endProfile(key);
  const here = async () => {
    await api.load();
    await loadProfile(api, key, file, onProgress);
    return timelineOf(key, options);
  };
  if (signal?.aborted) return Promise.reject(cancelled());
  const ch = new Channel();
  if (!ch.start()) return here();
  profileChannels.set(key, ch);
  const onAbort = () => endProfile(key, ch);
  signal?.addEventListener('abort', onAbort, { once: true });
  return ch.call({ op: 'profile', key, file, options }, onProgress, here)
    .then(fromText)
    .finally(() => signal?.removeEventListener('abort', onAbort));
}

/** The timeline of a profile kept by key, with other options (a dump to join). */
export function timeline({ key, options }) {
  const ch = profileChannels.get(key);
  if (!ch) return Promise.resolve().then(() => timelineOf(key, options));
  return ch.call({ op: 'timeline', key, options }, null, async () => timelineOf(key, options)).then(fromText);
}

/** A worker's Timeline comes as its JSON text: read in a task after the answer's own. */
async function fromText(t) {
  if (typeof t !== 'string') return t;
  await tick();
  return JSON.parse(t);
}

/** The text of { key } (the main-thread copy, fallback only), { text } or a string; null for none. */
function localText(ref, what) {
  if (ref == null) return null;
  if (typeof ref === 'string') return ref;
  if (typeof ref.text === 'string') return ref.text;
  const t = localTexts.get(ref.key);
  if (t == null) throw Object.assign(new Error(`no ${what} named by key ${ref.key}`), { code: 'HS_E_NOTFOUND' });
  return t;
}

/** An XLA memory text read into numbers (readMemory), joined to the optimized HLO `hlo` when given
 * (a text, or { key } of an analysed dump, or { text }); `name`, the file's name. */
export function memory({ text, hlo = null, name = '' }) {
  return call({ op: 'memory', text, hlo, name }, null, async () => {
    await api.load();
    return readMemoryText(api, text, localText(hlo, 'HLO') ?? '', name);
  });
}

/** One HLO type's layout in words with its padding (layout(type)). */
export function layout(type) {
  return call({ op: 'layout', type }, null, async () => { await api.load(); return api.layout(type); });
}

/** The padding table of a dump: ref is { key } of an analysed dump or { text }. */
export function layouts(ref) {
  const msg = ref?.key != null ? { key: ref.key } : { text: String(ref?.text ?? '') };
  return call({ op: 'layouts', ...msg }, null, async () => {
    await api.load();
    return readLayouts(api, localText(msg, 'dump'));
  });
}

/** One module's levels (readers-core.js readLevels): the optimized HLO parsed once, each .ll of `lls` joined to it. */
export function levels({ hlo = '', lls = [] }, onProgress) {
  return call({ op: 'levels', hlo, lls }, onProgress, async () => {
    await api.load();
    return readLevels(api, hlo, lls);
  });
}

/** An input that a message can carry as it is: a listing, picked files ({ files }), or an array
 * of entries with nothing beside them (an array carrying more, as an archive's own walk, would
 * lose it in the copy). */
function cloneable(input) {
  return typeof input === 'string' || isPickedFiles(input) || (Array.isArray(input) && Reflect.ownKeys(input).length === input.length + 1);
}

/** Which files of a dump folder ([{ name, text }] or [{ name, file }]) hold one module's levels,
 * and their texts (readers-core.js pickLevels: the core's rule, in the worker). */
export function pickLevels(files) {
  const list = Array.from(files || [], (f) => ({ name: f?.name, text: f?.text, file: f?.file }));
  return call({ op: 'pickLevels', files: list }, null, async () => { await api.load(); return pickLevelsHere(api, list); });
}

/** A dump folder read (readPasses): `input` a listing or the folder's entries [{ name, data }]. */
export function passes({ input, label }) {
  const here = async () => { await api.load(); return readFolder(api, input, label); };
  return cloneable(input) ? call({ op: 'passes', input, label }, null, here) : here();
}

/** Two dump folders compared pass by pass: a, b are { input, label }. */
export function comparePasses({ a, b }) {
  const here = async () => { await api.load(); return compareFolders(api, a, b); };
  return cloneable(a.input) && cloneable(b.input) ? call({ op: 'comparePasses', a, b }, null, here) : here();
}

/** The worker's calls into the JS API so far, by function name ({} on the main-thread fallback):
 * tests count the core's work, e.g. one parse of a levels view's HLO. */
export function calls() {
  return call({ op: 'calls' }, null, async () => ({}));
}

export function forget(key) {
  forgetProfile(key);
  endProfile(key);
  localTexts.delete(key);
  if (main.worker) call({ op: 'forget', key }, null, async () => true).catch(() => {});
}

/** The keys of the texts the engine holds (worker and main-thread copies): views must release theirs. */
export function keys() {
  return call({ op: 'keys' }, null, async () => [...localTexts.keys()]);
}

/** The HTML of a report page: `template` (a page's text) with `payload` (JSON text) put in by the core. */
export function reportPage(template, payload) {
  return call({ op: 'reportPage', template, payload }, null, async () => { await api.load(); return api.reportPage(template, payload); });
}

/** Warms the worker's core up (see the worker's `warm`): { bytes, ms }; nothing on the fallback. */
export function warm(ms = 150) {
  if (!startWorker()) return Promise.resolve({ bytes: 0, ms: 0 });
  return call({ op: 'warm', ms }, null, async () => ({ bytes: 0, ms: 0 }));
}

export function version() {
  return call({ op: 'version' }, null, async () => { await api.load(); return api.version(); });
}

export { lineStarts };

/** True when analyses run in a worker (false after a fallback to the main thread). */
export function usingWorker() {
  return !!startWorker();
}
