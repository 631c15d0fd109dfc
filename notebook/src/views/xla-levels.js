// <xla-levels>: one fusion at three levels side by side (lesson 07, "levels as a first-class idea").
//
//   1. the HLO fusion body (whole tensors)         *after_optimizations.txt
//   2. the LLVM IR before LLVM's optimizer (loops)  *.ir-no-opt.ll
//   3. the LLVM IR after it (vectors)               *.ir-with-opt.ll
//
// The same operation (the add, the exp, ...) is highlighted in all three; the loops of the two
// LLVM levels are outlined (a bar per nesting depth, the trip count on the header line); one line
// per level says what was decided there. Texts are put into the page with textContent only.
//
// Inputs:
//   el.folder = [{ name, text }]   the files of an --xla_dump_to folder (a folder cell, a test),
//                                  or the element's own "open a dump folder" picker;
//                                  the .ll parts of one module are read together
//   el.texts  = { hlo, noopt, opt } three pasted texts (noopt/opt: one or more .ll texts joined),
//                                  or { hlo, lls }: the .ll texts, each level the core's reading
//   <xla-levels src-hlo="…" src-noopt="…" src-opt="…">   same-origin URLs
//   el.kernel = 'add.3'            which kernel (HLO instruction name); default: the first fusion
//   el.op = 'add'                  which HLO opcode to highlight; default: the body's first mapped op
import { adoptStyles, defineOnce, el, fetchText, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';
import * as engine from './engine.js';
import { nestWords } from './llvm-analysis.js';

// HLO opcode -> the LLVM opcodes, or the dotted parts of intrinsic/callee names
// (llvm.exp.f32, llvm.vector.reduce.fadd.v8f32), that compute it: what the highlight follows.
// Float element types use the float opcodes, integer types the integer ones.
const OP_MAP = {
  add: ['fadd'], subtract: ['fsub'], multiply: ['fmul'], divide: ['fdiv'], remainder: ['frem'],
  exponential: ['exp'], log: ['log'], maximum: ['maxnum', 'maximum'], minimum: ['minnum', 'minimum'],
  tanh: ['tanh'], sqrt: ['sqrt'], rsqrt: ['sqrt'], negate: ['fneg'], abs: ['fabs'], compare: ['fcmp'],
  select: ['select'], convert: ['fptrunc', 'fpext', 'sitofp', 'fptosi', 'uitofp', 'fptoui'], reduce: ['reduce'],
  power: ['pow'], floor: ['floor'], ceil: ['ceil'], 'exponential-minus-one': ['expm1'], 'log-plus-one': ['log1p'],
};
const OP_MAP_INT = {
  add: ['add'], subtract: ['sub'], multiply: ['mul'], divide: ['sdiv', 'udiv'], remainder: ['srem', 'urem'],
  maximum: ['smax', 'umax'], minimum: ['smin', 'umin'], negate: ['sub'], abs: ['abs'], compare: ['icmp'],
  select: ['select'], convert: ['trunc', 'zext', 'sext', 'sitofp', 'fptosi'], and: ['and'], or: ['or'], xor: ['xor'],
  'shift-left': ['shl'], 'shift-right-logical': ['lshr'], 'shift-right-arithmetic': ['ashr'], reduce: ['reduce'],
};
/** The LLVM names computing HLO `op` on values of HLO type `type` ("f32[1024]", "s32[]"). */
function llvmNamesFor(op, type) {
  const int = /^[su]\d|^pred/.test(type || '');
  return (int ? OP_MAP_INT : OP_MAP)[op] || null;
}
/** Does an op_lines key (an opcode, or a callee such as llvm.exp.f32) compute one of `names`? */
function computes(key, names) {
  const parts = key.split('.');
  return names.some((m) => key === m || (parts.length > 1 && parts.includes(m)));
}
/** The functions of one read .ll text that make kernel `name`: its own, and the helpers they call. */
function kernelFunctions(f, name) {
  const mine = f.json.functions.filter((fn) => fn.key === name);
  const callees = f.json.functions.filter((fn) => !fn.key && mine.some((m) => fn.name in m.calls));
  return [...mine, ...callees];
}
const SKIP_OPS = new Set(['parameter', 'constant', 'broadcast', 'bitcast', 'reshape', 'copy', 'tuple', 'get-tuple-element', 'iota', 'slice', 'transpose', 'concatenate']);

const css = theme + `
  :host { display: block; font-size: 13px; }
  .bar { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center; margin-bottom: .5rem; }
  .bar label { color: var(--dim); font-size: 12px; }
  select, button { font: inherit; font-size: 12px; }
  button.op { border: 1px solid var(--line); background: var(--paper); border-radius: 4px; padding: .1rem .45rem; cursor: pointer; font-family: var(--mono); }
  button.op[aria-pressed="true"] { background: var(--copper-bg); border-color: var(--copper); }
  .levels { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .6rem; }
  .level { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); min-width: 0; display: flex; flex-direction: column; }
  .level h4 { margin: 0; padding: .45rem .6rem .1rem; font-size: 13px; font-weight: 600; }
  .level p.decided { margin: 0; padding: 0 .6rem .4rem; font-size: 12px; color: var(--accent); }
  .code { font-family: var(--mono); font-size: 11.5px; overflow: auto; max-height: 28rem; border-top: 1px solid var(--line); padding: .3rem 0; }
  .ln { display: flex; white-space: pre; line-height: 1.45; }
  .ln .no { color: var(--dim); width: 3.2em; text-align: right; padding-right: .5em; flex: none; user-select: none; }
  .ln .loops { flex: none; display: flex; }
  .ln .loops i { width: .55em; border-left: 2px solid transparent; }
  .ln .loops i.on { border-left-color: var(--accent); }
  .ln .loops i.head { border-left-color: var(--accent); border-top: 2px solid var(--accent); }
  .ln .src { padding-right: .6em; }
  .ln.hit { background: var(--copper-bg); }
  .ln.hit .src { color: var(--copper); font-weight: 600; }
  .ln .trip { color: var(--accent); padding-left: 1em; font-family: var(--sans); font-size: 11px; }
  .status { font-size: 12px; color: var(--dim); }
  p.dropped { flex-basis: 100%; margin: .1rem 0 0; font-size: 12px; color: var(--dim); }
  label.open { display: block; font-size: 12px; color: var(--dim); margin-bottom: .4rem; }
  label.open input { font-size: 12px; }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  @media (max-width: 900px) { .levels { grid-template-columns: minmax(0, 1fr); } }
`;

const lines = (t) => t.split('\n');

/**
 * What was folded away: the core's `folded` list of a `dropped` entry where it gives one; else
 * unknown, with the facts there are: the HLO ops of the body that no instruction of the optimized
 * IR computes (`absent`: [{ name, opcode, llvm }], from the core's op_lines).
 */
function foldedWords(d, absent) {
  if (Array.isArray(d.folded)) {
    return d.folded.length ? `folded away: ${d.folded.map((f) => (typeof f === 'string' ? f : f.hlo ?? f.name)).join(', ')}` : 'folded away: nothing';
  }
  const none = absent.length
    ? `; no instruction of the optimized IR computes ${absent.map((a) => `${a.name} (${a.opcode}: no ${a.llvm.join('/')})`).join(', ')}: folded away or computed another way, the texts do not say which`
    : '';
  return `folded away: unknown (the core's dropped list does not say)${none}`;
}

/** "dropped on the way down: ..." for kernel `name` (the core's `dropped` entry), or null. */
function droppedLine(level, name, absent = []) {
  const d = level.flatMap((f) => f.json.dropped).find((x) => x.hlo === name);
  if (!d) return null;
  const ins = d.shapes.hlo_operands.filter(Boolean);
  const bits = [
    `shapes ${[...ins, d.shapes.hlo_result].filter(Boolean).join(', ')} → untyped pointers and ${d.shapes.llvm_getelementptr} getelementptr`,
    d.layouts.hlo_layouts.length ? `layout ${d.layouts.hlo_layouts.join(' ')} → ${d.layouts.llvm_array_types.length
      ? `strides over ${d.layouts.llvm_array_types.join(', ')}`
      : `index arithmetic in ${d.shapes.llvm_getelementptr} getelementptr (no array type is left to show the strides)`}` : null,
    d.fusion.hlo_body ? `fusion ${d.fusion.hlo_body} (${d.fusion.hlo_body_instructions} instructions) → function @${d.fusion.llvm_function}` : `op → function @${d.fusion.llvm_function}`,
    `names ${d.names.hlo_names.slice(0, 4).join(', ')}${d.names.hlo_names.length > 4 ? ', …' : ''} → ${d.names.llvm_numbered} numbered values (%N)`,
    foldedWords(d, absent),
  ].filter(Boolean);
  return el('p', { class: 'dropped', text: `dropped on the way down: ${bits.join('; ')}` });
}

class XlaLevels extends AnalysedElement {
  static get observedAttributes() { return ['src-hlo', 'src-noopt', 'src-opt']; }
  static viewName = 'levels';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._status = el('div', { class: 'status', role: 'status' });
    this._bar = el('div', { class: 'bar' });
    this._levels = el('div', { class: 'levels', part: 'levels' });
    // a dump folder from disk: the files are read here, nothing is uploaded anywhere
    this._picker = el('input', { type: 'file', multiple: true, webkitdirectory: true, 'aria-label': 'open a dump folder',
      onchange: (e) => this._openFiles(e.target.files) });
    const open = el('label', { class: 'open' }, 'open an --xla_dump_to folder… ', this._picker);
    root.append(open, this._status, this._bar, this._levels);
    this._kernel = null;
    this._op = null;
  }

  attributeChangedCallback() {
    const urls = ['src-hlo', 'src-noopt', 'src-opt'].map((a) => this.getAttribute(a));
    if (!urls.every(Boolean)) return;
    const gen = ++this._gen;
    Promise.all(urls.map(fetchText)).then(([hlo, noopt, opt]) => {
      if (gen === this._gen) this.texts = { hlo, noopt, opt };
    }, (e) => this._fail(e));
  }

  /** [{ name, text }] or [{ name, file }]: which files hold the levels is the core's choice
   * (dumpLevels, in the analysis worker, which reads only the files it picks). */
  set folder(files) {
    const gen = ++this._gen;
    engine.pickLevels(files).then((p) => {
      if (gen !== this._gen) return;
      if (!p) { this._fail(new Error('no *.ir-no-opt.ll or *.ir-with-opt.ll in this folder (XLA:CPU writes them with --xla_dump_to; newer jaxlib also needs --xla_dump_emitter_re=.*)')); return; }
      this.texts = p;
    }, (e) => { if (gen === this._gen) this._fail(e); });
  }

  _openFiles(fileList) {
    this.folder = [...(fileList || [])].map((f) => ({ name: f.webkitRelativePath || f.name, file: f }));
  }

  get texts() { return this._texts ?? null; }
  set texts(t) {
    this._texts = t;
    this._analyse(t, 'reading the three levels…');
  }

  _request(key, t) { return this._read(t); }

  _analysed(model) {
    this._model = model;
    this._render();
    this.dispatchEvent(new CustomEvent('levels-ready', { detail: { kernels: model.kernels.map((k) => k.name) } }));
  }

  get kernel() { return this._kernel; }
  set kernel(k) { this._kernel = k; if (this._model) this._render(); }
  get op() { return this._op; }
  set op(o) { this._op = o; if (this._model) this._render(); }

  _fail(e) {
    this._status.className = 'status err';
    this._status.textContent = `levels: ${e.message}${e.line ? ` (line ${e.line}, column ${e.column})` : ''}`;
    this._bar.replaceChildren();
    this._levels.replaceChildren();
  }

  async _read({ hlo = '', noopt = [], opt = [], lls = [] }) {
    const list = (x) => (Array.isArray(x) ? x : x ? [x] : []);
    // each text with the level it was given as (null: the core's reading says)
    const given = [...list(noopt).map((t) => [t, false]), ...list(opt).map((t) => [t, true]), ...list(lls).map((t) => [t, null])];
    // the core, in the worker: the HLO parsed once, every .ll joined to that document, and the
    // HLO side (fusion instructions and their bodies) from the same parse
    const read = await engine.levels({ hlo, lls: given.map(([t]) => t) });
    // the core's `optimized`: LLVM's optimizer ran
    const levels = { noopt: [], opt: [] };
    given.forEach(([text, isOpt], i) => levels[(isOpt ?? read.llvm[i].optimized === true) ? 'opt' : 'noopt'].push({ text, json: read.llvm[i] }));
    const fusions = read.fusions;
    const comps = read.computations;
    // a kernel is keyed by the HLO instruction it is named after; without an HLO, by its own name
    const keyOf = hlo ? (fn) => fn.hlo : (fn) => (fn.kernel ? fn.name : null);
    for (const lv of [levels.noopt, levels.opt]) for (const f of lv) for (const fn of f.json.functions) fn.key = keyOf(fn);
    const names = new Set();
    for (const lv of [levels.noopt, levels.opt]) for (const f of lv) for (const fn of f.json.functions) if (fn.key) names.add(fn.key);
    const kernels = [...names].map((name) => {
      const fusion = fusions.find((f) => f.name === name) || null;
      const comp = fusion ? comps.find((c) => c.name === fusion.calls) : null;
      const self = comps.flatMap((c) => c.instructions).find((i) => i.name === name) || null;
      return { name, fusion, comp, self };
    }).sort((a, b) => (!!b.fusion - !!a.fusion) || (a.name < b.name ? -1 : 1));
    return { hlo, levels, kernels };
  }

  _render() {
    if (!this._model) { this._bar.replaceChildren(); this._levels.replaceChildren(); return; }
    const { hlo, levels, kernels } = this._model;
    this._status.textContent = '';
    this._status.className = 'status';
    if (!kernels.length) { this._fail(new Error(hlo ? 'no kernel of these LLVM IR files is named after an HLO instruction (is the HLO the same module?)' : 'no kernel (a function the runtime calls) in these LLVM IR texts')); return; }
    const k = kernels.find((x) => x.name === this._kernel) || kernels[0];
    // the HLO lines: the fused body (header to closing brace), else the instruction itself
    const hloLines = lines(hlo);
    let hloRange = [];
    if (k.comp) {
      const last = Math.max(k.comp.line, ...k.comp.instructions.map((i) => i.line));
      for (let n = k.comp.line; n <= Math.min(last + 1, hloLines.length); n++) hloRange.push(n);
    } else if (k.self) hloRange = [k.self.line];
    const body = k.comp ? k.comp.instructions : k.self ? [k.self] : [];
    const typeOf = new Map(body.map((i) => [i.opcode, i.type]));
    const mapped = [...new Set(body.map((i) => i.opcode).filter((o) => !SKIP_OPS.has(o) && llvmNamesFor(o, typeOf.get(o))))];
    const op = mapped.includes(this._op) ? this._op : mapped[0] || null;

    // toolbar: kernel select and op buttons
    const sel = el('select', { 'aria-label': 'kernel', onchange: (e) => { this.kernel = e.target.value; } },
      kernels.map((x) => el('option', { value: x.name, text: x.fusion ? `${x.name} (${x.fusion.kind || 'fusion'})` : x.name, selected: x === k })));
    const ops = mapped.map((o) => el('button', { class: 'op', type: 'button', 'aria-pressed': String(o === op), dataset: { op: o }, text: o, onclick: () => { this.op = o; } }));
    // the body's ops no instruction of the optimized IR computes (only when that level is given)
    const optKeys = levels.opt.flatMap((f) => kernelFunctions(f, k.name).flatMap((fn) => Object.keys(fn.op_lines)));
    const absent = !levels.opt.length ? [] : body
      .filter((i) => !SKIP_OPS.has(i.opcode))
      .map((i) => ({ name: i.name, opcode: i.opcode, llvm: llvmNamesFor(i.opcode, i.type) }))
      .filter((a) => a.llvm && !optKeys.some((key) => computes(key, a.llvm)));
    this._bar.replaceChildren(el('label', { text: 'kernel' }), sel, mapped.length ? el('label', { text: 'highlight' }) : null, ...ops,
      droppedLine(levels.noopt.length ? levels.noopt : levels.opt, k.name, absent));

    // level 1: HLO
    const hloHit = (n) => {
      if (!op) return false;
      const ins = (k.comp ? k.comp.instructions : [k.self]).find((i) => i && i.line === n);
      return !!ins && ins.opcode === op;
    };
    const shapes = k.comp ? k.comp.instructions.filter((i) => i.opcode === 'parameter').map((i) => i.type) : [];
    const result = k.fusion ? k.fusion.type : k.self?.type;
    const hloDecided = k.fusion
      ? `whole tensors: ${shapes.join(', ') || 'no inputs'} → ${result}; XLA decided the fusion: ${k.comp ? k.comp.instructions.length : '?'} instructions in one ${k.fusion.kind || ''} kernel`
      : `whole tensors: ${result ?? ''}; XLA decided this op runs as a kernel of its own`;
    const hloPane = this._pane('HLO fusion body', 'tensors', hlo ? hloDecided : 'not given: add the *after_optimizations.txt of this module to see the tensors',
      hloRange.map((n) => ({ n, text: hloLines[n - 1] ?? '', hit: hloHit(n), depth: 0 })));

    const llvmPane = (title, kind, lv) => {
      if (!lv.length) return this._pane(title, kind, `not given: add the ${kind === 'loops' ? '*.ir-no-opt.ll' : '*.ir-with-opt.ll'} of this module`, []);
      const rows = [];
      const loopsAll = [];
      const widths = new Set();
      let loads = 0, stores = 0, calls = new Set();
      for (const f of lv) {
        const ls = lines(f.text);
        for (const fn of kernelFunctions(f, k.name)) {
          const hitLines = new Set();
          const names = op ? llvmNamesFor(op, typeOf.get(op)) : null;
          if (names) for (const [name, at] of Object.entries(fn.op_lines)) if (computes(name, names)) at.forEach((n) => hitLines.add(n));
          loopsAll.push(fn.loops);
          fn.vector_widths.forEach((w) => widths.add(w));
          loads += fn.loads.count;
          stores += fn.stores.count;
          Object.keys(fn.calls).forEach((c) => calls.add(c));
          for (let n = fn.line; n <= fn.end_line; n++) {
            const inLoops = fn.loops.filter((L) => n >= L.first_line && n <= L.last_line).sort((a, b) => a.depth - b.depth);
            const head = fn.loops.find((L) => L.first_line === n);
            rows.push({ n, text: ls[n - 1] ?? '', hit: hitLines.has(n), depth: inLoops.length, head: head || null });
          }
          rows.push({ n: '', text: '', hit: false, depth: 0 });
        }
      }
      const nest = nestWords(loopsAll);
      const vec = widths.size ? [...widths].join(', ') : 'scalars only';
      const decided = kind === 'loops'
        ? `loops over buffers: ${nest}; shapes became pointers and index arithmetic, ${loads} loads, ${stores} stores; ${vec}`
        : `vectors: ${vec}; ${nest}; LLVM decided the vector width, the unrolling and the order`;
      return this._pane(title, kind, decided, rows);
    };
    this._levels.replaceChildren(hloPane,
      llvmPane('LLVM IR, no-opt', 'loops', levels.noopt),
      llvmPane('LLVM IR, optimized', 'vectors', levels.opt));
    // show each level from its first highlighted line (else its first loop)
    for (const code of this._levels.querySelectorAll('.code')) {
      const at = code.querySelector('.ln.hit') || code.querySelector('.ln .trip')?.parentElement;
      if (at) code.scrollTop = Math.max(0, at.offsetTop - code.offsetTop - 48);
    }
  }

  _pane(title, kind, decided, rows) {
    const maxDepth = Math.max(0, ...rows.map((r) => r.depth));
    const code = el('div', { class: 'code', dataset: { level: kind } }, rows.map((r) => {
      const bars = [];
      for (let d = 1; d <= maxDepth; d++) bars.push(el('i', { class: d <= r.depth ? (r.head && r.head.depth === d ? 'head' : 'on') : '' }));
      return el('div', { class: `ln${r.hit ? ' hit' : ''}`, dataset: { line: String(r.n), depth: String(r.depth) } },
        el('span', { class: 'no', text: String(r.n) }),
        maxDepth ? el('span', { class: 'loops', 'aria-hidden': 'true' }, bars) : null,
        el('span', { class: 'src', text: r.text }),
        r.head ? el('span', { class: 'trip', text: `loop depth ${r.head.depth}${r.head.trip_count != null ? `, runs ${r.head.trip_count}×` : ''}` }) : null);
    }));
    return el('section', { class: 'level', dataset: { level: kind } },
      el('h4', { text: title }), el('p', { class: 'decided', text: decided }), code);
  }
}

defineOnce('xla-levels', XlaLevels);
export { XlaLevels };
