// Pathological inputs for the linear-time check (tests/linear/check.mjs) and the bench
// (bench/linear.mjs): each case is a function of a size n returning the text as a Buffer. The
// sizes the issue names (bench): truncated dumps concatenated (15-60 MB), a 1M-line module, one
// computation with 200k instructions, 100k computations, duplicate names across modules, a 100 MB
// single line, 100k-deep nesting. Deterministic (no randomness).

import { readFileSync } from 'node:fs';
import { fixtureCases } from '../fixtures.mjs';

function realModules() {
  return fixtureCases().map((c) => c.file('after_optimizations.txt')).filter(Boolean).map((f) => readFileSync(f, 'utf8'));
}

let cachedTruncated = null;
/** Real optimized modules, each cut at a fixed fraction of its length, one after another. */
function truncatedPieces() {
  if (cachedTruncated) return cachedTruncated;
  const mods = realModules();
  if (!mods.length) throw new Error('no fixtures/cpu-jax-*/*/after_optimizations.txt');
  // cut at a line's end (a dump cut short by a size limit or a paste ends at some line)
  const pieces = mods.filter((m) => m.length < 100e3).map((m, i) => m.slice(0, m.lastIndexOf('\n', Math.floor(m.length * (0.3 + 0.6 * ((i * 37) % 100) / 100))) + 1));
  cachedTruncated = pieces;
  return cachedTruncated;
}

const SHAPE = 'f32[1024]{0}';

export const CASES = {
  // about n bytes of real dumps cut short and pasted one after another
  truncated(n) {
    const p = truncatedPieces();
    const out = [];
    let len = 0;
    for (let i = 0; len < n; i = (i + 1) % p.length) { out.push(p[i]); len += p[i].length; }
    return Buffer.from(out.join(''), 'utf8');
  },
  // one module of n lines: computations of 10 instructions, called from the entry
  lines(n) {
    const comps = Math.max(1, Math.floor(n / 13));
    const parts = [`HloModule lines, entry_computation_layout={(${SHAPE})->${SHAPE}}\n`];
    for (let c = 0; c < comps; c++) {
      parts.push(`\n%comp.${c} (p.${c}: ${SHAPE}) -> ${SHAPE} {\n  %p.${c} = ${SHAPE} parameter(0)\n`);
      for (let i = 0; i < 9; i++) parts.push(`  ${i === 8 ? 'ROOT ' : ''}%v.${c}.${i} = ${SHAPE} negate(%${i ? `v.${c}.${i - 1}` : `p.${c}`}), metadata={op_name="jit(f)/neg" source_line=${i}}\n`);
      parts.push('}\n');
    }
    parts.push(`\nENTRY %main (a: ${SHAPE}) -> ${SHAPE} {\n  %a = ${SHAPE} parameter(0)\n  ROOT %r = ${SHAPE} call(%a), to_apply=%comp.0\n}\n`);
    return Buffer.from(parts.join(''), 'utf8');
  },
  // one computation with n instructions
  instructions(n) {
    const parts = [`HloModule big, entry_computation_layout={(${SHAPE})->${SHAPE}}\n\nENTRY %main (a: ${SHAPE}) -> ${SHAPE} {\n  %v.0 = ${SHAPE} parameter(0)\n`];
    for (let i = 1; i < n; i++) parts.push(`  ${i === n - 1 ? 'ROOT ' : ''}%v.${i} = ${SHAPE} add(%v.${i - 1}, %v.${Math.floor(i / 2)})\n`);
    parts.push('}\n');
    return Buffer.from(parts.join(''), 'utf8');
  },
  // n computations (fused computations, each called by one fusion of the entry)
  computations(n) {
    const parts = [`HloModule many, entry_computation_layout={(${SHAPE})->${SHAPE}}\n`];
    for (let c = 0; c < n; c++) parts.push(`\n%fused_computation.${c} (param_0.${c}: ${SHAPE}) -> ${SHAPE} {\n  %param_0.${c} = ${SHAPE} parameter(0)\n  ROOT %e.${c} = ${SHAPE} exponential(%param_0.${c})\n}\n`);
    parts.push(`\nENTRY %main (a: ${SHAPE}) -> ${SHAPE} {\n  %f.-1 = ${SHAPE} parameter(0)\n`);
    for (let c = 0; c < n; c++) parts.push(`  ${c === n - 1 ? 'ROOT ' : ''}%f.${c} = ${SHAPE} fusion(%f.${c - 1}), kind=kLoop, calls=%fused_computation.${c}\n`);
    parts.push('}\n');
    return Buffer.from(parts.join(''), 'utf8');
  },
  // n modules with the same module, computation and instruction names
  duplicates(n) {
    const m = `HloModule dup, entry_computation_layout={(${SHAPE})->${SHAPE}}\n\n%fused_computation (param_0: ${SHAPE}) -> ${SHAPE} {\n  %param_0 = ${SHAPE} parameter(0)\n  ROOT %e = ${SHAPE} exponential(%param_0)\n}\n\nENTRY %main (a: ${SHAPE}) -> ${SHAPE} {\n  %a = ${SHAPE} parameter(0)\n  %b = ${SHAPE} negate(%a)\n  ROOT %f = ${SHAPE} fusion(%b), kind=kLoop, calls=%fused_computation\n}\n\n`;
    return Buffer.from(m.repeat(n), 'utf8');
  },
  // one line of about n bytes: a constant with a long literal
  oneline(n) {
    const k = Math.max(1, Math.floor(n / 6));
    const vals = new Array(k);
    for (let i = 0; i < k; i++) vals[i] = String(i % 10000);
    return Buffer.from(`HloModule line, entry_computation_layout={()->f32[${k}]{0}}\n\nENTRY %main () -> f32[${k}]{0} {\n  ROOT %c = f32[${k}]{0} constant({${vals.join(', ')}})\n}\n`, 'utf8');
  },
  // nesting n deep: a tuple shape ((((f32[])))) and a backend_config value {{{{}}}}
  nesting(n) {
    const shape = '('.repeat(n) + 'f32[]' + ')'.repeat(n);
    return Buffer.from(`HloModule deep\n\nENTRY %main (p: ${shape}) -> f32[] {\n  %p = ${shape} parameter(0)\n  ROOT %c = f32[] constant(0), backend_config={${'{'.repeat(n)}${'}'.repeat(n)}}\n}\n`, 'utf8');
  },
  // a StableHLO with n converts, each at its own #loc of the table at the end (as jax's debug
  // output writes it), read for its decisions: each convert's source is looked up in the table
  stablehlo_locs(n) {
    const parts = ['#loc = loc(unknown)\nmodule @m {\n  func.func public @main(%arg0: tensor<4xbf16>) -> (tensor<4xf32>) {\n'];
    for (let i = 0; i < n; i++) parts.push(`    %${i + 1} = stablehlo.convert %arg0 : (tensor<4xbf16>) -> tensor<4xf32> loc(#loc${i})\n`);
    parts.push(`    return %${n} : tensor<4xf32>\n  }\n}\n`);
    for (let i = 0; i < n; i++) parts.push(`#loc${i} = loc("/work/model.py":${i + 1}:3)\n`);
    return Buffer.from(parts.join(''), 'utf8');
  },
  // StableHLO (issue 40): one op whose type comes after n blank and comment lines (the reader
  // looks past them once, not once per line), then n generic ops over three lines each
  stablehlo_gaps(n) {
    const parts = ['module @m {\n  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.add %arg0, %arg0\n'];
    for (let i = 0; i < n; i++) parts.push(i % 2 ? '      // a comment\n' : '\n');
    parts.push('      : tensor<f32>\n');
    for (let i = 0; i < n; i++) parts.push(`    %${i + 1} = "stablehlo.negate"(%${i}) {\n      hloscope_unit\n    } : (tensor<f32>) -> tensor<f32>\n`);
    parts.push(`    return %${n} : tensor<f32>\n  }\n}\n`);
    return Buffer.from(parts.join(''), 'utf8');
  },
  // StableHLO regions nested n deep (generic ops, each region's op going on after it closes)
  stablehlo_nesting(n) {
    const parts = ['func.func @main(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {\n'];
    for (let k = 0; k < n; k++) parts.push(`%r${k} = "stablehlo.case"(%i) ({\n`);
    parts.push('"stablehlo.return"(%x) : (tensor<f32>) -> ()\n');
    for (let k = n - 1; k >= 0; k--) parts.push(`}) : (tensor<i32>) -> tensor<f32>\n${k ? `"stablehlo.return"(%r${k}) : (tensor<f32>) -> ()\n` : ''}`);
    parts.push('return %r0 : tensor<f32>\n}\n');
    return Buffer.from(parts.join(''), 'utf8');
  },
};

/** Extra arguments of hs_time_driver per case (a case of another analysis than the census). */
export const DRIVER_ARGS = { stablehlo_locs: ['--decisions'] };

/** The sizes the issue names, for the bench (n for each case). */
export const FULL_SIZES = {
  truncated: 60e6, lines: 1e6, instructions: 200e3, computations: 100e3, duplicates: 100e3, oneline: 100e6, nesting: 100e3,
  stablehlo_locs: 100e3, stablehlo_gaps: 1e6, stablehlo_nesting: 100e3,
};
