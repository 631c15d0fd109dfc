// The readers of the views other than a dump's analysis (analysis-core.js): a memory text, a
// module's padding table, one module's three levels, a dump folder. Run by the analysis worker
// (worker.js) or, when no worker starts, by engine.js on the page: one function each, so both
// make the same calls into the core. `api` is the JS API (wasm/hloscope.mjs), loaded.

/** An XLA out-of-memory message, buffer assignment or memory-usage report in numbers, joined to
 * the optimized HLO `hlo` (a text; '' for none: the core's join, and its policy for an HLO that
 * does not parse, stay in the core). */
export function readMemoryText(api, text, hlo = '', name = '') {
  return api.readMemory(String(text ?? ''), hlo ?? '', name ?? '');
}

/** A module's padding table: one parse, the document's own layouts. */
export function readLayouts(api, text) {
  const doc = api.parse(String(text ?? ''));
  try {
    return doc.layouts();
  } finally {
    doc.free();
  }
}

/**
 * One module's levels: the optimized HLO `hlo` (a text, '' for none) parsed ONCE, and every LLVM
 * IR text of `lls` (the .ll parts of both levels) read and joined to that one document. Returns
 * { llvm: [readLlvm result per text, in order], fusions, computations } (the HLO's fusion list and
 * every computation of every module; [] without an HLO).
 */
export function readLevels(api, hlo, lls) {
  if (typeof api.readLlvm !== 'function') throw new Error('this build of the core has no LLVM IR reader');
  const doc = hlo ? api.parse(hlo) : null;
  try {
    const llvm = (lls || []).map((text) => api.readLlvm(text, doc ?? ''));
    const fusions = doc ? doc.fusions().fusions : [];
    const computations = doc ? doc.computations().modules.flatMap((m) => m.computations) : [];
    return { llvm, fusions, computations };
  } finally {
    doc?.free();
  }
}

// A name that promises an archive: its bytes go to the core's walker even when they are none, so
// the error is the core's "not a readable archive", as the CLI says it (never read as a listing).
const ARCHIVE_NAME = /\.(zip|tar|tgz|gz)$/i;

/** Whether a dump folder input is picked or dropped files, `{ files: [...] }` (folderInput reads them). */
export function isPickedFiles(input) {
  return !!input && typeof input === 'object' && !Array.isArray(input) && Array.isArray(input.files);
}

/**
 * A dump folder's picked or dropped files, `{ files: [{ name, file }] }` (file: a File or Blob,
 * read here), as readPasses input: one archive (the core's sniff of its head) walked by the core;
 * one listing file as its text; else the files, with bytes only where the core reads them
 * (passesWantsBytes) and a gzipped step's text by the platform's gunzip. Any other input (a
 * listing, [{ name, data }]) is returned as it is.
 */
export async function folderInput(api, input) {
  if (!isPickedFiles(input)) return input;
  const { files } = input;
  if (files.length === 1) {
    const head = new Uint8Array(await files[0].file.slice(0, 512).arrayBuffer());
    if (api.archiveKind(head) !== 'none' || ARCHIVE_NAME.test(files[0].name)) {
      return api.readArchive(new Uint8Array(await files[0].file.arrayBuffer()));
    }
    if (/\.(txt|lst|list)$/i.test(files[0].name) && !files[0].name.startsWith('module_')) return files[0].file.text();
  }
  return Promise.all(files.map(async (f) => {
    if (!api.passesWantsBytes(f.name)) return { name: f.name, data: null };
    let data = new Uint8Array(await f.file.arrayBuffer());
    if (api.archiveKind(data) === 'gzip') {
      try { data = await api.gunzip(data); } catch { /* the core says it is gzip */ }
    }
    return { name: f.name, data };
  }));
}

/** A dump folder read (readPasses): `input` a listing, [{ name, data }] or { files } (folderInput), `label` its name. */
export async function readFolder(api, input, label) {
  return api.readPasses(await folderInput(api, input), { label });
}

/** Two dump folders compared pass by pass: `a`, `b` each { input, label } (inputs as readFolder's). */
export async function compareFolders(api, a, b) {
  const [ia, ib] = [await folderInput(api, a.input), await folderInput(api, b.input)];
  return api.comparePasses(ia, ib, { labels: [a.label, b.label] });
}

/**
 * Which files of a dump folder hold one module's three levels: the core's choice over their names
 * (api.dumpLevels, the rule `hloscope llvm --hlo DIR` uses to find a .ll's HLO). `files`:
 * [{ name, text }] or [{ name, file }] (only the chosen files are read). Returns the texts
 * { hlo, noopt: [...], opt: [...] } ('' for no HLO), or null when the folder has no .ll file.
 */
export async function pickLevels(api, files) {
  const named = (files || []).filter((f) => f && typeof f.name === 'string' && (typeof f.text === 'string' || f.file));
  const pick = api.dumpLevels(named.map((f) => f.name));
  if (!pick) return null;
  const byName = new Map(named.map((f) => [f.name, f]));
  const text = async (n) => { const f = byName.get(n); return typeof f.text === 'string' ? f.text : f.file.text(); };
  return {
    hlo: pick.hlo == null ? '' : await text(pick.hlo),
    noopt: await Promise.all(pick.noopt.map(text)),
    opt: await Promise.all(pick.opt.map(text)),
  };
}
