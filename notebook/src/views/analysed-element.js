// AnalysedElement: the base of views that analyse a dump text themselves (<xla-summary>,
// <xla-fusion-table>, and new readers' views). It owns the flow src -> fetchText -> text ->
// engine.analyze -> _analysed(a) | _fail(e), and it owns the engine key its text is held under:
// a new text, new data, or leaving the page forgets the key, so the worker keeps no text of a
// view that is gone.
//
// A subclass: calls super() and sets `this._status` (an element for "analysing…" and errors);
// implements `_analysed(analysis)` (throw to fail) and `_render()`; may set `static viewName`
// (the word errors start with).
import { errorWhere, fetchText } from './common.js';
import * as engine from './engine.js';

let nextKey = 1;

export class AnalysedElement extends HTMLElement {
  static get observedAttributes() { return ['src']; }
  static viewName = 'view';

  /** @type {string|null} the engine key this view's text is analysed under, while held */
  _key = null;
  /** bumped by every new input; answers for an older one are dropped */
  _gen = 0;
  /** @type {string|null} */
  _text = null;
  /** the data shown (set directly, or the analysis of the text) */
  _data = null;
  /** @type {HTMLElement|null} set by the subclass */
  _status = null;

  attributeChangedCallback(name) {
    if (name !== 'src') return;
    const src = this.getAttribute('src');
    if (!src) return;
    const gen = ++this._gen;
    fetchText(src).then((t) => { if (gen === this._gen) this.text = t; }, (e) => { if (gen === this._gen) this._fail(e); });
  }

  /** The engine key while this view holds a text in the engine, else null (tests read it). */
  get engineKey() { return this._key; }

  get data() { return this._data; }
  set data(d) {
    this._release();
    this._gen++;
    this._data = d || null;
    this._render();
  }

  get text() { return this._text; }
  set text(t) {
    this._release();
    this._text = t == null ? null : String(t);
    const gen = ++this._gen;
    if (this._text == null) { this._render(); return; }
    const key = `${this.localName}:${nextKey++}`;
    this._key = key;
    this._setStatus('analysing…');
    engine.analyze({ key, text: this._text }).then((a) => {
      // Released while the text was on its way (a big text crosses in slices): forget it again.
      if (this._key !== key) engine.forget(key);
      if (gen !== this._gen) return;
      if (a.error) throw Object.assign(new Error(a.error.message), a.error);
      this._analysed(a);
    }).catch((e) => {
      if (this._key !== key) engine.forget(key);
      if (gen === this._gen) this._fail(e);
    });
  }

  /** Forgets this view's text in the engine (on a new input, and when it leaves the page). */
  _release() {
    if (this._key) engine.forget(this._key);
    this._key = null;
  }

  disconnectedCallback() { this._release(); }

  _setStatus(text, isError = false) {
    if (!this._status) return;
    this._status.className = isError ? 'status err' : 'status';
    this._status.textContent = text;
  }

  _fail(e) {
    this._setStatus(`${this.constructor.viewName}: ${e.message}${errorWhere(e)}`, true);
  }

  /** Subclasses: take the analysis (throw when it does not fit this view). */
  _analysed() {}

  _render() {}
}
