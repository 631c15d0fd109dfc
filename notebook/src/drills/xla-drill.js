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
      attr: (name) => el.getAttribute(name),
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
