/* The x-ray of a pair: what XLA received (left, StableHLO) beside what it decided (right,
 * optimized HLO). Every line on both sides gets a class and one sentence. Classes, by
 * precedence: fusion (a fusion op) > carry (defines a value of the big intermediate's type) >
 * hot (custom calls, copies, dots/convolutions, ROOT) > dim (headers, parameters, closing
 * braces, bookkeeping) > plain. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <pcre2.h>

#include "analyses/analyses.h"

typedef struct {
  const char *op;   /* HLO opcode, or StableHLO op without the "stablehlo." prefix */
  const char *what; /* what it does, as a noun phrase */
} op_word;

static const op_word OPS[] = {
    {"add", "elementwise addition"},
    {"subtract", "elementwise subtraction"},
    {"multiply", "elementwise multiplication"},
    {"divide", "elementwise division"},
    {"maximum", "elementwise maximum"},
    {"minimum", "elementwise minimum"},
    {"exponential", "elementwise exp"},
    {"log", "elementwise log"},
    {"tanh", "elementwise tanh"},
    {"sqrt", "elementwise square root"},
    {"rsqrt", "elementwise reciprocal square root"},
    {"negate", "elementwise negation"},
    {"abs", "elementwise absolute value"},
    {"sine", "elementwise sine"},
    {"cosine", "elementwise cosine"},
    {"power", "elementwise power"},
    {"select", "an elementwise choice between two values"},
    {"compare", "an elementwise comparison"},
    {"convert", "a change of element type"},
    {"broadcast", "a broadcast to a larger shape"},
    {"broadcast_in_dim", "a broadcast to a larger shape"},
    {"reshape", "a reshape (same bytes, new shape)"},
    {"transpose", "a transpose (often folded into a consumer's layout)"},
    {"reduce", "a reduction"},
    {"dot", "a matrix multiply"},
    {"dot_general", "a matrix multiply"},
    {"convolution", "a matrix multiply or convolution (XLA:TPU prints dots as convolutions)"},
    {"iota", "an index sequence"},
    {"concatenate", "a concatenation"},
    {"slice", "a static slice"},
    {"dynamic-slice", "a slice at a run-time offset"},
    {"dynamic_slice", "a slice at a run-time offset"},
    {"dynamic-update-slice", "an in-place update of a slice"},
    {"dynamic_update_slice", "an in-place update of a slice"},
    {"gather", "a gather"},
    {"scatter", "a scatter"},
    {"pad", "padding"},
    {"reverse", "a reversal"},
    {"sort", "a sort"},
    {"while", "a loop"},
    {"conditional", "a branch"},
    {"case", "a branch"},
    {"call", "a call of another computation"},
    {"all-reduce", "a cross-device sum (collective)"},
    {"all_reduce", "a cross-device sum (collective)"},
    {"all-gather", "a cross-device gather (collective)"},
    {"all_gather", "a cross-device gather (collective)"},
    {"reduce-scatter", "a cross-device reduce-scatter (collective)"},
    {"collective-permute", "a cross-device permutation (collective)"},
    {"rng-bit-generator", "random bits"},
    {"optimization_barrier", "an optimization barrier (a remat mark)"},
    {"opt-barrier", "an optimization barrier (a remat mark)"},
    {"reduce-window", "a windowed reduction"},
    {"reduce_window", "a windowed reduction"},
    {"clamp", "an elementwise clamp"},
    {"logistic", "elementwise sigmoid"},
    {"floor", "elementwise floor"},
    {"round-nearest-even", "elementwise rounding"},
    {"and", "elementwise and"},
    {"or", "elementwise or"},
    {"not", "elementwise not"},
    {"get-tuple-element", "one element of a tuple (no data moves)"},
    {"tuple", "a tuple of values (no data moves)"},
    {"bitcast", "a reinterpretation of the same bytes (no data moves)"},
    {"copy", "a copy (often a layout change)"},
};

static const char *op_words(const char *s, size_t n) {
  if (n > 10 && memcmp(s, "stablehlo.", 10) == 0) {
    s += 10;
    n -= 10;
  }
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (strlen(OPS[i].op) == n && memcmp(OPS[i].op, s, n) == 0) return OPS[i].what;
  return NULL;
}

static bool is_hot_hlo(const hs_doc *d, const hs_instr *in) {
  hs_slice op = hs_opcode(d, in);
  return hs_slice_is(d, op, "custom-call") || hs_slice_is(d, op, "copy") ||
         hs_slice_is(d, op, "copy-start") || hs_slice_is(d, op, "copy-done") ||
         hs_slice_is(d, op, "dot") || hs_slice_is(d, op, "convolution") || in->is_root;
}

static bool is_hot_mlir(const hs_doc *d, const hs_instr *in) {
  hs_slice op = hs_opcode(d, in);
  return hs_slice_is(d, op, "stablehlo.dot_general") || hs_slice_is(d, op, "stablehlo.dot") ||
         hs_slice_is(d, op, "stablehlo.convolution") || hs_slice_is(d, op, "stablehlo.custom_call") ||
         hs_slice_is(d, op, "custom_call");
}

/* func.return / stablehlo.return (and "return" in generic form): bookkeeping */
static bool is_return_mlir(const hs_doc *d, const hs_instr *in) {
  hs_slice op = hs_opcode(d, in);
  return hs_slice_is(d, op, "return") || hs_slice_is(d, op, "func.return") || hs_slice_is(d, op, "stablehlo.return");
}

static bool is_dim_hlo(const hs_doc *d, const hs_instr *in) {
  hs_slice op = hs_opcode(d, in);
  return hs_slice_is(d, op, "parameter") || hs_slice_is(d, op, "constant") ||
         hs_slice_is(d, op, "get-tuple-element") || hs_slice_is(d, op, "tuple") ||
         hs_slice_is(d, op, "bitcast") || hs_slice_is(d, op, "after-all");
}

typedef struct {
  char *b;
  size_t cap, n;
} sbuf;

static void say(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(sbuf *s, const char *fmt, ...) {
  if (s->n + 1 >= s->cap) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
  va_end(ap);
  if (k > 0) s->n += (size_t)k < s->cap - s->n ? (size_t)k : s->cap - s->n - 1;
}

#define SL(d, s) (int)(s).len, hs_sp(d, s)

/* Remat marks in op_name ("jit(f)/checkpoint/...", "remat2", "rematted_computation"): one
 * pattern, compiled once per x-ray, with its match data reused for every line. */
typedef struct {
  pcre2_code *re;
  pcre2_match_data *md;
} remat_matcher;

static void remat_open(remat_matcher *m) {
  static const char pat[] = "(?:^|[/(])(remat2?|checkpoint|rematted_computation)(?:[/()]|$)";
  int code;
  PCRE2_SIZE at;
  m->re = pcre2_compile((PCRE2_SPTR)pat, sizeof pat - 1, 0, &code, &at, NULL);
  m->md = m->re ? pcre2_match_data_create_from_pattern(m->re, NULL) : NULL;
}

static void remat_close(remat_matcher *m) {
  pcre2_match_data_free(m->md);
  pcre2_code_free(m->re);
}

/* The mark's text, or NULL. */
static bool remat_mark(remat_matcher *m, const hs_doc *d, const hs_instr *in, hs_slice *mark) {
  hs_slice op_name = hs_hlo_of(d, in).op_name;
  if (!m->md || !op_name.len) return false;
  int rc = pcre2_match(m->re, (PCRE2_SPTR)(hs_sp(d, op_name)), op_name.len, 0, 0, m->md, NULL);
  if (rc < 2) return false;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
  *mark = hs_sl(op_name.off + (uint32_t)ov[2], (uint32_t)(ov[3] - ov[2]));
  return true;
}

/* What the x-ray knows of a document beyond one line: its async pairs, the workspaces nobody reads. */
typedef struct {
  hs_async_pair *pairs;
  uint32_t n_pairs;
  int32_t *unread;  /* per instruction: the tuple element nobody reads that is its workspace, or -1 */
  uint32_t *pair_at; /* per instruction: 1 + the pair it starts or ends, or 0 (NULL: no pairs) */
  uint32_t *over;    /* per instruction: 1 + the first pair in flight while this kernel runs, or 0 */
  uint32_t *async_of; /* per computation: 1 + the pair whose async-start runs it, or 0 */
} xctx;

static const hs_async_pair *pair_of(const xctx *x, uint32_t i) {
  return x && x->pair_at && x->pair_at[i] ? &x->pairs[x->pair_at[i] - 1] : NULL;
}

static void say_overlap(const hs_doc *d, const xctx *x, uint32_t i, sbuf *s) {
  char ov[400];
  const hs_async_pair *p = pair_of(x, i);
  if (p && hs_overlap_sentence(d, p, ov, sizeof ov)) say(s, "; %s", ov);
}

/* The maps of x over its pairs: linear in the instructions (each kernel gets the first window
 * that holds it). */
static void xctx_index(const hs_doc *d, xctx *x) {
  if (!x->n_pairs) return;
  x->pair_at = calloc(d->n_instrs, sizeof *x->pair_at);
  x->over = calloc(d->n_instrs, sizeof *x->over);
  x->async_of = calloc(d->n_comps ? d->n_comps : 1, sizeof *x->async_of);
  if (!x->pair_at || !x->over || !x->async_of) {
    free(x->pair_at), free(x->over), free(x->async_of);
    x->pair_at = x->over = x->async_of = NULL;
    return;
  }
  int32_t reach = -1; /* windows in start order: each instruction is marked once */
  for (uint32_t k = 0; k < x->n_pairs; k++) {
    const hs_async_pair *p = &x->pairs[k];
    x->pair_at[p->start] = k + 1;
    if (p->done >= 0) x->pair_at[p->done] = k + 1;
    if (p->calls >= 0 && !x->async_of[p->calls]) x->async_of[p->calls] = k + 1;
    if (!p->scheduled || p->sync || p->done < 0) continue;
    uint32_t comp = d->instrs[p->start].comp;
    for (int32_t j = (p->start + 1 > reach + 1 ? p->start + 1 : reach + 1); j < p->done; j++)
      if (d->instrs[j].comp == comp && !x->over[j]) x->over[j] = k + 1;
    if (p->done - 1 > reach) reach = p->done - 1;
  }
}

static void note_hlo_instr(const hs_doc *d, const hs_instr *in, bool carries, const char *bigty, remat_matcher *rm,
                           const xctx *x, sbuf *s) {
  uint32_t ix = (uint32_t)(in - d->instrs);
  const hs_async_pair *pr = pair_of(x, ix);
  char ty[160];
  hs_type_format(in->type, ty, sizeof ty);
  int ms = hs_type_mem_space(in->type);
  const hs_comp *c = in->comp < d->n_comps ? &d->comps[in->comp] : NULL;
  const hs_hlo_instr hv = hs_hlo_of(d, in), *h = &hv;
  bool inner = c && c->inner;
  const hs_slice op = hs_opcode(d, in);
  if (hs_slice_is(d, op, "fusion")) {
    int32_t body = -1;
    for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++)
      if (d->calls[k0 + k].attr == HS_CALL_CALLS) body = d->calls[k0 + k].target;
    uint32_t nops = 0;
    if (body >= 0) {
      const hs_comp *b = &d->comps[body];
      for (uint32_t k = b->first; k < b->first + b->count; k++)
        if (!hs_slice_is(d, hs_opcode(d, &d->instrs[k]), "parameter") && !hs_slice_is(d, hs_opcode(d, &d->instrs[k]), "constant")) nops++;
    }
    say(s, "Fusion %.*s (%.*s) runs %u op%s", SL(d, in->name), h->kind.len ? (int)h->kind.len : 7,
        h->kind.len ? hs_sp(d, h->kind) : "no kind", nops, nops == 1 ? "" : "s");
    if (body >= 0) say(s, " of %.*s", SL(d, d->comps[body].name));
    say(s, " as one kernel");
    if (inner) say(s, " nested inside another fusion's body, so its result %s never leaves that kernel", ty);
    else say(s, " and writes %s to %s", ty, hs_mem_space_words(ms));
  } else if (hs_slice_is(d, op, "parameter")) {
    say(s, "Parameter %.*s of %.*s: %s", SL(d, in->name), c ? (int)c->name.len : 0, c ? hs_sp(d, c->name) : "", ty);
    if (in->type && in->type->mem_space > 0) say(s, ", in %s", hs_mem_space_words(ms));
  } else if (hs_slice_is(d, op, "custom-call")) {
    if (h->custom_call_target.len)
      say(s, "Custom call to %.*s: a kernel XLA dispatched itself (no line of the program names it); it returns %s",
          SL(d, h->custom_call_target), ty);
    else
      say(s, "Custom call: a kernel XLA dispatched itself; it returns %s", ty);
    int32_t w = x && x->unread ? x->unread[ix] : -1;
    if (w >= 0) {
      char wt[120];
      hs_type_format(in->type->elems[w], wt, sizeof wt);
      say(s, "; element %d, %s, is its workspace (scratch): no instruction reads it, so it is no intermediate and no "
             "HBM traffic", w, wt);
    }
  } else if (pr && !hs_slice_is(d, op, "copy-start") && !hs_slice_is(d, op, "copy-done")) {
    if (pr->start == (int32_t)ix) {
      say(s, "%.*s begins the %s", SL(d, op), pr->kind);
      if (pr->done >= 0) say(s, " (%llu bytes), one transfer with %.*s", (unsigned long long)pr->bytes, SL(d, d->instrs[pr->done].name));
      if (pr->calls >= 0) say(s, ", running %.*s", SL(d, d->comps[pr->calls].name));
    } else {
      say(s, "%.*s waits for the %s that %.*s began: %s is ready here", SL(d, op), pr->kind,
          SL(d, d->instrs[pr->start].name), ty);
    }
    say_overlap(d, x, ix, s);
  } else if (hs_slice_is(d, op, "copy-start")) {
    const hs_type *dst = in->type && in->type->kind == HS_T_TUPLE && in->type->n ? in->type->elems[0] : in->type;
    say(s, "copy-start begins an asynchronous copy into %s; compute overlaps it until the matching copy-done",
        hs_mem_space_words(hs_type_mem_space(dst)));
    say_overlap(d, x, ix, s);
  } else if (hs_slice_is(d, op, "copy-done")) {
    say(s, "copy-done waits for the asynchronous copy: %s is now in %s", ty, hs_mem_space_words(ms));
    say_overlap(d, x, ix, s);
  } else if (hs_slice_is(d, op, "constant")) {
    say(s, "A constant %s baked into the program", ty);
  } else {
    const char *w = op_words(hs_sp(d, op), op.len);
    if (w) say(s, "%.*s: %s giving %s", SL(d, op), w, ty);
    else say(s, "%.*s giving %s", SL(d, op), ty);
    if (inner) say(s, ", computed inside the kernel");
    else if (c && c->role == HS_ROLE_ASYNC && !hs_instr_is_alias(d, in))
      say(s, ", what the async transfer runs: one transfer with its start and done, not a kernel of its own");
    else if (!hs_instr_is_alias(d, in)) say(s, ", a kernel of its own writing to %s", hs_mem_space_words(ms));
  }
  /* a kernel a transfer overlaps */
  if (x && x->over && x->over[ix] && !inner && hs_instr_launches_work(d, in)) {
    const hs_async_pair *p = &x->pairs[x->over[ix] - 1];
    say(s, "; the %s (%.*s) is in flight while it runs", p->kind, SL(d, d->instrs[p->start].name));
  }
  if (in->is_root) say(s, "; ROOT: this is %.*s's result", c ? (int)c->name.len : 0, c ? hs_sp(d, c->name) : "");
  hs_slice mark;
  if (remat_mark(rm, d, in, &mark))
    say(s, "; recomputed rather than stored: its op_name carries the remat mark \"%.*s\" (jax.checkpoint)", SL(d, mark));
  if (carries) say(s, "; it carries %s, the big intermediate", bigty);
  say(s, ".");
}

static void note_hlo_line(const hs_doc *d, uint32_t li, bool carries, const char *bigty, remat_matcher *rm, const xctx *x,
                          sbuf *s) {
  const hs_line *l = &d->lines[li];
  switch (l->kind) {
    case HS_LINE_BLANK: say(s, "Blank line."); return;
    case HS_LINE_COMMENT: say(s, "A comment."); return;
    case HS_LINE_MODULE: {
      const hs_module *m = &d->modules[l->ref];
      say(s, "HloModule %.*s: the optimized module XLA compiled; the header also gives the entry layout and flags.",
          SL(d, m->name));
      return;
    }
    case HS_LINE_TABLE:
      say(s, "Stack-frame table: maps stack_frame_id= in metadata to files, functions and lines of the source.");
      return;
    case HS_LINE_CLOSE: say(s, "End of %.*s.", SL(d, d->comps[l->ref].name)); return;
    case HS_LINE_CONT: say(s, "Continuation of %.*s on the line above.", SL(d, d->instrs[l->ref].name)); return;
    case HS_LINE_COMP: {
      const hs_comp *c = &d->comps[l->ref];
      if (c->role == HS_ROLE_ENTRY)
        say(s, "ENTRY %.*s: the program XLA runs; its parameters are the jitted function's arguments", SL(d, c->name));
      else if (c->role == HS_ROLE_FUSED && c->fused_by >= 0)
        say(s, "%.*s: the body of fusion %.*s; everything inside runs as one kernel and its intermediates never touch memory",
            SL(d, c->name), SL(d, d->instrs[c->fused_by].name));
      else if (c->role == HS_ROLE_ASYNC) {
        const hs_async_pair *p = x && x->async_of && x->async_of[l->ref] ? &x->pairs[x->async_of[l->ref] - 1] : NULL;
        say(s, "%.*s: an async computation: what ", SL(d, c->name));
        if (p) say(s, "%.*s", SL(d, d->instrs[p->start].name));
        else say(s, "an async-start");
        say(s, " runs as one transfer, in flight until its done (not control flow)");
      } else if (c->inner)
        say(s, "%.*s: a small computation applied inside a kernel (a reduction's combiner)", SL(d, c->name));
      else
        say(s, "%.*s: a computation called by control flow (a loop body, a branch or a call)", SL(d, c->name));
      if (carries) say(s, "; it returns %s, the big intermediate", bigty);
      say(s, ".");
      return;
    }
    case HS_LINE_INSTR: note_hlo_instr(d, &d->instrs[l->ref], carries, bigty, rm, x, s); return;
    default: say(s, "A line hloscope does not read (skipped; see the warnings)."); return;
  }
}

static void note_mlir_line(const hs_doc *d, uint32_t li, bool carries, const char *bigty, sbuf *s) {
  const hs_line *l = &d->lines[li];
  switch (l->kind) {
    case HS_LINE_BLANK: say(s, "Blank line."); return;
    case HS_LINE_COMMENT: say(s, "A comment."); return;
    case HS_LINE_MODULE: say(s, "The module JAX lowered: what XLA receives before any optimization."); return;
    case HS_LINE_TABLE: say(s, "Location table: source positions that loc(#locN) references point to."); return;
    case HS_LINE_CLOSE: say(s, "End of a function or of the module."); return;
    case HS_LINE_REGION: say(s, "Region structure: a nested block of the op above (a loop, a reducer, a branch)."); return;
    case HS_LINE_CONT: say(s, "Continuation of the %.*s op above (one op over several lines).", SL(d, hs_opcode(d, &d->instrs[l->ref]))); return;
    case HS_LINE_COMP: {
      const hs_comp *c = &d->comps[l->ref];
      say(s, "Function @%.*s: its arguments are the jitted function's inputs", SL(d, c->name));
      if (carries) say(s, "; it returns %s, the big intermediate", bigty);
      say(s, ".");
      return;
    }
    case HS_LINE_INSTR: {
      const hs_instr *in = &d->instrs[l->ref];
      char ty[160];
      hs_type_format(in->type, ty, sizeof ty);
      if (is_return_mlir(d, in)) {
        say(s, "Return: hands the result to the caller (bookkeeping).");
        return;
      }
      const hs_slice op = hs_opcode(d, in);
      const char *w = op_words(hs_sp(d, op), op.len);
      if (hs_slice_is(d, op, "stablehlo.constant")) say(s, "A constant %s", ty);
      else if (w) say(s, "%.*s: %s giving %s", SL(d, op), w, ty);
      else if (in->type) say(s, "%.*s giving %s", SL(d, op), ty);
      else say(s, "%.*s", SL(d, op));
      if (is_hot_mlir(d, in)) say(s, "; XLA picks a kernel for it and may fuse its neighbours into that kernel");
      else if (w && strncmp(w, "elementwise", 11) == 0) say(s, "; XLA fuses elementwise ops into a neighbouring kernel");
      if (carries) say(s, "; it carries %s, the big intermediate", bigty);
      say(s, ".");
      return;
    }
    default: say(s, "Text hloscope does not read."); return;
  }
}

static const char *class_name(int k) {
  static const char *const n[] = {"fusion", "carry", "hot", "dim", "plain"};
  return n[k];
}
enum { C_FUSION, C_CARRY, C_HOT, C_DIM, C_PLAIN };

/* marks: the lines that carry the big intermediate and count (hs_big_carriers), or NULL. */
static json_t *side_json(const hs_doc *d, const hs_type *big, const char *bigty, const uint8_t *marks) {
  json_t *arr = json_array();
  char buf[768];
  remat_matcher rm = {0};
  if (d->format == HS_FORMAT_HLO) remat_open(&rm);
  xctx x = {0};
  if (d->format == HS_FORMAT_HLO) {
    x.pairs = hs_async_pairs(d, &x.n_pairs);
    xctx_index(d, &x);
    json_t *un = hs_unread_json(d);
    x.unread = json_array_size(un) ? malloc(d->n_instrs * sizeof *x.unread) : NULL;
    if (x.unread) {
      for (uint32_t i = 0; i < d->n_instrs; i++) x.unread[i] = -1;
      size_t k;
      json_t *u;
      json_array_foreach(un, k, u) {
        json_int_t line = json_integer_value(json_object_get(u, "line"));
        if (!json_is_true(json_object_get(u, "workspace")) || line < 1 || (uint32_t)line > d->n_lines) continue;
        const hs_line *ul = &d->lines[line - 1];
        if (ul->kind == HS_LINE_INSTR) x.unread[ul->ref] = (int32_t)json_integer_value(json_object_get(u, "index"));
      }
    }
    json_decref(un);
  }
  for (uint32_t li = 0; li < d->n_lines; li++) {
    const hs_line *l = &d->lines[li];
    int ms = -1;
    bool carries = big && hs_line_carries(d, li, big, &ms);
    int cls = C_PLAIN;
    const hs_instr *in = l->kind == HS_LINE_INSTR ? &d->instrs[l->ref] : NULL;
    if (in && d->format == HS_FORMAT_HLO && hs_slice_is(d, hs_opcode(d, in), "fusion")) cls = C_FUSION;
    else if (carries) cls = C_CARRY;
    else if (in && (d->format == HS_FORMAT_HLO ? is_hot_hlo(d, in) : is_hot_mlir(d, in))) cls = C_HOT;
    else if (!in) cls = l->kind == HS_LINE_OTHER ? C_PLAIN : C_DIM;
    else if (d->format == HS_FORMAT_HLO ? is_dim_hlo(d, in) : is_return_mlir(d, in))
      cls = C_DIM;
    sbuf s = {buf, sizeof buf, 0};
    buf[0] = 0;
    if (d->format == HS_FORMAT_HLO) note_hlo_line(d, li, carries, bigty, &rm, &x, &s);
    else note_mlir_line(d, li, carries, bigty, &s);
    json_t *o = json_object();
    json_object_set_new(o, "line", json_integer(li + 1));
    json_object_set_new(o, "class", json_string(class_name(cls)));
    json_object_set_new(o, "carries", json_boolean(carries));
    json_object_set_new(o, "carrier", json_boolean(marks && marks[li]));
    json_t *msj = json_null();
    if (d->format == HS_FORMAT_HLO) {
      if (carries) msj = json_integer(ms);
      else if (in && in->type) msj = json_integer(hs_type_mem_space(in->type));
    }
    json_object_set_new(o, "memory_space", msj);
    json_object_set_new(o, "note", hs_json_bytes(buf, s.n));
    json_array_append_new(arr, o);
  }
  remat_close(&rm);
  free(x.pairs);
  free(x.unread);
  free(x.pair_at);
  free(x.over);
  free(x.async_of);
  return arr;
}

/* null without async pairs; else the overlap sentence (hs_overlap_explain): "3 async transfers,
 * each start paired with its done: the all-gather is in flight while X runs". */
static json_t *overlap_summary(const hs_doc *d) {
  uint32_t n = 0;
  hs_async_pair *ps = hs_async_pairs(d, &n);
  if (!n) {
    free(ps);
    return json_null();
  }
  char buf[600];
  hs_overlap_explain(d, ps, n, buf, sizeof buf);
  free(ps);
  return hs_json_bytes(buf, strlen(buf));
}

/* Where a side opens: the line of its first computation when frame tables (FileNames,
 * FunctionNames, StackFrames: about 40 lines at the top of a new jax dump) or other tables come
 * before it; else 1. null for a missing side. */
static json_t *open_at(const hs_doc *d) {
  if (!d) return json_null();
  bool tables = false;
  for (uint32_t li = 0; li < d->n_lines; li++) {
    int k = d->lines[li].kind;
    if (k == HS_LINE_TABLE) tables = true;
    else if (k == HS_LINE_COMP) return json_integer(tables ? li + 1 : 1);
    else if (k != HS_LINE_MODULE && k != HS_LINE_BLANK && k != HS_LINE_COMMENT) break;
  }
  return json_integer(1);
}

char *hs_xray_json(const hs_doc *left, const hs_doc *right, size_t *len) {
  if (!right) return NULL;
  hs_spill_info si;
  hs_spill_analyse(right, &si);
  hs_census c;
  hs_fusion_census(right, &c);
  char bigty[160] = "";
  if (si.big >= 0) hs_type_format(si.big_type, bigty, sizeof bigty);
  uint8_t *marks = calloc(right->n_lines ? right->n_lines : 1, 1);
  uint32_t carry = hs_big_carriers(right, &si, marks);
  json_t *rj = side_json(right, si.big >= 0 ? si.big_type : NULL, bigty, marks);
  free(marks);
  json_t *lj = left ? side_json(left, si.big >= 0 ? si.big_type : NULL, bigty, NULL) : json_array();
  json_t *o = json_object();
  json_t *sum = json_object();
  json_object_set_new(sum, "lines_in", json_integer(left ? left->n_lines : 0));
  json_object_set_new(sum, "lines_out", json_integer(right->n_lines));
  json_object_set_new(sum, "fusion_ops", json_integer((json_int_t)c.fusion_ops));
  json_object_set_new(sum, "carry", json_integer(carry));
  const char *stage = hs_stage_name(hs_doc_stage(right));
  json_object_set_new(sum, "stage", stage ? json_string(stage) : json_null());
  json_t *partial = json_object();
  json_object_set_new(partial, "left", left ? hs_partial_json(left) : json_null());
  json_object_set_new(partial, "right", hs_partial_json(right));
  json_object_set_new(sum, "partial", partial);
  json_t *at = json_object();
  json_object_set_new(at, "left", open_at(left));
  json_object_set_new(at, "right", open_at(right));
  json_object_set_new(sum, "open_at", at);
  /* each side's entry signature in HLO form: what says whether the two are one program */
  json_t *sig = json_object(), *ls = json_object(), *rs = json_object();
  hs_doc_signature_json(left, ls);
  hs_doc_signature_json(right, rs);
  json_object_set_new(sig, "left", ls);
  json_object_set_new(sig, "right", rs);
  json_object_set_new(sum, "signature", sig);
  if (si.big >= 0) {
    json_t *b = json_object();
    json_object_set_new(b, "type", json_string(bigty));
    json_object_set_new(b, "bytes", json_integer((json_int_t)hs_type_bytes(si.big_type)));
    json_object_set_new(b, "memory_space", json_integer(hs_type_mem_space(si.big_type)));
    json_object_set_new(sum, "big", b);
  } else {
    json_object_set_new(sum, "big", json_null());
  }
  /* "21 lines in -> 31 lines decided"; without a left side only the decided lines */
  char stat[400], head[80];
  if (left) snprintf(head, sizeof head, "%u lines in -> %u lines decided", left->n_lines, right->n_lines);
  else snprintf(head, sizeof head, "%u lines decided", right->n_lines);
  if (si.big >= 0)
    snprintf(stat, sizeof stat, "%s \xC2\xB7 %zu fusion ops \xC2\xB7 %u carry %s", head, c.fusion_ops, carry, bigty);
  else if (si.kept >= 0) {
    char kt[160];
    hs_type_format(si.kept_type, kt, sizeof kt);
    snprintf(stat, sizeof stat,
             "%s \xC2\xB7 %zu fusion ops \xC2\xB7 nothing crosses a kernel boundary (largest kept in a kernel: %s)",
             head, c.fusion_ops, kt);
  } else
    snprintf(stat, sizeof stat, "%s \xC2\xB7 %zu fusion ops", head, c.fusion_ops);
  json_object_set_new(sum, "stat", json_string(stat));
  char ex[600];
  hs_spills_explain(right, &si, ex, sizeof ex);
  json_object_set_new(sum, "explanation", hs_json_bytes(ex, strlen(ex)));
  json_object_set_new(sum, "overlap", overlap_summary(right));
  json_object_set_new(o, "summary", sum);
  json_object_set_new(o, "pair", hs_pair_json(left, right));
  json_object_set_new(o, "left", lj);
  json_object_set_new(o, "right", rj);
  return hs_json_finish(o, len);
}
