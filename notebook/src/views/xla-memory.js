// <xla-memory>: an XLA out-of-memory message, buffer assignment or memory-usage report read into
// numbers (readMemory in the core): a bar of what the program needs against the capacity, the
// largest allocations with their shapes, source lines and what produced them, and the
// explanation in words. Text is set with textContent only.
//
// Inputs (any one): el.data = readMemory(text) result; el.text = the message (read by the core in
// the analysis worker, engine.memory); <xla-memory src="oom.txt">; <xla-memory paste> adds a box
// to paste a message into. Event: 'xla-memory-read' { detail: the result } after a text is read.
import { adoptStyles, breakable, defineOnce, el, formatBytes, formatInt, theme } from './common.js';
import { AnalysedElement } from './analysed-element.js';
import * as engine from './engine.js';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .card { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); padding: .7rem .9rem; }
  h3 { margin: 0 0 .5rem; font-size: 14px; font-weight: 600; }
  h3 .kind { color: var(--copper); }
  textarea { width: 100%; box-sizing: border-box; min-height: 5rem; font-family: var(--mono); font-size: 12px; margin-bottom: .5rem; }
  .bar { position: relative; height: 18px; border-radius: 4px; background: #ecebe7; overflow: hidden; margin: .3rem 0 .2rem; }
  .bar .fill { position: absolute; top: 0; bottom: 0; left: 0; background: var(--accent); }
  .bar .over { position: absolute; top: 0; bottom: 0; background: var(--bad); }
  .bar .cap { position: absolute; top: -2px; bottom: -2px; width: 2px; background: var(--ink); }
  .legend { font-size: 12px; color: var(--dim); font-family: var(--mono); }
  table { border-collapse: collapse; width: 100%; margin-top: .6rem; font-size: 12px; }
  th { text-align: left; color: var(--dim); font-weight: 500; border-bottom: 1px solid var(--line); padding: .2rem .4rem; }
  .scroll { overflow-x: auto; }
  td { border-bottom: 1px solid #f1efe9; padding: .2rem .4rem; vertical-align: top; font-family: var(--mono); overflow-wrap: break-word; }
  td.num { text-align: right; white-space: nowrap; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0 0; font-size: 12px; }
  dt { color: var(--dim); }
  dd { margin: 0; font-family: var(--mono); }
  p.expl { margin: .6rem 0 0; }
  ul.warn { margin: .5rem 0 0; padding-left: 1.1rem; color: #8a5a00; font-size: 12px; }
  .status { font-size: 12px; color: var(--dim); }
  .status.err { color: var(--bad); white-space: pre-wrap; }
`;

// A total as the message printed it: exact digits only where the text printed them ("3.95G (4,237,
// 689,856 bytes)"), else the printed figure in binary units ("63.80G" is 63.80 GiB, not 11 digits
// derived from two decimals). The core's figures say which (issue 35).
function sizeWords(d, name, v) {
  const fig = (d.figures || []).find((f) => f.name === name && f.bytes === v);
  if (!fig) return `${formatBinary(v)} (${formatInt(v)} B)`;
  return /bytes|\(\s*\d|^\d+\s*B?$/.test(fig.printed) ? `${formatBinary(v)} (${formatInt(v)} B)` : formatBinary(v);
}

const KIND_WORDS = { oom: 'out of memory', buffer_assignment: 'buffer assignment', memory_usage_report: 'memory-usage report' };

/** XLA's binary units, two decimals: "63.80 GiB". */
export function formatBinary(n) {
  return formatBytes(n); // the one unit renderer (common.js)
}

/** A positioned block; CSSOM styles (not a style attribute) pass a strict style-src policy. */
function block(cls, left, width) {
  const e = el('div', { class: cls });
  e.style.left = `${left}%`;
  if (width !== null) e.style.width = `${width}%`;
  return e;
}

function lastPart(opName) {
  if (!opName) return '';
  const last = opName.split('/').pop();
  const br = last.indexOf('[');
  return br > 0 ? last.slice(0, br) : last;
}

class XlaMemory extends AnalysedElement {
  static get observedAttributes() { return ['src', 'paste']; }
  static viewName = 'memory';

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._input = el('textarea', { part: 'input', 'aria-label': 'XLA memory message', placeholder: 'paste an XLA out-of-memory message, a *-buffer-assignment.txt or a *-memory-usage-report.txt', hidden: true });
    this._input.addEventListener('input', () => { this.text = this._input.value; });
    this._status = el('div', { class: 'status', role: 'status' });
    this._card = el('div', { class: 'card', part: 'card' });
    root.append(this._input, this._status, this._card);
    this._card.hidden = true;
  }

  attributeChangedCallback(name) {
    if (name === 'paste') { this._input.hidden = !this.hasAttribute('paste'); return; }
    super.attributeChangedCallback(name);
  }

  get text() { return this._text ?? null; }
  set text(t) {
    this._text = String(t ?? '');
    // a blank text shows nothing (and says nothing)
    if (!this._text.trim()) { this._data = null; this._analyse(null); return; }
    this._analyse(this._text, 'reading…');
  }

  _request(key, text) { return engine.memory({ text }); }

  _analysed(d) {
    this._data = d;
    this._render();
    this.dispatchEvent(new CustomEvent('xla-memory-read', { detail: this._data }));
  }

  _fail(e) {
    this._data = null;
    this._card.hidden = true;
    this._status.className = 'status err';
    this._status.textContent = `memory: ${e.message}${e.line ? ` (line ${e.line}, column ${e.column})` : ''}`;
  }

  _bar(d) {
    const asked = d.used_bytes ?? d.requested_bytes;
    const cap = d.capacity_bytes;
    if (asked == null) return null;
    // what earlier programs and arrays already hold counts against the capacity too (issue 35)
    const already = d.used_bytes == null && d.allocated_bytes != null ? d.allocated_bytes : 0;
    const need = asked + already;
    const bar = el('div', { class: 'bar', part: 'bar', role: 'img' });
    let legend;
    if (cap) {
      const max = Math.max(need, cap);
      const fill = Math.min(need, cap) / max * 100;
      bar.append(block('fill', 0, fill));
      if (need > cap) bar.append(block('over', cap / max * 100, (need - cap) / max * 100));
      bar.append(block('cap', Math.max(0, cap / max * 100 - 0.2), null));
      legend = `${already ? `${formatBinary(already)} already allocated + ` : ''}${formatBinary(asked)} ` +
        `${d.used_bytes != null ? 'used' : 'requested'} of ${formatBinary(cap)}` +
        `${d.memory_space ? ` ${d.memory_space}` : ''}${need > cap ? ` · ${formatBinary(d.exceeded_bytes ?? need - cap)} over` : ''}`;
    } else {
      bar.append(block('fill', 0, 100));
      legend = `${formatBinary(need)} ${d.used_bytes != null ? 'in buffers' : 'requested'} · capacity not printed`;
    }
    bar.setAttribute('aria-label', legend);
    return [bar, el('div', { class: 'legend', 'data-testid': 'legend', text: legend })];
  }

  _render() {
    const d = this._data;
    this._status.textContent = '';
    this._card.replaceChildren();
    this._card.hidden = !d;
    if (!d) return;
    const what = [d.backend?.toUpperCase(), d.memory_space].filter(Boolean).join(' ');
    this._card.append(el('h3', {}, el('span', { class: 'kind', text: KIND_WORDS[d.kind] || d.kind }), what ? ` · ${what}` : '',
      d.code ? ` · ${d.code}` : ''));
    const bar = this._bar(d);
    if (bar) this._card.append(...bar);
    const totals = Object.entries(d.totals || {});
    if (totals.length) {
      this._card.append(el('dl', { 'data-testid': 'totals' }, totals.flatMap(([k, v]) =>
        [el('dt', { text: k.replace(/_/g, ' ') }), el('dd', { text: sizeWords(d, k, v) })])));
    }
    const allocs = d.allocations || [];
    if (allocs.length) {
      const rows = allocs.slice(0, 25).map((a) => el('tr', { 'data-testid': 'allocation' },
        el('td', { class: 'num', text: String(a.rank) }),
        el('td', { class: 'num', text: formatBinary(a.bytes), title: `${formatInt(a.bytes)} bytes` }),
        el('td', {}, breakable(a.shape ?? '')),
        el('td', { text: a.kind ?? '' }),
        el('td', { title: a.op_name ?? '' }, breakable([lastPart(a.op_name), a.label].filter(Boolean).join(' · '))),
        el('td', { title: a.source ?? '' }, breakable(a.source ? a.source.split('/').pop() : ''))));
      // (a narrow screen scrolls the table sideways rather than cut a shape into letters)
      this._card.append(el('div', { class: 'scroll' }, el('table', { part: 'allocations' },
        el('thead', {}, el('tr', {}, ['#', 'size', 'shape', 'kind', 'what produced it', 'source'].map((h) => el('th', { text: h })))),
        el('tbody', {}, rows))));
      if (allocs.length > 25) this._card.append(el('div', { class: 'legend', text: `… ${allocs.length - 25} more allocations` }));
    }
    if (d.explanation) this._card.append(el('p', { class: 'expl', 'data-testid': 'explanation', text: d.explanation }));
    const warns = d.warnings || [];
    if (warns.length) {
      this._card.append(el('ul', { class: 'warn' }, warns.slice(0, 20).map((w) =>
        el('li', { text: `${w.line ? `line ${w.line}: ` : ''}${w.message} (${w.code})` }))));
    }
  }
}

defineOnce('xla-memory', XlaMemory);
export { XlaMemory };
