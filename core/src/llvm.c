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
 * The model borrows the text, like a document: the text must outlive it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonout.h"

typedef struct {
  hs_slice name;   /* without '%' (numbered blocks: the digits) */
  uint32_t line;
  uint32_t first, count;     /* instructions */
  uint32_t succ_first, n_succ; /* in m->succ (names), resolved into m->succ_ix */
} ll_block;

enum { LL_I_OTHER = 0, LL_I_LOAD, LL_I_STORE, LL_I_CALL, LL_I_BR, LL_I_SWITCH, LL_I_PHI, LL_I_ICMP,
       LL_I_ADD, LL_I_SUB, LL_I_ALLOCA, LL_I_GEP, LL_I_RET };

typedef struct {
  hs_slice result;  /* without '%', len 0 when none */
  hs_slice opcode;
  hs_slice rest;    /* from after the opcode to the end of the line (comments kept out) */
  hs_slice vtype;   /* loads/stores: the value type; calls: the callee name */
  uint32_t line;
  uint32_t block;
  uint8_t kind;     /* LL_I_* */
} ll_instr;

typedef struct {
  hs_slice name;
  hs_slice type;
  hs_slice attrs;  /* the whole parameter text */
  int64_t align, deref;
  uint8_t noalias, nocapture, readonly, nonnull;
} ll_param;

typedef struct {
  uint32_t depth;
  int64_t backedge_taken; /* -1 when not a constant */
  uint8_t top_tested;     /* the exit test sits in the header */
  uint32_t header;        /* block index */
  uint32_t first_line, last_line;
  uint32_t n_blocks;
} ll_loop;

typedef struct {
  hs_slice name;     /* without '@' (quotes kept out) */
  uint32_t line, end_line;
  uint8_t defined;
  uint8_t local;     /* internal or private linkage: a helper, not a kernel the runtime calls */
  uint32_t param_first, n_params;
  uint32_t block_first, n_blocks;
  uint32_t loop_first, n_loops;
  uint32_t numbered, named; /* %N values vs %name values (results, params, blocks) */
} ll_func;

struct hs_llvm {
  const char *text;
  size_t len;
  hs_arena arena;
  hs_slice module_id, triple;
  ll_func *funcs;
  uint32_t n_funcs, cap_funcs;
  ll_param *params;
  uint32_t n_params, cap_params;
  ll_block *blocks;
  uint32_t n_blocks, cap_blocks;
  ll_instr *instrs;
  uint32_t n_instrs, cap_instrs;
  hs_slice *succ;
  uint32_t n_succ, cap_succ;
  int32_t *succ_ix; /* n_succ, resolved block index (global) or -1 */
  ll_loop *loops;
  uint32_t n_loops, cap_loops;
  hs_warning *warnings;
  uint32_t n_warnings, cap_warnings;
  /* name tables of the function being finished (open addressing, index + 1, 0 = empty) */
  uint32_t *btab, *vtab;
  uint32_t bcap, vcap;
  uint64_t scan_budget; /* instruction visits left for the alloca'd-counter scans */
};

static void ll_warn(hs_llvm *m, int code, uint32_t line, const char *fmt, ...) {
  if (m->n_warnings >= 40) return;
  char buf[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  bool ok;
  hs_warning *w = HS_VEC_PUSH(m->warnings, m->n_warnings, m->cap_warnings, ok);
  if (!ok) return;
  w->code = code;
  w->line = line;
  w->col = 1;
  size_t n = strlen(buf);
  w->message = hs_arena_alloc(&m->arena, n + 1);
  if (w->message) memcpy(w->message, buf, n + 1);
  else m->n_warnings--;
}

/* ---- small scanners ------------------------------------------------------------------ */
static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

/* A local or global name at t[p] ('%' or '@' already skipped): quoted or bare. */
static hs_slice scan_name(const char *t, size_t end, size_t p, size_t *after) {
  size_t s = p;
  if (p < end && t[p] == '"') {
    size_t q = hs_skip_string(t, end, p);
    *after = q;
    return hs_sl((uint32_t)(s + 1), (uint32_t)(q >= s + 2 && t[q - 1] == '"' ? q - s - 2 : q - s - 1));
  }
  while (p < end && is_ident(t[p])) p++;
  *after = p;
  return hs_sl((uint32_t)s, (uint32_t)(p - s));
}

/* A type at t[p]: <...>, [...], {...}, <{...}>, or a word (i32, float, ptr, ptr addrspace(1)). */
static size_t scan_type(const char *t, size_t end, size_t p) {
  if (p >= end) return p;
  if (t[p] == '<' || t[p] == '[' || t[p] == '{') {
    int depth = 0;
    for (; p < end; p++) {
      char c = t[p];
      if (c == '<' || c == '[' || c == '{' || c == '(') depth++;
      else if (c == '>' || c == ']' || c == '}' || c == ')') {
        if (--depth == 0) return p + 1;
      }
    }
    return p;
  }
  size_t s = p;
  while (p < end && (is_ident(t[p]) || t[p] == '%')) p++;
  if (p - s == 3 && memcmp(t + s, "ptr", 3) == 0 && hs_starts(t, end, p, " addrspace(")) {
    while (p < end && t[p] != ')') p++;
    if (p < end) p++;
  }
  return p;
}

static bool word_at(const char *t, size_t end, size_t p, const char *w) {
  size_t n = strlen(w);
  return hs_starts(t, end, p, w) && (p + n >= end || !is_ident(t[p + n]));
}

static int64_t parse_int(const char *t, size_t end, size_t p, bool *ok) {
  bool neg = false;
  if (p < end && t[p] == '-') neg = true, p++;
  int64_t v = 0;
  size_t s = p;
  while (p < end && t[p] >= '0' && t[p] <= '9' && v < ((int64_t)1 << 58)) v = v * 10 + (t[p++] - '0');
  *ok = p > s && (p >= end || !is_ident(t[p]));
  return neg ? -v : v;
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

static void finish_function(hs_llvm *m, ll_func *f);

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
          ll_warn(m, HS_W_SKIPPED_LINE, line, "line %u: a %s without a function name", line, def ? "define" : "declare");
          continue;
        }
        ll_func *nf = HS_VEC_PUSH(m->funcs, m->n_funcs, m->cap_funcs, ok);
        if (!ok) return HS_E_NOMEM;
        memset(nf, 0, sizeof *nf);
        size_t a;
        nf->name = scan_name(t, e, at + 1, &a);
        nf->line = line;
        nf->defined = def;
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
      finish_function(m, f);
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
    ll_warn(m, HS_W_TRUNCATED, line,
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

/* ---- loops ---------------------------------------------------------------------------- */
static bool name_eq(const hs_llvm *m, hs_slice a, const char *s, size_t n) {
  return a.len == n && memcmp(m->text + a.off, s, n) == 0;
}

static int32_t find_block(const hs_llvm *m, const ll_func *f, hs_slice name) {
  const char *s = m->text + name.off;
  if (m->btab) {
    for (uint32_t h = hs_hash(s, name.len) & (m->bcap - 1);; h = (h + 1) & (m->bcap - 1)) {
      uint32_t v = m->btab[h];
      if (!v) return -1;
      if (name_eq(m, m->blocks[f->block_first + v - 1].name, s, name.len)) return (int32_t)(v - 1);
    }
  }
  for (uint32_t i = 0; i < f->n_blocks; i++)
    if (name_eq(m, m->blocks[f->block_first + i].name, s, name.len)) return (int32_t)i;
  return -1;
}

/* The instruction of f whose result is `name` (index into m->instrs), -1 if none. */
static int32_t find_value(const hs_llvm *m, const ll_func *f, const char *s, size_t n) {
  if (m->vtab) {
    for (uint32_t h = hs_hash(s, n) & (m->vcap - 1);; h = (h + 1) & (m->vcap - 1)) {
      uint32_t v = m->vtab[h];
      if (!v) return -1;
      if (name_eq(m, m->instrs[v - 1].result, s, n)) return (int32_t)(v - 1);
    }
  }
  uint32_t first = m->blocks[f->block_first].first;
  uint32_t last = f->n_blocks ? m->blocks[f->block_first + f->n_blocks - 1].first +
                                    m->blocks[f->block_first + f->n_blocks - 1].count
                              : first;
  for (uint32_t i = first; i < last; i++)
    if (name_eq(m, m->instrs[i].result, s, n)) return (int32_t)i;
  return -1;
}

/* Builds the block and value name tables of f (false on allocation failure: lookups then scan). */
static bool build_tables(hs_llvm *m, const ll_func *f) {
  uint32_t nb = f->n_blocks;
  uint32_t first = m->blocks[f->block_first].first;
  uint32_t last = m->blocks[f->block_first + nb - 1].first + m->blocks[f->block_first + nb - 1].count;
  uint32_t bcap = 16, vcap = 16;
  while (bcap < nb * 2u) bcap <<= 1;
  while (vcap < (last - first) * 2u) vcap <<= 1;
  m->btab = calloc(bcap, sizeof *m->btab);
  m->vtab = calloc(vcap, sizeof *m->vtab);
  if (!m->btab || !m->vtab) {
    free(m->btab);
    free(m->vtab);
    m->btab = m->vtab = NULL;
    return false;
  }
  m->bcap = bcap;
  m->vcap = vcap;
  for (uint32_t i = 0; i < nb; i++) {
    hs_slice n = m->blocks[f->block_first + i].name;
    uint32_t h = hs_hash(m->text + n.off, n.len) & (bcap - 1);
    while (m->btab[h]) {
      if (name_eq(m, m->blocks[f->block_first + m->btab[h] - 1].name, m->text + n.off, n.len)) break;
      h = (h + 1) & (bcap - 1);
    }
    if (!m->btab[h]) m->btab[h] = i + 1;
  }
  for (uint32_t i = first; i < last; i++) {
    hs_slice n = m->instrs[i].result;
    if (!n.len) continue;
    uint32_t h = hs_hash(m->text + n.off, n.len) & (vcap - 1);
    while (m->vtab[h]) {
      if (name_eq(m, m->instrs[m->vtab[h] - 1].result, m->text + n.off, n.len)) break;
      h = (h + 1) & (vcap - 1);
    }
    if (!m->vtab[h]) m->vtab[h] = i + 1;
  }
  return true;
}

typedef struct {
  const char *p;
  size_t n;
  bool is_const;
  int64_t c;
} ll_operand;

/* The k-th comma-separated operand of an instruction's rest (after a leading type when given). */
static bool operand(const hs_llvm *m, hs_slice rest, int k, ll_operand *o) {
  const char *t = m->text;
  size_t p = rest.off, end = rest.off + rest.len;
  int idx = 0;
  size_t s = p;
  int depth = 0;
  for (size_t q = p; q <= end; q++) {
    char c = q < end ? t[q] : ',';
    if (c == '(' || c == '[' || c == '<' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '>' || c == '}') depth--;
    if (c == ',' && depth <= 0) {
      if (idx == k) {
        /* last word of [s, q) */
        size_t e = q;
        while (e > s && (t[e - 1] == ' ')) e--;
        size_t b = e;
        while (b > s && t[b - 1] != ' ') b--;
        o->p = t + b;
        o->n = e - b;
        bool ok;
        o->c = parse_int(t, e, b, &ok);
        o->is_const = ok;
        if (o->n && t[b] == '%') o->p++, o->n--;
        return o->n > 0;
      }
      idx++;
      s = q + 1;
    }
  }
  return false;
}

typedef struct {
  int64_t start, step;
  bool ok;
} ll_iv;

static bool in_loop(const uint8_t *body, int32_t blk) { return blk >= 0 && body[blk]; }

/* The evolution {start,+,step} of value v at the top of each iteration of the loop (body set),
 * or of its incremented form. Handles a header phi [const, outside], [v+step, inside], and an
 * alloca'd counter: load of an alloca stored once outside (const) and once inside (load+step). */
static ll_iv evolution(const hs_llvm *m, const ll_func *f, const uint8_t *body, const char *s, size_t n, int level) {
  ll_iv r = {0, 0, false};
  if (level > 3) return r;
  int32_t vi = find_value(m, f, s, n);
  if (vi < 0) return r;
  const ll_instr *in = &m->instrs[vi];
  int32_t lb = (int32_t)in->block - (int32_t)f->block_first;
  if (!in_loop(body, lb)) return r;
  if (in->kind == LL_I_ADD || in->kind == LL_I_SUB) {
    ll_operand a, b;
    hs_slice rest = in->rest;
    /* skip flags and the type: operand 0 is "<flags> i64 %x" -> last word */
    if (!operand(m, rest, 0, &a) || !operand(m, rest, 1, &b)) return r;
    if (in->kind == LL_I_ADD && a.is_const && !b.is_const) {
      ll_operand tmp = a;
      a = b;
      b = tmp;
    }
    if (!b.is_const || a.is_const) return r;
    ll_iv base = evolution(m, f, body, a.p, a.n, level + 1);
    if (!base.ok) return r;
    int64_t d = in->kind == LL_I_ADD ? b.c : -b.c;
    if (base.step != d) return r; /* only the increment of the counter itself */
    r.start = base.start + d;
    r.step = d;
    r.ok = true;
    return r;
  }
  if (in->kind == LL_I_PHI) {
    /* phi i64 [ a, %bb ], [ b, %bb2 ] */
    const char *t = m->text;
    size_t p = in->rest.off, end = in->rest.off + in->rest.len;
    int64_t init = 0;
    bool have_init = false;
    const char *nx = NULL;
    size_t nn = 0;
    int pairs = 0;
    for (size_t q = p; q < end; q++) {
      if (t[q] != '[') continue;
      size_t c = q + 1;
      while (c < end && t[c] != ']') c++;
      /* "[ v, %bb ]" */
      size_t vs = hs_skip_sp(t, c, q + 1), ve = vs;
      while (ve < c && t[ve] != ',') ve++;
      size_t vend = ve;
      while (vend > vs && t[vend - 1] == ' ') vend--;
      size_t bs = hs_skip_sp(t, c, ve + 1);
      if (bs < c && t[bs] == '%') bs++;
      size_t a;
      hs_slice bn = scan_name(t, c, bs, &a);
      int32_t bi = find_block(m, f, bn);
      pairs++;
      if (in_loop(body, bi)) {
        if (nx) return r;
        nx = t + vs + (t[vs] == '%');
        nn = vend - vs - (t[vs] == '%');
      } else {
        bool ok;
        init = parse_int(t, vend, vs, &ok);
        if (!ok || have_init) return r;
        have_init = true;
      }
      q = c;
    }
    if (pairs != 2 || !have_init || !nx) return r;
    /* the step: nx must be add(this phi, const) */
    int32_t ni = find_value(m, f, nx, nn);
    if (ni < 0) return r;
    const ll_instr *inc = &m->instrs[ni];
    if (inc->kind != LL_I_ADD && inc->kind != LL_I_SUB) return r;
    ll_operand a, b;
    if (!operand(m, inc->rest, 0, &a) || !operand(m, inc->rest, 1, &b)) return r;
    if (inc->kind == LL_I_ADD && a.is_const) {
      ll_operand tmp = a;
      a = b;
      b = tmp;
    }
    if (!b.is_const || a.n != in->result.len || memcmp(a.p, t + in->result.off, a.n) != 0) return r;
    r.start = init;
    r.step = inc->kind == LL_I_ADD ? b.c : -b.c;
    r.ok = r.step != 0;
    return r;
  }
  if (in->kind == LL_I_LOAD) {
    /* load i64, ptr %addr: addr an alloca; stores to it: one const outside, one add inside */
    ll_operand a;
    if (!operand(m, in->rest, 1, &a)) return r;
    int32_t ai = find_value(m, f, a.p, a.n);
    if (ai < 0 || m->instrs[ai].kind != LL_I_ALLOCA) return r;
    uint32_t first = m->blocks[f->block_first].first;
    uint32_t last = m->blocks[f->block_first + f->n_blocks - 1].first + m->blocks[f->block_first + f->n_blocks - 1].count;
    int n_out = 0, n_in = 0;
    int64_t init = 0, step = 0;
    if ((uint64_t)(last - first) > ((hs_llvm *)m)->scan_budget) return r; /* a huge function: no count */
    ((hs_llvm *)m)->scan_budget -= last - first;
    for (uint32_t i = first; i < last; i++) {
      const ll_instr *st = &m->instrs[i];
      if (st->kind != LL_I_STORE) continue;
      ll_operand val, ptr;
      if (!operand(m, st->rest, 0, &val) || !operand(m, st->rest, 1, &ptr)) continue;
      if (ptr.n != a.n || memcmp(ptr.p, a.p, a.n) != 0) continue;
      int32_t sb = (int32_t)st->block - (int32_t)f->block_first;
      if (in_loop(body, sb)) {
        n_in++;
        /* val = add (load of the same alloca), const */
        int32_t vi2 = find_value(m, f, val.p, val.n);
        if (vi2 < 0) return r;
        const ll_instr *inc = &m->instrs[vi2];
        if (inc->kind != LL_I_ADD && inc->kind != LL_I_SUB) return r;
        ll_operand x, c;
        if (!operand(m, inc->rest, 0, &x) || !operand(m, inc->rest, 1, &c)) return r;
        if (inc->kind == LL_I_ADD && x.is_const) {
          ll_operand tmp = x;
          x = c;
          c = tmp;
        }
        if (!c.is_const) return r;
        int32_t li = find_value(m, f, x.p, x.n);
        if (li < 0 || m->instrs[li].kind != LL_I_LOAD) return r;
        ll_operand lp;
        if (!operand(m, m->instrs[li].rest, 1, &lp) || lp.n != a.n || memcmp(lp.p, a.p, a.n) != 0) return r;
        step = inc->kind == LL_I_ADD ? c.c : -c.c;
      } else {
        n_out++;
        if (!val.is_const) return r;
        init = val.c;
      }
    }
    if (n_in != 1 || n_out != 1 || step == 0) return r;
    r.start = init;
    r.step = step;
    r.ok = true;
    return r;
  }
  return r;
}

/* iterations k >= 0 until `stay(v_k)` fails, v_k = start + k*step; -1 when not found */
static int64_t first_exit(const char *pred, int64_t start, int64_t step, int64_t n) {
  /* normalise to: stay while v < n (increasing) or v > n (decreasing), or v != n */
  bool lt = !strcmp(pred, "slt") || !strcmp(pred, "ult"), le = !strcmp(pred, "sle") || !strcmp(pred, "ule");
  bool gt = !strcmp(pred, "sgt") || !strcmp(pred, "ugt"), ge = !strcmp(pred, "sge") || !strcmp(pred, "uge");
  bool ne = !strcmp(pred, "ne"), eq = !strcmp(pred, "eq");
  if (pred[0] == 'u' && (n < 0 || start < 0)) return -1; /* unsigned wrap-around: not ours to guess */
  if (le) n += 1, lt = true;
  if (ge) n -= 1, gt = true;
  if (lt) {
    if (start >= n) return 0;
    if (step <= 0) return -1;
    return (n - start + step - 1) / step;
  }
  if (gt) {
    if (start <= n) return 0;
    if (step >= 0) return -1;
    return (start - n + (-step) - 1) / (-step);
  }
  if (ne) {
    if ((n - start) % step != 0) return -1;
    int64_t k = (n - start) / step;
    return k >= 0 ? k : -1;
  }
  if (eq) return start != n ? 0 : step != 0 ? 1 : -1; /* stay while v == n */
  return -1;
}

static const char *negate(const char *p) {
  static const char *const pairs[][2] = {{"eq", "ne"}, {"ne", "eq"}, {"slt", "sge"}, {"sge", "slt"},
                                         {"sle", "sgt"}, {"sgt", "sle"}, {"ult", "uge"}, {"uge", "ult"},
                                         {"ule", "ugt"}, {"ugt", "ule"}};
  for (size_t i = 0; i < 10; i++)
    if (!strcmp(p, pairs[i][0])) return pairs[i][1];
  return NULL;
}
static const char *swap_pred(const char *p) {
  static const char *const pairs[][2] = {{"eq", "eq"}, {"ne", "ne"}, {"slt", "sgt"}, {"sgt", "slt"},
                                         {"sle", "sge"}, {"sge", "sle"}, {"ult", "ugt"}, {"ugt", "ult"},
                                         {"ule", "uge"}, {"uge", "ule"}};
  for (size_t i = 0; i < 10; i++)
    if (!strcmp(p, pairs[i][0])) return pairs[i][1];
  return NULL;
}

static int64_t backedge_taken(const hs_llvm *m, const ll_func *f, const uint8_t *body, uint32_t header, uint8_t *top) {
  /* the one exiting block */
  int32_t exiting = -1;
  for (uint32_t i = 0; i < f->n_blocks; i++) {
    if (!body[i]) continue;
    const ll_block *b = &m->blocks[f->block_first + i];
    for (uint32_t s = 0; s < b->n_succ; s++) {
      int32_t to = m->succ_ix[b->succ_first + s];
      if (to < 0 || !body[to - (int32_t)f->block_first]) {
        if (exiting >= 0 && exiting != (int32_t)i) return -1;
        exiting = (int32_t)i;
      }
    }
  }
  if (exiting < 0) return -1;
  const ll_block *eb = &m->blocks[f->block_first + exiting];
  if (!eb->count || eb->n_succ != 2) return -1;
  /* the body runs once more than the back edge is taken unless the exit test sits in a header
   * that is not also a latch (a top-tested loop) */
  *top = (uint32_t)exiting == header;
  for (uint32_t s = 0; s < eb->n_succ; s++)
    if (m->succ_ix[eb->succ_first + s] == (int32_t)(f->block_first + header)) *top = 0;
  const ll_instr *br = &m->instrs[eb->first + eb->count - 1];
  if (br->kind != LL_I_BR) return -1;
  ll_operand c;
  if (!operand(m, br->rest, 0, &c)) return -1;
  int32_t to_true = m->succ_ix[eb->succ_first];
  bool exit_on_true = to_true < 0 || !body[to_true - (int32_t)f->block_first];
  int32_t ci = find_value(m, f, c.p, c.n);
  if (ci < 0 || m->instrs[ci].kind != LL_I_ICMP) return -1;
  const ll_instr *cmp = &m->instrs[ci];
  /* "icmp <pred> <ty> a, b" */
  const char *t = m->text;
  size_t p = hs_skip_sp(t, cmp->rest.off + cmp->rest.len, cmp->rest.off);
  char pred[8] = {0};
  size_t k = 0;
  while (k < 7 && is_ident(t[p + k])) pred[k] = t[p + k], k++;
  ll_operand a, b;
  if (!operand(m, cmp->rest, 0, &a) || !operand(m, cmp->rest, 1, &b)) return -1;
  const char *pr = pred;
  if (a.is_const && !b.is_const) {
    ll_operand tmp = a;
    a = b;
    b = tmp;
    pr = swap_pred(pr);
    if (!pr) return -1;
  }
  if (!b.is_const || a.is_const) return -1;
  ll_iv iv = evolution(m, f, body, a.p, a.n, 0);
  if (!iv.ok) return -1;
  const char *stay = exit_on_true ? negate(pr) : pr;
  if (!stay) return -1;
  return first_exit(stay, iv.start, iv.step, b.c);
}

/* The natural loop of header h: blocks that reach a back edge's source without passing h.
 * Fills body[] (1 = in the loop); returns the number of back edges (0: h heads no loop). */
static uint32_t loop_body(uint32_t nb, uint32_t h, const uint8_t *seen, const int32_t *idom, const uint32_t *pstart,
                          const uint32_t *preds, uint8_t *body, uint32_t *work) {
  uint32_t wn = 0, back = 0;
  bool any = false; /* a back edge at all? (only then is body[] cleared: O(n) per loop, not per block) */
  for (uint32_t pi = pstart[h]; pi < pstart[h + 1] && !any; pi++) {
    int32_t x = (int32_t)preds[pi];
    if (!seen[x]) continue;
    while (x != (int32_t)h && x != 0) x = idom[x];
    any = x == (int32_t)h;
  }
  if (!any) return 0;
  memset(body, 0, nb);
  for (uint32_t pi = pstart[h]; pi < pstart[h + 1]; pi++) {
    uint32_t u = preds[pi];
    if (!seen[u]) continue;
    int32_t x = (int32_t)u;
    while (x != (int32_t)h && x != 0) x = idom[x];
    if (x == (int32_t)h) {
      back++;
      if (!body[u]) body[u] = 1, work[wn++] = u;
    }
  }
  if (!back) return 0;
  body[h] = 1;
  while (wn) {
    uint32_t v = work[--wn];
    if (v == h) continue;
    for (uint32_t pi = pstart[v]; pi < pstart[v + 1]; pi++) {
      uint32_t u = preds[pi];
      if (seen[u] && !body[u]) body[u] = 1, work[wn++] = u;
    }
  }
  return back;
}

static void finish_function(hs_llvm *m, ll_func *f) {
  uint32_t nb = f->n_blocks;
  /* resolve successors */
  if (!m->succ_ix || m->n_succ) {
    int32_t *ix = realloc(m->succ_ix, (m->n_succ ? m->n_succ : 1) * sizeof *ix);
    if (!ix) return;
    m->succ_ix = ix;
  }
  if (nb) build_tables(m, f);
  m->scan_budget = 20000000u;
  for (uint32_t i = 0; i < nb; i++) {
    ll_block *b = &m->blocks[f->block_first + i];
    for (uint32_t s = 0; s < b->n_succ; s++) {
      int32_t bi = find_block(m, f, m->succ[b->succ_first + s]);
      m->succ_ix[b->succ_first + s] = bi < 0 ? -1 : (int32_t)f->block_first + bi;
    }
  }
  if (nb == 0 || nb > 20000) {
    if (nb) ll_warn(m, HS_W_SKIPPED_LINE, f->line, "function @%.*s has %u blocks: loops not analysed", (int)f->name.len, m->text + f->name.off, nb);
    free(m->btab);
    free(m->vtab);
    m->btab = m->vtab = NULL;
    return;
  }
  /* reverse post-order, immediate dominators (Cooper, Harvey, Kennedy) */
  int32_t *rpo = malloc(nb * sizeof *rpo), *order = malloc(nb * sizeof *order), *idom = malloc(nb * sizeof *idom);
  uint32_t *stack = malloc(nb * sizeof *stack), *it = calloc(nb, sizeof *it);
  uint8_t *seen = calloc(nb, 1);
  uint8_t *body = calloc(nb, 1);
  uint32_t *work = malloc(nb * sizeof *work);
  uint32_t *pstart = calloc(nb + 1, sizeof *pstart), *preds = NULL;
  if (!rpo || !order || !idom || !stack || !it || !seen || !body || !work || !pstart) goto out;
  {
    uint32_t total = 0;
    for (uint32_t u = 0; u < nb; u++) {
      const ll_block *b = &m->blocks[f->block_first + u];
      for (uint32_t s = 0; s < b->n_succ; s++) {
        int32_t w = m->succ_ix[b->succ_first + s];
        if (w >= 0) pstart[w - f->block_first + 1]++, total++;
      }
    }
    for (uint32_t u = 0; u < nb; u++) pstart[u + 1] += pstart[u];
    preds = malloc((total ? total : 1) * sizeof *preds);
    if (!preds) goto out;
    for (uint32_t u = 0; u < nb; u++) it[u] = pstart[u];
    for (uint32_t u = 0; u < nb; u++) {
      const ll_block *b = &m->blocks[f->block_first + u];
      for (uint32_t s = 0; s < b->n_succ; s++) {
        int32_t w = m->succ_ix[b->succ_first + s];
        if (w >= 0) preds[it[w - f->block_first]++] = u;
      }
    }
    memset(it, 0, nb * sizeof *it);
  }
  uint32_t sp = 0, n_post = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  while (sp) {
    uint32_t v = stack[sp - 1];
    const ll_block *b = &m->blocks[f->block_first + v];
    if (it[v] < b->n_succ) {
      int32_t w = m->succ_ix[b->succ_first + it[v]++];
      if (w >= 0) {
        uint32_t wl = (uint32_t)w - f->block_first;
        if (!seen[wl]) {
          seen[wl] = 1;
          stack[sp++] = wl;
        }
      }
    } else {
      order[v] = (int32_t)n_post;
      rpo[n_post++] = (int32_t)v;
      sp--;
    }
  }
  /* rpo[] now holds post-order; order[v] its post-order number */
  for (uint32_t i = 0; i < nb; i++) idom[i] = -1;
  idom[0] = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int32_t k = (int32_t)n_post - 1; k >= 0; k--) {
      uint32_t v = (uint32_t)rpo[k];
      if (v == 0) continue;
      int32_t nd = -1;
      /* predecessors: scan all reachable blocks' successor lists */
      for (uint32_t pi = pstart[v]; pi < pstart[v + 1]; pi++) {
        uint32_t u = preds[pi];
        if (!seen[u] || idom[u] < 0) continue;
        if (nd < 0) {
          nd = (int32_t)u;
          continue;
        }
        int32_t x = (int32_t)u, y = nd;
        while (x != y) {
          while (order[x] < order[y]) x = idom[x];
          while (order[y] < order[x]) y = idom[y];
        }
        nd = x;
      }
      if (nd >= 0 && idom[v] != nd) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  /* natural loops, one per header (back edges u->h with h dominating u) */
  uint32_t loops_begin = m->n_loops;
  for (int32_t k = (int32_t)n_post - 1; k >= 0; k--) {
    uint32_t h = (uint32_t)rpo[k];
    uint32_t wn = loop_body(nb, h, seen, idom, pstart, preds, body, work);
    if (!wn) continue;
    bool ok;
    ll_loop *L = HS_VEC_PUSH(m->loops, m->n_loops, m->cap_loops, ok);
    if (!ok) goto out;
    memset(L, 0, sizeof *L);
    L->header = f->block_first + h;
    L->first_line = UINT32_MAX;
    for (uint32_t u = 0; u < nb; u++) {
      if (!body[u]) continue;
      const ll_block *b = &m->blocks[f->block_first + u];
      uint32_t last = b->count ? m->instrs[b->first + b->count - 1].line : b->line;
      if (b->line < L->first_line) L->first_line = b->line;
      if (last > L->last_line) L->last_line = last;
      L->n_blocks++;
    }
    L->backedge_taken = backedge_taken(m, f, body, h, &L->top_tested);
  }
  /* depth: loop A contains loop B when B's header is in A's body. Recompute bodies per pair. */
  for (uint32_t i = loops_begin; i < m->n_loops; i++) m->loops[i].depth = 1;
  for (uint32_t i = loops_begin; i < m->n_loops; i++) {
    /* recompute body of loop i */
    uint32_t h = m->loops[i].header - f->block_first;
    uint32_t wn = loop_body(nb, h, seen, idom, pstart, preds, body, work);
    (void)wn;
    for (uint32_t j = loops_begin; j < m->n_loops; j++)
      if (j != i && body[m->loops[j].header - f->block_first]) m->loops[j].depth++;
  }
  f->n_loops = m->n_loops - loops_begin;
out:
  free(rpo);
  free(order);
  free(idom);
  free(stack);
  free(it);
  free(seen);
  free(body);
  free(work);
  free(pstart);
  free(preds);
  free(m->btab);
  free(m->vtab);
  m->btab = m->vtab = NULL;
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
      hs_format f = hs_detect_format(text, len);
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
  free(m->warnings);
  hs_arena_free(&m->arena);
  free(m);
}

size_t hs_llvm_function_count(const hs_llvm *m) {
  size_t n = 0;
  for (uint32_t i = 0; m && i < m->n_funcs; i++) n += m->funcs[i].defined;
  return n;
}

/* ---- JSON ------------------------------------------------------------------------------ */
static json_t *jslice(const hs_llvm *m, hs_slice s) { return hs_json_bytes(m->text + s.off, s.len); }

static void bump(json_t *obj, const char *key) {
  json_t *v = json_object_get(obj, key);
  json_object_set_new(obj, key, json_integer(v ? json_integer_value(v) + 1 : 1));
}

static void bumpn(json_t *obj, const char *s, size_t n) {
  char k[160];
  if (n >= sizeof k) n = sizeof k - 1;
  memcpy(k, s, n);
  k[n] = 0;
  /* keys must be valid UTF-8 for jansson: keep ASCII only */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)k[i] >= 127 || (unsigned char)k[i] < 32) k[i] = '?';
  bump(obj, k);
}

/* The HLO instructions (outside fused bodies) kernels can be named after, by normalised name. */
typedef struct {
  char *names;      /* normalised names, NUL-separated */
  uint32_t *off;    /* per candidate: offset into names */
  int32_t *instr;   /* per candidate: instruction index */
  uint32_t *slots;  /* candidate + 1, 0 = empty */
  uint32_t cap, n;
} ll_join;

static bool join_candidate(const hs_doc *d, const hs_instr *in) {
  if (hs_comp_in_fused(d, in->comp)) return false;
  return !(hs_slice_is(d, in->opcode, "parameter") || hs_slice_is(d, in->opcode, "constant") ||
           hs_slice_is(d, in->opcode, "get-tuple-element") || hs_slice_is(d, in->opcode, "tuple") ||
           hs_slice_is(d, in->opcode, "bitcast"));
}

static void join_free(ll_join *j) {
  free(j->names);
  free(j->off);
  free(j->instr);
  free(j->slots);
  memset(j, 0, sizeof *j);
}

static bool join_build(ll_join *j, const hs_doc *d) {
  memset(j, 0, sizeof *j);
  if (!d || d->format != HS_FORMAT_HLO) return true; /* kernels are named after HLO instructions only */
  size_t bytes = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++)
    if (join_candidate(d, &d->instrs[i])) bytes += d->instrs[i].name.len + 1, n++;
  j->cap = 16;
  while (j->cap < n * 2u) j->cap <<= 1;
  j->names = malloc(bytes + 1);
  j->off = malloc((n + 1) * sizeof *j->off);
  j->instr = malloc((n + 1) * sizeof *j->instr);
  j->slots = calloc(j->cap, sizeof *j->slots);
  if (!j->names || !j->off || !j->instr || !j->slots) {
    join_free(j);
    return false;
  }
  size_t o = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (!join_candidate(d, in)) continue;
    const char *src = d->text + in->name.off;
    char *dst = j->names + o;
    for (uint32_t k = 0; k < in->name.len; k++) dst[k] = (src[k] == '.' || src[k] == '-') ? '_' : src[k];
    dst[in->name.len] = 0;
    uint32_t h = hs_hash(dst, in->name.len) & (j->cap - 1);
    bool dup = false;
    while (j->slots[h]) {
      if (strcmp(j->names + j->off[j->slots[h] - 1], dst) == 0) {
        dup = true; /* the first instruction of a name wins */
        break;
      }
      h = (h + 1) & (j->cap - 1);
    }
    if (dup) continue;
    j->off[j->n] = (uint32_t)o;
    j->instr[j->n] = (int32_t)i;
    j->slots[h] = ++j->n;
    o += in->name.len + 1;
  }
  return true;
}

static int32_t join_get(const ll_join *j, const char *s, size_t n) {
  if (!j->slots) return -1;
  for (uint32_t h = hs_hash(s, n) & (j->cap - 1);; h = (h + 1) & (j->cap - 1)) {
    uint32_t v = j->slots[h];
    if (!v) return -1;
    const char *c = j->names + j->off[v - 1];
    if (strlen(c) == n && memcmp(c, s, n) == 0) return j->instr[v - 1];
  }
}

/* The HLO instruction a kernel function is named after: the longest candidate N with
 * norm(F) == norm(N), or norm(F) beginning with norm(N) + "_" (GPU kernels write '.' as '_';
 * XLA:CPU adds _wrapped, _impl, _kernel). norm: '.' and '-' become '_'. -1 when none. */
static int32_t join_hlo(const ll_join *j, const char *fname, size_t fn) {
  char F[512];
  if (!j->slots || fn >= sizeof F) return -1;
  for (size_t i = 0; i < fn; i++) F[i] = (fname[i] == '.' || fname[i] == '-') ? '_' : fname[i];
  for (size_t n = fn; n > 0; n--) {
    if (n < fn && F[n] != '_') continue;
    int32_t r = join_get(j, F, n);
    if (r >= 0) return r;
  }
  return -1;
}

static bool op_is(const hs_llvm *m, hs_slice op, const char *lit) {
  size_t n = strlen(lit);
  return op.len == n && memcmp(m->text + op.off, lit, n) == 0;
}

static json_t *dropped_for(const hs_llvm *m, const ll_func *f, const hs_doc *d, int32_t hi) {
  const hs_instr *in = &d->instrs[hi];
  json_t *o = json_object();
  json_object_set_new(o, "function", jslice(m, f->name));
  json_object_set_new(o, "hlo", hs_json_slice(d, in->name));
  json_object_set_new(o, "opcode", hs_json_slice(d, in->opcode));
  /* shapes and dtypes -> pointers and index arithmetic */
  json_t *sh = json_object();
  json_t *hs = json_array();
  for (uint32_t k = 0; k < in->op_count; k++) {
    const hs_operand *op = &d->operands[in->op_first + k];
    json_array_append_new(hs, op->target >= 0 ? hs_json_type(d->instrs[op->target].type) : json_null());
  }
  json_object_set_new(sh, "hlo_operands", hs);
  json_object_set_new(sh, "hlo_result", hs_json_type(in->type));
  uint32_t ptrs = 0, geps = 0, index_ops = 0, ptr_loads = 0;
  for (uint32_t k = 0; k < f->n_params; k++) {
    const ll_param *p = &m->params[f->param_first + k];
    if (p->type.len >= 3 && memcmp(m->text + p->type.off, "ptr", 3) == 0) ptrs++;
  }
  json_t *gep_types = json_array();
  for (uint32_t b = 0; b < f->n_blocks; b++) {
    const ll_block *bl = &m->blocks[f->block_first + b];
    for (uint32_t k = 0; k < bl->count; k++) {
      const ll_instr *ii = &m->instrs[bl->first + k];
      if (ii->kind == LL_I_LOAD && ii->vtype.len == 3 && memcmp(m->text + ii->vtype.off, "ptr", 3) == 0) ptr_loads++;
      if (ii->kind == LL_I_GEP) {
        geps++;
        /* the source element type: "[inbounds] [nuw] <type>," */
        const char *t = m->text;
        size_t p = hs_skip_sp(t, ii->rest.off + ii->rest.len, ii->rest.off), e = ii->rest.off + ii->rest.len;
        while (word_at(t, e, p, "inbounds") || word_at(t, e, p, "nuw") || word_at(t, e, p, "nusw")) {
          while (p < e && t[p] != ' ') p++;
          p = hs_skip_sp(t, e, p);
        }
        size_t te = scan_type(t, e, p);
        if (te > p && (t[p] == '[')) {
          bool dup = false;
          for (size_t g = 0; g < json_array_size(gep_types); g++) {
            const char *s = json_string_value(json_array_get(gep_types, g));
            if (s && strlen(s) == te - p && memcmp(s, t + p, te - p) == 0) dup = true;
          }
          if (!dup && json_array_size(gep_types) < 8) json_array_append_new(gep_types, hs_json_bytes(t + p, te - p));
        }
      } else if (op_is(m, ii->opcode, "mul") || op_is(m, ii->opcode, "udiv") || op_is(m, ii->opcode, "urem") ||
                 op_is(m, ii->opcode, "shl")) {
        index_ops++;
      }
    }
  }
  json_object_set_new(sh, "llvm_pointer_params", json_integer(ptrs));
  json_object_set_new(sh, "llvm_pointer_loads", json_integer(ptr_loads));
  json_object_set_new(sh, "llvm_getelementptr", json_integer(geps));
  json_object_set_new(sh, "llvm_index_ops", json_integer(index_ops));
  json_object_set_new(o, "shapes", sh);
  /* layouts -> strides: the HLO layout as printed, the GEP array types (row-major strides) */
  json_t *lay = json_object();
  {
    /* the layout braces of the instruction's result, from its line */
    const char *t = d->text;
    uint32_t ln = in->line;
    size_t off = ln && ln <= d->n_lines ? d->lines[ln - 1].off : 0;
    size_t e = off;
    while (e < d->len && t[e] != '\n') e++;
    size_t eq = off;
    while (eq < e && t[eq] != '=') eq++;
    json_t *ls = json_array();
    size_t op_at = eq;
    /* up to the opcode: "= f32[64,128]{1,0} fusion(" */
    while (op_at < e && t[op_at] != '(') op_at++;
    for (size_t k = eq; k < op_at; k++)
      if (t[k] == '{') {
        size_t c = k;
        while (c < op_at && t[c] != '}') c++;
        json_array_append_new(ls, hs_json_bytes(t + k, c + 1 - k));
        k = c;
      }
    json_object_set_new(lay, "hlo_layouts", ls);
    json_object_set_new(lay, "llvm_array_types", gep_types);
  }
  json_object_set_new(o, "layouts", lay);
  /* fusion boundaries -> function boundaries */
  json_t *fb = json_object();
  int32_t body_comp = -1;
  for (uint32_t k = 0; k < in->call_count; k++)
    if (d->calls[in->call_first + k].target >= 0) body_comp = d->calls[in->call_first + k].target;
  json_object_set_new(fb, "hlo_kind", hs_hlo_of(d, in)->kind.len ? hs_json_slice(d, hs_hlo_of(d, in)->kind) : json_null());
  json_object_set_new(fb, "hlo_body", body_comp >= 0 ? hs_json_slice(d, d->comps[body_comp].name) : json_null());
  json_object_set_new(fb, "hlo_body_instructions", json_integer(body_comp >= 0 ? d->comps[body_comp].count : 0));
  json_object_set_new(fb, "llvm_function", jslice(m, f->name));
  json_object_set_new(o, "fusion", fb);
  /* names -> %N */
  json_t *nm = json_object();
  json_t *hn = json_array();
  if (body_comp >= 0) {
    const hs_comp *c = &d->comps[body_comp];
    for (uint32_t k = 0; k < c->count && k < 32; k++) json_array_append_new(hn, hs_json_slice(d, d->instrs[c->first + k].name));
  } else {
    json_array_append_new(hn, hs_json_slice(d, in->name));
  }
  json_object_set_new(nm, "hlo_names", hn);
  json_object_set_new(nm, "llvm_numbered", json_integer(f->numbered));
  json_object_set_new(nm, "llvm_named", json_integer(f->named));
  json_object_set_new(o, "names", nm);
  return o;
}

char *hs_llvm_json(const hs_llvm *m, const hs_doc *hlo, size_t *len) {
  if (!m) return NULL;
  json_t *root = json_object();
  json_object_set_new(root, "module", m->module_id.len ? jslice(m, m->module_id) : json_null());
  json_object_set_new(root, "triple", m->triple.len ? jslice(m, m->triple) : json_null());
  json_t *fa = json_array(), *dropped = json_array(), *declared = json_array();
  ll_join join;
  join_build(&join, hlo);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const ll_func *f = &m->funcs[i];
    if (!f->defined) {
      json_array_append_new(declared, jslice(m, f->name));
      continue;
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", jslice(m, f->name));
    int32_t hi = join_hlo(&join, m->text + f->name.off, f->name.len);
    json_object_set_new(o, "hlo", hi >= 0 ? hs_json_slice(hlo, hlo->instrs[hi].name) : json_null());
    json_object_set_new(o, "kernel", json_boolean(!f->local));
    json_object_set_new(o, "line", json_integer(f->line));
    json_object_set_new(o, "end_line", json_integer(f->end_line));
    json_t *pa = json_array();
    for (uint32_t k = 0; k < f->n_params; k++) {
      const ll_param *p = &m->params[f->param_first + k];
      json_t *po = json_object();
      json_object_set_new(po, "name", p->name.len ? jslice(m, p->name) : json_null());
      json_object_set_new(po, "type", jslice(m, p->type));
      json_object_set_new(po, "noalias", json_boolean(p->noalias));
      json_object_set_new(po, "align", p->align >= 0 ? json_integer(p->align) : json_null());
      json_object_set_new(po, "dereferenceable", p->deref >= 0 ? json_integer(p->deref) : json_null());
      json_object_set_new(po, "text", jslice(m, p->attrs));
      json_array_append_new(pa, po);
    }
    json_object_set_new(o, "params", pa);
    json_object_set_new(o, "blocks", json_integer(f->n_blocks));
    json_t *la = json_array();
    for (uint32_t k = 0; k < f->n_loops; k++) {
      const ll_loop *L = &m->loops[f->loop_first + k];
      json_t *lo = json_object();
      json_object_set_new(lo, "depth", json_integer(L->depth));
      /* times the loop body runs: LLVM's backedge-taken count, plus one when the loop is
       * bottom-tested (the exit test is not in the header) */
      json_object_set_new(lo, "trip_count", L->backedge_taken >= 0 ? json_integer(L->backedge_taken + (L->top_tested ? 0 : 1)) : json_null());
      json_object_set_new(lo, "backedge_taken", L->backedge_taken >= 0 ? json_integer(L->backedge_taken) : json_null());
      json_object_set_new(lo, "header", jslice(m, m->blocks[L->header].name));
      json_object_set_new(lo, "blocks", json_integer(L->n_blocks));
      json_object_set_new(lo, "first_line", json_integer(L->first_line));
      json_object_set_new(lo, "last_line", json_integer(L->last_line));
      json_array_append_new(la, lo);
    }
    json_object_set_new(o, "loops", la);
    json_t *vw = json_array(), *loads = json_object(), *stores = json_object(), *ops = json_object(),
           *calls = json_object(), *op_lines = json_object();
    uint32_t n_loads = 0, n_stores = 0;
    for (uint32_t b = 0; b < f->n_blocks; b++) {
      const ll_block *bl = &m->blocks[f->block_first + b];
      for (uint32_t k = 0; k < bl->count; k++) {
        const ll_instr *in = &m->instrs[bl->first + k];
        const char *t = m->text;
        /* vector types anywhere in the instruction */
        for (size_t q = in->rest.off; q < in->rest.off + in->rest.len; q++) {
          if (t[q] != '<') continue;
          size_t qe = in->rest.off + in->rest.len, s = q + 1;
          if (hs_starts(t, qe, s, "vscale x ")) s += 9;
          bool ok;
          parse_int(t, qe, s, &ok);
          size_t dd = s;
          while (dd < qe && t[dd] >= '0' && t[dd] <= '9') dd++;
          if (dd == s || !hs_starts(t, qe, dd, " x ")) continue;
          size_t te = scan_type(t, qe, q);
          bool dup = false;
          for (size_t g = 0; g < json_array_size(vw); g++) {
            const char *sv = json_string_value(json_array_get(vw, g));
            if (sv && strlen(sv) == te - q && memcmp(sv, t + q, te - q) == 0) dup = true;
          }
          if (!dup && json_array_size(vw) < 64) json_array_append_new(vw, hs_json_bytes(t + q, te - q));
          q = te - 1;
        }
        char key[64];
        size_t kn;
        json_t *lines;
        switch (in->kind) {
          case LL_I_LOAD:
            n_loads++;
            bumpn(loads, t + in->vtype.off, in->vtype.len);
            break;
          case LL_I_STORE:
            n_stores++;
            bumpn(stores, t + in->vtype.off, in->vtype.len);
            break;
          case LL_I_CALL:
            if (in->vtype.len) bumpn(calls, t + in->vtype.off, in->vtype.len);
            else bump(calls, "(indirect)");
            kn = in->vtype.len < sizeof key - 1 ? in->vtype.len : sizeof key - 1;
            memcpy(key, t + in->vtype.off, kn);
            key[kn] = 0;
            for (size_t z = 0; z < kn; z++)
              if ((unsigned char)key[z] >= 127 || (unsigned char)key[z] < 32) key[z] = '?';
            if (kn) {
              lines = json_object_get(op_lines, key);
              if (!lines) json_object_set_new(op_lines, key, lines = json_array());
              json_array_append_new(lines, json_integer(in->line));
            }
            break;
          default:
            if (!in->opcode.len) break;
            bumpn(ops, t + in->opcode.off, in->opcode.len);
            kn = in->opcode.len < sizeof key - 1 ? in->opcode.len : sizeof key - 1;
            memcpy(key, t + in->opcode.off, kn);
            key[kn] = 0;
            lines = json_object_get(op_lines, key);
            if (!lines) json_object_set_new(op_lines, key, lines = json_array());
            json_array_append_new(lines, json_integer(in->line));
        }
      }
    }
    json_object_set_new(o, "vector_widths", vw);
    json_t *lo = json_object();
    json_object_set_new(lo, "count", json_integer(n_loads));
    json_object_set_new(lo, "types", loads);
    json_object_set_new(o, "loads", lo);
    json_t *so = json_object();
    json_object_set_new(so, "count", json_integer(n_stores));
    json_object_set_new(so, "types", stores);
    json_object_set_new(o, "stores", so);
    json_object_set_new(o, "ops", ops);
    json_object_set_new(o, "calls", calls);
    json_object_set_new(o, "op_lines", op_lines);
    json_array_append_new(fa, o);
    if (hi >= 0) json_array_append_new(dropped, dropped_for(m, f, hlo, hi));
  }
  join_free(&join);
  json_object_set_new(root, "functions", fa);
  json_object_set_new(root, "declared", declared);
  json_object_set_new(root, "dropped", dropped);
  json_object_set_new(root, "warnings", hs_warnings_json(m->warnings, m->n_warnings));
  return hs_json_finish(root, len);
}
