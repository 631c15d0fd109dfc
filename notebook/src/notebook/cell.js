// One notebook cell: its record (id, kind, name, text), its DOM (bar, body, status, output), its
// editor, and what running it means. Markdown and code cells are here; dump cells are DumpCell
// (dump-cell.js). Every field a cell uses is declared on its class.
//
// A cell talks to its page through `page` (page.js), which owns the list of cells, the store
// and the undo bar: { cells, store, active, insertCell(rec, index), removeCell(cell),
// moveCell(cell, delta), focusNext(cell), refreshSuggestions() }.
import { createEditor } from './editors.js';
import { renderMarkdown } from './markdown.js';
import { Dump, runCode } from './runner.js';
import { el } from '../dom.js';
import { errorWhere } from '../core-words.js';

/** A toolbar-style button whose `data-action` names what it does. */
export function button(label, action, attrs = {}) {
  return el('button', { type: 'button', 'data-action': action, ...attrs, text: label });
}

let idCounter = 0;
export function newId() {
  idCounter++;
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}${idCounter}`;
}

const PLACEHOLDERS = {
  dump: 'Paste a dump here (optimized HLO or StableHLO), or drop a file on this cell',
  code: 'JavaScript: dumps by name, parse(), xray(), show(x) … Shift+Enter runs',
  markdown: 'Markdown… Shift+Enter renders',
};

export class Cell {
  /** @type {string} */ id;
  /** @type {'markdown'|'code'|'dump'} */ kind;
  /** @type {string} the dump's variable name in code cells ('' for other kinds) */ name = '';
  /** @type {string} */ text = '';
  /** @type {Blob|null} a big dump's text as stored (dump cells) */ blob = null;
  /** @type {boolean} a big dump still being read back from storage: its record must not be rewritten */ restoring = false;
  /** the page this cell is on (see the head comment) */ page;
  /** @type {HTMLElement} */ el = null;
  /** @type {HTMLElement} the editor or the rendered text */ body = null;
  /** @type {HTMLElement} views and printed values */ output = null;
  /** @type {HTMLElement} progress and status */ statusEl = null;
  /** @type {HTMLElement} the bar above the body */ bar = null;
  /** a CodeMirror wrapper (editors.js), or null while the cell shows something else */ editor = null;
  /** true while the page sets the editor's text itself (that change is not the user's) */ silent = false;

  constructor(rec, page) {
    this.id = rec.id || newId();
    this.kind = rec.kind;
    this.text = rec.text ?? '';
    this.page = page;
  }

  /** The record export and undo keep. */
  record() { return { kind: this.kind, name: this.name, text: this.text }; }

  /** Builds the cell's DOM (called once, after construction). */
  build() {
    this.bar = el('div', { class: 'bar' });
    this.body = el('div', { class: 'body' });
    this.output = el('div', { class: 'output', 'data-testid': 'output' });
    this.statusEl = el('div', { class: 'status' });
    const foot = el('div', { class: 'add-row' },
      button('+ markdown', 'add-markdown'), button('+ dump', 'add-dump'), button('+ code', 'add-code'));
    this.el = el('section', { class: `cell kind-${this.kind}`, 'data-kind': this.kind, 'data-id': this.id },
      this.bar, this.body, this.statusEl, this.output, foot);
    this.bar.append(el('span', { class: 'kind', text: this.kind }));
    this.buildBar(this.bar);
    this.bar.append(el('span', { class: 'grow' }),
      button('▶', 'run', { title: 'run (Shift+Enter)', 'aria-label': 'run cell' }),
      button('↑', 'up', { title: 'move up', 'aria-label': 'move cell up' }),
      button('↓', 'down', { title: 'move down', 'aria-label': 'move cell down' }),
      button('✕', 'delete', { title: 'delete cell', 'aria-label': 'delete cell' }));
    this.el.addEventListener('click', (e) => {
      const a = e.target.closest('button')?.dataset.action;
      if (!a || e.target.closest('.output')) return;
      const page = this.page;
      if (a === 'run') this.run();
      else if (a === 'up') page.moveCell(this, -1);
      else if (a === 'down') page.moveCell(this, +1);
      else if (a === 'delete') page.removeCell(this);
      else if (a.startsWith('add-')) page.insertCell({ kind: a.slice(4) }, page.cells.indexOf(this) + 1).focus();
    });
    this.el.addEventListener('focusin', () => { this.page.active = this; });
    this.buildBody();
  }

  /** Kind-specific parts of the bar (between the kind label and the buttons). */
  buildBar() {}

  buildBody() { this.makeEditor(); }

  /** The cell's editor, made when missing. */
  makeEditor() {
    if (this.editor) return this.editor;
    const host = el('div', { class: 'editor' });
    this.body.replaceChildren(host);
    this.editor = createEditor({
      parent: host,
      kind: this.kind,
      doc: this.text,
      onChange: (text) => { if (!this.silent) this.edited(text); },
      onRun: () => { this.run(); this.page.focusNext(this); },
      placeholder: PLACEHOLDERS[this.kind],
    });
    return this.editor;
  }

  /** Sets the editor's text from the page (not a user edit: no change goes out). */
  setEditorText(text) {
    if (!this.editor || this.editor.text === text) return;
    this.silent = true;
    try { this.editor.text = text; } finally { this.silent = false; }
  }

  /** The user changed the text in the editor. */
  edited(text) {
    this.text = text;
    this.blob = null;
    this.restoring = false;
    this.page.store.cellChanged(this.id);
  }

  focus() { this.editor?.focus(); }

  async run() {}

  /** Removes the cell's DOM and editor; what it holds elsewhere (the worker) is released too. */
  dispose() {
    this.editor?.destroy();
    this.editor = null;
    this.el.remove();
  }
}

export class MarkdownCell extends Cell {
  buildBody() {
    if (this.text.trim()) this.render(); else this.makeEditor();
  }

  render() {
    const view = el('div', { class: 'md', title: 'double-click to edit' });
    view.append(renderMarkdown(this.text));
    if (!this.text.trim()) view.append(el('p', { class: 'hint', text: '(empty markdown cell: double-click to edit)' }));
    view.addEventListener('dblclick', () => this.edit());
    this.editor?.destroy();
    this.editor = null;
    this.body.replaceChildren(view);
  }

  edit() {
    if (this.editor) return;
    this.makeEditor();
    this.editor.focus();
  }

  focus() { this.edit(); this.editor?.focus(); }

  async run() { this.render(); }
}

let runCounter = 0;

export class CodeCell extends Cell {
  /** @type {HTMLElement} "[3]": the run counter */ counter = null;

  buildBar(bar) {
    this.counter = el('span', { class: 'counter', text: '[ ]' });
    bar.append(this.counter);
  }

  async run() {
    const n = ++runCounter;
    const page = this.page;
    this.counter.textContent = '[*]';
    this.el.classList.add('running');
    this.output.replaceChildren();
    const t0 = performance.now();
    try {
      // A dump typed into a moment ago is analysed now, not after its debounce.
      const dumpCells = page.cells.filter((c) => c.kind === 'dump');
      for (const c of dumpCells) if (c.staleAnalysis) c.analyze();
      await Promise.all(dumpCells.filter((c) => c.analysisPromise).map((c) => c.analysisPromise));
      const dumps = {};
      for (const c of page.cells) {
        if (c.kind !== 'dump' || !c.name) continue;
        if (!(c.name in dumps)) dumps[c.name] = new Dump({ name: c.name, key: c.id, text: c.text, analysis: c.analysis, fileName: c.fileName });
      }
      await runCode(this.text, { dumps, output: this.output });
      this.el.classList.remove('failed');
    } catch (e) {
      this.el.classList.add('failed');
      this.output.append(el('pre', { class: 'error', 'data-testid': 'cell-error', text: `${e.name || 'Error'}: ${e.message}${errorWhere(e)}` }));
    } finally {
      this.el.classList.remove('running');
      this.counter.textContent = `[${n}]`;
      this.counter.title = `ran in ${Math.round(performance.now() - t0)} ms`;
    }
  }
}
