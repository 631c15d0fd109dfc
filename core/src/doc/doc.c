/* Documents: the document formats' detection and parse (hs_parse in api/ picks among every
 * format), the builders every text reader uses, the warnings, name resolution and computation
 * roles. */
#include "doc/doc.h"

#include <stdlib.h>

/* The document formats' readers, in HS_FORMAT_MAP order. */
static const struct {
  hs_format format;
  int (*detect)(const char *text, size_t len, size_t first);
  int (*parse)(hs_doc *d, hs_error *err);
} READERS[] = {
    {HS_FORMAT_HLO, hs_detect_hlo, hs_parse_hlo_text},
    {HS_FORMAT_STABLEHLO, hs_detect_stablehlo, hs_parse_stablehlo_text},
    {HS_FORMAT_JAXPR, hs_detect_jaxpr, hs_parse_jaxpr_text},
};
#define N_READERS (sizeof READERS / sizeof READERS[0])

hs_format hs_doc_detect(const char *text, size_t len, int *score) {
  hs_format best = HS_FORMAT_UNKNOWN;
  int best_score = 0;
  size_t p = text ? hs_first_meaningful(text, len) : len;
  for (size_t i = 0; p < len && i < N_READERS && best_score < 100; i++) {
    int sc = READERS[i].detect(text, len, p);
    if (sc > best_score) { /* certain at 100: no later format can win (ties go to the first) */
      best_score = sc;
      best = READERS[i].format;
    }
  }
  if (score) *score = best_score;
  return best;
}

hs_doc *hs_doc_new(const char *text, size_t len, hs_format f) {
  hs_doc *d = calloc(1, sizeof *d);
  if (d) {
    d->text = text;
    d->len = len;
    d->format = f;
  }
  return d;
}

/* hs_parse_as, or (split: an offset, not 0) an HLO text read in two parts from there: NULL with
 * *split_done false when it could not be (err untouched). */
static hs_doc *parse_doc(const char *text, size_t len, hs_format f, size_t split, bool *split_done, hs_error *err) {
  size_t r = 0;
  while (r < N_READERS && READERS[r].format != f) r++;
  if (r == N_READERS) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "not a document format: %s", hs_format_label(f));
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  hs_doc *d = hs_doc_new(text, len, f);
  if (!d) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  hs_error local;
  if (!err) err = &local;
  int rc = split ? hs_parse_hlo_text_at(d, err, split) : READERS[r].parse(d, err);
  if (split_done) *split_done = rc != 1;
  if (rc == 1) {
    free(d);
    return NULL;
  }
  if (rc == 0) rc = hs_resolve(d);
  if (rc == 0) hs_diag_finish(&d->diag, &d->arena, HS_W_SKIPPED_LINE);
  if (rc == 0 && d->nomem) {
    rc = HS_E_NOMEM;
    hs_set_error(err, rc, NULL, 0, 0, "out of memory while recording a warning");
  }
  if (rc) {
    if (!err->code) hs_doc_error(err, rc, d, 0, "%s", hs_code_message(rc));
    hs_doc_free(d);
    return NULL;
  }
  return d;
}

hs_doc *hs_parse_as(const char *text, size_t len, hs_format f, hs_error *err) { return parse_doc(text, len, f, 0, NULL, err); }

hs_doc *hs_parse_hlo_split(const char *text, size_t len, size_t s, bool *split_done, hs_error *err) {
  *split_done = false;
  return s && s < len ? parse_doc(text, len, HS_FORMAT_HLO, s, split_done, err) : NULL;
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

json_t *hs_json_slice(const hs_doc *d, hs_slice s) { return hs_json_bytes(hs_sp(d, s), s.len); }

void hs_doc_warn(hs_doc *d, int code, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_diag_vwarn(&d->diag, &d->arena, code, line, col, fmt, ap); /* OOM: d->nomem */
  va_end(ap);
}

void hs_warn_truncated_line(hs_doc *d, uint32_t line) {
  hs_doc_warn(d, HS_W_TRUNCATED, line, 1, "the dump ends in the middle of line %u (truncated?): that line was skipped", line);
}


/* ---- builders shared by the text readers ----------------------------------------------- */
int32_t hs_doc_open_module(hs_doc *d, hs_slice name, uint32_t line, uint32_t off) {
  bool ok;
  if (d->n_modules >= HS_MODULE_MAX) return -1; /* hs_comp.module's 27 bits (a text of 4 GB holds fewer) */
  hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
  if (!ok) return -1;
  memset(m, 0, sizeof *m);
  m->name = name;
  m->line = line;
  m->off = off;
  m->first_comp = d->n_comps;
  m->first_call = d->n_calls;
  m->entry = -1;
  return (int32_t)d->n_modules - 1;
}

int32_t hs_doc_open_comp(hs_doc *d, uint32_t module, hs_slice name, uint32_t line, uint8_t role) {
  bool ok;
  if (d->n_comps >= HS_COMP_MAX) return -1; /* hs_instr.comp's 28 bits (a text of 4 GB holds fewer) */
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

static hs_slice comp_key(const hs_doc *d, uint32_t i) { return d->comps[i].name; }

bool hs_comp_in_fused(const hs_doc *d, uint32_t comp) { return comp < d->n_comps && d->comps[comp].inner; }

uint32_t hs_doc_name_col(const hs_doc *d, uint32_t line, hs_slice name) {
  if (!line || line > d->n_lines || name.off > d->len) return 0;
  uint32_t off = hs_line_off(d, line - 1);
  return name.off >= off ? name.off - off + 1 : 0;
}

/* A module's calls (calls=, to_apply=, ...) are resolved when the module has ended: a
 * computation may be called before its definition. Operands are not: names are scoped by
 * computation, and the HLO reader resolves each computation's operands while it reads it (its
 * text still in the cache). The calls go in batches: the hashes of a batch first (each slot is
 * prefetched), then the probes, so that the table's cache misses overlap instead of coming one
 * after another (a computation's name lies far back in the text). */
#define RESOLVE_BATCH 32

typedef struct {
  hs_call *call[RESOLVE_BATCH];
  uint32_t hash[RESOLVE_BATCH];
  uint32_t n;
} call_batch;

/* Resolves the batch's calls in three steps, each over the whole batch: the first slot whose
 * hash bits agree, that computation's name, the name's text; then the comparison (a candidate
 * that is not the name falls back to the full probe). Then gives the computations called their
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
      if (!u->calls) u->first_call_line = d->instrs[c->instr].line;
      u->calls++;
      continue;
    }
    if (!hlo) continue;
    hs_comp *cp = &d->comps[c->target];
    if (c->by_fusion && c->attr == HS_CALL_CALLS) {
      cp->role = HS_ROLE_FUSED;
      cp->inner = 1;
      if (cp->fused_by < 0) cp->fused_by = (int32_t)c->instr;
    } else if (c->attr == HS_CALL_TO_APPLY && !c->by_call) {
      cp->inner = 1;
    }
    else if (c->attr == HS_CALL_CALLS && cp->role == HS_ROLE_CALLED) {
      hs_slice op = hs_opcode(d, &d->instrs[c->instr]);
      if (op.len > 6 && memcmp(hs_sp(d, op), "async-", 6) == 0) cp->role = HS_ROLE_ASYNC;
    }
  }
  b->n = 0;
}

/* Resolves the calls of one module (computation names are unique per module), and gives the
 * computations of an HLO module their roles. */
static int resolve_module(hs_doc *d, hs_module *mod, hs_unresolved *u) {
  uint32_t c0 = mod->first_comp, c1 = mod->first_comp + mod->comp_count;
  if (c1 > d->n_comps) c1 = d->n_comps;
  if (c0 >= c1) return 0;
  if (mod->entry < 0) mod->entry = (int32_t)(c1 - 1); /* without ENTRY the last one is the entry */
  d->comps[mod->entry].is_entry = 1;
  if (d->format != HS_FORMAT_STABLEHLO) d->comps[mod->entry].role = HS_ROLE_ENTRY;
  bool hlo = d->format == HS_FORMAT_HLO;
  /* the module's calls run up to the next module's first one (calls are added in text order) */
  uint32_t m = (uint32_t)(mod - d->modules);
  uint32_t k0 = mod->first_call, k1 = m + 1 < d->n_modules ? d->modules[m + 1].first_call : d->n_calls;
  if (k1 > d->n_calls) k1 = d->n_calls;

  hs_names comps = {0};
  if (!hs_names_init_base(&comps, c1 - c0 + 1, c0)) return HS_E_NOMEM;
  /* computation names lie far apart in the text: each one's line is asked for 8 ahead */
  for (uint32_t c = c0; c < c1 && c < c0 + 8; c++) hs_prefetch(hs_sp(d, d->comps[c].name));
  for (uint32_t c = c0; c < c1; c++) {
    if (c + 8 < c1) hs_prefetch(hs_sp(d, d->comps[c + 8].name));
    if (!hs_names_put(&comps, d, comp_key, c)) {
      hs_names_free(&comps);
      return HS_E_NOMEM;
    }
    if (comps.dup) { /* XLA: "computation already exists" */
      if (hlo) {
        const hs_comp *first = &d->comps[comps.dup - 1], *again = &d->comps[c];
        hs_doc_warn(d, HS_W_XLA_REFUSES, again->line, hs_doc_name_col(d, again->line, again->name), "computation %.*s is defined twice in its module (lines %u and %u): XLA's parser refuses this (computation already exists); the first is followed",
                    (int)(again->name.len < 60 ? again->name.len : 60), hs_sp(d, again->name), first->line, again->line);
      }
      comps.dup = 0;
    }
  }
  call_batch cb;
  cb.n = 0;
  for (uint32_t k = k0; k < k1; k++) {
    hs_call *c = &d->calls[k];
    uint32_t h = hs_hash_name(hs_sp(d, c->name), c->name.len);
    hs_names_prefetch(&comps, h);
    cb.call[cb.n] = c;
    cb.hash[cb.n] = h;
    if (++cb.n == RESOLVE_BATCH) flush_calls(d, &comps, &cb, u, hlo);
  }
  flush_calls(d, &comps, &cb, u, hlo);
  hs_names_free(&comps);
  return 0;
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
    if (in->synth != HS_SYNTH_GTE || !hs_op_count(d, in)) continue;
    const hs_operand *o = &d->operands[in->op_first];
    const hs_type *t = o->target >= 0 ? d->instrs[o->target].type : NULL;
    int32_t gi = hs_synth_gte_index(d, in);
    if (t && t->kind == HS_T_TUPLE && gi >= 0 && (uint32_t)gi < t->n) in->type = t->elems[gi];
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

/* ---- the HLO side of instructions (doc.h says how it is kept) ---------------------------- */
/* The row of a table in instruction order (hlo_rare, hlo_wide: their first field is the
   instruction) for instruction i, or NULL. */
static const void *row_of(const void *rows, uint32_t n, size_t size, uint32_t i) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2, at;
    memcpy(&at, (const char *)rows + (size_t)mid * size, sizeof at);
    if (at < i) lo = mid + 1;
    else if (at > i) hi = mid;
    else return (const char *)rows + (size_t)mid * size;
  }
  return NULL;
}

/* ---- where lines start ------------------------------------------------------------------- */
uint32_t hs_line_off_slow(const hs_doc *d, uint32_t li) {
  hs_doc *m = (hs_doc *)d; /* the index is a cache beside the lines: filled once, read after */
  uint32_t n = m->n_line_offs;
  size_t p = n ? m->line_offs[n - 1] : 0;
  if (n) { /* past the last line indexed */
    const char *nl = p < d->len ? memchr(d->text + p, '\n', d->len - p) : NULL;
    p = nl ? (size_t)(nl - d->text) + 1 : d->len;
  }
  if (d->n_lines > m->cap_line_offs && !hs_vec_grow((void **)&m->line_offs, &m->cap_line_offs, d->n_lines, sizeof *m->line_offs)) {
    /* no memory for the index: counted from the start, this once */
    size_t q = 0;
    for (uint32_t k = 0; k < li && q < d->len; k++) {
      const char *nl = memchr(d->text + q, '\n', d->len - q);
      q = nl ? (size_t)(nl - d->text) + 1 : d->len;
    }
    return (uint32_t)q;
  }
  for (; n < d->n_lines; n++) {
    m->line_offs[n] = (uint32_t)p;
    const char *nl = p < d->len ? memchr(d->text + p, '\n', d->len - p) : NULL;
    p = nl ? (size_t)(nl - d->text) + 1 : d->len;
  }
  m->n_line_offs = n;
  return li < n ? m->line_offs[li] : (uint32_t)d->len;
}

uint32_t hs_comp_line_off(const hs_doc *d, const hs_comp *c) {
  if (!c->name.len || c->name.off >= d->len) return c->line && c->line <= d->n_lines ? hs_line_off(d, c->line - 1) : 0;
  uint32_t a = c->name.off;
  while (a > 0 && d->text[a - 1] != '\n') a--;
  return a;
}

/* ---- what the instruction record leaves out ------------------------------------------- */
hs_instr *hs_doc_add_instr_wide(hs_doc *d, hs_instr *in, hs_slice opcode) {
  uint32_t i = (uint32_t)(in - d->instrs);
  bool ok;
  hs_instr_wide *w = HS_VEC_PUSH(d->instr_wide, d->n_instr_wide, d->cap_instr_wide, ok);
  if (!ok) {
    d->n_instrs--;
    return NULL;
  }
  *w = (hs_instr_wide){i, -1, opcode};
  in = &d->instrs[i];
  in->opc = HS_OPC_WIDE;
  return in;
}

static const hs_instr_wide *wide_of(const hs_doc *d, const hs_instr *in) {
  return row_of(d->instr_wide, d->n_instr_wide, sizeof(hs_instr_wide), (uint32_t)(in - d->instrs));
}

hs_slice hs_opcode_wide(const hs_doc *d, const hs_instr *in) {
  const hs_instr_wide *w = wide_of(d, in);
  return w ? w->opcode : hs_sl(0, 0);
}

int32_t hs_synth_gte_index(const hs_doc *d, const hs_instr *in) {
  const hs_instr_wide *w = in->synth == HS_SYNTH_GTE ? wide_of(d, in) : NULL;
  return w ? w->gte_index : -1;
}

uint32_t hs_calls_of_slow(const hs_doc *d, const hs_instr *in, uint32_t *first) {
  uint32_t i = (uint32_t)(in - d->instrs), lo = 0, hi = d->n_calls;
  while (lo < hi) { /* the first call whose instruction is i or later */
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->calls[mid].instr < i) lo = mid + 1;
    else hi = mid;
  }
  uint32_t k = lo;
  while (k < d->n_calls && d->calls[k].instr == i) k++;
  *first = lo;
  return k - lo;
}

hs_hlo_instr hs_hlo_of(const hs_doc *d, const hs_instr *in) {
  size_t i = (size_t)(in - d->instrs);
  hs_hlo_instr h = {0};
  if (i >= d->n_hlo) return h;
  const hs_hlo_row *w = &d->hlo[i];
  uint32_t src = w->src & ~HS_HLO_RARE;
  if (w->op_at == HS_HLO_WIDE) {
    const hs_hlo_wide *x = row_of(d->hlo_wide, d->n_hlo_wide, sizeof *x, (uint32_t)i);
    if (x) {
      h.op_name = x->op_name;
      h.source_file = x->source_file;
      h.source_ref = x->source_ref;
    }
  } else {
    if (w->op_at || w->op_len) h.op_name = hs_sl(in->name.off + w->op_at, w->op_len);
    if (src & HS_HLO_SRC_FILE) {
      h.source_file = (src >> 20) & 0x3FFu;
      h.source_ref = src & 0xFFFFFu;
    } else {
      h.source_ref = src;
    }
  }
  if (w->src & HS_HLO_RARE) {
    const hs_hlo_rare *x = row_of(d->hlo_rare, d->n_hlo_rare, sizeof *x, (uint32_t)i);
    if (x) {
      h.kind = x->kind;
      h.custom_call_target = x->custom_call_target;
      h.backend_config = x->backend_config;
    }
  }
  return h;
}

/* Its op_name and source into its row, or (one does not fit) a row of doc->hlo_wide. */
bool hs_hlo_set_meta_slow(hs_doc *d, uint32_t idx, hs_slice op_name, uint32_t file, uint32_t ref) {
  hs_hlo_row *w = &d->hlo[idx];
  uint32_t name_off = d->instrs[idx].name.off;
  bool present = op_name.off != 0; /* an op_name is never at the text's start */
  uint32_t rare = w->src & HS_HLO_RARE;
  if ((!present || hs_hlo_op_fits(op_name, name_off)) && hs_hlo_src_fits(file, ref)) {
    /* a wide row written for it before stays, unread */
    w->op_at = present ? (uint16_t)(op_name.off - name_off) : 0;
    w->op_len = present ? (uint16_t)op_name.len : 0;
    w->src = rare | hs_hlo_src(file, ref);
    return true;
  }
  hs_hlo_wide *x = d->n_hlo_wide && d->hlo_wide[d->n_hlo_wide - 1].instr == idx ? &d->hlo_wide[d->n_hlo_wide - 1] : NULL;
  if (!x) {
    bool ok;
    x = HS_VEC_PUSH(d->hlo_wide, d->n_hlo_wide, d->cap_hlo_wide, ok);
    if (!ok) return false;
  }
  x->instr = idx;
  x->op_name = op_name;
  x->source_file = file;
  x->source_ref = ref;
  w->op_at = HS_HLO_WIDE;
  w->op_len = 0;
  w->src = rare;
  return true;
}

bool hs_hlo_set_op_name(hs_doc *d, uint32_t idx, hs_slice op_name) {
  hs_hlo_instr h = hs_hlo_of(d, &d->instrs[idx]);
  return hs_hlo_set_meta_slow(d, idx, op_name, h.source_file, h.source_ref);
}

bool hs_hlo_set_source(hs_doc *d, uint32_t idx, uint32_t file, uint32_t ref) {
  return hs_hlo_set_meta_slow(d, idx, hs_hlo_of(d, &d->instrs[idx]).op_name, file, ref);
}

hs_hlo_rare *hs_hlo_rare_of(hs_doc *d, uint32_t idx) {
  hs_hlo_row *w = &d->hlo[idx];
  if (w->src & HS_HLO_RARE) {
    if (d->hlo_rare[d->n_hlo_rare - 1].instr == idx) return &d->hlo_rare[d->n_hlo_rare - 1];
    return (hs_hlo_rare *)row_of(d->hlo_rare, d->n_hlo_rare, sizeof(hs_hlo_rare), idx);
  }
  bool ok;
  hs_hlo_rare *x = HS_VEC_PUSH(d->hlo_rare, d->n_hlo_rare, d->cap_hlo_rare, ok);
  if (!ok) return NULL;
  memset(x, 0, sizeof *x);
  x->instr = idx;
  w->src |= HS_HLO_RARE;
  return x;
}

/* The sizes the memory figures rest on (bench/: peak memory at most 2x the input). */
_Static_assert(sizeof(hs_line) == 4, "hs_line: 4 bytes");
_Static_assert(sizeof(hs_operand) == 4, "hs_operand: 4 bytes");
_Static_assert(sizeof(hs_instr) == 8 + 4 * 4 + sizeof(void *), "hs_instr: 32 bytes (28 in wasm)");
_Static_assert(sizeof(hs_comp) == 8 + 8 * 4 + sizeof(void *), "hs_comp: 48 bytes (44 in wasm)");
_Static_assert(sizeof(hs_hlo_row) == 8, "hs_hlo_row: 8 bytes");
