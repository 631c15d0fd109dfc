// The analysis of an LLVM IR dump (XLA's *.ir-no-opt.ll / *.ir-with-opt.ll) for a dump cell: the
// core's reader (readLlvm) in place of parse(), which refuses LLVM IR (its own model, not a
// document of computations). Runs in the worker (analysis-core.js) or on the page.

/** True when `format` (the core's detectFormat) is LLVM IR and this API reads it. */
export function isLlvm(api, format) {
  return format === 'llvm' && typeof api.readLlvm === 'function';
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
      optimized: j.optimized, // the core's reading: LLVM's optimizer ran (true), not (false), unknown (null)
    };
    out.evidence = { module: null };
  } catch (e) {
    out.error = { message: e.message, code: e.code, line: e.line, column: e.column };
  }
  return out;
}

/**
 * The loops of one or more functions (the core's `loops` per function: depth, first_line,
 * last_line, trip_count) as nests: a loop's parent is the enclosing loop one level up. Returns
 * [{ loop, children }] for the outermost loops, in line order.
 */
export function loopNests(loopLists) {
  const roots = [];
  for (const loops of loopLists) {
    const stack = [];
    for (const L of [...loops].sort((a, b) => a.first_line - b.first_line || a.depth - b.depth)) {
      const node = { loop: L, children: [] };
      while (stack.length && !(stack.at(-1).loop.depth < L.depth && L.first_line >= stack.at(-1).loop.first_line && L.last_line <= stack.at(-1).loop.last_line)) stack.pop();
      (stack.length ? stack.at(-1).children : roots).push(node);
      stack.push(node);
    }
  }
  return roots;
}

/** "1 loop (trip counts 1024)", "3 loop nests, each 2 deep (trip counts 96 × 1152; ...)". */
export function nestWords(loopLists) {
  const roots = loopNests(loopLists);
  if (!roots.length) return 'no loop';
  const trip = (L) => (L.trip_count == null ? '?' : String(L.trip_count));
  const words = (n) => trip(n.loop) + (!n.children.length ? ''
    : n.children.length === 1 ? ` × ${words(n.children[0])}`
    : ` × (${n.children.map(words).join(', then ')})`);
  const deep = (n) => 1 + Math.max(0, ...n.children.map(deep));
  const counts = roots.map(words).join('; ');
  const k = roots.length;
  if (roots.every((n) => !n.children.length)) {
    return k === 1 ? `1 loop (trip counts ${counts})` : `${k} separate loops (trip counts ${counts})`;
  }
  const depths = roots.map(deep);
  const same = depths.every((d) => d === depths[0]);
  const how = same ? `${k > 1 ? ', each' : ','} ${depths[0]} deep` : `, ${depths.slice(0, -1).join(', ')} and ${depths.at(-1)} deep`;
  return `${k} loop nest${k > 1 ? 's' : ''}${how} (trip counts ${counts})`;
}
