/* A reader of the textual LLVM IR that XLA writes (CPU: *.ir-no-opt.ll / *.ir-with-opt.ll,
 * GPU: *.ll next to the PTX). Not an LLVM parser: it reads what the lesson on "the one-level
 * world" needs, line by line, in one pass:
 *   - functions (defined: kernels and their helpers; declared: runtime functions, intrinsics),
 *     their parameters and the facts on them (noalias, align, dereferenceable);
 *   - basic blocks and their successors, from which loops are found the way LLVM's LoopInfo
 *     finds them (back edges to a dominating header, natural loops, nesting depth), with the
 *     trip count where the exit test compares an induction variable (a phi, or an alloca'd
 *     counter in unoptimized IR) with a constant;
 *   - loads and stores with their value types, vector types, every other opcode, calls.
 * Why its own model and not an hs_doc: an hs_doc holds computations of tensor-typed
 * instructions with operands resolved by name, which every analysis over it (summary, census,
 * spills, x-ray) reads as HLO. An LLVM function has blocks, loops and untyped pointers instead,
 * and none of those analyses would mean anything over it. So the registry entry for LLVM IR has
 * a detector and no document parser, and `hloscope llvm` / readLlvm() read it.
 *
 * The model borrows the text, like a document: the text must outlive it.
 *
 * This file reads the text (the model: llvm_model.h); llvm_loops.c finds the loops; llvm_json.c
 * writes the JSON and joins the kernels to the HLO. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "llvm/llvm.h"

void hs_ll_warn(hs_llvm *m, int code, uint32_t line, const char *fmt, ...) {
  char buf[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  hs_diag_warn(&m->diag, &m->arena, code, line, 1, "%s", buf);
}

/* ---- detection ------------------------------------------------------------------------ */
/* 100 for "; ModuleID", "source_filename", "target datalayout/triple", "define", "declare" at
 * the first meaningful byte; 0 otherwise. */
int hs_detect_llvm(const char *t, size_t len, size_t first) {
  size_t p = first;
  /* ';' comment lines ("; ModuleID = ...", "; Function Attrs: ...") and blank lines first */
  for (int k = 0; k < 64 && p < len && (t[p] == ';' || t[p] == '\n' || t[p] == ' ' || t[p] == '\r' || t[p] == '\t'); k++) {
    if (hs_starts(t, len, p, "; ModuleID = ")) return 100;
    if (t[p] == ';')
      while (p < len && t[p] != '\n') p++;
    while (p < len && (t[p] == '\n' || t[p] == ' ' || t[p] == '\r' || t[p] == '\t')) p++;
  }
  static const char *const heads[] = {"source_filename = ", "target datalayout = ", "target triple = ",
                                      "define ", "declare "};
  for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
    if (hs_starts(t, len, p, heads[i])) return 100;
  /* "%T = type {" or "@g = " globals, then a define further down */
  if (p < len && (t[p] == '%' || t[p] == '@')) {
    const char *d = NULL;
    size_t lim = len < p + 65536 ? len : p + 65536;
    for (size_t q = p; q + 8 < lim; q++)
      if (t[q] == '\n' && (hs_starts(t, lim, q + 1, "define ") || hs_starts(t, lim, q + 1, "declare "))) {
        d = t + q;
        break;
      }
    if (d) return 60;
  }
  return 0;
}

/* ---- parsing ---------------------------------------------------------------------------- */
static void parse_params(hs_llvm *m, ll_func *f, size_t p, size_t end) {
  const char *t = m->text;
  f->param_first = m->n_params;
  p = hs_skip_sp(t, end, p);
  if (p < end && t[p] == ')') return;
  while (p < end) {
    size_t s = hs_skip_sp(t, end, p);
    int depth = 0;
    size_t q = s;
    for (; q < end; q++) {
      char c = t[q];
      if (c == '"') {
        q = hs_skip_string(t, end, q) - 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{' || c == '<') depth++;
      else if (c == ')' || c == ']' || c == '}' || c == '>') {
        if (depth == 0) break;
        depth--;
      } else if (c == ',' && depth == 0) break;
    }
    if (q > s && !hs_starts(t, q, s, "...")) {
      bool ok;
      ll_param *pa = HS_VEC_PUSH(m->params, m->n_params, m->cap_params, ok);
      if (!ok) return;
      memset(pa, 0, sizeof *pa);
      pa->attrs = hs_sl((uint32_t)s, (uint32_t)(q - s));
      size_t te = scan_type(t, q, s);
      pa->type = hs_sl((uint32_t)s, (uint32_t)(te - s));
      pa->align = pa->deref = -1;
      for (size_t k = te; k < q; k++) {
        if (t[k] == '%') {
          size_t a;
          pa->name = scan_name(t, q, k + 1, &a);
          k = a;
          continue;
        }
        if (k > te && is_ident(t[k - 1])) continue;
        if (word_at(t, q, k, "noalias")) pa->noalias = 1;
        else if (word_at(t, q, k, "nocapture") || hs_starts(t, q, k, "captures(none)")) pa->nocapture = 1;
        else if (word_at(t, q, k, "readonly")) pa->readonly = 1;
        else if (word_at(t, q, k, "nonnull")) pa->nonnull = 1;
        else if (hs_starts(t, q, k, "align ")) pa->align = parse_int(t, q, k + 6, &ok);
        else if (hs_starts(t, q, k, "dereferenceable(")) pa->deref = parse_int(t, q, k + 16, &ok);
      }
      f->n_params++;
    }
    if (q >= end || t[q] == ')') break;
    p = q + 1;
  }
}

static const struct {
  const char *name;
  uint8_t kind;
} KINDS[] = {{"load", LL_I_LOAD}, {"store", LL_I_STORE}, {"call", LL_I_CALL}, {"br", LL_I_BR},
             {"switch", LL_I_SWITCH}, {"phi", LL_I_PHI}, {"icmp", LL_I_ICMP}, {"add", LL_I_ADD},
             {"sub", LL_I_SUB}, {"alloca", LL_I_ALLOCA}, {"getelementptr", LL_I_GEP}, {"ret", LL_I_RET}};

static bool add_succ(hs_llvm *m, ll_block *b, const char *t, size_t p, size_t end) {
  /* every "label %x" in [p, end) */
  for (size_t k = p; k + 7 < end; k++) {
    if (!hs_starts(t, end, k, "label %")) continue;
    size_t a;
    hs_slice n = scan_name(t, end, k + 7, &a);
    bool ok;
    hs_slice *s = HS_VEC_PUSH(m->succ, m->n_succ, m->cap_succ, ok);
    if (!ok) return false;
    *s = n;
    b->n_succ++;
    k = a - 1;
  }
  return true;
}

static bool is_label_line(const char *t, size_t p, size_t e, hs_slice *name) {
  if (p >= e || t[p] == ' ' || t[p] == '\t' || t[p] == ';' || t[p] == '}') return false;
  size_t a;
  if (t[p] == '"') {
    a = hs_skip_string(t, e, p);
    if (a < e && t[a] == ':') {
      *name = hs_sl((uint32_t)p + 1, (uint32_t)(a - p - 2));
      return true;
    }
    return false;
  }
  a = p;
  while (a < e && is_ident(t[a])) a++;
  if (a > p && a < e && t[a] == ':') {
    *name = hs_sl((uint32_t)p, (uint32_t)(a - p));
    return true;
  }
  return false;
}

static bool new_block(hs_llvm *m, ll_func *f, hs_slice name, uint32_t line) {
  bool ok;
  ll_block *b = HS_VEC_PUSH(m->blocks, m->n_blocks, m->cap_blocks, ok);
  if (!ok) return false;
  memset(b, 0, sizeof *b);
  b->name = name;
  b->line = line;
  b->first = m->n_instrs;
  b->succ_first = m->n_succ;
  f->n_blocks++;
  return true;
}

static bool digits(const hs_llvm *m, hs_slice s) {
  if (!s.len) return false;
  for (uint32_t i = 0; i < s.len; i++)
    if (m->text[s.off + i] < '0' || m->text[s.off + i] > '9') return false;
  return true;
}

static int parse(hs_llvm *m, hs_error *err) {
  const char *t = m->text;
  size_t len = m->len, p = 0;
  uint32_t line = 0;
  ll_func *f = NULL; /* open function */
  bool in_switch = false;
  bool ok;
  while (p < len) {
    size_t e = p;
    while (e < len && t[e] != '\n') e++;
    line++;
    size_t ls = p;
    p = e < len ? e + 1 : e;
    size_t q = hs_skip_sp(t, e, ls);
    if (q >= e || t[q] == ';') continue;
    if (!f) {
      if (hs_starts(t, e, q, "; ModuleID = ")) continue;
      if (hs_starts(t, e, q, "target triple = \"")) {
        size_t a = hs_skip_string(t, e, q + 16);
        if (a > q + 17 && t[a - 1] == '"') m->triple = hs_sl((uint32_t)q + 17, (uint32_t)(a - q - 18));
        continue;
      }
      if (hs_starts(t, e, q, "source_filename = \"")) {
        size_t a = hs_skip_string(t, e, q + 18);
        if (a > q + 19 && t[a - 1] == '"') m->module_id = hs_sl((uint32_t)q + 19, (uint32_t)(a - q - 20));
        continue;
      }
      bool def = hs_starts(t, e, q, "define ");
      if (def || hs_starts(t, e, q, "declare ")) {
        size_t at = q;
        /* the function name: the first '@' outside quotes and parentheses */
        int depth = 0;
        for (; at < e; at++) {
          if (t[at] == '"') at = hs_skip_string(t, e, at) - 1;
          else if (t[at] == '(') depth++;
          else if (t[at] == ')') depth--;
          else if (t[at] == '@' && depth == 0) break;
        }
        if (at >= e) {
          hs_ll_warn(m, HS_W_SKIPPED_LINE, line, "line %u: a %s without a function name", line, def ? "define" : "declare");
          continue;
        }
        ll_func *nf = HS_VEC_PUSH(m->funcs, m->n_funcs, m->cap_funcs, ok);
        if (!ok) return HS_E_NOMEM;
        memset(nf, 0, sizeof *nf);
        size_t a;
        nf->name = scan_name(t, e, at + 1, &a);
        nf->line = line;
        nf->defined = def;
        if (def) {
          m->n_defines++;
          for (size_t k = q; k < e; k++)
            if (word_at(t, e, k, "local_unnamed_addr")) {
              m->n_unnamed_defines++;
              break;
            }
        }
        for (size_t k = q; k < at; k++)
          if (word_at(t, at, k, "internal") || word_at(t, at, k, "private")) nf->local = 1;
        nf->block_first = m->n_blocks;
        nf->loop_first = m->n_loops;
        if (a < e && t[a] == '(') parse_params(m, nf, a + 1, e);
        else nf->param_first = m->n_params;
        for (uint32_t i = 0; i < nf->n_params; i++) {
          hs_slice n = m->params[nf->param_first + i].name;
          if (digits(m, n)) nf->numbered++;
          else if (n.len) nf->named++;
        }
        if (def) {
          f = nf;
          /* a define whose '{' is missing: the body follows anyway */
        } else {
          nf->end_line = line;
        }
        continue;
      }
      continue; /* types, globals, attributes, metadata */
    }
    /* inside a function */
    if (t[q] == '}' && q == ls) {
      f->end_line = line;
      hs_ll_finish_function(m, f);
      f = NULL;
      in_switch = false;
      continue;
    }
    hs_slice lab;
    if (is_label_line(t, ls, e, &lab)) {
      if (!new_block(m, f, lab, line)) return HS_E_NOMEM;
      if (digits(m, lab)) f->numbered++;
      else f->named++;
      continue;
    }
    if (in_switch) {
      if (!add_succ(m, &m->blocks[m->n_blocks - 1], t, q, e)) return HS_E_NOMEM;
      for (size_t k = q; k < e; k++)
        if (t[k] == ']') in_switch = false;
      continue;
    }
    if (f->n_blocks == 0) {
      /* the unnamed entry block takes the next number after the unnamed parameters */
      if (!new_block(m, f, hs_sl(0, 0), line)) return HS_E_NOMEM;
    }
    ll_block *b = &m->blocks[m->n_blocks - 1];
    ll_instr *in = HS_VEC_PUSH(m->instrs, m->n_instrs, m->cap_instrs, ok);
    if (!ok) return HS_E_NOMEM;
    memset(in, 0, sizeof *in);
    in->line = line;
    in->block = m->n_blocks - 1;
    b->count++;
    size_t r = q;
    if (t[r] == '%') {
      size_t a;
      in->result = scan_name(t, e, r + 1, &a);
      if (digits(m, in->result)) f->numbered++;
      else f->named++;
      r = hs_skip_sp(t, e, a);
      if (r < e && t[r] == '=') r = hs_skip_sp(t, e, r + 1);
    }
    while (word_at(t, e, r, "tail") || word_at(t, e, r, "musttail") || word_at(t, e, r, "notail"))
      r = hs_skip_sp(t, e, r + (t[r] == 't' ? 4 : t[r] == 'm' ? 8 : 6));
    size_t os = r;
    while (r < e && (is_ident(t[r]))) r++;
    in->opcode = hs_sl((uint32_t)os, (uint32_t)(r - os));
    /* the rest, without a trailing comment */
    size_t re = e;
    for (size_t k = r; k < e; k++) {
      if (t[k] == '"') {
        k = hs_skip_string(t, e, k) - 1;
        continue;
      }
      if (t[k] == ';') {
        re = k;
        break;
      }
    }
    in->rest = hs_sl((uint32_t)r, (uint32_t)(re - r));
    for (size_t k = 0; k < sizeof KINDS / sizeof *KINDS; k++)
      if (in->opcode.len == strlen(KINDS[k].name) && memcmp(t + os, KINDS[k].name, in->opcode.len) == 0)
        in->kind = KINDS[k].kind;
    size_t v = hs_skip_sp(t, re, r);
    switch (in->kind) {
      case LL_I_LOAD:
      case LL_I_STORE:
        while (word_at(t, re, v, "atomic") || word_at(t, re, v, "volatile")) {
          while (v < re && t[v] != ' ') v++;
          v = hs_skip_sp(t, re, v);
        }
        in->vtype = hs_sl((uint32_t)v, (uint32_t)(scan_type(t, re, v) - v));
        break;
      case LL_I_CALL: {
        int depth = 0;
        for (size_t k = v; k < re; k++) {
          if (t[k] == '(') depth++;
          else if (t[k] == ')') depth--;
          else if (depth == 0 && (t[k] == '@' || t[k] == '%') && (k == 0 || t[k - 1] == ' ')) {
            size_t a;
            hs_slice n = scan_name(t, re, k + 1, &a);
            if (a < re && t[a] == '(') {
              in->vtype = t[k] == '@' ? n : hs_sl(0, 0);
              break;
            }
          }
        }
        break;
      }
      case LL_I_BR:
        if (!add_succ(m, b, t, r, re)) return HS_E_NOMEM;
        break;
      case LL_I_SWITCH:
        if (!add_succ(m, b, t, r, re)) return HS_E_NOMEM;
        in_switch = true;
        for (size_t k = r; k < re; k++)
          if (t[k] == ']') in_switch = false;
        break;
      default:
        if (hs_starts(t, re, os, "invoke") || hs_starts(t, re, os, "callbr") ||
            hs_starts(t, re, os, "indirectbr") || hs_starts(t, re, os, "catchswitch") ||
            hs_starts(t, re, os, "cleanupret") || hs_starts(t, re, os, "catchret")) {
          if (!add_succ(m, b, t, r, re)) return HS_E_NOMEM;
        }
        break;
    }
  }
  if (f) {
    hs_ll_warn(m, HS_W_TRUNCATED, line,
            "the text ends inside function @%.*s (begun at line %u): it is left out; the %u functions before it were read",
            (int)(f->name.len > 200 ? 200 : f->name.len), t + f->name.off, f->line, m->n_funcs - 1);
    /* drop the open function and what it added */
    m->n_params = f->param_first;
    m->n_blocks = f->block_first;
    m->n_loops = f->loop_first;
    m->n_funcs--;
  }
  (void)err; /* nothing in the grammar above is fatal: what cannot be read is skipped or warned */
  return 0;
}

/* ---- public ----------------------------------------------------------------------------- */
hs_llvm *hs_llvm_parse(const char *text, size_t len, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!text && len) {
    if (err) err->code = HS_E_ARG, snprintf(err->message, sizeof err->message, "no text");
    return NULL;
  }
  if (len > 0xFFFFFFF0u) {
    if (err) err->code = HS_E_TOO_LARGE, snprintf(err->message, sizeof err->message, "input too large (over 4 GiB)");
    return NULL;
  }
  size_t first = 0;
  while (first < len) {
    if (text[first] == ' ' || text[first] == '\t' || text[first] == '\r' || text[first] == '\n') first++;
    else if (text[first] == ';' && !hs_starts(text, len, first, "; ModuleID")) {
      while (first < len && text[first] != '\n') first++;
    } else break;
  }
  if (first >= len) {
    if (err) err->code = HS_E_EMPTY, err->line = 1, err->col = 1,
             snprintf(err->message, sizeof err->message, "empty input: no LLVM IR");
    return NULL;
  }
  if (!hs_detect_llvm(text, len, first)) {
    if (err) {
      err->code = HS_E_FORMAT;
      err->offset = first;
      hs_line_col(text, len, first, &err->line, &err->col);
      size_t e = first;
      while (e < len && text[e] != '\n' && e - first < 40) e++;
      char head[48];
      size_t n = 0;
      for (size_t i = first; i < e && n + 1 < sizeof head; i++)
        head[n++] = (text[i] >= 32 && text[i] < 127) ? text[i] : '?';
      head[n] = 0;
      hs_format f = hs_doc_detect(text, len, NULL);
      snprintf(err->message, sizeof err->message,
               "not LLVM IR: line %u begins \"%s\"%s%s%s (LLVM IR begins with \"; ModuleID\", \"target\", \"define\" or \"declare\")",
               err->line, head, f != HS_FORMAT_UNKNOWN ? "; it reads as " : "",
               f != HS_FORMAT_UNKNOWN ? hs_format_name(f) : "", f != HS_FORMAT_UNKNOWN ? "" : "");
    }
    return NULL;
  }
  hs_llvm *m = calloc(1, sizeof *m);
  if (!m) {
    if (err) err->code = HS_E_NOMEM;
    return NULL;
  }
  m->text = text;
  m->len = len;
  m->diag.per_code = HS_DIAG_NO_LIMIT;
  m->diag.total = 40;
  int rc = parse(m, err);
  if (rc) {
    if (err) err->code = rc, snprintf(err->message, sizeof err->message, "%s", hs_code_message(rc));
    hs_llvm_free(m);
    return NULL;
  }
  return m;
}

void hs_llvm_free(hs_llvm *m) {
  if (!m) return;
  free(m->funcs);
  free(m->params);
  free(m->blocks);
  free(m->instrs);
  free(m->succ);
  free(m->succ_ix);
  free(m->loops);
  hs_diag_free(&m->diag);
  hs_arena_free(&m->arena);
  free(m);
}

size_t hs_llvm_function_count(const hs_llvm *m) {
  size_t n = 0;
  for (uint32_t i = 0; m && i < m->n_funcs; i++) n += m->funcs[i].defined;
  return n;
}
