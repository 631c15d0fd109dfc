// <xla-xray>: the fusion x-ray (GYM·07). Two columns: what XLA received (StableHLO, left) and
// what XLA decided (optimized HLO, right). Fusion lines in copper, lines carrying the big
// intermediate underlined, bookkeeping dimmed, the memory space of each defined value in the
// gutter, and the core's note for every line on hover. Rows are virtualized: only the visible
// lines exist in the DOM, so a 100,000-line dump scrolls smoothly. Dump text is set with
// textContent only.
//
// Inputs (any one):
//   el.left = stablehloText; el.right = hloText;   computed in the analysis worker
//     (either may stay unset: then that column is left out, with a one-sided x-ray)
//   el.data = { xray, left, right }                 an xray() result from the JS API plus the two texts
//   <xla-xray src-left="a.mlir" src-right="b.txt">  same-origin URLs, fetched
// Attributes: selectable (clicks toggle a selection), height (CSS length of the columns,
//   default 28rem), compact (no headers/legend).
// Keyboard: Tab into a column, arrows / Page Up / Page Down / Home / End move a cursor line and
//   show its note, Enter or Space acts as a click.
// Events: 'line-click' CustomEvent, detail { side: 'left'|'right', line } (1-based), bubbles
//   and crosses shadow roots; 'xray-ready' when lines are shown, detail { summary };
//   'xray-error', detail { error }.
// Properties: selectedLines ([{ side, line }], in click order; settable), marks ([{ side, line,
//   kind: 'right'|'wrong'|'target' }] shown as outlines), summary (the core's x-ray summary),
//   noteFor(side, line), scrollToLine(side, line), clearSelection().
import { CLASSES, compactSide, lineStarts } from './analysis-core.js';
import { adoptStyles, backendOf, defineOnce, el, errorWhere, fetchText, memorySpaceLabel, memorySpaceWords, partialWords, theme } from './common.js';
import { layoutNote, layoutNoteAsync } from './layout-note.js';
import * as engine from './engine.js';

const ROW = 18; // px, fixed row height (virtualization depends on it)
const OVERSCAN = 24;
const MAX_CHARS = 1500; // characters rendered per line; the rest is counted, not drawn
const MAX_PX = 8_000_000; // tallest scroll area (browsers cap element heights near 16-33 M px)

const DEFAULT_NOTES = {
  fusion: 'A fusion: one kernel computes this whole body without writing its intermediates to memory.',
  carry: 'This line carries the big intermediate (same array type, layout aside).',
  hot: 'A decision worth a look (a cast, a broadcast, a layout change).',
  dim: 'Bookkeeping: a parameter, constant, tuple, region or module line.',
  plain: 'An ordinary operation.',
};

const css = theme + `
  :host { display: block; font-size: 13px; }
  .stat { font-family: var(--mono); font-size: 13.5px; margin: 0 0 .35rem; color: var(--ink); }
  .big { font-size: 12px; color: var(--dim); margin: 0 0 .5rem; }
  .legend { font-size: 11.5px; color: var(--dim); margin: 0 0 .5rem; display: flex; gap: 1rem; flex-wrap: wrap; }
  .legend .sw-f { color: var(--copper); font-weight: 600; }
  .legend .sw-c { text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px; }
  .legend .sw-d { color: var(--dim); font-weight: 400; }
  .cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .75rem; }
  @media (max-width: 640px) { .cols { grid-template-columns: minmax(0, 1fr); } }
  .cols.one { grid-template-columns: 1fr; }
  .col { min-width: 0; border: 1px solid var(--line); border-radius: 6px; background: var(--paper); overflow: hidden; }
  .col[hidden] { display: none; }
  header { font-size: 12px; padding: .35rem .6rem; border-bottom: 1px solid var(--line); color: var(--dim);
    display: flex; justify-content: space-between; gap: .5rem; }
  header b { color: var(--ink); font-weight: 600; }
  .scroller { position: relative; overflow: hidden auto; height: var(--h, 28rem); contain: strict; outline: none; }
  /* Sideways scrolling lives in .hbar, not in the scroller: every row is exactly as wide as the
     column and the text slides inside it (--sx), so no row box reaches past the column, and
     nothing that brings a row into view (focus, a click, scrollIntoView, a test driver's hit
     point) can scroll the code away sideways (issue 17, item 6). */
  .hbar { overflow: auto hidden; }
  .hbar > div { height: 1px; font-family: var(--mono); font-size: 12px; }
  .scroller:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
  .spacer { position: relative; }
  .rows { position: absolute; left: 0; top: 0; width: 100%; will-change: transform; }
  .row { height: ${ROW}px; line-height: ${ROW}px; white-space: pre; font-family: var(--mono); font-size: 12px;
    display: flex; cursor: default; overflow: hidden; }
  .row:hover { background: var(--surface-2); }
  .ln { position: sticky; left: 0; flex: none; width: 4.2em; text-align: right; padding-right: .5em;
    color: var(--dim); background: var(--paper); user-select: none; }
  .ms { position: sticky; left: 4.2em; flex: none; width: 3.4em; text-align: center; font-size: 10.5px;
    color: var(--dim); background: var(--paper); user-select: none; }
  .ms.on { color: var(--accent); font-weight: 600; }
  .tx { padding-right: 1rem; transform: translateX(calc(-1 * var(--sx, 0px))); }
  .ln, .ms { z-index: 1; }
  .more { color: var(--dim); font-style: italic; }
  .c-fusion .tx { color: var(--copper); font-weight: 600; }
  .c-fusion { background: var(--copper-bg); }
  .c-dim .tx { color: var(--dim); }
  .c-hot .tx { color: var(--accent); }
  .u .tx { text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px;
    text-decoration-color: currentColor; }
  .uc .tx { text-decoration: underline dotted; text-decoration-thickness: 1px; text-underline-offset: 3px; }
  .legend .sw-cc { text-decoration: underline dotted; text-underline-offset: 3px; }
  .partial { font-size: 12px; color: var(--bad); margin: 0 0 .4rem; }
  .partial[hidden] { display: none; }
  :host([selectable]) .row { cursor: pointer; }
  .sel { background: var(--copper-bg) !important; box-shadow: inset 3px 0 0 var(--accent); }
  .mark-right { box-shadow: inset 3px 0 0 var(--good); }
  .mark-wrong { box-shadow: inset 3px 0 0 var(--bad); }
  .mark-target { box-shadow: inset 3px 0 0 var(--copper); }
  .status { font-size: 12px; color: var(--dim); margin: .25rem 0; min-height: 1em; }
  .status.err { color: var(--bad); white-space: pre-wrap; }
  progress { width: 12rem; vertical-align: middle; margin-left: .5rem; }
  .tip { position: fixed; z-index: 10; max-width: 30rem; background: var(--ink); color: var(--paper); font-size: 12px;
    line-height: 1.35; padding: .4rem .55rem; border-radius: 5px; pointer-events: none; white-space: pre-wrap;
    box-shadow: 0 2px 10px rgba(0,0,0,.25); }
  .tip[hidden] { display: none; }
  :host([compact]) .legend, :host([compact]) header { display: none; }
  .cur { box-shadow: inset 0 0 0 2px var(--accent); }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** The text of line i (0-based) of a side. */
function lineText(s, i) {
  return s.text.slice(s.starts?.[i] ?? 0, s.starts?.[i + 1] ?? s.text.length);
}

function sideFromApi(lines, text) {
  const { starts, maxLen } = lineStarts(text);
  return compactSide(lines, text, starts, maxLen);
}

class XlaXray extends HTMLElement {
  static get observedAttributes() { return ['src-left', 'src-right', 'height']; }

  constructor() {
    super();
    this._left = null;
    this._right = null;
    this._sides = { left: null, right: null };
    this._summary = null;
    this._selected = [];
    this._marks = [];
    this._gen = 0;
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._stat = el('p', { class: 'stat', part: 'stat' });
    this._big = el('p', { class: 'big' });
    this._legend = el('div', { class: 'legend' },
      el('span', { class: 'sw-f', text: 'copper: fusion ops' }),
      el('span', { class: 'sw-c', text: 'underlined: carries the big intermediate (counted: the line that computes it, the kernel that writes it, each kernel that reads it)' }),
      el('span', { class: 'sw-cc', text: 'dotted: another line of that type (context, not counted)' }),
      el('span', { class: 'sw-d', text: 'dim: bookkeeping' }),
      el('span', { text: 'gutter: memory space of the value (S(0) the default memory: HBM on an accelerator, RAM on the CPU; S(1) on chip)' }),
      el('span', { text: 'hover any line for what it does' }));
    this._status = el('div', { class: 'status', role: 'status' });
    this._partial = el('p', { class: 'partial', hidden: true, 'data-testid': 'partial' });
    this._cols = el('div', { class: 'cols' });
    this._col = {};
    for (const side of ['left', 'right']) {
      const title = side === 'left' ? 'what XLA received (StableHLO)' : 'what XLA decided (optimized HLO)';
      const count = el('span', { class: 'count' });
      const rows = el('div', { class: 'rows' });
      const spacer = el('div', { class: 'spacer' }, rows);
      const scroller = el('div', { class: 'scroller', tabindex: '0', 'aria-label': title, dataset: { side } }, spacer);
      const wide = el('div');
      const hbar = el('div', { class: 'hbar', tabindex: '-1', 'aria-hidden': 'true' }, wide);
      const col = el('section', { class: `col ${side}`, hidden: true, dataset: { side } },
        el('header', {}, el('b', { text: title }), count), scroller, hbar);
      this._col[side] = { col, scroller, spacer, rows, count, hbar, wide, pool: [], first: -1, last: -1, raf: 0 };
      hbar.addEventListener('scroll', () => rows.style.setProperty('--sx', `${hbar.scrollLeft}px`), { passive: true });
      // A sideways wheel or trackpad swipe over the code moves the bar (the scroller has no sideways range).
      scroller.addEventListener('wheel', (e) => {
        const dx = e.deltaX || (e.shiftKey ? e.deltaY : 0);
        if (dx && Math.abs(dx) >= Math.abs(e.shiftKey ? 0 : e.deltaY)) hbar.scrollLeft += dx;
      }, { passive: true });
      scroller.addEventListener('scroll', () => this._schedule(side), { passive: true });
      scroller.addEventListener('keydown', (e) => this._key(side, e));
      scroller.addEventListener('blur', () => { this._tip.hidden = true; this._schedule(side, true); });
      this._cols.append(col);
    }
    this._tip = el('div', { class: 'tip', hidden: true, role: 'tooltip' });
    // What the keyboard cursor is on, for screen readers (the tooltip is for the eyes).
    this._live = el('div', { class: 'sr', 'aria-live': 'polite' });
    this._cursor = null; // { side, line } moved with the arrow keys
    root.append(this._stat, this._partial, this._big, this._legend, this._status, this._cols, this._tip, this._live);
    this._cols.addEventListener('mousemove', (e) => this._hover(e));
    this._cols.addEventListener('mouseleave', () => { this._tip.hidden = true; });
    this._cols.addEventListener('click', (e) => this._click(e));
    this._ro = typeof ResizeObserver !== 'undefined'
      ? new ResizeObserver(() => { for (const s of ['left', 'right']) this._schedule(s, true); }) : null;
  }

  connectedCallback() {
    this._applyHeight();
    this._ro?.observe(this);
    for (const s of ['left', 'right']) this._schedule(s, true);
  }

  disconnectedCallback() { this._ro?.disconnect(); }

  attributeChangedCallback(name) {
    if (name === 'height') { this._applyHeight(); return; }
    const l = this.getAttribute('src-left');
    const r = this.getAttribute('src-right');
    const gen = ++this._gen;
    this._setStatus('loading…');
    Promise.all([l ? fetchText(l) : null, r ? fetchText(r) : null]).then(([lt, rt]) => {
      if (gen !== this._gen) return;
      this._left = lt;
      this._right = rt;
      this._compute();
    }, (e) => this._fail(e));
  }

  _applyHeight() {
    const h = this.getAttribute('height');
    for (const s of ['left', 'right']) this._col[s].scroller.style.setProperty('--h', h || '28rem');
  }

  get left() { return this._left; }
  set left(v) { this._left = v == null ? null : String(v); this._queue(); }
  get right() { return this._right; }
  set right(v) { this._right = v == null ? null : String(v); this._queue(); }

  /** The backend of the decided side ('cpu', 'gpu', 'tpu' or null): names the default memory. */
  _backend() {
    if (this._summary && this._summary.backend === undefined) this._summary.backend = backendOf(this._sides.right?.text ?? '');
    return this._summary?.backend ?? null;
  }

  /** The x-ray summary from the core ({ lines_in, lines_out, fusion_ops, carry, big, stat }). */
  get summary() { return this._summary; }

  /**
   * Results instead of texts: { xray, left, right } (an API xray() result and the two texts),
   * or the analysis worker's compact form { summary, left: side, right: side } (sides hold text).
   */
  get data() { return this._data ?? null; }
  set data(d) {
    this._gen++;
    this._data = d;
    if (!d) { this._show(null); return; }
    if (d.xray) {
      this._left = d.left ?? null;
      this._right = d.right ?? null;
      this._show({
        summary: d.xray.summary,
        pair: d.xray.pair,
        left: d.left != null ? sideFromApi(d.xray.left, d.left) : null,
        right: d.right != null ? sideFromApi(d.xray.right, d.right) : null,
      });
    } else {
      this._left = d.left?.text ?? null;
      this._right = d.right?.text ?? null;
      this._show(d);
    }
  }

  /** Shows progress while the caller computes (the notebook drives the worker itself). */
  progress(p) {
    if (!p) { this._setStatus(''); return; }
    this._setStatus(p.stage || 'working…', p.total ? p.done / p.total : undefined);
  }

  _queue() {
    if (this._queued) return;
    this._queued = true;
    queueMicrotask(() => { this._queued = false; this._compute(); });
  }

  _compute() {
    const gen = ++this._gen;
    this._data = null;
    if (this._left == null && this._right == null) { this._show(null); return; }
    this._setStatus('analysing…');
    const ref = (t) => (t == null ? null : { text: t });
    engine.xray({ left: ref(this._left), right: ref(this._right) }, (p) => {
      if (gen === this._gen) this.progress(p);
    }).then((out) => {
      if (gen !== this._gen) return;
      if (out.left && out.left.text == null) out.left.text = this._left;
      if (out.right && out.right.text == null) out.right.text = this._right;
      this._show(out);
    }, (e) => { if (gen === this._gen) this._fail(e); });
  }

  _fail(e) {
    this._setStatus(`x-ray failed: ${e.message}${errorWhere(e)}`, undefined, true);
    this.dispatchEvent(new CustomEvent('xray-error', { detail: { error: e }, bubbles: true, composed: true }));
  }

  _setStatus(text, fraction, isError = false) {
    this._status.className = isError ? 'status err' : 'status';
    this._status.replaceChildren(text);
    if (!isError && text) {
      const p = el('progress', { max: '1' });
      if (fraction !== undefined) p.value = fraction;
      this._status.append(p);
    }
  }

  _show(out) {
    this._sides = { left: out?.left ?? null, right: out?.right ?? null };
    this._summary = out?.summary ?? null;
    this._stat.textContent = this._summary?.stat ?? '';
    const big = this._summary?.big;
    const part = this._summary?.partial || {};
    const cut = [['left', part.left], ['right', part.right]].filter(([, p]) => p)
      .map(([side, p]) => `${side === 'left' ? 'StableHLO' : 'HLO'} side: ${partialWords(p)}`);
    // Two texts that say they are different programs (the core's pair evidence): say so before
    // anything is compared.
    if (out?.pair?.same_program === false) cut.unshift(`These look like two different programs (${out.pair.evidence.join('; ')}): the x-ray pairs their lines only as text.`);
    this._partial.textContent = cut.join(' · ');
    this._partial.hidden = !cut.length;
    this._big.textContent = big
      ? `big intermediate: ${big.type} (${big.bytes.toLocaleString('en-US')} bytes), in ${memorySpaceWords(big.memory_space, this._backend())}`
      : (out ? (this._summary?.explanation && (part.right || (this._summary.stage && this._summary.stage !== 'after_optimizations' && this._summary.stage !== 'pass_step'))
        ? this._summary.explanation : 'no big intermediate crosses a kernel boundary') : '');
    this._setStatus('');
    const both = this._sides.left && this._sides.right;
    this._cols.classList.toggle('one', !both);
    for (const side of ['left', 'right']) {
      const c = this._col[side];
      const s = this._sides[side];
      c.col.hidden = !s;
      c.first = c.last = -1;
      if (!s) { c.rows.replaceChildren(); c.pool = []; continue; }
      c.count.textContent = `${s.n.toLocaleString('en-US')} lines`;
      c.spacer.style.height = `${Math.min(s.n * ROW, MAX_PX)}px`;
      c.wide.style.width = `calc(${Math.min(s.maxLen, MAX_CHARS + 24)}ch + 9em)`;
      c.hbar.scrollLeft = 0;
      c.rows.style.setProperty('--sx', '0px');
      // A dump that starts with frame tables opens on its first computation (the core says where).
      const at = this._summary?.open_at?.[side] ?? 1;
      c.scroller.scrollTop = at > 1 ? ((at - 1) * ROW) / this._scale(side) : 0;
      this._schedule(side, true);
    }
    if (out) {
      // Render synchronously once so that the first paint already shows lines.
      for (const side of ['left', 'right']) if (this._sides[side]) this._render(side);
      this.dispatchEvent(new CustomEvent('xray-ready', { detail: { summary: this._summary }, bubbles: true, composed: true }));
    }
  }

  _schedule(side, force = false) {
    const c = this._col[side];
    if (force) c.first = c.last = -1;
    if (c.raf) return;
    c.raf = requestAnimationFrame(() => { c.raf = 0; this._render(side); });
  }

  _render(side) {
    const c = this._col[side];
    const s = this._sides[side];
    if (!s) return;
    const top = c.scroller.scrollTop;
    const h = c.scroller.clientHeight || 480;
    // Past MAX_PX of rows the scroll range is compressed: `virtual` is where the rows would be.
    const virtual = top * this._scale(side);
    const first = Math.max(0, Math.floor(virtual / ROW) - OVERSCAN);
    const last = Math.min(s.n, Math.ceil((virtual + h) / ROW) + OVERSCAN);
    if (first === c.first && last === c.last && virtual === c.virtual) return;
    const prevFirst = c.first;
    c.first = first;
    c.last = last;
    c.virtual = virtual;
    const count = last - first;
    c.rows.style.transform = `translateY(${top + first * ROW - virtual}px)`;
    // A small scroll moves the rows that left the window to the other end and fills only those
    // (the others keep their text: no new text shaping); anything else redraws every row.
    const shift = first - prevFirst;
    if (prevFirst >= 0 && c.pool.length === count && shift !== 0 && Math.abs(shift) < count) {
      if (shift > 0) {
        const moved = c.pool.splice(0, shift);
        c.pool.push(...moved);
        c.rows.append(...moved);
        this._fill(side, count - shift, count);
      } else {
        const moved = c.pool.splice(count + shift, -shift);
        c.pool.unshift(...moved);
        c.rows.prepend(...moved);
        this._fill(side, 0, -shift);
      }
      return;
    }
    if (prevFirst >= 0 && c.pool.length === count && shift === 0) return;
    while (c.pool.length < count) {
      const row = el('div', { class: 'row' }, el('span', { class: 'ln' }), el('span', { class: 'ms' }), el('span', { class: 'tx' }));
      c.pool.push(row);
      c.rows.append(row);
    }
    while (c.pool.length > count) c.pool.pop().remove();
    this._fill(side, 0, count);
  }

  /** Draws pool rows [from, to) of a column for the lines they now stand for. */
  _fill(side, from, to) {
    const c = this._col[side];
    const s = this._sides[side];
    const sel = new Set(this._selected.filter((x) => x.side === side).map((x) => x.line));
    const marks = new Map(this._marks.filter((x) => x.side === side).map((x) => [x.line, x.kind]));
    for (let k = from; k < to; k++) {
      const i = c.first + k;
      const row = c.pool[k];
      const [ln, ms, tx] = row.children;
      const line = i + 1;
      let cls = `row c-${CLASSES[s.cls[i]]}`;
      if (s.carries[i] === 2) cls += ' u';
      else if (s.carries[i]) cls += ' uc';
      if (sel.has(line)) cls += ' sel';
      const mk = marks.get(line);
      if (mk) cls += ` mark-${mk}`;
      if (this._cursor && this._cursor.side === side && this._cursor.line === line && this.shadowRoot.activeElement === c.scroller) cls += ' cur';
      row.className = cls;
      row.dataset.line = line;
      ln.textContent = line;
      const m = s.ms[i];
      ms.textContent = memorySpaceLabel(m, this._backend());
      ms.className = m > 0 ? 'ms on' : 'ms';
      const a = s.starts[i];
      let b = s.starts[i + 1] - 1;
      if (b > a && s.text.charCodeAt(b - 1) === 13) b--; // CRLF text: no visible carriage return
      const len = b - a;
      if (len > MAX_CHARS) {
        tx.textContent = s.text.slice(a, a + MAX_CHARS);
        tx.append(el('span', { class: 'more', text: ` … (${(len - MAX_CHARS).toLocaleString('en-US')} more characters)` }));
      } else {
        tx.textContent = s.text.slice(a, b);
      }
    }
  }

  /** Virtual pixels per scrolled pixel (1 unless the column is taller than MAX_PX). */
  _scale(side) {
    const s = this._sides[side];
    const c = this._col[side];
    if (!s || s.n * ROW <= MAX_PX) return 1;
    const h = c.scroller.clientHeight || 480;
    return (s.n * ROW - h) / (MAX_PX - h);
  }

  _rowAt(e) {
    const row = e.target.closest?.('.row');
    if (!row) return null;
    const side = row.closest('.col')?.dataset.side;
    return side ? { side, line: Number(row.dataset.line), row } : null;
  }

  /** The hover text of a line: what it is, where its value lives, and the core's note. */
  noteFor(side, line) {
    const s = this._sides[side];
    if (!s || line < 1 || line > s.n) return '';
    const i = line - 1;
    const cls = CLASSES[s.cls[i]];
    const held = s.notes ? null : s.noteCache?.get(i);
    const note = (s.notes ? s.notes[s.noteIdx[i]] : held) || (s.notes || held === '' ? DEFAULT_NOTES[cls] : '…');
    const bits = [`line ${line}`, cls === 'plain' ? null : cls,
      s.carries[i] === 2 ? 'carries the big intermediate (counted)' : s.carries[i] ? 'has the big intermediate\'s type (context, not counted)' : null,
      s.ms[i] >= 0 ? memorySpaceWords(s.ms[i], this._backend()) : null].filter(Boolean);
    const lay = side === 'right' && s.text ? layoutNote(lineText(s, i)) : '';
    return `${bits.join(' · ')}\n${note}${lay ? `\n${lay}` : ''}`;
  }

  /** The note of a line, asking the worker when it held the notes back (big x-rays), and for the
   * layout of the line's result (the core reads layouts in the worker). */
  async noteForAsync(side, line) {
    const s = this._sides[side];
    if (!s) return '';
    if (!s.notes && s.notesRef && !s.noteCache?.has(line - 1)) {
      s.noteCache ??= new Map();
      const n = await engine.note(s.notesRef, s.noteIdx[line - 1]).catch(() => null);
      s.noteCache.set(line - 1, n ?? '');
      if (s.noteCache.size > 2000) s.noteCache.delete(s.noteCache.keys().next().value);
    }
    if (side === 'right' && s.text && line >= 1 && line <= s.n) await layoutNoteAsync(lineText(s, line - 1));
    return this.noteFor(side, line);
  }

  _hover(e) {
    const hit = this._rowAt(e);
    if (!hit) { this._tip.hidden = true; return; }
    const key = `${hit.side}:${hit.line}`;
    if (this._tip.dataset.key !== key) {
      this._tip.dataset.key = key;
      this._tip.textContent = this.noteFor(hit.side, hit.line);
      if (this._sides[hit.side]) {
        this.noteForAsync(hit.side, hit.line).then((t) => { if (this._tip.dataset.key === key) this._tip.textContent = t; });
      }
    }
    this._tip.hidden = false;
    const pad = 14;
    const w = this._tip.offsetWidth;
    const hgt = this._tip.offsetHeight;
    let x = e.clientX + pad;
    let y = e.clientY + pad;
    if (x + w > innerWidth - 4) x = Math.max(4, e.clientX - w - pad);
    if (y + hgt > innerHeight - 4) y = Math.max(4, e.clientY - hgt - pad);
    this._tip.style.left = `${x}px`;
    this._tip.style.top = `${y}px`;
  }

  /** Keyboard: arrows, Page Up/Down, Home/End move a cursor line; Enter or Space clicks it. */
  _key(side, e) {
    const s = this._sides[side];
    if (!s || !s.n) return;
    const c = this._col[side];
    const page = Math.max(1, Math.floor(c.scroller.clientHeight / ROW) - 1);
    const at = this._cursor?.side === side ? this._cursor.line : Math.min(s.n, c.first + OVERSCAN + 1);
    const moves = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 1, End: s.n };
    if (e.key in moves) {
      e.preventDefault();
      const line = Math.min(s.n, Math.max(1, moves[e.key]));
      this._cursor = { side, line };
      const y = (line - 1) * ROW / this._scale(side);
      const top = c.scroller.scrollTop;
      if (y < top || y + ROW > top + c.scroller.clientHeight) c.scroller.scrollTop = y < top ? y : y + ROW - c.scroller.clientHeight;
      this._render(side);
      this._schedule(side, true);
      this._showTipFor(side, line);
    } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      c.hbar.scrollLeft += e.key === 'ArrowLeft' ? -40 : 40;
    } else if ((e.key === 'Enter' || e.key === ' ') && this._cursor?.side === side) {
      e.preventDefault();
      this._activate(side, this._cursor.line);
    } else if (e.key === 'Escape') {
      this._tip.hidden = true;
    }
  }

  _showTipFor(side, line) {
    const key = `${side}:${line}`;
    this._tip.dataset.key = key;
    this._tip.textContent = this.noteFor(side, line);
    this._live.textContent = `${side === 'left' ? 'received' : 'decided'}, ${this._tip.textContent}`;
    const s = this._sides[side];
    if (s && !s.notes) {
      this.noteForAsync(side, line).then((t) => {
        if (this._tip.dataset.key === key) { this._tip.textContent = t; this._live.textContent = t; }
      });
    }
    requestAnimationFrame(() => {
      const row = [...this._col[side].rows.children].find((r) => Number(r.dataset.line) === line);
      if (!row || this._tip.dataset.key !== key) return;
      const r = row.getBoundingClientRect();
      this._tip.hidden = false;
      const hgt = this._tip.offsetHeight;
      this._tip.style.left = `${Math.max(4, Math.min(r.left + 60, innerWidth - this._tip.offsetWidth - 4))}px`;
      this._tip.style.top = `${r.bottom + hgt + 6 > innerHeight ? Math.max(4, r.top - hgt - 4) : r.bottom + 4}px`;
    });
  }

  _click(e) {
    const hit = this._rowAt(e);
    if (!hit) return;
    this._activate(hit.side, hit.line);
  }

  _activate(side, line) {
    const hit = { side, line };
    if (this.hasAttribute('selectable')) {
      const k = this._selected.findIndex((x) => x.side === hit.side && x.line === hit.line);
      if (k >= 0) this._selected.splice(k, 1);
      else this._selected.push({ side: hit.side, line: hit.line });
      this._schedule(hit.side, true);
    }
    this.dispatchEvent(new CustomEvent('line-click', { detail: { side: hit.side, line: hit.line }, bubbles: true, composed: true }));
  }

  get selectedLines() { return this._selected.map((x) => ({ ...x })); }
  set selectedLines(v) {
    this._selected = (v || []).map((x) => ({ side: x.side, line: Number(x.line) }));
    for (const s of ['left', 'right']) this._schedule(s, true);
  }
  clearSelection() { this.selectedLines = []; }

  get marks() { return this._marks.map((x) => ({ ...x })); }
  set marks(v) {
    this._marks = (v || []).map((x) => ({ side: x.side, line: Number(x.line), kind: x.kind || 'target' }));
    for (const s of ['left', 'right']) this._schedule(s, true);
  }

  /** Scrolls a column so that `line` (1-based) sits near the top third. */
  scrollToLine(side, line) {
    const c = this._col[side];
    if (!c || !this._sides[side]) return;
    c.scroller.scrollTop = Math.max(0, ((line - 1) * ROW - c.scroller.clientHeight / 3) / this._scale(side));
    this._schedule(side, true);
  }

  /** The scrolling element of a column (tests and pages that sync scrolling use it). */
  scroller(side) { return this._col[side]?.scroller ?? null; }
}

defineOnce('xla-xray', XlaXray);
export { XlaXray };
