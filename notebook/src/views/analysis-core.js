// What the analysis worker computes, as plain functions over the JS API, so that the worker
// (notebook/src/worker.js) and the main-thread fallback (engine.js, when no Worker can start)
// run the same code. Results are shaped for cheap transfer: big per-line columns are typed
// arrays, notes are a deduplicated string table.
import { programEvidence, sniffFormat } from '../core-words.js';
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

export { sniffFormat };

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
export function analyzeText(api, text) {
  const { starts, maxLen } = lineStarts(text);
  const out = { format: sniffFormat(text), bytes: text.length, lines: starts.length - 1, starts, maxLen };
  // An XLA memory text (out-of-memory message, buffer assignment, usage report) is no document:
  // the core reads it into numbers (readMemory), and its dump cell offers the memory view.
  if (!out.format && api.detectFormat?.(text) === 'memory') {
    out.format = 'memory';
    try { out.memory = api.readMemory(text); } catch (e) { out.error = errorInfo(e); }
    return out;
  }
  if (isLlvm(api, text)) return analyzeLlvm(api, text, out); // LLVM IR: its own reader (llvm-analysis.js)
  let doc;
  // Several modules in one text: a module that fails is left out (its lines blanked, so line
  // numbers hold) and named in module_errors; the others are read.
  let readable = text;
  const moduleErrors = [];
  for (;;) {
    try {
      doc = api.parse(readable);
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
  try {
    out.format = doc.format;
    out.summary = doc.summary();
    // What pairs this dump with another (module name, entry signature): suggest.js, the x-ray.
    out.evidence = programEvidence(text, doc.format);
    if (doc.format === 'hlo') {
      const census = doc.fusions();
      let spills = null;
      try { spills = doc.spills(); } catch (e) { out.spills_error = errorInfo(e); }
      // What crosses to the page is capped so that a 50 MB dump clones in a few milliseconds.
      out.fusions_total = census.fusions.length;
      out.fusions = census.fusions.length > FUSION_ROWS ? { ...census, fusions: census.fusions.slice(0, FUSION_ROWS) } : census;
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
      summary: x.summary,
      left: compactSide(x.left, left, L.starts, L.maxLen),
      right: compactSide(x.right, right, R.starts, R.maxLen),
    };
  }
  if (right != null && sniffFormat(right) === 'hlo') {
    // the optimized HLO alone: the core x-rays it with a blank left side
    const x = api.xray('', right);
    return { summary: x.summary, left: null, right: compactSide(x.right, right, R.starts, R.maxLen) };
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
