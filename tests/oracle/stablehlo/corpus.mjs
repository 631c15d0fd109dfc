#!/usr/bin/env node
// The StableHLO differential corpus (issue 40): MLIR texts for MLIR's own parser (the oracle,
// make_oracle.py) and hloscope (check.mjs) to read side by side. Deterministic: the same seed,
// fixtures and shared captures give the same texts, byte for byte (the PRNG of
// tests/differential/corpus.mjs, no Math.random); only this generator, the generic forms of our
// own fixtures (generic.bin.gz, printed by MLIR) and the oracle (with a hash of every text) are
// committed.
//
//   node tests/oracle/stablehlo/corpus.mjs [--seed N] [--out FILE] [--no-shared]
//     --seeds DIR: write the generic, generated, mutated and broken texts one a file (fuzz seeds)
//     --pretty: print the pretty sources as JSON [{id, path, shared}] (for make_oracle.py)
//     --out: write records "\x1e<id> <byte length>\n<text>" (default build/stablehlo-oracle/corpus-<seed>.bin)
//
// Kinds of text (the id's prefix):
//   fix:    every fixture's stablehlo.mlir and stablehlo.debug.mlir (jax 0.4.38, 0.10.2, 0.12.0.1), as captured
//   gen:    their generic forms, as MLIR prints them (print_generic_op_form, no locations: one per
//           stablehlo.mlir), from generic.bin.gz
//   shared: the StableHLO texts of ../shared/captures (read in place, when present)
//   shgen:  their generic forms, from build/stablehlo-oracle/shared-generic.bin when make_oracle.py
//           wrote it here (never committed: other people's data)
//   mut:    a text above with mutations that keep it legal MLIR: attribute dictionaries and
//           properties over three lines, the type on a line of its own, function arguments one a
//           line, locations on a line of their own, comment lines anywhere, line breaks inside
//           brackets and after commas, unit attributes (one line and several), the module
//           taken away (a bare func.func), two texts in one split by `// -----`
//   syn:    small generated texts: generic and pretty ops, several results (`%a, %b =`, `%a:2 =`),
//           multi-line attribute dictionaries with unit attributes, regions, bare functions, splits
//   bad:    a text with one syntax error MLIR refuses: a `}` or `)` left out, a generic op
//           without its type, a string left open, a stray `)`, an op result without `=`, a text cut short

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureCases, sharedAbsent, sharedCaptures } from '../../fixtures.mjs';
import { rng } from '../../differential/corpus.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..', '..');
export const GENERIC_FILE = join(HERE, 'generic.bin.gz');
export const SHARED_GENERIC_FILE = join(ROOT, 'build', 'stablehlo-oracle', 'shared-generic.bin');
export const SHARED_SUBS = ['tpu-v6e'];
const MUTATION_BASE_LIMIT = 48 * 1024;

export function readRecords(path) {
  const raw = readFileSync(path);
  const data = path.endsWith('.gz') ? gunzipSync(raw) : raw;
  const out = [];
  let pos = 0;
  while (pos < data.length) {
    if (data[pos] !== 0x1e) throw new Error(`${path}: bad record at byte ${pos}`);
    const nl = data.indexOf(0x0a, pos);
    const head = data.subarray(pos + 1, nl).toString();
    const sp = head.lastIndexOf(' ');
    const n = Number(head.slice(sp + 1));
    out.push({ id: head.slice(0, sp), text: data.subarray(nl + 1, nl + 1 + n).toString('utf8') });
    pos = nl + 1 + n;
  }
  return out;
}

export function writeRecords(path, recs) {
  const parts = [];
  for (const r of recs) {
    const b = Buffer.from(r.text, 'utf8');
    parts.push(Buffer.from(`\x1e${r.id} ${b.length}\n`), b);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.concat(parts));
}

export const sha1 = (s) => createHash('sha1').update(s, 'utf8').digest('hex');

/** The pretty texts we have: fixtures and (when present) the shared captures. */
export function prettySources({ shared = true } = {}) {
  const out = [];
  for (const c of fixtureCases()) {
    for (const name of ['stablehlo.mlir', 'stablehlo.debug.mlir']) {
      const p = c.file(name);
      if (p) out.push({ id: `fix:${c.label}/${name}`, path: p, text: readFileSync(p, 'utf8') });
    }
  }
  if (shared) {
    for (const sub of SHARED_SUBS) {
      for (const p of sharedCaptures(sub, (f) => f.endsWith('.mlir'))) {
        out.push({ id: `shared:${sub}/${basename(p)}`, path: p, text: readFileSync(p, 'utf8'), shared: true });
      }
    }
  }
  return out;
}

// ---- mutations that keep a text legal MLIR --------------------------------------------------

const lines = (t) => t.split('\n');
const indentOf = (l) => l.match(/^\s*/)[0];

/** The positions of the spaces of a line outside strings, with their bracket depth. */
function spaces(line) {
  const out = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
      continue;
    }
    if ('([{<'.includes(c)) depth++;
    else if (')]}'.includes(c) || (c === '>' && line[i - 1] !== '-')) depth--;
    else if (c === ' ') out.push({ i, depth, after: line[i - 1] });
  }
  return out;
}

const isOpLine = (l) => /^\s*(%[^=]*=\s*)?("[a-z_]+\.[a-z_.]+"|[a-z_]+\.[a-z_.]+)/.test(l) && !/^\s*(func\.func|module)/.test(l);

const MUTATIONS = {
  // properties <{...}> and attribute dictionaries over three lines
  attrLines(t, r) {
    return lines(t).map((l) => {
      if (!isOpLine(l) || !r.chance(0.5)) return l;
      const ind = indentOf(l);
      return l.replace(/<\{(.*?)\}>/, (m, inner) => `<{\n${ind}    ${inner}\n${ind}  }>`);
    }).join('\n');
  },
  // the type after " : " on a line of its own
  typeLine(t, r) {
    return lines(t).map((l) => {
      if (!isOpLine(l) || !r.chance(0.4)) return l;
      const sp = spaces(l).filter((s) => s.depth === 0 && l.slice(s.i, s.i + 3) === ' : ');
      if (!sp.length) return l;
      const s = sp[sp.length - 1];
      return `${l.slice(0, s.i)}\n${indentOf(l)}    ${l.slice(s.i + 1)}`;
    }).join('\n');
  },
  // function arguments one a line
  argLines(t) {
    return lines(t).map((l) => (/^\s*func\.func/.test(l) ? l.replace(/, %arg/g, ',\n      %arg') : l)).join('\n');
  },
  // a location on a line of its own
  locLine(t, r) {
    return lines(t).map((l) => (isOpLine(l) && r.chance(0.5) ? l.replace(/ (loc\(#loc\d*\))$/, `\n${indentOf(l)}    $1`) : l)).join('\n');
  },
  // comment lines between any two lines
  comments(t, r) {
    const out = [];
    for (const l of lines(t)) {
      out.push(l);
      if (r.chance(0.15)) out.push(`${indentOf(l)}// a comment (hloscope corpus)`);
    }
    return out.join('\n');
  },
  // line breaks inside brackets, and after commas between operands
  breaks(t, r) {
    return lines(t).map((l) => {
      if (!isOpLine(l)) return l;
      const eq = l.indexOf(' = ');
      const sp = spaces(l).filter((s) => s.i > eq + 2 && (s.depth > 0 || s.after === ',') && r.chance(0.25));
      if (!sp.length) return l;
      let out = '';
      let k = 0;
      for (const s of sp) {
        out += `${l.slice(k, s.i)}\n${indentOf(l)}      `;
        k = s.i + 1;
      }
      return out + l.slice(k);
    }).join('\n');
  },
  // unit attributes on generic ops: "{hloscope.unit}" or a dictionary over several lines
  unitAttrs(t, r) {
    return lines(t).map((l) => {
      if (!/^\s*(%[^=]*=\s*)?"[a-z_]+\.[a-z_.]+"\(/.test(l) || !/[)>] : \(/.test(l) || !r.chance(0.4)) return l;
      const ind = indentOf(l);
      const dict = r.chance(0.5) ? '{hloscope_unit}' : `{\n${ind}    hloscope_unit,\n${ind}    hloscope.note = "n",\n${ind}    hloscope.flag\n${ind}  }`;
      return l.replace(/([)>]) : \(/, `$1 ${dict} : (`);
    }).join('\n');
  },
};

/** A text without its module: "module ... {" and its "}" taken away (functions stay). */
function bareFunctions(t) {
  const ls = lines(t);
  const open = ls.findIndex((l) => /^module\b/.test(l));
  if (open < 0) return null;
  let close = -1;
  for (let i = ls.length - 1; i > open; i--) if (/^}/.test(ls[i])) { close = i; break; }
  if (close < 0) return null;
  return [...ls.slice(0, open), ...ls.slice(open + 1, close), ...ls.slice(close + 1)].join('\n');
}

// ---- generated texts ------------------------------------------------------------------------

function synText(r, k) {
  const shapes = ['tensor<f32>', 'tensor<4xf32>', 'tensor<2x3xf32>', 'tensor<8xi32>'];
  const parts = [];
  const nparts = r.chance(0.3) ? 2 + r.int(2) : 1;
  for (let pi = 0; pi < nparts; pi++) {
    const bare = r.chance(0.5);
    const nfun = 1 + r.int(3);
    const funs = [];
    for (let f = 0; f < nfun; f++) {
      const ty = r.pick(shapes);
      const body = [];
      let v = 0;
      const val = () => (v ? `%v${r.int(v)}` : '%arg0');
      const n = 1 + r.int(6);
      for (let i = 0; i < n; i++) {
        const kind = r.int(7);
        const a = val(), b = val();
        if (kind === 0) body.push(`%v${v++} = stablehlo.add ${a}, ${b} : ${ty}`);
        else if (kind === 1) body.push(`%v${v++} = "stablehlo.multiply"(${a}, ${b}) : (${ty}, ${ty}) -> ${ty}`);
        else if (kind === 2) { // several results, comma form
          body.push(`%v${v}, %v${v + 1} = "stablehlo.optimization_barrier"(${a}, ${b}) : (${ty}, ${ty}) -> (${ty}, ${ty})`);
          v += 2;
        } else if (kind === 3) { // several results, %x:2 form, over lines
          body.push(`%w${v}:2 = "stablehlo.optimization_barrier"(${a}, ${b})\n    : (${ty}, ${ty})\n    -> (${ty}, ${ty})`);
          body.push(`%v${v} = stablehlo.subtract %w${v}#0, %w${v}#1 : ${ty}`);
          v++;
        } else if (kind === 4) { // attribute dictionary over lines, with unit attributes
          body.push(`%v${v++} = "stablehlo.negate"(${a}) {\n      hloscope.first,\n      hloscope.note = "x, y",\n      hloscope.count = 3 : i64,\n      has_dynamic_root\n    } : (${ty}) -> ${ty}`);
        } else if (kind === 5) { // one-line unit attributes, pretty
          body.push(`%v${v++} = "stablehlo.abs"(${a}) {has_dynamic_root, hloscope.x} : (${ty}) -> ${ty}`);
        } else { // a region (reduce to a scalar), generic, over lines
          const el = ty.replace(/tensor<(?:[\dx]+x)?(\w+)>/, 'tensor<$1>');
          const dims = ty.match(/tensor<([\dx]+)x/) ? ty.match(/tensor<([\dx]+)x/)[1].split('x').map((_, d) => d) : [];
          body.push(`%c${v} = stablehlo.constant dense<0${el.includes('i32') ? '' : '.0'}> : ${el}`);
          body.push(`%r${v} = "stablehlo.reduce"(${a}, %c${v}) <{\n      dimensions = array<i64${dims.length ? ': ' + dims.join(', ') : ''}>\n    }> ({\n    ^bb0(%x: ${el}, %y: ${el}):\n      %s = "stablehlo.maximum"(%x, %y) : (${el}, ${el}) -> ${el}\n      "stablehlo.return"(%s) : (${el}) -> ()\n    }) : (${ty}, ${el}) -> ${el}`);
          body.push(`%v${v} = "stablehlo.broadcast_in_dim"(%r${v}) <{broadcast_dimensions = array<i64>}> : (${el}) -> ${ty}`);
          v++;
        }
      }
      const ret = r.chance(0.5) ? `return ${val()} : ${ty}` : `"func.return"(${val()}) : (${ty}) -> ()`;
      funs.push(`func.func ${f === 0 ? 'public @main' : `private @f${f}`}(%arg0: ${ty}) -> ${ty} {\n    ${body.join('\n    ')}\n    ${ret}\n  }`);
    }
    const fs = funs.join('\n  ');
    parts.push(bare ? `${fs.replace(/\n {2}/g, '\n')}\n` : `module @syn_${k}_${pi} {\n  ${fs}\n}\n`);
  }
  return parts.join('// -----\n');
}

// ---- texts with one syntax error ------------------------------------------------------------

const BREAKS = {
  dropBrace(t) { // the last "}" left out
    const ls = lines(t);
    for (let i = ls.length - 1; i >= 0; i--) if (/^\s*}\s*$/.test(ls[i])) return [...ls.slice(0, i), ...ls.slice(i + 1)].join('\n');
    return null;
  },
  dropParen(t, r) { // an op's operand list left open
    const ls = lines(t);
    const c = ls.map((l, i) => (/^\s*(%[^=]*=\s*)?"[a-z_]+\.[a-z_.]+"\([^()]*\) : \(/.test(ls[i]) ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    const i = r.pick(c);
    ls[i] = ls[i].replace(/\) : \(/, ' : (');
    return ls.join('\n');
  },
  dropType(t, r) { // a generic op without its type
    const ls = lines(t);
    const c = ls.map((l, i) => (/^\s*(%[^=]*=\s*)?"stablehlo\.[a-z_]+"\(.*\) : \(.*\) -> [^ ]+$/.test(ls[i]) ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    const i = r.pick(c);
    ls[i] = ls[i].replace(/ : \([^:]*$/, '');
    return ls.join('\n');
  },
  openString(t, r) { // a generic op's name left open
    const ls = lines(t);
    const c = ls.map((l, i) => (/"stablehlo\.[a-z_]+"/.test(ls[i]) ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    const i = r.pick(c);
    ls[i] = ls[i].replace(/"(stablehlo\.[a-z_]+)"/, '"$1');
    return ls.join('\n');
  },
  strayParen(t, r) { // a ")" too many after an op
    const ls = lines(t);
    const c = ls.map((l, i) => (isOpLine(ls[i]) && /tensor<[^>]*>$/.test(ls[i]) ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    const i = r.pick(c);
    ls[i] += ')';
    return ls.join('\n');
  },
  noEquals(t, r) { // "%3 stablehlo.add ..."
    const ls = lines(t);
    const c = ls.map((l, i) => (/^\s*%\w+ = /.test(ls[i]) ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    const i = r.pick(c);
    ls[i] = ls[i].replace(/ = /, ' ');
    return ls.join('\n');
  },
  cut(t, r) { // the text cut after a line in its middle
    const ls = lines(t);
    const c = ls.map((l, i) => (isOpLine(l) && i > 2 && i < ls.length - 3 ? i : -1)).filter((i) => i >= 0);
    if (!c.length) return null;
    return ls.slice(0, r.pick(c) + 1).join('\n') + '\n';
  },
};

/** The whole corpus for a seed: [{id, text}], in a fixed order. */
export function buildCorpus({ seed = 1, shared = true } = {}) {
  // one PRNG per base text and per kind, so that a text does not change with the others there
  // are (the shared captures present or not)
  const hash32 = (s) => parseInt(sha1(s).slice(0, 8), 16);
  const out = [];
  const pretty = prettySources({ shared });
  for (const s of pretty) out.push({ id: s.id, text: s.text, shared: !!s.shared });
  const generic = existsSync(GENERIC_FILE) ? readRecords(GENERIC_FILE) : [];
  for (const g of generic) out.push({ id: g.id, text: g.text });
  const sharedOn = shared && !SHARED_SUBS.every((s) => sharedAbsent(s));
  const shgen = sharedOn && existsSync(SHARED_GENERIC_FILE) ? readRecords(SHARED_GENERIC_FILE) : [];
  for (const g of shgen) out.push({ id: g.id, text: g.text, shared: true, shgen: true });
  const bases = out.filter((b) => b.text.length <= MUTATION_BASE_LIMIT && !b.shgen);
  const names = Object.keys(MUTATIONS);
  for (const b of bases) {
    // each base: two texts, each with one to three mutations
    const r = rng((hash32(b.id) ^ seed) >>> 0);
    for (let k = 0; k < 2; k++) {
      const picked = [];
      const n = 1 + r.int(3);
      for (let i = 0; i < n; i++) picked.push(r.pick(names));
      let text = b.text;
      for (const m of picked) text = MUTATIONS[m](text, r);
      if (r.chance(0.2)) text = bareFunctions(text) ?? text;
      out.push({ id: `mut:${b.id}#${k}:${picked.join('+')}`, text, shared: b.shared });
    }
  }
  // two texts in one, split
  const own = bases.filter((b) => !b.shared);
  let r = rng(seed * 7 + 1);
  for (let k = 0; k < 8 && own.length > 1; k++) {
    const a = r.pick(own), b = r.pick(own);
    out.push({ id: `mut:split${k}:${a.id}|${b.id}`, text: `${a.text}\n// -----\n${bareFunctions(b.text) ?? b.text}` });
  }
  r = rng(seed * 7 + 2);
  for (let k = 0; k < 40; k++) out.push({ id: `syn:${k}`, text: synText(r, k) });
  r = rng(seed * 7 + 3);
  const bnames = Object.keys(BREAKS);
  const small = bases.filter((b) => b.text.length < 16 * 1024 && !b.shared);
  for (let k = 0; k < 3 * bnames.length && small.length; k++) {
    const how = bnames[k % bnames.length];
    const b = r.pick(small);
    const text = BREAKS[how](b.text, r);
    if (text !== null && text !== b.text) out.push({ id: `bad:${how}${k}:${b.id}`, text });
  }
  for (let k = 0; k < 2 * bnames.length; k++) {
    const how = bnames[k % bnames.length];
    const text = BREAKS[how](synText(r, 100 + k), r);
    if (text !== null) out.push({ id: `bad:${how}-syn${k}`, text });
  }
  const seen = new Set();
  for (const o of out) {
    if (seen.has(o.id)) throw new Error(`corpus: id ${o.id} twice`);
    seen.add(o.id);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
  const seed = Number(opt('--seed', '1'));
  const out = opt('--out', join(ROOT, 'build', 'stablehlo-oracle', `corpus-${seed}.bin`));
  if (args.includes('--pretty')) { // the pretty sources, for make_oracle.py: [{id, path, shared}]
    console.log(JSON.stringify(prettySources({ shared: !args.includes('--no-shared') }).map(({ id, path, shared }) => ({ id, path, shared: !!shared }))));
    process.exit(0);
  }
  if (args.includes('--seeds')) { // fuzz seeds (tests/fuzz/run.sh): the generic forms, generated and mutated texts, 64 KB at most
    const dir = opt('--seeds');
    mkdirSync(dir, { recursive: true });
    const pick = buildCorpus({ seed, shared: false }).filter((c) => /^(gen|syn|mut:gen|mut:split|bad):/.test(c.id));
    pick.forEach((c, i) => writeFileSync(join(dir, `shlo${i}`), Buffer.from(c.text, 'utf8').subarray(0, 65536)));
    console.log(`${pick.length} seeds -> ${dir}`);
    process.exit(0);
  }
  const corpus = buildCorpus({ seed, shared: !args.includes('--no-shared') });
  writeRecords(out, corpus);
  console.log(`${corpus.length} texts -> ${out}`);
}
