// <xla-padding>: a module's padding table (layouts() in the core): every value computed outside
// fused bodies, its layout in words, and the bytes its tiled layout takes against its logical
// size, largest padding first. Text is set with textContent only.
//
// Inputs: el.data = layouts(text) result; el.text = an optimized HLO (read by the core in the
// analysis worker, engine.layouts: one parse); <xla-padding src="module.after_optimizations.txt">.
import { adoptStyles, defineOnce, el, formatInt, theme } from './common.js';
import { formatBinary } from './xla-memory.js';
import { AnalysedElement } from './analysed-element.js';
import * as engine from './engine.js';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .card { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); padding: .7rem .9rem; }
  h3 { margin: 0 0 .4rem; font-size: 14px; font-weight: 600; }
  table { border-collapse: collapse; width: 100%; font-size: 12px; }
  th { text-align: left; color: var(--dim); font-weight: 500; border-bottom: 1px solid var(--line); padding: .2rem .4rem; }
  td { border-bottom: 1px solid #f1efe9; padding: .2rem .4rem; vertical-align: top; overflow-wrap: anywhere; }
  td.num { text-align: right; white-space: nowrap; font-family: var(--mono); }
  td.type { font-family: var(--mono); }
  .status { font-size: 12px; color: var(--dim); }
  .status.err { color: var(--bad); white-space: pre-wrap; }
`;

const MAX_ROWS = 200;

class XlaPadding extends AnalysedElement {
  static viewName = 'layouts';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._status = el('div', { class: 'status', role: 'status' });
    this._card = el('div', { class: 'card', part: 'card' });
    root.append(this._status, this._card);
    this._card.hidden = true;
  }

  get text() { return this._text; }
  set text(t) {
    this._text = String(t ?? '');
    this._analyse(this._text, 'reading layouts…');
  }

  _request(key, text) { return engine.layouts({ text }); }

  _analysed(d) {
    this._data = d;
    this._render();
  }

  _fail(e) {
    this._card.hidden = true;
    this._status.className = 'status err';
    this._status.textContent = `layouts: ${e.message}${e.line ? ` (line ${e.line}, column ${e.column})` : ''}`;
  }

  _render() {
    const d = this._data;
    this._status.textContent = '';
    this._card.replaceChildren();
    this._card.hidden = !d;
    if (!d) return;
    this._card.append(el('h3', { text: `${formatInt(d.values)} values laid out in ${formatBinary(d.padded_bytes)}, of which padding ${formatBinary(d.padding_bytes)}` }));
    const rows = d.rows.slice(0, MAX_ROWS).map((r) => el('tr', { 'data-testid': 'padding-row' },
      el('td', { class: 'num', text: formatBinary(r.padding_bytes) }),
      el('td', { class: 'num', text: formatBinary(r.padded_bytes) }),
      el('td', { class: 'num', text: String(r.line) }),
      el('td', { text: r.name }),
      el('td', { class: 'type', text: r.type }),
      el('td', { text: r.words })));
    this._card.append(el('table', {},
      el('thead', {}, el('tr', {}, ['padding', 'laid out', 'line', 'value', 'type', 'layout in words'].map((h) => el('th', { text: h })))),
      el('tbody', {}, rows)));
    if (d.rows.length > MAX_ROWS) this._card.append(el('div', { class: 'status', text: `… ${d.rows.length - MAX_ROWS} more values` }));
  }
}

defineOnce('xla-padding', XlaPadding);
export { XlaPadding };
