/* The StableHLO (MLIR text) reader: pretty and generic forms, regions, loc tables.
 *
 * One pass over the lines with a stack of open braces (module, function, region). Each op line
 * gets its result type(s) in the canonical array form, so the x-ray can match it against the
 * optimized HLO. Operands are not resolved: nothing downstream needs them yet. */
#include "doc/doc.h"

#include <stdio.h>

enum { SB_MODULE = 1, SB_FUNC, SB_REGION };

/* The end of the line's meaningful part: drops a trailing " loc(...)" and spaces. */
static size_t strip_loc(const char *t, size_t s, size_t e) {
  while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\r' || t[e - 1] == '\t')) e--;
  if (e > s && t[e - 1] == ')') {
    /* find the matching "loc(" */
    int depth = 0;
    size_t k = e;
    while (k > s) {
      k--;
      if (t[k] == ')') depth++;
      else if (t[k] == '(') {
        if (--depth == 0) break;
      }
    }
    if (depth == 0 && k >= s + 3 && memcmp(t + k - 3, "loc", 3) == 0 && (k - 3 == s || t[k - 4] == ' ')) {
      e = k - 3;
      while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t')) e--;
    }
  }
  return e;
}

/* The position after the last " : " at bracket depth 0, or 0 if none. */
static size_t last_colon(const char *t, size_t s, size_t e) {
  int depth = 0;
  size_t found = 0;
  for (size_t p = s; p < e; p++) {
    char c = t[p];
    if (c == '"') {
      p = hs_skip_string(t, e, p) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') depth++;
    else if (c == ')' || c == ']' || c == '}' || (c == '>' && !(p > s && t[p - 1] == '-'))) {
      if (depth > 0) depth--; /* a leading "})" closes what an earlier line opened */
    } else if (c == ':' && depth == 0 && p > s && t[p - 1] == ' ' && p + 1 < e && t[p + 1] == ' ') found = p + 2;
  }
  return found;
}

/* Reads "T", "T, U" or "(A, B) -> R" / "(A) -> (R, S)": the results as one type (a tuple when
 * there are several). */
static hs_type *read_result_types(hs_arena *a, const char *t, size_t s, size_t e, bool fn_type) {
  size_t p = hs_skip_sp(t, e, s);
  if (fn_type && p < e && t[p] == '(') {
    /* function type: skip the inputs */
    int depth = 0;
    size_t q = p;
    for (; q < e; q++) {
      if (t[q] == '(' || t[q] == '<') depth++;
      else if (t[q] == ')' || (t[q] == '>' && t[q - 1] != '-')) {
        if (--depth == 0) break;
      }
    }
    q = q < e ? hs_skip_sp(t, e, q + 1) : e;
    if (hs_starts(t, e, q, "->")) p = hs_skip_sp(t, e, q + 2); /* else a parenthesised list of results */
  }
  bool paren = p < e && t[p] == '(';
  if (paren) p++;
  /* a function may return thousands of values (a train step's parameters): no cap */
  hs_type *stack[64], **el = stack;
  size_t n = 0, cap = 64;
  while (p < e) {
    p = hs_skip_sp(t, e, p);
    if (p < e && t[p] == ')') break;
    size_t q = p;
    hs_type *ty = hs_parse_mlir_type(a, t, e, &q);
    if (!ty) break;
    if (n == cap) {
      hs_type **more = malloc(2 * cap * sizeof *more);
      if (!more) break;
      memcpy(more, el, n * sizeof *el);
      if (el != stack) free(el);
      el = more;
      cap *= 2;
    }
    el[n++] = ty;
    p = hs_skip_sp(t, e, q);
    /* result attributes: tensor<...> {jax.result_info = ""} */
    if (p < e && t[p] == '{') {
      int depth = 0;
      for (; p < e; p++) {
        if (t[p] == '"') {
          p = hs_skip_string(t, e, p) - 1;
          continue;
        }
        if (t[p] == '{') depth++;
        else if (t[p] == '}' && --depth == 0) {
          p++;
          break;
        }
      }
      p = hs_skip_sp(t, e, p);
    }
    if (p < e && t[p] == ',') {
      p++;
      continue;
    }
    break;
  }
  hs_type *tu = n == 0 ? NULL : n == 1 ? el[0] : hs_make_tuple(a, el, n);
  if (el != stack) free(el);
  return tu;
}

/* The reader's state: the stack of open braces and the line being read. */
typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  uint8_t stack_kind[256]; /* SB_* */
  int32_t stack_ref[256];  /* module, computation or instruction index; -1 for a bare region */
  int depth, overflow;     /* braces deeper than the stack are only counted */
  int32_t module, func;    /* open module and function, -1 */
  uint32_t line_no;
  /* the line: [ls, le), first non-blank q, meaningful end e (loc(...) dropped) */
  size_t ls, le, q, e;
  bool last;  /* no '\n' after the line */
  bool opens; /* the line ends with '{' */
  uint8_t kind;
  uint32_t ref;
} shlo_reader;

static int shlo_oom(shlo_reader *R) {
  hs_doc_error(R->err, HS_E_NOMEM, R->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

/* Opens a brace when the line ends with '{'. */
static void push_brace(shlo_reader *R, uint8_t kind, int32_t ref) {
  if (!R->opens) return;
  if (R->depth < 256) {
    R->stack_kind[R->depth] = kind;
    R->stack_ref[R->depth] = ref;
    R->depth++;
  } else {
    R->overflow++;
  }
}

/* "module @name {" (or "module {") */
static int read_module_line(shlo_reader *R) {
  const char *t = R->t;
  size_t r = hs_skip_sp(t, R->le, R->q + 6);
  hs_slice name = {0, 0};
  if (r < R->le && t[r] == '@') {
    size_t s = ++r;
    while (r < R->le && t[r] != ' ' && t[r] != '{' && t[r] != '(') r++;
    name = hs_sl((uint32_t)s, (uint32_t)(r - s));
  }
  R->module = hs_doc_open_module(R->d, name, R->line_no);
  if (R->module < 0) return shlo_oom(R);
  R->kind = HS_LINE_MODULE;
  R->ref = (uint32_t)R->module;
  push_brace(R, SB_MODULE, R->module);
  return 0;
}

/* "func.func public @main(%arg0: tensor<...>) -> (tensor<...>) {" */
static int read_func_header(shlo_reader *R) {
  hs_doc *d = R->d;
  const char *t = R->t;
  size_t q = R->q, le = R->le, e = R->e;
  if (R->module < 0) {
    R->module = hs_doc_open_module(d, hs_sl(0, 0), R->line_no);
    if (R->module < 0) return shlo_oom(R);
  }
  hs_slice name = {0, 0};
  hs_type *result = NULL;
  const char *at = memchr(t + q, '@', le - q);
  if (at) {
    size_t s = (size_t)(at - t) + 1, r = s;
    while (r < le && t[r] != '(' && t[r] != ' ') r++;
    name = hs_sl((uint32_t)s, (uint32_t)(r - s));
    /* the result types follow the ")" that closes the arguments */
    int dp = 0;
    size_t k = r;
    for (; k < e; k++) {
      if (t[k] == '"') {
        k = hs_skip_string(t, e, k) - 1;
        continue;
      }
      if (t[k] == '(') dp++;
      else if (t[k] == ')' && --dp == 0) break;
    }
    k = hs_skip_sp(t, e, k + 1);
    if (hs_starts(t, e, k, "->")) result = read_result_types(&d->arena, t, k + 2, R->opens ? e - 1 : e, false);
  }
  R->func = hs_doc_open_comp(d, (uint32_t)R->module, name, R->line_no, HS_ROLE_FUNCTION);
  if (R->func < 0) return shlo_oom(R);
  d->comps[R->func].result = result;
  if (hs_slice_is(d, name, "main")) d->modules[R->module].entry = R->func;
  R->kind = HS_LINE_COMP;
  R->ref = (uint32_t)R->func;
  push_brace(R, SB_FUNC, R->func);
  return 0;
}

/* A line starting with '}': closes one brace; "} do {" or "}, {" opens the next region at once. */
static int read_close(shlo_reader *R) {
  hs_doc *d = R->d;
  int32_t closed_ref = -1;
  uint8_t closed_kind = 0;
  if (R->overflow) R->overflow--;
  else if (R->depth > 0) {
    R->depth--;
    closed_kind = R->stack_kind[R->depth];
    closed_ref = R->stack_ref[R->depth];
  }
  if (closed_kind == SB_FUNC) {
    hs_doc_close_comp(d, (uint32_t)closed_ref, R->line_no);
    R->kind = HS_LINE_CLOSE;
    R->ref = (uint32_t)closed_ref;
    R->func = -1;
  } else if (closed_kind == SB_MODULE) {
    R->kind = HS_LINE_CLOSE;
    R->ref = (uint32_t)closed_ref;
    R->module = -1;
  } else {
    R->kind = HS_LINE_REGION;
    R->ref = closed_ref >= 0 ? (uint32_t)closed_ref : 0;
    /* "}) : (...) -> T" gives the type of the op that opened the region */
    if (closed_kind == SB_REGION && closed_ref >= 0 && !d->instrs[closed_ref].type) {
      size_t c = last_colon(R->t, R->q, R->e);
      if (c) d->instrs[closed_ref].type = read_result_types(&d->arena, R->t, c, R->e, true);
    }
    push_brace(R, SB_REGION, closed_ref);
  }
  return 0;
}

/* An op: "%0 = stablehlo.add ...", "%0:2 = ...", "\"stablehlo.foo\"(...)", "return ...",
 * "stablehlo.return %1 : ..."; not a region label ("cond {", "reducer(...)", "do {"). */
static bool is_op_line(const char *t, size_t q, size_t e, size_t le) {
  return t[q] == '%' || t[q] == '"' || hs_starts(t, e, q, "return ") || hs_starts(t, e, q, "return\r") ||
         (q + 6 == e && hs_starts(t, e, q, "return")) ||
         (t[q] >= 'a' && t[q] <= 'z' && memchr(t + q, '.', e - q) && !hs_starts(t, le, q, "cond") &&
          !hs_starts(t, le, q, "reducer") && !hs_starts(t, le, q, "do "));
}

/* Returns 0, an HS_E_* code, or 1 when the text ends inside this line (it was skipped). */
static int read_op_line(shlo_reader *R) {
  hs_doc *d = R->d;
  const char *t = R->t;
  size_t q = R->q, e = R->e;
  size_t r = q;
  hs_slice name = {0, 0};
  if (t[q] == '%') {
    size_t s = q + 1;
    r = s;
    while (r < e && t[r] != ' ' && t[r] != ':' && t[r] != ',' && t[r] != '=') r++;
    name = hs_sl((uint32_t)s, (uint32_t)(r - s));
    /* skip to '=' (several results: "%0, %1 = ...", "%0:2 = ...") */
    while (r < e && t[r] != '=') r++;
    if (r >= e) {
      if (R->last) {
        hs_warn_truncated_line(d, R->line_no);
        return 1;
      }
      hs_doc_error(R->err, HS_E_SYNTAX, d, q, "expected '=' after the result name of an op");
      return HS_E_SYNTAX;
    }
    r = hs_skip_sp(t, e, r + 1);
  }
  size_t os = r, oe;
  if (r < e && t[r] == '"') {
    oe = hs_skip_string(t, e, r);
    os++;
    oe = oe > os ? oe - 1 : os;
    r = oe + 1;
  } else {
    while (r < e && t[r] != ' ' && t[r] != '(' && t[r] != '<') r++;
    oe = r;
  }
  /* ops outside any function are still counted, in computation 0 */
  hs_instr *in = hs_doc_add_instr(d, name, hs_sl((uint32_t)os, (uint32_t)(oe - os)), R->line_no,
                                  R->func >= 0 ? (uint32_t)R->func : 0);
  if (!in) return shlo_oom(R);
  bool is_return = hs_slice_is(d, in->opcode, "return") || hs_slice_is(d, in->opcode, "func.return") ||
                   hs_slice_is(d, in->opcode, "stablehlo.return");
  if (is_return && R->func >= 0 && R->depth > 0 && R->stack_kind[R->depth - 1] == SB_FUNC) {
    in->is_root = 1;
    d->comps[R->func].root = (int32_t)(d->n_instrs - 1);
  }
  if (name.len) {
    size_t c = last_colon(t, r, R->opens ? e - 1 : e);
    if (c) in->type = read_result_types(&d->arena, t, c, R->opens ? e - 1 : e, true);
  }
  R->kind = HS_LINE_INSTR;
  R->ref = d->n_instrs - 1;
  push_brace(R, SB_REGION, (int32_t)R->ref);
  return 0;
}

/* MLIR text at the start: a module, a function, a location or attribute alias, the generic form. */
/* "module" must stand alone ("module @m", "module {"): a pasted dump-folder listing starts with
 * "module_0001..." and is not StableHLO. */
static int starts_module_word(const char *text, size_t len, size_t p) {
  if (!hs_starts(text, len, p, "module")) return 0;
  p += 6;
  return p >= len || text[p] == ' ' || text[p] == '@' || text[p] == '{' || text[p] == '\t' || text[p] == '\n' ||
         text[p] == '\r' || text[p] == '(' || text[p] == '"';
}

int hs_detect_stablehlo(const char *text, size_t len, size_t p) {
  if (starts_module_word(text, len, p) || hs_starts(text, len, p, "func.func") || hs_starts(text, len, p, "#loc") ||
      hs_starts(text, len, p, "\"builtin.module\"") || hs_starts(text, len, p, "#map") || hs_starts(text, len, p, "func @"))
    return 100;
  return 0;
}

/* The driver: one line at a time, dispatched on its first bytes. */
int hs_parse_stablehlo_text(hs_doc *d, hs_error *err) {
  shlo_reader R = {.d = d, .err = err, .t = d->text, .len = d->len, .module = -1, .func = -1};
  const char *t = d->text;
  size_t p = 0;
  while (p < R.len) {
    R.line_no = d->n_lines + 1;
    const char *nl = memchr(t + p, '\n', R.len - p);
    R.ls = p;
    R.le = nl ? (size_t)(nl - t) : R.len;
    R.last = !nl;
    R.q = hs_skip_sp(t, R.le, p);
    R.e = strip_loc(t, R.q, R.le);
    R.opens = R.e > R.q && t[R.e - 1] == '{';
    R.kind = HS_LINE_OTHER;
    R.ref = 0;
    size_t q = R.q, le = R.le;
    int rc = 0;
    if (q >= le) {
      R.kind = HS_LINE_BLANK;
    } else if (hs_starts(t, le, q, "//")) {
      R.kind = HS_LINE_COMMENT;
    } else if (t[q] == '#' || hs_starts(t, le, q, "loc(")) {
      R.kind = HS_LINE_TABLE;
    } else if (hs_starts(t, le, q, "module") && (q + 6 >= le || t[q + 6] == ' ' || t[q + 6] == '{')) {
      rc = read_module_line(&R);
    } else if (hs_starts(t, le, q, "func.func") || hs_starts(t, le, q, "func @")) {
      rc = read_func_header(&R);
    } else if (t[q] == '}') {
      rc = read_close(&R);
    } else if (is_op_line(t, q, R.e, le)) {
      rc = read_op_line(&R);
    } else {
      /* region structure: "^bb0(...):", "cond {", "reducer(...) {", ... */
      R.kind = HS_LINE_REGION;
      push_brace(&R, SB_REGION, -1);
    }
    if (rc < 0) return rc;
    if (!hs_doc_add_line(d, (uint32_t)p, R.kind, R.ref)) return shlo_oom(&R);
    if (rc > 0 || R.last) break;
    p = R.le + 1;
  }
  if (R.func >= 0) hs_doc_close_comp(d, (uint32_t)R.func, 0);
  if (R.depth > 0 || R.overflow) {
    hs_doc_warn(d, HS_W_TRUNCATED, d->n_lines, 1,
                "the text ends with %d braces still open: it looks truncated; the results cover what was read",
                R.depth + R.overflow);
  }
  if (!d->n_comps && !d->n_instrs) {
    hs_doc_error(err, HS_E_FORMAT, d, 0, "no StableHLO function found: expected 'func.func public @main(...)' inside 'module @name {'");
    return HS_E_FORMAT;
  }
  return 0;
}
