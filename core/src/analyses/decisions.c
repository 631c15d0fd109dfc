/* Decisions the framework or the compiler made, in a jaxpr, a StableHLO module or an HLO module:
 * upcasts and downcasts (a convert to a dtype of more or fewer bits), explicit broadcasts,
 * recomputation marks (remat/checkpoint equations, optimization barriers, op_name
 * "rematted_computation"), transposes, and HLO copies that change the layout.
 *
 * All three are read from the document model: instructions, their result types, resolved
 * operands; a jaxpr's first operand types and nesting (doc->jaxpr_eqns, doc->jaxpr_bodies); an HLO
 * instruction's source location and its module's frame tables as the HLO reader kept them.
 * StableHLO and HLO also read the text of each instruction's line (operand types, layouts,
 * StableHLO locations). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"

/* The kinds, in the order of KIND_NAMES. */
enum { D_UPCAST = 0, D_DOWNCAST, D_BROADCAST, D_REMAT, D_TRANSPOSE, D_LAYOUT_COPY };

/* One decision, on the line it was made. */
typedef struct {
  uint8_t kind;
  uint32_t line, seq;
  const char *name;
  size_t name_len;
  int from, to; /* element type indices, -1 when none */
  const hs_type *shape;
  char *detail, *source, *path; /* malloc'd; source and path may be NULL */
} dec;

/* One hs_decisions_json call: its document, its list, its warnings. */
typedef struct {
  const hs_doc *d;
  hs_arena arena; /* types read here (operand types of HLO and StableHLO lines) */
  dec *v;
  uint32_t n, cap;
  bool nomem;
  uint32_t *locs;   /* StableHLO's table lines ("#loc12 = ...") by name: line index + 1 (loc_line) */
  uint32_t loc_cap; /* 0 until the first lookup makes the index */
} ctx;

/* The element type of an array type, or -1. */
static inline int elem_of(const hs_type *t) { return t && t->kind == HS_T_ARRAY ? t->elem : -1; }
/* A byte of an MLIR identifier ([A-Za-z0-9_]). */
static inline bool jid(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *const KIND_NAMES[] = {"upcast", "downcast", "broadcast", "remat", "transpose", "layout_copy"};

static char *hs_dec_fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, f);
  vsnprintf(s, (size_t)n + 1, f, ap);
  va_end(ap);
  return s;
}

static char *hs_dec_dupn(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

static dec *hs_dec_add(ctx *c, uint8_t kind, uint32_t line, const char *name, size_t name_len) {
  bool ok;
  dec *x = HS_VEC_PUSH(c->v, c->n, c->cap, ok);
  if (!ok) {
    c->nomem = true;
    return NULL;
  }
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->line = line;
  x->seq = c->n - 1;
  x->name = name;
  x->name_len = name_len;
  x->from = x->to = -1;
  return x;
}

static const char *elem_name(int e) { return e >= 0 ? hs_elem_types[e].hlo : "?"; }

static void type_str(const hs_type *t, char *buf, size_t cap) {
  if (!t) {
    snprintf(buf, cap, "?");
    return;
  }
  hs_type_format(t, buf, cap);
}

/* The kind of a convert from `from` to `to`: upcast, downcast, or -1 (same width, unknown, or
 * real to complex and back: f64 -> c128 is a type change, not a wider f64). */
static int hs_dec_convert_kind(int from, int to) {
  if (from < 0 || to < 0) return -1;
  if (hs_elem_is_complex(from) != hs_elem_is_complex(to)) return -1;
  unsigned a = hs_elem_types[from].bits, b = hs_elem_types[to].bits;
  if (!a || !b || a == b) return -1;
  return b > a ? D_UPCAST : D_DOWNCAST;
}

static void hs_dec_cast_detail(dec *x, const char *op, const hs_type *in, const hs_type *out) {
  char a[128], b[128];
  type_str(in, a, sizeof a);
  type_str(out, b, sizeof b);
  x->detail = hs_dec_fmt("%s carries the value from %s to %s: %u -> %u bits (%s -> %s)", op, elem_name(x->from),
                  elem_name(x->to), hs_elem_types[x->from].bits, hs_elem_types[x->to].bits, a, b);
}

static void hs_dec_shape_detail(dec *x, const char *op, const char *verb, const hs_type *in, const hs_type *out) {
  char a[128], b[128];
  type_str(in, a, sizeof a);
  type_str(out, b, sizeof b);
  if (in)
    x->detail = hs_dec_fmt("%s %s %s into %s", op, verb, a, b);
  else
    x->detail = hs_dec_fmt("%s %s a scalar into %s", op, verb, b);
}

/* ================================================================ HLO and StableHLO ======== */

/* [start, end) of an instruction's text: its line and the continuation lines after it. */
static void instr_span(const hs_doc *d, const hs_instr *in, size_t *s, size_t *e) {
  uint32_t li = in->line - 1;
  *s = hs_line_off(d, li);
  uint32_t k = li + 1;
  while (k < d->n_lines && d->lines[k].kind == HS_LINE_CONT) k++;
  *e = k < d->n_lines ? hs_line_off(d, k) : d->len;
  while (*e > *s && (d->text[*e - 1] == '\n' || d->text[*e - 1] == '\r')) (*e)--;
}

/* The layout "{1,0}" printed after the first shape at t[p] (the result shape after " = "). */
static bool layout_after(const char *t, size_t e, size_t p, size_t *ls, size_t *ln) {
  while (p < e && t[p] != ']' && t[p] != ' ' && t[p] != '(') p++;
  if (p >= e || t[p] != ']') return false;
  p++;
  if (p >= e || t[p] != '{') return false;
  size_t s = p;
  int dp = 0;
  for (; p < e; p++) {
    if (t[p] == '{') dp++;
    else if (t[p] == '}' && --dp == 0) break;
  }
  if (p >= e) return false;
  *ls = s;
  *ln = p + 1 - s;
  return true;
}

/* The result layout of an HLO instruction: the shape after "= " on its line. */
static bool result_layout(const hs_doc *d, const hs_instr *in, size_t *ls, size_t *ln) {
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *eq = memchr(d->text + s, '=', e - s);
  if (!eq) return false;
  size_t p = hs_skip_sp(d->text, e, (size_t)(eq - d->text) + 1);
  return layout_after(d->text, e, p, ls, ln);
}

/* The position just after the opcode's "(" on an HLO instruction's line, or 0. */
static size_t operands_open(const hs_doc *d, const hs_instr *in) {
  size_t p = hs_opcode_end(d, in);
  return p < d->len && d->text[p] == '(' ? p + 1 : 0;
}

/* The type of an HLO instruction's first operand: the resolved operand's, else the long form's
 * inline "f32[64,256]{1,0} %x". */
static const hs_type *hlo_operand_type(const hs_doc *d, const hs_instr *in, hs_arena *a) {
  if (hs_op_count(d, in)) {
    const hs_operand *o = &d->operands[in->op_first];
    if (o->target >= 0 && d->instrs[o->target].type) return d->instrs[o->target].type;
  }
  size_t p = operands_open(d, in);
  if (!p) return NULL;
  size_t s, e;
  instr_span(d, in, &s, &e);
  if (p < e && d->text[p] != '%') {
    size_t q = p;
    return hs_parse_hlo_shape(a, d->text, e, &q);
  }
  return NULL;
}

static bool operand_layout(const hs_doc *d, const hs_instr *in, size_t *ls, size_t *ln) {
  size_t p = operands_open(d, in);
  size_t s, e;
  instr_span(d, in, &s, &e);
  if (p && p < e && d->text[p] != '%' && layout_after(d->text, e, p, ls, ln)) return true;
  if (hs_op_count(d, in)) {
    const hs_operand *o = &d->operands[in->op_first];
    if (o->target >= 0) return result_layout(d, &d->instrs[o->target], ls, ln);
  }
  return false;
}

/* ---- HLO source locations: the metadata's source_file and source_line, else its stack_frame_id
 * through its module's frame tables (the HLO reader kept both) ---- */
typedef struct {
  uint32_t module; /* the module indexed (UINT32_MAX: none yet) */
  /* by id: the row (index + 1, 0: none) of FileNames, FileLocations and StackFrames */
  uint32_t *by_id[3];
  uint32_t n[3];
} frames;
enum { FR_FILES = 0, FR_LOCS, FR_FRAMES };

/* Indexes module m's rows by id (the last row of an id wins); false when memory runs out. */
static bool index_frames(const hs_doc *d, frames *f, uint32_t m) {
  f->module = m;
  for (int k = 0; k < 3; k++)
    if (f->n[k]) memset(f->by_id[k], 0, f->n[k] * sizeof *f->by_id[k]);
  /* the rows are in text order, so by module: the first of module m */
  uint32_t lo = 0, hi = d->n_frames;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->frames[mid].module < m) lo = mid + 1;
    else hi = mid;
  }
  for (uint32_t i = lo; i < d->n_frames && d->frames[i].module == m; i++) {
    const hs_frame_row *row = &d->frames[i];
    int k = row->table == HS_FRAMES_FILE_NAMES ? FR_FILES : row->table == HS_FRAMES_FILE_LOCATIONS ? FR_LOCS
            : row->table == HS_FRAMES_STACK_FRAMES ? FR_FRAMES : -1;
    if (k < 0 || row->id > 1000000) continue;
    if (row->id >= f->n[k]) {
      uint32_t nn = row->id + 1 > f->n[k] * 2 ? row->id + 1 : f->n[k] * 2;
      uint32_t *b = realloc(f->by_id[k], nn * sizeof *b);
      if (!b) return false;
      memset(b + f->n[k], 0, (nn - f->n[k]) * sizeof *b);
      f->by_id[k] = b;
      f->n[k] = nn;
    }
    f->by_id[k][row->id] = i + 1;
  }
  return true;
}

/* The row of table k with that id, or NULL. */
static const hs_frame_row *frame_row(const hs_doc *d, const frames *f, int k, uint32_t id) {
  return id && id < f->n[k] && f->by_id[k][id] ? &d->frames[f->by_id[k][id] - 1] : NULL;
}

static char *hlo_source(ctx *c, const hs_instr *in, frames *f) {
  const hs_doc *d = c->d;
  const hs_hlo_instr hv = hs_hlo_of(d, in), *h = &hv;
  if (h->source_file && h->source_file <= d->n_source_files) {
    hs_slice s = d->source_files[h->source_file - 1];
    return h->source_ref ? hs_dec_fmt("%.*s:%u", (int)s.len, hs_sp(d, s), h->source_ref) : hs_dec_dupn(hs_sp(d, s), s.len);
  }
  if (!h->source_ref || in->comp >= d->n_comps) return NULL;
  uint32_t m = d->comps[in->comp].module;
  if (f->module != m && !index_frames(d, f, m)) {
    c->nomem = true;
    return NULL;
  }
  const hs_frame_row *fr = frame_row(d, f, FR_FRAMES, h->source_ref);
  const hs_frame_row *loc = fr ? frame_row(d, f, FR_LOCS, fr->frame.location) : NULL;
  const hs_frame_row *file = loc ? frame_row(d, f, FR_FILES, loc->loc.file) : NULL;
  if (!file || !file->name.len) return NULL;
  return hs_dec_fmt("%.*s:%u", (int)file->name.len, hs_sp(d, file->name), loc->loc.line);
}

static void hlo_decisions(ctx *c) {
  const hs_doc *d = c->d;
  frames fr;
  memset(&fr, 0, sizeof fr);
  fr.module = UINT32_MAX;
  for (uint32_t i = 0; i < d->n_instrs && !c->nomem; i++) {
    const hs_instr *in = &d->instrs[i];
    const hs_slice opc = hs_opcode(d, in);
    const char *op = hs_sp(d, opc);
    size_t on = opc.len;
    char opname[32];
    snprintf(opname, sizeof opname, "%.*s", (int)(on < 31 ? on : 31), op);
    const hs_slice opn = hs_hlo_of(d, in).op_name; /* gathered once: hs_hlo_of copies its rows */
    dec *x = NULL;
    const hs_type *src = NULL;
    if (hs_slice_is(d, opc, "convert")) {
      src = hlo_operand_type(d, in, &c->arena);
      int k = hs_dec_convert_kind(elem_of(src), elem_of(in->type));
      if (k < 0) continue;
      x = hs_dec_add(c, (uint8_t)k, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->from = elem_of(src);
      x->to = elem_of(in->type);
      hs_dec_cast_detail(x, opname, src, in->type);
    } else if (hs_slice_is(d, opc, "broadcast") || hs_slice_is(d, opc, "transpose")) {
      bool bc = opname[0] == 'b';
      src = hlo_operand_type(d, in, &c->arena);
      x = hs_dec_add(c, bc ? D_BROADCAST : D_TRANSPOSE, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->to = elem_of(in->type);
      x->from = src ? elem_of(src) : x->to;
      hs_dec_shape_detail(x, opname, bc ? "broadcasts" : "transposes", src, in->type);
    } else if (hs_slice_is(d, opc, "copy")) {
      size_t as, an, bs, bn;
      if (!operand_layout(d, in, &as, &an) || !result_layout(d, in, &bs, &bn)) continue;
      if (an == bn && memcmp(d->text + as, d->text + bs, an) == 0) continue;
      x = hs_dec_add(c, D_LAYOUT_COPY, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->from = x->to = elem_of(in->type);
      char b[128];
      type_str(in->type, b, sizeof b);
      x->detail = hs_dec_fmt("copy moves %s from layout %.*s to layout %.*s", b, (int)an, d->text + as, (int)bn, d->text + bs);
    } else if (hs_slice_is(d, opc, "opt-barrier")) {
      x = hs_dec_add(c, D_REMAT, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->detail = hs_dec_fmt("opt-barrier marks recomputation: it keeps XLA from merging the values it holds with the forward pass");
    } else if (opn.len && hs_contains(hs_sp(d, opn), opn.len, "rematted_computation")) {
      x = hs_dec_add(c, D_REMAT, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->detail = hs_dec_fmt("%s is recomputed for the backward pass: its op_name \"%.*s\" names a rematted_computation", opname,
                      (int)opn.len, hs_sp(d, opn));
    } else {
      continue;
    }
    x->shape = in->type;
    x->source = hlo_source(c, in, &fr);
    if (in->comp < d->n_comps) x->path = hs_dec_dupn(hs_sp(d, d->comps[in->comp].name), d->comps[in->comp].name.len);
  }
  for (int k = 0; k < 3; k++) free(fr.by_id[k]);
}

/* ---- StableHLO: the operand type from "(A) -> R"; the location through the #loc table ------ */

static const hs_type *mlir_operand_type(ctx *c, const hs_instr *in) {
  const hs_doc *d = c->d;
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *t = d->text;
  /* the last " : (" on the line: the function type of a pretty or generic op */
  size_t found = 0;
  for (size_t p = s; p + 4 <= e; p++)
    if (t[p] == ' ' && t[p + 1] == ':' && t[p + 2] == ' ' && t[p + 3] == '(') found = p + 4;
  if (!found) return NULL;
  size_t q = found;
  return hs_parse_mlir_type(&c->arena, t, e, &q);
}

/* The name of table line li ("#loc12" of "#loc12 = loc(...)"): its length, or 0. */
static size_t loc_name_len(const hs_doc *d, uint32_t li, size_t *end) {
  size_t s = hs_line_off(d, li), e = li + 1 < d->n_lines ? hs_line_off(d, li + 1) : d->len, k = 1;
  *end = e;
  if (s >= e || d->text[s] != '#') return 0;
  while (s + k < e && jid(d->text[s + k])) k++;
  return e - s > k + 3 && d->text[s + k] == ' ' && d->text[s + k + 1] == '=' ? k : 0;
}

/* The byte range, after its name, of the table line "#locN = ..." that ref names. The table is
 * indexed by name on the first lookup (the first line of a name wins): a text with thousands of
 * decisions looked each one up in every line. */
static bool loc_line(ctx *c, const char *ref, size_t rn, size_t *ls, size_t *le) {
  const hs_doc *d = c->d;
  size_t e;
  if (!c->loc_cap) {
    uint32_t n = 0, cap = 16;
    for (uint32_t li = 0; li < d->n_lines; li++) n += d->lines[li].kind == HS_LINE_TABLE;
    while (cap < 2u * n) cap <<= 1;
    c->loc_cap = cap;
    c->locs = calloc(cap, sizeof *c->locs);
    for (uint32_t li = 0; c->locs && li < d->n_lines; li++) {
      size_t k = d->lines[li].kind == HS_LINE_TABLE ? loc_name_len(d, li, &e) : 0;
      if (!k) continue;
      const char *name = d->text + hs_line_off(d, li);
      for (uint32_t h = hs_hash(name, k) & (cap - 1);; h = (h + 1) & (cap - 1)) {
        uint32_t v = c->locs[h];
        if (!v) c->locs[h] = li + 1;
        if (!v || (loc_name_len(d, v - 1, &e) == k && memcmp(d->text + hs_line_off(d, v - 1), name, k) == 0)) break;
      }
    }
  }
  if (!c->locs) return false; /* out of memory: no source */
  for (uint32_t h = hs_hash(ref, rn) & (c->loc_cap - 1);; h = (h + 1) & (c->loc_cap - 1)) {
    uint32_t v = c->locs[h];
    if (!v) return false;
    size_t s = hs_line_off(d, v - 1);
    if (loc_name_len(d, v - 1, &e) == rn && memcmp(d->text + s, ref, rn) == 0) {
      *ls = s + rn;
      *le = e;
      return true;
    }
  }
}

/* "file":L:C inside [s, e), following #locN references (at most 8 hops, and at most *budget
 * table lines in all: a line naming several #locs that each name several more would otherwise
 * cost their product, up to the 8th power; fuzz_decisions found a 1.3 KB text taking 0.8 s). */
#define LOC_LINES_PER_SOURCE 16
static char *mlir_source(ctx *c, size_t s, size_t e, int hops, int *budget) {
  const char *t = c->d->text;
  for (size_t p = s; p < e; p++) {
    if (t[p] == '"') {
      size_t q = hs_skip_string(t, e, p);
      if (q < e && t[q] == ':' && q + 1 < e && t[q + 1] >= '0' && t[q + 1] <= '9') {
        uint32_t line = 0;
        for (size_t k = q + 1; k < e && t[k] >= '0' && t[k] <= '9'; k++) line = line * 10 + (uint32_t)(t[k] - '0');
        return hs_dec_fmt("%.*s:%u", (int)(q - 1 - (p + 1)), t + p + 1, line);
      }
      p = q - 1;
      continue;
    }
    if (t[p] == '#' && hs_starts(t, e, p, "#loc") && hops < 8) {
      size_t q = p + 4;
      while (q < e && jid(t[q])) q++;
      size_t ls, le;
      if (*budget <= 0) return NULL;
      (*budget)--;
      if (loc_line(c, t + p, q - p, &ls, &le)) {
        char *r = mlir_source(c, ls, le, hops + 1, budget);
        if (r) return r;
      }
      p = q - 1;
    }
  }
  return NULL;
}

static char *stablehlo_source(ctx *c, const hs_instr *in) {
  const hs_doc *d = c->d;
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *t = d->text;
  /* the trailing loc(...) */
  for (size_t p = e; p > s + 4; p--) {
    if (memcmp(t + p - 4, "loc(", 4) == 0) {
      int budget = LOC_LINES_PER_SOURCE;
      return mlir_source(c, p, e, 0, &budget);
    }
  }
  return NULL;
}

static void stablehlo_decisions(ctx *c) {
  const hs_doc *d = c->d;
  for (uint32_t i = 0; i < d->n_instrs && !c->nomem; i++) {
    const hs_instr *in = &d->instrs[i];
    const hs_slice opc = hs_opcode(d, in); /* whole; op without its dialect */
    hs_slice op = opc;
    if (op.len > 10 && memcmp(hs_sp(d, op), "stablehlo.", 10) == 0) op = hs_sl(op.off + 10, op.len - 10);
    else if (op.len > 4 && memcmp(hs_sp(d, op), "mhlo.", 5) == 0) op = hs_sl(op.off + 5, op.len - 5);
    else continue;
    char opname[48];
    snprintf(opname, sizeof opname, "%.*s", (int)(opc.len < 47 ? opc.len : 47), hs_sp(d, opc));
    const hs_type *src = NULL;
    dec *x = NULL;
    hs_slice nm = in->name;
    if (nm.len && nm.off > 0 && d->text[nm.off - 1] == '%') nm = hs_sl(nm.off - 1, nm.len + 1);
    if (hs_slice_is(d, op, "convert")) {
      src = mlir_operand_type(c, in);
      int k = hs_dec_convert_kind(elem_of(src), elem_of(in->type));
      if (k < 0) continue;
      x = hs_dec_add(c, (uint8_t)k, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->from = elem_of(src);
      x->to = elem_of(in->type);
      hs_dec_cast_detail(x, opname, src, in->type);
    } else if (hs_slice_is(d, op, "broadcast_in_dim") || hs_slice_is(d, op, "broadcast") ||
               hs_slice_is(d, op, "transpose")) {
      bool bc = d->text[op.off] == 'b';
      src = mlir_operand_type(c, in);
      x = hs_dec_add(c, bc ? D_BROADCAST : D_TRANSPOSE, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->to = elem_of(in->type);
      x->from = src ? elem_of(src) : x->to;
      hs_dec_shape_detail(x, opname, bc ? "broadcasts" : "transposes", src, in->type);
    } else if (hs_slice_is(d, op, "optimization_barrier")) {
      x = hs_dec_add(c, D_REMAT, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->detail = hs_dec_fmt("%s marks recomputation: it keeps XLA from merging the values it holds with the forward pass", opname);
    } else {
      continue;
    }
    x->shape = in->type;
    x->source = stablehlo_source(c, in);
    if (in->comp < d->n_comps && d->n_comps) x->path = hs_dec_dupn(hs_sp(d, d->comps[in->comp].name), d->comps[in->comp].name.len);
  }
}

/* ================================================================ jaxpr ==================== */

/* The nesting path of each body ("pjit/remat2"), made once per body: its parent's, then the
 * primitive of the equation holding it (the reader's walk in jax's print order). NULL: "". */
static char *body_path(ctx *c, char **paths, bool *made, uint32_t b, int depth) {
  const hs_doc *d = c->d;
  if (made[b] || depth > 256) return paths[b];
  made[b] = true;
  const hs_jaxpr_body *jb = &d->jaxpr_bodies[b];
  if (jb->parent < 0 || (uint32_t)jb->parent >= d->n_jaxpr_bodies) {
    if (jb->hoisted && !(paths[b] = hs_dec_dupn(hs_sp(d, d->comps[b].name), d->comps[b].name.len))) c->nomem = true;
    return paths[b];
  }
  const char *up = body_path(c, paths, made, (uint32_t)jb->parent, depth + 1);
  size_t ul = up ? strlen(up) : 0;
  if (!(paths[b] = hs_dec_fmt("%s%s%.*s", up ? up : "", ul ? "/" : "", (int)jb->via.len, hs_sp(d, jb->via)))) c->nomem = true;
  return paths[b];
}

static bool is_remat_prim(const hs_doc *d, hs_slice s) {
  static const char *const names[] = {"remat", "remat2", "checkpoint", "remat_call", "optimization_barrier"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (hs_slice_is(d, s, names[i])) return true;
  return false;
}

static void jaxpr_decisions(ctx *c) {
  const hs_doc *d = c->d;
  uint32_t nb = d->n_jaxpr_bodies < d->n_comps ? d->n_jaxpr_bodies : d->n_comps;
  char **paths = calloc((size_t)nb + 1, sizeof *paths);
  bool *made = calloc((size_t)nb + 1, sizeof *made);
  if (!paths || !made) {
    c->nomem = true;
    nb = 0;
  }
  for (uint32_t i = 0; i < d->n_instrs && i < d->n_jaxpr_eqns && !c->nomem; i++) {
    const hs_instr *in = &d->instrs[i];
    const hs_slice opc = hs_opcode(d, in);
    const hs_type *in0 = d->jaxpr_eqns[i].in0, *out = in->type;
    hs_slice nm = in->name.len ? in->name : opc; /* an equation without outputs: its primitive */
    char prim[64];
    snprintf(prim, sizeof prim, "%.*s", (int)(opc.len < sizeof prim - 1 ? opc.len : sizeof prim - 1), hs_sp(d, opc));
    dec *x = NULL;
    if (hs_slice_is(d, opc, "convert_element_type")) {
      int k = hs_dec_convert_kind(elem_of(in0), elem_of(out));
      if (k < 0) continue;
      if (!(x = hs_dec_add(c, (uint8_t)k, in->line, hs_sp(d, nm), nm.len))) break;
      x->from = elem_of(in0);
      x->to = elem_of(out);
      hs_dec_cast_detail(x, prim, in0, out);
    } else if (hs_slice_is(d, opc, "broadcast_in_dim") || hs_slice_is(d, opc, "transpose")) {
      bool bc = prim[0] == 'b';
      if (!(x = hs_dec_add(c, bc ? D_BROADCAST : D_TRANSPOSE, in->line, hs_sp(d, nm), nm.len))) break;
      x->to = elem_of(out);
      x->from = in0 ? elem_of(in0) : x->to;
      hs_dec_shape_detail(x, prim, bc ? "broadcasts" : "transposes", in0, out);
    } else if (is_remat_prim(d, opc)) {
      if (!(x = hs_dec_add(c, D_REMAT, in->line, hs_sp(d, nm), nm.len))) break;
      uint32_t inner = 0; /* the equations of the bodies it holds */
      for (uint32_t b = 0; b < d->n_jaxpr_bodies; b++)
        if (d->jaxpr_bodies[b].holder == (int32_t)i) inner += d->jaxpr_bodies[b].within;
      if (hs_slice_is(d, opc, "optimization_barrier"))
        x->detail = hs_dec_fmt("%s marks recomputation: it keeps XLA from merging the values it holds with the forward pass", prim);
      else
        x->detail = hs_dec_fmt("%s marks recomputation: its body of %u equations is recomputed for the backward pass instead of "
                               "being kept from the forward pass",
                               prim, inner);
    } else {
      continue;
    }
    x->shape = out;
    const char *path = in->comp < nb ? body_path(c, paths, made, in->comp, 0) : NULL;
    if (path && !(x->path = hs_dec_dupn(path, strlen(path)))) c->nomem = true;
  }
  for (uint32_t b = 0; b < nb; b++) free(paths[b]);
  free(paths);
  free(made);
}

/* ================================================================ output ==================== */

static int by_line(const void *a, const void *b) {
  const dec *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *hs_decisions_json(const hs_doc *doc, size_t *len) {
  if (!doc) return NULL;
  ctx c;
  memset(&c, 0, sizeof c);
  c.d = doc;
  if (doc->format == HS_FORMAT_JAXPR) jaxpr_decisions(&c);
  else if (doc->format == HS_FORMAT_STABLEHLO) stablehlo_decisions(&c);
  else if (doc->format == HS_FORMAT_HLO) hlo_decisions(&c);
  json_t *o = NULL;
  if (!c.nomem) {
    if (c.n) qsort(c.v, c.n, sizeof *c.v, by_line);
    o = json_object();
    json_object_set_new(o, "format", json_string(hs_format_name(doc->format)));
    json_t *a = json_array();
    for (uint32_t i = 0; i < c.n; i++) {
      const dec *x = &c.v[i];
      json_t *e = json_object();
      json_object_set_new(e, "kind", json_string(KIND_NAMES[x->kind]));
      json_object_set_new(e, "line", json_integer(x->line));
      json_object_set_new(e, "name", hs_json_bytes(x->name, x->name_len));
      json_object_set_new(e, "from", x->from >= 0 ? json_string(hs_elem_types[x->from].hlo) : json_null());
      json_object_set_new(e, "to", x->to >= 0 ? json_string(hs_elem_types[x->to].hlo) : json_null());
      json_object_set_new(e, "shape", hs_json_type(x->shape));
      json_object_set_new(e, "detail", x->detail ? hs_json_bytes(x->detail, strlen(x->detail)) : json_string(""));
      json_object_set_new(e, "source", x->source ? hs_json_bytes(x->source, strlen(x->source)) : json_null());
      json_object_set_new(e, "path", x->path ? hs_json_bytes(x->path, strlen(x->path)) : json_string(""));
      json_array_append_new(a, e);
    }
    json_object_set_new(o, "decisions", a);
    /* the document's (a jaxpr cut short or unreadable says so there) */
    json_object_set_new(o, "warnings", hs_warnings_json(doc->warnings, doc->n_warnings));
  }
  for (uint32_t i = 0; i < c.n; i++) {
    free(c.v[i].detail);
    free(c.v[i].source);
    free(c.v[i].path);
  }
  free(c.v);
  free(c.locs);
  hs_arena_free(&c.arena);
  return o ? hs_json_finish(o, len) : NULL;
}
