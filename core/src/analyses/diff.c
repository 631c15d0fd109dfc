/* The compile diff: two optimized HLO modules matched by what their instructions are, not by
 * their names or their order, and what changed between them by meaning (issue 38).
 *
 * Matching, in rounds:
 *   1. structure: every instruction gets a hash of what it is (opcode, result type, its
 *      attributes without names or metadata, its operands' hashes in order, the hashes of the
 *      computations it calls); every computation a hash of its root and of the multiset of its
 *      instructions (so the order of independent instructions does not count). Matching goes
 *      top down: the entry computations are paired, and inside each pair of computations the
 *      instructions with equal hashes are paired (ties broken by op_name, source line, name,
 *      then order); a pair of instructions pairs the computations they call. Renaming,
 *      reordering and stripping metadata change no hash.
 *   2. what is left is matched by op_name metadata (with the opcode), then by source_file:line
 *      (with the opcode), then by structure around it (opcode, type, operands already matched
 *      to the other side's operands), then by name (with the opcode): names only as the last
 *      hint. A pair found here pairs the computations it calls, and round 1 runs inside them.
 * Fusions are then grouped by the instructions they hold: a fusion of A and one of B belong
 * together when an instruction of one's body is matched into the other's body, or when the
 * fusion ops themselves are matched. Each group is one entry: same, added, removed, merged
 * (several of A, one of B), split (one of A, several of B) or changed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"

#define BIG_BYTES (1u << 20) /* a materialized value this large is "big" (the side's own big one always is) */

enum { BY_NONE = 0, BY_STRUCTURE, BY_OP_NAME, BY_SOURCE, BY_NAME };

typedef struct {
  const hs_doc *d;
  uint64_t *h;        /* per instruction: what it is */
  uint64_t *th;       /* per instruction: its type (with layout) */
  uint64_t *dh;       /* per instruction: its shape's dimensions alone */
  uint64_t *src;      /* per instruction: hash of source_file:line, 0 when none */
  int32_t *match;     /* per instruction: the other side's instruction, -1 */
  uint8_t *by;        /* BY_* of the match */
  uint8_t *state;     /* hashing: 0 new, 1 on the stack, 2 done */
  uint64_t *ch;       /* per computation */
  uint8_t *cstate;
  int32_t *cmatch;    /* per computation: the other side's computation, -1 */
  int32_t *fusion_of; /* per computation: the fusion instruction whose body it is, -1 */
  hs_spill_info spill;
  hs_census census;
  bool is_b;
} side;

/* ---- hashing ---------------------------------------------------------------------------- */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

static uint64_t fnv(uint64_t h, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001B3ull;
  return h;
}

static bool op_is(const hs_doc *d, const hs_instr *in, const char *lit) { return hs_slice_is(d, hs_opcode(d, in), lit); }

/* The bytes of an instruction's statement: [*s, *e) from its line to the end of its continuation lines. */
static bool stmt_span(const hs_doc *d, const hs_instr *in, size_t *s, size_t *e) {
  if (!in->line || in->line > d->n_lines) return false;
  uint32_t li = in->line - 1;
  *s = hs_line_off(d, li);
  uint32_t k = li + 1;
  while (k < d->n_lines && d->lines[k].kind == HS_LINE_CONT) k++;
  *e = k < d->n_lines ? hs_line_off(d, k) : d->len;
  return true;
}

/* Skips a balanced {...} (strings honoured) at t[p] == '{'; returns the index after it. */
static size_t skip_braces(const char *t, size_t e, size_t p) {
  int depth = 0;
  while (p < e) {
    char c = t[p];
    if (c == '"') {
      p = hs_skip_string(t, e, p);
      continue;
    }
    if (c == '{') depth++;
    else if (c == '}' && --depth == 0) return p + 1;
    p++;
  }
  return e;
}

typedef struct {
  uint32_t off, len;
} range;

static int range_cmp(const void *x, const void *y) {
  const range *a = x, *b = y;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* What an instruction's text says about it after its opcode, without the names it mentions
 * (operands, called computations), its metadata or its control predecessors. */
static uint64_t attr_hash(const hs_doc *d, const hs_instr *in) {
  uint64_t h = 0xCBF29CE484222325ull;
  if (in->synth) return mix(h, in->synth == HS_SYNTH_GTE ? (uint64_t)(int64_t)hs_synth_gte_index(d, in) + 17 : 3);
  size_t s, e;
  const hs_slice opc = hs_opcode(d, in);
  if (hs_slice_synth(d, opc) || !stmt_span(d, in, &s, &e)) return h;
  /* a get-tuple-element is its index, written out (index=1) or compact (%t#1) as XLA may print it */
  if (op_is(d, in, "get-tuple-element")) {
    size_t k = hs_find(d->text, opc.off, e, "index=");
    int64_t idx = 0;
    if (k != SIZE_MAX)
      for (k += 6; k < e && d->text[k] >= '0' && d->text[k] <= '9'; k++) idx = idx * 10 + (d->text[k] - '0');
    return mix(h, (uint64_t)idx + 17);
  }
  size_t p = (size_t)opc.off + opc.len;
  if (p < s || p > e) return h;
  /* the operand list says nothing the operands' hashes do not (XLA prints operand types in it or
     not, as it is asked): skipped, but for a constant's literal and a parameter's number */
  if (p < e && d->text[p] == '(' && !op_is(d, in, "constant") && !op_is(d, in, "parameter")) {
    int depth = 0;
    while (p < e) {
      char c = d->text[p];
      if (c == '"') {
        p = hs_skip_string(d->text, e, p);
        continue;
      }
      p++;
      if (c == '(') depth++;
      else if (c == ')' && --depth == 0) break;
    }
  }
  range small[64], *rs = small;
  uint32_t nr = 0, want = hs_call_count(d, in) + 1;
  if (want > 64 && !(rs = malloc(want * sizeof *rs))) return mix(h, 0xDEADull); /* out of memory: opcode and operands still count */
  if (!in->synth)
    for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++) {
      hs_slice n = d->calls[k0 + k].name;
      if (!hs_slice_synth(d, n) && n.off >= p && n.off < e) rs[nr++] = (range){n.off, n.len};
    }
  /* backend_config: JSON whose key order differs between printings of one module (a dump's file
     and compile().as_text()): hashed in a canonical form (sorted keys) */
  const hs_slice bc = hs_hlo_of(d, in).backend_config;
  if (bc.len && !hs_slice_synth(d, bc) && bc.off >= p && bc.off < e) {
    rs[nr++] = (range){bc.off, bc.len};
    const char *bt = hs_sp(d, bc);
    json_t *j = bt[0] == '{' ? json_loadb(bt, bc.len, 0, NULL) : NULL;
    char *canon = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    h = canon ? fnv(h, canon, strlen(canon)) : fnv(h, bt, bc.len);
    free(canon);
    json_decref(j);
  }
  qsort(rs, nr, sizeof rs[0], range_cmp);
  const char *t = d->text;
  uint32_t r = 0;
  while (p < e) {
    while (r < nr && rs[r].off + rs[r].len <= p) r++;
    if (r < nr && p >= rs[r].off) {
      p = rs[r].off + rs[r].len;
      continue;
    }
    char c = t[p];
    if (c == '"') {
      size_t q = hs_skip_string(t, e, p);
      h = fnv(h, t + p, q - p);
      p = q;
      continue;
    }
    if ((c == 'm' && hs_starts(t, e, p, "metadata={")) || (c == 'c' && hs_starts(t, e, p, "control-predecessors={"))) {
      p = skip_braces(t, e, p + (c == 'm' ? 9 : 21));
      continue;
    }
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t' || c == ',') { /* ',': the one before a removed metadata */
      p++;
      continue;
    }
    if (c == '%') { /* a name's sigil: the name itself is skipped */
      p++;
      continue;
    }
    h = (h ^ (uint8_t)c) * 0x100000001B3ull;
    p++;
  }
  if (rs != small) free(rs);
  return h;
}

static uint64_t type_hash(const hs_type *t) {
  if (!t) return 7;
  char buf[512];
  size_t n = hs_type_format(t, buf, sizeof buf);
  if (n >= sizeof buf) n = sizeof buf - 1;
  return fnv(0xCBF29CE484222325ull, buf, n);
}

/* The shape's dimensions alone (no element type, no layout): the metadata rounds pair only
 * instructions of one shape, so that a renamed or re-sourced op is not paired with another of a
 * different shape (an element type may change: f32 against bf16 accumulation). */
static uint64_t dims_hash(const hs_type *t) {
  if (!t) return 7;
  uint64_t h = mix(0x9E3779B97F4A7C15ull, (uint64_t)t->kind * 31 + t->n);
  if (t->kind == HS_T_TUPLE) {
    for (uint32_t k = 0; k < t->n; k++) h = mix(h, dims_hash(t->elems[k]));
  } else if (t->dims) {
    for (uint32_t k = 0; k < t->n; k++) h = mix(h, (uint64_t)t->dims[k]);
  }
  return h;
}

static uint64_t comp_hash(side *S, uint32_t c);

static int32_t body_of(const hs_doc *d, const hs_instr *in) {
  if (in->synth == HS_SYNTH_GTE) return -1;
  for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++)
    if (d->calls[k0 + k].attr == HS_CALL_CALLS) return d->calls[k0 + k].target;
  return -1;
}

/* The hash of instruction i and, first, of everything it depends on (an explicit stack: a
 * chain of 100k instructions must not recurse). */
static void instr_hash(side *S, uint32_t i0, uint32_t *stack) {
  const hs_doc *d = S->d;
  if (S->state[i0] == 2) return;
  uint32_t sp = 0;
  stack[sp++] = i0;
  S->state[i0] = 1;
  while (sp) {
    uint32_t i = stack[sp - 1];
    const hs_instr *in = &d->instrs[i];
    bool ready = true;
    for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
      int32_t t = d->operands[in->op_first + k].target;
      if (t >= 0 && S->state[t] == 0) {
        S->state[t] = 1;
        stack[sp++] = (uint32_t)t;
        ready = false;
      }
    }
    if (!ready) continue;
    uint64_t h = mix(fnv(0xCBF29CE484222325ull, hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len), S->th[i]);
    h = mix(h, attr_hash(d, in));
    for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
      int32_t t = d->operands[in->op_first + k].target;
      h = mix(h, t >= 0 && S->state[t] == 2 ? S->h[t] : 0x51ull);
    }
    if (in->synth != HS_SYNTH_GTE)
      for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++) {
        int32_t c = d->calls[k0 + k].target;
        h = mix(h, c >= 0 ? comp_hash(S, (uint32_t)c) : 0x77ull);
      }
    S->h[i] = h;
    S->state[i] = 2;
    sp--;
  }
}

static uint64_t comp_hash(side *S, uint32_t c) {
  if (S->cstate[c] == 2) return S->ch[c];
  if (S->cstate[c] == 1) return 0x99ull; /* a cycle of calls: not HLO, but never loop */
  S->cstate[c] = 1;
  const hs_doc *d = S->d;
  const hs_comp *cp = &d->comps[c];
  uint32_t *stack = malloc(((size_t)cp->count + 1) * sizeof *stack);
  uint64_t sum = 0;
  if (stack) {
    for (uint32_t i = cp->first; i < cp->first + cp->count; i++) {
      instr_hash(S, i, stack);
      sum += S->h[i] * 0x9E3779B97F4A7C15ull + (S->h[i] >> 17);
    }
    free(stack);
  }
  uint64_t h = mix(mix(sum, cp->count), cp->root >= 0 ? S->h[cp->root] : 0);
  S->ch[c] = h;
  S->cstate[c] = 2;
  return h;
}

/* The source line of an instruction's metadata (source_file="f" source_line=N): its hash, and
 * the bytes when buf is given. */
static uint64_t source_of(const hs_doc *d, const hs_instr *in, char *buf, size_t cap) {
  size_t s, e;
  if (buf && cap) buf[0] = 0;
  if (in->synth || !stmt_span(d, in, &s, &e)) return 0;
  size_t p = hs_find(d->text, s, e, "source_file=\"");
  if (p == SIZE_MAX) return 0;
  const char *t = d->text;
  size_t qs = p + 13, qe = hs_skip_string(t, e, p + 12);
  size_t fn = qe > qs ? qe - 1 - qs : 0;
  uint32_t line = 0;
  size_t l = hs_find(t, qe, e, "source_line=");
  if (l != SIZE_MAX)
    for (size_t k = l + 12; k < e && t[k] >= '0' && t[k] <= '9'; k++) line = line * 10 + (uint32_t)(t[k] - '0');
  if (buf) snprintf(buf, cap, "%.*s:%u", (int)fn, t + qs, line);
  return mix(fnv(0xCBF29CE484222325ull, t + qs, fn), line) | 1;
}

static bool side_init(side *S, const hs_doc *d) {
  memset(S, 0, sizeof *S);
  S->d = d;
  size_t n = d->n_instrs ? d->n_instrs : 1, nc = d->n_comps ? d->n_comps : 1;
  S->h = calloc(n, sizeof *S->h);
  S->th = calloc(n, sizeof *S->th);
  S->dh = calloc(n, sizeof *S->dh);
  S->src = calloc(n, sizeof *S->src);
  S->match = malloc(n * sizeof *S->match);
  S->by = calloc(n, 1);
  S->state = calloc(n, 1);
  S->ch = calloc(nc, sizeof *S->ch);
  S->cstate = calloc(nc, 1);
  S->cmatch = malloc(nc * sizeof *S->cmatch);
  S->fusion_of = malloc(nc * sizeof *S->fusion_of);
  if (!S->h || !S->th || !S->dh || !S->src || !S->match || !S->by || !S->state || !S->ch || !S->cstate || !S->cmatch || !S->fusion_of)
    return false;
  for (uint32_t i = 0; i < d->n_instrs; i++) S->match[i] = -1;
  for (uint32_t c = 0; c < d->n_comps; c++) S->cmatch[c] = S->fusion_of[c] = -1;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    S->th[i] = type_hash(in->type);
    S->dh[i] = dims_hash(in->type);
    S->src[i] = source_of(d, in, NULL, 0);
    if (op_is(d, in, "fusion")) {
      int32_t b = body_of(d, in);
      if (b >= 0 && S->fusion_of[b] < 0) S->fusion_of[b] = (int32_t)i;
    }
  }
  for (uint32_t c = 0; c < d->n_comps; c++) comp_hash(S, c);
  hs_spill_analyse(d, &S->spill);
  hs_fusion_census(d, &S->census);
  return true;
}

static void side_free(side *S) {
  free(S->h);
  free(S->th);
  free(S->dh);
  free(S->src);
  free(S->match);
  free(S->by);
  free(S->state);
  free(S->ch);
  free(S->cstate);
  free(S->cmatch);
  free(S->fusion_of);
}

/* ---- matching --------------------------------------------------------------------------- */
typedef struct {
  side A, B;
  uint32_t *queue; /* pairs of computations (a, b) to match inside */
  uint32_t nq, capq;
  bool nomem;
} differ;

static void pair(differ *D, uint32_t a, uint32_t b, uint8_t by);

static void pair_comps(differ *D, int32_t ca, int32_t cb) {
  if (ca < 0 || cb < 0 || D->A.cmatch[ca] >= 0 || D->B.cmatch[cb] >= 0) return;
  D->A.cmatch[ca] = cb;
  D->B.cmatch[cb] = ca;
  if (D->nq + 2 > D->capq) {
    uint32_t nc = D->capq ? D->capq * 2 : 64;
    uint32_t *q = realloc(D->queue, nc * sizeof *q);
    if (!q) {
      D->nomem = true;
      return;
    }
    D->queue = q;
    D->capq = nc;
  }
  D->queue[D->nq++] = (uint32_t)ca;
  D->queue[D->nq++] = (uint32_t)cb;
}

static void pair(differ *D, uint32_t a, uint32_t b, uint8_t by) {
  D->A.match[a] = (int32_t)b;
  D->B.match[b] = (int32_t)a;
  D->A.by[a] = by;
  const hs_instr *ia = &D->A.d->instrs[a], *ib = &D->B.d->instrs[b];
  uint32_t ka, kb, n = hs_calls_of(D->A.d, ia, &ka);
  if (ia->synth == HS_SYNTH_GTE || ib->synth == HS_SYNTH_GTE || n != hs_calls_of(D->B.d, ib, &kb)) return;
  for (uint32_t k = 0; k < n; k++)
    pair_comps(D, D->A.d->calls[ka + k].target, D->B.d->calls[kb + k].target);
}

/* How well b suits a as a partner among equals (higher is better). */
static int affinity(differ *D, uint32_t a, uint32_t b) {
  const hs_doc *da = D->A.d, *db = D->B.d;
  const hs_slice oa = hs_hlo_of(da, &da->instrs[a]).op_name, ob = hs_hlo_of(db, &db->instrs[b]).op_name;
  int s = 0;
  if (oa.len && oa.len == ob.len && memcmp(hs_sp(da, oa), hs_sp(db, ob), oa.len) == 0) s += 4;
  if (D->A.src[a] && D->A.src[a] == D->B.src[b]) s += 2;
  hs_slice na = da->instrs[a].name, nb = db->instrs[b].name;
  if (na.len == nb.len && memcmp(hs_sp(da, na), hs_sp(db, nb), na.len) == 0) s += 1;
  return s;
}

typedef struct {
  uint64_t key;
  uint32_t idx;
} keyed;

static int keyed_cmp(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Pairs the still unmatched instructions of A's [ia) and B's [ib) whose keys are equal (key 0:
 * no key); ties broken by affinity, then order. Returns the pairs made. */
static uint32_t match_keyed(differ *D, const uint32_t *ia, uint32_t na, const uint32_t *ib, uint32_t nb,
                            uint64_t (*key)(side *, uint32_t, side *), uint8_t by) {
  if (!na || !nb) return 0;
  keyed *kb = malloc((size_t)nb * sizeof *kb);
  if (!kb) {
    D->nomem = true;
    return 0;
  }
  uint32_t m = 0, made = 0;
  for (uint32_t k = 0; k < nb; k++) {
    if (D->B.match[ib[k]] >= 0) continue;
    uint64_t v = key(&D->B, ib[k], &D->A);
    if (v) kb[m++] = (keyed){v, ib[k]};
  }
  qsort(kb, m, sizeof *kb, keyed_cmp);
  /* per group of equal keys (at its first entry): where its unmatched entries start, so that a
     group of 100k equal constants is not scanned from its start for each of them */
  uint32_t *first = malloc(((size_t)m + 1) * sizeof *first);
  if (!first) {
    free(kb);
    D->nomem = true;
    return 0;
  }
  for (uint32_t j = 0; j < m; j++) first[j] = j;
  for (uint32_t k = 0; k < na && m; k++) {
    uint32_t a = ia[k];
    if (D->A.match[a] >= 0) continue;
    uint64_t v = key(&D->A, a, &D->B);
    if (!v) continue;
    /* the first entry with this key */
    uint32_t lo = 0, hi = m;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (kb[mid].key < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= m || kb[lo].key != v) continue;
    uint32_t j0 = first[lo];
    while (j0 < m && kb[j0].key == v && D->B.match[kb[j0].idx] >= 0) j0++;
    first[lo] = j0;
    int best_s = -1;
    uint32_t best = 0, looked = 0;
    for (uint32_t j = j0; j < m && kb[j].key == v && looked < 64; j++) {
      if (D->B.match[kb[j].idx] >= 0) continue;
      looked++;
      int s = affinity(D, a, kb[j].idx);
      if (s > best_s) best_s = s, best = kb[j].idx;
      if (s == 7) break;
    }
    if (best_s >= 0) {
      pair(D, a, best, by);
      made++;
    }
  }
  free(first);
  free(kb);
  return made;
}

static uint64_t key_structure(side *S, uint32_t i, side *O) {
  (void)O;
  return S->h[i] | 1;
}
static uint64_t key_op_name(side *S, uint32_t i, side *O) {
  (void)O;
  const hs_doc *d = S->d;
  const hs_instr *in = &d->instrs[i];
  hs_slice o = hs_hlo_of(d, in).op_name;
  if (!o.len) return 0;
  /* jax versions differ in whether the path names the inner jit(main): it says nothing */
  const char *t = hs_sp(d, o);
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t p = 0; p < o.len;) {
    size_t q = p;
    while (q < o.len && t[q] != '/') q++;
    if (!(q - p == 9 && memcmp(t + p, "jit(main)", 9) == 0)) h = fnv(fnv(h, t + p, q - p), "/", 1);
    p = q + 1;
  }
  return mix(mix(fnv(h, hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len), S->dh[i]), 1) | 1;
}
static uint64_t key_source(side *S, uint32_t i, side *O) {
  (void)O;
  const hs_doc *d = S->d;
  const hs_instr *in = &d->instrs[i];
  if (!S->src[i]) return 0;
  return mix(mix(fnv(S->src[i], hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len), S->dh[i]), 2) | 1;
}
/* opcode, type and operands: each operand named by its partner's index on side A (so both sides
 * compute the same key); 0 when an operand has no partner yet. */
static uint64_t key_around(side *S, uint32_t i, side *O) {
  const hs_doc *d = S->d;
  const hs_instr *in = &d->instrs[i];
  (void)O;
  bool is_a = !S->is_b;
  uint64_t h = mix(fnv(0xCBF29CE484222325ull, hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len), S->th[i]);
  for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
    int32_t t = d->operands[in->op_first + k].target;
    if (t < 0) return 0;
    int32_t a_index = is_a ? t : S->match[t];
    if (a_index < 0 || (is_a && S->match[t] < 0)) return 0;
    h = mix(h, (uint64_t)a_index + 1);
  }
  return hs_op_count(d, in) ? h | 1 : 0;
}
static uint64_t key_name(side *S, uint32_t i, side *O) {
  (void)O;
  const hs_doc *d = S->d;
  const hs_instr *in = &d->instrs[i];
  if (!in->name.len) return 0;
  return mix(mix(fnv(fnv(0xCBF29CE484222325ull, hs_sp(d, in->name), in->name.len), hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len), S->dh[i]), 4) | 1;
}

static uint32_t *comp_list(const hs_doc *d, uint32_t c, uint32_t *n) {
  const hs_comp *cp = &d->comps[c];
  uint32_t *v = malloc(((size_t)cp->count + 1) * sizeof *v);
  if (v)
    for (uint32_t i = 0; i < cp->count; i++) v[i] = cp->first + i;
  *n = v ? cp->count : 0;
  return v;
}

/* Round 1 inside every queued pair of computations. */
static void drain(differ *D) {
  for (uint32_t q = 0; q + 1 < D->nq && !D->nomem; q += 2) {
    uint32_t na, nb;
    uint32_t *ia = comp_list(D->A.d, D->queue[q], &na), *ib = comp_list(D->B.d, D->queue[q + 1], &nb);
    if (ia && ib) match_keyed(D, ia, na, ib, nb, key_structure, BY_STRUCTURE);
    else D->nomem = true;
    free(ia);
    free(ib);
  }
  D->nq = 0;
}

static void match_all(differ *D) {
  const hs_doc *a = D->A.d, *b = D->B.d;
  /* modules: by name (the first of B's not paired yet), then in order; their entries first */
  uint8_t *used = calloc((size_t)b->n_modules + 1, 1);
  if (!used) {
    D->nomem = true;
    return;
  }
  int32_t *pair_of = malloc(((size_t)a->n_modules + 1) * sizeof *pair_of);
  if (!pair_of) {
    free(used);
    D->nomem = true;
    return;
  }
  for (uint32_t ma = 0; ma < a->n_modules; ma++) {
    int32_t mb = -1;
    for (uint32_t k = 0; k < b->n_modules && mb < 0; k++)
      if (!used[k] && a->modules[ma].name.len == b->modules[k].name.len &&
          memcmp(hs_sp(a, a->modules[ma].name), hs_sp(b, b->modules[k].name), a->modules[ma].name.len) == 0)
        mb = (int32_t)k;
    if (mb >= 0) used[mb] = 1;
    pair_of[ma] = mb;
  }
  for (uint32_t ma = 0, next = 0; ma < a->n_modules; ma++) {
    if (pair_of[ma] >= 0) continue;
    while (next < b->n_modules && used[next]) next++;
    if (next < b->n_modules) pair_of[ma] = (int32_t)next, used[next] = 1;
  }
  for (uint32_t ma = 0; ma < a->n_modules; ma++) {
    int32_t mb = pair_of[ma];
    if (mb >= 0 && a->modules[ma].entry >= 0 && b->modules[mb].entry >= 0)
      pair_comps(D, a->modules[ma].entry, b->modules[mb].entry);
  }
  free(used);
  free(pair_of);
  drain(D);
  /* computations left over (not reached from a paired entry): by their hash */
  {
    keyed *kb = malloc(((size_t)b->n_comps + 1) * sizeof *kb);
    uint32_t m = 0;
    if (kb) {
      for (uint32_t c = 0; c < b->n_comps; c++)
        if (D->B.cmatch[c] < 0) kb[m++] = (keyed){D->B.ch[c], c};
      qsort(kb, m, sizeof *kb, keyed_cmp);
      for (uint32_t c = 0; c < a->n_comps; c++) {
        if (D->A.cmatch[c] >= 0) continue;
        for (uint32_t j = 0; j < m; j++)
          if (kb[j].key == D->A.ch[c] && D->B.cmatch[kb[j].idx] < 0) {
            pair_comps(D, (int32_t)c, (int32_t)kb[j].idx);
            break;
          }
      }
      free(kb);
      drain(D);
    } else {
      D->nomem = true;
    }
  }
  /* round 2 over everything left, then round 1 inside what it paired, until nothing moves */
  uint32_t *ia = malloc(((size_t)a->n_instrs + 1) * sizeof *ia), *ib = malloc(((size_t)b->n_instrs + 1) * sizeof *ib);
  if (!ia || !ib) {
    D->nomem = true;
    free(ia);
    free(ib);
    return;
  }
  for (int round = 0; round < 8 && !D->nomem; round++) {
    uint32_t na = 0, nb = 0, made = 0;
    for (uint32_t i = 0; i < a->n_instrs; i++)
      if (D->A.match[i] < 0) ia[na++] = i;
    for (uint32_t i = 0; i < b->n_instrs; i++)
      if (D->B.match[i] < 0) ib[nb++] = i;
    if (!na || !nb) break;
    made += match_keyed(D, ia, na, ib, nb, key_structure, BY_STRUCTURE);
    made += match_keyed(D, ia, na, ib, nb, key_op_name, BY_OP_NAME);
    made += match_keyed(D, ia, na, ib, nb, key_source, BY_SOURCE);
    for (int k = 0; k < 4; k++) {
      uint32_t m = match_keyed(D, ia, na, ib, nb, key_around, BY_STRUCTURE);
      made += m;
      if (!m) break;
    }
    made += match_keyed(D, ia, na, ib, nb, key_name, BY_NAME);
    drain(D);
    if (!made) break;
  }
  free(ia);
  free(ib);
}

/* ---- the result ------------------------------------------------------------------------- */
static bool skip_in_body(const hs_doc *d, const hs_instr *in) { return op_is(d, in, "parameter"); }

static int32_t uf_find(int32_t *p, int32_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}
static void uf_union(int32_t *p, int32_t x, int32_t y) {
  x = uf_find(p, x);
  y = uf_find(p, y);
  if (x != y) p[x < y ? y : x] = x < y ? x : y;
}

static bool counts_as_op(const hs_doc *d, const hs_instr *in) {
  return !op_is(d, in, "parameter") && !op_is(d, in, "constant") && !in->synth;
}

/* Instruction j of S (in a fused body) and its partner m of O keep the same company: the ops
 * fused with j are matched to the ops fused with m and the other way round. */
static bool same_mates(side *S, side *O, uint32_t j, uint32_t m) {
  const hs_doc *d = S->d, *o = O->d;
  const hs_comp *cj = &d->comps[d->instrs[j].comp], *cm = &o->comps[o->instrs[m].comp];
  uint32_t nj = 0, nm = 0;
  for (uint32_t k = cj->first; k < cj->first + cj->count; k++) {
    if (!counts_as_op(d, &d->instrs[k])) continue;
    nj++;
    int32_t mk = S->match[k];
    if (mk < 0 || o->instrs[mk].comp != o->instrs[m].comp) return false;
  }
  for (uint32_t k = cm->first; k < cm->first + cm->count; k++) {
    if (!counts_as_op(o, &o->instrs[k])) continue;
    nm++;
    int32_t mk = O->match[k];
    if (mk < 0 || d->instrs[mk].comp != d->instrs[j].comp) return false;
  }
  return nj == nm;
}

/* An op as the diff names it: its op_name metadata, else its instruction name. */
static json_t *op_label(const hs_doc *d, const hs_instr *in) {
  hs_slice o = hs_hlo_of(d, in).op_name;
  return hs_json_slice(d, o.len ? o : in->name);
}

/* Appends string v to arr unless `seen` (an object used as a set) holds it already. */
static void append_unique(json_t *arr, json_t *seen, json_t *v) {
  const char *k = json_string_value(v);
  if (!k || json_object_get(seen, k)) {
    json_decref(v);
    return;
  }
  json_object_set_new(seen, k, json_true());
  json_array_append_new(arr, v);
}

typedef struct {
  uint32_t same, added, removed, merged, split, changed;
} fusion_counts;

static json_t *fusions_json(differ *D, fusion_counts *fc) {
  const hs_doc *a = D->A.d, *b = D->B.d;
  uint32_t *fa = NULL, *fb = NULL, nfa = 0, nfb = 0;
  fa = malloc(((size_t)a->n_instrs + 1) * sizeof *fa);
  fb = malloc(((size_t)b->n_instrs + 1) * sizeof *fb);
  int32_t *node_a = malloc(((size_t)a->n_instrs + 1) * sizeof *node_a), *node_b = malloc(((size_t)b->n_instrs + 1) * sizeof *node_b);
  json_t *out = json_array();
  memset(fc, 0, sizeof *fc);
  if (!fa || !fb || !node_a || !node_b) goto done;
  for (uint32_t i = 0; i < a->n_instrs; i++) {
    node_a[i] = -1;
    if (op_is(a, &a->instrs[i], "fusion")) node_a[i] = (int32_t)nfa, fa[nfa++] = i;
  }
  for (uint32_t i = 0; i < b->n_instrs; i++) {
    node_b[i] = -1;
    if (op_is(b, &b->instrs[i], "fusion")) node_b[i] = (int32_t)(nfa + nfb), fb[nfb++] = i;
  }
  uint32_t nn = nfa + nfb;
  int32_t *parent = malloc(((size_t)nn + 1) * sizeof *parent);
  if (!parent) goto done;
  for (uint32_t k = 0; k < nn; k++) parent[k] = (int32_t)k;
  /* the fusion of B whose body holds B's instruction j, as a node; -1 */
#define NODE_B_OF(j) (D->B.fusion_of[b->instrs[(j)].comp] >= 0 ? node_b[D->B.fusion_of[b->instrs[(j)].comp]] : -1)
#define NODE_A_OF(j) (D->A.fusion_of[a->instrs[(j)].comp] >= 0 ? node_a[D->A.fusion_of[a->instrs[(j)].comp]] : -1)
  for (uint32_t k = 0; k < nfa; k++) {
    uint32_t i = fa[k];
    if (D->A.match[i] >= 0 && node_b[D->A.match[i]] >= 0) uf_union(parent, (int32_t)k, node_b[D->A.match[i]]);
    int32_t body = body_of(a, &a->instrs[i]);
    if (body < 0) continue;
    const hs_comp *cp = &a->comps[body];
    for (uint32_t j = cp->first; j < cp->first + cp->count; j++) {
      if (skip_in_body(a, &a->instrs[j]) || D->A.match[j] < 0) continue;
      int32_t nb_ = NODE_B_OF((uint32_t)D->A.match[j]);
      if (nb_ >= 0) uf_union(parent, (int32_t)k, nb_);
    }
  }
  for (uint32_t k = 0; k < nfb; k++) {
    uint32_t i = fb[k];
    int32_t body = body_of(b, &b->instrs[i]);
    if (body < 0) continue;
    const hs_comp *cp = &b->comps[body];
    for (uint32_t j = cp->first; j < cp->first + cp->count; j++) {
      if (skip_in_body(b, &b->instrs[j]) || D->B.match[j] < 0) continue;
      int32_t na_ = NODE_A_OF((uint32_t)D->B.match[j]);
      if (na_ >= 0) uf_union(parent, (int32_t)(nfa + k), na_);
    }
  }
  /* the members of each group, listed by group (a counting sort by root: no nn * nn walk) */
  uint32_t *start = calloc((size_t)nn + 2, sizeof *start), *members = malloc(((size_t)nn + 1) * sizeof *members);
  if (!start || !members) {
    free(start);
    free(members);
    free(parent);
    goto done;
  }
  for (uint32_t k = 0; k < nn; k++) start[uf_find(parent, (int32_t)k) + 1]++;
  for (uint32_t k = 0; k < nn; k++) start[k + 1] += start[k];
  {
    uint32_t *fill = calloc((size_t)nn + 1, sizeof *fill);
    if (!fill) {
      free(start);
      free(members);
      free(parent);
      goto done;
    }
    for (uint32_t k = 0; k < nn; k++) {
      uint32_t r = (uint32_t)uf_find(parent, (int32_t)k);
      members[start[r] + fill[r]++] = k;
    }
    free(fill);
  }
  /* one entry per group, in the order of the group's first fusion (A's, then B's) */
  for (uint32_t root = 0; root < nn; root++) {
    if (uf_find(parent, (int32_t)root) != (int32_t)root) continue;
    json_t *an = json_array(), *bn = json_array(), *moved = json_array(), *src = json_array();
    json_t *al = json_array(), *bl = json_array(); /* the fusion ops' lines, for views that scroll to them */
    json_t *mvl[2] = {json_array(), json_array()}; /* the lines of the ops that moved, per side (views colour them) */
    json_t *seen_m = json_object(), *seen_s = json_object();
    uint32_t ca = 0, cb = 0;
    int32_t one_a = -1, one_b = -1;
    for (uint32_t mi = start[root]; mi < start[root + 1]; mi++) {
      uint32_t k = members[mi];
      if (k < nfa) {
        ca++, one_a = (int32_t)fa[k];
        json_array_append_new(an, hs_json_slice(a, a->instrs[fa[k]].name));
        json_array_append_new(al, json_integer(a->instrs[fa[k]].line));
      } else {
        cb++, one_b = (int32_t)fb[k - nfa];
        json_array_append_new(bn, hs_json_slice(b, b->instrs[fb[k - nfa]].name));
        json_array_append_new(bl, json_integer(b->instrs[fb[k - nfa]].line));
      }
    }
    bool group_same = ca == 1 && cb == 1 && D->A.match[one_a] == one_b && D->A.h[one_a] == D->B.h[one_b];
    /* the ops that moved: held on one side's fusions of the group and not on the other's, or
       held with other company (the ops fused with it are not the partner's) */
    for (int s = 0; s < 2; s++) {
      side *S = s ? &D->B : &D->A, *O = s ? &D->A : &D->B;
      const hs_doc *d = S->d;
      uint32_t nf = s ? nfb : nfa, *fl = s ? fb : fa;
      int32_t *onode = s ? node_a : node_b;
      for (uint32_t mi = start[root]; mi < start[root + 1]; mi++) {
        uint32_t node = members[mi];
        if (s ? node < nfa : node >= nfa) continue;
        uint32_t k = s ? node - nfa : node;
        (void)nf;
        int32_t body = body_of(d, &d->instrs[fl[k]]);
        if (body < 0) continue;
        const hs_comp *cp = &d->comps[body];
        for (uint32_t j = cp->first; j < cp->first + cp->count; j++) {
          const hs_instr *in = &d->instrs[j];
          if (!counts_as_op(d, in)) continue;
          int32_t m = S->match[j];
          bool held = false;
          if (m >= 0) {
            int32_t f = O->fusion_of[O->d->instrs[m].comp];
            held = f >= 0 && onode[f] >= 0 && uf_find(parent, onode[f]) == (int32_t)root;
          }
          if (held && (group_same || same_mates(S, O, j, (uint32_t)m))) continue;
          append_unique(moved, seen_m, op_label(d, in));
          if (!in->synth && in->line) json_array_append_new(mvl[s], json_integer(in->line));
          char buf[600];
          if (source_of(d, in, buf, sizeof buf)) append_unique(src, seen_s, json_string(buf));
        }
      }
    }
    const char *change;
    if (ca && !cb) change = "removed", fc->removed++;
    else if (!ca && cb) change = "added", fc->added++;
    else if (ca == 1 && cb == 1) {
      change = group_same ? "same" : "changed";
      if (group_same) fc->same++;
      else fc->changed++;
    } else if (cb == 1) change = "merged", fc->merged++;
    else if (ca == 1) change = "split", fc->split++;
    else change = "changed", fc->changed++;
    json_t *e = json_object();
    json_object_set_new(e, "change", json_string(change));
    json_object_set_new(e, "a", an);
    json_object_set_new(e, "b", bn);
    json_object_set_new(e, "moved", moved);
    json_object_set_new(e, "source", src);
    json_object_set_new(e, "a_lines", al);
    json_object_set_new(e, "b_lines", bl);
    json_object_set_new(e, "a_moved_lines", mvl[0]);
    json_object_set_new(e, "b_moved_lines", mvl[1]);
    json_array_append_new(out, e);
    json_decref(seen_m);
    json_decref(seen_s);
  }
  free(start);
  free(members);
#undef NODE_A_OF
#undef NODE_B_OF
  free(parent);
done:
  free(fa);
  free(fb);
  free(node_a);
  free(node_b);
  return out;
}

/* ---- transfers ------------------------------------------------------------------------- */
/* The kernels a transfer is in flight over: -1 unscheduled (null), else how many. */
static long overlapped_count(json_t *entry) {
  json_t *ov = json_object_get(entry, "overlapped");
  return json_is_array(ov) ? (long)json_array_size(ov) : -1;
}

static void transfer_entry(json_t *arr, const char *change, json_t *a, json_t *b) {
  json_t *e = json_object();
  json_object_set_new(e, "change", json_string(change));
  json_object_set_new(e, "a", a ? a : json_null());
  json_object_set_new(e, "b", b ? b : json_null());
  json_array_append_new(arr, e);
}

static void cat(char *buf, size_t cap, const char *fmt, ...);

/* Every transfer of A and of B in one entry: "same", "changed" (its kind, bytes, sync or the
 * number of kernels it overlaps differ), "removed" (A only) or "added" (B only), each side as
 * `hloscope overlap` lists it. A pair is B's when its start is the instruction A's start matched. */
static json_t *transfers_json(differ *D, char *said, size_t cap) {
  json_t *out = json_array();
  const hs_doc *da = D->A.d, *db = D->B.d;
  uint32_t na = 0, nb = 0;
  hs_async_pair *pa = hs_async_pairs(da, &na), *pb = hs_async_pairs(db, &nb);
  uint64_t *ta = na ? hs_comp_trip_counts(da) : NULL, *tb = nb ? hs_comp_trip_counts(db) : NULL;
  uint8_t *used = calloc(nb ? nb : 1, 1);
  /* per instruction of B: the pair it starts, -1 (one lookup per pair of A, not a scan of B's) */
  int32_t *pair_at = malloc((db->n_instrs ? db->n_instrs : 1) * sizeof *pair_at);
  if (!pair_at) {
    free(used);
    used = NULL;
  }
  for (uint32_t i = 0; pair_at && i < db->n_instrs; i++) pair_at[i] = -1;
  for (uint32_t k = 0; pair_at && k < nb; k++) pair_at[pb[k].start] = (int32_t)k;
  unsigned added = 0, removed = 0, lost = 0;
  for (uint32_t i = 0; used && i < na; i++) {
    const hs_async_pair *p = &pa[i];
    json_t *ja = hs_async_pair_json(da, p, ta ? ta[da->instrs[p->start].comp] : 0);
    int32_t m = D->A.match[p->start];
    int32_t k = m >= 0 ? pair_at[m] : -1;
    if (k < 0) {
      transfer_entry(out, "removed", ja, NULL);
      removed++;
      continue;
    }
    used[k] = 1;
    json_t *jb = hs_async_pair_json(db, &pb[k], tb ? tb[db->instrs[pb[k].start].comp] : 0);
    long oa = overlapped_count(ja), ob = overlapped_count(jb);
    bool same = strcmp(p->kind, pb[k].kind) == 0 && p->bytes == pb[k].bytes && p->sync == pb[k].sync && oa == ob;
    if (oa > 0 && ob == 0) {
      lost++;
      if (lost == 1)
        cat(said, cap, "%sB no longer overlaps the %s %s with any kernel (A ran %ld under it)", said[0] ? "; " : "", p->kind,
            json_string_value(json_object_get(ja, "start")), oa);
    }
    transfer_entry(out, same ? "same" : "changed", ja, jb);
  }
  for (uint32_t k = 0; used && k < nb; k++) {
    if (used[k]) continue;
    transfer_entry(out, "added", NULL, hs_async_pair_json(db, &pb[k], tb ? tb[db->instrs[pb[k].start].comp] : 0));
    added++;
  }
  if (added || removed) cat(said, cap, "%s%u transfer%s added, %u removed", said[0] ? "; " : "", added, added == 1 ? "" : "s", removed);
  free(used);
  free(pair_at);
  free(pa);
  free(pb);
  free(ta);
  free(tb);
  return out;
}

/* ---- materialized values ---------------------------------------------------------------- */

/* Marks, per instruction, the values a kernel writes to HBM and another reads: 1 on the
 * instruction outside fused bodies, and on the producer inside a fusion's body (its root,
 * through bitcasts). */
static uint8_t *materialized(side *S) {
  const hs_doc *d = S->d;
  uint8_t *m = calloc(d->n_instrs + 1, 1), *used = calloc(d->n_instrs + 1, 1);
  if (!m || !used) {
    free(m);
    free(used);
    return NULL;
  }
  for (uint32_t j = 0; j < d->n_instrs; j++) {
    const hs_instr *u = &d->instrs[j];
    if (op_is(d, u, "tuple") && u->is_root) continue;
    for (uint32_t k = 0, k_end = hs_op_count(d, u); k < k_end; k++) {
      int32_t t = d->operands[u->op_first + k].target;
      if (t >= 0) used[t] = 1;
    }
  }
  /* a used `call`'s value is its callee's root (XLA:CPU 0.4.38 wraps its parallel kernels in
     calls): the root is what a kernel writes; calls in calls are followed by going again */
  for (bool grew = true; grew;) {
    grew = false;
    for (uint32_t j = 0; j < d->n_instrs; j++) {
      const hs_instr *u = &d->instrs[j];
      if (!used[j] || !op_is(d, u, "call") || u->synth == HS_SYNTH_GTE) continue;
      for (uint32_t k0, k = 0, k_end = hs_calls_of(d, u, &k0); k < k_end; k++) {
        int32_t c = d->calls[k0 + k].target;
        int32_t r = c >= 0 ? d->comps[c].root : -1;
        if (r >= 0 && !used[r]) used[r] = 1, grew = true;
      }
    }
  }
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (hs_comp_in_fused(d, in->comp) || hs_instr_is_alias(d, in) || !used[i]) continue;
    if (op_is(d, in, "while") || op_is(d, in, "call") || op_is(d, in, "conditional")) continue;
    const hs_type *t = hs_largest_array(in->type);
    if (!t || hs_type_mem_space(t) != 0) continue;
    m[i] = 1;
    if (op_is(d, in, "fusion")) {
      int32_t body = body_of(d, in);
      int32_t p = body >= 0 ? d->comps[body].root : -1;
      while (p >= 0 && op_is(d, &d->instrs[p], "bitcast") && hs_op_count(d, &d->instrs[p]) == 1)
        p = d->operands[d->instrs[p].op_first].target;
      if (p >= 0) m[p] = 2;
    }
  }
  free(used);
  return m;
}

static int32_t producer_of(const hs_doc *d, uint32_t i) {
  const hs_instr *in = &d->instrs[i];
  if (!op_is(d, in, "fusion")) return (int32_t)i;
  int32_t body = body_of(d, in);
  int32_t p = body >= 0 ? d->comps[body].root : -1;
  while (p >= 0 && op_is(d, &d->instrs[p], "bitcast") && hs_op_count(d, &d->instrs[p]) == 1)
    p = d->operands[d->instrs[p].op_first].target;
  return p >= 0 ? p : (int32_t)i;
}

typedef struct {
  uint32_t added, removed;
  uint64_t added_bytes, removed_bytes;
  char first_added[1024], first_removed[1024];
} mat_counts;

static void materialized_side(differ *D, int s, const uint8_t *mine, const uint8_t *theirs, json_t *out, mat_counts *mc) {
  side *S = s ? &D->B : &D->A, *O = s ? &D->A : &D->B;
  const hs_doc *d = S->d;
  /* entries, largest first */
  uint32_t n = 0;
  keyed *v = malloc(((size_t)d->n_instrs + 1) * sizeof *v);
  if (!v) return;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    if (mine[i] != 1) continue;
    const hs_type *t = hs_largest_array(d->instrs[i].type);
    uint64_t bytes = hs_type_bytes(t);
    if (bytes < BIG_BYTES && (int32_t)i != S->spill.big) continue;
    int32_t p = producer_of(d, i);
    int32_t mi = S->match[i], mp = S->match[p];
    bool kept = (mi >= 0 && theirs[mi]) || (mp >= 0 && theirs[mp]);
    if (kept) continue;
    v[n++] = (keyed){~bytes, i};
  }
  qsort(v, n, sizeof *v, keyed_cmp);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = v[k].idx;
    const hs_instr *in = &d->instrs[i];
    const hs_type *t = hs_largest_array(in->type);
    char ty[256];
    hs_type_format(t, ty, sizeof ty);
    uint64_t bytes = hs_type_bytes(t);
    json_t *e = json_object();
    json_object_set_new(e, "change", json_string(s ? "added" : "removed"));
    json_object_set_new(e, "value", hs_json_slice(d, in->name));
    json_object_set_new(e, "shape", json_string(ty));
    json_object_set_new(e, "bytes", json_integer((json_int_t)bytes));
    json_object_set_new(e, "side", json_string(s ? "b" : "a"));
    json_object_set_new(e, "line", json_integer(in->line)); /* where `side` defines the value: views scroll to it */
    json_array_append_new(out, e);
    int32_t p = producer_of(d, i);
    int32_t mp = S->match[p] >= 0 ? S->match[p] : S->match[i];
    const char *where = mp < 0                                           ? "has no such value"
                        : hs_comp_in_fused(O->d, O->d->instrs[mp].comp) ? "keeps it inside a fusion"
                                                                          : "keeps it off HBM";
    char by[40];
    hs_fmt_bytes(bytes, by, sizeof by);
    hs_slice on = hs_hlo_of(d, &d->instrs[p]).op_name;
    char *first = s ? mc->first_added : mc->first_removed;
    if (!(s ? mc->added : mc->removed))
      snprintf(first, 1024, "%s %s %.200s (%.*s%s%.*s) in HBM where %s %s: %s bytes written and read again%s", s ? "B" : "A",
               s ? "newly materializes" : "materialized", ty, (int)(in->name.len > 100 ? 100 : in->name.len), hs_sp(d, in->name), on.len ? ", " : "",
               (int)(on.len > 120 ? 120 : on.len), hs_sp(d, on), s ? "A" : "B",
               where, by, s ? "" : " (gone in B)");
    if (s) mc->added++, mc->added_bytes += bytes;
    else mc->removed++, mc->removed_bytes += bytes;
  }
  free(v);
}

/* ---- calls, environment ----------------------------------------------------------------- */
/* What a kernel calls by name: a custom call's target, or a fusion's backend kind ("__triton_gemm",
 * "__ynn_fusion": a library's kernel). */
static hs_slice call_target(const hs_doc *d, const hs_instr *in, char *buf, size_t cap, bool *in_buf) {
  *in_buf = false;
  const hs_hlo_instr hv = hs_hlo_of(d, in), *h = &hv;
  if (op_is(d, in, "custom-call")) return h->custom_call_target;
  if (op_is(d, in, "fusion") && h->backend_config.len && !hs_slice_synth(d, h->backend_config)) {
    const char *t = hs_sp(d, h->backend_config);
    /* GPU: fusion_backend_config.kind ("__triton_gemm"); CPU: fusion_config.kind ("__ynn_fusion") */
    size_t p = hs_find(t, 0, h->backend_config.len, "\"fusion_backend_config\"");
    if (p == SIZE_MAX) p = hs_find(t, 0, h->backend_config.len, "\"fusion_config\"");
    if (p == SIZE_MAX) return hs_sl(0, 0);
    size_t k = hs_find(t, p, h->backend_config.len, "\"kind\":\"");
    if (k == SIZE_MAX) return hs_sl(0, 0);
    k += 8;
    size_t e = k;
    while (e < h->backend_config.len && t[e] != '"') e++;
    size_t n = e - k < cap - 1 ? e - k : cap - 1;
    memcpy(buf, t + k, n);
    buf[n] = 0;
    *in_buf = true;
    return hs_sl(0, (uint32_t)n);
  }
  return hs_sl(0, 0);
}

static void count_calls(const hs_doc *d, json_t *counts) {
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    char buf[200];
    bool in_buf;
    hs_slice s = call_target(d, &d->instrs[i], buf, sizeof buf, &in_buf);
    if (!s.len) continue;
    json_t *name = in_buf ? json_string(buf) : hs_json_slice(d, s);
    const char *k = json_string_value(name);
    if (k) json_object_set_new(counts, k, json_integer(json_integer_value(json_object_get(counts, k)) + 1));
    json_decref(name);
  }
}

/* The lines of the instructions that call `target` (a custom call's target, a fusion's backend
 * kind), in text order: where a view scrolls for a `calls` entry. */
static json_t *call_lines(const hs_doc *d, const char *target) {
  json_t *out = json_array();
  size_t n = strlen(target);
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    char buf[200];
    bool in_buf;
    hs_slice s = call_target(d, &d->instrs[i], buf, sizeof buf, &in_buf);
    if (!s.len || !d->instrs[i].line) continue;
    const char *t = in_buf ? buf : hs_sp(d, s);
    size_t len = in_buf ? strlen(buf) : s.len;
    if (len == n && !memcmp(t, target, n)) json_array_append_new(out, json_integer(d->instrs[i].line));
  }
  return out;
}

/* Each key of either side as an `environment` entry ({"key","a","b"}, null where a side lacks it),
 * and what differs said for the verdict ("num_partitions 1 -> 8", "--xla_foo only in B (0)"). */
static void env_compare(json_t *ea, json_t *eb, json_t *env, char *said, size_t cap) {
  const char *k;
  json_t *v;
  json_object_foreach(ea, k, v) {
    json_t *w = json_object_get(eb, k), *e = json_object();
    json_object_set_new(e, "key", json_string(k));
    json_object_set(e, "a", v);
    json_object_set_new(e, "b", w ? json_incref(w) : json_null());
    json_array_append_new(env, e);
    if (!w) cat(said, cap, "%s%s only in A", said[0] ? ", " : "", k);
    else if (!json_equal(v, w) && (strlen(json_string_value(v)) > 40 || strlen(json_string_value(w)) > 40))
      cat(said, cap, "%s%s differs", said[0] ? ", " : "", k);
    else if (!json_equal(v, w))
      cat(said, cap, "%s%s %s -> %s", said[0] ? ", " : "", k, json_string_value(v), json_string_value(w));
  }
  json_object_foreach(eb, k, v) {
    if (json_object_get(ea, k)) continue;
    json_t *e = json_object();
    json_object_set_new(e, "key", json_string(k));
    json_object_set_new(e, "a", json_null());
    json_object_set(e, "b", v);
    json_array_append_new(env, e);
    if (strlen(json_string_value(v)) > 40) cat(said, cap, "%s%s only in B", said[0] ? ", " : "", k);
    else cat(said, cap, "%s%s only in B (%s)", said[0] ? ", " : "", k, json_string_value(v));
  }
}

/* Facts about one side's compile (a JSON object of strings and numbers: a dump folder's, or a
 * host's) into `out`,
 * numbers written as %.15g writes them (integers without a point); what is not such an object is
 * said, not guessed at. */
static void read_facts(const char *text, size_t len, json_t *out, const char *who, char *said, size_t cap) {
  if (!text) return;
  json_t *j = json_loadb(text, len, 0, NULL);
  if (!json_is_object(j)) {
    cat(said, cap, "%s%s's environment is not a JSON object of strings and numbers: not read", said[0] ? ", " : "", who);
    json_decref(j);
    return;
  }
  const char *k;
  json_t *v;
  json_object_foreach(j, k, v) {
    char num[40];
    if (json_is_string(v)) json_object_set(out, k, v);
    else if (json_is_integer(v)) snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), json_object_set_new(out, k, json_string(num));
    else if (json_is_real(v)) snprintf(num, sizeof num, "%.15g", json_real_value(v)), json_object_set_new(out, k, json_string(num));
    else if (json_is_boolean(v)) json_object_set_new(out, k, json_string(json_is_true(v) ? "true" : "false"));
  }
  json_decref(j);
}

/* The HloModule line's attributes (is_scheduled, num_partitions, entry_computation_layout, ...). */
static void module_env(const hs_doc *d, json_t *env) {
  if (!d->n_modules) return;
  uint32_t li = d->modules[0].line;
  if (!li || li > d->n_lines) return;
  size_t s = hs_line_off(d, li - 1), e = li < d->n_lines ? hs_line_off(d, li) : d->len;
  const char *t = d->text;
  while (e > s && (t[e - 1] == '\n' || t[e - 1] == '\r')) e--;
  size_t p = s;
  while (p < e && t[p] != ',') p++; /* after the module's name */
  while (p < e) {
    p++;
    while (p < e && t[p] == ' ') p++;
    size_t ks = p;
    while (p < e && t[p] != '=' && t[p] != ',') p++;
    size_t ke = p;
    if (p >= e || t[p] != '=') continue;
    size_t vs = ++p;
    while (p < e && t[p] != ',') {
      if (t[p] == '{') p = skip_braces(t, e, p);
      else if (t[p] == '"') p = hs_skip_string(t, e, p);
      else p++;
    }
    json_t *k = hs_json_bytes(t + ks, ke - ks);
    if (json_string_value(k)) json_object_set_new(env, json_string_value(k), hs_json_bytes(t + vs, p - vs));
    json_decref(k);
  }
}

static json_t *side_json(differ *D, side *S) {
  const hs_doc *d = S->d;
  json_t *o = json_object();
  json_object_set_new(o, "module", d->n_modules && d->modules[0].name.len ? hs_json_slice(d, d->modules[0].name) : json_null());
  json_object_set_new(o, "fusion_ops", json_integer((json_int_t)S->census.fusion_ops));
  json_object_set_new(o, "fusion_computations", json_integer((json_int_t)S->census.fusion_computations));
  json_object_set_new(o, "instructions", json_integer(d->n_instrs));
  json_object_set_new(o, "partial", hs_partial_json(d));
  json_t *hb = json_object();
  bool known = S->spill.needs == HS_NEEDS_NOTHING;
  json_object_set_new(hb, "read", known ? json_integer((json_int_t)S->spill.hbm_read) : json_null());
  json_object_set_new(hb, "written", known ? json_integer((json_int_t)S->spill.hbm_written) : json_null());
  json_object_set_new(o, "hbm_bytes", hb);
  (void)D;
  return o;
}

static void cat(char *buf, size_t cap, const char *fmt, ...) {
  size_t n = strlen(buf);
  if (n + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, cap - n, fmt, ap);
  va_end(ap);
}

char *hs_diff_json(const hs_doc *a, const hs_doc *b, size_t *len) {
  hs_diff_built x;
  if (!hs_diff_build(a, b, NULL, &x)) return NULL;
  json_t *o = x.result;
  x.result = NULL;
  hs_diff_built_free(&x);
  return hs_json_finish(o, len);
}

void hs_diff_built_free(hs_diff_built *x) {
  if (!x) return;
  json_decref(x->result);
  free(x->a_to_b);
  free(x->b_to_a);
  memset(x, 0, sizeof *x);
}

bool hs_diff_build(const hs_doc *a, const hs_doc *b, const hs_diff_extra *extra, hs_diff_built *out) {
  memset(out, 0, sizeof *out);
  if (!a || !b) return false;
  differ D;
  memset(&D, 0, sizeof D);
  json_t *o = NULL;
  char *verdict = NULL;
  if (!side_init(&D.A, a) || !side_init(&D.B, b)) goto fail;
  D.B.is_b = true;
  match_all(&D);
  if (D.nomem) goto fail;
  o = json_object();
  json_object_set_new(o, "a", side_json(&D, &D.A));
  json_object_set_new(o, "b", side_json(&D, &D.B));
  uint32_t by[5] = {0}, ua = 0, ub = 0;
  for (uint32_t i = 0; i < a->n_instrs; i++) {
    if (D.A.match[i] < 0) ua++;
    else by[D.A.by[i]]++;
  }
  for (uint32_t i = 0; i < b->n_instrs; i++) ub += D.B.match[i] < 0;
  json_t *m = json_object();
  json_object_set_new(m, "instructions", json_integer(a->n_instrs - ua));
  json_object_set_new(m, "unmatched_a", json_integer(ua));
  json_object_set_new(m, "unmatched_b", json_integer(ub));
  json_t *bj = json_object();
  json_object_set_new(bj, "op_name", json_integer(by[BY_OP_NAME]));
  json_object_set_new(bj, "source", json_integer(by[BY_SOURCE]));
  json_object_set_new(bj, "structure", json_integer(by[BY_STRUCTURE]));
  json_object_set_new(bj, "name", json_integer(by[BY_NAME]));
  json_object_set_new(m, "by", bj);
  json_object_set_new(o, "matched", m);
  /* the matched instructions as line pairs, in A's order: what a side-by-side view aligns */
  json_t *pairs = json_array();
  for (uint32_t i = 0; i < a->n_instrs; i++) {
    int32_t j = D.A.match[i];
    if (j < 0 || a->instrs[i].synth || b->instrs[j].synth || !a->instrs[i].line || !b->instrs[j].line) continue;
    json_t *pr = json_array();
    json_array_append_new(pr, json_integer(a->instrs[i].line));
    json_array_append_new(pr, json_integer(b->instrs[j].line));
    json_array_append_new(pairs, pr);
  }
  json_object_set_new(o, "pairs", pairs);
  /* the lines of the instructions left unmatched on each side (what a view colours) */
  json_t *um = json_object();
  for (int s = 0; s < 2; s++) {
    const hs_doc *d = s ? b : a;
    const int32_t *match = s ? D.B.match : D.A.match;
    json_t *ls = json_array();
    for (uint32_t i = 0; i < d->n_instrs; i++)
      if (match[i] < 0 && !d->instrs[i].synth && d->instrs[i].line) json_array_append_new(ls, json_integer(d->instrs[i].line));
    json_object_set_new(um, s ? "b" : "a", ls);
  }
  json_object_set_new(o, "unmatched", um);
  fusion_counts fc;
  json_object_set_new(o, "fusions", fusions_json(&D, &fc));
  json_t *mat = json_array();
  mat_counts mc;
  memset(&mc, 0, sizeof mc);
  uint8_t *ma = materialized(&D.A), *mb = materialized(&D.B);
  if (ma && mb) {
    materialized_side(&D, 1, mb, ma, mat, &mc);
    materialized_side(&D, 0, ma, mb, mat, &mc);
  }
  free(ma);
  free(mb);
  json_object_set_new(o, "materialized", mat);
  /* calls */
  json_t *ca = json_object(), *cb = json_object(), *calls = json_array();
  count_calls(a, ca);
  count_calls(b, cb);
  char calls_said[600] = "";
  {
    const char *k;
    json_t *v;
    json_object_foreach(ca, k, v) {
      json_int_t x = json_integer_value(v), y = json_integer_value(json_object_get(cb, k));
      if (x == y) continue;
      json_t *e = json_object();
      json_object_set_new(e, "change", json_string(y == 0 ? "removed" : "changed"));
      json_object_set_new(e, "target", json_string(k));
      json_object_set_new(e, "a", json_integer(x));
      json_object_set_new(e, "b", json_integer(y));
      json_object_set_new(e, "a_lines", call_lines(a, k));
      json_object_set_new(e, "b_lines", call_lines(b, k));
      json_array_append_new(calls, e);
      cat(calls_said, sizeof calls_said, "%s%s %lld -> %lld", calls_said[0] ? "; " : "", k, (long long)x, (long long)y);
    }
    json_object_foreach(cb, k, v) {
      if (json_object_get(ca, k)) continue;
      json_t *e = json_object();
      json_object_set_new(e, "change", json_string("added"));
      json_object_set_new(e, "target", json_string(k));
      json_object_set_new(e, "a", json_integer(0));
      json_object_set_new(e, "b", json_integer(json_integer_value(v)));
      json_object_set_new(e, "a_lines", json_array());
      json_object_set_new(e, "b_lines", call_lines(b, k));
      json_array_append_new(calls, e);
      cat(calls_said, sizeof calls_said, "%s%s 0 -> %lld", calls_said[0] ? "; " : "", k, (long long)json_integer_value(v));
    }
  }
  json_decref(ca);
  json_decref(cb);
  json_object_set_new(o, "calls", calls);
  /* transfers: each async pair of A with the pair of B whose start its start matched */
  char xfer_said[600] = "";
  json_object_set_new(o, "transfers", transfers_json(&D, xfer_said, sizeof xfer_said));
  /* environment: what the module lines carry, then what each compile was asked for (a dump
   * folder's debug and compile options, the host's facts: jax versions, cost_analysis()) */
  json_t *ea = json_object(), *eb = json_object(), *env = json_array();
  module_env(a, ea);
  module_env(b, eb);
  char env_said[600] = "", cenv_said[900] = "";
  env_compare(ea, eb, env, env_said, sizeof env_said);
  json_decref(ea);
  json_decref(eb);
  ea = json_object();
  eb = json_object();
  if (extra) {
    read_facts(extra->env_a, extra->env_a_len, ea, "A", cenv_said, sizeof cenv_said);
    read_facts(extra->env_b, extra->env_b_len, eb, "B", cenv_said, sizeof cenv_said);
    read_facts(extra->host_env_a, extra->host_env_a_len, ea, "A", cenv_said, sizeof cenv_said);
    read_facts(extra->host_env_b, extra->host_env_b_len, eb, "B", cenv_said, sizeof cenv_said);
  }
  env_compare(ea, eb, env, cenv_said, sizeof cenv_said);
  json_decref(ea);
  json_decref(eb);
  json_object_set_new(o, "environment", env);
  json_t *passes = extra && extra->passes ? json_loadb(extra->passes, extra->passes_len, 0, NULL) : NULL;
  json_object_set_new(o, "passes", passes ? passes : json_null());
  char passes_said[600] = ""; /* "3 only in A (a, b, c), 1 only in B (d)" */
  for (int s = 0; s < 2 && passes; s++) {
    const char *want = s ? "b" : "a";
    size_t k, n = 0;
    json_t *e;
    char names[300] = "";
    json_array_foreach(json_object_get(passes, "passes"), k, e) {
      const char *origin = json_string_value(json_object_get(e, "origin"));
      if (!origin || strcmp(origin, want) != 0) continue;
      if (n++ < 3) cat(names, sizeof names, "%s%s", n > 1 ? ", " : "", json_string_value(json_object_get(e, "pass")));
    }
    if (n) cat(passes_said, sizeof passes_said, "%s%zu only in %s (%s%s)", passes_said[0] ? ", " : "", n, s ? "B" : "A", names, n > 3 ? ", ..." : "");
  }
  json_object_set_new(o, "time", json_null());
  /* the verdict, most costly first */
  size_t vcap = 4096;
  verdict = calloc(vcap, 1);
  if (!verdict) goto fail;
  bool pa = !json_is_null(json_object_get(json_object_get(o, "a"), "partial")),
       pb = !json_is_null(json_object_get(json_object_get(o, "b"), "partial"));
  if (pa || pb)
    cat(verdict, vcap, "%s cut short: the diff covers only what was read. ", pa && pb ? "A and B are" : pa ? "A is" : "B is");
  if (mc.added) cat(verdict, vcap, "%s%s. ", mc.first_added, mc.added > 1 ? " (and more: see materialized)" : "");
  if (mc.removed) cat(verdict, vcap, "%s. ", mc.first_removed);
  bool ka = D.A.spill.needs == HS_NEEDS_NOTHING, kb = D.B.spill.needs == HS_NEEDS_NOTHING;
  uint64_t ta = D.A.spill.hbm_read + D.A.spill.hbm_written, tb = D.B.spill.hbm_read + D.B.spill.hbm_written;
  if (ka && kb && ta != tb) {
    char x[40], y[40];
    hs_fmt_bytes(ta, x, sizeof x);
    hs_fmt_bytes(tb, y, sizeof y);
    double pct = ta ? 100.0 * ((double)tb - (double)ta) / (double)ta : 100.0;
    cat(verdict, vcap, "HBM traffic estimate: A %s bytes, B %s bytes (%+.1f%%). ", x, y, pct);
  } else if (!ka || !kb) {
    cat(verdict, vcap, "HBM traffic of %s is unknown (not a whole optimized module). ", !ka && !kb ? "both sides" : !ka ? "A" : "B");
  }
  if (fc.added || fc.removed || fc.merged || fc.split || fc.changed || D.A.census.fusion_ops != D.B.census.fusion_ops) {
    cat(verdict, vcap, "Fusion ops: A %zu, B %zu;", D.A.census.fusion_ops, D.B.census.fusion_ops);
    uint32_t nums[5] = {fc.merged, fc.split, fc.changed, fc.added, fc.removed};
    const char *words[5] = {"merged", "split", "changed", "added", "removed"};
    bool any = false;
    for (int k = 0; k < 5; k++)
      if (nums[k]) cat(verdict, vcap, "%s %u %s", any ? "," : "", nums[k], words[k]), any = true;
    cat(verdict, vcap, "%s (%u the same). ", any ? "" : " none regrouped", fc.same);
  }
  if (calls_said[0]) cat(verdict, vcap, "Library and custom calls: %s. ", calls_said);
  if (xfer_said[0]) cat(verdict, vcap, "Transfers: %s. ", xfer_said);
  if (env_said[0]) cat(verdict, vcap, "Module config: %s. ", env_said);
  if (passes_said[0]) cat(verdict, vcap, "Passes: %s. ", passes_said);
  if (ua || ub) cat(verdict, vcap, "%u instructions of A and %u of B have no counterpart. ", ua, ub);
  if (!verdict[0] || (!mc.added && !mc.removed && ta == tb && !fc.added && !fc.removed && !fc.merged && !fc.split &&
                      !fc.changed && !calls_said[0] && !xfer_said[0] && !env_said[0] && !passes_said[0] && !ua && !ub && !pa && !pb)) {
    verdict[0] = 0;
    cat(verdict, vcap, "Same by meaning: all %u instructions matched, every fusion (%u) the same. ", a->n_instrs - ua, fc.same);
  }
  if (cenv_said[0]) cat(verdict, vcap, "Compile environment: %s. ", cenv_said);
  size_t vl = strlen(verdict);
  while (vl && verdict[vl - 1] == ' ') verdict[--vl] = 0;
  json_object_set_new(o, "verdict", json_string(verdict));
  free(verdict);
  out->result = o;
  out->a_to_b = D.A.match; /* the matching goes to the caller */
  out->b_to_a = D.B.match;
  D.A.match = D.B.match = NULL;
  side_free(&D.A);
  side_free(&D.B);
  free(D.queue);
  return true;
fail:
  json_decref(o);
  free(verdict);
  side_free(&D.A);
  side_free(&D.B);
  free(D.queue);
  return false;
}

/* ---- --fail-on -------------------------------------------------------------------------- */
static uint64_t traffic(json_t *side_) {
  json_t *h = json_object_get(side_, "hbm_bytes");
  return (uint64_t)json_integer_value(json_object_get(h, "read")) + (uint64_t)json_integer_value(json_object_get(h, "written"));
}

int hs_diff_fail_on(const char *diff, size_t len, const char *list, char *why, size_t cap) {
  if (why && cap) why[0] = 0;
  json_error_t e;
  json_t *o = json_loadb(diff, len, 0, &e);
  if (!o || !list) {
    json_decref(o);
    if (why) snprintf(why, cap, "not a diff result");
    return -1;
  }
  int holds = 0;
  const char *p = list;
  while (*p) {
    const char *q = strchr(p, ',');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    char c[64];
    if (n >= sizeof c) n = sizeof c - 1;
    memcpy(c, p, n);
    c[n] = 0;
    p += n + (q ? 1 : 0);
    if (!c[0]) continue;
    double pct = 0;
    char tail = 0;
    json_t *A = json_object_get(o, "a"), *B = json_object_get(o, "b");
    if (strcmp(c, "new-spill") == 0) {
      size_t i;
      json_t *x;
      json_array_foreach(json_object_get(o, "materialized"), i, x) {
        if (strcmp(json_string_value(json_object_get(x, "side")) ? json_string_value(json_object_get(x, "side")) : "", "b") == 0) {
          holds++;
          if (why) cat(why, cap, "new-spill: B materializes %s %s (%lld bytes) that A does not. ", json_string_value(json_object_get(x, "shape")),
                       json_string_value(json_object_get(x, "value")), (long long)json_integer_value(json_object_get(x, "bytes")));
          break;
        }
      }
    } else if (strcmp(c, "fusion-count") == 0) {
      json_int_t fa = json_integer_value(json_object_get(A, "fusion_ops")), fb = json_integer_value(json_object_get(B, "fusion_ops"));
      if (fb > fa) {
        holds++;
        if (why) cat(why, cap, "fusion-count: B has %lld fusion ops, A %lld. ", (long long)fb, (long long)fa);
      }
    } else if (sscanf(c, "traffic+%lf%%%c", &pct, &tail) == 1 && pct >= 0 && c[strlen(c) - 1] == '%') {
      json_t *ha = json_object_get(A, "hbm_bytes"), *hb = json_object_get(B, "hbm_bytes");
      if (json_is_null(json_object_get(ha, "read")) || json_is_null(json_object_get(hb, "read"))) {
        if (why) snprintf(why, cap, "traffic: the HBM estimate of %s is unknown (not a whole optimized module)",
                          json_is_null(json_object_get(ha, "read")) ? "A" : "B");
        json_decref(o);
        return -2;
      }
      uint64_t ta = traffic(A), tb = traffic(B);
      if ((double)tb > (double)ta * (1.0 + pct / 100.0)) {
        holds++;
        if (why) cat(why, cap, "traffic+%g%%: B's HBM estimate %llu bytes exceeds A's %llu by %.1f%%. ", pct, (unsigned long long)tb,
                     (unsigned long long)ta, ta ? 100.0 * ((double)tb - (double)ta) / (double)ta : 100.0);
      }
    } else if (sscanf(c, "time+%lf%%%c", &pct, &tail) == 1 && pct >= 0 && c[strlen(c) - 1] == '%') {
      json_t *t = json_object_get(o, "time");
      if (!json_is_object(t)) {
        if (why) snprintf(why, cap, "time+%g%%: needs a profile on each side (--profiles PA PB), not given", pct);
        json_decref(o);
        return -2;
      }
      json_t *xa = json_object_get(t, "a_ps"), *xb = json_object_get(t, "b_ps");
      if (!json_is_integer(xa) || !json_is_integer(xb)) {
        const char *u = json_string_value(json_object_get(t, "unknown"));
        if (why) snprintf(why, cap, "time+%g%%: the time per run of %s is unknown%s%s", pct, !json_is_integer(xa) ? "A" : "B", u ? ": " : "",
                          u ? u : "");
        json_decref(o);
        return -2;
      }
      double ta = (double)json_integer_value(xa), tb = (double)json_integer_value(xb);
      if (pct >= 0 && tb > ta * (1.0 + pct / 100.0)) {
        holds++;
        if (why) cat(why, cap, "time+%g%%: B takes %.1f%% longer per run than A (%lld ps against %lld ps). ", pct,
                     ta > 0 ? 100.0 * (tb - ta) / ta : 100.0, (long long)json_integer_value(xb), (long long)json_integer_value(xa));
      }
    } else {
      if (why) snprintf(why, cap, "unknown --fail-on condition '%s' (new-spill, fusion-count, traffic+P%%, time+P%%)", c);
      json_decref(o);
      return -1;
    }
  }
  json_decref(o);
  size_t wl = why ? strlen(why) : 0;
  while (wl && why[wl - 1] == ' ') why[--wl] = 0;
  return holds;
}
