// <xla-drill skill="...">: one element for every drill kind.
//
// The element draws the frame every drill shares (designator, title, the skill's streak,
// the verdict line that screen readers hear, the caption) and hands the body to the kind
// module named by `skill` (see registry.js). The kind asks questions and calls
// `ctx.verdict(right, words)`; the element scores it on the shared streak record, announces
// it, and every element of the same skill, on this page or another tab, shows the new streak.
//
// Attributes: skill (required), program (pin one program where the kind has several),
// heading-level (2..6, default 3), plus whatever the kind reads (src-left, src-right, ...).
//
// Events: `xla-drill-verdict` (bubbles, composed; detail {skill, right, record}) after each
// scored answer; `xla-drill-round` (detail {skill, program}) when a new round is shown.

import { h, fill } from './dom.js';
import { KIND_EVENT, loadKind } from './registry.js';
import { getStreak, recordAnswer, storageMode, subscribe } from '../streaks.js';
import { STYLE } from './style.js';

let uid = 0;

/**
 * `list` shuffled (a new array), with `last` moved to the end when it is in it, so that a
 * round rarely repeats the one before.
 */
function shuffle(list, last) {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  const k = last === undefined ? -1 : a.indexOf(last);
  if (k >= 0 && a.length > 1) a.push(a.splice(k, 1)[0]);
  return a;
}

/**
 * One tab stop for a list of `.ln` lines: arrows, Page Up / Page Down (20 lines), Home and
 * End move the focus; the line that has it keeps tabindex 0.
 */
function roving(list) {
  list.addEventListener('keydown', (e) => {
    const items = [...list.querySelectorAll('.ln')];
    const i = items.indexOf(e.target.closest('.ln'));
    if (i < 0) return;
    const last = items.length - 1;
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: last, PageDown: i + 20, PageUp: i - 20 }[e.key];
    if (to === undefined) return;
    const j = Math.max(0, Math.min(last, to));
    e.preventDefault();
    items[i].tabIndex = -1;
    items[j].tabIndex = 0;
    items[j].focus();
  });
}

/**
 * The folded "drill me on my dump" box: a textarea (or, with `accept`, a file picker that
 * also takes a drop), a button, and a line for errors. `go(text)` (or `go(file)`) runs on the
 * button (on a pick or drop); `error(words)` says why it gives no round, `error('')` clears it.
 */
function ownInput(id, { summary = 'drill me on my dump', label, placeholder = '', button = 'drill me on this dump', accept = null, go }) {
  const err = h('p', { class: 'error', role: 'alert' });
  let input;
  let parts;
  if (accept) {
    input = h('input', { id, type: 'file', accept, onchange: () => { if (input.files[0]) go(input.files[0]); } });
    parts = [input];
  } else {
    input = h('textarea', { id, spellcheck: 'false', autocomplete: 'off', placeholder });
    parts = [input, h('div', { class: 'actions' }, h('button', { type: 'button', class: 'own-go', onclick: () => go(input.value) }, button))];
  }
  const el = h('details', { class: 'own' }, h('summary', {}, summary), h('label', { for: id, text: label }), parts, err);
  if (accept) {
    el.addEventListener('dragover', (e) => { e.preventDefault(); });
    el.addEventListener('drop', (e) => {
      e.preventDefault();
      const f = e.dataTransfer?.files?.[0];
      if (f) go(f);
    });
  }
  return { el, error(words) { err.textContent = words; } };
}

export class XlaDrill extends HTMLElement {
  static get observedAttributes() {
    return ['skill'];
  }

  constructor() {
    super();
    this._id = `xd${++uid}`;
    this._unsub = null;
    this._controller = null;
    this._skill = null;
    this._mountToken = 0;
  }

  connectedCallback() {
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open' });
      const style = document.createElement('style');
      style.textContent = STYLE;
      root.append(style);
      this._frame = h('section', { class: 'drill', part: 'frame', 'aria-labelledby': `${this._id}-title` });
      root.append(this._frame);
    }
    this._mount();
  }

  disconnectedCallback() {
    this._teardown();
  }

  attributeChangedCallback(name, oldValue, value) {
    if (name === 'skill' && oldValue !== value && this.isConnected && this.shadowRoot) this._mount();
  }

  /** The skill's record as this element shows it. */
  get streak() {
    return this._skill ? getStreak(this._skill) : null;
  }

  _teardown() {
    this._unsub?.();
    this._unsub = null;
    try { this._controller?.destroy?.(); } catch { /* a kind's cleanup must not break the page */ }
    this._controller = null;
  }

  async _mount() {
    this._teardown();
    const token = ++this._mountToken;
    const skill = (this.getAttribute('skill') || '').trim();
    this._skill = null;
    const level = Math.min(6, Math.max(2, Number(this.getAttribute('heading-level')) || 3));
    const titleEl = h(`h${level}`, { class: 'title', id: `${this._id}-title` });
    const designatorEl = h('span', { class: 'designator' });
    const nameEl = h('span', { class: 'name', text: skill ? `drill: ${skill}` : 'drill' });
    titleEl.append(designatorEl, nameEl);
    this._streakEl = h('span', { class: 'streak', 'data-skill': skill });
    this._liveEl = h('p', { class: 'verdict', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this._noteEl = h('p', { class: 'note', hidden: true });
    this._body = h('div', { class: 'body' });
    this._captionEl = h('p', { class: 'caption' });
    fill(this._frame,
      h('header', { class: 'head' }, titleEl, this._streakEl),
      this._body, this._liveEl, this._noteEl, this._captionEl);

    let kind;
    try {
      kind = await loadKind(skill);
    } catch (e) {
      if (token !== this._mountToken) return;
      this._body.append(h('p', { class: 'error', text: e.message }));
      const retry = (ev) => {
        if (ev.detail?.skill !== skill) return;
        globalThis.removeEventListener(KIND_EVENT, retry);
        if (this.isConnected && token === this._mountToken) this._mount();
      };
      globalThis.addEventListener(KIND_EVENT, retry);
      this._unsub = () => globalThis.removeEventListener(KIND_EVENT, retry);
      return;
    }
    if (token !== this._mountToken) return;
    this._skill = skill;
    this.dataset.skill = skill;
    designatorEl.textContent = kind.designator ? `${kind.designator} ` : '';
    nameEl.textContent = kind.title || skill;
    // The first drill of a kind on the page answers the kind's anchor (#gym-13) unless it has an id.
    const anchor = kind.designator ? kind.designator.toLowerCase().replace(/[^a-z0-9]+/g, '-') : '';
    if (anchor && !this.id && !document.getElementById(anchor)) this.id = anchor;
    this._showStreak();
    this._showMode();
    this._unsub = subscribe(skill, (s) => {
      if (s === null) this._showMode();
      this._showStreak();
    });
    const ctx = this._context(kind);
    try {
      this._controller = (await kind.mount(ctx)) || null;
    } catch (e) {
      if (token === this._mountToken) this._body.append(h('p', { class: 'error', text: `this drill could not start: ${e.message}` }));
    }
  }

  _showStreak() {
    if (!this._skill) return;
    const r = getStreak(this._skill);
    this._streakEl.dataset.current = String(r.current);
    this._streakEl.dataset.best = String(r.best);
    this._streakEl.textContent = `streak ${r.current}`;
    this._streakEl.title = `best ${r.best} · shared by every ${this._skill} drill`;
    this._streakEl.append(h('span', { class: 'best', text: ` · best ${r.best}` }));
  }

  _showMode() {
    if (storageMode() === 'memory') {
      this._noteEl.hidden = false;
      this._noteEl.textContent = 'this browser keeps no local storage for this page: streaks last until the page closes (export them to keep them)';
    } else {
      this._noteEl.hidden = true;
    }
  }

  _context(kind) {
    const el = this;
    return {
      host: el,
      skill: kind.skill,
      body: el._body,
      /** A short id, unique on the page, for the ids a kind gives its elements. */
      uid: el._id,
      attr: (name) => el.getAttribute(name),
      /** The programs to draw rounds from: `program` (one), else `programs` (comma-separated), else `defaults`. */
      pool(defaults) {
        const pinned = (el.getAttribute('program') || '').trim();
        const listed = (el.getAttribute('programs') || '').split(',').map((s) => s.trim()).filter(Boolean);
        return pinned ? [pinned] : listed.length ? listed : [...defaults];
      },
      /** The status line a kind shows until its first round: "loading the core…". */
      loading() {
        return h('p', { class: 'k loading', text: 'loading the core…' });
      },
      /** "drill me on my dump" (see ownInput above): `{ el, error(words) }`. */
      ownInput(opts) {
        return ownInput(`${el._id}-own`, opts);
      },
      roving,
      shuffle,
      /** Scores the answer, announces it, returns the new record. */
      verdict(right, words = '') {
        const record = recordAnswer(kind.skill, !!right);
        const head = right ? `right: streak ${record.current}` : `not this time: streak back to 0 (best ${record.best})`;
        el._announce(words ? `${head}. ${words}` : head, right ? 'right' : 'wrong');
        el.dispatchEvent(new CustomEvent('xla-drill-verdict', {
          bubbles: true, composed: true, detail: { skill: kind.skill, right: !!right, record },
        }));
        return record;
      },
      /** Says something in the live region without scoring. */
      announce(words) {
        el._announce(words, 'info');
      },
      clearVerdict() {
        el._liveEl.textContent = '';
        el._liveEl.className = 'verdict';
      },
      caption(...parts) {
        fill(el._captionEl, ...parts);
      },
      round(detail) {
        el.dispatchEvent(new CustomEvent('xla-drill-round', { bubbles: true, composed: true, detail: { skill: kind.skill, ...detail } }));
      },
    };
  }

  _announce(words, cls) {
    // Clear first so that the same words twice in a row are announced twice.
    this._liveEl.textContent = '';
    this._liveEl.className = `verdict ${cls}`;
    queueMicrotask(() => { this._liveEl.textContent = words; });
  }
}

export function defineDrill(name = 'xla-drill') {
  if (!customElements.get(name)) customElements.define(name, XlaDrill);
}
