/* The HLO text reader: XLA's lexical grammar, every printer era of FORMATS.md section 1, in one
 * pass over the bytes.
 *
 * The text is read as XLA's parser reads it (xla/hlo/parser/hlo_lexer.cc, hlo_parser.cc), token
 * by token: spaces, line breaks and comments (block comments and line comments) may stand
 * between any two tokens, so an instruction's shape, operands and attributes may continue on
 * the next lines, and module attributes may span lines. Statements:
 *
 *   module       HloModule name (, key=value)*
 *   table        FileNames | FunctionNames | FileLocations | StackFrames, then "N ..." rows
 *   computation  [ENTRY] name [(params) -> shape] (, key=value)* {  instruction*  }
 *   instruction  [ROOT] name = shape opcode(operand, ...) (, key=value)*
 *   operand      [shape] name(#index)*           a compact get-tuple-element: "%t#1"
 *              | shape opcode(operands) (, key=value)*   a nested instruction
 *
 * Every line is recorded with what it holds (hs_line: the x-ray and the views use it); a
 * statement that spans lines records its first line and continuation lines, so line numbers
 * stay exact. Names, opcodes and attribute values are slices into the text; the instructions
 * the text does not spell out (compact get-tuple-elements and nested operands, which XLA's
 * parser makes instructions of) get their names and opcodes in d->synth (hs_sp).
 *
 * What cannot be read is a hard error at its line and column (a broken statement inside a
 * computation, an unclosed comment), a warning (an opcode or attribute value XLA would refuse,
 * a line skipped outside computations), or, when the text ends inside a statement (a dump cut
 * short), a truncation warning and what was read. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

/* [A-Za-z0-9_.-]: the bytes of an HLO name (a table: this is the reader's hottest test). */
static const uint8_t NAME_CHAR[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1,
    ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1, ['_'] = 1, ['.'] = 1, ['-'] = 1};

static inline bool is_name_char(char c) { return NAME_CHAR[(uint8_t)c]; }

/* [a-z0-9_-]: an opcode's bytes (and, without '_' and '-', an element type's: is_type_char) */
static const uint8_t OPCODE_CHAR[256] = {
    ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
    ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3,
    ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3,
    ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3, ['_'] = 1, ['-'] = 1};
static inline bool is_opcode_char(char c) { return OPCODE_CHAR[(uint8_t)c] & 1; }
static inline bool is_type_char(char c) { return OPCODE_CHAR[(uint8_t)c] & 2; }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The end of the name bytes from p (the first byte that is not [A-Za-z0-9_.-], or end): 16
 * bytes at a time where SSE2 (x86-64 always) or wasm SIMD is there. Names are most of what an
 * HLO text is made of (instructions, operands, attribute keys), 12 bytes on average. */
#if defined(__SSE2__) || defined(__wasm_simd128__)
static inline uint32_t name_mask16(const char *s) { /* bit i: byte i is a name byte */
#if defined(__SSE2__)
  __m128i c = _mm_loadu_si128((const __m128i *)(const void *)s);
  __m128i l = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')); /* letters: 0-25 */
  __m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));                                   /* digits: 0-9 */
  __m128i p = _mm_sub_epi8(c, _mm_set1_epi8('-'));                                   /* '-' '.': 0-1 */
  __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(25)), l),
                                         _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d)),
                            _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(p, _mm_set1_epi8(1)), p),
                                         _mm_cmpeq_epi8(c, _mm_set1_epi8('_'))));
  return (uint32_t)_mm_movemask_epi8(ok);
#else
  v128_t c = wasm_v128_load(s);
  v128_t l = wasm_i8x16_sub(wasm_v128_or(c, wasm_i8x16_splat(0x20)), wasm_i8x16_splat('a'));
  v128_t d = wasm_i8x16_sub(c, wasm_i8x16_splat('0'));
  v128_t p = wasm_i8x16_sub(c, wasm_i8x16_splat('-'));
  v128_t ok = wasm_v128_or(wasm_v128_or(wasm_u8x16_le(l, wasm_i8x16_splat(25)), wasm_u8x16_le(d, wasm_i8x16_splat(9))),
                           wasm_v128_or(wasm_u8x16_le(p, wasm_i8x16_splat(1)), wasm_i8x16_eq(c, wasm_i8x16_splat('_'))));
  return wasm_i8x16_bitmask(ok);
#endif
}
#endif

static inline size_t name_end(const char *t, size_t p, size_t end) {
#if defined(__SSE2__) || defined(__wasm_simd128__)
  while (end - p >= 16) {
    uint32_t m = ~name_mask16(t + p) & 0xFFFFu;
    if (m) return p + (size_t)__builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && is_name_char(t[p])) p++;
  return p;
}
static inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

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

static bool known_opcode(const char *s, size_t n) {
  size_t lo = 0, hi = sizeof OPCODES / sizeof OPCODES[0];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const char *o = OPCODES[mid];
    int c = strncmp(o, s, n);
    if (c == 0) c = o[n] ? 1 : 0;
    if (c == 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/* Opcodes whose parentheses hold no operands: a number (parameter) or a literal (constant). */
enum { LIT_NONE = 0, LIT_NUMBER, LIT_VALUE };
static int literal_opcode(const char *s, size_t n) {
  if (n == 9 && memcmp(s, "parameter", 9) == 0) return LIT_NUMBER;
  if ((n == 8 && memcmp(s, "constant", 8) == 0) || (n == 4 && memcmp(s, "iota", 4) == 0)) return LIT_VALUE;
  return LIT_NONE;
}

/* Which frame table the rows after a table header belong to. */
enum { TABLE_NONE = 0, TABLE_OTHER, TABLE_STACK_FRAMES };

/* An instruction reader's result besides a position: failed (err filled) or cut by the end. */
#define HLO_FAIL ((size_t)-1)
#define NOWHERE ((size_t)-1)

/* Nested operands deeper than this are refused (the stack must not run out). */
#define MAX_NESTING 200

/* A compact get-tuple-element made in the open computation: its name in d->synth. */
typedef struct {
  uint32_t hash, instr; /* instr + 1; 0 = empty */
} gte_slot;

/* A recently read shape: the same text gives the same (immutable) type. */
typedef struct {
  uint32_t off, len;
  hs_type *type;
} shape_slot;
#define SHAPE_CACHE 1024
#define SHAPE_WAYS 2

typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  int32_t module; /* current module, -1 before the first */
  int32_t comp;   /* open computation, -1 */
  /* lines: every line before lnext is recorded */
  size_t lnext;
  /* the statement being read: its first line's start and number; stmt_recorded: that line
     was recorded by the previous statement (two statements on one line) */
  size_t stmt_ls;
  uint32_t stmt_line;
  bool stmt_recorded;
  size_t lc_off; /* line_of's memo: offset lc_off is on line lc_line */
  uint32_t lc_line;
  /* frame tables */
  uint32_t module_frames;  /* StackFrames entries of the current module */
  uint32_t first_ref_line; /* first instruction with stack_frame_id= */
  uint8_t table;           /* TABLE_* being read */
  /* the text ended inside a statement (set by the readers; a truncation, not an error) */
  bool cut;
  /* a value that spans lines and ends with a '}' alone on its line: if the computation is
     never closed, that brace was the computation's and the value lacks its own */
  uint32_t suspect_line;
  size_t suspect_key;
  size_t open_comment; /* a block comment never closed starts here, or NOWHERE */
  /* operands of the instructions being read: nested instructions stack theirs above */
  hs_operand *ops;
  uint32_t n_ops, cap_ops;
  /* compact get-tuple-elements of the open computation */
  gte_slot *gtes;
  uint32_t n_gtes, cap_gtes;
  hs_slice gte_opcode; /* "get-tuple-element" in d->synth, once made */
  hs_slice param_opcode; /* "parameter" in d->synth, once made */
  /* "<op>-start(...)" (XLA's async syntax sugar) in the open computation: the computations
     XLA wraps each op in, made when the computation ends */
  struct wrap {
    uint32_t op_off, op_len, line, operands;
  } *wraps;
  uint32_t n_wraps, cap_wraps;
  uint32_t capped; /* instruction + 1 whose calls past HS_CALLS_MAX were warned about */
  shape_slot seen[SHAPE_CACHE][SHAPE_WAYS]; /* shapes read before, by their first 8 bytes (shape_seen) */
  shape_slot shapes[SHAPE_CACHE];           /* the same, by their whole text (read_new_shape) */
  struct {
    uint32_t off, len;
  } opcodes[64]; /* opcodes found in XLA's list, by a hash of their text */
} reader;

/* known_opcode, remembering the opcodes it found (a module uses a few dozen). */
static bool opcode_ok(reader *r, size_t os, size_t oe) {
  const char *t = r->t;
  size_t n = oe - os;
  uint32_t k = (uint32_t)(n * 31 + (uint8_t)t[os] * 7 + (uint8_t)t[oe - 1] * 3 + (n > 2 ? (uint8_t)t[os + 2] : 0)) & 63;
  if (r->opcodes[k].len == n && hs_bytes_eq(t + r->opcodes[k].off, t + os, n)) return true;
  if (!known_opcode(t + os, n)) return false;
  r->opcodes[k].off = (uint32_t)os;
  r->opcodes[k].len = (uint32_t)n;
  return true;
}

static int oom(reader *r) {
  hs_set_error(r->err, HS_E_NOMEM, r->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

static int syntax(reader *r, size_t at, const char *msg) {
  hs_set_error(r->err, HS_E_SYNTAX, r->d, at, "%s", msg);
  return HS_E_SYNTAX;
}

static size_t fail_syntax(reader *r, size_t at, const char *msg) {
  syntax(r, at, msg);
  return HLO_FAIL;
}

static size_t fail_oom(reader *r) {
  oom(r);
  return HLO_FAIL;
}

/* ---- tokens ----------------------------------------------------------------------------- */

/* Spaces, line breaks and comments from p; the first byte of the next token (or len). A block
 * comment the text never closes is remembered (it hides everything after it). */
static size_t skip_ws_slow(reader *r, size_t p) {
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

/* The same, inline for the common case: spaces and line breaks, then a token. */
static inline size_t skip_ws(reader *r, size_t p) {
  const char *t = r->t;
  size_t len = r->len;
  /* most calls stand on a token, or one space before one */
  if (p < len && (uint8_t)t[p] > ' ' && t[p] != '/') return p;
  if (p + 1 < len && t[p] == ' ' && (uint8_t)t[p + 1] > ' ' && t[p + 1] != '/') return p + 1;
  while (p < len && (t[p] == ' ' || t[p] == '\n')) p++;
  if (p < len && (uint8_t)t[p] > ' ' && t[p] != '/') return p;
  return skip_ws_slow(r, p);
}

/* A name at p (optional leading '%'); its slice (len 0 if none), *pp past it. */
static hs_slice read_name(const char *t, size_t end, size_t *pp) {
  size_t p = *pp;
  if (p < end && t[p] == '%') p++;
  size_t s = p;
  p = name_end(t, p, end);
  *pp = p;
  return hs_sl((uint32_t)s, (uint32_t)(p - s));
}

/* The word at p is exactly `kw` (followed by a byte that cannot continue a name). */
static bool keyword_at(const char *t, size_t len, size_t p, const char *kw, size_t n) {
  return len - p >= n && memcmp(t + p, kw, n) == 0 && (p + n >= len || !is_name_char(t[p + n]));
}

/* Bytes scan_value must look at; everything else is skipped in a tight loop. */
static const uint8_t SPECIAL[256] = {['"'] = 1, ['('] = 1, ['{'] = 1, ['['] = 1, [')'] = 1, ['}'] = 1,
                                     [']'] = 1, [','] = 1, [' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1,
                                     ['/'] = 1};

/* One value (of an attribute, or a literal) at p: at depth 0 it ends at ',', a space, a comment
 * or a bracket it did not open; inside brackets it may cross lines and hold anything. Returns
 * its end; *open when the text ended inside a bracket or a string. */
static size_t scan_value(reader *r, size_t p, bool *open) {
  const char *t = r->t;
  size_t len = r->len;
  uint32_t depth = 0;
  *open = false;
  while (p < len) {
    while (p < len && !SPECIAL[(uint8_t)t[p]]) p++;
    if (p >= len) break;
    switch (t[p]) {
      case '"': {
        size_t q = hs_skip_string(t, len, p);
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

/* A layout starts at q, after a shape's ']': "{1,0}", "{}", "{1,0:T(8,128)}" (a '{' before a line
 * break opens a computation). */
static inline bool layout_at(const char *t, size_t len, size_t q) {
  return q + 1 < len && t[q] == '{' && (is_digit(t[q + 1]) || t[q + 1] == '}' || t[q + 1] == ':');
}

/* Skips a shape at p without building it: "f32[8,64]{1,0}", "(f32[], s32[])", "token[]".
 * Returns its end, or p when there is none. */
static size_t skip_shape(reader *r, size_t p) {
  const char *t = r->t;
  size_t len = r->len;
  if (p < len && t[p] == '(') {
    size_t q = p, depth = 0;
    do {
      if (t[q] == '(') depth++;
      else if (t[q] == ')') depth--;
      else if (t[q] == '"') {
        q = hs_skip_string(t, len, q);
        continue;
      }
      q++;
    } while (q < len && depth > 0);
    return depth ? len : q;
  }
  size_t q = p;
  while (q < len && is_type_char(t[q])) q++;
  if (q == p || q >= len || t[q] != '[') return p;
  const char *rb = memchr(t + q, ']', len - q);
  if (!rb) return len;
  q = (size_t)(rb - t) + 1;
  if (layout_at(t, len, q)) {
    /* most are digits and commas up to '}' */
    size_t k = q + 1;
    while (k < len && (is_digit(t[k]) || t[k] == ',')) k++;
    if (k < len && t[k] == '}') return k + 1;
    size_t depth = 0;
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

static const shape_slot *shape_seen(reader *r, size_t s) {
  const char *t = r->t;
  size_t len = r->len;
  if (len - s < 8 || t[s] == '(') return NULL;
  const shape_slot *c = r->seen[seen_slot(t + s)];
  for (int w = 0; w < SHAPE_WAYS; w++) {
    size_t n = c[w].len, q = s + n;
    if (!c[w].type || len - s < n || !hs_bytes_eq(t + c[w].off, t + s, n)) continue;
    if (t[q - 1] == ']' && layout_at(t, len, q)) continue;
    return &c[w];
  }
  return NULL;
}

/* XLA's parser refuses an empty layout after a shape's dimensions ("f32[4]{}", "f32[]{}": "expects
 * opcode", jaxlib 0.4.38 to 0.12), and its printer never writes one: a warning at the '{'. True
 * when there was one. */
static void warn_at(reader *r, size_t at, const char *fmt, const char *what, size_t n);
static bool empty_layout(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (e < s + 4 || t[e - 1] != '}' || t[e - 2] != '{' || t[e - 3] != ']') return false;
  warn_at(r, e - 2, "%.*s: an empty layout '{}' after the dimensions: XLA's parser refuses it (expects an opcode there); "
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

/* A shape at *pp that shape_seen did not find, ending at e (skip_shape's end): taken from the
 * shapes by their whole text (the second level: a slot of `seen` holds only SHAPE_WAYS of the
 * shapes starting with the same 8 bytes), or built. Either way it is remembered in both, unless it was
 * warned about (then each one is warned about). */
static hs_type *read_new_shape(reader *r, size_t *pp, size_t e) {
  const char *t = r->t;
  size_t s = *pp;
  bool keep = e > s && e - s <= 256 && t[s] != '(';
  shape_slot *whole = keep ? &r->shapes[quick_hash(t + s, e - s) & (SHAPE_CACHE - 1)] : NULL;
  hs_type *ty;
  if (whole && whole->type && whole->len == e - s && hs_bytes_eq(t + whole->off, t + s, e - s)) {
    ty = whole->type;
    *pp = e;
  } else {
    ty = hs_parse_hlo_shape(&r->d->arena, t, r->len, pp);
    if (!ty || empty_layout(r, s, *pp) || *pp != e) return ty;
    if (whole) *whole = (shape_slot){(uint32_t)s, (uint32_t)(e - s), ty};
  }
  if (keep && r->len - s >= 8) {
    shape_slot *c = r->seen[seen_slot(t + s)];
    memmove(c + 1, c, (SHAPE_WAYS - 1) * sizeof *c);
    c[0] = (shape_slot){(uint32_t)s, (uint32_t)(e - s), ty};
  }
  return ty;
}

/* A shape at *pp, seen before or new. */
static hs_type *read_shape(reader *r, size_t *pp) {
  const shape_slot *seen = shape_seen(r, *pp);
  if (!seen) return read_new_shape(r, pp, skip_shape(r, *pp));
  *pp += seen->len;
  return seen->type;
}

/* ---- lines -------------------------------------------------------------------------------- */

/* Records the lines before the one holding offset s that are not recorded yet (only spaces
 * and comments lie between statements: blank or comment lines), and notes the line holding s
 * as the statement's first line. */
static bool lines_upto(reader *r, size_t s) {
  hs_doc *d = r->d;
  const char *t = r->t;
  if (s < r->lnext) { /* on the line the previous statement ended on */
    r->stmt_recorded = true;
    r->stmt_line = d->n_lines;
    r->stmt_ls = d->n_lines ? d->lines[d->n_lines - 1].off : 0;
    r->lc_off = r->stmt_ls;
    r->lc_line = r->stmt_line;
    return true;
  }
  size_t ls = r->lnext;
  for (;;) {
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

/* The statement ended at e (past its last token): records its first line as (kind, ref) and
 * the lines that start before e as its continuation lines. */
static bool end_stmt(reader *r, size_t e, uint8_t kind, uint32_t ref) {
  hs_doc *d = r->d;
  const char *t = r->t;
  if (!r->stmt_recorded && !hs_doc_add_line(d, (uint32_t)r->stmt_ls, kind, ref)) return false;
  uint8_t cont = kind == HS_LINE_INSTR ? HS_LINE_CONT : kind;
  size_t p = r->stmt_ls;
  /* most statements are one line: one search finds its end, and the next line */
  const char *nl0 = memchr(t + p, '\n', r->len - p);
  if (!nl0 || (size_t)(nl0 - t) >= e) {
    r->lnext = nl0 ? (size_t)(nl0 - t) + 1 : r->len;
    return true;
  }
  for (;;) {
    const char *nl = p < e ? memchr(t + p, '\n', e - p) : NULL;
    if (!nl) break;
    p = (size_t)(nl - t) + 1;
    if (p >= e) break;
    if (!hs_doc_add_line(d, (uint32_t)p, cont, ref)) return false;
  }
  const char *nl = e < r->len ? memchr(t + e, '\n', r->len - e) : NULL;
  r->lnext = nl ? (size_t)(nl - t) + 1 : r->len;
  return true;
}

/* The line number of offset off, at or after the current statement's start. */
static uint32_t line_of(reader *r, size_t off) {
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

/* The column of offset off (call line_of(off) first: its memo is the start of off's line). */
static uint32_t col_of(reader *r, size_t off) { return (uint32_t)(off - r->lc_off) + 1; }

/* True when no line break follows offset p: the text's last line, cut there. */
static bool on_last_line(reader *r, size_t p) { return p >= r->len || !memchr(r->t + p, '\n', r->len - p); }

/* ---- attributes ---------------------------------------------------------------------------- */

static bool add_call(reader *r, uint32_t idx, hs_slice name, uint8_t attr) {
  bool ok;
  if (r->d->instrs[idx].call_count == HS_CALLS_MAX) {
    if (r->capped != idx + 1) /* once per instruction */
      warn_at(r, name.off, "%.*s: an instruction calling more than 65535 computations: hloscope follows the first 65535", r->t + name.off, name.len < 60 ? name.len : 60);
    r->capped = idx + 1;
    return true;
  }
  hs_call *c = HS_VEC_PUSH(r->d->calls, r->d->n_calls, r->d->cap_calls, ok);
  if (!ok) return false;
  c->name = name;
  c->target = -1;
  c->attr = attr;
  r->d->instrs[idx].call_count++;
  return true;
}

/* A value that names one computation (%c) or a list of them ({%a, %b}). */
static bool read_calls(reader *r, uint32_t idx, size_t s, size_t e, uint8_t attr) {
  const char *t = r->t;
  size_t p = s;
  while (p < e) {
    while (p < e && !(t[p] == '%' || is_name_char(t[p]))) p++;
    if (p >= e) break;
    hs_slice n = read_name(t, e, &p);
    if (n.len && !add_call(r, idx, n, attr)) return false;
    if (!n.len) p++;
  }
  return true;
}

static void warn_at(reader *r, size_t at, const char *fmt, const char *what, size_t n) {
  uint32_t line = line_of(r, at);
  hs_doc_warn(r->d, HS_W_XLA_REFUSES, line, col_of(r, at), fmt, (int)n, what);
}

/* A {key=value ...} list (metadata, frontend_attributes, window, ...): calls each(key, value)
 * for every pair. False, with *bad set to where, when a key has no '=' or no value. */
typedef void (*pair_fn)(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve);
static bool read_pairs(reader *r, size_t s, size_t e, pair_fn each, void *ctx, size_t *bad) {
  const char *t = r->t;
  size_t p = s + 1; /* after '{' */
  e--;              /* the closing '}' */
  for (;;) {
    while (p < e && (is_space(t[p]) || t[p] == ',')) p++;
    if (p >= e) return true;
    size_t ks = p;
    p = t[p] == '"' ? hs_skip_string(t, e, p) : name_end(t, p, e);
    size_t ke = p;
    while (p < e && is_space(t[p])) p++;
    if (ke == ks || p >= e || t[p] != '=') {
      *bad = p < e ? p : ks;
      return false;
    }
    p++;
    while (p < e && (t[p] == ' ' || t[p] == '\t')) p++;
    size_t vs = p;
    if (p < e && t[p] == '"') {
      p = hs_skip_string(t, e + 1, p);
      if (p > e) p = e;
    } else if (p < e && (t[p] == '{' || t[p] == '[')) {
      uint32_t depth = 0;
      while (p < e) {
        char c = t[p];
        if (c == '"') {
          p = hs_skip_string(t, e, p);
          continue;
        }
        if (c == '{' || c == '[' || c == '(') depth++;
        else if ((c == '}' || c == ']' || c == ')') && --depth == 0) {
          p++;
          break;
        }
        p++;
      }
    } else {
      while (p < e && !is_space(t[p]) && t[p] != ',') p++;
    }
    if (p == vs) {
      *bad = vs;
      return false;
    }
    if (each) each(r, ctx, ks, ke, vs, p);
  }
}

/* The same list read from its '{' at s to its '}' in one pass (the value's end is found on the
 * way): the position after '}', or NOWHERE when the list is malformed or the text ends in it
 * (then the caller scans the value and read_pairs says where it went wrong). */
static size_t walk_pairs(reader *r, size_t s, pair_fn each, void *ctx) {
  const char *t = r->t;
  size_t len = r->len;
  size_t p = s + 1;
  for (;;) {
    while (p < len && (is_space(t[p]) || t[p] == ',')) p++;
    if (p >= len) return NOWHERE;
    if (t[p] == '}') return p + 1;
    size_t ks = p;
    p = name_end(t, p, len);
    size_t ke = p;
    if (ke == ks || p >= len || t[p] != '=') return NOWHERE;
    size_t vs = ++p;
    if (p >= len) return NOWHERE;
    if (t[p] == '"') {
      p = hs_skip_string(t, len, p);
      if (p >= len) return NOWHERE;
    } else if (t[p] == '{' || t[p] == '[') {
      uint32_t depth = 0;
      while (p < len) {
        char c = t[p];
        if (c == '"') {
          p = hs_skip_string(t, len, p);
          continue;
        }
        if (c == '{' || c == '[' || c == '(') depth++;
        else if ((c == '}' || c == ']' || c == ')') && --depth == 0) break;
        p++;
      }
      if (p >= len) return NOWHERE;
      p++;
    } else {
      while (p < len && !is_space(t[p]) && t[p] != ',' && t[p] != '}') p++;
    }
    if (p == vs) return NOWHERE;
    each(r, ctx, ks, ke, vs, p);
  }
}

typedef struct {
  hs_hlo_instr *h;
  bool bad_number;
  size_t bad_at;
} meta_ctx;

/* metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N} */
static void metadata_pair(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve) {
  meta_ctx *m = ctx;
  const char *t = r->t;
  size_t kl = ke - ks;
  if (kl == 7 && memcmp(t + ks, "op_name", 7) == 0 && t[vs] == '"' && ve - vs >= 2) {
    m->h->op_name = hs_sl((uint32_t)(vs + 1), (uint32_t)(ve - vs - 2));
  } else if ((kl >= 6 && memcmp(t + ks, "source", 6) == 0) || (kl == 14 && memcmp(t + ks, "stack_frame_id", 14) == 0)) {
    /* source_line, source_end_line, source_column, ... and stack_frame_id are integers */
    if (kl == 11 && memcmp(t + ks, "source_file", 11) == 0) return;
    uint64_t v = 0;
    size_t q = vs;
    if (q < ve && t[q] == '-') q++;
    if (q >= ve) m->bad_number = true;
    for (; q < ve; q++) {
      if (!is_digit(t[q])) {
        m->bad_number = true;
        break;
      }
      v = v * 10 + (uint64_t)(t[q] - '0');
    }
    if (m->bad_number) {
      if (m->bad_at == NOWHERE) m->bad_at = vs;
      return;
    }
    if (kl == 14) {
      hs_doc *d = r->d;
      if (!r->first_ref_line) r->first_ref_line = r->stmt_line;
      d->frame_refs++;
      if (v > r->module_frames && r->module_frames > 0) {
        if (!d->frame_refs_dangling) d->first_dangling_line = r->stmt_line;
        d->frame_refs_dangling++;
      }
    }
  }
}

static void frontend_pair(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve) {
  (void)ks;
  (void)ke;
  (void)ve;
  size_t *bad = ctx;
  if (r->t[vs] != '"' && *bad == NOWHERE) *bad = vs;
}

/* The attributes hloscope reads or checks; every other key is skipped. */
enum { ATTR_CALLS, ATTR_KIND, ATTR_TARGET, ATTR_METADATA, ATTR_BACKEND_CONFIG, ATTR_FRONTEND, ATTR_SHARDING };
static const struct {
  const char *key;
  uint8_t len;
  uint8_t action; /* ATTR_* */
  uint8_t call;   /* HS_CALL_*, for ATTR_CALLS */
} ATTRS[] = {
#define A_(lit, action, call) {lit, sizeof(lit) - 1, action, call}
    A_("calls", ATTR_CALLS, HS_CALL_CALLS),
    A_("to_apply", ATTR_CALLS, HS_CALL_TO_APPLY),
    A_("body", ATTR_CALLS, HS_CALL_BODY),
    A_("condition", ATTR_CALLS, HS_CALL_CONDITION),
    A_("branch_computations", ATTR_CALLS, HS_CALL_BRANCH),
    A_("true_computation", ATTR_CALLS, HS_CALL_BRANCH),
    A_("false_computation", ATTR_CALLS, HS_CALL_BRANCH),
    A_("called_computations", ATTR_CALLS, HS_CALL_OTHER),
    A_("select", ATTR_CALLS, HS_CALL_OTHER),
    A_("scatter", ATTR_CALLS, HS_CALL_OTHER),
    A_("async_execution_thread_computation", ATTR_CALLS, HS_CALL_OTHER),
    A_("kind", ATTR_KIND, 0),
    A_("custom_call_target", ATTR_TARGET, 0),
    A_("metadata", ATTR_METADATA, 0),
    A_("backend_config", ATTR_BACKEND_CONFIG, 0),
    A_("frontend_attributes", ATTR_FRONTEND, 0),
    A_("sharding", ATTR_SHARDING, 0),
#undef A_
};

static int attr_index(const char *k, size_t kl) {
  for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++)
    if (ATTRS[i].len == kl && ATTRS[i].key[0] == k[0] && memcmp(ATTRS[i].key, k, kl) == 0) return (int)i;
  return -1;
}

/* Words a sharding may start with (hlo_parser.cc ParseSharding). */
static bool sharding_word(const char *s, size_t n) {
  static const char *const W[] = {"replicated", "maximal", "devices", "manual", "unknown", "last_tile_dim_replicate",
                                  "last_tile_dims", "shard_as", "shard_like", "unreduced", "metadata", "iota", "mesh"};
  for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
    if (strlen(W[i]) == n && memcmp(W[i], s, n) == 0) return true;
  return false;
}

/* One attribute value [vs, ve) of instruction idx: read what hloscope uses, check what XLA
 * would refuse (a warning). False when memory ran out. */
static bool read_attribute(reader *r, uint32_t idx, int a, size_t ks, size_t vs, size_t ve) {
  const char *t = r->t;
  hs_hlo_instr *h = &r->d->hlo[idx];
  size_t kl = ATTRS[a].len;
  switch (ATTRS[a].action) {
    case ATTR_CALLS: return read_calls(r, idx, vs, ve, ATTRS[a].call);
    case ATTR_KIND: h->kind = hs_sl((uint32_t)vs, (uint32_t)(ve - vs)); break;
    case ATTR_TARGET: {
      size_t s = vs, e = ve;
      if (e > s && t[s] == '"') s++;
      if (e > s && t[e - 1] == '"') e--;
      h->custom_call_target = hs_sl((uint32_t)s, (uint32_t)(e - s));
      break;
    }
    case ATTR_METADATA: {
      meta_ctx m = {h, false, NOWHERE};
      size_t bad = NOWHERE;
      if (t[vs] != '{' || t[ve - 1] != '}' || !read_pairs(r, vs, ve, metadata_pair, &m, &bad) || m.bad_number) {
        size_t at = bad != NOWHERE ? bad : m.bad_at != NOWHERE ? m.bad_at : vs;
        warn_at(r, at, "%.*s is not a metadata value XLA reads ({key=value ...}, numbers where numbers go): XLA's parser refuses this instruction", t + ks, kl + 1 + (at - vs < 40 ? at - vs + 1 : 40));
      }
      break;
    }
    case ATTR_BACKEND_CONFIG:
      h->backend_config = hs_sl((uint32_t)vs, (uint32_t)(ve - vs));
      if (t[vs] != '"' && t[vs] != '{')
        warn_at(r, vs, "%.*s: a backend_config is a quoted string or a {...} object: XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    case ATTR_FRONTEND: {
      size_t bad = NOWHERE, bad_value = NOWHERE;
      if (t[vs] != '{' || t[ve - 1] != '}' || !read_pairs(r, vs, ve, frontend_pair, &bad_value, &bad) || bad_value != NOWHERE)
        warn_at(r, bad != NOWHERE ? bad : bad_value != NOWHERE ? bad_value : vs, "%.*s: frontend attributes are {key=\"value\", ...}: XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    }
    case ATTR_SHARDING: {
      size_t p = vs;
      while (p < ve && (t[p] == '{' || is_space(t[p]))) p++;
      size_t w = p;
      while (p < ve && ((t[p] >= 'a' && t[p] <= 'z') || t[p] == '_')) p++;
      if (t[vs] != '{' || (p > w && !sharding_word(t + w, p - w)))
        warn_at(r, vs, "%.*s is not a sharding XLA reads ({replicated}, {maximal device=N}, {devices=[...]...}, {manual}, ...): XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    }
    default: break;
  }
  return true;
}

/* ", key=value" attributes from p (at ','); idx: the instruction they belong to, or -1 (module
 * or computation attributes, skipped). only_named: stop before a ',' that is not followed by
 * "key=" (a nested instruction's attributes, inside an operand list). Returns the end of the
 * last value (or p), HLO_FAIL, or sets r->cut when the text ended inside a value. */
static size_t read_attributes(reader *r, int64_t idx, size_t p, bool only_named) {
  const char *t = r->t;
  size_t len = r->len;
  size_t end = p;
  uint32_t key_at[16], key_len[16], n_keys = 0; /* the first keys, for duplicates */
  for (;;) {
    size_t c = skip_ws(r, p);
    if (c >= len || t[c] != ',') return end;
    size_t ks = skip_ws(r, c + 1);
    size_t ke = name_end(t, ks, len);
    size_t eq = skip_ws(r, ke);
    if (eq >= len) {
      if (only_named && ke > ks) return end;
      r->cut = true;
      return len;
    }
    if (ke == ks || t[eq] != '=') {
      if (only_named) return end;
      return fail_syntax(r, ks < len ? ks : c, "expected an attribute 'name=value' after ','");
    }
    size_t vs = skip_ws(r, eq + 1);
    if (vs >= len) {
      r->cut = true;
      return len;
    }
    bool open = false;
    int a = idx >= 0 ? attr_index(t + ks, ke - ks) : -1;
    size_t ve = NOWHERE;
    if (a >= 0 && ATTRS[a].action == ATTR_METADATA && t[vs] == '{') {
      /* the largest attribute of most instructions: read in the pass that finds its end */
      meta_ctx m = {&r->d->hlo[idx], false, NOWHERE};
      ve = walk_pairs(r, vs, metadata_pair, &m);
      if (ve != NOWHERE && m.bad_number) ve = NOWHERE; /* read again below, to say where */
      else if (ve != NOWHERE) a = -1;                   /* done */
    }
    if (ve == NOWHERE) ve = scan_value(r, vs, &open);
    if (open) {
      r->cut = true;
      end = len;
    } else if (ve == vs) {
      return fail_syntax(r, vs, "expected a value after '=' (XLA's parser refuses an attribute without one)");
    }
    for (uint32_t k = 0; k < n_keys; k++)
      if (key_len[k] == ke - ks && memcmp(t + key_at[k], t + ks, ke - ks) == 0) {
        warn_at(r, ks, "attribute %.*s is given twice: XLA's parser refuses this", t + ks, ke - ks);
        break;
      }
    if (n_keys < 16) {
      key_at[n_keys] = (uint32_t)ks;
      key_len[n_keys++] = (uint32_t)(ke - ks);
    }
    if (!open && ve > vs && t[ve - 1] == '}') { /* no search for a line break: the byte before the brace's spaces says */
      size_t b = ve - 1;
      while (b > vs && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
      if (b > vs && t[b - 1] == '\n') {
        r->suspect_line = line_of(r, ks);
        r->suspect_key = ks;
      }
    }
    if (a >= 0 && !read_attribute(r, (uint32_t)idx, a, ks, vs, ve)) return fail_oom(r);
    if (open) return len;
    end = p = ve;
  }
}

/* ---- instructions ------------------------------------------------------------------------- */

static bool push_operand(reader *r, hs_slice name, int32_t target) {
  bool ok;
  hs_operand *o = HS_VEC_PUSH(r->ops, r->n_ops, r->cap_ops, ok);
  if (!ok) return false;
  o->name = name;
  o->target = target;
  return true;
}

/* Appends bytes to d->synth; their slice (offsets past the text: see hs_sp). */
static bool synth_str(reader *r, const char *a, size_t an, const char *b, size_t bn, hs_slice *out) {
  hs_doc *d = r->d;
  size_t need = (size_t)d->n_synth + an + bn;
  if (need > (1u << 30) || (uint64_t)d->len + 1 + need > UINT32_MAX) return false;
  if (!hs_vec_grow((void **)&d->synth, &d->cap_synth, (uint32_t)need, 1)) return false;
  memcpy(d->synth + d->n_synth, a, an);
  if (bn) memcpy(d->synth + d->n_synth + an, b, bn);
  *out = hs_sl((uint32_t)(d->len + 1 + d->n_synth), (uint32_t)(an + bn));
  d->n_synth += (uint32_t)(an + bn);
  return true;
}

/* Pushes an instruction (and its HLO side) of the open computation. */
static int32_t push_instr(reader *r, hs_slice name, hs_slice opcode, hs_type *ty, uint32_t line, uint32_t op_base, uint8_t synth) {
  hs_doc *d = r->d;
  hs_instr *in = hs_doc_add_instr(d, name, opcode, line, (uint32_t)r->comp);
  if (!in) return -1;
  in->type = ty;
  in->synth = synth;
  bool ok;
  hs_hlo_instr *h = HS_VEC_PUSH(d->hlo, d->n_hlo, d->cap_hlo, ok);
  if (!ok) return -1;
  memset(h, 0, sizeof *h);
  /* its operands: from the reader's stack into the document */
  uint32_t n = r->n_ops - op_base;
  if (n) {
    if (!hs_vec_grow((void **)&d->operands, &d->cap_operands, d->n_operands + n, sizeof *d->operands)) return -1;
    memcpy(d->operands + d->n_operands, r->ops + op_base, n * sizeof *r->ops);
    d->n_operands += n;
    r->n_ops = op_base;
  }
  in = &d->instrs[d->n_instrs - 1];
  in->op_count = n;
  return (int32_t)d->n_instrs - 1;
}

/* The compact get-tuple-element "base#i#j..." (the text from s to e; base is its name part):
 * the instruction XLA's parser makes for it, one per distinct name in the computation ("base_i",
 * then "base_i_j"). Returns its index, or -1 when memory ran out. */
static int32_t compact_gte(reader *r, hs_slice base, size_t s, size_t e, uint32_t line) {
  hs_doc *d = r->d;
  const char *t = r->t;
  if (!r->gte_opcode.len && !synth_str(r, "get-tuple-element", 17, NULL, 0, &r->gte_opcode)) return -1;
  int32_t prev = -1;
  hs_slice prev_name = base;
  size_t p = base.off + base.len;
  while (p < e && t[p] == '#') {
    size_t q = p + 1;
    int64_t index = 0;
    while (q < e && is_digit(t[q])) index = index < 100000000 ? index * 10 + (t[q++] - '0') : (q++, index);
    /* the name XLA gives it: the previous name, '_', the index */
    char buf[24];
    int bn = snprintf(buf, sizeof buf, "_%lld", (long long)index);
    uint32_t h = hs_hash(hs_sp(d, prev_name), prev_name.len);
    for (int k = 0; k < bn; k++) h = (h ^ (uint8_t)buf[k]) * 16777619u;
    /* looked up among the computation's get-tuple-elements made so far */
    int32_t found = -1;
    uint32_t slot = 0;
    if (r->cap_gtes) {
      slot = h & (r->cap_gtes - 1);
      while (r->gtes[slot].instr) {
        if (r->gtes[slot].hash == h) {
          hs_slice n = d->instrs[r->gtes[slot].instr - 1].name;
          if (n.len == prev_name.len + (uint32_t)bn && memcmp(hs_sp(d, n), hs_sp(d, prev_name), prev_name.len) == 0 &&
              memcmp(hs_sp(d, n) + prev_name.len, buf, (size_t)bn) == 0) {
            found = (int32_t)r->gtes[slot].instr - 1;
            break;
          }
        }
        slot = (slot + 1) & (r->cap_gtes - 1);
      }
    }
    if (found < 0) {
      hs_slice name;
      /* prev_name may itself be in d->synth, which synth_str may move: copy it first */
      char small[256];
      size_t pn = prev_name.len < sizeof small ? prev_name.len : sizeof small;
      memcpy(small, hs_sp(d, prev_name), pn);
      if (!synth_str(r, small, pn, buf, (size_t)bn, &name)) return -1;
      uint32_t op_base = r->n_ops;
      if (!push_operand(r, prev < 0 ? base : prev_name, prev)) return -1;
      found = push_instr(r, name, r->gte_opcode, NULL, line, op_base, HS_SYNTH_GTE);
      if (found < 0) return -1;
      d->instrs[found].gte_index = (int32_t)(index > INT32_MAX ? INT32_MAX : index);
      /* the table: grown to stay at most half full */
      if ((r->n_gtes + 1) * 2 > r->cap_gtes) {
        uint32_t cap = r->cap_gtes ? r->cap_gtes * 2 : 64;
        gte_slot *ns = calloc(cap, sizeof *ns);
        if (!ns) return -1;
        for (uint32_t i = 0; i < r->cap_gtes; i++) {
          if (!r->gtes[i].instr) continue;
          uint32_t k = r->gtes[i].hash & (cap - 1);
          while (ns[k].instr) k = (k + 1) & (cap - 1);
          ns[k] = r->gtes[i];
        }
        free(r->gtes);
        r->gtes = ns;
        r->cap_gtes = cap;
      }
      slot = h & (r->cap_gtes - 1);
      while (r->gtes[slot].instr) slot = (slot + 1) & (r->cap_gtes - 1);
      r->gtes[slot] = (gte_slot){h, (uint32_t)found + 1};
      r->n_gtes++;
    }
    prev = found;
    prev_name = d->instrs[found].name;
    p = q;
  }
  (void)s;
  return prev;
}

static size_t read_operands(reader *r, size_t p, int literal, int depth);

/* A nested instruction "shape opcode(operands), key=value" at s (its shape), opcode at [os, oe).
 * Pushes it; returns the end of its text and sets *idx, or HLO_FAIL. */
static size_t nested_instr(reader *r, size_t s, size_t os, size_t oe, size_t open, int depth, int32_t *idx) {
  const char *t = r->t;
  if (depth >= MAX_NESTING) return fail_syntax(r, os, "operands nested more than 200 deep");
  size_t q = s;
  hs_type *ty = NULL;
  if (s < os) {
    ty = read_shape(r, &q);
    if (!ty) return fail_syntax(r, s, "expected the shape of the nested instruction");
  }
  if (!opcode_ok(r, os, oe))
    warn_at(r, os, "unknown opcode '%.*s': XLA's parser refuses it (a typo, or an opcode newer than hloscope knows?)", t + os, oe - os);
  uint32_t op_base = r->n_ops;
  size_t e = read_operands(r, open + 1, literal_opcode(t + os, oe - os), depth + 1);
  if (e == HLO_FAIL) return HLO_FAIL;
  hs_slice name;
  if (!synth_str(r, t + os, oe - os, ".anon", 5, &name)) return fail_oom(r);
  *idx = push_instr(r, name, hs_sl((uint32_t)os, (uint32_t)(oe - os)), ty, line_of(r, os), op_base, HS_SYNTH_NESTED);
  if (*idx < 0) return fail_oom(r);
  if (r->cut) return e;
  return read_attributes(r, *idx, e, true);
}

/* From p, inside `depth` open brackets: the position after the bracket that closes them all
 * (strings and comments skipped), or len when the text ends first. */
static const uint8_t BRACKETS[256] = {['"'] = 1, ['('] = 1, ['{'] = 1, ['['] = 1, [')'] = 1,
                                      ['}'] = 1, [']'] = 1, ['/'] = 1};
static size_t skip_balanced(reader *r, size_t p, uint32_t depth) {
  const char *t = r->t;
  size_t len = r->len;
  while (p < len) {
    while (p < len && !BRACKETS[(uint8_t)t[p]]) p++;
    if (p >= len) break;
    char c = t[p];
    if (c == '"') {
      p = hs_skip_string(t, len, p);
      continue;
    }
    if (c == '/' && p + 1 < len && (t[p + 1] == '*' || t[p + 1] == '/')) {
      p = skip_ws(r, p);
      continue;
    }
    if (c == '(' || c == '{' || c == '[') depth++;
    else if ((c == ')' || c == '}' || c == ']') && --depth == 0) return p + 1;
    p++;
  }
  return len;
}

/* The operand list from p (after '(') to its ')': each operand pushed on r->ops (nested
 * instructions and compact get-tuple-elements pushed into the document on the way). Returns
 * the position after ')', HLO_FAIL, or len with r->cut set when the text ended inside it. */
static size_t read_operands(reader *r, size_t p, int literal, int depth) {
  const char *t = r->t;
  size_t len = r->len;
  if (literal == LIT_NUMBER) { /* parameter(N) */
    size_t q = skip_ws(r, p);
    size_t ds = q;
    while (q < len && is_digit(t[q])) q++;
    size_t e = skip_ws(r, q);
    if (e >= len) {
      r->cut = true;
      return len;
    }
    if (q == ds || t[e] != ')') return fail_syntax(r, e, "expected the parameter's number and ')', as in parameter(0)");
    return e + 1;
  }
  if (literal) { /* constant(1.5), constant({...}), iota(): a literal, not operands */
    for (int k = 0;; k++) {
      size_t q = skip_ws(r, p);
      if (q >= len) break;
      if (t[q] == ')') return q + 1;
      /* a literal value: bracketed (may span lines), or a word ("-inf", "1e-08", "true"); an
         older printer put the shape first ("f32[2] {1, 2}") */
      if (k == 2) return fail_syntax(r, q, "expected ')' after the constant's literal");
      if (t[q] == '{' || t[q] == '(') {
        p = skip_balanced(r, q + 1, 1);
      } else {
        p = q;
        while (p < len && !is_space(t[p]) && t[p] != ')' && t[p] != ',' && t[p] != '{' && t[p] != '(') {
          if (t[p] == '[') { /* a shape's dimensions */
            while (p < len && t[p] != ']') p++;
            if (p < len) p++;
            continue;
          }
          p++;
        }
        if (p == q) return fail_syntax(r, q, "expected ')' after the constant's literal");
      }
    }
    r->cut = true;
    return len;
  }
  for (;;) {
    p = skip_ws(r, p);
    if (p >= len) break;
    if (t[p] == ')') return p + 1;
    size_t s = p;
    size_t q = t[p] == '%' ? p : skip_shape(r, p); /* "%name": no shape before it */
    bool has_shape = q > p;
    if (has_shape) p = skip_ws(r, q);
    if (p >= len) break;
    size_t ns = p;
    hs_slice name = read_name(t, len, &p);
    if (!name.len) return fail_syntax(r, ns, "expected an operand: an instruction's name (%x) or a nested instruction (f32[4] negate(%x))");
    size_t ne = p;
    while (p < len && t[p] == '#') {
      p++;
      while (p < len && is_digit(t[p])) p++;
    }
    size_t after = skip_ws(r, p);
    if (after < len && t[after] == '(' && t[ns] != '%' && p == ne) {
      /* a nested instruction, its shape written or (XLA infers it) not */
      int32_t idx;
      size_t e = nested_instr(r, s, ns, ne, after, depth, &idx);
      if (e == HLO_FAIL) return HLO_FAIL;
      if (!push_operand(r, hs_sl((uint32_t)ns, 0), idx)) return fail_oom(r);
      if (r->cut) return len;
      p = e;
    } else if (p > ne) {
      int32_t g = compact_gte(r, name, ns, p, line_of(r, ns));
      if (g < 0) return fail_oom(r);
      if (!push_operand(r, hs_sl(name.off, (uint32_t)(p - name.off)), g)) return fail_oom(r);
      p = after;
    } else {
      if (!push_operand(r, name, -1)) return fail_oom(r);
      p = after;
    }
    p = skip_ws(r, p);
    if (p >= len) break;
    if (t[p] == ',') {
      p++;
      continue;
    }
    if (t[p] == ')') return p + 1;
    return fail_syntax(r, p, "expected ',' or ')' after an operand");
  }
  r->cut = true;
  return len;
}

static bool async_sugar(reader *r, size_t os, size_t oe, uint32_t idx);

/* An opcode and '(' at p, with no shape before it: XLA infers the shape ("ROOT v = abs(a)"). */
static bool shapeless_at(reader *r, size_t p) {
  const char *t = r->t;
  size_t q = p;
  while (q < r->len && is_opcode_char(t[q])) q++;
  if (q == p || (q < r->len && t[q] == '[')) return false;
  q = skip_ws(r, q);
  return q < r->len && t[q] == '(';
}

/* "[ROOT] name = shape opcode(operands), key=value ..." at p (past ROOT). Returns the end of its
 * last token, or HLO_FAIL; r->cut when the text ended inside it; *out: the instruction. */
static size_t instruction(reader *r, size_t p, bool root, int32_t *out) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  *out = -1;
  hs_slice name = read_name(t, len, &p);
  if (!name.len) return fail_syntax(r, p, "expected an instruction name");
  p = skip_ws(r, p);
  if (p >= len || t[p] != '=') return fail_syntax(r, p, "expected '=' after the instruction name");
  p = skip_ws(r, p + 1);
  size_t shape_at = p;
  hs_type *ty = NULL;
  const shape_slot *seen = shape_seen(r, p);
  if (seen) {
    ty = seen->type;
    p = skip_ws(r, p + seen->len);
  } else {
    size_t se = skip_shape(r, p); /* where a shape is, it ends there */
    if (se > p || !shapeless_at(r, p)) {
      ty = read_new_shape(r, &p, se);
      if (!ty) return fail_syntax(r, p > shape_at ? p : shape_at, "expected a shape such as f32[128]{0} or (f32[], s32[]) after '='");
      p = skip_ws(r, p);
    }
  }
  size_t os = p;
  while (p < len && is_opcode_char(t[p])) p++;
  if (p == os) return fail_syntax(r, p, "expected an opcode (such as add, fusion, custom-call) after the shape");
  size_t oe = p;
  p = skip_ws(r, p);
  if (p >= len || t[p] != '(') return fail_syntax(r, p, "expected '(' and the operands after the opcode");
  bool known = opcode_ok(r, os, oe);
  uint32_t op_base = r->n_ops;
  size_t e = read_operands(r, p + 1, literal_opcode(t + os, oe - os), 0);
  if (e == HLO_FAIL) return HLO_FAIL;
  int32_t idx = push_instr(r, name, hs_sl((uint32_t)os, (uint32_t)(oe - os)), ty, r->stmt_line, op_base, HS_SYNTH_NONE);
  if (idx < 0) return fail_oom(r);
  if (!known && !async_sugar(r, os, oe, (uint32_t)idx))
    warn_at(r, os, "unknown opcode '%.*s': XLA's parser refuses it (a typo, or an opcode newer than hloscope knows?)", t + os, oe - os);
  d->instrs[idx].is_root = root;
  *out = idx;
  if (r->cut) return len;
  e = read_attributes(r, idx, e, false);
  if (e == HLO_FAIL || r->cut) return e;
  /* what may follow: the next statement (a name or keyword), '}', or the end */
  size_t q = skip_ws(r, e);
  if (q < len && t[q] != '}' && t[q] != '%' && !is_name_char(t[q])) {
    char msg[160];
    snprintf(msg, sizeof msg, "unexpected '%c' after instruction %.*s: expected ', name=value' or the next instruction", t[q],
             (int)(name.len < 60 ? name.len : 60), t + name.off);
    return fail_syntax(r, q, msg);
  }
  return e;
}

/* Closes the open computation (end_line 0: cut), then makes the computations XLA wraps each
 * "<op>-start" of it in: a parameter per operand and the op, at the start's line. */
static bool close_comp(reader *r, uint32_t end_line) {
  hs_doc *d = r->d;
  hs_doc_close_comp(d, (uint32_t)r->comp, end_line);
  r->comp = -1;
  uint32_t n = r->n_wraps;
  r->n_wraps = 0;
  for (uint32_t k = 0; k < n; k++) {
    struct wrap w = r->wraps[k];
    hs_slice name, pname;
    if (!synth_str(r, r->t + w.op_off, w.op_len, ".wrapped", 8, &name)) return false;
    int32_t c = hs_doc_open_comp(d, (uint32_t)r->module, name, w.line, HS_ROLE_CALLED);
    if (c < 0) return false;
    d->comps[c].end_line = w.line;
    r->comp = c;
    if (!r->param_opcode.len && !synth_str(r, "parameter", 9, NULL, 0, &r->param_opcode)) return false;
    uint32_t op_base = r->n_ops;
    for (uint32_t i = 0; i < w.operands; i++) {
      char buf[24];
      int bn = snprintf(buf, sizeof buf, ".param_%u", i);
      if (!synth_str(r, r->t + w.op_off, w.op_len, buf, (size_t)bn, &pname)) return false;
      int32_t pi = push_instr(r, pname, r->param_opcode, NULL, w.line, r->n_ops, HS_SYNTH_NESTED);
      if (pi < 0 || !push_operand(r, hs_sl(0, 0), pi)) return false;
    }
    int32_t root = push_instr(r, name, hs_sl(w.op_off, w.op_len), NULL, w.line, op_base, HS_SYNTH_NESTED);
    if (root < 0) return false;
    d->instrs[root].is_root = 1;
    d->comps[c].root = root;
    hs_doc_close_comp(d, (uint32_t)c, w.line);
    r->comp = -1;
  }
  return true;
}

/* An opcode XLA does not list may be its async syntax sugar: "<op>-start", "-update", "-done"
 * of an op it lists ("custom-call-start"). Records a start's wrapped computation. */
static bool async_sugar(reader *r, size_t os, size_t oe, uint32_t idx) {
  const char *t = r->t;
  size_t n = oe - os, cut = 0;
  if (n > 6 && memcmp(t + oe - 6, "-start", 6) == 0) cut = 6;
  else if (n > 7 && memcmp(t + oe - 7, "-update", 7) == 0) cut = 7;
  else if (n > 5 && memcmp(t + oe - 5, "-done", 5) == 0) cut = 5;
  if (!cut || !known_opcode(t + os, n - cut)) return false;
  if (cut == 6) {
    bool ok;
    struct wrap *w = HS_VEC_PUSH(r->wraps, r->n_wraps, r->cap_wraps, ok);
    if (ok) *w = (struct wrap){(uint32_t)os, (uint32_t)(n - cut), r->d->instrs[idx].line, r->d->instrs[idx].op_count};
  }
  return true;
}

/* "[ENTRY] name [(params) -> shape] (, key=value)* {" at p. Returns the position after '{' (the
 * computation is open), HLO_FAIL, or len with r->cut. */
static size_t header(reader *r, size_t p, bool entry) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  if (entry) p = skip_ws(r, p + 5);
  size_t ns = p;
  hs_slice name = read_name(t, len, &p);
  if (!name.len) return fail_syntax(r, ns, "expected a computation name after ENTRY");
  p = skip_ws(r, p);
  hs_type *result = NULL;
  if (p < len && t[p] == '(') {
    size_t e = skip_balanced(r, p + 1, 1);
    if (e >= len && t[len - 1] != ')') {
      r->cut = true;
      return len;
    }
    p = skip_ws(r, e);
    if (p + 1 < len && t[p] == '-' && t[p + 1] == '>') {
      p = skip_ws(r, p + 2);
      size_t rs = p;
      size_t se = skip_shape(r, p); /* "-> f32[8]{" : the '{' opens the computation */
      result = hs_parse_hlo_shape(&d->arena, t, se > p ? se : len, &p);
      if (!result) return fail_syntax(r, p > rs ? p : rs, "expected the computation's result shape after '->'");
    }
  }
  p = read_attributes(r, -1, p, false); /* execution_thread="..." */
  if (p == HLO_FAIL) return HLO_FAIL;
  if (r->cut) return len;
  p = skip_ws(r, p);
  if (p >= len) {
    r->cut = true;
    return len;
  }
  if (t[p] != '{') return fail_syntax(r, p, "expected '{' opening the computation");
  if (r->comp >= 0) {
    hs_comp *open = &d->comps[r->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, r->stmt_line, 1,
                "computation %.*s (line %u) has no closing '}' before the next computation at line %u",
                (int)open->name.len, t + open->name.off, open->line, r->stmt_line);
    uint32_t oc = (uint32_t)r->comp;
    if (!close_comp(r, 0)) return fail_oom(r);
    d->comps[oc].end_line = r->stmt_line - 1;
  }
  if (r->module < 0) {
    /* computations without an HloModule line: an anonymous module */
    r->module = hs_doc_open_module(d, hs_sl(0, 0), r->stmt_line);
    if (r->module < 0) return fail_oom(r);
  }
  int32_t c = hs_doc_open_comp(d, (uint32_t)r->module, name, r->stmt_line, HS_ROLE_CALLED);
  if (c < 0) return fail_oom(r);
  d->comps[c].result = result;
  d->comps[c].is_entry = entry;
  r->comp = c;
  if (entry && d->modules[r->module].entry >= 0)
    warn_at(r, ns, "a second ENTRY computation in module %.*s: XLA's parser refuses this", t + d->modules[r->module].name.off,
            d->modules[r->module].name.len);
  if (entry) d->modules[r->module].entry = c;
  if (r->n_gtes) { /* compact get-tuple-element names are per computation */
    memset(r->gtes, 0, r->cap_gtes * sizeof *r->gtes);
    r->n_gtes = 0;
  }
  return p + 1;
}

/* "HloModule name, key=value, ...": a new module; a computation left open is cut there. */
static size_t module_stmt(reader *r, size_t p) {
  hs_doc *d = r->d;
  if (r->comp >= 0) {
    hs_comp *open = &d->comps[r->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                "computation %.*s (line %u) has no closing '}' before the next module at line %u",
                (int)open->name.len, r->t + open->name.off, open->line, r->stmt_line);
    if (!close_comp(r, 0)) return fail_oom(r);
  }
  r->module_frames = 0; /* frame tables belong to one module */
  p = skip_ws(r, p + 9);
  hs_slice name = read_name(r->t, r->len, &p);
  while (p < r->len && (r->t[p] == ':' || is_name_char(r->t[p]))) p++; /* XLA takes "name:" too */
  name.len = (uint32_t)(p - name.off);
  r->module = hs_doc_open_module(d, name, r->stmt_line);
  if (r->module < 0) return fail_oom(r);
  return read_attributes(r, -1, p, false);
}

/* The end of the line holding p (its '\n', or len). */
static size_t line_end(reader *r, size_t p) {
  const char *nl = memchr(r->t + p, '\n', r->len - p);
  return nl ? (size_t)(nl - r->t) : r->len;
}

/* The line from p is exactly the keyword (trailing spaces and comments aside). */
static bool line_is(reader *r, size_t p, const char *kw, size_t n) {
  const char *t = r->t;
  if (r->len - p < n || memcmp(t + p, kw, n) != 0) return false;
  size_t q = p + n;
  while (q < r->len && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r')) q++;
  return q >= r->len || t[q] == '\n' || (t[q] == '/' && q + 1 < r->len && (t[q + 1] == '/' || t[q + 1] == '*'));
}

/* A statement that broke off where the text ends (a dump cut short): undo what it added and
 * say so, or (the text goes on) keep the error. */
typedef struct {
  uint32_t instrs, hlo, operands, calls;
} mark;

static int broken(reader *r, const mark *m, int rc) {
  hs_doc *d = r->d;
  if (rc != HS_E_SYNTAX || !on_last_line(r, r->err->offset)) return rc;
  d->n_instrs = m->instrs;
  d->n_hlo = m->hlo;
  d->n_operands = m->operands;
  d->n_calls = m->calls;
  r->n_ops = 0;
  r->err->code = 0;
  r->cut = true;
  hs_warn_truncated_line(d, r->stmt_line);
  return 0;
}

/* One statement at p (its first token): read, its lines recorded; *next: where the next may
 * start. */
static int statement(reader *r, size_t p, size_t *next) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  mark m = {d->n_instrs, d->n_hlo, d->n_operands, d->n_calls};
  char c = t[p];
  uint8_t kind = HS_LINE_OTHER;
  uint32_t ref = 0;
  size_t e;
  if (c == 'H' && keyword_at(t, len, p, "HloModule", 9)) {
    r->table = TABLE_NONE;
    e = module_stmt(r, p);
    if (e == HLO_FAIL) return broken(r, &m, r->err->code);
    kind = HS_LINE_MODULE;
    ref = (uint32_t)r->module;
  } else if (r->comp < 0 && (c == 'F' || c == 'S') &&
             (line_is(r, p, "FileNames", 9) || line_is(r, p, "FunctionNames", 13) || line_is(r, p, "FileLocations", 13) ||
              line_is(r, p, "StackFrames", 11))) {
    r->table = c == 'S' ? TABLE_STACK_FRAMES : TABLE_OTHER;
    e = p;
    while (e < len && is_name_char(t[e])) e++;
    kind = HS_LINE_TABLE;
  } else if (r->comp < 0 && r->table && is_digit(c)) {
    if (r->table == TABLE_STACK_FRAMES) {
      d->stack_frames++;
      r->module_frames++;
    }
    e = line_end(r, p);
    kind = HS_LINE_TABLE;
  } else {
    r->table = TABLE_NONE;
    bool entry = c == 'E' && keyword_at(t, len, p, "ENTRY", 5);
    bool root = c == 'R' && keyword_at(t, len, p, "ROOT", 4);
    size_t q = root ? skip_ws(r, p + 4) : p;
    size_t after = q;
    if (!entry) {
      read_name(t, len, &after);
      after = skip_ws(r, after);
    }
    if (c == '}') {
      e = read_attributes(r, -1, p + 1, false); /* "}, execution_thread=..." */
      if (e == HLO_FAIL) return broken(r, &m, r->err->code);
      if (r->comp >= 0) {
        kind = HS_LINE_CLOSE;
        ref = (uint32_t)r->comp;
        if (!close_comp(r, r->stmt_line)) return oom(r);
        r->suspect_line = 0;
      } else {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1, "a '}' with no open computation was skipped");
      }
    } else if (!entry && after < len && t[after] == '=' && after > q) {
      if (r->comp < 0) {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1,
                    "an instruction outside any computation was skipped");
        e = line_end(r, p);
      } else {
        int32_t idx;
        e = instruction(r, q, root, &idx);
        if (e == HLO_FAIL) return broken(r, &m, r->err->code);
        if (idx < 0) { /* cut before it was made */
          kind = HS_LINE_OTHER;
        } else {
          kind = HS_LINE_INSTR;
          ref = (uint32_t)idx;
          if (root && d->comps[r->comp].root >= 0)
            warn_at(r, p, "a second ROOT in computation %.*s: XLA's parser refuses this", t + d->comps[r->comp].name.off,
                    d->comps[r->comp].name.len);
          if (root) d->comps[r->comp].root = idx;
          if (r->cut) {
            hs_instr *in = &d->instrs[idx];
            hs_doc_warn(d, HS_W_TRUNCATED, r->stmt_line, 1,
                        "instruction %.*s at line %u is cut short (truncated dump?): read what was there", (int)in->name.len,
                        t + in->name.off, r->stmt_line);
          }
        }
      }
    } else if (!root && (entry || (after < len && after > q && (t[after] == '(' || t[after] == '{')))) {
      e = header(r, p, entry);
      if (e == HLO_FAIL) return broken(r, &m, r->err->code);
      if (r->cut) {
        hs_warn_truncated_line(d, r->stmt_line);
      } else {
        kind = HS_LINE_COMP;
        ref = (uint32_t)r->comp;
      }
    } else if (on_last_line(r, p)) {
      hs_warn_truncated_line(d, r->stmt_line);
      e = len;
      r->cut = true;
    } else if (r->comp >= 0) {
      /* where the statement goes wrong: the token after its name, or (that token is on a later
         line) the end of the name, so that the error names the line the user wrote */
      size_t at = p;
      if (after < len && after > q) {
        size_t ne = q;
        read_name(t, len, &ne);
        at = memchr(t + ne, '\n', after - ne) ? ne : after;
      }
      return syntax(r, at, "expected an instruction 'name = shape opcode(operands)' or '}' closing the computation");
    } else {
      hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1,
                  "a line that is neither a module, a computation nor a frame table was skipped");
      e = line_end(r, p);
    }
  }
  if (r->cut) e = len;
  if (!end_stmt(r, e, kind, ref)) return oom(r);
  *next = e;
  return 0;
}

/* The warnings that need the whole text: a computation left open, frame references. */
static int finish(reader *r) {
  hs_doc *d = r->d;
  if (r->comp >= 0) {
    hs_comp copy = d->comps[r->comp];
    const hs_comp *c = &copy; /* close_comp may move d->comps */
    if (!close_comp(r, 0)) return oom(r);
    if (r->suspect_line) {
      size_t ke = r->suspect_key;
      while (ke < r->len && is_name_char(r->t[ke])) ke++;
      hs_doc_warn(d, HS_W_XLA_REFUSES, r->suspect_line, 0,
                  "the value of %.*s (line %u) took the '}' that closes computation %.*s: is its own '}' missing?",
                  (int)(ke - r->suspect_key), r->t + r->suspect_key, r->suspect_line, (int)c->name.len, r->t + c->name.off);
    }
    /* at the end of the text: the line after the last line break */
    uint32_t eof_line = d->n_lines + (r->len && r->t[r->len - 1] == '\n' ? 1 : 0);
    hs_doc_warn(d, HS_W_TRUNCATED, eof_line, 1,
                "the dump ends inside computation %.*s (opened at line %u): it looks truncated; the results cover what was read",
                (int)c->name.len, r->t + c->name.off, c->line);
  }
  if (d->frame_refs && !d->stack_frames) {
    hs_doc_warn(d, HS_W_FRAME_TABLES_MISSING, r->first_ref_line, 0,
                "%u instructions refer to stack frames (stack_frame_id=) but the dump has no StackFrames "
                "table (frame tables trimmed?): their source lines are unknown",
                d->frame_refs);
  } else if (d->frame_refs_dangling) {
    hs_doc_warn(d, HS_W_FRAME_REF_DANGLING, d->first_dangling_line, 0,
                "%u stack_frame_id references point past the StackFrames table: their source lines are unknown",
                d->frame_refs_dangling);
  }
  if (!d->n_comps) {
    hs_set_error(r->err, HS_E_FORMAT, d, 0,
                 "no HLO computation found: expected 'HloModule <name>' followed by computations such as "
                 "'ENTRY %%main (p: f32[4]) -> f32[4] {'");
    return HS_E_FORMAT;
  }
  return 0;
}

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

/* The driver: statement after statement, each recorded with its lines. */
int hs_parse_hlo_text(hs_doc *d, hs_error *err) {
  hs_error local;
  if (!err) err = &local;
  reader *r = calloc(1, sizeof *r);
  if (!r) {
    hs_set_error(err, HS_E_NOMEM, d, 0, "out of memory while parsing");
    return HS_E_NOMEM;
  }
  *r = (reader){.d = d, .err = err, .t = d->text, .len = d->len, .module = -1, .comp = -1, .open_comment = NOWHERE};
  int rc = 0;
  /* Reserved from the line count, estimated from the first megabyte (a full counting pass
     would read the text twice): the arrays are then rarely copied while they grow (a copy holds
     both in memory at once), and what is reserved but never written is never touched, so it
     costs no memory. */
  size_t sample = d->len < (1u << 20) ? d->len : (1u << 20);
  uint64_t n_nl = 1;
  for (const char *q = d->text, *end = d->text + sample; q && q < end; n_nl++) {
    q = memchr(q, '\n', (size_t)(end - q));
    if (q) q++;
  }
  uint64_t est = sample ? n_nl * (uint64_t)d->len / sample + n_nl / 4 + 64 : 64;
  uint32_t n_lines = (uint32_t)(est < UINT32_MAX / 4 ? est : UINT32_MAX / 4);
  uint32_t n_stmts = (uint32_t)(n_lines < d->len / 24 ? n_lines : d->len / 24) + 64;
  if (!hs_vec_grow((void **)&d->lines, &d->cap_lines, n_lines + 1, sizeof *d->lines) ||
      !hs_vec_grow((void **)&d->instrs, &d->cap_instrs, n_stmts, sizeof *d->instrs) ||
      !hs_vec_grow((void **)&d->hlo, &d->cap_hlo, n_stmts, sizeof *d->hlo) ||
      !hs_vec_grow((void **)&d->operands, &d->cap_operands, n_stmts < UINT32_MAX / 2 ? n_stmts + n_stmts / 2 : n_stmts, sizeof *d->operands)) {
    rc = oom(r);
    goto done;
  }
  size_t p = 0;
  for (;;) {
    p = skip_ws(r, p);
    if (p >= r->len) break;
    if (!lines_upto(r, p)) {
      rc = oom(r);
      goto done;
    }
    rc = statement(r, p, &p);
    if (rc || r->cut) break;
  }
  if (rc) goto done;
  /* the lines after the last statement: blank or comments */
  if (r->lnext < r->len) {
    if (!lines_upto(r, r->len)) {
      rc = oom(r);
      goto done;
    }
    if (r->lnext < r->len && r->stmt_ls < r->len && !r->stmt_recorded) {
      size_t q = r->stmt_ls;
      while (q < r->len && (r->t[q] == ' ' || r->t[q] == '\t' || r->t[q] == '\r')) q++;
      if (!hs_doc_add_line(d, (uint32_t)r->stmt_ls, q < r->len ? HS_LINE_COMMENT : HS_LINE_BLANK, 0)) {
        rc = oom(r);
        goto done;
      }
    }
  }
  if (r->open_comment != NOWHERE && !on_last_line(r, r->open_comment)) {
    rc = syntax(r, r->open_comment, "this /* comment is never closed: everything after it is hidden (close it with */)");
    goto done;
  }
  rc = finish(r);
done:
  free(r->ops);
  free(r->gtes);
  free(r->wraps);
  free(r);
  return rc;
}
