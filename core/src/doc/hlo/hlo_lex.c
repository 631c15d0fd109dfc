/* The HLO reader's lexical layer (hlo_reader.h): spaces and comments, attribute and literal
 * values, shapes (with the caches that spare re-reading them), XLA's opcodes, names and literal
 * words as its lexer reads them, the lines each statement covers, and the errors and warnings at
 * a line and column; and the detector, which looks at the first tokens of a text. */
#include "doc/hlo/hlo_reader.h"

#include <stdio.h>
#include <stdlib.h>

int hlo_oom(reader *r) {
  hs_doc_error(r->err, HS_E_NOMEM, r->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

int hlo_syntax(reader *r, size_t at, const char *msg) {
  hs_doc_error(r->err, HS_E_SYNTAX, r->d, at, "%s", msg);
  return HS_E_SYNTAX;
}

size_t hlo_fail_syntax(reader *r, size_t at, const char *msg) {
  hlo_syntax(r, at, msg);
  return HLO_FAIL;
}

size_t hlo_fail_oom(reader *r) {
  hlo_oom(r);
  return HLO_FAIL;
}

/* ---- tokens ----------------------------------------------------------------------------- */

/* Spaces, line breaks and comments from p; the first byte of the next token (or len). A block
 * comment the text never closes is remembered (it hides everything after it). */
size_t hlo_skip_ws_slow(reader *r, size_t p) {
  const char *t = r->t;
  size_t len = r->len;
  for (;;) {
    while (p < len && is_space(t[p])) p++;
    if (p + 1 >= len || t[p] != '/') return p;
    if (t[p + 1] == '*') {
      const char *q = p + 2 < len ? t + p + 2 : NULL;
      for (;;) {
        q = q ? memchr(q, '*', (size_t)(t + len - q)) : NULL;
        if (!q || q + 1 >= t + len) {
          if (r->open_comment == NOWHERE) r->open_comment = p;
          return len;
        }
        if (q[1] == '/') break;
        q++;
      }
      p = (size_t)(q - t) + 2;
    } else if (t[p + 1] == '/') { /* to the end of the line (a lone '\r' ends one too) */
      size_t q = p + 2;
      while (q < len && t[q] != '\n' && t[q] != '\r') q++;
      p = q;
    } else {
      return p;
    }
  }
}

/* Bytes scan_value must look at; everything else is skipped in a tight loop. */
static const uint8_t SPECIAL[256] = {['"'] = 1, ['('] = 1, ['{'] = 1, ['['] = 1, [')'] = 1, ['}'] = 1,
                                     [']'] = 1, [','] = 1, [' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1,
                                     ['/'] = 1};

/* One value (of an attribute, or a literal) at p: at depth 0 it ends at ',', a space, a comment
 * or a bracket it did not open; inside brackets it may cross lines and hold anything. Returns
 * its end; *open when the text ended inside a bracket or a string. */
size_t hlo_scan_value(reader *r, size_t p, bool *open) {
  const char *t = r->t;
  size_t len = r->len;
  uint32_t depth = 0;
  *open = false;
  while (p < len) {
    while (p < len && !SPECIAL[(uint8_t)t[p]]) p++;
    if (p >= len) break;
    switch (t[p]) {
      case '"': {
        size_t q = skip_string(t, len, p);
        if (q >= len && (q == p + 1 || t[q - 1] != '"' || q - p < 2)) {
          *open = true;
          return len;
        }
        p = q;
        continue;
      }
      case '(':
      case '{':
      case '[': depth++; break;
      case ')':
      case '}':
      case ']':
        if (depth == 0) return p;
        depth--;
        break;
      case ' ':
      case '\t':
      case '\r':
        if (depth == 0) {
          /* a value printed with a space before a bracket goes on: "mesh['data'=8] {'data'}" */
          size_t q = p;
          while (q < len && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r')) q++;
          if (q < len && (t[q] == '{' || t[q] == '[')) {
            p = q;
            continue;
          }
          /* a shape and its literal: "literal=f32[] 0.1" */
          if (q < len && p > 0 && (t[p - 1] == ']' || t[p - 1] == '}') && (is_digit(t[q]) || t[q] == '-')) {
            p = q;
            continue;
          }
          return p;
        }
        break;
      case ',':
      case '\n':
        if (depth == 0) return p;
        break;
      case '/':
        if (p + 1 < len && (t[p + 1] == '*' || t[p + 1] == '/')) {
          if (depth == 0) return p;
          size_t q = skip_ws(r, p);
          if (q > p) {
            p = q;
            continue;
          }
        }
        break;
      default: break;
    }
    p++;
  }
  *open = depth > 0;
  return p;
}

/* Skips a shape at p without building it: "f32[8,64]{1,0}", "(f32[], s32[])", "token[]".
 * Returns its end, or p when there is none. */
size_t hlo_skip_shape(reader *r, size_t p) {
  const char *t = r->t;
  size_t len = r->len;
  if (p < len && t[p] == '(') {
    size_t q = p, depth = 0;
    do {
      if (t[q] == '(') depth++;
      else if (t[q] == ')') depth--;
      else if (t[q] == '"') {
        q = skip_string(t, len, q);
        continue;
      }
      q++;
    } while (q < len && depth > 0);
    return depth ? len : q;
  }
  size_t q = p;
  while (q < len && is_type_char(t[q])) q++;
  if (q == p || q >= len) return p;
  if (t[q] != '[') { /* "f32 [8]": spaces or comments after an element type */
    if (hs_elem_from_hlo(t + p, q - p) < 0) return p;
    q = skip_ws(r, q);
    if (q >= len || t[q] != '[') return p;
  }
  const char *rb = memchr(t + q, ']', len - q);
  if (!rb) return len;
  q = (size_t)(rb - t) + 1;
  size_t lb = layout_at(t, len, q);
  if (lb) {
    /* most are digits and commas up to '}' */
    size_t k = lb + 1;
    while (k < len && (is_digit(t[k]) || t[k] == ',')) k++;
    if (k < len && t[k] == '}') return k + 1;
    size_t depth = 0;
    q = lb;
    do {
      if (t[q] == '{' || t[q] == '(') depth++;
      else if (t[q] == '}' || t[q] == ')') depth--;
      q++;
    } while (q < len && depth > 0);
  }
  return q;
}

/* Shapes repeat: a module has a few dozen distinct ones over thousands of instructions. A shape
 * read before is found by its first 8 bytes (two per slot: "f32[256," starts several; a shorter
 * shape, "f32[]", by its first 8 bytes and what follows it, "f32[] add(") and taken when its whole
 * text is there again and would end there: after a layout's '}' a shape always ends; after ']'
 * only when no layout follows. The shape is then never scanned (skip_shape was a tenth of the
 * parse's instructions). */
static inline uint32_t seen_slot(const char *s) {
  uint64_t k;
  memcpy(&k, s, 8);
  return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & (SHAPE_CACHE - 1);
}

const shape_slot *hlo_shape_seen(reader *r, size_t s) {
  const char *t = r->t;
  size_t len = r->len;
  if (len - s < 8 || t[s] == '(') return NULL;
  shape_slot *c = r->seen[seen_slot(t + s)];
  for (int w = 0; w < SHAPE_WAYS; w++) {
    size_t n = c[w].len, q = s + n;
    if (!c[w].type || len - s < n || !hs_bytes_eq(t + c[w].off, t + s, n)) continue;
    if (t[q - 1] == ']' && layout_at(t, len, q)) continue;
    if (w) { /* the slot's shape seen last looked at first next time: neighbours share shapes */
      shape_slot hit = c[w];
      c[w] = c[0];
      c[0] = hit;
    }
    return &c[0];
  }
  return NULL;
}

/* XLA's parser refuses an empty layout after a shape's dimensions ("f32[4]{}", "f32[]{}": "expects
 * opcode", jaxlib 0.4.38 to 0.12), and its printer never writes one: a warning at the '{'. True
 * when there was one. */
static bool ends_in_empty_layout(const char *t, size_t s, size_t e) {
  return e >= s + 4 && t[e - 1] == '}' && t[e - 2] == '{' && t[e - 3] == ']';
}
static bool empty_layout(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (!ends_in_empty_layout(t, s, e)) return false;
  hlo_warn_at(r, e - 2, "%.*s: an empty layout '{}' after the dimensions: XLA's parser refuses it (expects an opcode there); "
          "write the shape without it, or with its layout, as in f32[4]{0}", t + s, e - s);
  return true;
}

/* A cheap hash of a short text (a shape): its length and first and last 8 bytes. */
static inline uint32_t quick_hash(const char *s, size_t n) {
  uint64_t a = 0, b = 0;
  memcpy(&a, s, n < 8 ? n : 8);
  if (n > 8) memcpy(&b, s + n - 8, 8);
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + n) * 0xC2B2AE3D27D4EB4Full;
  return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The slot of `shapes` (by whole text) for the shape [s, e), or NULL where none is kept (a tuple,
 * or longer than 256 bytes); whole_hit: it holds that text. */
static shape_slot *whole_slot(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (!(e > s && e - s <= 256 && t[s] != '(')) return NULL;
  return &r->shapes[quick_hash(t + s, e - s) & (SHAPE_CACHE - 1)];
}
static bool whole_hit(const reader *r, const shape_slot *w, size_t s, size_t e) {
  return w && w->type && w->len == e - s && hs_bytes_eq(r->t + w->off, r->t + s, e - s);
}

/* A shape at *pp that shape_seen did not find, ending at e (skip_shape's end): taken from the
 * shapes by their whole text (the second level: a slot of `seen` holds only SHAPE_WAYS of the
 * shapes starting with the same 8 bytes), or built. Either way it is remembered in both, unless it was
 * warned about (then each one is warned about). */
hs_type *hlo_read_new_shape(reader *r, size_t *pp, size_t e) {
  const char *t = r->t;
  size_t s = *pp;
  shape_slot *whole = whole_slot(r, s, e);
  hs_type *ty;
  if (whole_hit(r, whole, s, e)) {
    ty = whole->type;
    *pp = e;
  } else {
    ty = hs_parse_hlo_shape(&r->d->arena, t, r->len, pp);
    if (!ty || empty_layout(r, s, *pp) || *pp != e) return ty;
    if (whole) *whole = (shape_slot){(uint32_t)s, (uint32_t)(e - s), ty};
  }
  if (whole && r->len - s >= 8) {
    shape_slot *c = r->seen[seen_slot(t + s)];
    memmove(c + 1, c, (SHAPE_WAYS - 1) * sizeof *c);
    c[0] = (shape_slot){(uint32_t)s, (uint32_t)(e - s), ty};
  }
  return ty;
}

/* A computation's result shape at *pp, up to e (skip_shape's end: "-> f32[8] {", whose '{' opens
 * the computation). Headers print no layout, so instructions' shapes (shape_seen) rarely match
 * them; the same text read before is taken from the shapes by their whole text (a fused
 * computation's result is that of many others): read afresh, the headers' shapes were 3% of the
 * parse's instructions on the bench's text (a header to every eleven instructions). */
hs_type *hlo_result_shape(reader *r, size_t *pp, size_t e) {
  size_t s = *pp;
  shape_slot *whole = whole_slot(r, s, e);
  if (whole_hit(r, whole, s, e)) {
    *pp = e;
    return whole->type;
  }
  hs_type *ty = hs_parse_hlo_shape(&r->d->arena, r->t, e, pp);
  /* an empty layout ("f32[4]{}") is kept out: an instruction's shape warns of it each time */
  if (ty && whole && *pp == e && !ends_in_empty_layout(r->t, s, e)) *whole = (shape_slot){(uint32_t)s, (uint32_t)(e - s), ty};
  return ty;
}

/* The shape's layout that ends at e ("f32[8,64]{1,0,2}", "f32[8] {0:T(8)}"): how many dimensions
 * its last "[...]" has (n[0]) and how many numbers its layout lists before '}' or ':' (n[1]). */
static bool layout_counts(const char *t, size_t s, size_t e, size_t n[2]) {
  size_t b = e - 1, depth = 0;
  while (b > s && !(t[b] == '{' && depth == 1)) { /* back to the layout's own '{' */
    if (t[b] == '}' || t[b] == ')') depth++;
    else if (t[b] == '(' || (t[b] == '{' && depth > 1)) depth--;
    b--;
  }
  size_t rb = b;
  while (rb > s && t[rb] != ']') rb--;
  size_t lb = rb;
  while (lb > s && t[lb] != '[') lb--;
  if (t[b] != '{' || t[rb] != ']' || t[lb] != '[') return false;
  for (int i = 0; i < 2; i++) {
    size_t from = i ? b + 1 : lb + 1, to = i ? e - 1 : rb, c = 0;
    bool digits = false;
    for (size_t q = from; q < to && t[q] != ':'; q++) {
      if (t[q] == ',') c++;
      else if (is_digit(t[q]) || t[q] == '?') digits = true;
    }
    n[i] = digits ? c + 1 : 0;
  }
  return true;
}

/* The shape from s did not read: the error at e, where it went wrong (s when nothing was read).
 * what: "a shape after '='". A layout gets its own words (its digits and ':' rules). */
size_t hlo_fail_shape(reader *r, size_t s, size_t e, const char *what) {
  const char *t = r->t;
  if (e < s) e = s;
  size_t k = e;
  while (k > s && t[k - 1] != '{' && t[k - 1] != ']' && t[k - 1] != '[') k--;
  char msg[240];
  size_t ranks[2]; /* a layout that read but lists a number for too few or too many dimensions */
  if (e > s && t[e - 1] == '}' && layout_counts(t, s, e, ranks) && ranks[0] != ranks[1])
    snprintf(msg, sizeof msg, "the layout lists %zu dimension number%s, but the shape has %zu dimension%s: a layout names each "
             "dimension once, minor to major, as {1,0} for f32[8,64] (XLA's parser refuses this one)", ranks[1],
             ranks[1] == 1 ? "" : "s", ranks[0], ranks[0] == 1 ? "" : "s");
  else if (k > s && t[k - 1] == '{')
    snprintf(msg, sizeof msg, "expected a layout such as {1,0} or {1,0:T(8,128)} in %s: dimension numbers and ',' up to '}' or ':' "
             "(XLA's parser refuses this one)", what);
  else if (k > s && t[k - 1] == '[')
    snprintf(msg, sizeof msg, "expected the dimensions of %s, as in f32[8,64]: sizes (8, <=8 or ?) with a ',' between "
             "two, up to ']' (XLA's parser refuses this one)", what);
  else
    snprintf(msg, sizeof msg, "expected %s such as f32[128]{0} or (f32[], s32[]) (XLA's parser refuses this one)", what);
  return hlo_fail_syntax(r, e, msg);
}

/* ---- opcodes ---------------------------------------------------------------------------- */

/* XLA's opcodes (xla/hlo/ir/hlo_opcode.h), with spellings of older printer eras; sorted
 * (strcmp) for the binary search. An opcode not here is read, with a warning. */
static const char *const OPCODES[] = {
    "abs", "acos", "acosh", "add", "add-dependency", "after-all", "all-gather", "all-gather-done",
    "all-gather-start", "all-reduce", "all-reduce-done", "all-reduce-start", "all-to-all", "and", "asin", "asinh",
    "async-done", "async-start", "async-update", "atan", "atan2", "atanh", "batch-norm-grad",
    "batch-norm-inference", "batch-norm-training", "bitcast", "bitcast-convert", "broadcast", "call", "cbrt", "ceil",
    "cholesky", "clamp", "collective-broadcast", "collective-permute", "collective-permute-done",
    "collective-permute-start", "collective-reduce", "compare", "complex", "concatenate", "conditional",
    "constant", "convert", "convolution", "copy", "copy-done", "copy-start", "cosh", "cosine",
    "count-leading-zeros", "cross-replica-sum", "custom-call", "divide", "domain", "dot", "dynamic-reshape",
    "dynamic-slice", "dynamic-update-slice", "erf", "exponential", "exponential-minus-one", "fft", "floor",
    "fusion", "gather", "generate-token", "get-dimension-size", "get-tuple-element", "imag", "infeed", "iota",
    "is-finite", "log", "log-plus-one", "logistic", "map", "maximum", "minimum", "mulhi", "multiply", "negate",
    "not", "opt-barrier", "or", "outfeed", "pad", "parameter", "partition-id", "popcnt", "power",
    "ragged-all-to-all", "ragged-dot", "real", "recv", "recv-done", "reduce", "reduce-precision",
    "reduce-scatter", "reduce-window", "remainder", "replica-id", "reshape", "reverse", "rng",
    "rng-bit-generator", "rng-get-and-update-state", "round-nearest-afz", "round-nearest-even", "rsqrt",
    "scaled-dot", "scan", "scatter", "select", "select-and-scatter", "send", "send-done", "set-dimension-size",
    "shift-left", "shift-right-arithmetic", "shift-right-logical", "shuffle", "sign", "sine", "sinh", "slice",
    "sort", "sqrt", "stochastic-convert", "subtract", "tan", "tanh", "topk", "trace", "transpose",
    "triangular-solve", "tuple", "tuple-select", "while", "xor"};

_Static_assert(sizeof OPCODES / sizeof OPCODES[0] == HLO_OPCODE_COUNT, "HLO_OPCODE_COUNT (hlo_reader.h) counts OPCODES");

int hlo_known_opcode(const char *s, size_t n) {
  size_t lo = 0, hi = sizeof OPCODES / sizeof OPCODES[0];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const char *o = OPCODES[mid];
    int c = strncmp(o, s, n);
    if (c == 0) c = o[n] ? 1 : 0;
    if (c == 0) return (int)mid + 1;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

const char *hlo_opcode_name(int i) { return OPCODES[i]; }

/* hlo_reader.h: LIT_NUMBER for parameter, LIT_VALUE for constant and iota, else LIT_NONE. */
int hlo_literal_opcode(const char *s, size_t n) {
  if (n == 9 && memcmp(s, "parameter", 9) == 0) return LIT_NUMBER;
  if ((n == 8 && memcmp(s, "constant", 8) == 0) || (n == 4 && memcmp(s, "iota", 4) == 0)) return LIT_VALUE;
  return LIT_NONE;
}

/* ---- names and literals ------------------------------------------------------------------- */

/* A name hlo_check_name found XLA would refuse: the warning at it. */
void hlo_warn_name(reader *r, hs_slice name) {
  hlo_warn_at(r, name.off, "%.*s: a name starts with a letter or '_': XLA's parser refuses this one (expects name)", r->t + name.off,
              name.len < 60 ? name.len : 60);
}

/* A literal's word as XLA's lexer reads one: true, false, inf, nan, or a number: digits with a
 * '.' and an exponent or not ("1", "1.", "1.5", "1e-08", "-0"); a '-' before any but true and
 * false. Refused: "+1", ".5", "0x10", "1.5.2", "1e", "True". */
bool hlo_literal_word(const char *t, size_t s, size_t e) {
  if ((e - s == 4 && memcmp(t + s, "true", 4) == 0) || (e - s == 5 && memcmp(t + s, "false", 5) == 0)) return true;
  bool neg = s < e && t[s] == '-';
  if (neg) s++;
  if (e - s == 3 && (memcmp(t + s, "inf", 3) == 0 || memcmp(t + s, "nan", 3) == 0)) return true;
  size_t q = s;
  while (q < e && is_digit(t[q])) q++;
  bool digits = q > s;
  if (!digits && !(neg && q < e && t[q] == '.')) return false; /* XLA's numbers start with a digit or '-' */
  if (q < e && t[q] == '.') {
    size_t f = ++q;
    while (q < e && is_digit(t[q])) q++;
    if (!digits && q == f) return false;
  }
  if (q < e && (t[q] == 'e' || t[q] == 'E')) {
    q++;
    if (q < e && (t[q] == '+' || t[q] == '-')) q++;
    size_t x = q;
    while (q < e && is_digit(t[q])) q++;
    if (q == x) return false;
  }
  return q == e;
}

/* The words of a literal in [s, e) ("{ {1, 2}, {3, -inf} }", "(1, 2)", "nan(0x1)", "{...}"): where
 * the first one XLA's lexer would not read starts, or NOWHERE. */
size_t hlo_literal_bad(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  for (size_t p = s; p < e;) {
    if ((p = literal_gap(r, p, e, "{}()")) >= e) break;
    size_t w = p;
    while (p < e && !is_space(t[p]) && t[p] != '{' && t[p] != '}' && t[p] != '(' && t[p] != ')' && t[p] != ',' &&
           !(t[p] == '/' && p + 1 < e && (t[p + 1] == '*' || t[p + 1] == '/')))
      p++;
    if (p - w == 3 && memcmp(t + w, "...", 3) == 0) continue; /* an elided literal: "{...}" */
    if (!hlo_literal_word(t, w, p)) return w;
    if (p < e && t[p] == '(' && p - w >= 3 && memcmp(t + p - 3, "nan", 3) == 0) { /* nan(0x7f): a payload */
      while (p < e && t[p] != ')') p++;
    }
  }
  return NOWHERE;
}

/* ---- lines -------------------------------------------------------------------------------- */

/* Records the lines before the one holding offset s that are not recorded yet (only spaces
 * and comments lie between statements: blank or comment lines), and notes the line holding s
 * as the statement's first line. */
bool hlo_lines_upto(reader *r, size_t s) {
  hs_doc *d = r->d;
  const char *t = r->t;
  if (s < r->lnext) { /* on the line the previous statement ended on */
    r->stmt_recorded = true;
    r->stmt_line = d->n_lines;
    r->stmt_ls = d->n_lines ? d->line_last_off : 0;
    r->lc_off = r->stmt_ls;
    r->lc_line = r->stmt_line;
    return true;
  }
  size_t ls = r->lnext;
  /* most statements start on the line after the previous one, past its indentation: a few
     bytes, looked at here rather than in a call */
  size_t k = ls;
  while (k < s && k - ls < 16 && t[k] != '\n') k++;
  while (k < s) { /* blank or comment lines before it */
    const char *nl = memchr(t + ls, '\n', s - ls);
    if (!nl) break;
    size_t q = ls;
    while (q < (size_t)(nl - t) && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r')) q++;
    if (!hs_doc_add_line(d, (uint32_t)ls, q < (size_t)(nl - t) ? HS_LINE_COMMENT : HS_LINE_BLANK, 0)) return false;
    ls = (size_t)(nl - t) + 1;
  }
  r->stmt_recorded = false;
  r->stmt_ls = ls;
  r->stmt_line = d->n_lines + 1;
  r->lc_off = ls;
  r->lc_line = r->stmt_line;
  return true;
}

/* The line number of offset off, at or after the current statement's start. */
uint32_t hlo_line_of(reader *r, size_t off) {
  if (off < r->lc_off) {
    r->lc_off = r->stmt_ls;
    r->lc_line = r->stmt_line;
  }
  const char *t = r->t;
  size_t p = r->lc_off;
  uint32_t line = r->lc_line;
  while (p < off) {
    const char *nl = memchr(t + p, '\n', off - p);
    if (!nl) break;
    line++;
    p = (size_t)(nl - t) + 1;
  }
  r->lc_off = p;
  r->lc_line = line;
  return line;
}

/* The column of offset off (call hlo_line_of(off) first: its memo is the start of off's line). */
static uint32_t col_of(reader *r, size_t off) { return (uint32_t)(off - r->lc_off) + 1; }

/* True when no line break follows offset p: the text's last line, cut there. */
bool hlo_on_last_line(reader *r, size_t p) { return p >= r->len || !memchr(r->t + p, '\n', r->len - p); }

/* A warning at offset at, inside instruction in, once its statement is behind (a computation's
 * close): its line counted from the instruction's own (its name's, or a nested one's opcode's). */
void hlo_warn_in(reader *r, const hs_instr *in, size_t at, const char *fmt, const char *what, size_t n) {
  hlo_warn_behind(r, in->line, in->name.off + in->name.len <= r->len && !in->synth ? in->name.off : hs_opcode(r->d, in).off, at, fmt, what, n);
}

void hlo_warn_behind(reader *r, uint32_t line, size_t on_line, size_t at, const char *fmt, const char *what, size_t n) {
  size_t from = on_line > at ? at : on_line;
  while (from > 0 && r->t[from - 1] != '\n') from--;
  r->lc_off = from;
  r->lc_line = line;
  hlo_warn_at(r, at, fmt, what, n);
}

/* A warning at offset at: what XLA's parser would refuse there (its line and column). */
void hlo_warn_at(reader *r, size_t at, const char *fmt, const char *what, size_t n) {
  uint32_t line = hlo_line_of(r, at);
  hs_doc_warn(r->d, HS_W_XLA_REFUSES, line, col_of(r, at), fmt, (int)n, what);
}

/* ---- the detector ------------------------------------------------------------------------- */

/* Spaces and comments, within [p, end): for the detector, which has no reader. */
static size_t skip_sp_comments(const char *t, size_t end, size_t p) {
  for (;;) {
    p = hs_skip_sp(t, end, p);
    if (p + 1 < end && t[p] == '/' && t[p + 1] == '*') {
      size_t q = p + 2;
      while (q + 1 < end && !(t[q] == '*' && t[q + 1] == '/')) q++;
      p = q + 1 < end ? q + 2 : end;
      continue;
    }
    return p;
  }
}

/* "HloModule", "ENTRY " or a frame table at the start: certain. A bare computation header
 * ("%name (" or "name {", a module without its HloModule line): likely. */
int hs_detect_hlo(const char *text, size_t len, size_t p) {
  /* block comments (and lines between them) before the first statement */
  while (p + 1 < len && text[p] == '/' && text[p + 1] == '*') {
    p = skip_sp_comments(text, len, p);
    while (p < len && (text[p] == '\n' || text[p] == '\r' || text[p] == ' ' || text[p] == '\t')) p++;
    while (p + 1 < len && text[p] == '/' && text[p + 1] == '/') {
      while (p < len && text[p] != '\n') p++;
      while (p < len && (text[p] == '\n' || text[p] == '\r' || text[p] == ' ' || text[p] == '\t')) p++;
    }
  }
  if (hs_starts(text, len, p, "HloModule") || hs_starts(text, len, p, "ENTRY ") || hs_starts(text, len, p, "FileNames"))
    return 100;
  size_t q = p;
  if (q < len && text[q] == '%') q++;
  size_t s = q;
  while (q < len && is_name_char(text[q])) q++;
  if (q > s) {
    while (q < len && text[q] == ' ') q++;
    if (q < len && (text[q] == '(' || text[q] == '{')) return 50;
  }
  return 0;
}
