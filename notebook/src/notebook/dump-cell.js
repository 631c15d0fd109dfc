// A dump cell: a named dump (pasted, uploaded or dropped), analysed in the worker, with a status
// line and the views its format offers (readers.js: the table to extend for a new reader).
// Dumps of LARGE characters or more are not put into an editor: the cell shows their head.
import { Cell, button } from './cell.js';
import { nameProblem } from './runner.js';
import { formatLabel } from './readers.js';
import { el, formatBytes, formatInt } from '../views/common.js';
import * as engine from '../views/engine.js';
import { BLOB_MIN, tooLargeForCore } from '../views/analysis-core.js';
import { errorWhere, kernelsDecided, partialWords, stageFromFileName } from '../core-words.js';

/** Dumps at least this long (characters) are not put in an editor: shown as a summary instead. */
export const LARGE = 2_000_000;
/** A file's text this long (characters) goes into the editor after the reading is shown. */
const EDITOR_LATER = 200_000;

/** The longest name a file gives a dump (before a `_2` that keeps it unique). */
export const NAME_MAX = 40;

/**
 * The dump name a file gives, unique among `taken` (a Set of names), as `{ name, note }`;
 * `note` says how the name differs from the file's (shortened, numbered), null when it does
 * not; null when the file's name gives no usable name. A long name keeps its first and last
 * words (`__` marks the cut), after dropping XLA's `module_0001.` numbering, so that dumps of
 * one folder (a long common start) still tell themselves apart.
 */
export function nameForFile(fileName, taken) {
  const full = fileName.replace(/\.(txt|mlir|hlo|stablehlo|pb)$/i, '').replace(/[^\w$]+/g, '_').replace(/^(\d)/, '_$1');
  if (!/[A-Za-z0-9$]/.test(full)) return null;
  let base = full;
  if (base.length > NAME_MAX) base = base.replace(/^module_\d+_(?=.)/, '');
  if (base.length > NAME_MAX) {
    const words = base.split('_');
    const head = [];
    const tail = [];
    const len = () => head.join('_').length + 2 + tail.join('_').length;
    for (let i = 0, j = words.length - 1, turn = 0, stuck = 0; i <= j && stuck < 2; turn ^= 1) {
      const side = turn ? tail : head;
      const w = turn ? words[j] : words[i];
      side[turn ? 'unshift' : 'push'](w);
      if (len() > NAME_MAX) { side[turn ? 'shift' : 'pop'](); stuck++; continue; }
      stuck = 0;
      if (turn) j--; else i++;
    }
    base = head.length ? `${head.join('_')}__${tail.join('_')}` : full.slice(0, NAME_MAX);
  }
  for (let k = 1; k < 1000; k++) {
    const name = k === 1 ? base : `${base}_${k}`;
    if (nameProblem(name) || taken.has(name)) continue;
    const why = [];
    if (base !== full) why.push('shortened');
    if (k > 1) why.push(taken.has(base) ? `${base} is another dump's name` : nameProblem(base));
    return { name, note: why.length ? `from ${fileName}: ${why.join('; ')}` : null };
  }
  return null;
}

export class DumpCell extends Cell {
  /** @type {HTMLInputElement} */ nameInput = null;
  /** @type {HTMLElement} why the name cannot be used, if it cannot; else how a file named it */ nameNote = null;
  /** @type {string|null} how the file the dump came from named it (shortened, numbered), until the name is edited */ nameFrom = null;
  /** @type {HTMLElement} the status line: format, size, counts, error */ meta = null;
  /** @type {HTMLElement} upload button and hint */ tools = null;
  /** @type {HTMLElement} the suggested views (suggest.js fills it) */ suggest = null;
  /** the debounce timer of an analysis after typing */ timer = 0;
  /** true while typed text waits for its debounced analysis */ staleAnalysis = false;
  /** bumped by every analysis; an answer for an older one is dropped */ gen = 0;
  /** the last analysis (analysis-core.js analyzeText result, or { error, format }) */ analysis = null;
  /** @type {Promise|null} the analysis in flight or done */ analysisPromise = null;
  /** true while a file's text waits to go into the editor (the task after its reading is shown) */ fillPending = false;
  /** @type {HTMLElement|null} a note kept under the status line (files not read) */ notes = null;
  /** @type {string|null} the name of the file the text came from (its stage evidence), until the text changes */ fileName = null;

  constructor(rec, page) {
    super(rec, page);
    this.name = rec.name ?? page.uniqueDumpName();
  }

  buildBar(bar) {
    this.nameInput = el('input', { class: 'name', type: 'text', value: this.name, 'aria-label': 'dump name', spellcheck: 'false', 'data-testid': 'dump-name' });
    this.nameNote = el('span', { class: 'name-note' });
    this.meta = el('span', { class: 'meta', 'data-testid': 'dump-meta' });
    this.nameInput.addEventListener('input', () => {
      this.name = this.nameInput.value.trim();
      this.nameFrom = null;
      this.checkName();
      this.page.store.cellChanged(this.id);
      this.page.refreshSuggestions();
    });
    bar.append(this.nameInput, this.nameNote, this.meta);
  }

  buildBody() {
    const upload = el('input', { type: 'file', multiple: true, hidden: true, 'data-testid': 'dump-file' });
    upload.addEventListener('change', () => {
      const files = [...(upload.files || [])];
      upload.value = '';
      this.loadFiles(files);
    });
    this.tools = el('div', { class: 'tools' },
      button('Upload file…', 'upload', { onclick: () => upload.click() }),
      el('span', { class: 'hint', text: 'or paste, or drop a file on this cell' }), upload);
    this.suggest = el('div', { class: 'suggest', 'data-testid': 'suggest' });
    this.el.insertBefore(this.tools, this.statusEl);
    this.el.insertBefore(this.suggest, this.output);
    this.showText();
    this.checkName();

    // Large pastes skip the editor (CodeMirror would hold 50 MB as a document).
    this.el.addEventListener('paste', (e) => {
      if (!e.clipboardData) return;
      const file = [...(e.clipboardData.files || [])][0];
      if (file) { e.preventDefault(); e.stopPropagation(); this.loadFile(file); return; }
      if (e.target.closest?.('input')) return;
      const t = e.clipboardData.getData('text/plain');
      if (t && (t.length >= LARGE || !this.editor)) {
        e.preventDefault();
        e.stopPropagation();
        this.setText(t);
      }
    }, true);
    this.el.addEventListener('dragover', (e) => {
      if ([...(e.dataTransfer?.types || [])].some((t) => t === 'Files' || t === 'text/plain')) {
        e.preventDefault();
        this.el.classList.add('drop');
      }
    });
    this.el.addEventListener('dragleave', (e) => { if (!this.el.contains(e.relatedTarget)) this.el.classList.remove('drop'); });
    this.el.addEventListener('drop', (e) => {
      this.el.classList.remove('drop');
      const dt = e.dataTransfer;
      const files = [...(dt?.files || [])];
      const text = !files.length && dt?.getData('text/plain');
      if (!files.length && !text) return;
      e.preventDefault();
      e.stopPropagation();
      if (!files.length) { this.setText(text); return; }
      // Folders arrive as entries with no readable text: say so instead of reading nothing.
      const entries = [...(dt.items || [])].map((it) => it.webkitGetAsEntry?.() ?? null);
      const folders = files.filter((f, k) => entries[k]?.isDirectory).map((f) => f.name);
      this.loadFiles(files.filter((f, k) => !entries[k]?.isDirectory), folders);
    }, true);
  }

  record() { return { kind: this.kind, name: this.name, text: this.text }; }

  checkName() {
    const problem = nameProblem(this.name);
    const dup = !problem && this.page.cells.some((c) => c !== this && c.kind === 'dump' && c.name === this.name);
    const bad = problem || (dup ? `another dump is also named ${this.name}` : '');
    this.nameNote.textContent = bad || this.nameFrom || '';
    this.nameNote.classList.toggle('info', !bad);
    this.nameInput.classList.toggle('bad', !!bad);
  }

  edited(text) {
    super.edited(text);
    this.fileName = null;
    clearTimeout(this.timer);
    this.staleAnalysis = true;
    this.timer = setTimeout(() => this.analyze(), 500);
  }

  focus() {
    if (this.editor) this.editor.focus();
    else this.body.querySelector('.bigdump')?.focus();
  }

  /** The editor for a small dump; the head of the text and a Clear button for a big one. */
  showText() {
    if (this.text.length < LARGE) {
      if (!this.editor) this.makeEditor();
      return;
    }
    this.editor?.destroy();
    this.editor = null;
    let pos = 0;
    for (let k = 0; k < 12 && pos !== -1; k++) pos = this.text.indexOf('\n', pos + 1);
    const head = this.text.slice(0, pos === -1 ? Math.min(this.text.length, 4000) : Math.min(pos, 4000));
    const clear = button('Clear', 'clear', { onclick: () => { this.setText(''); this.focus(); } });
    this.body.replaceChildren(el('div', { class: 'bigdump', tabindex: '0', 'data-testid': 'bigdump' },
      el('p', {}, el('b', { text: `${formatBytes(this.text.length)} dump` }),
        ' — too large to edit on this page; the views below read all of it. Paste or drop to replace it. ', clear),
      el('pre', { text: `${head}\n…` })));
  }

  /** Replaces the dump's text (a paste or drop that skipped the editor) and analyses it. */
  setText(text) {
    this.fileName = null;
    const wasBig = !this.editor;
    this.text = text;
    this.blob = null;
    this.restoring = false;
    this.page.store.cellChanged(this.id);
    if (text.length >= LARGE || wasBig) this.showText();
    this.setEditorText(text);
    clearTimeout(this.timer);
    this.analyze();
  }

  /**
   * Several files: the first into this cell, each other one into a new dump cell after it;
   * `folders` (names) could not be read and are said so.
   */
  loadFiles(files, folders = []) {
    const at = this.page.cells.indexOf(this);
    files.slice(1).forEach((f, k) => this.page.insertCell({ kind: 'dump' }, at + 1 + k).loadFile(f));
    if (files.length) this.loadFile(files[0]);
    if (folders.length) {
      const note = el('p', { class: 'err-text', 'data-testid': 'not-read',
        text: `not read: ${folders.map((f) => `folder ${f}`).join(', ')} (a folder is not read yet: drop the dump files inside it)` });
      if (files.length) this.notes = note; else this.statusEl.replaceChildren(note);
    }
  }

  /** True (and says so) when `file` is a profile or another binary file, not a dump text. */
  async isProfile(file) {
    const name = file.name || '';
    const kind = /\.(xplane\.pb|pb)$/i.test(name) ? 'a profile (an XSpace protobuf)'
      : /\.trace\.json(\.gz)?$/i.test(name) ? 'a profile trace' : null;
    let binary = false;
    try {
      const head = new Uint8Array(await file.slice(0, 4096).arrayBuffer());
      binary = head.includes(0) || (head[0] === 0x1f && head[1] === 0x8b);
    } catch { /* unreadable: the analysis says so */ }
    if (!kind && !binary) return false;
    this.setProgress(null);
    this.meta.replaceChildren(el('span', { class: 'err-text', 'data-testid': 'profile-note',
      text: kind
        ? `${name} is ${kind}, not a dump: profiles are read by parseProfile(bytes) in a code cell (a profile cell will take them); this cell kept its text`
        : `${name} is a binary file (compressed? unzip it first), not a dump text; this cell kept its text` }));
    return true;
  }

  loadFile(file) {
    this.isProfile(file).then((profile) => { if (!profile) this.loadDumpFile(file); });
  }

  loadDumpFile(file) {
    // Past the string limit the worker reads the file as bytes; past the core's memory, refuse.
    const tooLarge = tooLargeForCore(file.size);
    if (tooLarge) {
      this.setProgress(null);
      this.meta.replaceChildren(el('span', { class: 'err-text', 'data-testid': 'too-large', text: `${file.name}: ${tooLarge}` }));
      return;
    }
    this.fileName = file.name || null;
    if (!this.name || /^dump\d+$/.test(this.name)) {
      const named = nameForFile(file.name, new Set(this.page.cells.filter((c) => c !== this).map((c) => c.name)));
      if (named) {
        this.name = named.name;
        this.nameFrom = named.note;
        this.nameInput.value = named.name;
        this.nameInput.title = file.name;
        this.checkName();
      }
    }
    this.analyze(file);
  }

  setProgress(p) {
    if (!p) { this.statusEl.replaceChildren(); return; }
    const bits = [p.stage];
    if (p.total) bits.push(p.done != null ? `${formatBytes(p.done)} of ${formatBytes(p.total)}` : formatBytes(p.total));
    // No `done`: a step of unknown length (the core's parse): an indeterminate bar.
    const bar = el('progress', { max: '1', 'data-testid': 'progress' });
    if (p.total && p.done != null) bar.value = p.done / p.total;
    this.statusEl.replaceChildren(el('span', { text: `${bits.join(' · ')}…` }), bar);
  }

  /**
   * Analyses the text (or `file`, whose text then becomes the cell's) in the worker. `restoring`:
   * the file is this cell's stored Blob being read back (its record is not rewritten).
   */
  analyze(file, { restoring = false } = {}) {
    const page = this.page;
    clearTimeout(this.timer);
    this.staleAnalysis = false;
    const gen = ++this.gen;
    this.blob = null;
    this.analysis = null;
    this.meta.textContent = '';
    this.suggest.replaceChildren();
    if (!file && !this.text) {
      this.analysisPromise = Promise.resolve(null);
      this.setProgress(null);
      engine.forget(this.id);
      page.refreshSuggestions();
      return this.analysisPromise;
    }
    this.setProgress({ stage: file ? 'reading' : 'parsing', total: file ? file.size : this.text.length });
    const t0 = performance.now();
    performance.mark('hs:dump:analyze', { detail: this.id });
    // the file's name goes with it: XLA's dump name says the backend of a buffer assignment
    const p = engine.analyze({ key: this.id, text: file ? undefined : this.text, file, name: this.fileName ?? '' }, (pr) => {
      if (gen === this.gen) this.setProgress(pr);
    }).then((a) => {
      if (gen !== this.gen) return null;
      performance.mark('hs:dump:result', { detail: { cell: this.id, steps: a.steps ?? null } });
      // Changes made while this dump was read back (a rename) were held: save them now.
      if (this.restoring && page.store.dirtyCells.has(this.id)) page.store.schedule();
      this.restoring = false;
      if (file) {
        const text = a.text;
        delete a.text;
        this.text = text;
        if (!restoring) page.store.cellChanged(this.id);
        // The reading and the suggested views first: filling the editor with a big text takes a
        // while (2 MB: 50-100 ms in Chromium), so it comes in the next task, once they are shown.
        // (the cell's text as it is then: a run or another file since changes nothing here)
        const fill = () => {
          this.fillPending = false;
          if (this.text.length >= LARGE || !this.editor) this.showText();
          this.setEditorText(this.text);
          performance.mark('hs:dump:text', { detail: this.id });
        };
        // until then the editor holds the old text: run() must not take it for an edit
        if (text.length >= EDITOR_LATER) { this.fillPending = true; setTimeout(fill, 0); } else fill();
      }
      if (a.blob) {
        this.blob = a.blob;
        if (!restoring) page.store.cellChanged(this.id);
      }
      delete a.blob;
      a.ms = Math.round(performance.now() - t0);
      // A dump folder's file name states the stage; it outweighs what the text suggests.
      const named = a.format === 'hlo' && a.summary ? stageFromFileName(this.fileName) : null;
      if (named && named !== a.summary.stage) a.summary = { ...a.summary, stage: named, stage_from: 'file name' };
      this.analysis = a;
      performance.mark('hs:dump:stored', { detail: this.id });
      this.setProgress(null);
      this.showMeta();
      page.refreshSuggestions();
      performance.mark('hs:dump:shown', { detail: this.id });
      return a;
    }, (e) => {
      if (gen !== this.gen) return null;
      this.setProgress(null);
      if (this.text.length >= BLOB_MIN && !this.blob) {
        // No worker answer: store the text anyway (the slow way, on this thread).
        this.blob = file && !restoring ? file : new Blob([this.text], { type: 'text/plain;charset=utf-8' });
        if (!restoring) page.store.cellChanged(this.id);
      }
      // A saved dump that could not be read back stays held: its stored copy is never overwritten
      // with an empty text (pasting a new dump into the cell releases it).
      const message = restoring ? `could not read the saved dump back: ${e.message}` : e.message;
      this.analysis = { error: { message, code: e.code, line: e.line, column: e.column }, format: null };
      this.showMeta();
      return this.analysis;
    });
    this.analysisPromise = p;
    return p;
  }

  /** The status line: format, lines, size, fusion ops, time; or the error. */
  showMeta() {
    const a = this.analysis;
    if (!a) { this.meta.textContent = ''; return; }
    const bits = [formatLabel(a)];
    if (a.lines != null) bits.push(`${formatInt(a.lines)} lines`);
    bits.push(formatBytes(a.bytes ?? this.text.length));
    if (a.fusions && kernelsDecided(a.summary?.stage)) bits.push(`${formatInt(a.fusions.fusion_ops)} fusion ops`);
    if (a.ms != null && a.bytes > 1e6) bits.push(`analysed in ${formatInt(a.ms)} ms`);
    this.meta.replaceChildren(bits.join(' · '));
    if (a.head_of) {
      this.meta.append(el('span', { 'data-testid': 'head-of', text: ` · this cell shows the first ${formatBytes(a.head_of.bytes)} ` +
        `(${formatInt(a.head_of.lines)} lines) of ${formatBytes(a.head_of.total)}: too big for one browser string, the file was read as bytes; ` +
        'the counts on this line are of all of it, the text and the x-ray of that head' }));
    }
    if (this.notes) { this.statusEl.replaceChildren(this.notes); this.notes = null; }
    for (const m of a.module_errors || []) {
      this.meta.append(el('span', { class: 'err-text', 'data-testid': 'module-error', text: ` · module ${m.module} not read: ${m.message}${errorWhere(m)}` }));
    }
    if (a.summary?.partial) this.meta.append(el('span', { class: 'partial', 'data-testid': 'partial', text: ` · ${partialWords(a.summary.partial)}` }));
    this.meta.classList.toggle('err', !!a.error);
    if (a.error) {
      this.meta.append(el('span', { class: 'err-text', text: ` · ${a.error.message}${errorWhere(a.error)}` }));
    }
  }

  async run() {
    if (this.editor && !this.fillPending && this.editor.text !== this.text) this.text = this.editor.text;
    clearTimeout(this.timer);
    await this.analyze();
  }

  dispose() {
    clearTimeout(this.timer);
    super.dispose();
    engine.forget(this.id);
  }
}
