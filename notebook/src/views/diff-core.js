// The layout of <xla-diff> as plain functions (no DOM), so that the analysis worker, the
// main-thread fallback and the node tests run the same code. The core decides what matched and
// what changed (`diff(a, b)`, core/src/analyses/diff.c); this module only places the two texts'
// lines on rows:
//
//   alignRows(pairs, nA, nB, solo)  -> rows where matched lines sit side by side
//   lineMarks(diff, nA, nB)         -> per line of each side, the change it shows (a colour)
//   changeEntries(diff)             -> the list of changes, each with its lines on each side
//   diffTexts(api, a, b, known)     -> all of the above for two texts (what the worker returns)
//
// Alignment. `pairs` ([A line, B line], 1-based) may cross: B can print a matched computation
// earlier than A does. Rows keep each side's line order, so crossing pairs cannot all sit on one
// row: the largest set of pairs that do not cross (a longest increasing run of B lines, taken in
// A's order) is aligned, and the pairs left out are "matched elsewhere" (`partner` says where;
// a view links them). Between two aligned pairs, the lines of unmatched instructions and of pairs
// matched elsewhere get rows of their own (the other side blank); the other lines of the gap
// (computation headers, braces, blank lines) are zipped, one of each side per row, from the top
// (the braces that close what the pair above ends) and from the bottom (the headers that open
// what the pair below starts); what is left between gets rows of its own.

/** What a line of one side shows, by code (index = the code in lineMarks' arrays). */
export const MARKS = ['none', 'unmatched', 'moved', 'fusion', 'spill'];
const M = Object.fromEntries(MARKS.map((m, i) => [m, i]));

/** The pairs as a flat Int32Array [a0, b0, a1, b1, ...] (from [[a, b]] or a flat array). */
export function flatPairs(pairs) {
  if (pairs instanceof Int32Array) return pairs;
  const out = new Int32Array(pairs.length * 2);
  for (let k = 0; k < pairs.length; k++) { out[2 * k] = pairs[k][0]; out[2 * k + 1] = pairs[k][1]; }
  return out;
}

/**
 * The indices (into the pairs, by A's order) of a largest set of pairs whose B lines increase
 * with their A lines: patience sorting, O(n log n).
 */
function increasingRun(flat) {
  const n = flat.length / 2;
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  // pairs come in A's order from the core; sort anyway (a caller may give them otherwise)
  let sorted = true;
  for (let k = 1; k < n && sorted; k++) if (flat[2 * k] < flat[2 * k - 2]) sorted = false;
  if (!sorted) order.sort((x, y) => flat[2 * x] - flat[2 * y]);
  const tails = new Int32Array(n); // tails[len-1]: index (into order) of the smallest tail of a run of len
  const prev = new Int32Array(n).fill(-1);
  let len = 0;
  for (let i = 0; i < n; i++) {
    const b = flat[2 * order[i] + 1];
    let lo = 0;
    let hi = len;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (flat[2 * order[tails[mid]] + 1] < b) lo = mid + 1; else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
    if (lo === len) len++;
  }
  const run = new Int32Array(len);
  for (let i = len ? tails[len - 1] : -1, k = len - 1; i >= 0; i = prev[i], k--) run[k] = order[i];
  return run;
}

/**
 * Rows for two texts of nA and nB lines. `pairs`: the core's matched lines ([[a, b]] or flat);
 * `solo`: { a, b } lines (iterables) that get rows of their own (the unmatched instructions);
 * `kinds`: { a, b } (optional, lineKinds of each text): filler lines share a row only with one
 * of their kind (a blank line with a blank line, a brace with a brace, a header with a header).
 * Returns { rows, a, b, rowOfA, rowOfB, partnerA, partnerB, aligned, elsewhere }:
 * a[r] / b[r] the line (1-based) of each side on row r, 0 for a blank; rowOfA[line] /
 * rowOfB[line] the row of a line (index 0 unused); partnerA[line] the B line matched with an A
 * line, 0 for none (partnerB the other way); aligned: how many pairs share a row; elsewhere: how
 * many do not (crossing pairs).
 */
export function alignRows(pairs, nA, nB, solo = {}, kinds = {}) {
  const flat = flatPairs(pairs);
  const np = flat.length / 2;
  // a pair past a side's last line (a text without its final lines) widens that side
  for (let k = 0; k < np; k++) { nA = Math.max(nA, flat[2 * k]); nB = Math.max(nB, flat[2 * k + 1]); }
  const partnerA = new Int32Array(nA + 1);
  const partnerB = new Int32Array(nB + 1);
  for (let k = 0; k < np; k++) {
    const a = flat[2 * k];
    const b = flat[2 * k + 1];
    if (a < 1 || b < 1 || partnerA[a] || partnerB[b]) continue; // a line in two pairs keeps its first
    partnerA[a] = b;
    partnerB[b] = a;
  }
  const run = increasingRun(flat);
  const soloA = new Uint8Array(nA + 2);
  const soloB = new Uint8Array(nB + 2);
  for (const l of solo.a ?? []) if (l >= 1 && l <= nA) soloA[l] = 1;
  for (const l of solo.b ?? []) if (l >= 1 && l <= nB) soloB[l] = 1;
  // the matched lines left out of the run sit on rows of their own too
  const inRunA = new Uint8Array(nA + 2);
  let aligned = 0;
  const stops = [];
  let lastA = 0;
  let lastB = 0;
  for (const k of run) {
    const a = flat[2 * k];
    const b = flat[2 * k + 1];
    // strictly increasing on both sides, each line once
    if (a <= lastA || b <= lastB || partnerA[a] !== b) continue;
    stops.push(a, b);
    inRunA[a] = 1;
    lastA = a;
    lastB = b;
    aligned++;
  }
  for (let a = 1; a <= nA; a++) if (partnerA[a] && !inRunA[a]) { soloA[a] = 1; soloB[partnerA[a]] = 1; }
  // two filler lines (no instruction of either side on its own row) that may share a row
  const kA = kinds.a;
  const kB = kinds.b;
  const fits = (a, b) => !soloA[a] && !soloB[b] && (!kA || !kB || kA[a] === kB[b]);
  const cap = nA + nB;
  const ra = new Int32Array(cap);
  const rb = new Int32Array(cap);
  const rowOfA = new Int32Array(nA + 1).fill(-1);
  const rowOfB = new Int32Array(nB + 1).fill(-1);
  let r = 0;
  const put = (a, b) => {
    ra[r] = a;
    rb[r] = b;
    if (a) rowOfA[a] = r;
    if (b) rowOfB[b] = r;
    r++;
  };
  let pa = 1;
  let pb = 1;
  for (let s = 0; s <= stops.length; s += 2) {
    const ea = s < stops.length ? stops[s] : nA + 1;
    const eb = s < stops.length ? stops[s + 1] : nB + 1;
    // the gap's last lines zipped while both are fillers of one kind (the headers opening what
    // the pair below starts), then its first ones (the braces closing what the pair above ends)
    let ta = ea;
    let tb = eb;
    while (ta > pa && tb > pb && fits(ta - 1, tb - 1)) { ta--; tb--; }
    while (pa < ta && pb < tb && fits(pa, pb)) put(pa++, pb++);
    while (pa < ta || pb < tb) {
      if (pa < ta && (soloA[pa] || pb >= tb)) put(pa++, 0);
      else if (pb < tb && (soloB[pb] || pa >= ta)) put(0, pb++);
      else { put(pa++, 0); }
    }
    while (pa < ea) put(pa++, pb++);
    if (s < stops.length) { put(ea, eb); pa = ea + 1; pb = eb + 1; }
  }
  return {
    rows: r, a: ra.slice(0, r), b: rb.slice(0, r), rowOfA, rowOfB, partnerA, partnerB,
    aligned, elsewhere: np - aligned,
  };
}

/**
 * What each line of each side shows: a code of MARKS per line (index = line, 0 unused), the
 * strongest change a line takes part in: a new (B) or gone (A) spill, a fusion op of an entry
 * that is not `same`, an op that moved between fusions, an unmatched instruction. (A matched
 * line whose partner sits on another row is the layout's to say: partnerA/partnerB, rowOf.)
 */
export function lineMarks(diff, nA, nB) {
  const marks = { a: new Uint8Array(nA + 1), b: new Uint8Array(nB + 1) };
  const mark = (side, line, code) => {
    const m = marks[side];
    if (line >= 1 && line < m.length && m[line] < code) m[line] = code;
  };
  for (const s of ['a', 'b']) for (const l of diff.unmatched?.[s] ?? []) mark(s, l, M.unmatched);
  for (const f of diff.fusions ?? []) {
    if (f.change === 'same') continue;
    for (const s of ['a', 'b']) {
      for (const l of f[`${s}_moved_lines`] ?? []) mark(s, l, M.moved);
      for (const l of f[`${s}_lines`] ?? []) mark(s, l, M.fusion);
    }
  }
  for (const m of diff.materialized ?? []) mark(m.side === 'b' ? 'b' : 'a', m.line, M.spill);
  return marks;
}

const INT = new Intl.NumberFormat('en-US');
const int = (n) => INT.format(Number(n));
const list = (xs, max = 4) => (xs.length > max ? `${xs.slice(0, max).join(', ')} and ${xs.length - max} more` : xs.join(', '));

/**
 * The changes to list, in the core's order within each kind: fusion entries other than `same`,
 * materialized values, calls, transfers other than `same`. Each { kind, change, title, detail,
 * a: [lines], b: [lines] }: the lines to scroll to and highlight on each side (the fusion ops
 * and the ops that moved; the value; the calls; a transfer's start and done).
 */
export function changeEntries(diff) {
  const out = [];
  (diff.fusions ?? []).forEach((f, index) => {
    if (f.change === 'same') return;
    const names = (xs) => (xs.length ? list(xs, 3) : 'none');
    const detail = [f.moved.length ? `moved: ${list(f.moved)}` : '', f.source.length ? `source: ${list(f.source, 3)}` : ''].filter(Boolean).join(' · ');
    out.push({
      kind: 'fusion', change: f.change, index,
      title: `fusion ${f.change}: ${names(f.a)} → ${names(f.b)}`,
      detail,
      a: [...f.a_lines, ...(f.a_moved_lines ?? [])], b: [...f.b_lines, ...(f.b_moved_lines ?? [])],
    });
  });
  (diff.materialized ?? []).forEach((m, index) => {
    out.push({
      kind: 'materialized', change: m.change, index,
      title: `${m.change === 'added' ? 'new in HBM (B)' : 'gone from HBM (A only)'}: ${m.value} ${m.shape}`,
      detail: `${int(m.bytes)} bytes`,
      a: m.side === 'a' && m.line ? [m.line] : [], b: m.side === 'b' && m.line ? [m.line] : [],
    });
  });
  (diff.calls ?? []).forEach((c, index) => {
    out.push({
      kind: 'call', change: c.change, index,
      title: `call ${c.change}: ${c.target} ${int(c.a)} → ${int(c.b)}`,
      detail: '',
      a: c.a_lines ?? [], b: c.b_lines ?? [],
    });
  });
  (diff.transfers ?? []).forEach((t, index) => {
    if (t.change === 'same') return;
    const x = t.a ?? t.b;
    const lines = (s) => (s ? [s.line, s.done_line].filter((l) => l) : []);
    const kernels = (s) => (s?.overlapped == null ? '?' : s.overlapped.length);
    out.push({
      kind: 'transfer', change: t.change, index,
      title: `transfer ${t.change}: ${x.kind} ${t.a?.start ?? 'none'} → ${t.b?.start ?? 'none'}`,
      detail: t.a && t.b ? `kernels in flight over it: ${kernels(t.a)} → ${kernels(t.b)}` : '',
      a: lines(t.a), b: lines(t.b),
    });
  });
  return out;
}

/**
 * The kind of each line of a text, for zipping filler lines: 0 blank, 1 a closing brace, 2 a
 * line that opens a block (ends with "{"), 3 anything else. Index = line (1-based; 0 unused).
 */
export function lineKinds(text, n) {
  const k = new Uint8Array(n + 2);
  let line = 1;
  let at = 0;
  while (at <= text.length && line <= n) {
    let e = text.indexOf('\n', at);
    if (e === -1) e = text.length;
    let a = at;
    let b = e;
    while (a < b && (text.charCodeAt(a) === 32 || text.charCodeAt(a) === 9)) a++;
    while (b > a && (text.charCodeAt(b - 1) === 32 || text.charCodeAt(b - 1) === 13 || text.charCodeAt(b - 1) === 9)) b--;
    k[line] = a === b ? 0 : b - a === 1 && text.charCodeAt(a) === 125 ? 1 : text.charCodeAt(b - 1) === 123 ? 2 : 3;
    line++;
    at = e + 1;
  }
  return k;
}

/** Line counts of a text as lineStarts counts them (a final newline ends the last line). */
function countLines(text) {
  if (!text.length) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.charCodeAt(text.length - 1) === 10 ? n - 1 : n;
}

/**
 * The core's diff of two texts and its layout, shaped for the page: { diff, layout, marks,
 * lines: { a, b } }. `diff` is the core's object without its `pairs` (they are in the layout:
 * partnerA / partnerB; `diff.pairs_count` says how many). `known`: { a, b } line counts already
 * counted. The arrays are typed (transferable).
 */
export function diffTexts(api, a, b, known = {}) {
  const diff = api.diff(a, b);
  const nA = known.a ?? countLines(a);
  const nB = known.b ?? countLines(b);
  const layout = alignRows(diff.pairs, nA, nB, diff.unmatched, { a: lineKinds(a, nA), b: lineKinds(b, nB) });
  const marks = lineMarks(diff, layout.rowOfA.length - 1, layout.rowOfB.length - 1);
  diff.pairs_count = diff.pairs.length;
  delete diff.pairs;
  return { diff, layout, marks, lines: { a: layout.rowOfA.length - 1, b: layout.rowOfB.length - 1 } };
}

/** The transferable buffers of diffTexts' result. */
export function diffBuffers(out) {
  const l = out.layout;
  return [l.a.buffer, l.b.buffer, l.rowOfA.buffer, l.rowOfB.buffer, l.partnerA.buffer, l.partnerB.buffer, out.marks.a.buffer, out.marks.b.buffer];
}
