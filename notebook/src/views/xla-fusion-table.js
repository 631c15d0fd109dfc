// <xla-fusion-table>: the fusion census of an optimized HLO module, one row per fusion
// instruction: name, kind, the ops its body holds (printed order, parameters and constants
// left out), output type and memory space. Text is set with textContent only.
//
// Inputs (any one): el.data = FusionCensus (from doc.fusions(), or the notebook's analysis);
// el.text = optimized HLO text (analysed in the worker); <xla-fusion-table src="m.txt">.
// Attribute `limit` (default 500): rows drawn before a "show all" button.
// Event 'fusion-click', detail { fusion } (the Fusion object).
import { adoptStyles, defineOnce, el, formatBytes, formatInt, memorySpaceLabel, memorySpaceWords, partialWords, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .head { margin: 0 0 .4rem; font-size: 13px; }
  .head b { font-family: var(--mono); }
  .wrap { overflow: auto; max-height: var(--h, 28rem); border: 1px solid var(--line); border-radius: 6px; background: var(--paper); }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .28rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  th { position: sticky; top: 0; background: var(--surface-2); font-weight: 600; font-size: 12px; z-index: 1; }
  td { font-family: var(--mono); font-size: 12px; }
  td.name { color: var(--copper); font-weight: 600; white-space: nowrap; }
  td.ops { font-family: var(--sans); }
  td.ms.on { color: var(--accent); font-weight: 600; }
  tr.nested td.name::before { content: '↳ '; color: var(--dim); }
  tbody tr:hover { background: var(--surface-2); cursor: pointer; }
  .more { margin: .4rem 0; }
  .status { font-size: 12px; color: var(--dim); }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  .partial { color: var(--bad); }
  button { font: inherit; font-size: 12px; }
  th button.sort { all: unset; cursor: pointer; font-weight: 600; }
  th button.sort:focus-visible { outline: 2px solid var(--accent); }
  td.size { text-align: right; white-space: nowrap; }
  .picker { display: block; margin: 0 0 .4rem; font-size: 12px; }
  .picker[hidden] { display: none; }
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
    this._headRow = el('tr');
    this._table = el('table', {}, el('thead', {}, this._headRow), this._body);
    this._more = el('div', { class: 'more' });
    this._picker = el('label', { class: 'picker', hidden: true }, 'module ');
    this._select = el('select', { 'data-testid': 'module-picker' });
    this._picker.append(this._select);
    this._select.addEventListener('change', () => { this._module = this._select.value || null; this._render(); });
    root.append(this._head, this._picker, this._status, el('div', { class: 'wrap' }, this._table), this._more);
    this._all = false;
    /** @type {{ key: string, dir: 1 | -1 } | null} the column rows are sorted by (null: printed order) */
    this._sort = null;
    /** @type {string|null} the module shown (null: all) */
    this._module = null;
  }

  /** Sorts by a column (a second call on the same column reverses it). */
  sortBy(key) {
    this._sort = this._sort?.key === key ? { key, dir: -this._sort.dir } : { key, dir: key === 'bytes' ? -1 : 1 };
    this._render();
  }

  attributeChangedCallback(name) {
    if (name === 'limit') { this._render(); return; }
    super.attributeChangedCallback(name);
  }

  get data() { return super.data; }
  set data(census) { this._all = false; this._module = null; super.data = census; }

  _analysed(a) {
    if (!a.fusions) throw new Error(`not an optimized HLO module (format: ${a.format ?? 'unknown'})`);
    this._data = { ...a.fusions, total: a.fusions_total, partial: a.summary?.partial ?? null, backend: a.backend ?? null };
    this._all = false;
    this._render();
  }

  _render() {
    const d = this._data;
    this._status.textContent = '';
    this._body.replaceChildren();
    this._more.replaceChildren();
    if (!d) { this._head.textContent = ''; return; }
    const all = d.fusions || [];
    const total = d.total ?? all.length;
    // Several modules in one text: a module column and a picker.
    const modules = [...new Set(all.map((f) => f.module ?? ''))];
    const many = modules.length > 1;
    if (this._module !== null && !modules.includes(this._module)) this._module = null;
    this._picker.hidden = !many;
    if (many && this._select.options.length !== modules.length + 1) {
      this._select.replaceChildren(el('option', { value: '', text: `all ${modules.length} modules` }),
        ...modules.map((m) => el('option', { value: m, text: m || '(unnamed)' })));
    }
    this._select.value = this._module ?? '';
    let fusions = this._module === null ? all : all.filter((f) => (f.module ?? '') === this._module);
    const cols = [['name', 'fusion'], ['kind', 'kind'], ['ops', 'ops held'], ['type', 'output type'], ['bytes', 'size'],
      ['memory_space', 'memory space'], ...(many ? [['module', 'module']] : [])];
    this._headRow.replaceChildren(...cols.map(([key, label]) => {
      const on = this._sort?.key === key;
      return el('th', { 'aria-sort': on ? (this._sort.dir > 0 ? 'ascending' : 'descending') : 'none' },
        el('button', { type: 'button', class: 'sort', 'data-key': key, title: `sort by ${label}`, onclick: () => this.sortBy(key),
          text: `${label}${on ? (this._sort.dir > 0 ? ' ▲' : ' ▼') : ''}` }));
    }));
    if (this._sort) {
      const { key, dir } = this._sort;
      const v = (f) => (key === 'ops' ? f.ops.length : f[key] ?? '');
      fusions = [...fusions].sort((a, b) => {
        const x = v(a);
        const y = v(b);
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * dir || a.line - b.line;
      });
    }
    this._head.replaceChildren(
      el('b', { text: formatInt(d.fusion_ops) }), ' fusion ops (',
      formatInt(d.fusion_ops_top_level), ' top-level, ', formatInt(d.fusion_ops_nested), ' nested) · ',
      el('b', { text: formatInt(d.fusion_computations) }), ' fusion computations');
    if (d.partial) this._head.append(el('span', { class: 'partial', 'data-testid': 'partial', text: ` · ${partialWords(d.partial)}` }));
    const limit = this._all ? Infinity : Number(this.getAttribute('limit') || 500);
    const shown = fusions.slice(0, limit);
    for (const f of shown) {
      const tr = el('tr', { class: f.nested ? 'nested' : '', title: `line ${f.line} · calls ${f.calls}` },
        el('td', { class: 'name', text: f.name }),
        el('td', { text: f.kind + (f.backend_kind ? ` (${f.backend_kind})` : '') }),
        el('td', { class: 'ops', text: f.ops.length ? f.ops.join(' · ') : '(none)' }),
        el('td', { text: f.type }),
        el('td', { class: 'size', text: f.bytes != null ? formatBytes(f.bytes) : '' }),
        el('td', { class: f.memory_space > 0 ? 'ms on' : 'ms', title: memorySpaceWords(f.memory_space, d.backend), text: memorySpaceLabel(f.memory_space, d.backend) }),
        many ? el('td', { class: 'module', text: f.module ?? '' }) : null);
      tr.addEventListener('click', () => this.dispatchEvent(new CustomEvent('fusion-click', { detail: { fusion: f }, bubbles: true, composed: true })));
      this._body.append(tr);
    }
    if (this._module !== null) {
      this._more.append(`${formatInt(fusions.length)} of ${formatInt(all.length)} fusions: module ${this._module} `);
    }
    if (shown.length < fusions.length) {
      this._more.append(`${formatInt(shown.length)} of ${formatInt(this._module === null ? total : fusions.length)} rows shown `,
        el('button', { type: 'button', text: `show ${formatInt(fusions.length)}`, onclick: () => { this._all = true; this._render(); } }));
    } else if (total > all.length) {
      this._more.append(`${formatInt(all.length)} of ${formatInt(total)} fusions listed (the counts above are complete)`);
    }
  }
}

defineOnce('xla-fusion-table', XlaFusionTable);
export { XlaFusionTable };
