// <xla-pipeline>: a dump folder (XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_pass_re=.*) as a
// pass stepper: ←/→ (and a slider with a tick per pipeline entry) walk the numbered steps; each
// shows the pass just finished and the one about to run, the pipeline run (reruns tagged), the
// layout watershed; a small inline-SVG chart of instructions and fusions over the steps; the
// selected step's diff; and two folders compared pass by pass.
//
// Inputs: drop a folder (or its files), a .zip/.tar.gz/.tar, or a text file holding an `ls`
// listing; pick a folder or an archive; paste a listing. Or set el.data = readPasses(...) and
// el.compareData = comparePasses(...). Everything is read in this page (nothing is sent): the
// folder is read (readPasses, comparePasses) in the analysis worker (engine.passes); names and
// dump text are shown with textContent only.
//
// Events: 'pipeline-load' { detail: { passes, label } } after a folder is read;
// 'pipeline-step' { detail: { step } } when the step changes.
import { adoptStyles, defineOnce, el, formatInt, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';
import * as engine from './engine.js';

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

const css = theme + `
  :host { display: block; font-size: 13px; }
  .box { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); padding: .7rem .9rem; }
  .drop { border: 1.5px dashed var(--line); border-radius: 8px; padding: .6rem .8rem; color: var(--dim); }
  .drop.over { border-color: var(--copper); background: var(--copper-bg); }
  .drop .row { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin-top: .3rem; }
  button { font: inherit; font-size: 12px; padding: .2rem .55rem; border: 1px solid var(--line); border-radius: 5px; background: #fff; cursor: pointer; }
  button:focus-visible, input:focus-visible, .stepper:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
  textarea { width: 100%; min-height: 5rem; font-family: var(--mono); font-size: 12px; box-sizing: border-box; }
  .status { font-size: 12px; color: var(--dim); margin: .4rem 0; white-space: pre-wrap; }
  .status.err { color: var(--bad); }
  h3 { margin: .2rem 0 .5rem; font-size: 14px; font-weight: 600; }
  h3 .be { color: var(--copper); }
  .stepper { display: grid; grid-template-columns: auto 1fr auto; gap: .5rem; align-items: center; border-radius: 6px; padding: .2rem; }
  .slider { position: relative; }
  .slider input { width: 100%; margin: 0; }
  .ticks { display: block; width: 100%; height: 10px; }
  .card { margin-top: .5rem; display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
  .card dt { color: var(--dim); }
  .card dd { margin: 0; font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }
  .tag { display: inline-block; font-family: var(--sans); font-size: 11px; padding: 0 .4rem; border-radius: 9px; margin-left: .4rem; }
  .tag.rerun { background: #eef3f8; color: #2a4f77; }
  .tag.ws { background: var(--copper-bg); color: var(--copper); }
  .tag.fusion { background: #eaf4ea; color: var(--good); }
  .sentence { margin: .5rem 0 .2rem; }
  .ops { font-family: var(--mono); font-size: 12px; color: var(--dim); }
  .ops .add { color: var(--good); } .ops .rem { color: var(--bad); }
  svg.chart { width: 100%; height: 90px; display: block; margin-top: .5rem; }
  .legend { font-size: 11px; color: var(--dim); }
  .legend .i { color: var(--accent); } .legend .f { color: var(--copper); }
  details { margin-top: .5rem; }
  table { border-collapse: collapse; font-size: 12px; width: 100%; }
  td, th { border-top: 1px solid var(--line); padding: .15rem .4rem; text-align: left; vertical-align: top; }
  th { color: var(--dim); font-weight: 500; }
  td.passes { font-family: var(--mono); font-size: 11.5px; }
  ul.warn { margin: .4rem 0 0; padding-left: 1.1rem; color: #8a5a00; font-size: 12px; }
  select { font: inherit; font-size: 12px; }
`;

/** Reads a dropped directory entry recursively into [{ name, file }]. */
async function walkEntry(entry, out, path = '') {
  if (entry.isFile) {
    const file = await new Promise((res, rej) => entry.file(res, rej));
    out.push({ name: path + entry.name, file });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) break;
      for (const e of batch) await walkEntry(e, out, `${path}${entry.name}/`);
    }
  }
}

/**
 * Picked or dropped files as readPasses input: the files themselves ({ files }), read in the
 * analysis worker (readers-core.js folderInput: the core's archive sniff and walk, and which
 * files' bytes it reads), with the label the view shows.
 */
function filesToInput(files) {
  const label = files.length === 1 ? files[0].name
    : files[0]?.name.includes('/') ? files[0].name.split('/')[0] : `${files.length} files`;
  return { input: { files: files.map((f) => ({ name: f.name, file: f.file })) }, label };
}

class XlaPipeline extends AnalysedElement {
  static get observedAttributes() { return []; }
  static viewName = 'pipeline';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._index = 0;
    this._module = 0;
    this._input = this._makeInput('a', 'Drop a dump folder, a .zip / .tar.gz of one, or an `ls` listing here');
    this._status = el('div', { class: 'status', role: 'status', 'data-testid': 'pipeline-status' });
    this._view = el('div', { class: 'box', 'data-testid': 'pipeline-view' });
    this._view.hidden = true;
    this._compareInput = this._makeInput('b', 'Compare with another folder, archive or listing');
    this._compareInput.hidden = true;
    this._compareView = el('div', { class: 'box', 'data-testid': 'pipeline-compare' });
    this._compareView.hidden = true;
    root.append(this._input, this._status, this._view, this._compareInput, this._compareView);
  }

  // ---------------------------------------------------------------- inputs

  _makeInput(side, words) {
    const dirInput = el('input', { type: 'file', webkitdirectory: true, multiple: true, hidden: true, 'data-testid': `pick-folder-${side}` });
    const fileInput = el('input', { type: 'file', accept: '.zip,.tar,.tgz,.gz,.txt', hidden: true, 'data-testid': `pick-archive-${side}` });
    const area = el('textarea', { 'aria-label': 'an ls listing of a dump folder', placeholder: 'module_0001.jit_f.0000.simplification.after_pipeline-start.before_algsimp.txt\n…', hidden: true, 'data-testid': `listing-${side}` });
    const readBtn = el('button', { type: 'button', hidden: true, text: 'Read listing', 'data-testid': `read-listing-${side}` });
    const box = el('div', { class: 'drop', 'data-testid': `drop-${side}` },
      el('div', { text: words }),
      el('div', { class: 'row' },
        el('button', { type: 'button', text: 'Pick folder…', onclick: () => dirInput.click() }),
        el('button', { type: 'button', text: 'Pick archive or listing…', onclick: () => fileInput.click() }),
        el('button', { type: 'button', text: 'Paste a listing', onclick: () => { area.hidden = !area.hidden; readBtn.hidden = area.hidden; if (!area.hidden) area.focus(); } })),
      area, readBtn, dirInput, fileInput);
    const take = (p) => this._take(side, p);
    dirInput.addEventListener('change', () => take(this._fromFileList(dirInput.files)));
    fileInput.addEventListener('change', () => take(this._fromFileList(fileInput.files)));
    readBtn.addEventListener('click', () => take(Promise.resolve({ input: area.value, label: 'pasted listing' })));
    box.addEventListener('dragover', (e) => { e.preventDefault(); box.classList.add('over'); });
    box.addEventListener('dragleave', () => box.classList.remove('over'));
    box.addEventListener('drop', (e) => {
      e.preventDefault();
      box.classList.remove('over');
      take(this._fromDataTransfer(e.dataTransfer));
    });
    return box;
  }

  _fromFileList(list) {
    const files = Array.from(list || []).map((f) => ({ name: f.webkitRelativePath || f.name, file: f }));
    return filesToInput(files);
  }

  async _fromDataTransfer(dt) {
    const files = [];
    const entries = Array.from(dt.items || []).map((it) => (it.webkitGetAsEntry ? it.webkitGetAsEntry() : null));
    if (entries.length && entries.every(Boolean)) {
      for (const e of entries) await walkEntry(e, files);
    } else {
      for (const f of Array.from(dt.files || [])) files.push({ name: f.name, file: f });
    }
    if (!files.length) {
      const text = dt.getData && dt.getData('text/plain');
      if (text) return { input: text, label: 'dropped text' };
    }
    return filesToInput(files);
  }

  async _take(side, promise) {
    const gen = ++this._gen;
    this._status.className = 'status';
    this._status.textContent = 'reading…';
    let read;
    try {
      read = await promise;
    } catch (e) {
      if (gen === this._gen) this._fail(e);
      return;
    }
    if (gen !== this._gen) return;
    // the folder is read in the analysis worker (AnalysedElement: the newest input wins)
    await this._analyse({ side, ...read }, 'reading…');
  }

  /** el.text: a listing, read as load(listing) reads it. */
  get text() { return this._text; }
  set text(t) {
    this._text = t == null ? null : String(t);
    this._analyse(this._text == null ? null : { side: 'a', input: this._text, label: 'listing' }, 'reading…');
  }

  _request(key, r) {
    this._t0 = performance.now();
    if (r.side === 'a') return engine.passes({ input: r.input, label: r.label });
    if (!this._inputA) throw new Error('read a first folder before comparing');
    return engine.comparePasses({ a: this._inputA, b: { input: r.input, label: r.label } });
  }

  _analysed(result, r) {
    const t0 = this._t0 ?? performance.now();
    if (r.side === 'a') {
      this._inputA = { input: r.input, label: r.label };
      this.data = result;
      this.dispatchEvent(new CustomEvent('pipeline-load', { detail: { passes: this._data, label: r.label } }));
    } else {
      this.compareData = result;
    }
    this._status.className = 'status';
    this._status.textContent = `read in ${Math.round(performance.now() - t0)} ms`;
    this._lastMs = performance.now() - t0;
  }

  _fail(e) {
    this._status.className = 'status err';
    this._status.textContent = `${e.code ? `${e.code}: ` : ''}${e.message}`;
  }

  /** Reads [{ name, file: File }] (or a listing string) like a drop would; resolves when shown. */
  async load(files, side = 'a') {
    const p = typeof files === 'string' ? Promise.resolve({ input: files, label: 'listing' }) : filesToInput(files);
    await this._take(side, p);
  }

  // ---------------------------------------------------------------- data

  get data() { return this._data ?? null; }
  set data(d) {
    this._data = d || null;
    const mods = this._data?.modules || [];
    let best = 0;
    mods.forEach((m, i) => { if (m.steps.length > (mods[best]?.steps.length ?? -1)) best = i; });
    this._module = best;
    this._index = 0;
    this._compareInput.hidden = !this._data;
    this._render();
  }

  get compareData() { return this._compare ?? null; }
  set compareData(c) { this._compare = c || null; this._renderCompare(); }

  get step() { return this._steps()[this._index] ?? null; }
  get lastReadMs() { return this._lastMs ?? null; }

  _steps() { return this._data?.modules[this._module]?.steps || []; }

  go(i) {
    const steps = this._steps();
    if (!steps.length) return;
    this._index = Math.max(0, Math.min(steps.length - 1, i));
    this._renderStep();
    this.dispatchEvent(new CustomEvent('pipeline-step', { detail: { step: this.step } }));
  }

  // ---------------------------------------------------------------- rendering

  _render() {
    const d = this._data;
    this._view.replaceChildren();
    this._view.hidden = !d;
    if (!d) return;
    const mods = d.modules;
    const m = mods[this._module];
    const head = el('h3', {}, d.label ? `${d.label} · ` : '', `${formatInt(d.files.length)} files, ${mods.length} module${mods.length === 1 ? '' : 's'}`);
    this._view.append(head);
    if (mods.length > 1) {
      const sel = el('select', { 'aria-label': 'module', 'data-testid': 'module-select' },
        mods.map((x, i) => el('option', { value: String(i), text: `${String(x.id).padStart(4, '0')} ${x.name ?? ''} · ${x.steps.length} steps` })));
      sel.value = String(this._module);
      sel.addEventListener('change', () => { this._module = Number(sel.value); this._index = 0; this._render(); });
      this._view.append(sel);
    }
    if (!m) return;
    this._view.append(el('div', {},
      `module ${String(m.id).padStart(4, '0')} `, el('b', { text: m.name ?? '?' }), ' · ',
      el('span', { class: 'be', text: `${m.backend ?? 'backend unknown'}${m.target ? ` ${m.target}` : ''}${m.backend_inferred ? ' (from the folder)' : ''}` }),
      ` · ${m.steps.length} steps over ${m.pipelines.length} pipelines`,
      m.watershed != null ? ` · layout watershed at step ${m.watershed}` : '',
      m.first_fusion != null ? ` · first fusion at step ${m.first_fusion}` : ''));
    if (!m.steps.length) {
      this._view.append(el('p', { text: 'No numbered pass steps in this module: dump with --xla_dump_hlo_pass_re=.* to get one file per pass.' }));
    } else {
      const prev = el('button', { type: 'button', 'aria-label': 'previous step', text: '←', 'data-testid': 'prev' });
      const next = el('button', { type: 'button', 'aria-label': 'next step', text: '→', 'data-testid': 'next' });
      this._slider = el('input', { type: 'range', min: '0', max: String(m.steps.length - 1), value: '0', step: '1', 'aria-label': 'step', 'data-testid': 'slider' });
      const ticks = svg('svg', { class: 'ticks', viewBox: `0 0 ${Math.max(1, m.steps.length - 1)} 10`, preserveAspectRatio: 'none', 'aria-hidden': 'true' });
      m.steps.forEach((s, i) => {
        const entry = i === 0 || s.pipeline !== m.steps[i - 1].pipeline;
        if (entry) ticks.append(svg('line', { x1: i, x2: i, y1: 0, y2: s.run > 1 ? 5 : 10, stroke: '#8a8a8e', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }));
        if (s.n === m.watershed) ticks.append(svg('line', { x1: i, x2: i, y1: 0, y2: 10, stroke: '#b8682e', 'stroke-width': 3, 'vector-effect': 'non-scaling-stroke' }));
      });
      this._stepper = el('div', { class: 'stepper', tabindex: '0', role: 'group', 'aria-label': 'pass steps: arrow keys step', 'data-testid': 'stepper' },
        prev, el('div', { class: 'slider' }, this._slider, ticks), next);
      prev.addEventListener('click', () => this.go(this._index - 1));
      next.addEventListener('click', () => this.go(this._index + 1));
      this._slider.addEventListener('input', () => this.go(Number(this._slider.value)));
      this._stepper.addEventListener('keydown', (e) => {
        if (e.target === this._slider) return; // the range input steps itself (and fires input)
        const k = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 }[e.key];
        if (k) { e.preventDefault(); this.go(this._index + k); }
        if (e.key === 'Home') { e.preventDefault(); this.go(0); }
        if (e.key === 'End') { e.preventDefault(); this.go(m.steps.length - 1); }
      });
      this._card = el('dl', { class: 'card', 'data-testid': 'step-card', 'aria-live': 'polite' });
      this._diff = el('div', { 'data-testid': 'step-diff' });
      this._chart = this._makeChart(m);
      this._view.append(this._stepper, this._card, this._diff);
      if (this._chart) this._view.append(this._chart, el('div', { class: 'legend' }, el('span', { class: 'i', text: '— instructions' }), ' · ', el('span', { class: 'f', text: '— fusions' }), ' · the copper line: the layout watershed'));
      this._view.append(this._pipelineTable(m));
      this._renderStep();
    }
    const kinds = Object.entries(d.files.reduce((a, f) => { a[f.kind] = (a[f.kind] || 0) + 1; return a; }, {}));
    this._view.append(el('details', {}, el('summary', { text: `files by kind (${kinds.length} kinds${d.unknown ? `, ${d.unknown} unknown` : ''})` }),
      el('table', {}, kinds.map(([k, n]) => el('tr', {}, el('td', { text: k }), el('td', { text: formatInt(n) }))))));
    if (d.warnings.length) {
      this._view.append(el('ul', { class: 'warn', 'data-testid': 'pipeline-warnings' },
        d.warnings.slice(0, 12).map((w) => el('li', { text: `${w.line ? `line ${w.line}: ` : ''}${w.message}` })),
        d.warnings.length > 12 ? el('li', { text: `… ${d.warnings.length - 12} more` }) : null));
    }
  }

  _makeChart(m) {
    const pts = m.steps.map((s, i) => [i, s.counts]).filter(([, c]) => c);
    if (pts.length < 2) return null;
    const W = 600;
    const H = 80;
    const n = Math.max(1, m.steps.length - 1);
    const maxI = Math.max(1, ...pts.map(([, c]) => c.instructions));
    const maxF = Math.max(1, ...pts.map(([, c]) => c.fusion_ops));
    const x = (i) => (i / n) * W;
    const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H + 4}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': 'instructions and fusions over the steps', 'data-testid': 'chart' });
    const wsIdx = m.steps.findIndex((s) => s.n === m.watershed);
    if (wsIdx >= 0) chart.append(svg('line', { x1: x(wsIdx), x2: x(wsIdx), y1: 0, y2: H + 4, stroke: '#b8682e', 'stroke-dasharray': '3 2', 'vector-effect': 'non-scaling-stroke' }));
    chart.append(svg('polyline', { fill: 'none', stroke: '#2a6f77', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke',
      points: pts.map(([i, c]) => `${x(i).toFixed(1)},${(H + 2 - (c.instructions / maxI) * H).toFixed(1)}`).join(' ') }));
    chart.append(svg('polyline', { fill: 'none', stroke: '#b8682e', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke',
      points: pts.map(([i, c]) => `${x(i).toFixed(1)},${(H + 2 - (c.fusion_ops / maxF) * H).toFixed(1)}`).join(' ') }));
    this._cursor = svg('line', { x1: 0, x2: 0, y1: 0, y2: H + 4, stroke: '#1d1d1f', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' });
    chart.append(this._cursor);
    this._chartX = x;
    return chart;
  }

  _pipelineTable(m) {
    return el('details', { 'data-testid': 'pipelines' }, el('summary', { text: `pipelines in order (${m.pipelines.length})` }),
      el('table', {}, el('tr', {}, el('th', { text: 'pipeline' }), el('th', { text: 'runs' }), el('th', { text: 'steps' }), el('th', { text: 'passes' })),
        m.pipelines.map((p) => {
          const go = el('button', { type: 'button', text: p.name, title: `go to step ${p.first_step}`,
            onclick: () => this.go(m.steps.findIndex((s) => s.n === p.first_step)) });
          return el('tr', {}, el('td', {}, go), el('td', { text: String(p.runs) }), el('td', { text: String(p.steps) }), el('td', { class: 'passes', text: p.passes.join(' · ') }));
        })));
  }

  _renderStep() {
    const m = this._data?.modules[this._module];
    const s = this.step;
    if (!m || !s || !this._card) return;
    this._slider.value = String(this._index);
    if (this._cursor) { const cx = this._chartX(this._index); this._cursor.setAttribute('x1', cx); this._cursor.setAttribute('x2', cx); }
    const row = (k, ...v) => [el('dt', { text: k }), el('dd', {}, ...v)];
    const side = m.watershed == null ? '' : s.n < m.watershed ? 'before the layout watershed' : s.n === m.watershed ? 'the layout watershed' : 'after the layout watershed';
    this._card.replaceChildren(
      ...row('step', `${String(s.n).padStart(4, '0')} (${this._index + 1} of ${m.steps.length})`,
        s.n === m.watershed ? el('span', { class: 'tag ws', text: 'watershed', 'data-testid': 'watershed-tag' }) : null,
        s.n === m.first_fusion ? el('span', { class: 'tag fusion', text: 'first fusion' }) : null),
      ...row('pipeline', s.pipeline, s.run > 1 ? el('span', { class: 'tag rerun', text: `rerun ${s.run}`, 'data-testid': 'rerun-tag' }) : null),
      ...row('just finished', s.after ?? '—'),
      ...row('about to run', s.before ?? '— (the name says only what finished)'),
      ...(side ? row('layouts', side) : []),
      ...(s.counts ? row('holds', `${formatInt(s.counts.computations)} computations · ${formatInt(s.counts.instructions)} instructions · ${formatInt(s.counts.fusion_ops)} fusions`) : []),
      ...row('file', s.file));
    this._diff.replaceChildren();
    if (s.diff) {
      const ops = (o, cls, sign) => Object.entries(o).map(([k, v]) => el('span', { class: cls, text: `${sign}${v} ${k} ` }));
      this._diff.append(el('p', { class: 'sentence', text: s.diff.sentence }),
        el('div', { class: 'ops' }, ops(s.diff.added, 'add', '+'), ops(s.diff.removed, 'rem', '−')),
        s.diff.fusions_formed.length ? el('div', { class: 'ops', text: `fusions formed: ${s.diff.fusions_formed.join(', ')}` }) : null);
    } else if (!s.counts) {
      this._diff.append(el('p', { class: 'sentence', text: 'Names only: give the folder itself (not a listing) to see what each pass changed.' }));
    }
  }

  _renderCompare() {
    const c = this._compare;
    this._compareView.replaceChildren();
    this._compareView.hidden = !c;
    if (!c) return;
    const n = (o) => c.passes.filter((p) => p.origin === o).length;
    this._compareView.append(el('h3', {}, `A: ${c.a.label ?? 'A'} (${c.a.backends.join(', ') || '?'}) · B: ${c.b.label ?? 'B'} (${c.b.backends.join(', ') || '?'})`),
      el('div', { text: `${n('both')} passes in both · ${n('a')} only in A · ${n('b')} only in B` }),
      el('table', {}, el('tr', {}, el('th', { text: 'pipeline' }), el('th', { text: 'both' }), el('th', { text: 'only A' }), el('th', { text: 'only B' })),
        c.pipelines.map((p) => el('tr', {}, el('td', { text: p.name }), el('td', { class: 'passes', text: p.both.join(' · ') }),
          el('td', { class: 'passes', text: p.only_a.join(' · ') }), el('td', { class: 'passes', text: p.only_b.join(' · ') })))));
  }
}

defineOnce('xla-pipeline', XlaPipeline);
export { XlaPipeline };
