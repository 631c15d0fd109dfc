// <xla-timeline>: where each run of a compiled program spent its device time, from a profile's
// timeline (`parseProfile(bytes).timeline()`, `parseProfiles(files).timeline()`,
// `hloscope timeline --json`). Everything it says is the core's: the view shows the JSON.
//
//   - a program selector ("all programs" has a program column; the page opens on the view the
//     core names, `open`: all programs when there are several) and the program's envelope;
//   - with several devices, a device selector and the core's sentence on how even they were;
//     a device selected shows its runs, busy, idle and collective time and its ops' figures;
//   - the picture of one run: a time axis, one track per device line, each event a box coloured
//     by its op's kind, async transfers as spans above the compute they hide behind (the part
//     the core spent blocked in the -done drawn apart); a click on a box opens its op;
//   - one row per op: name, a bar proportional to its time per run, µs per run, a kind tag and
//     ×count; sortable by name, time and count; an explanation on hover; the device time no HLO
//     op accounts for is a row of its own;
//   - a click opens the op: its line from `el.hloFor(row)` (the notebook passes the line of a
//     dump cell of the same module), else the row's dump line, else the instruction the profile
//     itself carries (its shape and memory spaces in words, a fusion's body); the kernels it
//     launched;
//   - the async pairs, the hosts of a multi-process job, the steps, and the reading sentence.
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
  unattributed: 'device time no HLO op accounts for (kernels the profile gives no hlo_op)',
};
const BY_WORDS = {
  program: 'traced from a line of the program',
  library: 'a library kernel XLA called (BLAS, DNN)',
  compiler: 'the compiler substituted it: no line of the program asked for it',
  unknown: 'the profile does not say who wrote it',
};
const SVG = 'http://www.w3.org/2000/svg';

const css = theme + `
  :host { display: block; font-size: 13px; }
  .bar-head { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: baseline; margin: 0 0 .5rem; }
  .bar-head label { display: inline-flex; gap: .3rem; align-items: baseline; min-width: 0; max-width: 100%; }
  .bar-head select { min-width: 0; max-width: 100%; }
  .env, .devfacts { font-family: var(--mono); color: var(--ink); }
  .devsentence, .devfacts { margin: .2rem 0; font-size: 12px; }
  .reading { margin: .5rem 0; }
  table { border-collapse: collapse; width: 100%; }
  th { text-align: left; font-weight: 600; color: var(--dim); font-size: 12px; }
  th button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
  th button[aria-sort]::after { content: attr(data-arrow); }
  td { padding: .15rem .4rem .15rem 0; vertical-align: middle; }
  tr.op { cursor: pointer; }
  tr.op:hover td, tr.op:focus-within td { background: var(--copper-bg); }
  td.name button { font-family: var(--mono); font-size: 12.5px; background: none; border: 0; padding: 0; cursor: pointer; text-align: left; color: var(--ink); overflow-wrap: break-word; }
  td.prog { font-family: var(--mono); font-size: 12px; color: var(--dim); overflow-wrap: anywhere; }
  td.barcell { width: 30%; }
  .bar { height: .7rem; background: var(--copper); border-radius: 2px; min-width: 1px; }
  td.us, td.count { font-family: var(--mono); white-space: nowrap; text-align: right; }
  .tag { font-size: 11px; border: 1px solid var(--line); border-radius: 3px; padding: 0 .3rem; white-space: nowrap; }
  .tag.compiler { border-color: var(--copper); color: var(--copper); }
  .tag.library { border-color: var(--accent); color: var(--accent); }
  tr.detail td { padding: .3rem 0 .6rem 1rem; }
  pre.hlo, pre.body { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; margin: .2rem 0; background: var(--paper); border: 1px solid var(--line); padding: .3rem .5rem; }
  ul.async, ul.spaces, ul.kernels, ul.steps { margin: .4rem 0; padding-left: 1.1rem; }
  ul.spaces li, ul.kernels li { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }
  table.hosts td { font-family: var(--mono); font-size: 12px; }
  .status { font-size: 12px; color: var(--dim); }
  figure.run { margin: .4rem 0 .8rem; }
  figure.run figcaption { font-size: 12px; color: var(--dim); }
  svg.run { width: 100%; height: auto; display: block; background: var(--paper); border: 1px solid var(--line); }
  svg.run text { font-family: var(--mono); font-size: 9px; fill: var(--dim); }
  svg.run .window { fill: var(--line); opacity: .35; }
  svg.run .box { cursor: pointer; stroke: var(--paper); stroke-width: .3; }
  svg.run .box:hover, svg.run .span:hover { opacity: .7; }
  svg.run .k-fusion { fill: var(--copper); }
  svg.run .k-custom { fill: var(--accent); }
  svg.run .k-copy { fill: #7a8c99; }
  svg.run .k-collective { fill: #8b5fa8; }
  svg.run .k-other, svg.run .k-unattributed, svg.run .k-none { fill: #9a9a8a; }
  svg.run .span { cursor: pointer; }
  svg.run .hidden-part { fill: #7a8c99; opacity: .35; }
  svg.run .exposed-part { fill: #c0392b; }
  svg.run .tick { stroke: var(--line); stroke-width: .5; }
`;

function us(ps) {
  const v = (ps || 0) / 1e6;
  return v >= 100 ? formatInt(Math.round(v)) : v >= 1 ? v.toFixed(1) : v.toFixed(3);
}

/** A time with its unit, for the picture's axis and tooltips. */
function time(ps) {
  const v = ps || 0;
  if (v >= 1e12) return `${(v / 1e12).toFixed(3)} s`;
  if (v >= 1e9) return `${(v / 1e9).toFixed(v >= 1e10 ? 1 : 2)} ms`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(v >= 1e7 ? 1 : 2)} µs`;
  return `${(v / 1e3).toFixed(1)} ns`;
}

/** A bar of `pct` percent: the width set through the CSSOM (a strict CSP blocks style attributes). */
function bar(pct) {
  const b = el('div', { class: 'bar' });
  b.style.width = `${pct.toFixed(2)}%`;
  return b;
}

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c) e.append(c);
  return e;
}

function programKey(p) { return p.program_id ?? `name:${p.name ?? ''}`; }
function rowProgramKey(r) { return r.program_id ?? `name:${r.module ?? ''}`; }
function rowId(r) { return `${rowProgramKey(r)}|${r.kind}|${r.name}`; }

/** Words for a row: what it is, who wrote it, its share. */
export function explainRow(r, fig = r) {
  const parts = [`${r.name}: ${KIND_WORDS[r.kind] || r.kind}`, BY_WORDS[r.written_by] || r.written_by];
  if (r.kind === 'unattributed') parts.push(`${time(r.total_ps)} over ${formatInt(r.occurrences)} launches`);
  else parts.push(`${us(fig.per_run_ps)} µs per run over ${formatInt(fig.occurrences)} occurrence${fig.occurrences === 1 ? '' : 's'}, ${(100 * (fig.share || 0)).toFixed(1)}% of the program's time`);
  if (r.device_count > 1 && fig === r) parts.push(`summed over ${r.device_count} devices`);
  if (r.per_run_note) parts.push(r.per_run_note);
  if (r.target) parts.push(`custom-call target ${r.target}`);
  if (r.op_name) parts.push(`from ${r.op_name}${r.source ? ` (${r.source})` : ''}`);
  return parts.join('; ');
}

/** Table rows drawn in one task, and the events of a picture drawn with the table's first rows. */
const ROWS_NOW = 25;
/** localeCompare's order, from one collator (localeCompare makes one a call: 14 ms a sort of 400 rows). */
const COLLATE = new Intl.Collator();
const PIC_NOW = 200;

export class XlaTimeline extends HTMLElement {
  /** bumped by every drawing: a later task of an older one does nothing */
  _gen = 0;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root, css);
    this._head = el('div', { class: 'bar-head' });
    this._devs = el('div', { class: 'devices', part: 'devices' });
    this._reading = el('p', { class: 'reading', part: 'reading' });
    this._picture = el('div', { class: 'picture', part: 'picture' });
    this._table = el('table', { part: 'table' });
    this._async = el('ul', { class: 'async' });
    this._hosts = el('div', { class: 'hosts-box' });
    this._steps = el('div', { class: 'steps-box' });
    this._status = el('div', { class: 'status', role: 'status' });
    root.append(this._status, this._head, this._devs, this._reading, this._picture, this._table, this._async, this._hosts, this._steps);
    this._sort = { key: 'time', dir: -1 };
    this._program = null;
    this._device = null;
    this._open = null;
    /** (row) => { line, text, source } | null: the notebook's dump-cell lookup. */
    this.hloFor = null;
  }

  get data() { return this._data ?? null; }
  set data(d) {
    this._data = d || null;
    this._program = null;
    this._device = null;
    this._open = null;
    this._render();
  }
  get timeline() { return this._data?.timeline ?? null; }
  set timeline(t) { this.data = t ? { timeline: t } : null; }

  /** Selects a program by id (or name when it has none); '*' or null for all. */
  selectProgram(key) {
    this._program = key ?? '*';
    this._device = null;
    this._open = null;
    this._render();
  }

  /** Selects one device of the program (its plane), or null for all of them. */
  selectDevice(plane) {
    this._device = plane || null;
    this._render();
  }

  /** Opens a row (as a click on it, or on one of its boxes in the picture, does). */
  openRow(r) {
    if (!r) return;
    this._open = rowId(r);
    this._render();
    this._emit(r);
    this.shadowRoot.querySelector('tr.detail')?.scrollIntoView?.({ block: 'nearest' });
  }

  _currentProgram() {
    const progs = this._data?.timeline?.programs || [];
    return progs.find((p) => programKey(p) === this._program) || null;
  }

  /** A row's figures for the device selected (its own when none is, or it ran on one). */
  _fig(r) {
    if (!this._device || !(r.device_count > 1)) return r;
    return r.devices?.find((d) => d.plane === this._device) || null;
  }

  _rows() {
    const t = this._data.timeline;
    const all = this._program === '*';
    let rows = t.rows.filter((r) => all || rowProgramKey(r) === this._program);
    if (!all && this._device) rows = rows.filter((r) => this._fig(r));
    const { key, dir } = this._sort;
    const val = (r) => (key === 'name' ? r.name : key === 'count' ? this._fig(r).occurrences : this._fig(r).per_run_ps);
    // the device time no HLO op accounts for has no run: it stays below the ops
    return rows.slice().sort((a, b) => {
      const ua = a.kind === 'unattributed', ub = b.kind === 'unattributed';
      if (ua !== ub) return ua ? 1 : -1;
      const x = val(a), y = val(b);
      const c = typeof x === 'string' ? COLLATE.compare(x, y) : x - y;
      return c * dir || COLLATE.compare(a.name, b.name);
    });
  }

  _render() {
    const gen = ++this._gen;
    const t = this._data?.timeline;
    for (const e of [this._head, this._devs, this._picture, this._table, this._async, this._hosts, this._steps]) e.replaceChildren();
    this._reading.textContent = '';
    if (!t) { this._status.textContent = 'no profile'; return; }
    this._status.textContent = this._data.name ? `timeline of ${this._data.name}` : '';
    const progs = t.programs || [];
    // the view the core names: the one program there is, else all of them
    if (this._program == null) this._program = t.open ? programKey(t.open) : progs.length === 1 ? programKey(progs[0]) : '*';
    const sel = el('select', { 'aria-label': 'program', class: 'program-select', onchange: (e) => this.selectProgram(e.target.value) });
    sel.append(el('option', { value: '*', text: `all programs (${progs.length})` }));
    for (const p of progs) {
      const o = el('option', { value: programKey(p), text: `${p.name ?? '(unnamed)'}${p.program_id != null ? ` (id ${p.program_id})` : ''} · ${formatInt(p.runs)} run${p.runs === 1 ? '' : 's'}${p.device_count > 1 ? ` on ${p.device_count} devices` : ''}` });
      if (programKey(p) === this._program) o.selected = true;
      sel.append(o);
    }
    if (this._program === '*') sel.value = '*';
    const cur = this._currentProgram();
    const env = el('span', { class: 'env' }, cur ? `envelope ${us(cur.per_run_ps)} µs per run (${formatInt(cur.runs)} runs${cur.device_count > 1 ? `, the mean of ${cur.device_count} devices` : ''})` : '');
    this._head.append(el('label', {}, 'program ', sel), env);
    if (cur && cur.device_count > 1) this._renderDevices(cur);
    this._reading.textContent = t.reading || '';
    // A big picture (over PIC_NOW events) is drawn after the table's first rows, PIC_NOW events
    // a task: no task of the page's takes long (a 1,500-event run drew in 30-40 ms, and laid out
    // with the table in 80-140 more, in one task).
    const picProg = cur ?? progs.find((p) => p.picture && progs.every((q) => (q.busy_ps ?? 0) <= (p.busy_ps ?? 0)));
    if ((picProg?.picture?.events ?? 0) > PIC_NOW) this._later(gen, () => this._renderPicture(t, picProg, gen));
    else this._renderPicture(t, picProg, gen);
    this._renderTable(t, gen);
    for (const a of t.async || []) {
      if (this._program !== '*' && (a.program_id ?? `name:${a.module ?? ''}`) !== this._program) continue;
      this._async.append(el('li', { text: `${a.start} → ${a.done}: ${a.sentence}` }));
    }
    this._renderHosts(t);
    this._renderSteps(t);
  }

  _renderDevices(cur) {
    const dsel = el('select', { 'aria-label': 'device', class: 'device-select', onchange: (e) => this.selectDevice(e.target.value) });
    dsel.append(el('option', { value: '', text: `all ${cur.device_count} devices` }));
    for (const d of cur.devices) {
      const o = el('option', { value: d.plane, text: `${d.plane}${d.file ? ` (${d.file})` : ''}` });
      if (d.plane === this._device) o.selected = true;
      dsel.append(o);
    }
    this._head.append(el('label', {}, 'device ', dsel));
    const d = this._device && cur.devices.find((x) => x.plane === this._device);
    if (d) {
      this._devs.append(el('p', { class: 'devfacts', text: `${d.plane}${d.host ? ` on ${d.host}` : ''}: ${formatInt(d.runs)} runs, ${us(d.per_run_ps)} µs per run; per run busy ${us(d.busy_ps)} µs (in collectives ${us(d.collective_ps)} µs), idle ${us(d.idle_ps)} µs; hidden and exposed transfer time ${d.async}` }));
    } else if (cur.sentence) {
      this._devs.append(el('p', { class: 'devsentence', text: `${cur.name ?? 'this program'} ran ${cur.sentence}` }));
    }
  }

  /** The picture of one run of `prog` (every event the core kept in that run's window). */
  _renderPicture(t, prog, gen = this._gen) {
    const pic = prog?.picture;
    if (!pic || !pic.tracks?.length) return;
    const rows = t.rows;
    // the device's transfer tracks sit right above its ops' tracks
    const order = [];
    const planes = [...new Set(pic.tracks.map((k) => k.plane))];
    for (const pl of planes) {
      for (const k of pic.tracks) if (k.plane === pl && k.transfers) order.push(k);
      for (const k of pic.tracks) if (k.plane === pl && !k.transfers) order.push(k);
    }
    const W = 1000, L = 170, R = 8, H = 16, gap = 5, top = 18;
    const span = Math.max(1, pic.duration_ps);
    const x = (ps) => L + (ps / span) * (W - L - R);
    // transfers overlap one another: each goes in the first lane free at its start
    const lanesOf = (k) => {
      if (!k.transfers) return { n: 1, of: null };
      const ends = [];
      const of = k.events.map(([st, du]) => {
        let l = ends.findIndex((e) => e <= st);
        if (l < 0) { l = ends.length; ends.push(0); }
        ends[l] = st + du;
        return l;
      });
      return { n: Math.max(1, ends.length), of };
    };
    const lanes = order.map(lanesOf);
    const laneH = 8;
    const trackH = (i) => (order[i].transfers ? lanes[i].n * laneH : H);
    const ys = [];
    let yy = top;
    order.forEach((k, i) => { ys.push(yy); yy += trackH(i) + gap; });
    const height = yy + 4;
    const s = svg('svg', { class: 'run', viewBox: `0 0 ${W} ${height}`, role: 'img', 'aria-label': `one run of ${prog.name}`, dataset: { events: pic.events } });
    // the time axis: about eight ticks
    const step = niceStep(span / 8);
    for (let v = 0; v <= span; v += step) {
      s.append(svg('line', { class: 'tick', x1: x(v), x2: x(v), y1: top - 4, y2: height }), svg('text', { x: x(v) + 2, y: 10, text: time(v) }));
    }
    const draws = []; // one per event: drawn PIC_NOW a task (see _renderPicture's caller)
    order.forEach((k, i) => {
      const y = ys[i];
      const g = svg('g', { class: 'track', dataset: { plane: k.plane, line: k.line, transfers: String(k.transfers), count: String(k.events.length) } });
      g.append(svg('text', { x: 2, y: y + Math.min(trackH(i), H) - 4, text: `${k.plane.replace('/device:', '')} ${k.line}`.slice(0, 34) }));
      const w = pic.windows.find((w) => w.plane === k.plane);
      if (w) g.append(svg('rect', { class: 'window', x: x(w.start_ps), y, width: Math.max(0.5, x(w.end_ps) - x(w.start_ps)), height: trackH(i) }));
      k.events.forEach((e, n) => draws.push(() => {
        if (!k.transfers) {
          const [st, du, ri, depth] = e;
          const r = rows[ri];
          const hh = depth ? H / 2 : H;
          g.append(svg('rect', {
            class: `box ev k-${r?.kind ?? 'none'}`, x: x(st), y: y + (depth ? H / 2 : 0), width: Math.max(0.6, x(st + du) - x(st)), height: hh,
            dataset: { row: String(ri) }, onclick: () => this.openRow(r),
          }, svg('title', { text: `${r?.name ?? '?'}: ${time(du)} at ${time(st)}` })));
        } else {
          const [st, du, sr, dr, xs, xd] = e;
          const rs = rows[sr], rd = rows[dr];
          const ly = y + lanes[i].of[n] * laneH + 1;
          const tr = svg('g', { class: 'span ev', dataset: { row: String(sr), done: String(dr) }, onclick: () => this.openRow(rd || rs) },
            svg('title', { text: `${rs?.name ?? 'transfer'} → ${rd?.name ?? '?'}: ${time(du)} in flight, ${time(xd)} exposed (the core blocked in the -done), ${time(Math.max(0, du - xd))} hidden` }),
            svg('rect', { class: 'hidden-part', x: x(st), y: ly, width: Math.max(0.6, x(st + du) - x(st)), height: laneH - 2 }));
          if (xd > 0) tr.append(svg('rect', { class: 'exposed-part', x: x(xs), y: ly, width: Math.max(0.6, x(xs + xd) - x(xs)), height: laneH - 2 }));
          g.append(tr);
        }
      }));
      s.append(g);
    });
    const drawFrom = (from) => {
      for (let k = from; k < Math.min(draws.length, from + PIC_NOW); k++) draws[k]();
      if (from + PIC_NOW < draws.length) this._later(gen, () => drawFrom(from + PIC_NOW));
    };
    drawFrom(0);
    const cap = `one run of ${prog.name ?? 'the program'}: ${pic.why}; ${formatInt(pic.events)} events${pic.left_out ? ` (${formatInt(pic.left_out)} more left out)` : ''}; boxes are coloured by kind (fusion, custom call, copy, collective); transfers are drawn above their device's ops, the part the core waited in the -done in red`;
    this._picture.append(el('figure', { class: 'run' }, s, el('figcaption', { text: cap })));
  }

  /** Runs fn in a later task unless the view was drawn again in between. */
  _later(gen, fn) {
    setTimeout(() => { if (gen === this._gen) fn(); }, 0);
  }

  _renderTable(t, gen) {
    const all = this._program === '*';
    const sortBtn = (key, label) => {
      const b = el('button', { type: 'button', onclick: () => { this._sort = { key, dir: this._sort.key === key ? -this._sort.dir : key === 'name' ? 1 : -1 }; this._render(); } }, label);
      if (this._sort.key === key) { b.setAttribute('aria-sort', this._sort.dir > 0 ? 'ascending' : 'descending'); b.dataset.arrow = this._sort.dir > 0 ? ' ▲' : ' ▼'; }
      return b;
    };
    const cols = all ? 6 : 5;
    this._table.append(el('thead', {}, el('tr', {},
      el('th', {}, sortBtn('name', 'op')), all ? el('th', {}, 'program') : null, el('th', {}, 'time per run'), el('th', {}, sortBtn('time', 'µs per run')),
      el('th', {}, 'kind'), el('th', {}, sortBtn('count', 'count')))));
    const rows = this._rows();
    const max = rows.reduce((m, r) => Math.max(m, this._fig(r).per_run_ps || 0), 0) || 1;
    const body = el('tbody');
    const addRow = (r) => {
      const id = rowId(r);
      const f = this._fig(r);
      const un = r.kind === 'unattributed';
      const tr = el('tr', { class: 'op', title: explainRow(r, f), dataset: { op: r.name, kind: r.kind } },
        el('td', { class: 'name' }, el('button', { type: 'button', 'aria-expanded': String(this._open === id), onclick: () => { if (this._open === id) { this._open = null; this._render(); } else this.openRow(r); } }, breakable(r.name))),
        all ? el('td', { class: 'prog', text: un ? '(no program)' : `${r.module ?? '?'}${r.program_id != null ? ` (${r.program_id})` : ''}` }) : null,
        el('td', { class: 'barcell' }, bar(100 * (f.per_run_ps || 0) / max)),
        el('td', { class: 'us' }, un ? `${us(r.total_ps)} in all` : us(f.per_run_ps)),
        el('td', {}, el('span', { class: `tag ${r.written_by}`, text: r.kind }), r.written_by === 'compiler' || r.written_by === 'library' ? el('span', { class: `tag ${r.written_by}`, text: r.written_by }) : null),
        el('td', { class: 'count' }, `×${formatInt(f.occurrences)}`));
      body.append(tr);
      if (this._open === id) body.append(el('tr', { class: 'detail' }, el('td', { colspan: String(cols) }, this._detail(r, f))));
    };
    // ROWS_NOW rows (and the open one) now, the rest ROWS_NOW a task: a profile of 400 ops drew
    // its table in 70 ms and laid it out in 80 more, in one task (a 500 MB profile's page, busy
    // with its worker, took 100 ms for the first 80 rows)
    const open = this._open == null ? -1 : rows.findIndex((r) => rowId(r) === this._open);
    const now = Math.max(ROWS_NOW, open + 1);
    rows.slice(0, now).forEach(addRow);
    const more = (from) => {
      rows.slice(from, from + ROWS_NOW).forEach(addRow);
      if (from + ROWS_NOW < rows.length) this._later(gen, () => more(from + ROWS_NOW));
    };
    if (now < rows.length) this._later(gen, () => more(now));
    if (!rows.length) body.append(el('tr', {}, el('td', { colspan: String(cols), class: 'status', text: 'no ops counted for this program' })));
    this._table.append(body);
  }

  _renderHosts(t) {
    const hosts = t.hosts || [];
    if (hosts.length < 2) return;
    const tb = el('tbody');
    for (const h of hosts) {
      tb.append(el('tr', { dataset: { file: h.file ?? '', slowest: String(!!h.slowest) } },
        el('td', { text: h.file ?? '?' }), el('td', { text: h.host ?? '?' }), el('td', { text: h.pid ?? '-' }),
        el('td', { text: `${us(h.compute_ps)} µs` }), el('td', { text: `${us(h.waited_ps)} µs` }), el('td', { text: h.slowest ? 'slowest' : '' })));
    }
    this._hosts.append(el('p', { class: 'status', text: 'hosts (one file each), per run: compute before the collectives, and time waited in them for the others' }),
      el('table', { class: 'hosts' }, el('thead', {}, el('tr', {}, ['file', 'host', 'pid', 'compute', 'waited', ''].map((h) => el('th', { text: h })))), tb));
  }

  _renderSteps(t) {
    const steps = t.steps || [];
    if (!steps.length) return;
    const ul = el('ul', { class: 'steps' });
    for (const s of steps) ul.append(el('li', { text: `step ${s.name ?? '?'} on ${s.plane}: ${time(s.duration_ps)}, ${(100 * s.share).toFixed(1)}% of it in HLO ops` }));
    this._steps.append(el('p', { class: 'status', text: 'steps (the profile\'s Steps line)' }), ul);
  }

  _detail(r, f) {
    const from = typeof this.hloFor === 'function' && r.kind !== 'unattributed' ? this.hloFor(r) : null;
    const line = from || (r.hlo ? { line: r.hlo.line, text: r.hlo.text, source: 'the optimized HLO dump' } : null);
    const parts = [el('p', { text: explainRow(r, f) })];
    const ins = r.instruction;
    if (line) {
      parts.push(el('div', { class: 'status', text: `line ${line.line} of ${line.source || 'the dump'}` }), el('pre', { class: 'hlo', text: line.text }));
    } else if (ins) {
      parts.push(el('div', { class: 'status', text: ins.from === 'profile' ? 'the instruction, as the profile itself names the op (its XLA Ops metadata):' : 'the instruction, from the HloModuleProto the profile embeds (attributes other than kind, calls and the target are not shown):' }),
        el('pre', { class: 'hlo instruction', text: ins.text }));
    } else if (r.opcode) {
      const said = [`opcode ${r.opcode}`];
      if (r.target) said.push(`target ${r.target}`);
      if (r.op_name) said.push(`op_name ${r.op_name}`);
      if (r.source) said.push(`source ${r.source}`);
      parts.push(el('div', { class: 'status', text: 'what the HloModuleProto embedded in the profile says (no dump of this module in the notebook):' }),
        el('pre', { class: 'hlo', text: said.join('\n') }));
    } else if (r.kind !== 'unattributed') {
      parts.push(el('div', { class: 'status', text: 'no HLO for this op: the profile embeds no HloModuleProto for it; add a dump cell of the module' }));
    }
    if (ins?.memory_spaces?.length) {
      parts.push(el('div', { class: 'status', text: 'shapes and memory spaces:' }),
        el('ul', { class: 'spaces' }, ins.memory_spaces.map((m) => el('li', { text: `${m.where}: ${m.shape} (${formatInt(m.bytes)} bytes) in ${m.words}` }))));
      if (ins.result?.words) parts.push(el('div', { class: 'status layout', text: `result layout: ${ins.result.words}` }));
    }
    if (ins?.body && !line) {
      parts.push(el('div', { class: 'status', text: `the fused computation ${ins.body.computation ?? ''}, from the HloModuleProto:` }), el('pre', { class: 'body', text: ins.body.lines.join('\n') }));
    }
    if (r.kernels?.length) {
      parts.push(el('div', { class: 'status', text: r.kind === 'unattributed' ? 'kernels no HLO op accounts for:' : 'kernels it launched:' }),
        el('ul', { class: 'kernels' }, r.kernels.map((k) => el('li', { text: `${k.name}: ×${formatInt(k.occurrences)}, ${time(k.total_ps)}` }))));
    }
    return parts;
  }

  _emit(row) {
    this.dispatchEvent(new CustomEvent('xla-timeline-select', { detail: { row }, bubbles: true, composed: true }));
  }
}

/** 1, 2 or 5 times a power of ten, at least `v`. */
function niceStep(v) {
  const p = 10 ** Math.floor(Math.log10(Math.max(v, 1)));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

defineOnce('xla-timeline', XlaTimeline);
