// The analysis of an LLVM IR dump (XLA's *.ir-no-opt.ll / *.ir-with-opt.ll) for a dump cell: the
// core's reader (readLlvm) in place of parse(), which refuses LLVM IR (its own model, not a
// document of computations). Runs in the worker (analysis-core.js) or on the page.

/** True when the core detects LLVM IR in `text`. */
export function isLlvm(api, text) {
  return typeof api.detectFormat === 'function' && typeof api.readLlvm === 'function' && api.detectFormat(text) === 'llvm';
}

/** Fills `out` (analysis-core's { format, bytes, lines, ... }) for an LLVM IR text. */
export function analyzeLlvm(api, text, out) {
  out.format = 'llvm';
  try {
    const j = api.readLlvm(text);
    const loops = j.functions.reduce((n, f) => n + f.loops.length, 0);
    out.summary = {
      format: 'llvm', module: j.module, modules: 1, lines: out.lines, computations: j.functions.length,
      instructions: null, warnings: j.warnings,
      // what the LLVM level holds, for the status line and the levels view
      functions: j.functions.length, kernels: j.functions.filter((f) => f.kernel).length, loops,
      vector_widths: [...new Set(j.functions.flatMap((f) => f.vector_widths))],
      optimized: /^define [^\n]*\blocal_unnamed_addr\b/m.test(text),
    };
    out.evidence = { module: null };
  } catch (e) {
    out.error = { message: e.message, code: e.code, line: e.line, column: e.column };
  }
  return out;
}

/** Splits LLVM IR texts into the two levels: optimized ones carry LLVM's local_unnamed_addr. */
export function splitLevels(texts) {
  const noopt = [];
  const opt = [];
  for (const t of texts) (/^define [^\n]*\blocal_unnamed_addr\b/m.test(t) ? opt : noopt).push(t);
  return { noopt, opt };
}
