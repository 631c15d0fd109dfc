// The notebook's folder cell: a dump folder (dropped, picked, an archive, or a pasted `ls`
// listing) shown by <xla-pipeline>. What is saved is the folder as read (the Passes object of
// readPasses, as JSON in the cell's text), not the files: a reload shows the same stepper.
import '../views/xla-pipeline.js';
import { el } from '../views/common.js';

/**
 * The body of a folder cell. `cell.text` holds the saved Passes JSON ('' when empty);
 * `onChange()` is called after a new folder was read (the caller saves the cell).
 */
export function folderCellBody(cell, onChange) {
  const view = document.createElement('xla-pipeline');
  view.dataset.testid = 'folder-view';
  if (cell.text) {
    try { view.data = JSON.parse(cell.text); } catch { /* a damaged record: show the empty cell */ }
  }
  view.addEventListener('pipeline-load', (e) => {
    cell.text = JSON.stringify(e.detail.passes);
    onChange?.(cell);
  });
  cell.view = view;
  return el('div', { class: 'folder-cell' }, view);
}
