// What a dump cell offers for each format the core detects: THE extension point for new readers'
// views. A dump cell looks up its analysis's `format` (the name the core's registry gives it:
// "hlo", "stablehlo", "jaxpr", later "llvm", "memory", "listing", ...) in DUMP_FORMATS, and
// shows the entry's `label` in its status line and its `views` as suggested code cells, the
// first one highlighted.
//
import { dumpLabel, kernelsDecided } from '../core-words.js';

// Adding a reader's view is one line in DUMP_FORMATS, for example
//     memory: { label: 'XLA memory message', views: [VIEWS.memory, VIEWS.summary] },
// after adding the view itself: its element in notebook/src/views/<name>.js, and its
// `show.<name>(dump)` in runner.js (SHOW_VIEWS), and its entry in VIEWS below.
//
// A view entry: { label, code(name) } makes the code cell `code(name)` for the dump named
// `name`; an x-ray-like view that pairs two dumps has `pair: { format, side }` and
// `code(name, partner)`, `pairLabel(name, partner)`: the partner is the dump of `format` the
// evidence ties to this one (suggest.js), or null for a one-sided view. `pair.decided` takes only
// partners whose kernels are decided (optimized HLO, not HLO before optimizations); `pair.required`
// offers the view only with a partner. `code(name, partner, partnerFirst)`: partnerFirst is true
// when the partner's cell is above this one.

export const VIEWS = {
  summary: { label: 'summary', code: (n) => `show.summary(${n})` },
  fusions: { label: 'fusion table', code: (n) => `show.fusions(${n})` },
  memory: { label: 'memory view', code: (n) => `show.memory(${n})` },
  padding: { label: 'padding table', code: (n) => `show.padding(${n})` },
  /** This dump is the optimized side (right); the partner is the StableHLO it came from. */
  xrayOut: {
    pair: { format: 'stablehlo', side: 'left' },
    label: (n, p) => (p ? `x-ray ${p} → ${n}` : `x-ray of ${n}`),
    code: (n, p) => `show.xray(${p ?? 'null'}, ${n})`,
  },
  /** An LLVM IR dump at three levels: the partner is the optimized HLO its kernels come from. */
  levels: {
    pair: { format: 'hlo', side: 'left' },
    label: (n, p) => (p ? `levels ${p} → ${n}` : `levels of ${n}`),
    code: (n, p) => `show.levels(${p ?? 'null'}, ${n})`,
  },
  /** Two compiles compared (`hloscope diff`): A is the cell above (the reference), B the one below. */
  diff: {
    pair: { format: 'hlo', decided: true, required: true },
    label: (n, p) => `diff with ${p}`,
    code: (n, p, partnerFirst) => (partnerFirst ? `show.diff(${p}, ${n})` : `show.diff(${n}, ${p})`),
  },
  /** This dump is the program XLA received (left); the partner is the HLO it became. */
  xrayIn: {
    pair: { format: 'hlo', side: 'right' },
    label: (n, p) => (p ? `x-ray ${n} → ${p}` : `x-ray of ${n}`),
    code: (n, p) => `show.xray(${n}, ${p ?? 'null'})`,
  },
};

/**
 * Format name (core registry) -> { label, views }. Unknown formats use UNKNOWN_FORMAT. `label`
 * and `views` may be functions of the dump's analysis (HLO: by the pipeline stage the core
 * read, so HLO before optimizations is not offered an x-ray of kernels it does not have yet).
 */
export const DUMP_FORMATS = {
  hlo: {
    label: (a) => dumpLabel('hlo', a?.summary?.stage, a?.format_label),
    views: (a) => (kernelsDecided(a?.summary?.stage) ? [VIEWS.xrayOut, VIEWS.diff, VIEWS.fusions, VIEWS.summary, VIEWS.padding] : [VIEWS.summary]),
  },
  stablehlo: { label: 'StableHLO', views: [VIEWS.xrayIn, VIEWS.summary] },
  jaxpr: { label: 'jaxpr', views: [VIEWS.summary] },
  memory: { label: (a) => MEMORY_KINDS[a?.memory?.kind] ?? 'XLA memory text', views: [VIEWS.memory] },
  llvm: { label: (a) => (a?.summary?.optimized ? 'LLVM IR (optimized)' : 'LLVM IR'), views: [VIEWS.levels] },
};

const MEMORY_KINDS = { oom: 'XLA out-of-memory message', buffer_assignment: 'buffer assignment', memory_usage_report: 'memory-usage report' };

export const UNKNOWN_FORMAT = { label: 'unknown format', views: [VIEWS.summary] };

/** The label of a dump cell's analysis: the table's, else the core registry's, else "unknown format". */
export function formatLabel(analysis) {
  if (analysis?.format && !Object.hasOwn(DUMP_FORMATS, analysis.format) && analysis.format_label) return analysis.format_label;
  const f = dumpFormat(analysis?.format);
  return typeof f.label === 'function' ? f.label(analysis) : f.label;
}

/** The views a dump cell's analysis offers. */
export function formatViews(analysis) {
  const f = dumpFormat(analysis?.format);
  return typeof f.views === 'function' ? f.views(analysis) : f.views;
}

/** The entry for a format name (never null). */
export function dumpFormat(name) {
  return (name && Object.hasOwn(DUMP_FORMATS, name) && DUMP_FORMATS[name]) || UNKNOWN_FORMAT;
}
