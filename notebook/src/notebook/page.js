// The notebook page: cells of Markdown, dumps and JavaScript; saved in IndexedDB as you type;
// export / import as a JSON file; dumps analysed in a worker. Text from dumps and from the user
// is only ever put into the page with textContent.
//
// This module owns the page frame (toolbar, banners, the list of cells), the store, undo, and
// the order of cells. Cells are cell.js (markdown, code) and dump-cell.js; the views a dump
// suggests come from readers.js (one table, by format) through suggest.js.
import './notebook.css';
import { adoptDesign } from '../design.js';
import { NotebookStore, exportNotebook, importNotebook } from './store.js';
import { isViewOnly } from './runner.js';
import { CodeCell, MarkdownCell, button } from './cell.js';
import { DumpCell } from './dump-cell.js';
import { FolderCell } from './folder-cell.js';
import { ProfileCell } from './profile-cell.js';
import { refreshSuggestions } from './suggest.js';
import { renderMarkdown } from './markdown.js';
import { el } from '../dom.js';
import * as engine from '../views/engine.js';
import { exampleNotebook } from '../example.js';
import { pageOf, reportPayload, reportState } from './report.js';

const CELL_CLASSES = { markdown: MarkdownCell, code: CodeCell, dump: DumpCell, folder: FolderCell, profile: ProfileCell };

/** The notebook page, built into `root` (the #app element, made when missing). */
export class NotebookPage {
  title = '';
  /** @type {import('./cell.js').Cell[]} in page order */ cells = [];
  /** the cell that last had focus (new cells go after it) */ active = null;
  store;
  /** @type {Record<string, HTMLElement>} the frame's parts */ ui = {};
  flashTimer = 0;
  /** @type {{ bytes: number, ms: number }|null} the worker's warm-up, once done */ warmed = null;

  constructor(root) {
    this.store = new NotebookStore({ onStatus: (s) => this.showSaveStatus(s) });
    // `hold`: a big dump still being read back from storage; its stored record must not be rewritten.
    this.store.getState = () => ({
      title: this.title,
      cells: this.cells.map(({ id, kind, name, text, blob, restoring }) => ({ id, kind, name, text, blob, hold: !!restoring })),
    });
    this.buildFrame(root);
  }

  buildFrame(root) {
    const ui = this.ui;
    ui.title = el('input', { class: 'title', type: 'text', 'aria-label': 'notebook title', placeholder: 'untitled notebook' });
    ui.save = el('span', { class: 'save', role: 'status', 'data-testid': 'save-status' });
    ui.banner = el('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'storage-error' });
    ui.undo = el('div', { class: 'undo', hidden: true });
    ui.report = el('div', { class: 'banner info', role: 'status', hidden: true, 'data-testid': 'report-banner' });
    ui.cells = el('main', { class: 'cells', 'data-testid': 'cells' });
    ui.import = el('input', { type: 'file', accept: '.json,application/json', hidden: true, 'data-testid': 'import-input' });
    ui.version = el('span', { class: 'ver', 'data-testid': 'core-version' });
    const toolbar = el('header', { class: 'toolbar' },
      el('span', { class: 'brand', text: 'hloscope' }),
      ui.title,
      el('span', { class: 'grow' }),
      el('div', { class: 'actions' },
      button('▶ Run all', 'run-all', { title: 'run every cell, top to bottom' }),
      button('+ Markdown', 'add-markdown'),
      button('+ Dump', 'add-dump'),
      button('+ Code', 'add-code'),
      button('+ Folder', 'add-folder', { title: 'a dump folder (--xla_dump_to): drop it, its .zip/.tar.gz, or an ls listing' }),
      button('+ Profile', 'add-profile', { title: 'a jax.profiler capture: where each run spent its time' }),
      button('Export', 'export', { title: 'save the notebook as a file' }),
      button('Save as page', 'save-page', { title: 'one HTML file with these cells and their dumps and profiles inside: opens offline, to attach to a bug' }),
      button('Import', 'import', { title: 'open a notebook file (replaces this one; undo is offered)' }),
      button('Example', 'example', { title: 'replace this notebook by the example (undo is offered)' })),
      el('a', { class: 'gym', href: 'gym.html', title: 'drills on reading what XLA did' }, 'Gym'),
      ui.save,
      ui.import);
    root.replaceChildren(toolbar, ui.report, ui.banner, ui.undo, ui.cells,
      el('footer', { class: 'foot' }, 'Shift+Enter runs a cell · Tab moves between cells; click into an editor for Tab to indent (Escape then Tab, or Ctrl+M, leaves it) · dumps are analysed in your browser; nothing leaves this page · ', ui.version));

    toolbar.addEventListener('click', (e) => {
      const a = e.target.closest('button')?.dataset.action;
      if (!a) return;
      if (a === 'run-all') this.runAll();
      else if (a.startsWith('add-')) {
        this.insertCell({ kind: a.slice(4) }, this.active ? this.cells.indexOf(this.active) + 1 : this.cells.length).focus();
      } else if (a === 'export') this.doExport();
      else if (a === 'save-page') this.doSavePage();
      else if (a === 'import') ui.import.click();
      else if (a === 'example') this.replaceNotebook(exampleNotebook(), 'example loaded', true);
    });
    ui.title.addEventListener('input', () => { this.title = ui.title.value; this.store.metaChanged(); });
    ui.import.addEventListener('change', async () => {
      const f = ui.import.files?.[0];
      ui.import.value = '';
      if (!f) return;
      try {
        this.replaceNotebook(importNotebook(await f.text()), `imported ${f.name}`, true);
      } catch (e) {
        this.flash(`Import failed: ${e.message}`);
      }
    });
    window.addEventListener('beforeunload', (e) => {
      if (this.store.lastError && this.store.unsaved) { e.preventDefault(); e.returnValue = ''; }
    });
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') this.store.flush(); });
  }

  showSaveStatus(s) {
    const { save, banner } = this.ui;
    save.dataset.state = s.state;
    if (s.state === 'pending') save.textContent = 'saving…';
    else if (s.state === 'saved') {
      save.textContent = 'saved';
      save.title = `saved in this browser at ${s.at.toLocaleTimeString()}`;
      banner.hidden = true;
    } else if (s.state === 'error') {
      save.textContent = 'not saved';
      const why = s.error?.name && s.error.name !== 'Error' ? `${s.error.name}: ${s.error.message}` : s.error?.message || String(s.error);
      banner.replaceChildren(
        el('b', { text: 'Not saved in this browser. ' }),
        `The browser refused to store the notebook (${why}). Everything you typed is still here in this tab; `,
        'export the notebook to keep a copy. ',
        button('Export now', 'export-now', { onclick: () => this.doExport() }), ' ',
        button('Retry', 'retry-save', { onclick: () => this.store.flush() }));
      banner.hidden = false;
    }
  }

  /** A message at the bottom of the page, with Undo when `undoState` is given. */
  flash(text, undoState) {
    const bar = this.ui.undo;
    bar.replaceChildren(el('span', { text }));
    if (undoState) {
      bar.append(' ', button('Undo', 'undo', {
        onclick: () => { bar.hidden = true; this.replaceNotebook(undoState, 'restored', false); },
      }));
    }
    bar.hidden = false;
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { bar.hidden = true; }, 15000);
  }

  // ------------------------------------------------------------ cells

  uniqueDumpName() {
    const names = new Set(this.cells.filter((c) => c.kind === 'dump').map((c) => c.name));
    for (let i = 1; ; i++) if (!names.has(`dump${i}`)) return `dump${i}`;
  }

  insertCell(rec, index = this.cells.length, { save = true } = {}) {
    const Kind = CELL_CLASSES[rec.kind] || MarkdownCell;
    const cell = new Kind(rec, this);
    cell.build();
    this.cells.splice(index, 0, cell);
    this.ui.cells.insertBefore(cell.el, this.ui.cells.children[index] || null);
    if (save) this.store.cellChanged(cell.id);
    if (cell.kind === 'dump' && rec.blob && !cell.text) {
      cell.restoring = !save;
      cell.analyze(rec.blob, { restoring: !save });
    } else if (cell.kind === 'dump' && cell.text) cell.analyze();
    return cell;
  }

  removeCell(cell) {
    const i = this.cells.indexOf(cell);
    if (i < 0) return;
    const before = this.snapshot();
    this.cells.splice(i, 1);
    cell.dispose();
    this.store.cellRemoved(cell.id);
    if (this.active === cell) this.active = null;
    this.refreshSuggestions();
    this.flash(`${cell.kind} cell deleted`, before);
  }

  moveCell(cell, delta) {
    const i = this.cells.indexOf(cell);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= this.cells.length) return;
    this.cells.splice(i, 1);
    this.cells.splice(j, 0, cell);
    this.ui.cells.insertBefore(cell.el, j + 1 < this.cells.length ? this.cells[j + 1].el : null);
    this.store.metaChanged();
    cell.focus();
  }

  focusNext(cell) {
    this.cells[this.cells.indexOf(cell) + 1]?.focus();
  }

  refreshSuggestions() { refreshSuggestions(this); }

  snapshot() { return { title: this.title, cells: this.cells.map((c) => c.record()) }; }

  replaceNotebook(state, message, offerUndo, { save = true, autorun = true } = {}) {
    const before = offerUndo ? this.snapshot() : null;
    for (const c of this.cells) c.dispose();
    this.cells = [];
    this.active = null;
    this.ui.cells.replaceChildren();
    this.title = state.title || '';
    this.ui.title.value = this.title;
    for (const rec of state.cells) this.insertCell(rec, this.cells.length, { save: false });
    if (save) this.store.replaceAll();
    if (message) this.flash(message, before);
    if (autorun) this.runViewCells();
  }

  /** Re-runs the code cells that only draw views (show.xray(a, b) and the like): safe to run unasked. */
  runViewCells() {
    for (const c of this.cells) if (c.kind === 'code' && isViewOnly(c.text)) c.run();
  }

  async runAll() {
    for (const c of [...this.cells]) {
      if (!this.cells.includes(c)) continue;
      await c.run();
    }
  }

  doExport() {
    const text = exportNotebook(this.snapshot());
    const blob = new Blob([text], { type: 'application/json' });
    const a = el('a', { href: URL.createObjectURL(blob), download: `${(this.title || 'notebook').replace(/[^\w.-]+/g, '_').slice(0, 60)}.hloscope.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  async doSavePage() {
    this.flash('writing the page…');
    try {
      const html = await pageOf(this);
      const blob = new Blob([html], { type: 'text/html' });
      const a = el('a', { href: URL.createObjectURL(blob), download: `${(this.title || 'notebook').replace(/[^\w.-]+/g, '_').slice(0, 60)}.html` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
      this.flash(`saved as a page (${(blob.size / 1048576).toFixed(2)} MiB)${blob.size > 25 * 1048576 ? ': over 25 MiB, more than most issue trackers take' : ''}`);
    } catch (e) {
      this.flash(`Save as page failed: ${e.message}`);
    }
  }

  /** Opens the report this page carries: its cells, in this tab only (the browser's own notebook is left as it is). */
  async openReport(data) {
    this.store.detach();
    const state = await reportState(data);
    this.replaceNotebook(state, null, false, { save: false });
    state.anchors.forEach((a, i) => { if (a && this.cells[i]) this.cells[i].el.id = a; });
    for (const [i, files] of state.profiles) this.cells[i]?.open(files);
    const ui = this.ui;
    ui.save.textContent = 'report';
    ui.save.dataset.state = 'report';
    ui.report.replaceChildren(
      el('b', { text: 'A report. ' }),
      `${data.files.length} file${data.files.length === 1 ? '' : 's'} carried${data.created ? `, made ${data.created.slice(0, 10)}` : ''}` +
      `${data.core ? ` by hloscope ${data.core}` : ''}. Everything is read in this page; nothing leaves it. ` +
      'Changes stay in this tab (the notebook this browser keeps is not touched): Save as page writes them into a new file.');
    ui.report.hidden = false;
    document.title = data.title || 'hloscope report';
    // two compiles of one program open on their diff, a StableHLO and its HLO on the x-ray
    const opens = !location.hash && typeof data.open === 'string' && data.open !== 'overview' ? document.getElementById(data.open) : null;
    opens?.scrollIntoView({ block: 'start' });
  }

  /** Opens the report this page carries, else the saved notebook (or the example on a first visit). */
  async start() {
    let report = null;
    try {
      report = reportPayload();
    } catch (e) {
      this.ui.report.textContent = `This page carries a report that could not be opened: ${e.message}.`;
      this.ui.report.hidden = false;
    }
    if (report) {
      await this.openReport(report).catch((e) => {
        this.ui.report.textContent = `This report could not be opened: ${e.message}.`;
        this.ui.report.hidden = false;
      });
    } else await this.openSaved();
    document.documentElement.dataset.ready = 'true';
    engine.version().then((v) => { this.ui.version.textContent = `core ${v}`; }, () => {
      this.ui.version.textContent = 'core not built';
    });
    // Once the notebook's own dumps are read, and the page is idle, the worker's core parses them
    // again for a moment: the first dump a person gives is then read by optimized code (twice as fast).
    Promise.allSettled(this.cells.map((c) => c.analysisPromise)).then(() => {
      const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 200));
      idle(() => engine.warm().then((w) => { this.warmed = w; }, () => {}), { timeout: 2000 });
    });
  }

  /** The notebook this browser saved, or the example on a first visit. */
  async openSaved() {
    let saved = null;
    try {
      saved = await this.store.load();
    } catch (error) {
      this.showSaveStatus({ state: 'error', error });
    }
    if (saved && saved.cells.length) {
      this.replaceNotebook(saved, null, false, { save: false });
      this.ui.save.textContent = 'saved';
      this.ui.save.dataset.state = 'saved';
    } else {
      this.replaceNotebook(exampleNotebook(), null, false, { save: true });
    }
  }
}

/** Builds the page into #app and opens the notebook; exposes window.hloscopeNotebook. */
export function startNotebook() {
  adoptDesign(document);
  const root = document.getElementById('app') || document.body.appendChild(el('div', { id: 'app' }));
  const page = new NotebookPage(root);
  // For tests and for the console: the notebook's state, read-only.
  window.hloscopeNotebook = {
    get state() { return page.snapshot(); },
    flush: () => page.store.flush(),
    /** True when dumps are analysed in a Web Worker (false: the main-thread fallback). */
    get analysisInWorker() { return engine.usingWorker(); },
    get unsaved() { return page.store.unsaved; },
    /** { bytes, ms } once the worker's core was warmed up (null before). */
    get warmed() { return page.warmed; },
    runAll: () => page.runAll(),
    /** The HTML "Save as page" writes, for tests. */
    pageHTML: () => pageOf(page),
    /** The keys of the dump texts the analysis engine holds (views must release theirs). */
    engineKeys: () => engine.keys(),
    /** The analysis worker's calls into the core's JS API so far, by name (tests count work, not time). */
    engineCalls: () => engine.calls(),
    /** The Markdown cells' renderer (a DocumentFragment of DOM nodes), for tests and the console. */
    renderMarkdown,
  };
  page.start();
  return page;
}
