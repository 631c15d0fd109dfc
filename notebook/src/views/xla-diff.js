// <xla-diff>: what changed between two compiles (issue 38), side by side. The core's diff
// (`diff(a, b)`, computed in the analysis worker) says what matched and what changed; the layout
// (diff-core.js) puts the two modules on rows so that matched lines sit on one row. On top the
// core's verdict; then the list of changes (fusion entries other than `same`, values newly in or
// gone from HBM, calls, transfers): a click scrolls both sides to the entry's lines and
// highlights them. Lines are coloured by the change they take part in. Rows are virtualized
// (about 70 rows per column in the DOM for any size). Dump text is set with textContent only.
//
// Inputs (any one):
//   el.texts = { a, b }                       two optimized HLO texts (A: the reference, B: the new one)
//   el.data = { diff, layout, marks, lines, a, b }   the engine's diff() result plus the two texts
//   <xla-diff src-a="ref.txt" src-b="new.txt">     same-origin URLs, fetched
// Attributes: height (CSS length of the columns, default 28rem), label-a, label-b (the sides'
//   names, default "A" and "B").
// Events: 'diff-ready' (detail { diff }), 'diff-error' (detail { error }), 'line-click'
//   (detail { side: 'a'|'b', line }), 'change-click' (detail { entry }); all bubble and cross
//   shadow roots.
// Properties and methods: diff (the core's diff, without `pairs`), entries (the listed changes),
//   rowOf(side, line), lineAt(side, row), showEntry(k), scrollToRow(row), scroller(side),
//   linked (true while both columns scroll together), align().
import { adoptStyles, defineOnce, el, errorWhere, fetchText, formatInt, partialWords, theme } from './common.js';
import { MARKS, changeEntries } from './diff-core.js';
import { lineStarts } from './analysis-core.js';
import * as engine from './engine.js';

const ROW = 18; // px, fixed row height (virtualization depends on it)
const OVERSCAN = 24;
const MAX_CHARS = 1500; // characters drawn per line
const MAX_PX = 8_000_000; // tallest scroll area (browsers cap element heights)
const MAX_ENTRIES = 400; // changes listed; the rest are counted

const MARK_WORDS = {
  spill: 'a big value in HBM on this side only (B: a new spill; A: one B no longer writes)',
  fusion: 'a fusion op of a fusion that changed, merged, split, appeared or went',
  moved: 'an op that moved into or out of a fusion',
  unmatched: 'an instruction with no counterpart on the other side',
  far: 'matched with a line on another row (the two modules order it differently): click to see it',
};

const css = theme + `
  :host { display: block; font-size: 13px; }
  .verdict { font-size: 13.5px; margin: 0 0 .4rem; line-height: 1.4; white-space: pre-wrap; }
  .stat { font-family: var(--mono); font-size: 12px; color: var(--dim); margin: 0 0 .4rem; }
  .partial { font-size: 12px; color: var(--bad); margin: 0 0 .4rem; }
  .partial[hidden], .status:empty, .body[hidden] { display: none; }
  .legend { font-size: 11.5px; color: var(--dim); margin: 0 0 .5rem; display: flex; gap: .35rem 1rem; flex-wrap: wrap; }
  .legend span { padding: 0 .3rem; border-radius: 3px; }
  .status { font-size: 12px; color: var(--dim); margin: .25rem 0; }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  progress { width: 12rem; vertical-align: middle; margin-left: .5rem; }
  details.changes { margin: 0 0 .5rem; }
  details.changes summary { cursor: pointer; font-size: 12.5px; }
  ol.list { margin: .3rem 0 0; padding: 0; list-style: none; max-height: 12rem; overflow: auto;
    border: 1px solid var(--line); border-radius: 6px; background: var(--paper); }
  ol.list li { border-bottom: 1px solid var(--line); }
  ol.list li:last-child { border-bottom: 0; }
  button.entry { all: unset; box-sizing: border-box; display: block; width: 100%; padding: .25rem .6rem; cursor: pointer;
    font-size: 12px; color: var(--ink); }
  button.entry:hover { background: var(--surface-2); }
  button.entry:focus-visible { box-shadow: inset 0 0 0 2px var(--focus); }
  button.entry[aria-current="true"] { background: var(--copper-bg); box-shadow: inset 3px 0 0 var(--accent); }
  button.entry .t { font-family: var(--mono); overflow-wrap: anywhere; }
  button.entry .d { display: block; color: var(--dim); overflow-wrap: anywhere; }
  .more { font-size: 12px; color: var(--dim); padding: .25rem .6rem; }
  .linkbar { font-size: 12px; color: var(--dim); margin: 0 0 .35rem; display: flex; gap: .6rem; align-items: center; min-height: 1.4em; }
  .linkbar button { font: inherit; font-size: 12px; color: var(--ink); background: var(--surface); border: 1px solid var(--line);
    border-radius: 4px; padding: .05rem .5rem; cursor: pointer; }
  .linkbar button[hidden] { display: none; }
  .cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .75rem; }
  .col { min-width: 0; border: 1px solid var(--line); border-radius: 6px; background: var(--paper); overflow: hidden; }
  header { font-size: 12px; padding: .35rem .6rem; border-bottom: 1px solid var(--line); color: var(--dim);
    display: flex; justify-content: space-between; gap: .5rem; }
  header b { color: var(--ink); font-weight: 600; }
  .scroller { position: relative; overflow: hidden auto; height: var(--h, 28rem); contain: strict; outline: none; }
  .scroller:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
  .hbar { overflow: auto hidden; }
  .hbar > div { height: 1px; font-family: var(--mono); font-size: 12px; }
  .spacer { position: relative; }
  .rows { position: absolute; left: 0; top: 0; width: 100%; will-change: transform; }
  .row { height: ${ROW}px; line-height: ${ROW}px; white-space: pre; font-family: var(--mono); font-size: 12px;
    display: flex; overflow: hidden; cursor: default; }
  .row:hover { background: var(--surface-2); }
  .row.gap { background: repeating-linear-gradient(135deg, transparent 0 6px, var(--surface-2) 6px 8px); }
  .ln { position: sticky; left: 0; flex: none; width: 4.2em; text-align: right; padding-right: .6em; z-index: 1;
    color: var(--dim); background: var(--paper); user-select: none; }
  .tx { padding-right: 1rem; transform: translateX(calc(-1 * var(--sx, 0px))); }
  .m-unmatched { background: var(--surface-2); box-shadow: inset 3px 0 0 var(--accent); }
  .m-moved .tx { color: var(--copper); text-decoration: underline dotted; text-underline-offset: 3px; }
  .m-fusion { background: var(--copper-bg); }
  .m-fusion .tx { color: var(--copper); font-weight: 600; }
  .m-spill { background: var(--bad-bg); box-shadow: inset 3px 0 0 var(--bad); }
  .m-spill .tx { color: var(--bad); font-weight: 600; }
  .far .tx { font-style: italic; }
  .far { cursor: pointer; }
  .sw-unmatched { background: var(--surface-2); color: var(--ink); box-shadow: inset 3px 0 0 var(--accent); }
  .sw-fusion { background: var(--copper-bg); color: var(--copper); font-weight: 600; }
  .sw-moved { color: var(--copper); text-decoration: underline dotted; }
  .sw-spill { background: var(--bad-bg); color: var(--bad); font-weight: 600; }
  .sw-far { font-style: italic; color: var(--ink); }
  .row.hl { box-shadow: inset 0 0 0 2px var(--accent); }
  .row.hl .ln { color: var(--ink); font-weight: 600; }
`;

function sideOf(text) {
  const { starts, maxLen } = lineStarts(text);
  return { text, starts, maxLen, n: starts.length - 1 };
}

class XlaDiff extends HTMLElement {
  static get observedAttributes() { return ['src-a', 'src-b', 'height', 'label-a', 'label-b']; }

  constructor() {
    super();
    this._gen = 0;
    this._out = null; // { diff, layout, marks, lines }
    this._sides = { a: null, b: null }; // { text, starts, maxLen, n }
    this._entries = [];
    this._current = -1;
    this._hl = { a: new Set(), b: new Set() }; // lines highlighted
    this._linked = true;
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._verdict = el('p', { class: 'verdict', part: 'verdict', 'data-testid': 'verdict' });
    this._stat = el('p', { class: 'stat' });
    this._partial = el('p', { class: 'partial', hidden: true });
    this._legend = el('div', { class: 'legend' },
      ...['spill', 'fusion', 'moved', 'unmatched', 'far'].map((m) => el('span', { class: `sw-${m}`, title: MARK_WORDS[m],
        text: { spill: 'value in HBM on one side', fusion: 'fusion that changed', moved: 'op that moved', unmatched: 'no counterpart', far: 'italic: matched on another row' }[m] })));
    this._status = el('div', { class: 'status', role: 'status' });
    this._list = el('ol', { class: 'list' });
    this._more = el('div', { class: 'more', hidden: true });
    this._summaryLine = el('summary', { text: 'changes' });
    this._changes = el('details', { class: 'changes', open: true }, this._summaryLine, this._list, this._more);
    this._linkWords = el('span', { class: 'linkstate' });
    this._alignBtn = el('button', { type: 'button', class: 'align', hidden: true, text: 'scroll together again', onclick: () => this.align() });
    this._linkbar = el('div', { class: 'linkbar' }, this._linkWords, this._alignBtn);
    this._cols = el('div', { class: 'cols' });
    this._col = {};
    for (const side of ['a', 'b']) {
      const name = el('b', { text: side.toUpperCase() });
      const count = el('span', { class: 'count' });
      const rows = el('div', { class: 'rows' });
      const spacer = el('div', { class: 'spacer' }, rows);
      const scroller = el('div', { class: 'scroller', tabindex: '0', 'aria-label': `side ${side.toUpperCase()}`, dataset: { side } }, spacer);
      const wide = el('div');
      const hbar = el('div', { class: 'hbar', tabindex: '-1', 'aria-hidden': 'true' }, wide);
      const col = el('section', { class: `col ${side}`, dataset: { side } }, el('header', {}, name, count), scroller, hbar);
      this._col[side] = { col, name, count, scroller, spacer, rows, hbar, wide, pool: [], first: -1, last: -1, raf: 0, virtual: 0 };
      hbar.addEventListener('scroll', () => rows.style.setProperty('--sx', `${hbar.scrollLeft}px`), { passive: true });
      scroller.addEventListener('wheel', (e) => {
        const dx = e.deltaX || (e.shiftKey ? e.deltaY : 0);
        if (dx && Math.abs(dx) >= Math.abs(e.shiftKey ? 0 : e.deltaY)) hbar.scrollLeft += dx;
      }, { passive: true });
      scroller.addEventListener('scroll', () => this._scrolled(side), { passive: true });
      this._cols.append(col);
    }
    this._cols.addEventListener('click', (e) => this._click(e));
    this._body = el('div', { class: 'body', hidden: true }, this._stat, this._changes, this._legend, this._linkbar, this._cols);
    root.append(this._verdict, this._partial, this._status, this._body);
    this._ro = typeof ResizeObserver !== 'undefined' ? new ResizeObserver(() => { this._schedule('a', true); this._schedule('b', true); }) : null;
    this._labels();
  }

  connectedCallback() {
    this._applyHeight();
    this._ro?.observe(this);
    this._schedule('a', true);
    this._schedule('b', true);
  }

  disconnectedCallback() { this._ro?.disconnect(); }

  attributeChangedCallback(name) {
    if (name === 'height') { this._applyHeight(); return; }
    if (name === 'label-a' || name === 'label-b') { this._labels(); return; }
    const sa = this.getAttribute('src-a');
    const sb = this.getAttribute('src-b');
    if (!sa || !sb) return;
    const gen = ++this._gen;
    this._setStatus('loading…');
    Promise.all([fetchText(sa), fetchText(sb)]).then(([a, b]) => {
      if (gen !== this._gen) return;
      if (!this.hasAttribute('label-a')) this._names = { a: sa.split('/').slice(-2).join('/'), b: sb.split('/').slice(-2).join('/') };
      this._labels();
      this._compute(a, b, gen);
    }, (e) => { if (gen === this._gen) this._fail(e); });
  }

  _applyHeight() {
    const h = this.getAttribute('height');
    for (const s of ['a', 'b']) this._col[s].scroller.style.setProperty('--h', h || '28rem');
  }

  _labels() {
    for (const s of ['a', 'b']) {
      const label = this.getAttribute(`label-${s}`) || this._names?.[s];
      this._col[s].name.textContent = label ? `${s.toUpperCase()}: ${label}` : s.toUpperCase();
    }
  }

  /** Two texts: the diff is computed in the analysis worker. */
  get texts() { return this._sides.a ? { a: this._sides.a.text, b: this._sides.b.text } : null; }
  set texts(t) {
    const gen = ++this._gen;
    if (!t) { this._show(null); return; }
    this._compute(String(t.a ?? ''), String(t.b ?? ''), gen);
  }

  /** The engine's diff() result with the two texts: { diff, layout, marks, lines, a, b } (names: { a, b } optional). */
  get data() { return this._out; }
  set data(d) {
    this._gen++;
    if (d?.names) this._names = d.names;
    this._labels();
    this._show(d || null);
  }

  /** Shows progress while the caller computes (the notebook drives the worker itself). */
  progress(p) {
    if (!p) { this._setStatus(''); return; }
    this._setStatus(p.stage || 'working…', p.total ? p.done / p.total : undefined);
  }

  _compute(a, b, gen) {
    this._setStatus('diffing…');
    engine.diff({ a: { text: a }, b: { text: b } }, (p) => { if (gen === this._gen) this.progress(p); }).then((out) => {
      if (gen !== this._gen) return;
      this._show({ ...out, a, b });
    }, (e) => { if (gen === this._gen) this._fail(e); });
  }

  _fail(e) {
    const side = e.side ? ` (side ${String(e.side).toUpperCase()})` : '';
    this._setStatus(`diff failed${side}: ${e.message}${errorWhere(e)}`, undefined, true);
    this.dispatchEvent(new CustomEvent('diff-error', { detail: { error: e }, bubbles: true, composed: true }));
  }

  _setStatus(text, fraction, isError = false) {
    this._status.className = isError ? 'status err' : 'status';
    this._status.replaceChildren();
    if (!text) return;
    this._status.append(text);
    if (!isError) {
      const p = el('progress', { max: '1' });
      if (fraction !== undefined) p.value = fraction;
      this._status.append(p);
    }
  }

  /** The core's diff (without its `pairs`: the layout holds them), or null. */
  get diff() { return this._out?.diff ?? null; }
  /** The listed changes: [{ kind, change, title, detail, a: [lines], b: [lines] }]. */
  get entries() { return this._entries.map((e) => ({ ...e, a: [...e.a], b: [...e.b] })); }
  /** True while both columns scroll together (rows side by side). */
  get linked() { return this._linked; }

  _show(out) {
    this._out = out;
    this._current = -1;
    this._hl = { a: new Set(), b: new Set() };
    this._setStatus('');
    this._body.hidden = !out;
    if (!out) {
      this._sides = { a: null, b: null };
      this._verdict.textContent = '';
      this._stat.textContent = '';
      this._list.replaceChildren();
      for (const s of ['a', 'b']) { const c = this._col[s]; c.rows.replaceChildren(); c.pool = []; c.spacer.style.height = '0px'; }
      return;
    }
    const d = out.diff;
    this._sides = { a: sideOf(out.a ?? ''), b: sideOf(out.b ?? '') };
    this._verdict.textContent = d.verdict;
    const L = out.layout;
    const side = (s) => `${s.toUpperCase()} ${d[s].module ?? '(no module name)'}: ${formatInt(out.lines[s])} lines, ${formatInt(d[s].fusion_ops)} fusion ops`;
    this._stat.textContent = `${side('a')} · ${side('b')} · ${formatInt(d.matched.instructions)} instructions matched` +
      ` (${formatInt(L.aligned)} side by side, ${formatInt(L.elsewhere)} on other rows), ${formatInt(d.matched.unmatched_a)} of A and ${formatInt(d.matched.unmatched_b)} of B unmatched`;
    const cut = ['a', 'b'].filter((s) => d[s].partial).map((s) => `side ${s.toUpperCase()}: ${partialWords(d[s].partial)}`);
    this._partial.textContent = cut.join(' · ');
    this._partial.hidden = !cut.length;
    this._entries = changeEntries(d);
    this._renderList();
    this._linked = true;
    this._linkWords.textContent = 'the two sides scroll together, matched lines on one row';
    this._alignBtn.hidden = true;
    for (const s of ['a', 'b']) {
      const c = this._col[s];
      const t = this._sides[s];
      c.first = c.last = -1;
      c.count.textContent = `${formatInt(t.n)} lines`;
      c.spacer.style.height = `${Math.min(L.rows * ROW, MAX_PX)}px`;
      c.wide.style.width = `calc(${Math.min(t.maxLen, MAX_CHARS + 24)}ch + 6em)`;
      c.hbar.scrollLeft = 0;
      c.rows.style.setProperty('--sx', '0px');
      c.scroller.scrollTop = 0;
    }
    for (const s of ['a', 'b']) this._render(s);
    this.dispatchEvent(new CustomEvent('diff-ready', { detail: { diff: d }, bubbles: true, composed: true }));
  }

  _renderList() {
    const n = this._entries.length;
    this._summaryLine.textContent = n ? `${formatInt(n)} change${n === 1 ? '' : 's'} (click one to see its lines on both sides)` : 'no changes to list';
    this._list.replaceChildren(...this._entries.slice(0, MAX_ENTRIES).map((e, k) => el('li', {},
      el('button', { type: 'button', class: 'entry', dataset: { k: String(k), kind: e.kind, change: e.change }, onclick: () => this.showEntry(k) },
        el('span', { class: 't', text: e.title }), e.detail ? el('span', { class: 'd', text: e.detail }) : null))));
    this._list.hidden = !n;
    this._more.hidden = n <= MAX_ENTRIES;
    this._more.textContent = n > MAX_ENTRIES ? `and ${formatInt(n - MAX_ENTRIES)} more (the diff's JSON lists them all)` : '';
  }

  /** The row (0-based) of a side's line, or -1. */
  rowOf(side, line) {
    const L = this._out?.layout;
    const m = side === 'a' ? L?.rowOfA : L?.rowOfB;
    return m && line >= 1 && line < m.length ? m[line] : -1;
  }

  /** The line (1-based) a side shows on a row, 0 for a blank row. */
  lineAt(side, row) {
    const L = this._out?.layout;
    const m = side === 'a' ? L?.a : L?.b;
    return m && row >= 0 && row < m.length ? m[row] : 0;
  }

  /** The scrolling element of a column. */
  scroller(side) { return this._col[side]?.scroller ?? null; }

  /** Scrolls both columns (scrolling together) so that `row` sits near the top third. */
  scrollToRow(row) {
    this._link(true);
    this._scrollSide('a', row);
    this._scrollSide('b', row);
  }

  /** Both columns scroll together again, B at A's row. */
  align() {
    this._link(true);
    const top = this._col.a.scroller.scrollTop;
    this._col.b.scroller.scrollTop = top;
    this._schedule('b', true);
  }

  _link(on) {
    this._linked = on;
    this._alignBtn.hidden = on;
    this._linkWords.textContent = on ? 'the two sides scroll together, matched lines on one row'
      : 'the sides are scrolled apart to show the change on each';
  }

  _scrollSide(side, row) {
    const c = this._col[side];
    const h = c.scroller.clientHeight || 480;
    c.scroller.scrollTop = Math.max(0, (row * ROW - h / 3) / this._scale());
    this._schedule(side, true);
  }

  /**
   * Shows change k of `entries`: its lines highlighted on both sides and scrolled into view.
   * When the two sides' lines fit in one window the columns stay together; else each column
   * scrolls to its own lines (and the bar offers to scroll them together again).
   */
  showEntry(k) {
    const e = this._entries[k];
    if (!e) return;
    this._current = k;
    for (const b of this._list.querySelectorAll('button.entry')) b.setAttribute('aria-current', String(Number(b.dataset.k) === k));
    this._highlight(e.a, e.b);
    // each side scrolls to its first line (a fusion op before the ops that moved)
    const ra = e.a.length ? this.rowOf('a', e.a[0]) : -1;
    const rb = e.b.length ? this.rowOf('b', e.b[0]) : -1;
    if (ra >= 0 || rb >= 0) {
      const h = this._col.a.scroller.clientHeight || 480;
      const fit = Math.max(1, Math.floor(h / ROW) - 2);
      if (ra < 0 || rb < 0) {
        this.scrollToRow(Math.max(ra, rb));
      } else if (Math.abs(ra - rb) < fit - 1) {
        // one window holds both: the columns stay together, rows side by side
        this._link(true);
        const top = Math.max(0, Math.min(ra, rb) - 1);
        for (const s of ['a', 'b']) { this._col[s].scroller.scrollTop = (top * ROW) / this._scale(); this._schedule(s, true); }
      } else {
        this._link(false);
        this._scrollSide('a', ra);
        this._scrollSide('b', rb);
      }
    }
    this.dispatchEvent(new CustomEvent('change-click', { detail: { entry: { ...e } }, bubbles: true, composed: true }));
  }

  _highlight(a, b) {
    this._hl = { a: new Set(a), b: new Set(b) };
    this._schedule('a', true);
    this._schedule('b', true);
  }

  _scrolled(side) {
    if (this._linked) {
      const other = this._col[side === 'a' ? 'b' : 'a'].scroller;
      const top = this._col[side].scroller.scrollTop;
      if (Math.abs(other.scrollTop - top) >= 1) other.scrollTop = top;
    }
    this._schedule(side);
  }

  _schedule(side, force = false) {
    const c = this._col[side];
    if (force) c.first = c.last = -1;
    if (c.raf) return;
    c.raf = requestAnimationFrame(() => { c.raf = 0; this._render(side); });
  }

  /** Virtual pixels per scrolled pixel (1 unless the rows are taller than MAX_PX). */
  _scale() {
    const L = this._out?.layout;
    if (!L || L.rows * ROW <= MAX_PX) return 1;
    const h = this._col.a.scroller.clientHeight || 480;
    return (L.rows * ROW - h) / (MAX_PX - h);
  }

  _render(side) {
    const c = this._col[side];
    const L = this._out?.layout;
    if (!L || !this._sides[side]) return;
    const top = c.scroller.scrollTop;
    const h = c.scroller.clientHeight || 480;
    const virtual = top * this._scale();
    const first = Math.max(0, Math.floor(virtual / ROW) - OVERSCAN);
    const last = Math.min(L.rows, Math.ceil((virtual + h) / ROW) + OVERSCAN);
    if (first === c.first && last === c.last && virtual === c.virtual) return;
    c.first = first;
    c.last = last;
    c.virtual = virtual;
    const count = last - first;
    c.rows.style.transform = `translateY(${top + first * ROW - virtual}px)`;
    while (c.pool.length < count) {
      const row = el('div', { class: 'row' }, el('span', { class: 'ln' }), el('span', { class: 'tx' }));
      c.pool.push(row);
      c.rows.append(row);
    }
    while (c.pool.length > count) c.pool.pop().remove();
    const lines = side === 'a' ? L.a : L.b;
    const marks = this._out.marks[side];
    const partners = side === 'a' ? L.partnerA : L.partnerB;
    const otherRow = side === 'a' ? L.rowOfB : L.rowOfA;
    const s = this._sides[side];
    const hl = this._hl[side];
    for (let k = 0; k < count; k++) {
      const r = first + k;
      const row = c.pool[k];
      const [ln, tx] = row.children;
      const line = lines[r];
      row.dataset.row = r;
      if (!line) {
        row.className = 'row gap';
        row.dataset.line = '0';
        ln.textContent = '';
        tx.textContent = '';
        continue;
      }
      const m = marks[line] ?? 0;
      const partner = partners[line];
      const far = partner && otherRow[partner] !== r; // matched with a line on another row
      row.className = `row${m ? ` m-${MARKS[m]}` : ''}${far ? ' far' : ''}${hl.has(line) ? ' hl' : ''}`;
      row.dataset.line = line;
      ln.textContent = line;
      if (line > s.n) { tx.textContent = ''; continue; }
      const a = s.starts[line - 1];
      let b = s.starts[line] - 1;
      if (b > a && s.text.charCodeAt(b - 1) === 13) b--;
      tx.textContent = b - a > MAX_CHARS ? `${s.text.slice(a, a + MAX_CHARS)} … (${formatInt(b - a - MAX_CHARS)} more characters)` : s.text.slice(a, b);
    }
  }

  _click(e) {
    const row = e.target.closest?.('.row');
    const side = row?.closest('.col')?.dataset.side;
    const line = Number(row?.dataset.line);
    if (!side || !line) return;
    // a matched line on another row: show its partner beside it
    const L = this._out.layout;
    const partner = side === 'a' ? L.partnerA[line] : L.partnerB[line];
    if (partner && this.rowOf(side, line) !== this.rowOf(side === 'a' ? 'b' : 'a', partner)) {
      const other = side === 'a' ? 'b' : 'a';
      this._highlight(side === 'a' ? [line] : [partner], side === 'a' ? [partner] : [line]);
      this._link(false);
      // the partner at the height the clicked line is shown at
      const y = this.rowOf(side, line) * ROW - this._col[side].scroller.scrollTop * this._scale();
      this._col[other].scroller.scrollTop = Math.max(0, (this.rowOf(other, partner) * ROW - y) / this._scale());
      this._schedule(other, true);
    }
    this.dispatchEvent(new CustomEvent('line-click', { detail: { side, line }, bubbles: true, composed: true }));
  }
}

defineOnce('xla-diff', XlaDiff);
export { XlaDiff };
