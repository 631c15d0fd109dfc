// AnalysedElement: the base of the views that read their input with the core (<xla-summary>,
// <xla-fusion-table>, <xla-memory>, <xla-padding>, <xla-levels>, <xla-pipeline>, and new readers'
// views). The core runs in the analysis worker (engine.js, worker.js), never on the page's main
// thread. It owns the flow src -> fetchText -> text -> input -> _request(key, input) (an engine
// call) -> _analysed(result) | _fail(e), with the generation that drops answers for an older
// input, and it owns the engine key the input is held under: a new input, new data, or leaving
// the page forgets the key, so the worker keeps no text of a view that is gone.
//
// A subclass: calls super() and sets `this._status` (an element for "analysing…" and errors);
// implements `_analysed(result, input)` (throw to fail) and `_render()`; may set `static viewName`
// (the word errors start with). A view that reads something other than a dump's analysis
// overrides `_request(key, input)` with its engine call (engine.memory, engine.layouts, ...), and
// starts a read with `this._analyse(input, status)` (the `text` setter does, with the text).
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
    this._text = t == null ? null : String(t);
    this._analyse(this._text);
  }

  /**
   * Reads a new input: forgets the last one's key, drops answers still on their way for older
   * inputs, and runs `_request` under a new key; null shows nothing. Resolves when the answer is
   * shown or the failure said (never rejects).
   */
  _analyse(input, status = 'analysing…') {
    this._release();
    const gen = ++this._gen;
    if (input == null) { this._render(); return Promise.resolve(); }
    const key = `${this.localName}:${nextKey++}`;
    this._key = key;
    this._setStatus(status);
    let asked;
    try { asked = Promise.resolve(this._request(key, input)); } catch (e) { asked = Promise.reject(e); }
    return asked.then((a) => {
      // Released while the input was on its way (a big text crosses in slices): forget it again.
      if (this._key !== key) engine.forget(key);
      if (gen !== this._gen) return;
      this._analysed(a, input);
    }).catch((e) => {
      if (this._key !== key) engine.forget(key);
      if (gen === this._gen) this._fail(e);
    });
  }

  /** Subclasses: the engine call that reads `input` (held under `key` where the op keeps it).
   * The default: the analysis of a dump text (engine.analyze). */
  async _request(key, text) {
    const a = await engine.analyze({ key, text });
    if (a.error) throw Object.assign(new Error(a.error.message), a.error);
    return a;
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

  /** Subclasses: take the analysis, or what `_request` answered (throw when it does not fit this view). */
  _analysed() {}

  _render() {}
}
