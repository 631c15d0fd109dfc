// <xla-fusion-table>: the fusion census of an optimized HLO module, one row per fusion
// instruction: name, kind, the ops its body holds (printed order, parameters and constants
// left out), output type and memory space. Text is set with textContent only.
//
// Inputs (any one): el.data = FusionCensus (from doc.fusions(), or the notebook's analysis);
// el.text = optimized HLO text (analysed in the worker); <xla-fusion-table src="m.txt">.
// Attribute `limit` (default 500): rows drawn before a "show all" button.
// Event 'fusion-click', detail { fusion } (the Fusion object).
import { adoptStyles, defineOnce, el, formatInt, memorySpaceLabel, memorySpaceWords, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .head { margin: 0 0 .4rem; font-size: 13px; }
  .head b { font-family: var(--mono); }
  .wrap { overflow: auto; max-height: var(--h, 28rem); border: 1px solid var(--line); border-radius: 6px; background: var(--paper); }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .28rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { position: sticky; top: 0; background: #f6f3ee; font-weight: 600; font-size: 12px; z-index: 1; }
  td { font-family: var(--mono); font-size: 12px; }
  td.name { color: var(--copper); font-weight: 600; white-space: nowrap; }
  td.ops { font-family: var(--sans); }
  td.ms.on { color: var(--accent); font-weight: 600; }
  tr.nested td.name::before { content: '↳ '; color: var(--dim); }
  tbody tr:hover { background: rgba(0,0,0,.035); cursor: pointer; }
  .more { margin: .4rem 0; }
  .status { font-size: 12px; color: var(--dim); }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  button { font: inherit; font-size: 12px; }
`;

class XlaFusionTable extends AnalysedElement {
  static get observedAttributes() { return ['src', 'limit']; }
  static viewName = 'fusion table';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._head = el('p', { class: 'head' });
    this._status = el('div', { class: 'status', role: 'status' });
    this._body = el('tbody');
    this._table = el('table', {},
      el('thead', {}, el('tr', {}, ['fusion', 'kind', 'ops held', 'output type', 'memory space'].map((t) => el('th', { text: t })))),
      this._body);
    this._more = el('div', { class: 'more' });
    root.append(this._head, this._status, el('div', { class: 'wrap' }, this._table), this._more);
    this._all = false;
  }

  attributeChangedCallback(name) {
    if (name === 'limit') { this._render(); return; }
    super.attributeChangedCallback(name);
  }

  get data() { return super.data; }
  set data(census) { this._all = false; super.data = census; }

  _analysed(a) {
    if (!a.fusions) throw new Error(`not an optimized HLO module (format: ${a.format ?? 'unknown'})`);
    this._data = { ...a.fusions, total: a.fusions_total };
    this._all = false;
    this._render();
  }

  _render() {
    const d = this._data;
    this._status.textContent = '';
    this._body.replaceChildren();
    this._more.replaceChildren();
    if (!d) { this._head.textContent = ''; return; }
    const fusions = d.fusions || [];
    const total = d.total ?? fusions.length;
    this._head.replaceChildren(
      el('b', { text: formatInt(d.fusion_ops) }), ' fusion ops (',
      formatInt(d.fusion_ops_top_level), ' top-level, ', formatInt(d.fusion_ops_nested), ' nested) · ',
      el('b', { text: formatInt(d.fusion_computations) }), ' fusion computations');
    const limit = this._all ? Infinity : Number(this.getAttribute('limit') || 500);
    const shown = fusions.slice(0, limit);
    for (const f of shown) {
      const tr = el('tr', { class: f.nested ? 'nested' : '', title: `line ${f.line} · calls ${f.calls}` },
        el('td', { class: 'name', text: f.name }),
        el('td', { text: f.kind + (f.backend_kind ? ` (${f.backend_kind})` : '') }),
        el('td', { class: 'ops', text: f.ops.length ? f.ops.join(' · ') : '(none)' }),
        el('td', { text: f.type }),
        el('td', { class: f.memory_space > 0 ? 'ms on' : 'ms', title: memorySpaceWords(f.memory_space), text: memorySpaceLabel(f.memory_space) }));
      tr.addEventListener('click', () => this.dispatchEvent(new CustomEvent('fusion-click', { detail: { fusion: f }, bubbles: true, composed: true })));
      this._body.append(tr);
    }
    if (shown.length < fusions.length) {
      this._more.append(`${formatInt(shown.length)} of ${formatInt(total)} rows shown `,
        el('button', { type: 'button', text: `show ${formatInt(fusions.length)}`, onclick: () => { this._all = true; this._render(); } }));
    } else if (total > fusions.length) {
      this._more.append(`${formatInt(fusions.length)} of ${formatInt(total)} fusions listed (the counts above are complete)`);
    }
  }
}

defineOnce('xla-fusion-table', XlaFusionTable);
export { XlaFusionTable };
