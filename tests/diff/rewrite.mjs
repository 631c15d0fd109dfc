// The same HLO module written differently, for the diff's self-checks (issue 38): every name
// changed (instructions, computations, header parameters, the module), computations and
// independent instructions reordered (definitions still before their uses, ROOT last; in a
// scheduled module async starts, updates and dones stay barriers: the schedule is kept), and with
// { strip: true } names made opaque and every metadata={...} and frame table removed. Written
// from the text alone (not from our reader), deterministic: the same input gives the same output.
//
//   rewriteHlo(text, { strip = false }) -> text
//   node tests/diff/rewrite.mjs [--strip] FILE   prints the rewritten module

const NAME = /[A-Za-z_][A-Za-z0-9_.\-]*/y;
const isNameStart = (c) => /[A-Za-z_]/.test(c);
const isNameChar = (c) => /[A-Za-z0-9_.\-]/.test(c);

// A deterministic scramble of a string (FNV-1a, 32 bits, in base 36).
function scramble(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(36);
}

// The depth of {...} nesting after a line, from depth d before it (strings honoured).
function braceDepth(line, d) {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') { i = skipString(line, i) - 1; continue; }
    if (c === '{') d++;
    else if (c === '}') d--;
  }
  return d;
}

// Lines grouped into: the module line, the frame tables, computations (header, statements, close).
function parse(text) {
  const lines = text.split('\n');
  const out = { head: [], tables: [], comps: [], tail: [] };
  let cur = null;
  let inTables = false;
  for (const line of lines) {
    const t = line.trim();
    if (cur) {
      const last = cur.stmts[cur.stmts.length - 1];
      if (/^\}\s*(\/\/.*)?$/.test(t) && !(last && last.depth > 0)) { cur.close = line; out.comps.push(cur); cur = null; continue; }
      const def = /^\s*(ROOT\s+)?%?[A-Za-z_][A-Za-z0-9_.\-]*\s*=\s/.test(line);
      if ((def && !(last && last.depth > 0)) || !last) cur.stmts.push({ lines: [line], root: /^\s*ROOT\s/.test(line), depth: braceDepth(line, 0) });
      else { last.lines.push(line); last.depth = braceDepth(line, last.depth); } // a continuation line
      continue;
    }
    if (/^\s*HloModule\s/.test(line)) { out.head.push(line); continue; }
    if (/^(FileNames|FunctionNames|FileLocations|StackFrames)\s*$/.test(t)) inTables = true;
    if (t.endsWith('{') && !/^\s*(ROOT\s+)?%?[A-Za-z_][A-Za-z0-9_.\-]*\s*=\s/.test(line)) {
      inTables = false;
      cur = { header: line, stmts: [], close: null };
      continue;
    }
    if (inTables) out.tables.push(line);
    else if (out.comps.length) out.tail.push(line);
    else out.head.push(line);
  }
  if (cur) out.comps.push(cur); // a module cut inside a computation: kept as it is
  return out;
}

// The names the text defines: module, computations, header parameters, instructions.
function definedNames(p) {
  const names = new Set();
  for (const l of p.head) { const m = /^\s*HloModule\s+%?([A-Za-z_][A-Za-z0-9_.\-]*)/.exec(l); if (m) names.add(m[1]); }
  for (const c of p.comps) {
    const m = /^\s*(?:ENTRY\s+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)/.exec(c.header);
    if (m) names.add(m[1]);
    const params = c.header.slice(c.header.indexOf('(') + 1);
    for (const pm of params.matchAll(/(?:^|[(,\s])%?([A-Za-z_][A-Za-z0-9_.\-]*)\s*:/g)) names.add(pm[1]);
    for (const s of c.stmts) {
      const d = /^\s*(?:ROOT\s+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)\s*=\s/.exec(s.lines[0]);
      if (d) { s.name = d[1]; names.add(d[1]); }
    }
  }
  return names;
}

// Skips a balanced {...} at s[i] == '{' (strings honoured); returns the index after it.
function skipBraces(s, i) {
  let depth = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') { i = skipString(s, i); continue; }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
    i++;
  }
  return i;
}
function skipString(s, i) {
  for (i++; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i + 1;
  }
  return i;
}

// Renames the defined names in a line: tokens outside quoted strings that are not an opcode
// (a word right before '(' without '%') nor an attribute key (a word right before '=');
// optionally drops metadata={...}.
function renameLine(line, map, strip) {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '"') { const j = skipString(line, i); out += line.slice(i, j); i = j; continue; }
    if (line.startsWith('metadata={', i) && (i === 0 || !isNameChar(line[i - 1]))) {
      const j = skipBraces(line, i + 9);
      if (strip) { out = out.replace(/,\s*$/, ''); i = j; continue; }
      out += line.slice(i, j); i = j; continue;
    }
    if (line.startsWith('backend_config={', i)) { const j = skipBraces(line, i + 15); out += line.slice(i, j); i = j; continue; }
    if (isNameStart(c) && (i === 0 || !isNameChar(line[i - 1]))) {
      NAME.lastIndex = i;
      const m = NAME.exec(line);
      let tok = m[0];
      // "name-" before "->" belongs to the arrow
      if (tok.endsWith('-') && line[i + tok.length] === '>') tok = tok.slice(0, -1);
      const after = line[i + tok.length];
      const key = after === '=' && line[i + tok.length + 1] !== '=';
      const opcode = after === '(' && line[i - 1] !== '%'; // an opcode (names are followed by a space, ',' or ')')
      out += map.has(tok) && !key && !opcode ? map.get(tok) : tok;
      i += tok.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

// The names a statement or computation mentions (as tokens; a superset is fine: used for order only).
function mentions(lines, names) {
  const found = new Set();
  for (const l of lines) for (const m of l.matchAll(/[A-Za-z_][A-Za-z0-9_.\-]*/g)) if (names.has(m[0])) found.add(m[0]);
  return found;
}

// Kahn's order, taking among the ready items the one that came LAST: independent items reverse.
function reorder(items, depsOf, keepLast) {
  const n = items.length;
  const indeg = new Array(n).fill(0), users = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) for (const j of depsOf(i)) if (j !== i) { indeg[i]++; users[j].push(i); }
  // a binary max-heap of ready indexes (a module of 200k statements must not sort per step)
  const heap = [];
  const push = (x) => {
    heap.push(x);
    for (let k = heap.length - 1; k > 0;) {
      const p = (k - 1) >> 1;
      if (heap[p] >= heap[k]) break;
      [heap[p], heap[k]] = [heap[k], heap[p]];
      k = p;
    }
  };
  const pop = () => {
    const top = heap[0], last = heap.pop();
    if (heap.length) {
      heap[0] = last;
      for (let k = 0; ;) {
        const l = 2 * k + 1, r = l + 1;
        let m = k;
        if (l < heap.length && heap[l] > heap[m]) m = l;
        if (r < heap.length && heap[r] > heap[m]) m = r;
        if (m === k) break;
        [heap[m], heap[k]] = [heap[k], heap[m]];
        k = m;
      }
    }
    return top;
  };
  for (let i = 0; i < n; i++) if (!indeg[i] && i !== keepLast) push(i);
  const order = [];
  while (heap.length) {
    const i = pop();
    order.push(i);
    for (const u of users[i]) if (--indeg[u] === 0 && u !== keepLast) push(u);
  }
  if (keepLast >= 0) order.push(keepLast);
  if (order.length !== n) return items.map((_, i) => i); // a cycle (not HLO): keep the order
  return order;
}

const ASYNC = /\s[\w-]+-(start|update|done)\(|\s(send|recv)(-done)?\(/;

export function rewriteHlo(text, { strip = false } = {}) {
  const p = parse(text);
  const scheduled = p.head.some((l) => /^\s*HloModule\s.*\bis_scheduled=true/.test(l));
  const names = definedNames(p);
  const map = new Map();
  let k = 0;
  for (const nm of [...names].sort((a, b) => (scramble(a) < scramble(b) ? -1 : scramble(a) > scramble(b) ? 1 : a < b ? -1 : 1)))
    map.set(nm, strip ? `v${++k}` : `r${scramble(nm)}_${++k}`);
  // computations: callees before callers, independent ones reversed, ENTRY last
  const compName = p.comps.map((c) => (/^\s*(?:ENTRY\s+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)/.exec(c.header) || [])[1]);
  const compIndex = new Map(compName.map((n, i) => [n, i]));
  const compNames = new Set(compName);
  const entry = p.comps.findIndex((c) => /^\s*ENTRY\s/.test(c.header));
  const compOrder = reorder(p.comps, (i) => [...mentions(p.comps[i].stmts.flatMap((s) => s.lines), compNames)].map((n) => compIndex.get(n)), entry);
  const out = [];
  for (const l of p.head) out.push(renameLine(l, map, strip));
  if (!strip) for (const l of p.tables) out.push(l);
  for (const ci of compOrder) {
    const c = p.comps[ci];
    out.push(renameLine(c.header, map, strip));
    const stmtIndex = new Map(c.stmts.map((s, i) => [s.name, i]));
    const local = new Set(c.stmts.map((s) => s.name).filter(Boolean));
    const root = c.stmts.findIndex((s) => s.root);
    // In a scheduled module the order is the schedule: an async start, update or done stays a
    // barrier (what runs while a transfer is in flight is part of the program), and only the
    // statements between two barriers are reordered.
    const barrier = scheduled ? c.stmts.map((st) => ASYNC.test(st.lines[0] || '')) : c.stmts.map(() => false);
    const prevBarrier = [];
    for (let i = 0, b = -1; i < c.stmts.length; i++) { prevBarrier.push(b); if (barrier[i]) b = i; }
    const deps = (i) => {
      const d = [...mentions(c.stmts[i].lines.map((l) => l.replace(/^\s*(ROOT\s+)?%?[A-Za-z_][A-Za-z0-9_.\-]*\s*=/, '')), local)].map((n) => stmtIndex.get(n));
      if (prevBarrier[i] >= 0) d.push(prevBarrier[i]);
      if (barrier[i]) for (let j = prevBarrier[i] + 1; j < i; j++) d.push(j);
      return d;
    };
    const order = reorder(c.stmts, deps, root);
    for (const si of order) for (const l of c.stmts[si].lines) out.push(renameLine(l, map, strip));
    if (c.close !== null) out.push(c.close);
    out.push('');
  }
  for (const l of p.tail) out.push(l);
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import('node:fs');
  const args = process.argv.slice(2);
  const strip = args[0] === '--strip';
  process.stdout.write(rewriteHlo(readFileSync(args[strip ? 1 : 0], 'utf8'), { strip }));
}
