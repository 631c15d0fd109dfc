// The notebook's folder cell: a dump folder (dropped, picked, an archive, or a pasted `ls`
// listing) shown by <xla-pipeline> (views/xla-pipeline.js). What is saved is the folder as read
// (the Passes object of readPasses, as JSON in the cell's text), not its files: a reload shows
// the same stepper, a new drop replaces it.
import '../views/xla-pipeline.js';
import { Cell } from './cell.js';
import { el } from '../dom.js';

export class FolderCell extends Cell {
  /** @type {HTMLElement} the <xla-pipeline> of this cell */ view = null;

  buildBody() {
    this.view = document.createElement('xla-pipeline');
    this.view.dataset.testid = 'folder-view';
    if (this.text) {
      try { this.view.data = JSON.parse(this.text); } catch { /* a damaged record: the empty cell */ }
    }
    this.view.addEventListener('pipeline-load', (e) => {
      this.text = JSON.stringify(e.detail.passes);
      this.page.store.cellChanged(this.id);
    });
    this.body.replaceChildren(el('div', { class: 'folder-cell' }, this.view));
  }

  focus() { this.view?.shadowRoot?.querySelector('button')?.focus(); }
}
