/* Documents: format detection (over HS_FORMAT_MAP), the parse entry point, name resolution and computation roles. */
#include "internal.h"

#include <stdlib.h>

static size_t skip_blank(const char *t, size_t len, size_t p) {
  for (;;) {
    while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
    if (p + 1 < len && t[p] == '/' && t[p + 1] == '/') {
      const char *nl = memchr(t + p, '\n', len - p);
      if (!nl) return len;
      p = (size_t)(nl - t) + 1;
      continue;
    }
    return p;
  }
}

/* Each format's detect and parse functions, in HS_FORMAT_MAP order (index = hs_format). */
static const struct {
  int (*detect)(const char *text, size_t len, size_t first);
  int (*parse)(hs_doc *d, hs_error *err);
} READERS[HS_FORMAT_COUNT] = {
#define HS_FX_(id, name, label, detect_fn, parse_fn) {detect_fn, parse_fn},
    HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_
};

int hs_detect_none(const char *text, size_t len, size_t first) { return 0; }

/* Where each format without a document is read (CLI command, JS call); a format not listed
 * here gets the generic hint. */
static const struct {
  hs_format format;
  const char *where;
} NOT_DOCUMENT_HINTS[] = {
    {HS_FORMAT_MEMORY, "`hloscope memory FILE` or readMemory(text)"},
    {HS_FORMAT_PASS_LISTING, "`hloscope passes LISTING` or a folder cell"},
    {HS_FORMAT_LLVM, "`hloscope llvm FILE` or readLlvm(text)"},
};

int hs_parse_not_document(hs_doc *d, hs_error *err) {
  const char *where = "its own entry point (see README.md)";
  for (size_t i = 0; i < sizeof NOT_DOCUMENT_HINTS / sizeof NOT_DOCUMENT_HINTS[0]; i++)
    if (NOT_DOCUMENT_HINTS[i].format == d->format) where = NOT_DOCUMENT_HINTS[i].where;
  hs_set_error(err, HS_E_FORMAT, d, 0,
               "this reads as %s, not as a module of computations and instructions: read it with %s",
               hs_format_label(d->format), where);
  return HS_E_FORMAT;
}

/* The offset of the first byte that is not blank, a // comment or a UTF-8 byte order mark. */
static size_t first_meaningful(const char *text, size_t len) {
  size_t p = skip_blank(text, len, 0);
  if (len - p >= 3 && (uint8_t)text[p] == 0xEF && (uint8_t)text[p + 1] == 0xBB && (uint8_t)text[p + 2] == 0xBF)
    p = skip_blank(text, len, p + 3);
  return p;
}

hs_format hs_detect_format(const char *text, size_t len) {
  if (!text) return HS_FORMAT_UNKNOWN;
  size_t p = first_meaningful(text, len);
  if (p >= len) return HS_FORMAT_UNKNOWN;
  hs_format best = HS_FORMAT_UNKNOWN;
  int best_score = 0;
  for (int f = 0; f < HS_FORMAT_COUNT; f++) {
    int score = READERS[f].detect(text, len, p);
    if (score > best_score) {
      best_score = score;
      best = (hs_format)f;
    }
    if (best_score >= 100) break; /* certain: no later format can win (ties go to the first) */
  }
  return best;
}

hs_doc *hs_parse(const char *text, size_t len, hs_error *err) {
  if (err) {
    memset(err, 0, sizeof *err);
  }
  if (!text && len) {
    hs_set_error(err, HS_E_ARG, NULL, 0, "text is NULL");
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  hs_format f = hs_detect_format(text, len);
  if (f == HS_FORMAT_UNKNOWN) {
    size_t p = text ? skip_blank(text, len, 0) : 0;
    hs_doc tmp = {0};
    tmp.text = text;
    tmp.len = len;
    if (p >= len) {
      hs_set_error(err, HS_E_EMPTY, &tmp, 0, "the input is empty: paste an optimized HLO (compile().as_text()) or StableHLO (lower().as_text())");
    } else {
      hs_set_error(err, HS_E_FORMAT, &tmp, p,
                   "not a dump hloscope can read: expected 'HloModule' (optimized HLO), 'module @' (StableHLO) "
                   "or '{ lambda' (jaxpr) at the start");
    }
    return NULL;
  }
  hs_doc *d = calloc(1, sizeof *d);
  if (!d) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory");
    return NULL;
  }
  d->text = text;
  d->len = len;
  d->format = f;
  hs_error local;
  if (!err) err = &local;
  int rc = READERS[f].parse(d, err);
  if (rc == 0) rc = hs_resolve(d);
  if (rc == 0) hs_diag_finish(&d->diag, &d->arena, HS_W_SKIPPED_LINE);
  if (rc == 0 && d->nomem) {
    rc = HS_E_NOMEM;
    hs_set_error(err, rc, NULL, 0, "out of memory while recording a warning");
  }
  if (rc) {
    if (!err->code) hs_set_error(err, rc, d, 0, "%s", hs_code_message(rc));
    hs_doc_free(d);
    return NULL;
  }
  return d;
}

void hs_doc_free(hs_doc *d) {
  if (!d) return;
#define HS_DA_(type, field) free(d->field);
  HS_DOC_ARRAYS(HS_DA_)
#undef HS_DA_
  hs_diag_free(&d->diag);
  hs_arena_free(&d->arena);
  free(d);
}

const hs_hlo_instr hs_hlo_none;

/* ---- builders shared by the text readers ----------------------------------------------- */
int32_t hs_doc_open_module(hs_doc *d, hs_slice name, uint32_t line) {
  bool ok;
  hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
  if (!ok) return -1;
  memset(m, 0, sizeof *m);
  m->name = name;
  m->line = line;
  m->first_comp = d->n_comps;
  m->entry = -1;
  return (int32_t)d->n_modules - 1;
}

int32_t hs_doc_open_comp(hs_doc *d, uint32_t module, hs_slice name, uint32_t line, uint8_t role) {
  bool ok;
  hs_comp *c = HS_VEC_PUSH(d->comps, d->n_comps, d->cap_comps, ok);
  if (!ok) return -1;
  memset(c, 0, sizeof *c);
  c->name = name;
  c->line = line;
  c->module = module;
  c->first = d->n_instrs;
  c->root = -1;
  c->fused_by = -1;
  c->role = role;
  d->modules[module].comp_count++;
  return (int32_t)d->n_comps - 1;
}

void hs_doc_close_comp(hs_doc *d, uint32_t comp, uint32_t end_line) {
  hs_comp *c = &d->comps[comp];
  c->count = d->n_instrs - c->first;
  if (end_line) c->end_line = end_line;
}

hs_format hs_doc_format(const hs_doc *d) { return d ? d->format : HS_FORMAT_UNKNOWN; }
size_t hs_doc_line_count(const hs_doc *d) { return d ? d->n_lines : 0; }
size_t hs_doc_instruction_count(const hs_doc *d) { return d ? d->n_instrs : 0; }
size_t hs_doc_computation_count(const hs_doc *d) { return d ? d->n_comps : 0; }
size_t hs_doc_warning_count(const hs_doc *d) { return d ? d->n_warnings : 0; }

static hs_slice instr_key(const hs_doc *d, uint32_t i) { return d->instrs[i].name; }
static hs_slice comp_key(const hs_doc *d, uint32_t i) { return d->comps[i].name; }

bool hs_comp_in_fused(const hs_doc *d, uint32_t comp) { return comp < d->n_comps && d->comps[comp].inner; }

/* The column of a name on its line (a warning's), 0 when the line is not recorded. */
static uint32_t name_col(const hs_doc *d, uint32_t line, hs_slice name) {
  if (!line || line > d->n_lines || name.off > d->len) return 0;
  uint32_t off = d->lines[line - 1].off;
  return name.off >= off ? name.off - off + 1 : 0;
}

/* One pass over a module's instructions, in text order: each instruction's name goes into the
 * table, then its operands are looked up, its calls resolved and the computations it calls
 * given their roles, while its line of text is in the cache (four passes over 100 MB read the
 * text from memory four times). A lookup finds the first definition of a name whenever the name
 * is defined before it (the table holds only first definitions, and they come in text order);
 * a name not found yet (defined further down, or nowhere) is looked up again once the table is
 * complete. Lookups go in batches: the hashes of a batch first (each slot is prefetched), then
 * the probes, so that the table's cache misses overlap instead of coming one after another. */
#define RESOLVE_BATCH 32

/* XLA's names are scoped by computation: one name may be defined in several computations of a
 * module (XLA renames them), and an operand names an instruction of its own computation. The
 * module's table holds each name's first definition; the later definitions in other
 * computations (none in what XLA prints, some in HLO written by people) go here, by name and
 * computation, looked at only when a lookup found a definition in another computation. */
typedef struct {
  uint32_t *slots; /* instruction index + 1; 0 = empty */
  uint32_t cap, count;
} scoped_names;

static inline uint32_t scoped_slot(uint32_t hash, uint32_t comp, uint32_t mask) {
  return ((hash ^ (comp * 0x9E3779B1u)) * 0x85EBCA6Bu >> 7) & mask;
}

/* The definition of [s, s+n) in computation comp among the scoped ones, or -1. */
static int32_t scoped_get(const scoped_names *t, const hs_doc *d, const char *s, size_t n, uint32_t hash, uint32_t comp) {
  if (!t->count) return -1;
  uint32_t mask = t->cap - 1;
  for (uint32_t pos = scoped_slot(hash, comp, mask), v; (v = t->slots[pos]) != 0; pos = (pos + 1) & mask) {
    const hs_instr *in = &d->instrs[v - 1];
    if (in->comp == comp && in->name.len == n && hs_bytes_eq(hs_sp(d, in->name), s, n)) return (int32_t)(v - 1);
  }
  return -1;
}

static bool scoped_put(scoped_names *t, const hs_doc *d, uint32_t idx, uint32_t hash) {
  if ((t->count + 1) * 4 > t->cap * 3) {
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    uint32_t *ns = calloc(cap, sizeof *ns);
    if (!ns) return false;
    for (uint32_t i = 0; i < t->cap; i++) {
      uint32_t v = t->slots[i];
      if (!v) continue;
      const hs_instr *in = &d->instrs[v - 1];
      uint32_t pos = scoped_slot(hs_hash_name(hs_sp(d, in->name), in->name.len), in->comp, cap - 1);
      while (ns[pos]) pos = (pos + 1) & (cap - 1);
      ns[pos] = v;
    }
    free(t->slots);
    t->slots = ns;
    t->cap = cap;
  }
  uint32_t mask = t->cap - 1, pos = scoped_slot(hash, d->instrs[idx].comp, mask);
  while (t->slots[pos]) pos = (pos + 1) & mask;
  t->slots[pos] = idx + 1;
  t->count++;
  return true;
}

/* A lookup's first definition `found` when the operand's instruction is in computation comp:
 * that one when it is in comp, else comp's own from the scoped ones, else -1 (none yet). */
static inline int32_t in_scope(const scoped_names *t, const hs_doc *d, int32_t found, const char *s, size_t n, uint32_t hash,
                               uint32_t comp) {
  if (found < 0 || d->instrs[found].comp == comp) return found;
  return scoped_get(t, d, s, n, hash, comp);
}

typedef struct {
  hs_operand *op[RESOLVE_BATCH];
  uint32_t hash[RESOLVE_BATCH];
  uint32_t comp[RESOLVE_BATCH]; /* the computation of the operand's instruction */
  uint32_t n;
  /* operands not found in the pass: indexes into doc->operands, in text order */
  uint32_t *later;
  uint32_t n_later, cap_later;
  bool nomem;
} op_batch;

/* Operand idx was not found in the pass: looked up again at the end. */
static void later(op_batch *b, ptrdiff_t idx) {
  bool ok;
  uint32_t *l = HS_VEC_PUSH(b->later, b->n_later, b->cap_later, ok);
  if (ok) *l = (uint32_t)idx;
  else b->nomem = true;
}

/* The batch's lookups in three steps, each over the whole batch so that the misses overlap:
 * the first slot whose hash bits agree (its slot was prefetched when queued), that
 * instruction's name, the name's text; then the comparison. A candidate that is not the name
 * (two names with those hash bits) falls back to the full probe. */
static void flush_ops(hs_doc *d, const hs_names *names, const scoped_names *scoped, op_batch *b) {
  uint32_t cand[RESOLVE_BATCH]; /* index+1 of the candidate, 0: none */
  const uint32_t mask = names->cap - 1;
  for (uint32_t j = 0; j < b->n; j++) {
    uint32_t h = b->hash[j], tag = h & ~mask, c = 0;
    for (uint32_t pos = h & mask, v; (v = names->slots[pos]) != 0; pos = (pos + 1) & mask)
      if ((v & ~mask) == tag) {
        c = (v & mask) + names->base; /* index+1 */
        hs_prefetch(&d->instrs[c - 1].name);
        break;
      }
    cand[j] = c;
  }
  for (uint32_t j = 0; j < b->n; j++)
    if (cand[j]) hs_prefetch(hs_sp(d, d->instrs[cand[j] - 1].name));
  for (uint32_t j = 0; j < b->n; j++) {
    hs_operand *o = b->op[j];
    const char *s = hs_sp(d, o->name);
    if (cand[j]) {
      hs_slice k = d->instrs[cand[j] - 1].name;
      o->target = k.len == o->name.len && hs_bytes_eq(hs_sp(d, k), s, k.len)
                      ? (int32_t)(cand[j] - 1)
                      : hs_names_get_hashed(names, d, instr_key, s, o->name.len, b->hash[j]);
      o->target = in_scope(scoped, d, o->target, s, o->name.len, b->hash[j], b->comp[j]);
    } else {
      o->target = -1;
    }
    if (o->target < 0) later(b, o - d->operands);
  }
  b->n = 0;
}

/* Calls go in batches too (a computation's name lies far back in the text): each with the
 * instruction that makes it and whether that is a fusion or a call, for the roles. */
typedef struct {
  hs_call *call[RESOLVE_BATCH];
  uint32_t hash[RESOLVE_BATCH], instr[RESOLVE_BATCH];
  uint8_t fusion[RESOLVE_BATCH], is_call[RESOLVE_BATCH];
  uint32_t n;
} call_batch;

/* Resolves the batch's calls (the steps of flush_ops), then gives the computations called their
 * roles, in text order: a fusion's body is a fused computation (fused_by: the first fusion
 * calling it), a to_apply= of anything but a call runs inside a kernel (a combiner). */
static void flush_calls(hs_doc *d, const hs_names *comps, call_batch *b, hs_unresolved *u, bool hlo) {
  uint32_t cand[RESOLVE_BATCH];
  const uint32_t mask = comps->cap - 1;
  for (uint32_t j = 0; j < b->n; j++) {
    uint32_t h = b->hash[j], tag = h & ~mask, c = 0;
    for (uint32_t pos = h & mask, v; (v = comps->slots[pos]) != 0; pos = (pos + 1) & mask)
      if ((v & ~mask) == tag) {
        c = (v & mask) + comps->base;
        hs_prefetch(&d->comps[c - 1].name);
        break;
      }
    cand[j] = c;
  }
  for (uint32_t j = 0; j < b->n; j++)
    if (cand[j]) hs_prefetch(hs_sp(d, d->comps[cand[j] - 1].name));
  for (uint32_t j = 0; j < b->n; j++) {
    hs_call *c = b->call[j];
    const char *s = hs_sp(d, c->name);
    if (cand[j]) {
      hs_slice k = d->comps[cand[j] - 1].name;
      c->target = k.len == c->name.len && hs_bytes_eq(hs_sp(d, k), s, k.len)
                      ? (int32_t)(cand[j] - 1)
                      : hs_names_get_hashed(comps, d, comp_key, s, c->name.len, b->hash[j]);
    } else {
      c->target = -1;
    }
    if (c->target < 0) {
      if (!u->calls) u->first_call_line = d->instrs[b->instr[j]].line;
      u->calls++;
      continue;
    }
    if (!hlo) continue;
    hs_comp *cp = &d->comps[c->target];
    if (b->fusion[j] && c->attr == HS_CALL_CALLS) {
      cp->role = HS_ROLE_FUSED;
      cp->inner = 1;
      if (cp->fused_by < 0) cp->fused_by = (int32_t)b->instr[j];
    } else if (c->attr == HS_CALL_TO_APPLY && !b->is_call[j]) {
      cp->inner = 1;
    }
  }
  b->n = 0;
}

/* The instruction among [i0, i1) holding operand op: the last whose operands start at or before it. */
static uint32_t holder_of(const hs_doc *d, uint32_t i0, uint32_t i1, uint32_t op) {
  uint32_t lo = i0, hi = i1;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->instrs[mid].op_first <= op) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Resolves operand and call names within one module (names are unique per module), and gives
 * the computations of an HLO module their roles. */
static int resolve_module(hs_doc *d, hs_module *mod, hs_unresolved *u) {
  uint32_t c0 = mod->first_comp, c1 = mod->first_comp + mod->comp_count;
  if (c1 > d->n_comps) c1 = d->n_comps;
  if (c0 >= c1) return 0;
  /* the module's instructions run up to the next module's first one (instructions are added in
     text order); never to the end of the text, which made every cut module rescan all that
     followed it (quadratic on truncated dumps pasted one after another) */
  uint32_t i0 = d->comps[c0].first, i1 = c1 < d->n_comps ? d->comps[c1].first : d->n_instrs;
  if (i1 > d->n_instrs) i1 = d->n_instrs;
  if (mod->entry < 0) mod->entry = (int32_t)(c1 - 1); /* without ENTRY the last one is the entry */
  d->comps[mod->entry].is_entry = 1;
  if (d->format != HS_FORMAT_STABLEHLO) d->comps[mod->entry].role = HS_ROLE_ENTRY;
  bool hlo = d->format == HS_FORMAT_HLO;

  int rc = HS_E_NOMEM;
  hs_names names = {0}, comps = {0};
  scoped_names scoped = {0};
  call_batch cb;
  cb.n = 0;
  op_batch b;
  b.n = b.n_later = b.cap_later = 0;
  b.later = NULL;
  b.nomem = false;
  if (!hs_names_init_base(&names, i1 - i0 + 1, i0) || !hs_names_init_base(&comps, c1 - c0 + 1, c0)) goto done;
  /* computation names lie far apart in the text: each one's line is asked for 8 ahead */
  for (uint32_t c = c0; c < c1 && c < c0 + 8; c++) hs_prefetch(hs_sp(d, d->comps[c].name));
  for (uint32_t c = c0; c < c1; c++) {
    if (c + 8 < c1) hs_prefetch(hs_sp(d, d->comps[c + 8].name));
    if (!hs_names_put(&comps, d, comp_key, c)) goto done;
    if (comps.dup) { /* XLA: "computation already exists" */
      if (hlo) {
        const hs_comp *first = &d->comps[comps.dup - 1], *again = &d->comps[c];
        hs_doc_warn(d, HS_W_XLA_REFUSES, again->line, name_col(d, again->line, again->name), "computation %.*s is defined twice in its module (lines %u and %u): XLA's parser refuses this (computation already exists); the first is followed",
                    (int)(again->name.len < 60 ? again->name.len : 60), hs_sp(d, again->name), first->line, again->line);
      }
      comps.dup = 0;
    }
  }
  /* a module's table of up to 32 KB stays in the cache: batches would only cost */
  bool small = names.cap <= 8192;
  for (uint32_t b0 = i0; b0 < i1; b0 += RESOLVE_BATCH) {
    uint32_t b1 = i1 - b0 > RESOLVE_BATCH ? b0 + RESOLVE_BATCH : i1;
    uint32_t hb[RESOLVE_BATCH];
    for (uint32_t i = b0; i < b1; i++) {
      hs_slice s = d->instrs[i].name;
      hb[i - b0] = hs_hash_name(hs_sp(d, s), s.len);
      if (!small) hs_names_prefetch(&names, hb[i - b0]);
      /* the next batch's text and operands, asked for now (a module resolved at the end was
         read long before) */
      if (i + RESOLVE_BATCH < i1) {
        const hs_instr *nx = &d->instrs[i + RESOLVE_BATCH];
        hs_prefetch(hs_sp(d, nx->name));
        if (d->operands) hs_prefetch(&d->operands[nx->op_first]); /* NULL when no operands (StableHLO, jaxpr) */
      }
    }
    for (uint32_t i = b0; i < b1; i++) {
      hs_instr *in = &d->instrs[i];
      /* made ones (a nested operand, a compact get-tuple-element) have no name in the text */
      if (!in->synth && !hs_names_put_hashed(&names, d, instr_key, i, hb[i - b0])) goto done;
      if (names.dup) { /* XLA refuses a name twice in one computation ("instruction already exists"); across computations it renames */
        int32_t first = (int32_t)names.dup - 1;
        names.dup = 0;
        if (hlo && d->instrs[first].comp != in->comp) {
          first = scoped_get(&scoped, d, hs_sp(d, in->name), in->name.len, hb[i - b0], in->comp);
          if (first < 0 && !scoped_put(&scoped, d, i, hb[i - b0])) goto done;
        }
        if (hlo && first >= 0)
          hs_doc_warn(d, HS_W_XLA_REFUSES, in->line, name_col(d, in->line, in->name), "instruction %.*s is defined twice in computation %.*s (lines %u and %u): XLA's parser refuses this (instruction already exists); operands name the first",
                      (int)(in->name.len < 60 ? in->name.len : 60), hs_sp(d, in->name), (int)(d->comps[in->comp].name.len < 60 ? d->comps[in->comp].name.len : 60),
                      hs_sp(d, d->comps[in->comp].name), d->instrs[first].line, in->line);
      }
      if (hlo && in->opcode.len == 6 && in->comp < d->n_comps && hs_slice_is(d, in->opcode, "fusion")) d->comps[in->comp].fusions++;
      for (uint32_t k = 0; k < in->op_count; k++) {
        hs_operand *o = &d->operands[in->op_first + k];
        if (o->target >= 0) continue; /* the reader linked it (a nested operand, a compact get-tuple-element) */
        const char *os = hs_sp(d, o->name);
        uint32_t h = hs_hash_name(os, o->name.len);
        if (small) { /* looked up at once: the table is in the cache */
          o->target = in_scope(&scoped, d, hs_names_get_hashed(&names, d, instr_key, os, o->name.len, h), os, o->name.len, h, in->comp);
          if (o->target < 0) later(&b, o - d->operands);
          continue;
        }
        hs_names_prefetch(&names, h);
        b.op[b.n] = o;
        b.hash[b.n] = h;
        b.comp[b.n] = in->comp;
        if (++b.n == RESOLVE_BATCH) flush_ops(d, &names, &scoped, &b);
      }
      if (!in->call_count) continue;
      bool fusion = hs_slice_is(d, in->opcode, "fusion"), call = hs_slice_is(d, in->opcode, "call");
      for (uint32_t k = 0; k < in->call_count; k++) {
        hs_call *c = &d->calls[in->call_first + k];
        uint32_t h = hs_hash_name(hs_sp(d, c->name), c->name.len);
        hs_names_prefetch(&comps, h);
        cb.call[cb.n] = c;
        cb.hash[cb.n] = h;
        cb.instr[cb.n] = i;
        cb.fusion[cb.n] = fusion;
        cb.is_call[cb.n] = call;
        if (++cb.n == RESOLVE_BATCH) flush_calls(d, &comps, &cb, u, hlo);
      }
    }
  }
  flush_calls(d, &comps, &cb, u, hlo);
  flush_ops(d, &names, &scoped, &b);
  if (b.nomem) goto done;
  /* the names not found in the pass, now that every name of the module is in the table */
  for (uint32_t j = 0; j < b.n_later; j++) {
    hs_operand *o = &d->operands[b.later[j]];
    const char *os = hs_sp(d, o->name);
    uint32_t h = hs_hash_name(os, o->name.len);
    o->target = hs_names_get_hashed(&names, d, instr_key, os, o->name.len, h);
    if (o->target >= 0 && scoped.count)
      o->target = in_scope(&scoped, d, o->target, os, o->name.len, h, d->instrs[holder_of(d, i0, i1, b.later[j])].comp);
    if (o->target < 0 && hlo) {
      if (!u->ops) u->first_op_line = d->instrs[holder_of(d, i0, i1, b.later[j])].line;
      u->ops++;
    }
  }
  rc = 0;
done:
  free(b.later);
  hs_names_free(&names);
  hs_names_free(&comps);
  free(scoped.slots);
  return rc;
}

/* A computation's role before its module is resolved: a StableHLO function, an entry, otherwise
 * called (resolve_module marks the entry of each module, fused bodies and kernel-internal
 * combiners). */
static void first_role(const hs_doc *d, hs_comp *cp) {
  if (d->format == HS_FORMAT_STABLEHLO) cp->role = HS_ROLE_FUNCTION;
  else if (cp->is_entry) cp->role = HS_ROLE_ENTRY;
}

/* A module's roles, then its names. */
int hs_resolve_module(hs_doc *d, uint32_t m) {
  hs_module *mod = &d->modules[m];
  if (mod->resolved) return 0;
  uint32_t c1 = mod->first_comp + mod->comp_count;
  for (uint32_t c = mod->first_comp; c < c1 && c < d->n_comps; c++) first_role(d, &d->comps[c]);
  mod->resolved = 1;
  return resolve_module(d, mod, &d->unresolved);
}

int hs_resolve(hs_doc *d) {
  /* the roles of computations in no module resolved yet (hs_resolve_module gives its own) */
  for (uint32_t c = 0; c < d->n_comps; c++)
    if (d->comps[c].module >= d->n_modules || !d->modules[d->comps[c].module].resolved) first_role(d, &d->comps[c]);
  for (uint32_t m = 0; m < d->n_modules; m++) {
    int rc = hs_resolve_module(d, m);
    if (rc) return rc;
  }

  /* the get-tuple-elements the reader made: typed from their tuple (in order: a chain's first
     link comes first). Their names are made (d->synth): without any, there is none to look for
     (a loop over every instruction's record, 1% of a parse). */
  for (uint32_t i = 0; d->n_synth && i < d->n_instrs; i++) {
    hs_instr *in = &d->instrs[i];
    if (in->synth != HS_SYNTH_GTE || !in->op_count) continue;
    const hs_operand *o = &d->operands[in->op_first];
    const hs_type *t = o->target >= 0 ? d->instrs[o->target].type : NULL;
    if (t && t->kind == HS_T_TUPLE && in->gte_index >= 0 && (uint32_t)in->gte_index < t->n) in->type = t->elems[in->gte_index];
  }
  const hs_unresolved u = d->unresolved;
  uint32_t first_line = u.ops ? u.first_op_line : u.first_call_line;
  if (d->format == HS_FORMAT_HLO) {
    /* every instruction was counted when the modules' instruction ranges cover them all */
    uint64_t covered = 0;
    for (uint32_t m = 0; m < d->n_modules; m++) {
      const hs_module *mod = &d->modules[m];
      uint32_t c0 = mod->first_comp, c1 = mod->first_comp + mod->comp_count;
      if (c1 > d->n_comps) c1 = d->n_comps;
      if (c0 >= c1) continue;
      uint32_t i0 = d->comps[c0].first, i1 = c1 < d->n_comps ? d->comps[c1].first : d->n_instrs;
      if (i1 > d->n_instrs) i1 = d->n_instrs;
      if (i1 > i0) covered += i1 - i0;
    }
    d->fusions_counted = covered == d->n_instrs;
  }
  if (u.ops)
    hs_doc_warn(d, HS_W_UNRESOLVED_OPERAND, first_line, 0,
                "%u operands name no instruction of their computation (first at line %u): a trimmed or partial dump? (XLA's parser refuses a name from another computation)",
                u.ops, first_line);
  if (u.calls)
    hs_doc_warn(d, HS_W_UNRESOLVED_CALL, first_line, 0,
                "%u called computations (calls=, to_apply=, ...) are missing from the dump", u.calls);
  return 0;
}

/* The sizes the memory figures rest on (bench/: peak memory at most 2x the input). */
_Static_assert(sizeof(hs_line) == 8, "hs_line: 8 bytes");
_Static_assert(sizeof(hs_operand) == 12, "hs_operand: 12 bytes");
_Static_assert(sizeof(hs_instr) <= 48, "hs_instr: at most 48 bytes");
