// What the core's results mean, in words: ONE module for the notebook, the views and the drills
// (no DOM, no wasm, no bundler-only imports, so node tests import it too). The core decides; these
// words only name its decisions. When the core hands a list over (wasm/hloscope.mjs registry()),
// it wins over the copies here.

/**
 * Guesses a dump's format from its first lines, for the UI only (a status line before the
 * core's answer, an error's context). The core's detection (hs_detect_format) decides.
 */
export function sniffFormat(text) {
  const head = String(text ?? '').slice(0, 4096);
  if (/^\s*HloModule\s/m.test(head)) return 'hlo';
  if (/^\s*(module\b|func\.func\b)|stablehlo\.|mhlo\./m.test(head)) return 'stablehlo';
  if (/^\s*\{\s*lambda\b|^\s*let\b/m.test(head)) return 'jaxpr';
  return null;
}

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
