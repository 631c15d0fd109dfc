/* The LLVM IR model (llvm.c reads it, llvm_loops.c finds its loops, llvm_json.c writes it and
 * joins it to the HLO): its structs, the small scanners the three share (inline), and what they
 * call of each other. The llvm/ folder's header. */
#ifndef HS_LLVM_H
#define HS_LLVM_H

#include "doc/doc.h"

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
  /* defines, and those carrying local_unnamed_addr: LLVM's optimizer adds that attribute (XLA's
     emitter never writes it), so it tells an *.ir-with-opt.ll from an *.ir-no-opt.ll */
  uint32_t n_defines, n_unnamed_defines;
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
  hs_diag diag; /* at most 40 warnings, none summarised */
  /* name tables of the function being finished (open addressing, index + 1, 0 = empty) */
  uint32_t *btab, *vtab;
  uint32_t bcap, vcap;
  uint64_t scan_budget; /* instruction visits left for the alloca'd-counter scans */
};

/* The format registry's detect function for LLVM IR (llvm.c): 100 or 0. */
int hs_detect_llvm(const char *t, size_t len, size_t first);
/* A warning on line `line` (at most 40 are kept). */
void hs_ll_warn(hs_llvm *m, int code, uint32_t line, const char *fmt, ...);
/* llvm_loops.c: after a function's last line: its blocks' successors resolved, its loops found
 * (nesting depth, trip counts), its name tables freed. */
void hs_ll_finish_function(hs_llvm *m, ll_func *f);

/* ---- small scanners ------------------------------------------------------------------ */
static inline bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

/* A local or global name at t[p] ('%' or '@' already skipped): quoted or bare. */
static inline hs_slice scan_name(const char *t, size_t end, size_t p, size_t *after) {
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
static inline size_t scan_type(const char *t, size_t end, size_t p) {
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

static inline bool word_at(const char *t, size_t end, size_t p, const char *w) {
  size_t n = strlen(w);
  return hs_starts(t, end, p, w) && (p + n >= end || !is_ident(t[p + n]));
}

static inline int64_t parse_int(const char *t, size_t end, size_t p, bool *ok) {
  bool neg = false;
  if (p < end && t[p] == '-') neg = true, p++;
  int64_t v = 0;
  size_t s = p;
  while (p < end && t[p] >= '0' && t[p] <= '9' && v < ((int64_t)1 << 58)) v = v * 10 + (t[p++] - '0');
  *ok = p > s && (p >= end || !is_ident(t[p]));
  return neg ? -v : v;
}

#endif
