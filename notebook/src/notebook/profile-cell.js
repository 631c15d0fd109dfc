// The profile cell: a jax.profiler capture in the notebook. Upload or drop a `.xplane.pb`, a
// `.trace.json` / `.trace.json.gz`, or a whole log folder (plugins/profile/<run>/…: the newest
// run is used, and the cell says which). The file is read and parsed in the analysis worker
// with a progress bar; <xla-timeline> shows the result. A click on an op opens its HLO: the line
// of a dump cell of the same module when the notebook has one, else what the profile's
// embedded HloModuleProto says. A garbled or truncated profile gives a clear message and the
// cell stays. The bytes are not saved with the notebook (they can be hundreds of MB): after a
// reload the cell asks for the file again.
import { el } from '../views/common.js';
import * as engine from '../views/engine.js';
import '../views/xla-timeline.js';
import { defineLine, filesOfDrop, filesOfInput, pickProfile } from './profile-files.js';

function errorText(e) {
  const where = e?.line ? ` (line ${e.line}${e.column ? `, column ${e.column}` : ''})` : '';
  return `${e?.message || String(e)}${e?.code ? ` [${e.code}]` : ''}${where}`;
}

/**
 * Fills cell.body. host: { dumps() -> [{ name, module, text }], changed() } (the notebook's
 * dump cells, and "save this cell").
 */
export function buildProfileBody(cell, host) {
  const fileInput = el('input', { type: 'file', hidden: true, accept: '.pb,.json,.gz', 'data-testid': 'profile-file' });
  const dirInput = el('input', { type: 'file', hidden: true, webkitdirectory: true, multiple: true, 'data-testid': 'profile-folder' });
  const pick = el('div', { class: 'pick' },
    el('button', { type: 'button', text: 'open a profile…', onclick: () => fileInput.click() }),
    el('button', { type: 'button', text: 'open a log folder…', onclick: () => dirInput.click() }),
    el('span', { class: 'hint', text: 'or drop a .xplane.pb, a .trace.json(.gz) or a jax.profiler log folder on this cell' }),
    fileInput, dirInput);
  const bar = el('progress', { class: 'progress', hidden: true, max: '1', 'data-testid': 'profile-progress' });
  const stage = el('span', { class: 'stage' });
  const note = el('p', { class: 'note', 'data-testid': 'profile-note' });
  const err = el('p', { class: 'error', role: 'alert', 'data-testid': 'profile-error' });
  const view = document.createElement('xla-timeline');
  view.hidden = true;
  view.hloFor = (row) => {
    for (const d of host.dumps()) {
      if (!d.text || (row.module && d.module && d.module !== row.module)) continue;
      const l = defineLine(d.text, row.name);
      if (l) return { ...l, source: `dump cell ${d.name}` };
    }
    return null;
  };
  cell.body.replaceChildren(pick, el('div', { class: 'progress-row' }, bar, stage), note, err, view);
  if (cell.name) note.textContent = `${cell.name}: open it again to see its timeline (profiles are not saved with the notebook)`;

  let gen = 0;
  async function open(entries) {
    const my = ++gen;
    err.textContent = '';
    const chosen = pickProfile(entries);
    if (!chosen) {
      err.textContent = entries.length
        ? `no profile among ${entries.length} file${entries.length === 1 ? '' : 's'}: expected a .xplane.pb or a .trace.json(.gz), as jax.profiler writes under plugins/profile/<run>/`
        : 'nothing was dropped';
      return;
    }
    note.textContent = chosen.note;
    bar.hidden = false;
    bar.removeAttribute('value');
    stage.textContent = 'reading…';
    try {
      const t = await engine.profile({ key: cell.id, file: chosen.entry.file }, (p) => {
        if (my !== gen) return;
        stage.textContent = `${p.stage}…`;
        if (p.total) { bar.max = p.total; bar.value = p.done ?? 0; } else bar.removeAttribute('value');
      });
      if (my !== gen) return;
      cell.name = chosen.entry.path;
      cell.timeline = t;
      view.data = { timeline: t, name: chosen.entry.path };
      view.hidden = false;
      host.changed();
    } catch (e) {
      if (my !== gen) return;
      err.textContent = `${chosen.entry.path}: ${errorText(e)}`;
    } finally {
      if (my === gen) { bar.hidden = true; stage.textContent = ''; }
    }
  }

  fileInput.addEventListener('change', () => { const f = filesOfInput(fileInput); fileInput.value = ''; open(f); });
  dirInput.addEventListener('change', () => { const f = filesOfInput(dirInput); dirInput.value = ''; open(f); });
  cell.el.addEventListener('dragover', (e) => { if (e.dataTransfer?.types?.includes('Files')) { e.preventDefault(); cell.el.classList.add('drop'); } });
  cell.el.addEventListener('dragleave', (e) => { if (!cell.el.contains(e.relatedTarget)) cell.el.classList.remove('drop'); });
  cell.el.addEventListener('drop', async (e) => {
    if (!e.dataTransfer?.files?.length && !e.dataTransfer?.items?.length) return;
    e.preventDefault();
    cell.el.classList.remove('drop');
    open(await filesOfDrop(e.dataTransfer));
  });
  /** Opens entries given by code or tests: [{ path, file }]. */
  cell.openProfile = open;
}
