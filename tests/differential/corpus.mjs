#!/usr/bin/env node
// The differential corpus: HLO texts for XLA's parser (the oracle, make_oracle.py) and hloscope
// (check.mjs) to read side by side. Deterministic: the same seed and fixtures give the same texts,
// byte for byte (a small PRNG of our own, no Math.random), so the corpus is not committed, only
// this generator and the oracle file (which records a hash of every text).
//
//   node tests/differential/corpus.mjs [--seed N] [--count N] [--out FILE]
//     --count: how many mutated, generated and broken texts (default 240; the fixtures come on top)
//     --out: write records "\x1e<id> <byte length>\n<text>" (default build/differential/corpus-<seed>.bin)
//
// Kinds of text (the id's prefix):
//   fix:   every fixture's optimized module and its dump's HLO files, as captured
//   mut:   a small fixture module with one or more mutations that keep it legal HLO: line breaks
//          inside instructions, comments anywhere, whitespace, attribute reordering, multi-line
//          module attributes, nested operands written with their shape
//   gen:   small generated modules (elementwise chains, fusions, calls, nested operands)
//   bad:   a small module with one syntax error (the record's `line` says where it was put)

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureCases } from '../fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MUTATION_BASE_LIMIT = 24 * 1024; // fixtures at most this big are mutated

export function rng(seed) {
  // mulberry32
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (arr) => arr[int(arr.length)], chance: (p) => next() < p };
}

export function sha1(text) {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** The fixtures' HLO texts, sorted: { id, text }. */
export function fixtureTexts(fixturesDir = join(ROOT, 'fixtures')) {
  const out = [];
  for (const c of fixtureCases(fixturesDir)) {
    const files = [];
    if (c.file('after_optimizations.txt')) files.push('after_optimizations.txt');
    for (const f of c.files(/(before_optimizations|cpu_after_optimizations)\.txt$/, 'dump')) files.push(relative(c.dir, f));
    for (const f of files) {
      const text = readFileSync(join(c.dir, f), 'utf8');
      // one module per text: XLA's parser reads one
      const parts = text.split(/\n(?=HloModule )/);
      parts.forEach((p, k) => out.push({ id: `fix:${c.set}/${c.id}/${f}${parts.length > 1 ? `#${k}` : ''}`, text: p }));
    }
  }
  return out;
}

// ---- helpers over HLO text -------------------------------------------------------------------

/** Top-level split of s at `sep` (a one-character separator), outside (), {}, [], "". */
function splitTop(s, sep) {
  const parts = [];
  let depth = 0, inStr = false, start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
    else if (c === sep && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/** An instruction line split into { indent, head (up to and including '= '), shape, opcode, operands, attrs[], tail }
 *  or null. attrs are the top-level ", x=y" pieces after the operand list. */
function parseInstr(line) {
  if (line.includes('//') || line.includes('/*')) return null; // already commented: leave it as it is
  const m = /^(\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*)(.*)$/.exec(line);
  if (!m) return null;
  const rest = m[2];
  // shape: up to the opcode, the last identifier before the first '(' at depth 0 that follows it
  let depth = 0, inStr = false, open = -1;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (inStr) { if (c === '\\') i++; else if (c === '"') inStr = false; continue; }
    if (c === '"') inStr = true;
    else if (c === '(' && depth === 0) {
      // the opcode is the word right before; a tuple shape starts with '(' directly
      const before = rest.slice(0, i);
      if (/[\w\-]+$/.test(before) && /\s[\w\-]+$/.test(before)) { open = i; break; }
      depth++;
    } else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
  }
  if (open < 0) return null;
  const before = rest.slice(0, open);
  const om = /^(.*\S)\s+([\w\-]+)$/.exec(before);
  if (!om) return null;
  // the operand list's closing paren
  depth = 0; inStr = false;
  let close = -1;
  for (let i = open; i < rest.length; i++) {
    const c = rest[i];
    if (inStr) { if (c === '\\') i++; else if (c === '"') inStr = false; continue; }
    if (c === '"') inStr = true;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') { depth--; if (depth === 0) { close = i; break; } }
  }
  if (close < 0) return null;
  const after = rest.slice(close + 1);
  let attrs = [];
  let tail = '';
  if (after.trim()) {
    const parts = splitTop(after, ',');
    if (parts[0].trim() !== '') return null;
    attrs = parts.slice(1).map((p) => p.trim());
  }
  return { indent: /^\s*/.exec(line)[0], head: m[1], shape: om[1], opcode: om[2], operands: rest.slice(open + 1, close), attrs, tail };
}

function joinInstr(p, { opSep = ', ', attrSep = ', ', afterEq = '', beforeOpen = '' } = {}) {
  const ops = p.operands.trim() === '' ? '' : splitTop(p.operands, ',').map((s) => s.trim()).join(opSep);
  return `${p.head}${afterEq}${p.shape} ${p.opcode}${beforeOpen}(${ops})${p.attrs.map((a) => attrSep + a).join('')}${p.tail}`;
}

// ---- mutations (each keeps the text legal HLO) ------------------------------------------------

const MUTATIONS = {
  // operands, attributes and the shape continue on the next lines
  linebreak(text, r) {
    return text.split('\n').map((line) => {
      const p = parseInstr(line);
      if (!p || !r.chance(0.5)) return line;
      const pad = '\n' + p.indent + '    ';
      return joinInstr(p, {
        opSep: r.chance(0.5) ? ',' + pad : ', ',
        attrSep: r.chance(0.7) ? ',' + pad : ', ',
        afterEq: r.chance(0.3) ? pad : '',
      }).replace(/= (\n)/, '=$1');
    }).join('\n');
  },
  // /* */ and // comments between tokens, before HloModule, inside ENTRY /*c*/ name
  comments(text, r) {
    let out = text.split('\n').map((line) => {
      if (line.startsWith('HloModule')) return (r.chance(0.5) ? '/* leading block comment */\n' : '// leading line comment\n') + line;
      if (/^ENTRY /.test(line)) return line.replace(/^ENTRY /, r.chance(0.5) ? 'ENTRY /*c*/ ' : 'ENTRY /* entry */\n');
      const p = parseInstr(line);
      if (!p) return line + (line.trim() && r.chance(0.2) ? ' // end of line' : '');
      const c = r.pick(['/*x*/', '/* a comment */', '/**/', '/* multi\n   line */']);
      const where = r.int(4);
      if (where === 0) return joinInstr(p, { opSep: `, ${c} ` });
      if (where === 1) return joinInstr(p, { beforeOpen: ` ${c}` });
      if (where === 2) return joinInstr(p) + ' // trailing';
      return joinInstr(p, { attrSep: ` ${c}, ` });
    });
    return out.join('\n');
  },
  // blank lines, tabs, runs of spaces, CRLF-free
  whitespace(text, r) {
    return text.split('\n').map((line) => {
      const p = parseInstr(line);
      let l = p ? joinInstr(p, { opSep: r.pick([',', ', ', ',  ', ',\t']), attrSep: r.pick([',', ', ', ' ,  ', ',\t']) }) : line;
      if (r.chance(0.3)) l = l.replace(/^\s+/, r.pick(['', '\t', '        ']));
      if (r.chance(0.1)) l += '\n';
      if (r.chance(0.2)) l = l.replace(/ = /, r.pick(['  =  ', '\t=\t', ' =\t']));
      return l;
    }).join('\n');
  },
  // the attributes of an instruction in another order
  reorder(text, r) {
    return text.split('\n').map((line) => {
      const p = parseInstr(line);
      if (!p || p.attrs.length < 2) return line;
      const a = p.attrs.slice();
      for (let i = a.length - 1; i > 0; i--) { const j = r.int(i + 1); [a[i], a[j]] = [a[j], a[i]]; }
      return joinInstr({ ...p, attrs: a });
    }).join('\n');
  },
  // spaces, line breaks and comments inside the shapes and layouts of an instruction and of its
  // operands, before a layout's '{' and after an element type (XLA's lexer skips them between any
  // two tokens: "f32 [8, 64] {1,\n 0}"; a '{' is a layout's when a number follows it)
  shapespace(text, r) {
    const sep = () => r.pick([', ', ',\n      ', ',']);
    const gap = () => r.pick(['', '', ' ', '\n      ', ' /*s*/ ']);
    const spread = (s) => s.replace(/\[([0-9]+(?:,[0-9]+)+)\]/g, (all, dims) => '[' + dims.replace(/,/g, sep) + ']')
      .replace(/\]\{([0-9]+(?:,[0-9]+)+)\}/g, (all, lay) => ']{' + lay.replace(/,/g, sep) + '}')
      .replace(/\]\{(?=[0-9])/g, () => ']' + gap() + '{')
      .replace(/\b(pred|bf16|[fsu](?:8|16|32|64))\[/g, (all, ty) => ty + gap() + '[');
    return text.split('\n').map((line) => {
      const p = parseInstr(line);
      if (!p || !r.chance(0.5)) return line;
      return joinInstr({ ...p, shape: spread(p.shape), operands: spread(p.operands) });
    }).join('\n');
  },
  // the module's header attributes over several lines, and one more of them
  moduleattrs(text, r) {
    return text.replace(/^HloModule ([^\n]*)/m, (all, rest) => {
      const parts = splitTop(rest, ',').map((s) => s.trim());
      parts.push('frontend_attributes={\n  hloscope_corpus="1",\n  other="x"\n}');
      return 'HloModule ' + parts.join(r.chance(0.5) ? ',\n  ' : ', ').replace(/\{\(/, '{\n  (');
    });
  },
};

// ---- generated modules ------------------------------------------------------------------------

const UNARY = ['exponential', 'negate', 'tanh', 'abs', 'sqrt', 'log'];
const BINARY = ['add', 'multiply', 'subtract', 'maximum', 'minimum', 'divide'];

function genModule(r, n) {
  const dims = r.pick([[8], [4, 16], [2, 3, 5], [128]]);
  const shape = `f32[${dims.join(',')}]`;
  const lay = `{${dims.map((_, i) => dims.length - 1 - i).join(',')}}`;
  const full = shape + lay;
  const nested = r.chance(0.3);
  const lines = [];
  const comps = [];
  const nFused = r.int(3);
  for (let k = 0; k < nFused; k++) {
    const body = [`%fused_computation.${k} (p0: ${full}, p1: ${full}) -> ${full} {`,
      `  %p0 = ${full} parameter(0)`, `  %p1 = ${full} parameter(1)`];
    let prev = ['p0', 'p1'];
    const m = 1 + r.int(4);
    for (let i = 0; i < m; i++) {
      const op = r.pick(BINARY);
      const name = `${op}.f${k}.${i}`;
      body.push(`  ${i === m - 1 ? 'ROOT ' : ''}%${name} = ${full} ${op}(%${r.pick(prev)}, %${r.pick(prev)})`);
      prev.push(name);
    }
    body.push('}', '');
    comps.push(...body);
  }
  lines.push(`HloModule gen_${n}, entry_computation_layout={(${full}, ${full})->${full}}`, '', ...comps);
  lines.push(`ENTRY %main.${n} (a: ${full}, b: ${full}) -> ${full} {`);
  lines.push(`  %a = ${full} parameter(0)`, `  %b = ${full} parameter(1)`);
  const names = ['a', 'b'];
  const m = 2 + r.int(8);
  for (let i = 0; i < m; i++) {
    const root = i === m - 1 ? 'ROOT ' : '';
    const name = `v${i}`;
    if (nFused && r.chance(0.3)) {
      const k = r.int(nFused);
      lines.push(`  ${root}%${name} = ${full} fusion(%${r.pick(names)}, %${r.pick(names)}), kind=kLoop, calls=%fused_computation.${k}`);
    } else if (nested && r.chance(0.5)) {
      const inner = r.pick(UNARY);
      lines.push(`  ${root}%${name} = ${full} ${r.pick(BINARY)}(${full} ${inner}(${full} %${r.pick(names)}), %${r.pick(names)})`);
    } else if (r.chance(0.5)) {
      lines.push(`  ${root}%${name} = ${full} ${r.pick(UNARY)}(%${r.pick(names)})`);
    } else {
      lines.push(`  ${root}%${name} = ${full} ${r.pick(BINARY)}(%${r.pick(names)}, %${r.pick(names)})`);
    }
    names.push(name);
  }
  lines.push('}', '');
  return lines.join('\n');
}

// ---- syntax errors ----------------------------------------------------------------------------

/** One syntax error in text: { text, line (1-based, where it was put), what }. */
function breakText(text, r) {
  const lines = text.split('\n');
  const instr = [];
  lines.forEach((l, i) => { if (parseInstr(l)) instr.push(i); });
  const kinds = ['attrvalue', 'closebrace', 'openparen', 'shape', 'noequals', 'opcode', 'comment', 'stray', 'layout', 'operandsep', 'emptylayout',
    'operandlayout', 'layoutjunk', 'layoutcount', 'trailingcomma', 'attrspace', 'badname', 'badliteral', 'typedvalue', 'duplicate',
    'crossname', 'arity', 'strayattr', 'missingattr', 'literalrange', 'literalshape', 'usebeforedef'];
  const what = r.pick(kinds);
  let at = instr.length ? r.pick(instr) : 0;
  const l = lines[at];
  switch (what) {
    case 'attrvalue': {
      const p = parseInstr(l);
      // attributes every opcode takes, with a value that does not parse
      p.attrs.push(r.pick(['metadata={op_name=}', 'frontend_attributes={a=b}', 'metadata={op_name="x" source_line=}',
        'backend_config=', 'sharding={bogus}', 'frontend_attributes={a="b"']));
      lines[at] = joinInstr(p);
      break;
    }
    case 'closebrace': {
      // drop the closing brace of the computation holding `at`
      let j = at;
      while (j < lines.length && lines[j].trim() !== '}') j++;
      if (j < lines.length) { lines.splice(j, 1); at = j; } else { at = lines.length; }
      break;
    }
    case 'openparen': lines[at] = l.replace(/\(([^()]*)\)/, '($1'); break;
    case 'shape': lines[at] = l.replace(/= (\w+)\[/, '= $1[,'); break;
    case 'noequals': lines[at] = l.replace(/ = /, ' '); break;
    case 'opcode': lines[at] = l.replace(/ ([a-z][\w\-]*)\(/, ' $1_no_such_op('); break;
    case 'comment': lines[at] = l + ' /* never closed'; break;
    case 'stray': lines[at] = l + ' )'; break;
    case 'layout': lines[at] = l.replace(/\]\{([0-9,]*)\}/, ']{$1'); break;
    case 'operandsep': lines[at] = l.replace(/, %/, ' %'); break;
    case 'emptylayout': lines[at] = l.replace(/= (\w+\[[0-9,]*\])\{[0-9,]*\}/, '= $1{}'); break; // XLA: "expects opcode"
    case 'operandlayout': { // a layout left open in an operand's shape ("f32[8]{0 %x", "(s32[], f32[8]{0) %t"), else the instruction's
      const p = parseInstr(l);
      const re = /\]\{([0-9,]*)\}/;
      lines[at] = p && re.test(p.operands) ? joinInstr({ ...p, operands: p.operands.replace(re, ']{$1') }) : l.replace(re, ']{$1');
      break;
    }
    case 'layoutjunk': lines[at] = l.replace(/\]\{[0-9]+/, ']{a'); break; // not a dimension number
    case 'layoutcount': // a number too few or too many ("f32[8,64]{0}": "Dimensions size is 2, but minor to major size is 1")
      lines[at] = l.replace(/\]\{([0-9]+)((?:,[0-9]+)*)\}/, (all, a, rest) => (rest ? ']{' + rest.slice(1) : ']{' + a + ',' + a) + '}');
      break;
    case 'attrspace': { // "dimensions ={0}", "op_name =": XLA's lexer reads "name=" as one token ("expects attribute name")
      const withAttrs = instr.filter((i) => (parseInstr(lines[i])?.attrs.length ?? 0) > 0);
      if (withAttrs.length) at = r.pick(withAttrs);
      const p = parseInstr(lines[at]);
      if (p && p.attrs.length) {
        const k = r.int(p.attrs.length);
        const a = p.attrs.slice();
        a[k] = r.chance(0.5) || !/^metadata=\{\w+=/.test(a[k]) ? a[k].replace(/^([\w.\-]+)=/, r.pick(['$1 =', '$1\n      =', '$1/*c*/='])) : a[k].replace(/^metadata=\{(\w+)=/, 'metadata={$1 =');
        lines[at] = joinInstr({ ...p, attrs: a });
      }
      break;
    }
    case 'badname': lines[at] = l.replace(/^(\s*(?:ROOT\s+)?%?)([A-Za-z_])/, '$1' + r.pick(['9', '.', '-']) + '$2'); break; // XLA: "expects name"
    case 'badliteral': { // a literal word XLA's lexer does not read: "+1", "0x1", ".5", "1.5.2", "1e"
      const consts = instr.filter((i) => /constant\(\{?\s*-?[0-9]/.test(lines[i]));
      if (consts.length) {
        at = r.pick(consts);
        const bad = r.pick(['+1', '0x1', '.5', '1.5.2', '1e', 'True']);
        lines[at] = lines[at].replace(/constant\((\{?\s*)-?[0-9][0-9.e+\-]*/, (all, pre) => `constant(${pre}${bad}`);
      }
      break;
    }
    case 'typedvalue': { // a typed attribute's value XLA refuses: "dimensions={0,}", "direction=GTX", "slice={[0:4] [0:8]}", ...
      const BAD = [
        [/(dimensions|_dims|dims_to_operand_dims|slice_sizes)=\{([0-9,]*)\}/, (all, k, v) => `${k}={${v}${v ? ',' : ''}a}`],
        [/direction=([A-Z]+)/, (all, v) => `direction=${v}X`],
        [/slice=\{\[([0-9:]+)\], /, (all, v) => `slice={[${v}] `],
        [/padding=([0-9_x\-]+)/, (all, v) => `padding=${v}_`],
        [/(size|stride)=([0-9x]+)/, (all, k, v) => `${k}=${v}xx1`],
        [/(index|iota_dimension|channel_id|index_vector_dim)=([0-9]+)/, (all, k) => `${k}=x`],
        [/kind=k([A-Za-z]+)/, (all, v) => `kind=q${v}`],
      ];
      // a kind of value first (among those the text has), then one of its lines
      const kinds = BAD.map(([re, fix]) => [instr.filter((i) => re.test(lines[i])), re, fix]).filter(([ls]) => ls.length);
      if (kinds.length) {
        const [ls, re, fix] = r.pick(kinds);
        at = r.pick(ls);
        lines[at] = lines[at].replace(re, fix);
      }
      break;
    }
    case 'duplicate': { // a name twice in a computation ("instruction already exists"), or a parameter number twice
      const params = instr.filter((i) => /parameter\(([1-9][0-9]*)\)/.test(lines[i]));
      if (params.length && r.chance(0.5)) {
        at = r.pick(params);
        lines[at] = lines[at].replace(/parameter\([0-9]+\)/, 'parameter(0)');
      } else {
        // the instruction after another in the same computation takes that one's name
        const pairs = instr.filter((i) => instr.includes(i - 1) && !/^\s*ROOT/.test(lines[i - 1]));
        if (pairs.length) {
          at = r.pick(pairs);
          const prev = /^\s*(?:ROOT\s+)?(%?[\w.\-]+)\s*=/.exec(lines[at - 1])[1];
          lines[at] = lines[at].replace(/^(\s*(?:ROOT\s+)?)%?[\w.\-]+(\s*=)/, `$1${prev}$2`);
        }
      }
      break;
    }
    case 'crossname': { // an operand naming an instruction only another computation defines ("cannot parse as an instruction name")
      // each line's computation: a header ends with '{', a '}' alone closes it
      const comp = [];
      let c = -1, open = false;
      lines.forEach((x, i) => {
        if (!open && /\{\s*$/.test(x) && !/^\s*HloModule/.test(x)) { c++; open = true; }
        else if (open && /^\s*\}/.test(x)) open = false;
        comp[i] = open ? c : -1;
      });
      const defined = new Map(); // name -> the computations defining it
      for (const i of instr) {
        const n = /^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=/.exec(lines[i])[1];
        if (!defined.has(n)) defined.set(n, new Set());
        defined.get(n).add(comp[i]);
      }
      const users = instr.filter((i) => comp[i] >= 0 && /^\s*%[\w.\-]+/.test(parseInstr(lines[i]).operands.trim()));
      const pairs = [];
      for (const i of users) {
        const other = [...defined].filter(([, cs]) => !cs.has(comp[i])).map(([n]) => n);
        if (other.length) pairs.push([i, other]);
      }
      if (pairs.length) {
        const [i, other] = r.pick(pairs);
        at = i;
        const p = parseInstr(lines[at]);
        p.operands = p.operands.replace(/^(\s*)%[\w.\-]+/, `$1%${r.pick(other)}`);
        lines[at] = joinInstr(p);
      }
      break;
    }
    case 'arity': { // an operand too many or too few for a unary or binary opcode ("expects 2 operands, but has 1")
      const FIXED = /^(add|subtract|multiply|divide|maximum|minimum|power|compare|and|or|xor|atan2|exponential|log|negate|abs|tanh|sqrt|rsqrt|convert|copy|bitcast|broadcast|reshape|transpose|get-tuple-element)$/;
      const cands = instr.filter((i) => { const p = parseInstr(lines[i]); return p && FIXED.test(p.opcode) && p.operands.trim(); });
      if (cands.length) {
        at = r.pick(cands);
        const p = parseInstr(lines[at]);
        const ops = splitTop(p.operands, ',').map((x) => x.trim());
        if (ops.length > 1 && r.chance(0.5)) ops.pop(); else ops.push(ops[0]);
        lines[at] = joinInstr({ ...p, operands: ops.join(', ') });
      }
      break;
    }
    case 'strayattr': { // an attribute the opcode does not take ("unexpected attribute"): a typo of a real one, or another opcode's
      const cands = instr.filter((i) => parseInstr(lines[i]) && !/ (parameter|constant|custom-call|async-\w+|\w+-start|\w+-done)\(/.test(lines[i]));
      if (cands.length) {
        at = r.pick(cands);
        const p = parseInstr(lines[at]);
        lines[at] = joinInstr({ ...p, attrs: [...p.attrs, r.pick(['dimension={0}', 'to_aply=%x', 'fft_type=FFT', 'kind=kLoop', 'zzz=1'])] });
      }
      break;
    }
    case 'missingattr': { // an attribute the opcode requires left out ("attribute direction is expected but not seen")
      const REQ = /^(kind|calls|direction|index|to_apply|dimensions|condition|body|iota_dimension|custom_call_target)=/;
      const cands = instr.filter((i) => { const p = parseInstr(lines[i]); return p && p.opcode !== 'broadcast' && p.attrs.some((a) => REQ.test(a)); });
      if (cands.length) {
        at = r.pick(cands);
        const p = parseInstr(lines[at]);
        const k = p.attrs.findIndex((a) => REQ.test(a));
        lines[at] = joinInstr({ ...p, attrs: p.attrs.filter((_, j) => j !== k) });
      }
      break;
    }
    case 'literalrange': { // a constant's value past its type ("value 1e+39 is out of range for literal's primitive type F32")
      const BIG = { f32: '1e39', bf16: '-4e38', f16: '65520', s32: '2147483648', s8: '128', u8: '256', u32: '-1', s64: '1.5', pred: '' };
      const consts = instr.filter((i) => { const m = / (\w+)\[\]\S* constant\(/.exec(lines[i]); return m && BIG[m[1]]; });
      if (consts.length) {
        at = r.pick(consts);
        const ty = / (\w+)\[\]\S* constant\(/.exec(lines[at])[1];
        lines[at] = lines[at].replace(/constant\([^)]*\)/, `constant(${BIG[ty]})`);
      } else if (instr.length) { // none to change: a new one after an instruction
        const ty = r.pick(Object.keys(BIG).filter((k) => BIG[k]));
        lines.splice(++at, 0, `  %hs_bad_constant = ${ty}[] constant(${BIG[ty]})`);
      }
      break;
    }
    case 'literalshape': { // an array constant with a value too many, or braces nested once more than its rank
      const consts = instr.filter((i) => /constant\(\{[^.]*\}\)/.test(lines[i]));
      if (consts.length) {
        at = r.pick(consts);
        lines[at] = r.chance(0.5) ? lines[at].replace(/constant\(\{([^{}]*)\}/, 'constant({$1, 0}') : lines[at].replace(/constant\(\{/, 'constant({{').replace(/\}\)/, '}})');
      } else if (instr.length) { // none to change: a new one after an instruction
        lines.splice(++at, 0, '  %hs_bad_constant = ' + r.pick(['f32[2]{0} constant({1, 2, 3})', 'f32[2]{0} constant({{1, 2}})',
          'f32[2,2]{1,0} constant({1, 2, 3, 4})', 's32[2,2]{1,0} constant({{1, 2}, {3}})', 'f32[] constant({1})']));
      }
      break;
    }
    case 'usebeforedef': { // two lines swapped, so that an operand names an instruction defined after it
      const uses = instr.filter((i) => {
        if (!instr.includes(i + 1) || /^\s*ROOT/.test(lines[i])) return false;
        const n = /^\s*%?([\w.\-]+)\s*=/.exec(lines[i])[1];
        const p = parseInstr(lines[i + 1]);
        return p && new RegExp(`(^|[\\s(,%])${n.replace(/[.\-]/g, '\\$&')}($|[\\s),])`).test(p.operands);
      });
      if (uses.length) {
        at = r.pick(uses);
        [lines[at], lines[at + 1]] = [lines[at + 1], lines[at]];
      }
      break;
    }
    case 'trailingcomma': // "f32[8,64,]" or "{1,0,}": XLA expects an integer after every ','
      lines[at] = r.chance(0.5) ? l.replace(/\[([0-9]+(?:,[0-9]+)*)\]/, '[$1,]') : l.replace(/\]\{([0-9,]+)\}/, ']{$1,}');
      break;
  }
  return { text: lines.join('\n'), line: at + 1, what };
}

// ---- the corpus -------------------------------------------------------------------------------

/** Every record of the corpus for `seed`: { id, kind, text, line? }. */
export function buildCorpus({ seed = 1, count = 240, fixturesDir } = {}) {
  const r = rng(seed);
  const fixtures = fixtureTexts(fixturesDir);
  const out = fixtures.map((f) => ({ id: f.id, kind: 'fix', text: f.text }));
  const bases = fixtures.filter((f) => Buffer.byteLength(f.text) <= MUTATION_BASE_LIMIT);
  const names = Object.keys(MUTATIONS);
  const nMut = Math.round(count * 0.5), nGen = Math.round(count * 0.2), nBad = count - nMut - nGen;
  for (let i = 0; i < nMut; i++) {
    const base = r.pick(bases);
    const chosen = [r.pick(names)];
    if (r.chance(0.3)) {
      // a second, different mutation (moduleattrs twice would name the attributes twice)
      const other = names.filter((n) => n !== chosen[0]);
      chosen.push(r.pick(other));
    }
    let text = base.text;
    for (const m of chosen) text = MUTATIONS[m](text, r);
    out.push({ id: `mut:${seed}:${i}:${chosen.join('+')}:${base.id.slice(4)}`, kind: 'mut', text });
  }
  for (let i = 0; i < nGen; i++) {
    let text = genModule(r, i);
    if (r.chance(0.3)) text = MUTATIONS[r.pick(names)](text, r);
    out.push({ id: `gen:${seed}:${i}`, kind: 'gen', text });
  }
  for (let i = 0; i < nBad; i++) {
    const base = r.chance(0.5) ? { text: genModule(r, 1000 + i), id: 'gen' } : r.pick(bases);
    const b = breakText(base.text, r);
    out.push({ id: `bad:${seed}:${i}:${b.what}`, kind: 'bad', text: b.text, line: b.line });
  }
  return out;
}

export function writeCorpus(records, file) {
  mkdirSync(dirname(file), { recursive: true });
  const bufs = [];
  for (const rec of records) {
    const body = Buffer.from(rec.text, 'utf8');
    bufs.push(Buffer.from(`\x1e${rec.id.replace(/\s/g, '_')} ${body.length}\n`, 'utf8'), body);
  }
  writeFileSync(file, Buffer.concat(bufs));
  // the side file: ids, kinds, lines, hashes (for the oracle script)
  writeFileSync(file + '.json', JSON.stringify(records.map((r) => ({ id: r.id, kind: r.kind, line: r.line ?? null, sha1: sha1(r.text) }))));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
  const seed = Number(opt('--seed', 1));
  const count = Number(opt('--count', 240));
  const file = resolve(opt('--out', join(ROOT, 'build', 'differential', `corpus-${seed}.bin`)));
  const recs = buildCorpus({ seed, count });
  writeCorpus(recs, file);
  const kinds = {};
  for (const rec of recs) kinds[rec.kind] = (kinds[rec.kind] || 0) + 1;
  console.log(`${relative(process.cwd(), file)}: ${recs.length} texts ${JSON.stringify(kinds)}`);
}
