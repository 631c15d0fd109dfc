// What the core's results mean, in words: ONE module for the notebook, the views and the drills
// (no DOM, no wasm, no bundler-only imports, so node tests import it too). The core decides; these
// words only name its decisions. Formats, kinds and codes come from the core's registry
// (wasm/hloscope.mjs registry(), detectFormat()), never from a copy here.

/**
 * HLO ops that move or name data rather than compute (what the x-ray dims and the drills do not
 * count as "ops left on their own"). The core's lists: hs_instr_is_alias (analysis.c) and
 * is_dim_hlo (xray.c); `copy` is here too because a learner does not act on it.
 */
export const BOOKKEEPING_OPS = new Set(['parameter', 'constant', 'tuple', 'get-tuple-element', 'bitcast', 'copy',
  'after-all', 'partition-id', 'replica-id']);

/**
 * The memory space a layout names (`S(n)` in `f32[8]{0:S(1)}`), in words. `backend` ('cpu',
 * 'gpu', 'tpu' or null when unknown) picks the name of the default memory.
 */
export function memorySpaceWords(space, backend = null) {
  switch (space) {
    case null: case undefined: return null;
    case 0:
      if (backend === 'cpu') return 'S(0): the default memory (RAM on the CPU)';
      if (backend === 'gpu' || backend === 'tpu') return 'S(0): the default memory (HBM)';
      return 'S(0): the default memory (HBM on an accelerator, RAM on the CPU)';
    case 1: return 'S(1): the fast on-chip memory (VMEM on a TPU)';
    case 2: return 'S(2): TPU sync-flag memory';
    case 5: return 'S(5): pinned host memory';
    case 6: return 'S(6): unpinned host memory';
    default: return space < 0 ? null : `S(${space}): memory space ${space}`;
  }
}

/**
 * The backend an optimized HLO text was compiled for, from marks only that backend prints:
 * TPU tiled layouts (`{1,0:T(8,128)}`) or tpu_custom_call; GPU library and Triton calls or a GPU
 * backend_config; XLA:CPU's outer_dimension_partitions, parallel_* calls or oneDNN calls.
 * null when the text does not say.
 */
export function backendOf(text) {
  // The marks repeat through a module: its first 4 MB say enough, and a 50 MB dump is not rescanned.
  const t = String(text ?? '').slice(0, 4 << 20);
  if (/:T\(\d+(?:,\d+)*\)|tpu_custom_call/.test(t)) return 'tpu';
  if (/__cublas|__cudnn|__triton|"__gpu\$|gpu_backend_config|"operation_queue_id"/.test(t)) return 'gpu';
  if (/outer_dimension_partitions|to_apply=%?parallel_|__onednn|"cpu_backend_config"/.test(t)) return 'cpu';
  return null;
}

/** The short label of a memory space for a gutter: "S(1)"; the default space by backend. */
export function memorySpaceLabel(space, backend = null) {
  if (space === null || space === undefined || space < 0) return '';
  if (space === 0) return backend === 'cpu' ? 'RAM' : backend ? 'HBM' : 'S(0)';
  return `S(${space})`;
}

/** Where an error happened, as " (line 3, column 5, left side)", or '' when it has no position. */
export function errorWhere(e) {
  if (!e || !e.line) return e?.side ? ` (${e.side} side)` : '';
  return ` (line ${e.line}${e.column ? `, column ${e.column}` : ''}${e.side ? `, ${e.side} side` : ''})`;
}

/** An error in words with its code and position: "expected ... [HS_E_SYNTAX] (line 3, column 5)". */
export function errorWords(e) {
  if (!e) return 'unknown error';
  return `${e.message || String(e)}${e.code ? ` [${e.code}]` : ''}${errorWhere(e)}`;
}

/** What a dump is, by format (`label`: the registry's, for formats named nowhere here) and, for
 * HLO, by the pipeline stage the core read from it. */
const STAGE_LABELS = {
  after_optimizations: 'optimized HLO',
  // fused but not scheduled: a pass step of a dump folder, or an optimized module trimmed by hand
  pass_step: 'optimized HLO',
  after_spmd_partitioning: 'HLO after SPMD partitioning',
  before_optimizations: 'HLO before optimizations',
};
// 'hlo' with no stage given (a summary from before the core named stages): the optimized HLO
// this project has always read.
const FORMAT_LABELS = { hlo: 'optimized HLO', stablehlo: 'StableHLO', jaxpr: 'jaxpr' };

/** "optimized HLO", "HLO before optimizations", "StableHLO", ... from a format and a stage. */
export function dumpLabel(format, stage = null, label = null) {
  if (format === 'hlo' && stage && STAGE_LABELS[stage]) return STAGE_LABELS[stage];
  return FORMAT_LABELS[format] || label || format || 'unknown format';
}

/**
 * The pipeline stage a dump folder's file name states (XLA names its dump files), or null:
 * module_0001.jit_f.before_optimizations.txt, *after_optimizations.txt (cpu_, gpu_ prefixes),
 * module_0806.f.0009.spmd-simplify.after_algsimp.before_simplify-sorts.txt (a pass step).
 */
export function stageFromFileName(name) {
  const n = String(name ?? '');
  if (/[._]before_optimizations\.txt$/.test(n)) return 'before_optimizations';
  if (/[._]after_optimizations\.txt$/.test(n)) return 'after_optimizations';
  if (/\.\d{4}\.[\w.-]+\.after_spmd[-_]partition[\w-]*\.before_[\w-]+\.txt$/.test(n)) return 'after_spmd_partitioning';
  if (/\.\d{4}\.[\w.-]+\.after_[\w-]+\.before_[\w-]+\.txt$/.test(n)) return 'pass_step';
  return null;
}

/** The pipeline stage in words (the summary card's "stage" row). */
export function stageWords(stage) {
  switch (stage) {
    case 'after_optimizations': return 'after optimizations (scheduled: the kernels XLA runs)';
    case 'pass_step': return 'fused but not scheduled: a pass step, or an optimized module without its header';
    case 'after_spmd_partitioning': return 'after SPMD partitioning, before fusion: no kernels decided yet';
    case 'before_optimizations': return 'before optimizations: no fusion pass has run, nothing is scheduled';
    default: return null;
  }
}

/** True when kernel-level claims (spills, HBM traffic, carriers) can be made of this stage. */
export function kernelsDecided(stage) {
  return stage == null || stage === 'after_optimizations' || stage === 'pass_step';
}

/** "partial: the dump ends at line 78 inside fused_computation.2 (before its entry computation)" */
export function partialWords(p) {
  if (!p) return '';
  return `partial: the dump ends at line ${p.line}${p.inside ? ` inside ${p.inside}` : ''}` +
    `${p.entry === false ? ', before its entry computation; the results cover what was read' : '; the results cover what was read'}`;
}

// ---------------------------------------------------------------- pairing evidence
// Whether two dumps are the same program (StableHLO in, HLO out), from what the core read of
// each: the module name and the entry signature (parameter and result types in HLO form, the
// summary's "module", "params" and "results": doc/signature.c, so MLIR's signless i8 is s8 and
// layouts and /*index=5*/ comments never count). The x-ray's own "pair" is the core's
// (analyses/pair.c); this comparison of two summaries is the same rule, kept here because the
// suggestions are made on the page's thread from the analyses it already holds.

/** { module, params, results } of a dump, from the core's summary of it (fields null when absent). */
export function programEvidence(summary) {
  const list = (k) => (Array.isArray(summary?.[k]) ? summary[k] : null);
  return { module: typeof summary?.module === 'string' ? summary.module : null, params: list('params'), results: list('results') };
}

const dtypes = (types) => types.map((x) => x.replace(/\[.*$/, '')).join(',');

/**
 * Are `a` and `b` (programEvidence results) the same program? { verdict: 'same' | 'different'
 * | 'unknown', reasons: [words] }. A different module name or signature says different; the
 * same dtypes with other shapes (a partitioned module's per-device shapes) do not.
 */
export function pairEvidence(a, b) {
  const same = [];
  const diff = [];
  if (a?.module && b?.module) {
    if (a.module === b.module) same.push(`both are module ${a.module}`);
    else diff.push(`module ${a.module} vs ${b.module}`);
  }
  for (const k of ['params', 'results']) {
    const x = a?.[k];
    const y = b?.[k];
    if (!x || !y) continue;
    const what = k === 'params' ? 'parameters' : 'results';
    if (x.join(', ') === y.join(', ')) same.push(`the same ${what} (${x.join(', ') || 'none'})`);
    else if (x.length === y.length && dtypes(x) === dtypes(y)) same.push(`${what} of the same types, other shapes (partitioned?)`);
    else diff.push(`${what} (${x.join(', ') || 'none'}) vs (${y.join(', ') || 'none'})`);
  }
  return { verdict: diff.length ? 'different' : same.length ? 'same' : 'unknown', reasons: diff.length ? diff : same };
}
