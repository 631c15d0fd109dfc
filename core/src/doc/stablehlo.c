/* The StableHLO (MLIR text) reader: pretty and generic forms, regions, loc tables.
 *
 * One pass over the bytes, op by op as MLIR's grammar has them (issue 40): an op is one
 * instruction whatever its line count. A stack of open brackets says where the reader is: the
 * brackets of the op being read ( ( [ < and attribute dictionaries { ), and the regions (a
 * module's, a function's, an op's). An op ends at a line break once its brackets are closed and
 * nothing says it goes on (a generic op before its `: (...) -> ...`, a line ending in `,`, `:`,
 * `=` or `->`, a next line starting with `:`, `->`, `,`, `=` or `loc(`), or at the `}` of the
 * region it is in. A `{` inside an op opens a region or an attribute dictionary: in the generic
 * form a region follows `(` or `,` inside the parentheses after the operands; in the pretty form
 * the bytes after it decide (`name =`, `name,`, `name}`, a lone `name` without a dot: a
 * dictionary, with unit attributes; anything else: a region). A region opened inside an op
 * keeps the op's state, and the op goes on when the region closes (`}) : (...) -> T`).
 * `func.func` and `builtin.module` in generic form are functions and modules, as in the pretty
 * form; a function without a module around it gets an anonymous one, and `// -----` (MLIR's
 * -split-input-file) starts a new module. Each op gets its result type(s) in the canonical
 * array form, so the x-ray can match it against the optimized HLO. Operands are not resolved:
 * nothing downstream needs them yet. */
#include "doc/doc.h"

#include <stdio.h>

/* frames: what a bracket opened */
enum { F_PAREN = 1, F_SQUARE, F_ANGLE, F_DICT, F_REGION, F_FUNC, F_MODULE };
/* what a statement is */
enum { S_INSTR = 1, S_FUNC, S_MODULE, S_LABEL };
#define SHLO_DEPTH 256

/* The end of the meaningful part of [s, e): drops a trailing " loc(...)" and blanks. */
static size_t strip_loc(const char *t, size_t s, size_t e) {
  while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\r' || t[e - 1] == '\t' || t[e - 1] == '\n')) e--;
  if (e > s && t[e - 1] == ')') {
    int depth = 0;
    size_t k = e;
    while (k > s) {
      k--;
      if (t[k] == ')') depth++;
      else if (t[k] == '(') {
        if (--depth == 0) break;
      }
    }
    if (depth == 0 && k >= s + 3 && memcmp(t + k - 3, "loc", 3) == 0 &&
        (k - 3 == s || t[k - 4] == ' ' || t[k - 4] == '\n' || t[k - 4] == '\t')) {
      e = k - 3;
      while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t' || t[e - 1] == '\n' || t[e - 1] == '\r')) e--;
    }
  }
  return e;
}

static size_t skip_ws(const char *t, size_t e, size_t p) {
  while (p < e && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
  return p;
}

/* Reads "T", "T, U" or "(A, B) -> R" / "(A) -> (R, S)": the results as one type (a tuple when
 * there are several). */
static hs_type *read_result_types(hs_arena *a, const char *t, size_t s, size_t e, bool fn_type) {
  size_t p = skip_ws(t, e, s);
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
    q = q < e ? skip_ws(t, e, q + 1) : e;
    if (hs_starts(t, e, q, "->")) p = skip_ws(t, e, q + 2); /* else a parenthesised list of results */
  }
  bool paren = p < e && t[p] == '(';
  if (paren) p++;
  /* a function may return thousands of values (a train step's parameters): no cap */
  hs_type *stack[64], **el = stack;
  size_t n = 0, cap = 64;
  while (p < e) {
    p = skip_ws(t, e, p);
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
    p = skip_ws(t, e, q);
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
      p = skip_ws(t, e, p);
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

/* The statement being read: an op, a function or module header, a region label. */
typedef struct {
  uint8_t what;     /* S_*, 0: none (between statements) */
  bool generic;     /* "dialect.op"(...) */
  bool has_results; /* %r = ... */
  bool header_done; /* function or module: name and result read */
  bool body;        /* function or module: its region opened */
  bool arrow;       /* `->` after the last colon at the op's own depth */
  bool last_arrow;  /* the last token was `->` */
  bool table;       /* an alias line ("#loc3 = loc(...)"): its braces are attributes */
  bool operands;    /* a generic op's operand list is open (the first '(' after its name) */
  bool named;       /* a generic op's name was read, and nothing after it yet */
  bool last_is_run; /* the last thing read was a run of plain bytes, [run_s, run_e) */
  char last;        /* the last bracket, quote or colon read (stmt_last: the last byte not blank) */
  size_t run_s, run_e;
  int base;         /* the stack depth when the statement started */
  int32_t instr;    /* S_INSTR: its instruction; S_FUNC: its computation; S_MODULE: its module */
  size_t start;     /* offset of its first byte */
  size_t colon;     /* after the last ':' at its own depth, 0 if none */
} shlo_stmt;

typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  uint8_t kind[SHLO_DEPTH];       /* F_* */
  int32_t ref[SHLO_DEPTH];        /* region: the op that owns it (-1); function: computation; module */
  shlo_stmt saved[SHLO_DEPTH];    /* region, function, module: the statement that goes on after it */
  int depth, overflow;            /* brackets deeper than the stack are only counted */
  int32_t module, func;           /* open module and function, -1 */
  size_t line_start;              /* offset of the current line */
  bool fresh;                     /* nothing read yet on the current line */
  bool warned_line;               /* a syntax warning was given on this line */
  size_t peek_from, peek_at;      /* next_token's last answer: after peek_from, peek_at */
  bool peek_blank;                /* only blanks between them */
  shlo_stmt st;
} shlo_reader;

static inline uint32_t line_no(const shlo_reader *R) { return R->d->n_lines; }

static int shlo_oom(shlo_reader *R) {
  hs_doc_error(R->err, HS_E_NOMEM, R->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

/* The current line's record: its kind and ref, the first time something is read on it. */
static void mark_line(shlo_reader *R, uint8_t kind, uint32_t ref) {
  if (!R->fresh) return;
  R->fresh = false;
  if (ref > HS_LINE_REF_MAX) ref = 0;
  hs_line *l = &R->d->lines[R->d->n_lines - 1];
  l->kind = kind;
  l->ref = ref;
}

/* A syntax problem MLIR's parser refuses: one warning per line. */
static void syntax_warn(shlo_reader *R, size_t p, const char *what) {
  if (R->warned_line) return;
  R->warned_line = true;
  hs_doc_warn(R->d, HS_W_SKIPPED_LINE, line_no(R), (uint32_t)(p - R->line_start + 1),
              "%s: MLIR's parser refuses this; the op is read as far as it goes", what);
}

static bool push(shlo_reader *R, uint8_t kind, int32_t ref) {
  if (R->depth >= SHLO_DEPTH) {
    R->overflow++;
    return false;
  }
  R->kind[R->depth] = kind;
  R->ref[R->depth] = ref;
  R->saved[R->depth].what = 0;
  R->depth++;
  return true;
}

/* "func.func public @main(%arg0: tensor<...>) -> (tensor<...>) attributes {...}" in [s, e), or
 * the generic "\"func.func\"() <{function_type = (...) -> ..., sym_name = \"main\"}>". */
static void read_func_header(shlo_reader *R, size_t s, size_t e) {
  hs_doc *d = R->d;
  const char *t = R->t;
  hs_comp *c = &d->comps[R->st.instr];
  R->st.header_done = true;
  if (R->st.generic) {
    size_t k = hs_find(t, s, e, "sym_name = \"");
    if (k != SIZE_MAX) {
      size_t ns = k + 12, ne = hs_skip_string(t, e, ns - 1);
      if (ne > ns) c->name = hs_sl((uint32_t)ns, (uint32_t)(ne - 1 - ns));
    }
    k = hs_find(t, s, e, "function_type = ");
    if (k != SIZE_MAX) c->result = read_result_types(&d->arena, t, k + 16, e, true);
  } else {
    const char *at = memchr(t + s, '@', e - s);
    if (at) {
      size_t ns = (size_t)(at - t) + 1, r = ns;
      if (r < e && t[r] == '"') r = hs_skip_string(t, e, r);
      else
        while (r < e && t[r] != '(' && t[r] != ' ' && t[r] != '\n' && t[r] != '\t') r++;
      c->name = hs_sl((uint32_t)ns, (uint32_t)(r - ns));
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
      k = skip_ws(t, e, k + 1);
      if (hs_starts(t, e, k, "->")) c->result = read_result_types(&d->arena, t, k + 2, e, false);
    }
  }
  if (hs_slice_is(d, c->name, "main")) d->modules[c->module].entry = R->st.instr;
}

static void read_module_header(shlo_reader *R, size_t s, size_t e) {
  hs_module *m = &R->d->modules[R->st.instr];
  const char *t = R->t;
  R->st.header_done = true;
  if (R->st.generic) {
    size_t k = hs_find(t, s, e, "sym_name = \"");
    if (k != SIZE_MAX) {
      size_t ns = k + 12, ne = hs_skip_string(t, e, ns - 1);
      if (ne > ns) m->name = hs_sl((uint32_t)ns, (uint32_t)(ne - 1 - ns));
    }
  } else {
    size_t r = skip_ws(t, e, s + 6);
    if (r < e && t[r] == '@') {
      size_t ns = ++r;
      while (r < e && t[r] != ' ' && t[r] != '{' && t[r] != '(' && t[r] != '\n' && t[r] != '\t') r++;
      m->name = hs_sl((uint32_t)ns, (uint32_t)(r - ns));
    }
  }
}

static void close_func(shlo_reader *R, int32_t comp) {
  hs_doc_close_comp(R->d, (uint32_t)comp, line_no(R));
  if (R->func == comp) R->func = -1;
}

/* Ends the statement at `end` (a line break, the `}` of the region around it, the text's end). */
static void end_stmt(shlo_reader *R, size_t end) {
  shlo_stmt *st = &R->st;
  hs_doc *d = R->d;
  if (st->what == S_INSTR && st->generic && (!st->colon || !st->arrow))
    syntax_warn(R, end, "a generic op without its type (': (operand types) -> result types')");
  if (st->what == S_INSTR && st->has_results && st->colon && st->instr >= 0) {
    size_t e = strip_loc(R->t, st->colon, end);
    if (e > st->colon) d->instrs[st->instr].type = read_result_types(&d->arena, R->t, st->colon, e, true);
  } else if (st->what == S_FUNC && !st->body) {
    /* a declaration (no body), or a generic one whose region was empty */
    if (!st->header_done) read_func_header(R, st->start, end);
    close_func(R, st->instr);
  } else if (st->what == S_MODULE && !st->header_done) {
    read_module_header(R, st->start, end);
  }
  st->what = 0;
}

/* Opens a function (a computation; a module first when none is open) at statement start. */
static int open_func(shlo_reader *R) {
  hs_doc *d = R->d;
  if (R->module < 0) {
    R->module = hs_doc_open_module(d, hs_sl(0, 0), line_no(R), (uint32_t)R->line_start);
    if (R->module < 0) return shlo_oom(R);
  }
  if (R->func >= 0) close_func(R, R->func); /* a function inside a function: MLIR refuses it */
  R->func = hs_doc_open_comp(d, (uint32_t)R->module, hs_sl(0, 0), line_no(R), HS_ROLE_FUNCTION);
  if (R->func < 0) return shlo_oom(R);
  R->st.what = S_FUNC;
  R->st.instr = R->func;
  mark_line(R, HS_LINE_COMP, (uint32_t)R->func);
  return 0;
}

static int open_module(shlo_reader *R) {
  R->module = hs_doc_open_module(R->d, hs_sl(0, 0), line_no(R), (uint32_t)R->line_start);
  if (R->module < 0) return shlo_oom(R);
  R->st.what = S_MODULE;
  R->st.instr = R->module;
  mark_line(R, HS_LINE_MODULE, (uint32_t)R->module);
  return 0;
}

/* Bytes of names: 1 letters, digits, '_', '$', '.' (a name's), 2 '-' (a word's too). */
static const uint8_t ID[256] = {
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1,
    ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['_'] = 1, ['$'] = 1, ['.'] = 1, ['-'] = 2};
static inline bool id_char(char c) { return ID[(uint8_t)c] != 0; }
static inline bool name_char(char c) { return ID[(uint8_t)c] == 1; } /* id_char but '-' */
/* Where an op's name ends: a blank, a bracket, a line break. */
static const uint8_t OPEND[256] = {[' '] = 1, ['('] = 1, ['<'] = 1, ['\n'] = 1, ['{'] = 1, ['\r'] = 1, ['\t'] = 1};
static inline bool two(const char *t, size_t e, size_t p, char a, char b) { return p + 1 < e && t[p] == a && t[p + 1] == b; }
/* Where a string's scan stops: its end, a line break (MLIR refuses it), an escape. */
static const uint8_t STR_STOP[256] = {['"'] = 1, ['\n'] = 1, ['\\'] = 1};
/* The end of the string at t[p] == '"' on its line: after its closing quote, or the line break
 * (or the text's end) where it is left open. */
static size_t string_end(const char *t, size_t e, size_t p) {
  size_t q = p + 1;
  for (;;) {
    while (q < e && !STR_STOP[(uint8_t)t[q]]) q++;
    if (q < e && t[q] == '\\') {
      q += q + 1 < e && t[q + 1] != '\n' ? 2 : 1;
      continue;
    }
    return q < e && t[q] == '"' ? q + 1 : q;
  }
}

/* Starts a statement with an op at p ('%', '"' or a word with a dot, or `return`): its results,
 * its name, its instruction. Returns the position after the name, or SIZE_MAX with an error set
 * (rc in *rc), or the text's end after a truncation warning. */
static size_t start_op(shlo_reader *R, size_t p, int *rc) {
  hs_doc *d = R->d;
  const char *t = R->t;
  size_t e = R->len, q = p;
  hs_slice name = {0, 0};
  R->st.has_results = false;
  if (t[p] == '%') {
    R->st.has_results = true;
    for (;;) {
      size_t s = p + 1, r = s;
      while (r < e && name_char(t[r])) r++;
      if (!name.len) name = hs_sl((uint32_t)s, (uint32_t)(r - s));
      if (r < e && t[r] == ':') /* %0:2 */
        for (r++; r < e && t[r] >= '0' && t[r] <= '9';) r++;
      r = hs_skip_sp(t, e, r);
      if (r < e && t[r] == ',') {
        r = hs_skip_sp(t, e, r + 1);
        if (r < e && t[r] == '%') {
          p = r;
          continue;
        }
      }
      if (r < e && t[r] == '=') {
        p = hs_skip_sp(t, e, r + 1);
        break;
      }
      const char *nl = memchr(t + r, '\n', e - r);
      if (!nl) { /* the text ends inside this op: it is skipped */
        hs_warn_truncated_line(d, line_no(R));
        return e;
      }
      hs_doc_error(R->err, HS_E_SYNTAX, d, q, "expected '=' after the result name of an op");
      *rc = HS_E_SYNTAX;
      return SIZE_MAX;
    }
  }
  size_t os = p, oe;
  if (p < e && t[p] == '"') {
    R->st.generic = true;
    R->st.named = true;
    size_t se = string_end(t, e, p);
    os++;
    if (se > os && t[se - 1] == '"') {
      oe = se - 1;
    } else { /* left open at the end of its line */
      syntax_warn(R, p, "an op name whose string is left open at the end of the line");
      oe = se;
    }
    p = se;
  } else {
    while (p < e && !OPEND[(uint8_t)t[p]]) p++;
    oe = p;
  }
  hs_slice opcode = hs_sl((uint32_t)os, (uint32_t)(oe - os));
  if (R->st.generic && !R->st.has_results) {
    if (hs_slice_is(d, opcode, "func.func")) {
      *rc = open_func(R);
      return *rc ? SIZE_MAX : p;
    }
    if (hs_slice_is(d, opcode, "builtin.module")) {
      *rc = open_module(R);
      return *rc ? SIZE_MAX : p;
    }
  }
  /* ops outside any function are still counted, in computation 0. One without results has an
     empty name where its opcode is (the record keeps the opcode's place from its name's) */
  if (!name.len) name = hs_sl(opcode.off, 0);
  hs_instr *in = hs_doc_add_instr(d, name, opcode, line_no(R), R->func >= 0 ? (uint32_t)R->func : 0);
  if (!in) {
    *rc = shlo_oom(R);
    return SIZE_MAX;
  }
  const char *oc = t + os;
  size_t on = oe - os;
  bool is_return = (on == 6 && memcmp(oc, "return", 6) == 0) || (on == 11 && memcmp(oc, "func.return", 11) == 0) ||
                   (on == 16 && memcmp(oc, "stablehlo.return", 16) == 0);
  if (is_return && R->func >= 0 && R->depth > 0 && R->kind[R->depth - 1] == F_FUNC) {
    in->is_root = 1;
    d->comps[R->func].root = (int32_t)(d->n_instrs - 1);
  }
  R->st.what = S_INSTR;
  R->st.instr = (int32_t)(d->n_instrs - 1);
  mark_line(R, HS_LINE_INSTR, d->n_instrs - 1);
  return p;
}

/* A `{` of a pretty op: a region or an attribute dictionary, by what follows it. */
static bool pretty_brace_is_region(const char *t, size_t e, size_t p) {
  size_t q = p + 1;
  for (;;) {
    q = skip_ws(t, e, q);
    if (hs_starts(t, e, q, "//")) { /* comments */
      const char *nl = memchr(t + q, '\n', e - q);
      if (!nl) return false;
      q = (size_t)(nl - t) + 1;
      continue;
    }
    break;
  }
  if (q >= e || t[q] == '}') return false;
  if (t[q] == '^' || t[q] == '%') return true;
  size_t r = q;
  bool dot = false;
  if (t[q] == '"') {
    r = string_end(t, e, q);
    size_t s = hs_skip_sp(t, e, r);
    return s < e && t[s] == '(';
  }
  while (r < e && id_char(t[r])) dot |= t[r++] == '.';
  if (r == q) return true;
  if (r - q == 6 && memcmp(t + q, "return", 6) == 0) return true;
  size_t s = hs_skip_sp(t, e, r);
  if (s < e && t[s] != '\n') return !(t[s] == '=' || t[s] == ',' || t[s] == '}');
  /* a word alone on its line: an attribute when `=`, `,` or `}` comes next */
  s = skip_ws(t, e, s);
  if (s < e && (t[s] == '=' || t[s] == ',' || t[s] == '}')) return false;
  return dot;
}

/* The last byte the statement read that is not blank, and whether its last token was `->`. */
static char stmt_last(const shlo_reader *R, bool *arrow) {
  const shlo_stmt *st = &R->st;
  if (st->last_is_run) {
    size_t k = st->run_e;
    while (k > st->run_s && (R->t[k - 1] == ' ' || R->t[k - 1] == '\t' || R->t[k - 1] == '\r')) k--;
    if (k > st->run_s) {
      if (arrow) *arrow = false;
      return R->t[k - 1];
    }
  }
  if (arrow) *arrow = st->last_arrow;
  return st->last;
}

/* The first byte after the line break at nl that is not blank, a line break or in a comment
 * line (the text's end when none): what says whether a statement goes on. Remembered, so that
 * blank and comment lines are looked over once. */
static size_t next_token(shlo_reader *R, size_t nl) {
  if (nl < R->peek_from || nl >= R->peek_at) {
    const char *t = R->t;
    size_t e = R->len, q = hs_skip_sp(t, e, nl + 1);
    R->peek_blank = true; /* only blanks before it: the driver may go there at once */
    for (;;) {
      size_t q2 = skip_ws(t, e, q);
      if (q2 != q) R->peek_blank = false, q = q2;
      if (!two(t, e, q, '/', '/')) break;
      R->peek_blank = false;
      const char *n2 = memchr(t + q, '\n', e - q);
      q = n2 ? (size_t)(n2 - t) + 1 : e;
    }
    R->peek_from = nl;
    R->peek_at = q;
  }
  return R->peek_at;
}

/* At a line break inside a statement whose own brackets are closed: does it go on? */
static bool stmt_goes_on(shlo_reader *R, size_t nl) {
  const shlo_stmt *st = &R->st;
  if (st->what == S_LABEL) return false;
  bool arrow;
  char last = stmt_last(R, &arrow);
  if (last == ',' || last == ':' || last == '=' || arrow) return true;
  const char *t = R->t;
  size_t q = next_token(R, nl);
  if (q >= R->len) return false;
  char c = t[q];
  if (c == ':' || c == ',' || c == '=' || two(t, R->len, q, '-', '>') ||
      (c == 'l' && q + 3 < R->len && t[q + 1] == 'o' && t[q + 2] == 'c' && t[q + 3] == '('))
    return true;
  /* a generic op before its type: what can follow its operands ([successors] <{properties}>
   * ({regions}) {attributes} : type) */
  if (st->generic && (st->what == S_INSTR ? !st->colon || !st->arrow : !st->body && !st->colon))
    return c == '[' || c == '<' || c == '(' || c == '{';
  return false;
}

static int new_line(shlo_reader *R, size_t nl) {
  uint8_t kind = HS_LINE_BLANK;
  uint32_t ref = 0;
  if (R->st.what) {
    if (R->depth - R->st.base > 0 || stmt_goes_on(R, nl)) {
      switch (R->st.what) {
        case S_INSTR: kind = HS_LINE_CONT, ref = (uint32_t)R->st.instr; break;
        case S_FUNC: kind = HS_LINE_COMP, ref = (uint32_t)R->st.instr; break;
        case S_MODULE: kind = HS_LINE_MODULE, ref = (uint32_t)R->st.instr; break;
        default: kind = HS_LINE_REGION; break;
      }
    } else {
      end_stmt(R, nl);
    }
  }
  if (!hs_doc_add_line(R->d, (uint32_t)(nl + 1), kind, ref > HS_LINE_REF_MAX ? 0 : ref)) return shlo_oom(R);
  R->fresh = kind == HS_LINE_BLANK;
  R->warned_line = false;
  R->line_start = nl + 1;
  return 0;
}

/* Opens a region inside the statement being read; the statement waits for it to close. */
static void open_region(shlo_reader *R, uint8_t kind, int32_t ref) {
  shlo_stmt keep = R->st;
  keep.last = '{';
  keep.last_arrow = false;
  keep.last_is_run = false;
  if (push(R, kind, ref)) R->saved[R->depth - 1] = keep;
  R->st.what = 0;
}

/* The end of a part of the text (`// -----` or the end): what is still open is closed. */
static void end_part(shlo_reader *R, size_t at) {
  if (R->st.what) {
    if (R->depth - R->st.base > 0 && !R->warned_line) syntax_warn(R, at, "the op is cut off");
    end_stmt(R, at);
  }
  if ((R->depth > 0 || R->overflow) && at < R->len) {
    hs_doc_warn(R->d, HS_W_TRUNCATED, line_no(R), 1,
                "the part before this '// -----' ends with %d braces still open: it looks truncated; the results cover what was read",
                R->depth + R->overflow);
  } else if (R->depth > 0 || R->overflow) {
    hs_doc_warn(R->d, HS_W_TRUNCATED, line_no(R), 1,
                "the text ends with %d braces still open: it looks truncated; the results cover what was read",
                R->depth + R->overflow);
  }
  for (int k = R->depth - 1; k >= 0; k--) {
    if (R->kind[k] == F_FUNC) hs_doc_close_comp(R->d, (uint32_t)R->ref[k], 0);
    if (R->saved[k].what == S_FUNC && !R->saved[k].body) hs_doc_close_comp(R->d, (uint32_t)R->saved[k].instr, 0);
  }
  if (R->func >= 0 && R->d->comps[R->func].end_line == 0) hs_doc_close_comp(R->d, (uint32_t)R->func, 0);
  R->depth = R->overflow = 0;
  R->func = R->module = -1;
}

/* A closing bracket inside a statement; `}` at the statement's own depth ends it (the caller
 * reads it again at statement level). Returns the next position. */
static inline size_t close_in_stmt(shlo_reader *R, size_t p, char c) {
  if (R->depth - R->st.base > 0 && !R->overflow) { /* the common case: a bracket of the statement's own */
    uint8_t want = c == ')' ? F_PAREN : c == ']' ? F_SQUARE : c == '>' ? F_ANGLE : F_DICT;
    if (R->kind[R->depth - 1] != want) syntax_warn(R, p, "a closing bracket that does not match the one it closes");
    R->depth--;
    return p + 1;
  }
  if (R->depth - R->st.base <= 0) {
    if (c == '}' && R->overflow == 0) {
      end_stmt(R, p);
      return p;
    }
    if (R->overflow) {
      R->overflow--;
      return p + 1;
    }
    syntax_warn(R, p, c == ')' ? "a ')' that closes nothing" : c == ']' ? "a ']' that closes nothing" : "a stray closing bracket");
    return p + 1;
  }
  if (R->overflow) {
    R->overflow--;
    return p + 1;
  }
  uint8_t want = c == ')' ? F_PAREN : c == ']' ? F_SQUARE : c == '>' ? F_ANGLE : F_DICT;
  uint8_t top = R->kind[R->depth - 1];
  if (top != want) syntax_warn(R, p, "a closing bracket that does not match the one it closes");
  R->depth--;
  return p + 1;
}

/* A `}` at statement level: closes a region, a function or a module. */
static void close_region(shlo_reader *R, size_t p) {
  if (R->overflow) {
    R->overflow--;
    mark_line(R, HS_LINE_REGION, 0);
    return;
  }
  if (R->depth == 0) {
    mark_line(R, HS_LINE_OTHER, 0);
    syntax_warn(R, p, "a '}' that closes nothing");
    return;
  }
  R->depth--;
  uint8_t k = R->kind[R->depth];
  int32_t ref = R->ref[R->depth];
  if (k == F_FUNC) {
    mark_line(R, HS_LINE_CLOSE, (uint32_t)ref);
    close_func(R, ref);
  } else if (k == F_MODULE) {
    mark_line(R, HS_LINE_CLOSE, (uint32_t)ref);
    R->module = -1;
  } else {
    mark_line(R, HS_LINE_REGION, ref >= 0 ? (uint32_t)ref : 0);
    if (k != F_REGION) syntax_warn(R, p, "a '}' where a bracket of an op is still open");
  }
  if (R->saved[R->depth].what) { /* the op around the region goes on: "}) : (...) -> T" */
    R->st = R->saved[R->depth];
    R->st.last = '}';
    R->st.last_is_run = false;
  }
}

/* The bytes a statement's scan stops at; every other byte is read in runs. */
static const uint8_t SPECIAL[256] = {['\n'] = 1, ['"'] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1, ['<'] = 1,
                                     ['>'] = 1,  ['{'] = 1, ['}'] = 1, [':'] = 1, ['/'] = 1};


/* The word `attributes` ends just before p (blanks aside): a function's or module's
 * dictionary follows, not its body. */
static bool after_attributes(const char *t, size_t p) {
  while (p > 0 && (t[p - 1] == ' ' || t[p - 1] == '\t' || t[p - 1] == '\n' || t[p - 1] == '\r')) p--;
  return p >= 10 && memcmp(t + p - 10, "attributes", 10) == 0 && (p == 10 || !id_char(t[p - 11]));
}

/* Reads the statement from p (not blank, not a comment) up to a line break, a comment, its
 * end (a `}` of the region around it) or a region it opens; returns where it stopped. */
static size_t stmt_scan(shlo_reader *R, size_t p) {
  const char *t = R->t;
  size_t e = R->len;
  shlo_stmt *st = &R->st;
  while (p < e) {
    char c = t[p];
    if (!SPECIAL[(uint8_t)c]) { /* a run of plain bytes: names, numbers, commas, blanks */
      size_t q = p + 1;
      const uint8_t *u = (const uint8_t *)t;
      while (q + 4 <= e && !(SPECIAL[u[q]] | SPECIAL[u[q + 1]] | SPECIAL[u[q + 2]] | SPECIAL[u[q + 3]])) q += 4;
      while (q < e && !SPECIAL[u[q]]) q++;
      st->last_is_run = true;
      st->run_s = p;
      st->run_e = q;
      p = q;
      continue;
    }
    if (c == '\n') return p;
    int rel = R->depth - st->base;
    size_t next = p + 1;
    switch (c) {
      case '/':
        if (p + 1 < e && t[p + 1] == '/') return p; /* a comment: the driver skips it */
        break;
      case '"':
        next = string_end(t, e, p);
        if (t[next - 1] != '"' || next == p + 1) syntax_warn(R, p, "a string left open at the end of the line");
        break;
      case '(':
        push(R, F_PAREN, -1);
        if (st->generic && st->named && rel == 0) st->operands = true;
        break;
      case '[': push(R, F_SQUARE, -1); break;
      case '<': push(R, F_ANGLE, -1); break;
      case '>':
        if (p > 0 && t[p - 1] == '-') {
          if (rel == 0 && st->colon) st->arrow = true;
          st->last = '>';
          st->last_arrow = true;
          st->last_is_run = false;
          p = next;
          continue;
        }
        next = close_in_stmt(R, p, c);
        break;
      case ')':
      case ']':
        next = close_in_stmt(R, p, c);
        if (rel == 1) st->operands = false;
        break;
      case '}':
        next = close_in_stmt(R, p, c);
        if (next == p) return p; /* the statement ended */
        break;
      case '{': {
        bool region;
        if (st->what == S_LABEL) region = rel == 0 && !st->table;
        else if (st->generic) {
          char l = stmt_last(R, NULL);
          region = R->depth > 0 && R->kind[R->depth - 1] == F_PAREN && rel == 1 && (l == '(' || l == ',');
        }
        else if ((st->what == S_FUNC || st->what == S_MODULE) && rel == 0) region = !after_attributes(t, p);
        else region = rel == 0 && pretty_brace_is_region(t, e, p);
        if (!region) {
          push(R, F_DICT, -1);
          break;
        }
        if (st->what == S_FUNC && !st->body) {
          if (!st->header_done) read_func_header(R, st->start, p);
          st->body = true;
          open_region(R, F_FUNC, st->instr);
        } else if (st->what == S_MODULE && !st->body) {
          if (!st->header_done) read_module_header(R, st->start, p);
          st->body = true;
          open_region(R, F_MODULE, st->instr);
        } else {
          open_region(R, F_REGION, st->what == S_INSTR ? st->instr : -1);
        }
        return next;
      }
      case ':':
        if (st->operands && rel == 1 && R->kind[R->depth - 1] == F_PAREN) {
          /* "\"op\"(%a, %b : (...) -> ...": the operand list left open */
          syntax_warn(R, p, "expected ')' to end the op's operands");
          R->depth--;
          st->operands = false;
          rel = 0;
        }
        if (rel == 0 && p + 1 < e && (t[p + 1] == ' ' || t[p + 1] == '\n' || t[p + 1] == '\t' || t[p + 1] == '\r') &&
            p > 0 && (t[p - 1] == ' ' || t[p - 1] == '\t' || t[p - 1] == '\n')) {
          st->colon = p + 1;
          st->arrow = false;
        }
        break;
      default: break;
    }
    st->last = c;
    st->last_arrow = false;
    st->last_is_run = false;
    st->named = false;
    p = next;
  }
  return p;
}

/* A statement starts at p (not blank, not a comment): what it is, by its first bytes. */
static size_t stmt_start(shlo_reader *R, size_t p, int *rc) {
  const char *t = R->t;
  size_t e = R->len;
  char c = t[p];
  shlo_stmt *st = &R->st;
  memset(st, 0, sizeof *st);
  st->base = R->depth;
  st->start = p;
  st->instr = -1;
  if (c == '}') {
    close_region(R, p);
    return p + 1;
  }
  if (c == '%' || c == '"') return start_op(R, p, rc);
  if (c == '{') { /* a bare region */
    mark_line(R, HS_LINE_REGION, 0);
    push(R, F_REGION, -1);
    return p + 1;
  }
  if ((c == '#' || c == '!') && R->depth == 0) { /* an alias: "#loc3 = loc(...)", "#map = ..." */
    mark_line(R, HS_LINE_TABLE, 0);
    st->what = S_LABEL;
    st->table = true;
    return p;
  }
  if (c == 'l' && hs_starts(t, e, p, "loc(")) { /* the location of the op above, on a line of its own */
    int32_t last = R->d->n_instrs ? (int32_t)R->d->n_instrs - 1 : -1;
    mark_line(R, last >= 0 ? HS_LINE_CONT : HS_LINE_TABLE, last >= 0 ? (uint32_t)last : 0);
    st->what = S_LABEL;
    return p;
  }
  if (c == '^') { /* a block label: "^bb0(%a: tensor<f32>):" */
    mark_line(R, HS_LINE_REGION, 0);
    st->what = S_LABEL;
    return p;
  }
  if (id_char(c) && c != '-' && c != '.') {
    size_t q = p;
    bool dot = false;
    while (q < e && name_char(t[q])) dot |= t[q++] == '.';
    size_t w = q - p;
    if (w == 6 && memcmp(t + p, "module", 6) == 0) {
      *rc = open_module(R);
      return *rc ? SIZE_MAX : q;
    }
    if ((w == 9 && memcmp(t + p, "func.func", 9) == 0) ||
        (w == 4 && memcmp(t + p, "func", 4) == 0 && hs_skip_sp(t, e, q) < e && t[hs_skip_sp(t, e, q)] == '@')) {
      *rc = open_func(R);
      return *rc ? SIZE_MAX : q;
    }
    if (dot || (w == 6 && memcmp(t + p, "return", 6) == 0)) return start_op(R, p, rc);
    /* region structure: "cond {", "} do {", "reducer(...) (...) {" */
    mark_line(R, HS_LINE_REGION, 0);
    st->what = S_LABEL;
    return q;
  }
  mark_line(R, HS_LINE_OTHER, 0);
  syntax_warn(R, p, "expected an op, a function or a region here");
  st->what = S_LABEL;
  return p + 1;
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
      hs_starts(text, len, p, "\"builtin.module\"") || hs_starts(text, len, p, "\"func.func\"") ||
      hs_starts(text, len, p, "#map") || hs_starts(text, len, p, "func @") || hs_starts(text, len, p, "sdy.mesh "))
    return 100;
  return 0;
}

/* The split marker of MLIR's -split-input-file at the start of a line. */
static bool is_split(const char *t, size_t e, size_t p) { return hs_starts(t, e, p, "// -----"); }

/* The driver: one pass over the bytes. */
int hs_parse_stablehlo_text(hs_doc *d, hs_error *err) {
  shlo_reader R = {.d = d, .err = err, .t = d->text, .len = d->len, .module = -1, .func = -1, .fresh = true};
  const char *t = d->text;
  size_t e = d->len, p = 0;
  if (e && !hs_doc_add_line(d, 0, HS_LINE_BLANK, 0)) return shlo_oom(&R);
  while (p < e) {
    char c = t[p];
    if (c == '\n') {
      int rc = new_line(&R, p);
      if (rc) return rc;
      /* the next line's indentation, when the line break's look ahead already crossed it */
      size_t nl = p;
      p = R.peek_from == nl && R.peek_blank && R.peek_at > nl ? R.peek_at : nl + 1;
      if (nl + 1 == e) d->n_lines--; /* a final line break starts no line */
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      for (p++; p < e && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r');) p++;
      continue;
    }
    if (c == '/' && p + 1 < e && t[p + 1] == '/') {
      if (is_split(t, e, p) && hs_skip_sp(t, e, R.line_start) == p) end_part(&R, p); /* textual, as MLIR splits */
      mark_line(&R, HS_LINE_COMMENT, 0);
      const char *nl = memchr(t + p, '\n', e - p);
      p = nl ? (size_t)(nl - t) : e;
      continue;
    }
    int rc = 0;
    size_t np = R.st.what ? stmt_scan(&R, p) : stmt_start(&R, p, &rc);
    if (rc) return rc;
    if (np == SIZE_MAX) return HS_E_SYNTAX;
    p = np;
  }
  end_part(&R, e);
  if (!d->n_comps && !d->n_instrs) {
    hs_doc_error(err, HS_E_FORMAT, d, 0, "no StableHLO function found: expected 'func.func public @main(...)' inside 'module @name {'");
    return HS_E_FORMAT;
  }
  return 0;
}
