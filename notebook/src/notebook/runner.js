// Running a code cell: the user's JavaScript becomes the body of an async function (so top-level
// await works) whose parameters are the API, every dump cell by name, show() and print().
// That needs the page's CSP to allow 'unsafe-eval' (the AsyncFunction constructor): the code is
// the user's own, typed into their own notebook.
import * as api from 'hs:api';
import { parser as jsParser } from '@lezer/javascript';
import * as engine from '../views/engine.js';
import { el } from '../dom.js';
import '../views/xla-xray.js';
import '../views/xla-fusion-table.js';
import '../views/xla-summary.js';
import '../views/xla-memory.js';
import '../views/xla-padding.js';
import '../views/xla-levels.js';
import '../views/xla-diff.js';

const AsyncFunction = (async () => {}).constructor;

/** A dump cell as code cells see it: its text and what the core found in it. */
export class Dump {
  constructor({ name, key, text, analysis, fileName = null }) {
    this.name = name;
    this.fileName = fileName; // the file the text came from, when it did (XLA's dump names say the backend)
    this.key = key;
    this.text = text;
    const a = analysis || {};
    this.format = a.format ?? null;
    this.bytes = text.length;
    this.lines = a.lines ?? null;
    this.summary = a.summary ?? null;
    this.fusions = a.fusions ?? null;
    this.spills = a.spills ?? null;
    this.memory = a.memory ?? null;
    this.error = a.error ?? null;
    Object.defineProperty(this, 'analysis', { value: a, enumerable: false });
  }
  toString() { return this.text; }
}

const RESERVED = new Set(['hloscope', 'load', 'isLoaded', 'version', 'parse', 'xray', 'HloscopeError', 'show', 'print',
  'dumps', 'Dump', 'api', 'arguments', 'eval', 'await', 'async', 'break', 'case', 'catch', 'class', 'const', 'continue',
  'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if',
  'implements', 'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public',
  'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
  'undefined', 'NaN', 'Infinity', 'window', 'document', 'globalThis', 'self']);

/** Why a dump name cannot be a variable in code cells, or null when it can. */
export function nameProblem(name) {
  if (!name) return 'give the dump a name to use it in code cells';
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return 'a name is letters, digits, _ or $, not starting with a digit';
  if (RESERVED.has(name) || Object.hasOwn(api, name)) return `"${name}" is taken (an API name or a JavaScript word)`;
  return null;
}

const xrayTexts = new WeakMap(); // xray() results -> { left, right } texts, so show() can draw them

function textOf(x) {
  if (x == null) return null;
  return x instanceof Dump ? x.text : String(x);
}
function refOf(x) {
  if (x == null) return null;
  if (x instanceof Dump && !x.text) throw new Error(`the dump ${x.name} is empty: paste, upload or drop a dump into it`);
  return x instanceof Dump ? { key: x.key } : { text: String(x) };
}

function jsonText(x) {
  try {
    const s = JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? String(v) : v), 2);
    return s === undefined ? String(x) : s;
  } catch {
    return String(x);
  }
}

/** True when code holds nothing but view calls on dump names (safe to re-run on load). */
export function isViewOnly(code) {
  const lines = code.split('\n').map((l) => l.replace(/\/\/.*$/, '').trim()).filter(Boolean);
  if (!lines.length) return false;
  return lines.every((l) => /^show(\.(xray|fusions|summary|memory|padding|diff|levels))?\(\s*[A-Za-z_$][\w$]*\s*(,\s*[A-Za-z_$][\w$]*\s*)?\)\s*;?$/.test(l));
}

/**
 * The code with its last statement returned when that statement is an expression, so that a
 * cell shows the value of its last expression, as Jupyter does. Code that does not parse is
 * left as it is (running it reports the syntax error).
 */
export function returnLastExpression(code) {
  const tree = jsParser.parse(code);
  let broken = false;
  tree.iterate({ enter: (n) => { if (n.type.isError) broken = true; return !broken; } });
  if (broken) return code;
  let last = tree.topNode.lastChild;
  while (last && /Comment/.test(last.name)) last = last.prevSibling;
  if (!last || last.name !== 'ExpressionStatement') return code;
  const expr = code.slice(last.from, last.to).replace(/;\s*$/, '');
  return `${code.slice(0, last.from)}return (${expr}\n);${code.slice(last.to)}`;
}

/** The JS API's documented names (README: load, parse, xray, parseProfile, registry, ...), for code cells. */
function apiScope() {
  const out = {};
  for (const [k, v] of Object.entries(api)) {
    if (/^(wasmBinary|setWasmBinary|missing|default)$/.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/**
 * Runs `code` with `dumps` (name -> Dump) in scope, drawing into `output`. Resolves when the
 * code and every view it asked for are done; rejects with the first error.
 */
export async function runCode(code, { dumps, output }) {
  const pending = [];
  const track = (p) => { pending.push(p); return p; };

  const show = (x, opts = {}) => {
    if (x instanceof Node) { output.append(x); return x; }
    if (x instanceof Dump) {
      if (x.format === 'memory') return show.memory(x);
      const s = show.summary(x);
      if (x.format === 'hlo') show.fusions(x);
      return s;
    }
    if (x && typeof x === 'object') {
      const texts = xrayTexts.get(x);
      if (texts && x.summary?.stat) {
        const v = document.createElement('xla-xray');
        output.append(v);
        v.data = { xray: x, left: texts.left, right: texts.right };
        return v;
      }
      if (Array.isArray(x.fusions) && 'fusion_ops' in x) {
        const v = document.createElement('xla-fusion-table');
        output.append(v);
        v.data = x;
        return v;
      }
      if (typeof x.summary === 'function' && typeof x.format === 'string') {
        const data = { summary: x.summary() };
        if (x.format === 'hlo') { data.fusions = x.fusions(); try { data.spills = x.spills(); } catch { /* no spills */ } }
        const v = document.createElement('xla-summary');
        output.append(v);
        v.data = data;
        return v;
      }
      if ('format' in x && 'lines' in x && 'computations' in x) {
        const v = document.createElement('xla-summary');
        output.append(v);
        v.data = { summary: x };
        return v;
      }
    }
    const pre = el('pre', { class: 'out-text', text: typeof x === 'string' ? x : jsonText(x) });
    if (opts.label) pre.prepend(el('b', { text: `${opts.label}: ` }));
    output.append(pre);
    return pre;
  };

  /** The fusion x-ray of a StableHLO (left) and optimized HLO (right) dump; either may be null. */
  show.xray = (left, right) => {
    const refs = { left: refOf(left), right: refOf(right) };
    if (!refs.left && !refs.right) throw new Error('show.xray(left, right) needs at least one dump');
    const v = document.createElement('xla-xray');
    output.append(v);
    v.progress({ stage: 'x-ray' });
    track(engine.xray(refs, (p) => v.progress(p)).then((out) => {
      if (out.left && out.left.text == null) out.left.text = textOf(left);
      if (out.right && out.right.text == null) out.right.text = textOf(right);
      v.data = out;
    }, (e) => { v.progress(null); throw e; }));
    return v;
  };
  /** The fusion table of an optimized HLO dump (or text). */
  show.fusions = (d) => {
    const v = document.createElement('xla-fusion-table');
    output.append(v);
    if (d instanceof Dump) {
      if (!d.fusions) throw new Error(`${d.name} is not an optimized HLO dump (format: ${d.format ?? 'unknown'})`);
      v.data = { ...d.fusions, total: d.analysis.fusions_total, partial: d.summary?.partial ?? null, backend: d.analysis.backend ?? null };
    } else if (d && Array.isArray(d.fusions)) v.data = d;
    else v.text = textOf(d);
    return v;
  };
  /** The summary card of a dump (or text). */
  show.summary = (d) => {
    const v = document.createElement('xla-summary');
    output.append(v);
    if (d instanceof Dump) {
      if (d.error) throw Object.assign(new Error(`${d.name}: ${d.error.message}`), d.error);
      v.data = { ...d.analysis, name: d.name };
    } else v.text = textOf(d);
    return v;
  };
  /** The memory view of an out-of-memory message, buffer assignment or usage report (or a
   * readMemory result); with `hlo`, the module's optimized HLO, joined to its instructions. */
  show.memory = (d, hlo) => {
    const v = document.createElement('xla-memory');
    output.append(v);
    if (hlo != null) {
      // joined to the module's optimized HLO: allocations and values gain line and opcode (read in
      // the analysis worker; a dump's HLO goes by its key, not copied again)
      track(engine.memory({ text: textOf(d), hlo: hlo instanceof Dump && !hlo.text ? '' : refOf(hlo), name: d instanceof Dump ? d.fileName ?? '' : '' }).then((m) => { v.data = m; }));
    } else if (d instanceof Dump) {
      if (d.error) throw Object.assign(new Error(`${d.name}: ${d.error.message}`), d.error);
      if (d.memory) v.data = d.memory;
      else v.text = d.text;
    } else if (d && typeof d === 'object' && 'allocations' in d && 'kind' in d) v.data = d;
    else v.text = textOf(d);
    return v;
  };
  /** A module's padding table: each value's tiled layout against its logical size (an HLO dump or text). */
  show.padding = (d) => {
    const v = document.createElement('xla-padding');
    output.append(v);
    if (d && typeof d === 'object' && Array.isArray(d.rows)) v.data = d;
    else v.text = textOf(d);
    return v;
  };
  /** One fusion at three levels: the optimized HLO (or null) and one or more LLVM IR dumps. */
  show.levels = (hlo, ...lls) => {
    const texts = lls.filter((x) => x != null).map(textOf);
    if (!texts.length) throw new Error('show.levels(hlo, ll, ...) needs at least one LLVM IR dump (*.ir-no-opt.ll, *.ir-with-opt.ll)');
    const v = document.createElement('xla-levels');
    output.append(v);
    v.texts = { hlo: textOf(hlo) ?? '', lls: texts }; // each .ll's level: the core's reading, in the worker
    return v;
  };
  /** What changed between two compiles: the core's diff of two optimized HLO dumps (or texts),
   * side by side (<xla-diff>), computed in the worker. A is the reference, B the new compile. */
  show.diff = (a, b) => {
    if (a == null || b == null) throw new Error('show.diff(a, b) needs two optimized HLO dumps (A: the reference, B: the new compile)');
    const refs = { a: refOf(a), b: refOf(b) };
    const v = document.createElement('xla-diff');
    output.append(v);
    v.progress({ stage: 'diff' });
    const name = (x) => (x instanceof Dump ? x.name : null);
    track(engine.diff(refs, (p) => v.progress(p)).then((out) => {
      v.data = { ...out, a: textOf(a), b: textOf(b), names: { a: name(a), b: name(b) } };
    }, (e) => {
      v.progress(null);
      const d = e.side === 'a' ? a : e.side === 'b' ? b : null;
      if (d instanceof Dump) e.message = `${d.name} (side ${e.side.toUpperCase()}): ${e.message}`;
      throw e;
    }));
    return v;
  };
  show.text = (s) => show(String(s));

  const print = (...args) => {
    output.append(el('pre', { class: 'out-text', text: args.map((a) => (typeof a === 'string' ? a : jsonText(a))).join(' ') }));
  };

  const parse = (x) => api.parse(textOf(x));
  const xray = (l, r) => {
    const res = api.xray(textOf(l), textOf(r));
    xrayTexts.set(res, { left: textOf(l), right: textOf(r) });
    return res;
  };

  if (/\b(parse|parseProfile|xray|xrayJSON|version|hloscope|isLoaded|registry|detectFormat)\b/.test(code.replace(/show\.xray/g, ''))) {
    try { await api.load(); } catch (e) { if (e.code !== 'HS_E_NOWASM') throw e; }
  }

  const scope = {
    ...apiScope(),
    hloscope: api, load: api.load, isLoaded: api.isLoaded, version: api.version, HloscopeError: api.HloscopeError,
    parse, xray, show, print, dumps: Object.freeze({ ...dumps }), Dump,
  };
  for (const [name, d] of Object.entries(dumps)) if (!nameProblem(name)) scope[name] = d;
  const names = Object.keys(scope);
  let fn;
  try {
    fn = new AsyncFunction(...names, `"use strict";\n${returnLastExpression(code)}`);
  } catch (e) {
    if (e instanceof SyntaxError) throw e;
    throw e;
  }
  const result = await fn(...names.map((n) => scope[n]));
  // The last expression's value (a view already drawn in this output is not drawn twice).
  if (result !== undefined && !(result instanceof Node && output.contains(result))) show(result);
  const settled = await Promise.allSettled(pending);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}
