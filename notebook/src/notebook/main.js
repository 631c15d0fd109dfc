// The notebook page: cells of Markdown, dumps and JavaScript; saved in IndexedDB as you type;
// export / import as a JSON file; dumps analysed in a worker. Text from dumps and from the user
// is only ever put into the page with textContent.
import './notebook.css';
import { createEditor } from './editors.js';
import { renderMarkdown } from './markdown.js';
import { NotebookStore, exportNotebook, importNotebook } from './store.js';
import { Dump, isViewOnly, nameProblem, runCode } from './runner.js';
import { el, formatBytes, formatInt } from '../views/common.js';
import * as engine from '../views/engine.js';
import { BLOB_MIN, sniffFormat } from '../views/analysis-core.js';
import { exampleNotebook } from '../example.js';

/** Dumps at least this long (characters) are not put in an editor: shown as a summary instead. */
const LARGE = 2_000_000;
const FORMAT_NAMES = { hlo: 'optimized HLO', stablehlo: 'StableHLO', jaxpr: 'jaxpr' };

const app = {
  title: '',
  cells: [],
  active: null,
  undo: null, // { label, state } after a delete or an import
};

const store = new NotebookStore({ onStatus: showSaveStatus });
// `hold`: a big dump still being read back from storage; its stored record must not be rewritten.
store.getState = () => ({
  title: app.title,
  cells: app.cells.map(({ id, kind, name, text, blob, restoring }) => ({ id, kind, name, text, blob, hold: !!restoring })),
});

let idCounter = 0;
function newId() {
  idCounter++;
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}${idCounter}`;
}

// ---------------------------------------------------------------- page frame

const root = document.getElementById('app') || document.body.appendChild(el('div', { id: 'app' }));
const titleInput = el('input', { class: 'title', type: 'text', 'aria-label': 'notebook title', placeholder: 'untitled notebook' });
const saveStatus = el('span', { class: 'save', role: 'status', 'data-testid': 'save-status' });
const banner = el('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'storage-error' });
const undoBar = el('div', { class: 'undo', hidden: true });
const cellsEl = el('main', { class: 'cells', 'data-testid': 'cells' });
const importInput = el('input', { type: 'file', accept: '.json,application/json', hidden: true, 'data-testid': 'import-input' });

function button(label, action, attrs = {}) {
  return el('button', { type: 'button', 'data-action': action, ...attrs, text: label });
}

const toolbar = el('header', { class: 'toolbar' },
  el('span', { class: 'brand', text: 'hloscope' }),
  titleInput,
  el('span', { class: 'grow' }),
  button('▶ Run all', 'run-all', { title: 'run every cell, top to bottom' }),
  button('+ Markdown', 'add-markdown'),
  button('+ Dump', 'add-dump'),
  button('+ Code', 'add-code'),
  button('Export', 'export', { title: 'save the notebook as a file' }),
  button('Import', 'import', { title: 'open a notebook file (replaces this one; undo is offered)' }),
  button('Example', 'example', { title: 'replace this notebook by the example (undo is offered)' }),
  saveStatus,
  importInput);
root.replaceChildren(toolbar, banner, undoBar, cellsEl,
  el('footer', { class: 'foot' }, 'Shift+Enter runs a cell · dumps are analysed in your browser; nothing leaves this page · ',
    el('span', { class: 'ver', 'data-testid': 'core-version' })));

toolbar.addEventListener('click', (e) => {
  const a = e.target.closest('button')?.dataset.action;
  if (!a) return;
  if (a === 'run-all') runAll();
  else if (a.startsWith('add-')) {
    const c = insertCell({ kind: a.slice(4) }, app.active ? app.cells.indexOf(app.active) + 1 : app.cells.length);
    c.focus();
  } else if (a === 'export') doExport();
  else if (a === 'import') importInput.click();
  else if (a === 'example') replaceNotebook(exampleNotebook(), 'example loaded', true);
});
titleInput.addEventListener('input', () => { app.title = titleInput.value; store.metaChanged(); });
importInput.addEventListener('change', async () => {
  const f = importInput.files?.[0];
  importInput.value = '';
  if (!f) return;
  try {
    replaceNotebook(importNotebook(await f.text()), `imported ${f.name}`, true);
  } catch (e) {
    flash(`Import failed: ${e.message}`);
  }
});

function showSaveStatus(s) {
  saveStatus.dataset.state = s.state;
  if (s.state === 'pending') saveStatus.textContent = 'saving…';
  else if (s.state === 'saved') {
    saveStatus.textContent = 'saved';
    saveStatus.title = `saved in this browser at ${s.at.toLocaleTimeString()}`;
    banner.hidden = true;
  } else if (s.state === 'error') {
    saveStatus.textContent = 'not saved';
    const why = s.error?.name && s.error.name !== 'Error' ? `${s.error.name}: ${s.error.message}` : s.error?.message || String(s.error);
    banner.replaceChildren(
      el('b', { text: 'Not saved in this browser. ' }),
      `The browser refused to store the notebook (${why}). Everything you typed is still here in this tab; `,
      'export the notebook to keep a copy. ',
      button('Export now', 'export-now', { onclick: doExport }), ' ',
      button('Retry', 'retry-save', { onclick: () => store.flush() }));
    banner.hidden = false;
  }
}

window.addEventListener('beforeunload', (e) => {
  if (store.lastError && store.unsaved) { e.preventDefault(); e.returnValue = ''; }
});
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') store.flush(); });

let flashTimer = 0;
function flash(text, undoState) {
  undoBar.replaceChildren(el('span', { text }));
  if (undoState) {
    undoBar.append(' ', button('Undo', 'undo', {
      onclick: () => { undoBar.hidden = true; replaceNotebook(undoState, 'restored', false); },
    }));
  }
  undoBar.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { undoBar.hidden = true; }, 15000);
}

// ---------------------------------------------------------------- cells

function cellRecord(c) { return { kind: c.kind, name: c.name, text: c.text }; }

function uniqueDumpName() {
  const names = new Set(app.cells.filter((c) => c.kind === 'dump').map((c) => c.name));
  for (let i = 1; ; i++) if (!names.has(`dump${i}`)) return `dump${i}`;
}

function insertCell(rec, index = app.cells.length, { save = true } = {}) {
  const cell = {
    id: rec.id || newId(),
    kind: rec.kind,
    name: rec.kind === 'dump' ? (rec.name ?? uniqueDumpName()) : '',
    text: rec.text ?? '',
    gen: 0,
    analysis: null,
    analysisPromise: null,
  };
  buildCell(cell);
  app.cells.splice(index, 0, cell);
  const next = cellsEl.children[index] || null;
  cellsEl.insertBefore(cell.el, next);
  if (save) store.cellChanged(cell.id);
  if (cell.kind === 'dump' && rec.blob && !cell.text) {
    cell.restoring = !save;
    analyzeDump(cell, rec.blob, { restoring: !save });
  }
  else if (cell.kind === 'dump' && cell.text) analyzeDump(cell);
  return cell;
}

function removeCell(cell) {
  const i = app.cells.indexOf(cell);
  if (i < 0) return;
  const before = snapshot();
  app.cells.splice(i, 1);
  cell.editor?.destroy();
  cell.el.remove();
  engine.forget(cell.id);
  store.cellRemoved(cell.id);
  if (app.active === cell) app.active = null;
  refreshSuggestions();
  flash(`${cell.kind} cell deleted`, before);
}

function moveCell(cell, delta) {
  const i = app.cells.indexOf(cell);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= app.cells.length) return;
  app.cells.splice(i, 1);
  app.cells.splice(j, 0, cell);
  cellsEl.insertBefore(cell.el, j + 1 < app.cells.length ? app.cells[j + 1].el : null);
  store.metaChanged();
  cell.focus?.();
}

function snapshot() { return { title: app.title, cells: app.cells.map(cellRecord) }; }

function replaceNotebook(state, message, offerUndo, { save = true, autorun = true } = {}) {
  const before = offerUndo ? snapshot() : null;
  for (const c of app.cells) { c.editor?.destroy(); engine.forget(c.id); }
  app.cells = [];
  app.active = null;
  cellsEl.replaceChildren();
  app.title = state.title || '';
  titleInput.value = app.title;
  for (const rec of state.cells) insertCell(rec, app.cells.length, { save: false });
  if (save) store.replaceAll();
  if (message) flash(message, before);
  if (autorun) runViewCells();
}

/** Re-runs the code cells that only draw views (show.xray(a, b) and the like): safe to run unasked. */
function runViewCells() {
  for (const c of app.cells) if (c.kind === 'code' && isViewOnly(c.text)) runCell(c);
}

function buildCell(cell) {
  const bar = el('div', { class: 'bar' });
  const body = el('div', { class: 'body' });
  const output = el('div', { class: 'output', 'data-testid': 'output' });
  const status = el('div', { class: 'status' });
  const foot = el('div', { class: 'add-row' },
    button('+ markdown', 'add-markdown'), button('+ dump', 'add-dump'), button('+ code', 'add-code'));
  cell.el = el('section', { class: `cell kind-${cell.kind}`, 'data-kind': cell.kind, 'data-id': cell.id }, bar, body, status, output, foot);
  cell.body = body;
  cell.output = output;
  cell.statusEl = status;

  const label = el('span', { class: 'kind', text: cell.kind });
  bar.append(label);
  if (cell.kind === 'dump') {
    cell.nameInput = el('input', { class: 'name', type: 'text', value: cell.name, 'aria-label': 'dump name', spellcheck: 'false', 'data-testid': 'dump-name' });
    cell.nameNote = el('span', { class: 'name-note' });
    cell.meta = el('span', { class: 'meta', 'data-testid': 'dump-meta' });
    cell.nameInput.addEventListener('input', () => {
      cell.name = cell.nameInput.value.trim();
      checkName(cell);
      store.cellChanged(cell.id);
      refreshSuggestions();
    });
    bar.append(cell.nameInput, cell.nameNote, cell.meta);
  }
  if (cell.kind === 'code') {
    cell.counter = el('span', { class: 'counter', text: '[ ]' });
    bar.append(cell.counter);
  }
  bar.append(el('span', { class: 'grow' }),
    button('▶', 'run', { title: 'run (Shift+Enter)', 'aria-label': 'run cell' }),
    button('↑', 'up', { title: 'move up', 'aria-label': 'move cell up' }),
    button('↓', 'down', { title: 'move down', 'aria-label': 'move cell down' }),
    button('✕', 'delete', { title: 'delete cell', 'aria-label': 'delete cell' }));
  cell.el.addEventListener('click', (e) => {
    const a = e.target.closest('button')?.dataset.action;
    if (!a || e.target.closest('.output')) return;
    if (a === 'run') runCell(cell);
    else if (a === 'up') moveCell(cell, -1);
    else if (a === 'down') moveCell(cell, +1);
    else if (a === 'delete') removeCell(cell);
    else if (a.startsWith('add-')) insertCell({ kind: a.slice(4) }, app.cells.indexOf(cell) + 1).focus();
  });
  cell.el.addEventListener('focusin', () => { app.active = cell; });

  const onChange = (text) => {
    if (cell.silent) return;
    cell.text = text;
    cell.blob = null;
    cell.restoring = false;
    store.cellChanged(cell.id);
    if (cell.kind === 'dump') {
      clearTimeout(cell.timer);
      cell.staleAnalysis = true;
      cell.timer = setTimeout(() => analyzeDump(cell), 500);
    }
  };
  const onRun = () => { runCell(cell); focusNext(cell); };
  cell.makeEditor = () => {
    if (cell.editor) return cell.editor;
    const host = el('div', { class: 'editor' });
    cell.body.replaceChildren(host);
    cell.editor = createEditor({
      parent: host,
      kind: cell.kind,
      doc: cell.text,
      onChange,
      onRun,
      placeholder: cell.kind === 'dump' ? 'Paste a dump here (optimized HLO or StableHLO), or drop a file on this cell'
        : cell.kind === 'code' ? 'JavaScript: dumps by name, parse(), xray(), show(x) … Shift+Enter runs'
          : 'Markdown… Shift+Enter renders',
    });
    return cell.editor;
  };
  cell.focus = () => { if (cell.kind === 'markdown') editMarkdown(cell); cell.editor?.focus(); };

  if (cell.kind === 'markdown') {
    if (cell.text.trim()) renderMarkdownCell(cell); else cell.makeEditor();
  } else if (cell.kind === 'code') {
    cell.makeEditor();
  } else {
    buildDumpBody(cell);
    checkName(cell);
  }
}

function focusNext(cell) {
  const i = app.cells.indexOf(cell);
  const next = app.cells[i + 1];
  if (next) next.focus();
}

function checkName(cell) {
  const problem = nameProblem(cell.name);
  const dup = !problem && app.cells.some((c) => c !== cell && c.kind === 'dump' && c.name === cell.name);
  cell.nameNote.textContent = problem || (dup ? `another dump is also named ${cell.name}` : '');
  cell.nameInput.classList.toggle('bad', !!(problem || dup));
}

// ---------------------------------------------------------------- markdown cells

function renderMarkdownCell(cell) {
  const view = el('div', { class: 'md', title: 'double-click to edit' });
  view.append(renderMarkdown(cell.text));
  if (!cell.text.trim()) view.append(el('p', { class: 'hint', text: '(empty markdown cell: double-click to edit)' }));
  view.addEventListener('dblclick', () => editMarkdown(cell));
  cell.editor?.destroy();
  cell.editor = null;
  cell.body.replaceChildren(view);
}

function editMarkdown(cell) {
  if (cell.editor) return;
  cell.makeEditor();
  cell.editor.focus();
}

// ---------------------------------------------------------------- dump cells

function buildDumpBody(cell) {
  const upload = el('input', { type: 'file', hidden: true, 'data-testid': 'dump-file' });
  upload.addEventListener('change', () => {
    const f = upload.files?.[0];
    upload.value = '';
    if (f) loadDumpFile(cell, f);
  });
  cell.tools = el('div', { class: 'tools' },
    button('Upload file…', 'upload', { onclick: () => upload.click() }),
    el('span', { class: 'hint', text: 'or paste, or drop a file on this cell' }), upload);
  cell.suggest = el('div', { class: 'suggest', 'data-testid': 'suggest' });
  cell.el.insertBefore(cell.tools, cell.statusEl);
  cell.el.insertBefore(cell.suggest, cell.output);
  showDumpText(cell);

  // Large pastes skip the editor (CodeMirror would hold 50 MB as a document).
  cell.el.addEventListener('paste', (e) => {
    if (!e.clipboardData) return;
    const file = [...(e.clipboardData.files || [])][0];
    if (file) { e.preventDefault(); e.stopPropagation(); loadDumpFile(cell, file); return; }
    if (e.target.closest?.('input')) return;
    const t = e.clipboardData.getData('text/plain');
    if (t && (t.length >= LARGE || !cell.editor)) {
      e.preventDefault();
      e.stopPropagation();
      setDumpText(cell, t);
    }
  }, true);
  cell.el.addEventListener('dragover', (e) => {
    if ([...(e.dataTransfer?.types || [])].some((t) => t === 'Files' || t === 'text/plain')) {
      e.preventDefault();
      cell.el.classList.add('drop');
    }
  });
  cell.el.addEventListener('dragleave', (e) => { if (!cell.el.contains(e.relatedTarget)) cell.el.classList.remove('drop'); });
  cell.el.addEventListener('drop', (e) => {
    cell.el.classList.remove('drop');
    const file = e.dataTransfer?.files?.[0];
    const text = !file && e.dataTransfer?.getData('text/plain');
    if (!file && !text) return;
    e.preventDefault();
    e.stopPropagation();
    if (file) loadDumpFile(cell, file); else setDumpText(cell, text);
  }, true);
}

function showDumpText(cell) {
  if (cell.text.length < LARGE) {
    if (!cell.editor) cell.makeEditor();
    return;
  }
  cell.editor?.destroy();
  cell.editor = null;
  let head = '';
  let pos = 0;
  for (let k = 0; k < 12 && pos !== -1; k++) pos = cell.text.indexOf('\n', pos + 1);
  head = cell.text.slice(0, pos === -1 ? Math.min(cell.text.length, 4000) : Math.min(pos, 4000));
  const clear = button('Clear', 'clear', {
    onclick: () => { setDumpText(cell, ''); cell.focus(); },
  });
  cell.body.replaceChildren(el('div', { class: 'bigdump', tabindex: '0', 'data-testid': 'bigdump' },
    el('p', {}, el('b', { text: `${formatBytes(cell.text.length)} dump` }),
      ' — too large to edit on this page; the views below read all of it. Paste or drop to replace it. ', clear),
    el('pre', { text: `${head}\n…` })));
  cell.focus = () => cell.body.querySelector('.bigdump')?.focus();
}

function setDumpText(cell, text) {
  const wasBig = !cell.editor;
  cell.text = text;
  cell.blob = null;
  cell.restoring = false;
  store.cellChanged(cell.id);
  if (text.length >= LARGE || wasBig) {
    cell.focus = () => cell.editor?.focus();
    showDumpText(cell);
  }
  if (cell.editor && cell.editor.text !== text) {
    cell.silent = true;
    cell.editor.text = text;
    cell.silent = false;
  }
  clearTimeout(cell.timer);
  analyzeDump(cell);
}

function loadDumpFile(cell, file) {
  if (!cell.name || /^dump\d+$/.test(cell.name)) {
    const base = file.name.replace(/\.(txt|mlir|hlo|stablehlo|pb)$/i, '').replace(/[^\w$]+/g, '_').replace(/^(\d)/, '_$1').slice(0, 40);
    if (base && !nameProblem(base) && !app.cells.some((c) => c !== cell && c.name === base)) {
      cell.name = base;
      cell.nameInput.value = base;
      checkName(cell);
    }
  }
  analyzeDump(cell, file);
}

function setProgress(cell, p) {
  if (!p) { cell.statusEl.replaceChildren(); return; }
  const bits = [p.stage];
  if (p.total) bits.push(p.done != null ? `${formatBytes(p.done)} of ${formatBytes(p.total)}` : formatBytes(p.total));
  const bar = el('progress', { max: '1', 'data-testid': 'progress' });
  if (p.total && p.done != null) bar.value = p.done / p.total;
  cell.statusEl.replaceChildren(el('span', { text: `${bits.join(' · ')}…` }), bar);
}

function analyzeDump(cell, file, { restoring = false } = {}) {
  clearTimeout(cell.timer);
  cell.staleAnalysis = false;
  const gen = ++cell.gen;
  cell.blob = null;
  cell.analysis = null;
  cell.meta.textContent = '';
  cell.suggest.replaceChildren();
  if (!file && !cell.text) {
    cell.analysisPromise = Promise.resolve(null);
    setProgress(cell, null);
    engine.forget(cell.id);
    refreshSuggestions();
    return cell.analysisPromise;
  }
  setProgress(cell, { stage: file ? 'reading' : 'parsing', total: file ? file.size : cell.text.length });
  const t0 = performance.now();
  const p = engine.analyze({ key: cell.id, text: file ? undefined : cell.text, file }, (pr) => {
    if (gen === cell.gen) setProgress(cell, pr);
  }).then((a) => {
    if (gen !== cell.gen) return null;
    // Changes made while this dump was read back (a rename) were held: save them now.
    if (cell.restoring && store.dirtyCells.has(cell.id)) store.schedule();
    cell.restoring = false;
    if (file) {
      const text = a.text;
      delete a.text;
      cell.text = text;
      if (!restoring) store.cellChanged(cell.id);
      if (text.length >= LARGE || !cell.editor) showDumpText(cell);
      if (cell.editor) { cell.silent = true; cell.editor.text = text; cell.silent = false; }
    }
    if (a.blob) {
      cell.blob = a.blob;
      if (!restoring) store.cellChanged(cell.id);
    }
    delete a.blob;
    a.ms = Math.round(performance.now() - t0);
    cell.analysis = a;
    setProgress(cell, null);
    showDumpMeta(cell);
    refreshSuggestions();
    return a;
  }, (e) => {
    if (gen !== cell.gen) return null;
    setProgress(cell, null);
    if (cell.text.length >= BLOB_MIN && !cell.blob) {
      // No worker answer: store the text anyway (the slow way, on this thread).
      cell.blob = file && !restoring ? file : new Blob([cell.text], { type: 'text/plain;charset=utf-8' });
      if (!restoring) store.cellChanged(cell.id);
    }
    // A saved dump that could not be read back stays held: its stored copy is never overwritten
    // with an empty text (pasting a new dump into the cell releases it).
    const message = restoring ? `could not read the saved dump back: ${e.message}` : e.message;
    cell.analysis = { error: { message, code: e.code, line: e.line, column: e.column }, format: sniffFormat(cell.text) };
    showDumpMeta(cell);
    return cell.analysis;
  });
  cell.analysisPromise = p;
  return p;
}

function showDumpMeta(cell) {
  const a = cell.analysis;
  if (!a) { cell.meta.textContent = ''; return; }
  const bits = [FORMAT_NAMES[a.format] || 'unknown format'];
  if (a.lines != null) bits.push(`${formatInt(a.lines)} lines`);
  bits.push(formatBytes(a.bytes ?? cell.text.length));
  if (a.fusions) bits.push(`${formatInt(a.fusions.fusion_ops)} fusion ops`);
  if (a.ms != null && a.bytes > 1e6) bits.push(`analysed in ${formatInt(a.ms)} ms`);
  cell.meta.replaceChildren(bits.join(' · '));
  cell.meta.classList.toggle('err', !!a.error);
  if (a.error) {
    cell.meta.append(el('span', { class: 'err-text', text: ` · ${a.error.line ? `line ${a.error.line}: ` : ''}${a.error.message}` }));
  }
}

/** Under each analysed dump: the views that fit it, one click away. */
function refreshSuggestions() {
  const dumps = app.cells.filter((c) => c.kind === 'dump');
  for (const c of dumps) {
    c.suggest.replaceChildren();
    const a = c.analysis;
    if (!a || a.error || !c.name || nameProblem(c.name)) continue;
    const choices = [];
    // The partner of a dump is the nearest dump of the other format, preferring one above it.
    const at = dumps.indexOf(c);
    const other = (fmt) => dumps
      .map((d, k) => ({ d, cost: k < at ? at - k : (k - at) + dumps.length }))
      .filter(({ d }) => d !== c && d.analysis?.format === fmt && d.name && !nameProblem(d.name))
      .sort((x, y) => x.cost - y.cost)[0]?.d;
    if (a.format === 'hlo') {
      const s = other('stablehlo');
      choices.push(s ? [`x-ray ${s.name} → ${c.name}`, `show.xray(${s.name}, ${c.name})`] : [`x-ray of ${c.name}`, `show.xray(null, ${c.name})`]);
      choices.push(['fusion table', `show.fusions(${c.name})`]);
      choices.push(['summary', `show.summary(${c.name})`]);
    } else if (a.format === 'stablehlo') {
      const h = other('hlo');
      if (h) choices.push([`x-ray ${c.name} → ${h.name}`, `show.xray(${c.name}, ${h.name})`]);
      else choices.push([`x-ray of ${c.name}`, `show.xray(${c.name}, null)`]);
      choices.push(['summary', `show.summary(${c.name})`]);
    } else {
      choices.push(['summary', `show.summary(${c.name})`]);
    }
    c.suggest.append(el('span', { class: 'hint', text: 'suggested view:' }));
    choices.forEach(([label, code], k) => {
      c.suggest.append(button(label, 'suggest', {
        class: k === 0 ? 'primary' : null,
        'data-code': code,
        onclick: () => {
          const at = app.cells.indexOf(c) + 1;
          const existing = app.cells[at];
          if (existing && existing.kind === 'code' && existing.text.trim() === code) { runCell(existing); return; }
          const cell = insertCell({ kind: 'code', text: code }, at);
          runCell(cell);
        },
      }));
    });
  }
}

// ---------------------------------------------------------------- running

let runCounter = 0;

async function runCell(cell) {
  if (cell.kind === 'markdown') { renderMarkdownCell(cell); return; }
  if (cell.kind === 'dump') {
    if (cell.editor && cell.editor.text !== cell.text) cell.text = cell.editor.text;
    clearTimeout(cell.timer);
    await analyzeDump(cell);
    return;
  }
  const n = ++runCounter;
  cell.counter.textContent = '[*]';
  cell.el.classList.add('running');
  cell.output.replaceChildren();
  const t0 = performance.now();
  try {
    // A dump typed into a moment ago is analysed now, not after its debounce.
    for (const c of app.cells) if (c.kind === 'dump' && c.staleAnalysis) analyzeDump(c);
    const pendingDumps = app.cells.filter((c) => c.kind === 'dump' && c.analysisPromise);
    await Promise.all(pendingDumps.map((c) => c.analysisPromise));
    const dumps = {};
    for (const c of app.cells) {
      if (c.kind !== 'dump' || !c.name) continue;
      if (!(c.name in dumps)) dumps[c.name] = new Dump({ name: c.name, key: c.id, text: c.text, analysis: c.analysis });
    }
    await runCode(cell.text, { dumps, output: cell.output });
    cell.el.classList.remove('failed');
  } catch (e) {
    cell.el.classList.add('failed');
    const where = e.line ? ` (line ${e.line}${e.column ? `, column ${e.column}` : ''}${e.side ? `, ${e.side} side` : ''})` : '';
    cell.output.append(el('pre', { class: 'error', 'data-testid': 'cell-error', text: `${e.name || 'Error'}: ${e.message}${where}` }));
  } finally {
    cell.el.classList.remove('running');
    cell.counter.textContent = `[${n}]`;
    cell.counter.title = `ran in ${Math.round(performance.now() - t0)} ms`;
  }
}

async function runAll() {
  for (const c of [...app.cells]) {
    if (!app.cells.includes(c)) continue;
    await runCell(c);
  }
}

// ---------------------------------------------------------------- export

function doExport() {
  const text = exportNotebook(snapshot());
  const blob = new Blob([text], { type: 'application/json' });
  const a = el('a', { href: URL.createObjectURL(blob), download: `${(app.title || 'notebook').replace(/[^\w.-]+/g, '_').slice(0, 60)}.hloscope.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}

// ---------------------------------------------------------------- start

async function start() {
  let saved = null;
  try {
    saved = await store.load();
  } catch (error) {
    showSaveStatus({ state: 'error', error });
  }
  if (saved && saved.cells.length) {
    replaceNotebook(saved, null, false, { save: false });
    saveStatus.textContent = 'saved';
    saveStatus.dataset.state = 'saved';
  } else {
    replaceNotebook(exampleNotebook(), null, false, { save: true });
  }
  document.documentElement.dataset.ready = 'true';
  engine.version().then((v) => { document.querySelector('[data-testid=core-version]').textContent = `core ${v}`; }, () => {
    document.querySelector('[data-testid=core-version]').textContent = 'core not built';
  });
}

// For tests and for the console: the notebook's state, read-only.
window.hloscopeNotebook = {
  get state() { return snapshot(); },
  flush: () => store.flush(),
  /** True when dumps are analysed in a Web Worker (false: the main-thread fallback). */
  get analysisInWorker() { return engine.usingWorker(); },
  get unsaved() { return store.unsaved; },
  runAll,
};

start();
