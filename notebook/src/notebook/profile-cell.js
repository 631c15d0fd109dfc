// The profile cell: a jax.profiler capture in the notebook. Upload or drop a `.xplane.pb`, a
// `.trace.json` / `.trace.json.gz`, or a whole log folder (plugins/profile/<run>/…: the newest
// run is used, and the cell says which; a multi-process job's files of that run, one per
// process or host, are read together). The file is read and parsed in the analysis worker
// with a progress bar; <xla-timeline> shows the result. A click on an op opens its HLO: the line
// of a dump cell of the same module when the notebook has one, else what the profile's
// embedded HloModuleProto says. A garbled or truncated profile gives a clear message and the
// cell stays. Each profile is read in a worker of its own: Cancel ends it (and frees its memory). The bytes are not saved with the notebook (they can be hundreds of MB): after a
// reload the cell asks for the file again.
import { Cell, button } from './cell.js';
import { el } from '../dom.js';
import * as engine from '../views/engine.js';
import '../views/xla-timeline.js';
import { defineLine, filesOfDrop, filesOfInput, pickProfile } from './profile-files.js';

function errorText(e) {
  const where = e?.line ? ` (line ${e.line}${e.column ? `, column ${e.column}` : ''})` : '';
  return `${e?.message || String(e)}${e?.code ? ` [${e.code}]` : ''}${where}`;
}

export class ProfileCell extends Cell {
  /** @type {HTMLProgressElement} */ progress = null;
  /** @type {HTMLElement} the stage words beside the progress bar */ stage = null;
  /** @type {HTMLElement} which file (and run) was read */ note = null;
  /** @type {HTMLElement} why the last profile could not be read (the cell stays) */ error = null;
  /** the <xla-timeline> view */ view = null;
  /** the last timeline shown (Timeline JSON) */ timeline = null;
  /** bumped by every open; an answer for an older one is dropped */ gen = 0;
  /** the files of the profile shown ([{ path, file }]): "Save as page" carries them */ files = [];
  /** @type {HTMLButtonElement} ends the read in progress (shown while reading) */ cancel = null;
  /** @type {AbortController|null} the read in progress */ reading = null;

  constructor(rec, page) {
    super(rec, page);
    this.name = rec.name ?? '';
  }

  record() { return { kind: this.kind, name: this.name, text: '' }; }

  buildBody() {
    const fileInput = el('input', { type: 'file', hidden: true, accept: '.pb,.json,.gz', 'data-testid': 'profile-file' });
    const dirInput = el('input', { type: 'file', hidden: true, webkitdirectory: true, multiple: true, 'data-testid': 'profile-folder' });
    const pick = el('div', { class: 'tools' },
      button('Open profile…', 'open-profile', { onclick: () => fileInput.click() }),
      button('Open log folder…', 'open-folder', { onclick: () => dirInput.click() }),
      el('span', { class: 'hint', text: 'or drop a .xplane.pb, a .trace.json(.gz) or a jax.profiler log folder on this cell' }),
      fileInput, dirInput);
    this.progress = el('progress', { class: 'progress', hidden: true, max: '1', 'data-testid': 'profile-progress' });
    this.stage = el('span', { class: 'stage', 'data-testid': 'profile-stage' });
    // before the stage words, whose width changes with every percent: a button that moves is hard to hit
    this.cancel = button('Cancel', 'profile-cancel', { onclick: () => this.reading?.abort() });
    this.cancel.hidden = true;
    this.note = el('p', { class: 'note', 'data-testid': 'profile-note' });
    this.error = el('p', { class: 'error', role: 'alert', 'data-testid': 'profile-error' });
    this.view = document.createElement('xla-timeline');
    this.view.hidden = true;
    this.view.hloFor = (row) => this.hloFor(row);
    this.body.replaceChildren(pick, el('div', { class: 'progress-row' }, this.progress, this.cancel, this.stage), this.note, this.error, this.view);
    if (this.name) this.note.textContent = `${this.name}: open it again to see its timeline (profiles are not saved with the notebook)`;
    fileInput.addEventListener('change', () => { const f = filesOfInput(fileInput); fileInput.value = ''; this.open(f); });
    dirInput.addEventListener('change', () => { const f = filesOfInput(dirInput); dirInput.value = ''; this.open(f); });
    this.el.addEventListener('dragover', (e) => { if (e.dataTransfer?.types?.includes('Files')) { e.preventDefault(); this.el.classList.add('drop'); } });
    this.el.addEventListener('dragleave', (e) => { if (!this.el.contains(e.relatedTarget)) this.el.classList.remove('drop'); });
    this.el.addEventListener('drop', async (e) => {
      if (!e.dataTransfer?.files?.length && !e.dataTransfer?.items?.length) return;
      e.preventDefault();
      this.el.classList.remove('drop');
      this.open(await filesOfDrop(e.dataTransfer));
    });
  }

  /** The line of a dump cell of the op's module that defines it, else null (the view then shows the proto's words). */
  hloFor(row) {
    for (const c of this.page.cells) {
      if (c.kind !== 'dump' || !c.text) continue;
      const module = c.analysis?.summary?.module;
      if (row.module && module && module !== row.module) continue;
      const l = defineLine(c.text, row.name);
      if (l) return { ...l, source: `dump cell ${c.name}` };
    }
    return null;
  }

  /** Opens a profile among files: [{ path, file }] (a drop, a picked file or folder, or code). */
  async open(entries) {
    const my = ++this.gen;
    this.error.textContent = '';
    const chosen = pickProfile(entries);
    if (!chosen) {
      this.error.textContent = entries.length
        ? `no profile among ${entries.length} file${entries.length === 1 ? '' : 's'}: expected a .xplane.pb or a .trace.json(.gz), as jax.profiler writes under plugins/profile/<run>/`
        : 'nothing was dropped';
      return;
    }
    this.note.textContent = chosen.note;
    this.progress.hidden = false;
    this.progress.removeAttribute('value');
    this.stage.textContent = 'reading…';
    this.reading?.abort();
    const reading = new AbortController();
    this.reading = reading;
    this.cancel.hidden = false;
    try {
      const t = await engine.profile({ key: this.id, file: chosen.entries.map((e) => e.file) }, (p) => {
        if (my !== this.gen) return;
        const mb = (n) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0);
        const pct = p.total ? ` ${Math.floor((100 * (p.done ?? 0)) / p.total)}%` : '';
        const of = p.total && p.unit !== 'steps' ? ` (${mb(p.done ?? 0)} of ${mb(p.total)} MB)` : '';
        this.stage.textContent = `${p.stage}…${pct}${of}`;
        if (p.total) { this.progress.max = p.total; this.progress.value = p.done ?? 0; } else this.progress.removeAttribute('value');
      }, { signal: reading.signal });
      if (my !== this.gen) return;
      // the answer's task took its copy from the worker; the view is drawn in a task of its own
      await new Promise((ok) => setTimeout(ok, 0));
      if (my !== this.gen) return;
      const label = chosen.entries.length > 1 ? `${chosen.entries.length} files of ${chosen.run ?? 'one job'}` : chosen.entry.path;
      this.name = label;
      this.timeline = t;
      this.files = chosen.entries;
      this.view.data = { timeline: t, name: label };
      this.view.hidden = false;
      // what was skipped or guessed (a truncated file: what was read before the cut)
      if (t.warnings?.length) this.error.textContent = t.warnings.map((w) => `warning: ${w.message}`).join('\n');
      this.page.store.cellChanged(this.id);
    } catch (e) {
      if (my !== this.gen) return;
      if (e?.code === 'HS_E_CANCELLED') this.note.textContent = `${chosen.entry.path}: cancelled (its memory was released); open it again to read it`;
      else this.error.textContent = `${chosen.entry.path}: ${errorText(e)}`;
    } finally {
      if (my === this.gen) { this.progress.hidden = true; this.stage.textContent = ''; this.cancel.hidden = true; this.reading = null; }
    }
  }

  focus() { this.body.querySelector('button')?.focus(); }

  dispose() {
    super.dispose();
    this.reading?.abort();
    engine.forget(this.id);
  }
}
