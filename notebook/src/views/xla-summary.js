// <xla-summary>: a card with what a dump is: format, module, size, computations, instructions,
// warnings; and, for optimized HLO, the fusion counts and the big intermediate with where it
// lives. Text is set with textContent only.
//
// Inputs (any one): el.data = { summary, fusions?, spills?, name?, bytes? } (the notebook's
// analysis, or API results: { summary: doc.summary(), fusions: doc.fusions(), spills: doc.spills() });
// el.text = a dump's text (analysed in the worker); <xla-summary src="m.txt">.
import { adoptStyles, defineOnce, dumpLabel, stageWords, el, formatBytes, formatInt, memorySpaceWords, partialWords, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .card { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); padding: .7rem .9rem; }
  h3 { margin: 0 0 .5rem; font-size: 14px; font-weight: 600; }
  h3 .fmt { color: var(--copper); }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
  dt { color: var(--dim); }
  dd { margin: 0; font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }
  p.expl { margin: .6rem 0 0; }
  ul.warn { margin: .5rem 0 0; padding-left: 1.1rem; color: var(--copper); font-size: 12px; }
  .status { font-size: 12px; color: var(--dim); }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  p.partial { margin: 0 0 .5rem; color: var(--bad); font-size: 12.5px; }
`;

class XlaSummary extends AnalysedElement {
  static viewName = 'summary';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._status = el('div', { class: 'status', role: 'status' });
    this._card = el('div', { class: 'card', part: 'card' });
    root.append(this._status, this._card);
    this._card.hidden = true;
  }

  _analysed(a) {
    this._data = a;
    this._render();
  }

  _render() {
    const d = this._data;
    this._status.textContent = '';
    this._card.replaceChildren();
    this._card.hidden = !d;
    if (!d) return;
    const s = d.summary || {};
    const rows = [];
    const add = (k, v) => { if (v !== undefined && v !== null && v !== '') rows.push(el('dt', { text: k }), el('dd', { text: String(v) })); };
    add('module', s.module);
    add('stage', stageWords(s.stage));
    if (d.bytes != null) add('size', formatBytes(d.bytes));
    add('lines', formatInt(s.lines ?? d.lines));
    if (s.modules > 1) add('modules', `${formatInt(s.modules)}${d.module_names?.length ? `: ${d.module_names.join(', ')}` : ''}`);
    add(s.format === 'stablehlo' ? 'functions' : 'computations', formatInt(s.computations));
    add(s.format === 'stablehlo' ? 'ops' : 'instructions', formatInt(s.instructions));
    const f = d.fusions;
    if (f) {
      add('fusion ops', `${formatInt(f.fusion_ops)} (${formatInt(f.fusion_ops_top_level)} top-level, ${formatInt(f.fusion_ops_nested)} nested)`);
      add('fusion computations', formatInt(f.fusion_computations));
    }
    const sp = d.spills;
    if (sp) {
      if (sp.big) add('big intermediate', `${sp.big.type} (${formatBytes(sp.big.bytes)}) · ${sp.big.name} · ${memorySpaceWords(sp.big.memory_space, d.backend)}`);
      else if (sp.kept_off_memory) add('kept off memory', `${sp.kept_off_memory.type} (${formatBytes(sp.kept_off_memory.bytes)}) · ${sp.kept_off_memory.name}`);
      if (sp.spill_bytes) add('spill traffic', formatBytes(sp.spill_bytes));
      if (sp.hbm_bytes) add(d.backend === 'cpu' ? 'memory traffic (est.)' : 'HBM traffic (est.)', `${formatBytes(sp.hbm_bytes.read)} read · ${formatBytes(sp.hbm_bytes.written)} written`);
    }
    const fmt = s.format || d.format ? dumpLabel(s.format || d.format, s.stage, d.format_label) : 'dump';
    this._card.append(el('h3', {}, d.name ? `${d.name} · ` : '', el('span', { class: 'fmt', text: fmt })));
    for (const m of d.module_errors || []) {
      this._card.append(el('p', { class: 'partial', 'data-testid': 'module-error', text: `module ${m.module} not read: ${m.message}${m.line ? ` (line ${m.line}${m.column ? `, column ${m.column}` : ''})` : ''}` }));
    }
    if (s.partial) this._card.append(el('p', { class: 'partial', 'data-testid': 'partial', text: partialWords(s.partial) }));
    this._card.append(el('dl', {}, rows));
    if (sp?.explanation) this._card.append(el('p', { class: 'expl', text: sp.explanation }));
    const warns = s.warnings || [];
    if (warns.length) {
      this._card.append(el('ul', { class: 'warn' }, warns.slice(0, 20).map((w) =>
        el('li', { text: `${w.line ? `line ${w.line}: ` : ''}${w.message} (${w.code})` }))));
    }
  }
}

defineOnce('xla-summary', XlaSummary);
export { XlaSummary };
