// What the analysis worker computes, as plain functions over the JS API, so that the worker
// (notebook/src/worker.js) and the main-thread fallback (engine.js, when no Worker can start)
// run the same code. Results are shaped for cheap transfer: big per-line columns are typed
// arrays, notes are a deduplicated string table.
import { backendOf, programEvidence } from '../core-words.js';
import { analyzeLlvm, isLlvm } from './llvm-analysis.js';

/** Line classes, in the x-ray's precedence order (index = code in the compact columns). */
export const CLASSES = ['plain', 'dim', 'hot', 'carry', 'fusion'];
const CLASS_CODE = Object.fromEntries(CLASSES.map((c, i) => [c, i]));

/** How many fusions a census result carries across to the page (the rest stay counted). */
export const FUSION_ROWS = 5000;

/** Byte offsets of line starts (UTF-16 indices into the string), plus the longest line. */
export function lineStarts(text) {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  // A final "\n" ends the last line rather than starting an empty one.
  if (text.length > 0 && text.charCodeAt(text.length - 1) === 10) n--;
  if (text.length === 0) n = 0;
  const starts = new Uint32Array(n + 1);
  let maxLen = 0;
  let k = 0;
  let prev = 0;
  for (let i = text.indexOf('\n'); i !== -1 && k < n; i = text.indexOf('\n', i + 1)) {
    starts[k++] = prev;
    if (i - prev > maxLen) maxLen = i - prev;
    prev = i + 1;
  }
  if (k < n) {
    starts[k++] = prev;
    if (text.length - prev > maxLen) maxLen = text.length - prev;
  }
  starts[n] = text.length + 1; // sentinel: line i spans [starts[i], starts[i+1]-1)
  return { starts, maxLen };
}

/** The core's detection of a text's format (its head is enough), or null before the core loads. */
export function detectFormat(api, text) {
  try {
    return api.detectFormat(text.length > 65536 ? text.slice(0, 65536) : text);
  } catch {
    return null;
  }
}

/** The registry's label of a format name ("HLO", "StableHLO", ...), or null. */
function formatLabel(api, name) {
  try {
    return api.registry().formats.find((f) => f.name === name)?.label ?? null;
  } catch {
    return null;
  }
}

/** Compact per-line columns from the core's XrayLine[] for a text with `starts`. */
export function compactSide(lines, text, starts, maxLen) {
  const n = starts.length - 1;
  const cls = new Uint8Array(n);
  const carries = new Uint8Array(n);
  const ms = new Int16Array(n).fill(-1);
  const noteIdx = new Uint32Array(n);
  const notes = [''];
  const seen = new Map([['', 0]]);
  for (const l of lines || []) {
    const i = l.line - 1;
    if (i < 0 || i >= n) continue;
    cls[i] = CLASS_CODE[l.class] ?? 0;
    // 2: a carrier that counts (the core's rule); 1: a line of that type, underlined as context
    carries[i] = l.carrier ? 2 : l.carries ? 1 : 0;
    if (l.memory_space !== null && l.memory_space !== undefined) ms[i] = l.memory_space;
    const note = l.note || '';
    let k = seen.get(note);
    if (k === undefined) { k = notes.length; notes.push(note); seen.set(note, k); }
    noteIdx[i] = k;
  }
  return { n, cls, carries, ms, noteIdx, notes, starts, maxLen, text };
}

/** Texts this long (characters) are stored as Blobs made in the worker, not as strings. */
export const BLOB_MIN = 1_000_000;

/** Beyond this many distinct notes a side's notes stay in the worker and are asked for on hover. */
export const NOTES_INLINE = 20000;

/** The transferable buffers of a compact side (the text itself is cloned, not transferred). */
export function sideBuffers(side) {
  if (!side) return [];
  return [side.cls.buffer, side.carries.buffer, side.ms.buffer, side.noteIdx.buffer, side.starts.buffer];
}

/** Summary, fusion census (rows capped) and spills of one text, with its line starts. */
/**
 * The longest string a browser holds (V8's limit, 2^29 - 24 UTF-16 units; the same order in
 * other engines): a dump is read as one string, so a file past it cannot be read on a page.
 */
export const MAX_TEXT = 2 ** 29 - 24;

/**
 * The largest file the page reads (as bytes, in the worker): the core's memory is 4 GB (wasm32),
 * and it holds the file's bytes plus the parsed document.
 */
export const MAX_BYTES = 3 * 2 ** 30;

/** Why the page cannot read a file of `bytes` at all (past MAX_BYTES), or null when it can. */
export function tooLargeForCore(bytes) {
  if (!(bytes > MAX_BYTES)) return null;
  const gb = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;
  return `this file is ${gb(bytes)}: the page's core (WebAssembly) has 4 GiB of memory, which holds the file's bytes and what ` +
    `is read from them, so the page reads files up to ${gb(MAX_BYTES)}. Split it (one module per file), or read it with the ` +
    'hloscope command-line tool, which has no such limit.';
}

/** Why a file of `bytes` cannot be read as one text, or null when it can. */
export function tooLargeForText(bytes) {
  if (!(bytes > MAX_TEXT)) return null;
  const mb = (n) => `${Math.round(n / 2 ** 20).toLocaleString('en-US')} MiB`;
  return `this file is ${mb(bytes)}: a browser holds at most ${mb(MAX_TEXT)} of text in one string, and a dump is read as one ` +
    'string, so this page cannot read it. Split it (one module per file: each file becomes a dump cell), or read it with the ' +
    'hloscope command-line tool, which has no such limit.';
}

/**
 * `onStage(stage)` (optional) hears each step as it starts ('parsing', 'summarising', 'counting fusions',
 * 'finding the big intermediate'): the core's calls are synchronous, so that is the progress
 * a page can show for a big text. `name`: the file's name when the text came from one (XLA's
 * dump names say a buffer assignment's backend; the core reads it). `bytes` (optional): the
 * text's UTF-8 bytes as read from its file (a Uint8Array or chunks): the core parses those.
 */
export function analyzeText(api, text, onStage = () => {}, name = '', bytes = null) {
  const { starts, maxLen } = lineStarts(text);
  const out = { format: detectFormat(api, text), bytes: text.length, lines: starts.length - 1, starts, maxLen };
  // An XLA memory text (out-of-memory message, buffer assignment, usage report) is no document:
  // the core reads it into numbers (readMemory), and its dump cell offers the memory view.
  if (out.format === 'memory') {
    try { out.memory = api.readMemory(text, '', name); } catch (e) { out.error = errorInfo(e); }
    return out;
  }
  // LLVM IR: its own reader (llvm-analysis.js). The format is the core's reading of the head
  // (detectFormat above): asking again with the whole text would copy all of it into the core.
  if (isLlvm(api, out.format)) return analyzeLlvm(api, text, out);
  let doc;
  // Several modules in one text: a module that fails is left out (its lines blanked, so line
  // numbers hold) and named in module_errors; the others are read.
  let readable = text;
  const moduleErrors = [];
  onStage('parsing');
  for (;;) {
    try {
      // `bytes`: the text's own UTF-8 bytes (a file's chunks), parsed as they are
      doc = bytes && readable === text ? api.parseBytes(bytes) : api.parse(readable);
      break;
    } catch (e) {
      const cut = moduleErrors.length < 50 && e.line ? blankModuleAt(readable, e.line) : null;
      if (!cut) {
        out.error = errorInfo(e);
        if (moduleErrors.length) out.module_errors = moduleErrors;
        return out;
      }
      moduleErrors.push({ ...errorInfo(e), module: cut.name });
      readable = cut.text;
    }
  }
  if (moduleErrors.length) {
    out.module_errors = moduleErrors;
    // What the worker keeps for later x-rays of this dump (not sent to the page).
    Object.defineProperty(out, 'readable', { value: readable, enumerable: false });
  }
  describeDoc(api, doc, out, text, readable, onStage);
  return out;
}

/** What analyzeText and analyzeBytes say of a parsed document (and frees it). */
function describeDoc(api, doc, out, text, readable, onStage) {
  try {
    onStage('summarising');
    out.format = doc.format;
    out.format_label = formatLabel(api, doc.format);
    out.summary = doc.summary();
    // What pairs this dump with another (module name, entry signature): suggest.js, the x-ray.
    out.evidence = programEvidence(out.summary);
    // Several modules in one text: their names, in order (the views group by them).
    if (out.summary.modules > 1) {
      out.module_names = [...readable.matchAll(/^\s*(?:HloModule\s+([^\s,]+)|module\s+@([\w.$-]+))/gm)].slice(0, 200).map((m) => m[1] || m[2]);
    }
    // Which memory "S(0)" is (HBM on an accelerator, RAM on the CPU), when the text says.
    out.backend = doc.format === 'hlo' ? backendOf(text) : null;
    if (doc.format === 'hlo') {
      onStage('counting fusions');
      const census = doc.fusions({ rows: FUSION_ROWS });
      let spills = null;
      onStage('finding the big intermediate');
      try { spills = doc.spills(); } catch (e) { out.spills_error = errorInfo(e); }
      // What crosses to the page is capped so that a 50 MB dump clones in a few milliseconds.
      out.fusions_total = census.fusions_total;
      delete census.fusions_total;
      out.fusions = census;
      if (spills) {
        out.carriers_total = spills.carriers.length;
        out.spills = spills.carriers.length > FUSION_ROWS ? { ...spills, carriers: spills.carriers.slice(0, FUSION_ROWS) } : spills;
      }
    }
  } catch (e) {
    out.error = errorInfo(e);
  } finally {
    doc.free();
  }
}

/**
 * The analysis of a dump given as UTF-8 byte chunks (a file past the browser's string limit):
 * the core reads every byte (api.parseBytes); what needs a JS string (format detection, the
 * pairing evidence, module names, the backend, line starts) reads only `head`, the text of the
 * first bytes, which is also all the page shows. out.head_of = { bytes, total, lines }.
 */
export function analyzeBytes(api, chunks, onStage = () => {}, headBytes = 8 << 20) {
  headBytes ??= 8 << 20;
  const total = chunks.reduce((n, u) => n + u.length, 0);
  const first = new Uint8Array(Math.min(headBytes, total));
  for (let at = 0, k = 0; at < first.length; k++) {
    const u = chunks[k].subarray(0, first.length - at);
    first.set(u, at);
    at += u.length;
  }
  let cut = first.length;
  if (cut < total) { const nl = first.lastIndexOf(10); if (nl > 0) cut = nl + 1; }
  const head = new TextDecoder().decode(first.subarray(0, cut));
  const { starts, maxLen } = lineStarts(head);
  let lines = 0;
  for (const u of chunks) for (let i = u.indexOf(10); i !== -1; i = u.indexOf(10, i + 1)) lines++;
  if (total && chunks[chunks.length - 1].at(-1) !== 10) lines++;
  const out = { format: detectFormat(api, head), bytes: total, lines, starts, maxLen,
    head_of: { bytes: cut, total, lines: starts.length - 1 } };
  let doc;
  onStage('parsing');
  try {
    doc = api.parseBytes(chunks);
  } catch (e) {
    out.error = errorInfo(e);
    return out;
  }
  describeDoc(api, doc, out, head, head, onStage);
  return out;
}

/**
 * The x-ray of a pair (either side may be null: then that column is left out). Returns
 * { summary, left, right } with compact sides.
 */
export function xrayTexts(api, left, right, known = {}) {
  const L = left != null ? (known.left || lineStarts(left)) : null;
  const R = right != null ? (known.right || lineStarts(right)) : null;
  if (left != null && right != null) {
    const x = api.xray(left, right);
    return {
      summary: { ...x.summary, backend: backendOf(right) },
      pair: x.pair,
      left: compactSide(x.left, left, L.starts, L.maxLen),
      right: compactSide(x.right, right, R.starts, R.maxLen),
    };
  }
  if (right != null && detectFormat(api, right) === 'hlo') {
    // the optimized HLO alone: the core x-rays it with a blank left side
    const x = api.xray('', right);
    return { summary: { ...x.summary, backend: backendOf(right) }, pair: x.pair, left: null, right: compactSide(x.right, right, R.starts, R.maxLen) };
  }
  const text = right ?? left;
  const S = R || L;
  const doc = api.parse(text);
  let summary;
  try {
    const s = doc.summary();
    summary = { lines_in: s.lines, lines_out: 0, fusion_ops: 0, carry: 0, big: null, stat: `${s.lines} lines in` };
  } finally {
    doc.free();
  }
  const side = compactSide([], text, S.starts, S.maxLen);
  return right != null ? { summary, left: null, right: side } : { summary, left: side, right: null };
}

/**
 * The text with the module holding 1-based `line` blanked (its characters gone, its line breaks
 * kept), and that module's name; null when the text has fewer than two modules left.
 */
export function blankModuleAt(text, line) {
  const heads = [...text.matchAll(/^(?:HloModule\s+([^\s,]+)|module\s+@([\w.$-]+))/gm)];
  if (heads.length < 2) return null;
  // line -> offset
  let off = 0;
  for (let k = 1; k < line && off !== -1; k++) off = text.indexOf('\n', off) + 1 || -1;
  if (off < 0) return null;
  let i = heads.length - 1;
  while (i > 0 && heads[i].index > off) i--;
  const start = heads[i].index;
  const end = i + 1 < heads.length ? heads[i + 1].index : text.length;
  const live = heads.filter((h, k) => k !== i);
  if (!live.length) return null;
  const blank = text.slice(start, end).replace(/[^\n]+/g, '');
  return { text: text.slice(0, start) + blank + text.slice(end), name: heads[i][1] || heads[i][2] };
}

/** A structured-clone-safe description of a thrown error. */
export function errorInfo(e) {
  return {
    name: e?.name || 'Error',
    message: e?.message || String(e),
    code: e?.code ?? null,
    line: e?.line ?? 0,
    column: e?.column ?? 0,
    side: e?.side ?? null,
  };
}
