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

/** A dump folder read (readPasses): `input` a listing or [{ name, data }], `label` its name. */
export function readFolder(api, input, label) {
  return api.readPasses(input, { label });
}

/** Two dump folders compared pass by pass: `a`, `b` each { input, label }. */
export function compareFolders(api, a, b) {
  return api.comparePasses(a.input, b.input, { labels: [a.label, b.label] });
}
