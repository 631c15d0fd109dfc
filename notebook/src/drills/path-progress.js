// <xla-path-progress>: "the xla path · N/M", and the items that tick themselves.
//
// The path is notebook/path.json (chapters of items `{id, label, skill, goal}`), packed in at
// build time; a page may set `element.path = {...}` to show another. An item ticks itself
// when its skill's streak reaches its goal and stays ticked (the skill's best streak is at
// least the goal: a later wrong answer resets the current streak, not what was reached); the
// current streak shows beside it. It updates as soon as any streak changes, on this page or
// in another tab.
//
// Attributes: compact (only the summary line, the list folded under it), controls (export
// and import of progress as a JSON file), heading-level (2..6, default 2).

import { h, fill } from './dom.js';
import PATH from '../../path.json';
import { exportProgress, getStreak, importProgress, isSkill, storageMode, subscribe } from '../streaks.js';
import { STYLE } from './style.js';

const PATH_STYLE = `
.path { background: var(--xd-bg); color: var(--xd-ink); border: 1px solid var(--xd-rule); border-radius: 3px; padding: 0.8rem 1rem; }
.summary { margin: 0; font-size: 0.9rem; font-weight: 600; }
.summary .count { color: var(--xd-copper); }
.chapters { list-style: none; margin: 0.6rem 0 0; padding: 0; display: flex; flex-direction: column; gap: 0.6rem; }
.chapters h3, .chapters h4, .chapters h5, .chapters h6 { margin: 0 0 0.25rem; font-size: 0.75rem; font-weight: 400; letter-spacing: 0.08em; text-transform: uppercase; color: var(--xd-mute); }
.items { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.8rem; }
.item { display: flex; gap: 0.5rem; align-items: baseline; }
.mark { width: 1.1em; color: var(--xd-mute); }
.item.done .mark { color: var(--xd-pass); }
.item.done .label { color: var(--xd-pass); }
.item .k { margin-left: auto; }
details.fold summary { cursor: pointer; }
.controls { margin-top: 0.7rem; display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: center; font-size: 0.78rem; }
.controls input[type=file] { font: inherit; font-size: 0.75rem; color: var(--xd-mute); }
.status { font-size: 0.75rem; color: var(--xd-mute); margin: 0.4rem 0 0; min-height: 1em; }
`;

let uid = 0;

/** Every item of a path, flattened, each with its chapter. Invalid items are dropped. */
export function pathItems(path) {
  const out = [];
  for (const ch of path?.chapters || []) {
    for (const it of ch.items || []) {
      if (it && typeof it.id === 'string' && isSkill(it.skill) && Number.isSafeInteger(it.goal) && it.goal > 0) out.push({ ...it, chapter: ch });
    }
  }
  return out;
}

/** The ticked items: the best streak of the item's skill reached its goal. */
export function ticked(path, bestOf = (s) => getStreak(s).best) {
  return pathItems(path).filter((it) => bestOf(it.skill) >= it.goal);
}

/** The words beside an item: how far the streak is, and, once ticked, what it is now. */
export function progressWords(record, goal) {
  const { current, best } = record;
  if (best >= goal) return current >= goal ? `streak ${current} (goal ${goal})` : `reached ${goal} · streak now ${current}`;
  return `streak ${current}/${goal}${best > current ? ` · best ${best}` : ''}`;
}

export class XlaPathProgress extends HTMLElement {
  static get observedAttributes() {
    return ['compact', 'controls'];
  }

  constructor() {
    super();
    this._path = PATH;
    this._id = `xp${++uid}`;
    this._unsub = null;
  }

  get path() { return this._path; }
  set path(p) { this._path = p; if (this.shadowRoot) this._render(); }

  connectedCallback() {
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open' });
      const style = document.createElement('style');
      style.textContent = STYLE + PATH_STYLE;
      root.append(style);
      this._frame = h('nav', { class: 'path', part: 'frame', 'aria-labelledby': `${this._id}-sum` });
      root.append(this._frame);
    }
    this._render();
    this._unsub?.();
    this._unsub = subscribe(null, () => this._update());
  }

  disconnectedCallback() {
    this._unsub?.();
    this._unsub = null;
  }

  attributeChangedCallback() {
    if (this.shadowRoot) this._render();
  }

  _render() {
    const level = Math.min(6, Math.max(2, Number(this.getAttribute('heading-level')) || 2));
    const items = pathItems(this._path);
    this._summary = h('p', { class: 'summary', id: `${this._id}-sum` });
    this._rows = new Map();
    const chapters = h('ol', { class: 'chapters' }, (this._path?.chapters || []).map((ch) => h('li', { class: 'chapter', 'data-chapter': ch.id ?? '' },
      h(`h${Math.min(6, level + 1)}`, { text: ch.title ?? '' }),
      h('ul', { class: 'items' }, items.filter((it) => it.chapter === ch).map((it) => {
        const mark = h('span', { class: 'mark', 'aria-hidden': 'true' });
        const state = h('span', { class: 'visually-hidden sr' });
        const progress = h('span', { class: 'k progress' });
        const label = it.href ? h('a', { class: 'label', href: it.href, text: it.label }) : h('span', { class: 'label', text: it.label });
        const row = h('li', { class: 'item', 'data-item': it.id, 'data-skill': it.skill, 'data-goal': it.goal }, mark, state, label, progress);
        this._rows.set(it.id, { row, mark, state, progress, it });
        return row;
      })))));
    this._note = h('p', { class: 'note', hidden: true });
    this._status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
    let body;
    if (this.hasAttribute('compact')) {
      this._summary = h('summary', { class: 'summary', id: `${this._id}-sum` });
      body = h('details', { class: 'fold' }, this._summary, chapters);
    } else {
      body = [this._summary, chapters];
    }
    const parts = [body, this._note];
    if (this.hasAttribute('controls')) parts.push(this._controls(), this._status);
    fill(this._frame, parts);
    this._update();
  }

  _controls() {
    const fileId = `${this._id}-import`;
    const exportBtn = h('button', { type: 'button', class: 'export', onclick: () => this._export() }, 'export progress');
    const input = h('input', { type: 'file', id: fileId, accept: 'application/json,.json', class: 'import-file', onchange: () => this._importFile(input) });
    return h('div', { class: 'controls' }, exportBtn, h('label', { for: fileId, text: 'import progress' }), input);
  }

  _export() {
    const json = exportProgress();
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    const a = h('a', { href: url, download: 'hloscope-progress.json', hidden: true });
    this.shadowRoot.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this._status.textContent = 'progress exported as hloscope-progress.json';
    this.dispatchEvent(new CustomEvent('xla-progress-export', { bubbles: true, composed: true, detail: { json } }));
  }

  async _importFile(input) {
    const file = input.files?.[0];
    if (!file) return;
    try {
      const skills = importProgress(await file.text());
      this._status.textContent = skills.length ? `imported ${skills.join(', ')}` : 'the file holds no streaks';
    } catch (e) {
      this._status.textContent = `not imported: ${e.message}`;
    }
    input.value = '';
  }

  _update() {
    if (!this._summary) return;
    const items = pathItems(this._path);
    const cache = new Map();
    const record = (s) => { if (!cache.has(s)) cache.set(s, getStreak(s)); return cache.get(s); };
    const on = new Set(ticked(this._path, (s) => record(s).best).map((it) => it.id));
    const done = on.size;
    for (const it of items) {
      const r = this._rows.get(it.id);
      if (!r) continue;
      const rec = record(it.skill);
      const ok = on.has(it.id);
      r.row.classList.toggle('done', ok);
      r.row.dataset.done = ok ? 'true' : 'false';
      r.row.dataset.current = String(rec.current);
      r.mark.textContent = ok ? '✓' : '○';
      r.state.textContent = ok ? 'done: ' : 'to do: ';
      r.progress.textContent = progressWords(rec, it.goal);
    }
    const title = this._path?.title || 'the path';
    fill(this._summary, `${title} · `, h('span', { class: 'count', text: `${done}/${items.length}` }));
    this.dataset.done = String(done);
    this.dataset.total = String(items.length);
    if (storageMode() === 'memory') {
      this._note.hidden = false;
      this._note.textContent = 'this browser keeps no local storage for this page: progress lasts until the page closes (export it to keep it)';
    } else {
      this._note.hidden = true;
    }
  }
}

export function definePathProgress(name = 'xla-path-progress') {
  if (!customElements.get(name)) customElements.define(name, XlaPathProgress);
}
