// <xla-timeline>: where each run of a compiled program spent its device time, from a profile's
// timeline (`parseProfile(bytes).timeline()`, `hloscope timeline --json`).
//
//   - a program selector and the program's envelope (first start to last end, per run);
//   - one row per op: name, a bar proportional to its time per run, µs per run, a kind tag and
//     ×count; sortable by name, time and count; an explanation on hover;
//   - a click opens the op's HLO: the line `el.hloFor(row)` gives (the notebook passes the line
//     of a dump cell of the same module), else the row's dump line, else what the profile's
//     embedded HloModuleProto says;
//   - the async pairs and the reading sentence.
//
// Inputs: el.data = { timeline, name? } (or el.timeline = the JSON object). Text is set with
// textContent only. Events: `xla-timeline-select` {row} when a row is opened.
import { adoptStyles, breakable, defineOnce, el, formatInt, theme } from './common.js';

const KIND_WORDS = {
  fusion: 'a fusion: one kernel XLA generated from several ops',
  custom: 'a custom call: a kernel XLA did not generate (a library, or a hand-written kernel)',
  copy: 'a copy (copy-start/copy-done move data between memories asynchronously)',
  collective: 'a collective: devices exchange data',
  other: 'a single op run as its own kernel',
};
const BY_WORDS = {
  program: 'traced from a line of the program',
  library: 'a library kernel XLA called (BLAS, DNN)',
  compiler: 'the compiler substituted it: no line of the program asked for it',
  unknown: 'the profile does not say who wrote it',
};

const css = theme + `
  :host { display: block; font-size: 13px; }
  .bar-head { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: baseline; margin: 0 0 .5rem; }
  .bar-head label { display: inline-flex; gap: .3rem; align-items: baseline; min-width: 0; max-width: 100%; }
  .bar-head select { min-width: 0; max-width: 100%; }
  .env { font-family: var(--mono); color: var(--ink); }
  .reading { margin: .5rem 0; }
  table { border-collapse: collapse; width: 100%; }
  th { text-align: left; font-weight: 600; color: var(--dim); font-size: 12px; }
  th button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
  th button[aria-sort]::after { content: attr(data-arrow); }
  td { padding: .15rem .4rem .15rem 0; vertical-align: middle; }
  tr.op { cursor: pointer; }
  tr.op:hover td, tr.op:focus-within td { background: var(--copper-bg); }
  td.name button { font-family: var(--mono); font-size: 12.5px; background: none; border: 0; padding: 0; cursor: pointer; text-align: left; color: var(--ink); overflow-wrap: break-word; }
  td.barcell { width: 35%; }
  .bar { height: .7rem; background: var(--copper); border-radius: 2px; min-width: 1px; }
  td.us, td.count { font-family: var(--mono); white-space: nowrap; text-align: right; }
  .tag { font-size: 11px; border: 1px solid var(--line); border-radius: 3px; padding: 0 .3rem; white-space: nowrap; }
  .tag.compiler { border-color: var(--copper); color: var(--copper); }
  .tag.library { border-color: var(--accent); color: var(--accent); }
  tr.detail td { padding: .3rem 0 .6rem 1rem; }
  pre.hlo { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; margin: .2rem 0; background: var(--paper); border: 1px solid var(--line); padding: .3rem .5rem; }
  ul.async { margin: .4rem 0; padding-left: 1.1rem; }
  .status { font-size: 12px; color: var(--dim); }
`;

function us(ps) {
  const v = (ps || 0) / 1e6;
  return v >= 100 ? formatInt(Math.round(v)) : v >= 1 ? v.toFixed(1) : v.toFixed(3);
}

/** A bar of `pct` percent: the width set through the CSSOM (a strict CSP blocks style attributes). */
function bar(pct) {
  const b = el('div', { class: 'bar' });
  b.style.width = `${pct.toFixed(2)}%`;
  return b;
}

function programKey(p) { return p.program_id ?? `name:${p.name ?? ''}`; }
function rowProgramKey(r) { return r.program_id ?? `name:${r.module ?? ''}`; }

/** Words for a row: what it is, who wrote it, its share. */
export function explainRow(r) {
  const parts = [`${r.name}: ${KIND_WORDS[r.kind] || r.kind}`, BY_WORDS[r.written_by] || r.written_by];
  parts.push(`${us(r.per_run_ps)} µs per run over ${formatInt(r.occurrences)} occurrence${r.occurrences === 1 ? '' : 's'}, ${(100 * (r.share || 0)).toFixed(1)}% of the program's time`);
  if (r.target) parts.push(`custom-call target ${r.target}`);
  if (r.op_name) parts.push(`from ${r.op_name}${r.source ? ` (${r.source})` : ''}`);
  return parts.join('; ');
}

export class XlaTimeline extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._head = el('div', { class: 'bar-head' });
    this._reading = el('p', { class: 'reading', part: 'reading' });
    this._table = el('table', { part: 'table' });
    this._async = el('ul', { class: 'async' });
    this._status = el('div', { class: 'status', role: 'status' });
    root.append(this._status, this._head, this._reading, this._table, this._async);
    this._sort = { key: 'time', dir: -1 };
    this._program = null;
    this._open = null;
    /** (row) => { line, text, source } | null: the notebook's dump-cell lookup. */
    this.hloFor = null;
  }

  get data() { return this._data ?? null; }
  set data(d) {
    this._data = d || null;
    this._program = null;
    this._open = null;
    this._render();
  }
  get timeline() { return this._data?.timeline ?? null; }
  set timeline(t) { this.data = t ? { timeline: t } : null; }

  /** Selects a program by id (or name when it has none); null for all. */
  selectProgram(key) {
    this._program = key;
    this._open = null;
    this._render();
  }

  _rows() {
    const t = this._data.timeline;
    let rows = t.rows.filter((r) => this._program == null || rowProgramKey(r) === this._program);
    const { key, dir } = this._sort;
    const val = (r) => (key === 'name' ? r.name : key === 'count' ? r.occurrences : r.per_run_ps);
    rows = rows.slice().sort((a, b) => {
      const x = val(a), y = val(b);
      const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
      return c * dir || a.name.localeCompare(b.name);
    });
    return rows;
  }

  _render() {
    const t = this._data?.timeline;
    this._head.replaceChildren();
    this._table.replaceChildren();
    this._async.replaceChildren();
    this._reading.textContent = '';
    if (!t) { this._status.textContent = 'no profile'; return; }
    this._status.textContent = this._data.name ? `timeline of ${this._data.name}` : '';
    // program selector and envelope
    const progs = t.programs || [];
    if (this._program == null && progs.length) {
      // the program with the most device time
      const top = progs.reduce((a, b) => (b.envelope_ps > a.envelope_ps ? b : a));
      this._program = programKey(top);
    }
    const sel = el('select', { 'aria-label': 'program', onchange: (e) => this.selectProgram(e.target.value === '*' ? '*' : e.target.value) });
    sel.append(el('option', { value: '*', text: 'all programs' }));
    for (const p of progs) {
      const o = el('option', { value: programKey(p), text: `${p.name ?? '(unnamed)'}${p.program_id != null ? ` (id ${p.program_id})` : ''} · ${formatInt(p.runs)} run${p.runs === 1 ? '' : 's'}` });
      if (programKey(p) === this._program) o.selected = true;
      sel.append(o);
    }
    if (this._program === '*') { sel.value = '*'; }
    const cur = progs.find((p) => programKey(p) === this._program);
    const env = el('span', { class: 'env' }, cur ? `envelope ${us(cur.per_run_ps)} µs per run (${formatInt(cur.runs)} runs)` : '');
    this._head.append(el('label', {}, 'program ', sel), env);
    this._reading.textContent = t.reading || '';
    // the table
    const sortBtn = (key, label) => {
      const b = el('button', { type: 'button', onclick: () => { this._sort = { key, dir: this._sort.key === key ? -this._sort.dir : key === 'name' ? 1 : -1 }; this._render(); } }, label);
      if (this._sort.key === key) { b.setAttribute('aria-sort', this._sort.dir > 0 ? 'ascending' : 'descending'); b.dataset.arrow = this._sort.dir > 0 ? ' ▲' : ' ▼'; }
      return b;
    };
    this._table.append(el('thead', {}, el('tr', {},
      el('th', {}, sortBtn('name', 'op')), el('th', {}, 'time per run'), el('th', {}, sortBtn('time', 'µs per run')),
      el('th', {}, 'kind'), el('th', {}, sortBtn('count', 'count')))));
    const rows = this._program === '*' ? this._rowsAll() : this._rows();
    const max = rows.reduce((m, r) => Math.max(m, r.per_run_ps || 0), 0) || 1;
    const body = el('tbody');
    for (const r of rows) {
      const id = `${rowProgramKey(r)}|${r.name}`;
      const tr = el('tr', { class: 'op', title: explainRow(r), dataset: { op: r.name } },
        el('td', { class: 'name' }, el('button', { type: 'button', 'aria-expanded': String(this._open === id), onclick: () => { this._open = this._open === id ? null : id; this._render(); this._emit(r); } }, breakable(r.name))),
        el('td', { class: 'barcell' }, bar(100 * (r.per_run_ps || 0) / max)),
        el('td', { class: 'us' }, us(r.per_run_ps)),
        el('td', {}, el('span', { class: `tag ${r.written_by}`, text: r.kind }), r.written_by === 'compiler' || r.written_by === 'library' ? el('span', { class: `tag ${r.written_by}`, text: r.written_by }) : null),
        el('td', { class: 'count' }, `×${formatInt(r.occurrences)}`));
      body.append(tr);
      if (this._open === id) body.append(el('tr', { class: 'detail' }, el('td', { colspan: '5' }, this._detail(r))));
    }
    if (!rows.length) body.append(el('tr', {}, el('td', { colspan: '5', class: 'status', text: 'no ops counted for this program' })));
    this._table.append(body);
    for (const a of t.async || []) {
      if (this._program !== '*' && this._program != null && (a.program_id ?? `name:${a.module ?? ''}`) !== this._program) continue;
      this._async.append(el('li', { text: `${a.start} → ${a.done}: ${a.sentence}` }));
    }
  }

  _rowsAll() {
    const saved = this._program;
    this._program = null;
    const r = this._rows();
    this._program = saved;
    return r;
  }

  _detail(r) {
    const from = typeof this.hloFor === 'function' ? this.hloFor(r) : null;
    const line = from || (r.hlo ? { line: r.hlo.line, text: r.hlo.text, source: 'the optimized HLO dump' } : null);
    const parts = [el('p', { text: explainRow(r) })];
    if (line) {
      parts.push(el('div', { class: 'status', text: `line ${line.line} of ${line.source || 'the dump'}` }), el('pre', { class: 'hlo', text: line.text }));
    } else if (r.opcode) {
      const said = [`opcode ${r.opcode}`];
      if (r.target) said.push(`target ${r.target}`);
      if (r.op_name) said.push(`op_name ${r.op_name}`);
      if (r.source) said.push(`source ${r.source}`);
      parts.push(el('div', { class: 'status', text: 'what the HloModuleProto embedded in the profile says (no dump of this module in the notebook):' }),
        el('pre', { class: 'hlo', text: said.join('\n') }));
    } else {
      parts.push(el('div', { class: 'status', text: 'no HLO for this op: the profile embeds no HloModuleProto for it; add a dump cell of the module' }));
    }
    return parts;
  }

  _emit(row) {
    this.dispatchEvent(new CustomEvent('xla-timeline-select', { detail: { row }, bubbles: true, composed: true }));
  }
}

defineOnce('xla-timeline', XlaTimeline);
