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

/* Names that resolve to nothing, counted over the whole document. */
typedef struct {
  uint32_t ops, calls, first_line;
} unresolved;

/* Resolves operand and call names within one module (names are unique per module). */
static int resolve_module(hs_doc *d, hs_module *mod, unresolved *u) {
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

  int rc = HS_E_NOMEM;
  hs_names names = {0}, comps = {0};
  if (!hs_names_init(&names, i1 - i0 + 1) || !hs_names_init(&comps, c1 - c0 + 1)) goto done;
  for (uint32_t i = i0; i < i1; i++)
    if (!d->instrs[i].synth && !hs_names_put(&names, d, instr_key, i)) goto done; /* made ones have no name in the text */
  for (uint32_t c = c0; c < c1; c++)
    if (!hs_names_put(&comps, d, comp_key, c)) goto done;
  for (uint32_t i = i0; i < i1; i++) {
    hs_instr *in = &d->instrs[i];
    for (uint32_t k = 0; k < in->op_count; k++) {
      hs_operand *o = &d->operands[in->op_first + k];
      if (o->target >= 0) continue; /* the reader linked it (a nested operand, a compact get-tuple-element) */
      o->target = hs_names_get(&names, d, instr_key, hs_sp(d, o->name), o->name.len);
      if (o->target < 0 && d->format == HS_FORMAT_HLO) {
        if (!u->ops) u->first_line = in->line;
        u->ops++;
      }
    }
    for (uint32_t k = 0; k < in->call_count; k++) {
      hs_call *c = &d->calls[in->call_first + k];
      c->target = hs_names_get(&comps, d, comp_key, hs_sp(d, c->name), c->name.len);
      if (c->target < 0) {
        if (!u->calls && !u->ops) u->first_line = in->line;
        u->calls++;
      }
    }
  }
  rc = 0;
done:
  hs_names_free(&names);
  hs_names_free(&comps);
  return rc;
}

int hs_resolve(hs_doc *d) {
  unresolved u = {0, 0, 0};
  for (uint32_t m = 0; m < d->n_modules; m++) {
    int rc = resolve_module(d, &d->modules[m], &u);
    if (rc) return rc;
  }

  /* the get-tuple-elements the reader made: typed from their tuple (in order: a chain's first
     link comes first) */
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    hs_instr *in = &d->instrs[i];
    if (in->synth != HS_SYNTH_GTE || !in->op_count) continue;
    const hs_operand *o = &d->operands[in->op_first];
    const hs_type *t = o->target >= 0 ? d->instrs[o->target].type : NULL;
    if (t && t->kind == HS_T_TUPLE && in->gte_index >= 0 && (uint32_t)in->gte_index < t->n) in->type = t->elems[in->gte_index];
  }

  /* roles: fused bodies (called by a fusion), kernel-internal combiners, the rest */
  for (uint32_t c = 0; c < d->n_comps; c++) {
    hs_comp *cp = &d->comps[c];
    if (d->format == HS_FORMAT_STABLEHLO) cp->role = HS_ROLE_FUNCTION;
    else if (cp->is_entry) cp->role = HS_ROLE_ENTRY;
  }
  if (d->format == HS_FORMAT_HLO) {
    for (uint32_t i = 0; i < d->n_instrs; i++) {
      hs_instr *in = &d->instrs[i];
      bool fusion = hs_slice_is(d, in->opcode, "fusion");
      bool call = hs_slice_is(d, in->opcode, "call");
      for (uint32_t k = 0; k < in->call_count; k++) {
        hs_call *c = &d->calls[in->call_first + k];
        if (c->target < 0) continue;
        hs_comp *cp = &d->comps[c->target];
        if (fusion && c->attr == HS_CALL_CALLS) {
          cp->role = HS_ROLE_FUSED;
          cp->inner = 1;
          if (cp->fused_by < 0) cp->fused_by = (int32_t)i;
        } else if (c->attr == HS_CALL_TO_APPLY && !call) {
          cp->inner = 1;
        }
      }
    }
  }
  if (u.ops)
    hs_doc_warn(d, HS_W_UNRESOLVED_OPERAND, u.first_line, 0,
                "%u operands name no instruction of their module (first at line %u): a trimmed or partial dump?",
                u.ops, u.first_line);
  if (u.calls)
    hs_doc_warn(d, HS_W_UNRESOLVED_CALL, u.first_line, 0,
                "%u called computations (calls=, to_apply=, ...) are missing from the dump", u.calls);
  return 0;
}
