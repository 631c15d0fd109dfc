// Saving the notebook in the browser (IndexedDB: dumps are megabytes; localStorage holds ~5 MB).
//
// Layout: database "hloscope-notebook" v1, store "meta" (key "current": { version, title, order:
// [cell ids], saved }) and store "cells" (key = cell id: { id, kind, name, text }, or for a dump of
// BLOB_MIN characters or more { id, kind, name, text: '', blob, length }: the worker makes the
// Blob, so the page never serializes megabytes on its main thread). A change to one
// cell rewrites only that cell's record, so typing in a small cell never re-saves a 50 MB dump.
//
// Failures (quota, private mode, a blocked database) never throw into the page: the caller gets
// them through onStatus and keeps everything in memory; the next change retries.

import { BLOB_MIN } from '../views/analysis-core.js';

const DB = 'hloscope-notebook';
const VERSION = 1;

function req(r) {
  return new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
}

function txDone(tx) {
  return new Promise((ok, fail) => {
    tx.oncomplete = () => ok();
    tx.onerror = () => fail(tx.error);
    tx.onabort = () => fail(tx.error || new DOMException('transaction aborted', 'AbortError'));
  });
}

export class NotebookStore {
  constructor({ onStatus } = {}) {
    this.onStatus = onStatus || (() => {});
    this.db = null;
    this.dirtyCells = new Set();
    this.removed = new Set();
    this.metaDirty = false;
    this.timer = 0;
    this.saving = null;
    this.getState = null; // () => { title, cells: [{ id, kind, name, text }] }
    this.lastError = null;
  }

  async open() {
    if (this.db) return this.db;
    if (typeof indexedDB === 'undefined' || !indexedDB) throw new Error('this browser offers no IndexedDB');
    const r = indexedDB.open(DB, VERSION);
    r.onupgradeneeded = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta');
      if (!db.objectStoreNames.contains('cells')) db.createObjectStore('cells', { keyPath: 'id' });
    };
    r.onblocked = () => this.onStatus({ state: 'error', error: new Error('the notebook database is blocked by another tab') });
    this.db = await req(r);
    this.db.onversionchange = () => { this.db.close(); this.db = null; };
    return this.db;
  }

  /** The saved notebook ({ title, cells }), or null when none was saved. Throws on failure. */
  async load() {
    const db = await this.open();
    const tx = db.transaction(['meta', 'cells'], 'readonly');
    const meta = await req(tx.objectStore('meta').get('current'));
    if (!meta) return null;
    const cells = await req(tx.objectStore('cells').getAll());
    const byId = new Map(cells.map((c) => [c.id, c]));
    return {
      title: meta.title || '',
      cells: meta.order.map((id) => byId.get(id)).filter(Boolean),
    };
  }

  cellChanged(id) { this.dirtyCells.add(id); this.metaDirty = true; this.schedule(); }
  cellRemoved(id) { this.removed.add(id); this.dirtyCells.delete(id); this.metaDirty = true; this.schedule(); }
  metaChanged() { this.metaDirty = true; this.schedule(); }
  /** Everything is rewritten at the next save (after an import or a reset). */
  replaceAll() { this.replacing = true; this.metaDirty = true; this.schedule(); }

  /**
   * A report page keeps its cells in the tab only: the notebook this browser saved (file:// pages
   * share one origin) is never read or overwritten by it. "Save as page" keeps its changes.
   */
  detach() { this.detached = true; clearTimeout(this.timer); }

  schedule(delay = 250) {
    if (this.detached) return;
    this.onStatus({ state: 'pending' });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), delay);
  }

  /** Saves what changed now. Resolves true when saved, false on failure (reported). */
  async flush() {
    clearTimeout(this.timer);
    if (this.detached) return true;
    if (this.saving) { await this.saving.catch(() => {}); }
    if (!this.metaDirty && !this.dirtyCells.size && !this.removed.size && !this.replacing) return true;
    this.saving = this._write();
    try {
      await this.saving;
      this.lastError = null;
      this.onStatus({ state: 'saved', at: new Date() });
      return true;
    } catch (error) {
      this.lastError = error;
      this.onStatus({ state: 'error', error });
      return false;
    } finally {
      this.saving = null;
    }
  }

  async _write() {
    const state = this.getState();
    const dirty = new Set(this.dirtyCells);
    const removed = new Set(this.removed);
    const replacing = this.replacing;
    const waiting = new Set();
    // Clear the marks first; on failure they are put back so the next save retries them.
    this.dirtyCells.clear();
    this.removed.clear();
    this.metaDirty = false;
    this.replacing = false;
    try {
      const db = await this.open();
      const tx = db.transaction(['meta', 'cells'], 'readwrite');
      const done = txDone(tx);
      done.catch(() => {}); // awaited below; a synchronous failure aborts first
      try {
        const cells = tx.objectStore('cells');
        if (replacing) cells.clear();
        for (const id of removed) cells.delete(id);
        for (const c of state.cells) {
          if (!replacing && !dirty.has(c.id)) continue;
          if (c.hold) { waiting.add(c.id); continue; } // still being read back: keep the stored copy
          const text = c.text ?? '';
          if (text.length >= BLOB_MIN) {
            // A big dump is stored as the Blob the worker made of it; until it exists the cell
            // stays unsaved (and marked, so the save after its analysis writes it).
            if (c.blob) cells.put({ id: c.id, kind: c.kind, name: c.name ?? '', text: '', blob: c.blob, length: text.length });
            else waiting.add(c.id);
          } else {
            cells.put({ id: c.id, kind: c.kind, name: c.name ?? '', text });
          }
        }
        tx.objectStore('meta').put({ version: 1, title: state.title || '', order: state.cells.map((c) => c.id), saved: Date.now() }, 'current');
      } catch (e) {
        // All or nothing: a half-written notebook (cleared, not refilled) must never commit.
        try { tx.abort(); } catch { /* already finished */ }
        throw e;
      }
      await done;
      for (const id of waiting) this.dirtyCells.add(id);
    } catch (e) {
      for (const id of dirty) this.dirtyCells.add(id);
      for (const id of removed) this.removed.add(id);
      this.metaDirty = true;
      if (replacing) this.replacing = true;
      if (this.db && /InvalidState|closing/i.test(String(e))) this.db = null;
      throw e;
    }
  }

  /** True when something typed has not reached storage yet. */
  get unsaved() {
    if (this.detached) return false;
    return this.metaDirty || this.dirtyCells.size > 0 || this.removed.size > 0 || !!this.replacing || !!this.saving;
  }
}

/** The export file: plain JSON a person can read. */
export function exportNotebook(state) {
  return JSON.stringify({
    format: 'hloscope-notebook',
    version: 1,
    title: state.title || '',
    exported: new Date().toISOString(),
    cells: state.cells.map((c) => ({ kind: c.kind, ...(c.kind === 'dump' ? { name: c.name ?? '' } : {}), text: c.text ?? '' })),
  }, null, 1);
}

/** Parses an export file; throws an Error with a plain message when it is not one. */
export function importNotebook(text) {
  let data;
  try { data = JSON.parse(text); } catch (e) { throw new Error(`not a notebook file (not JSON: ${e.message})`); }
  if (!data || data.format !== 'hloscope-notebook' || !Array.isArray(data.cells)) throw new Error('not a notebook file (no "format": "hloscope-notebook")');
  if (data.version !== 1) throw new Error(`notebook file version ${data.version} is newer than this page understands`);
  const kinds = new Set(['markdown', 'dump', 'code', 'folder', 'profile']);
  return {
    title: typeof data.title === 'string' ? data.title : '',
    cells: data.cells.map((c, i) => {
      if (!c || !kinds.has(c.kind)) throw new Error(`cell ${i + 1}: unknown kind ${JSON.stringify(c?.kind)}`);
      return { kind: c.kind, name: typeof c.name === 'string' ? c.name : '', text: typeof c.text === 'string' ? c.text : '' };
    }),
  };
}
