/* The HLO text reader's own header: its state (reader), the byte classes and tokens every part
 * of it uses (inline), and what its files call of each other. Private to hlo.c (statements,
 * instructions, operands: the driver), hlo_lex.c (spaces and comments, values, shapes, lines,
 * errors), hlo_attr.c (attributes), hlo_values.c (the typed values of the attributes only
 * checked) and hlo_scope.c (names, scoped by computation). */
#ifndef HS_HLO_READER_H
#define HS_HLO_READER_H

#include "doc/hlo/hlo_rules.h"
#include "doc/doc.h"

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

/* 16 bytes at a time where SSE2 (x86-64 always) or wasm SIMD is there: a few operations on
 * 16-byte vectors (v16_*), each byte class a mask (bit i: byte i is in it), and v16_skip, the
 * blocks before the first byte of a class. Names are most of what an HLO text is made of
 * (instructions, operands, attribute keys: 12 bytes on average); the values and literals the
 * reader skips by their brackets are long. */
#if defined(__SSE2__) || defined(__wasm_simd128__)
#define HS_V16 1
#if defined(__SSE2__)
typedef __m128i v16;
static inline v16 v16_load(const char *s) { return _mm_loadu_si128((const __m128i *)(const void *)s); }
static inline v16 v16_splat(char c) { return _mm_set1_epi8(c); }
static inline v16 v16_or(v16 a, v16 b) { return _mm_or_si128(a, b); }
static inline v16 v16_sub(v16 a, char c) { return _mm_sub_epi8(a, _mm_set1_epi8(c)); }
static inline v16 v16_eq(v16 a, char c) { return _mm_cmpeq_epi8(a, _mm_set1_epi8(c)); }
static inline v16 v16_le(v16 a, char c) { return _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(c)), a); } /* unsigned a <= c */
static inline uint32_t v16_mask(v16 a) { return (uint32_t)_mm_movemask_epi8(a); }
#else
typedef v128_t v16;
static inline v16 v16_load(const char *s) { return wasm_v128_load(s); }
static inline v16 v16_splat(char c) { return wasm_i8x16_splat(c); }
static inline v16 v16_or(v16 a, v16 b) { return wasm_v128_or(a, b); }
static inline v16 v16_sub(v16 a, char c) { return wasm_i8x16_sub(a, wasm_i8x16_splat(c)); }
static inline v16 v16_eq(v16 a, char c) { return wasm_i8x16_eq(a, wasm_i8x16_splat(c)); }
static inline v16 v16_le(v16 a, char c) { return wasm_u8x16_le(a, wasm_i8x16_splat(c)); }
static inline uint32_t v16_mask(v16 a) { return wasm_i8x16_bitmask(a); }
#endif

/* not [A-Za-z0-9_.-]: the bytes that end a name */
static inline uint32_t name_stop16(const char *s) {
  v16 c = v16_load(s);
  v16 ok = v16_or(v16_or(v16_le(v16_sub(v16_or(c, v16_splat(0x20)), 'a'), 25), v16_le(v16_sub(c, '0'), 9)),
                  v16_or(v16_le(v16_sub(c, '-'), 1), v16_eq(c, '_')));
  return ~v16_mask(ok) & 0xFFFFu;
}

/* not [a-z0-9_-]: the bytes that end an opcode */
static inline uint32_t opcode_stop16(const char *s) {
  v16 c = v16_load(s);
  v16 ok = v16_or(v16_or(v16_le(v16_sub(c, 'a'), 25), v16_le(v16_sub(c, '0'), 9)), v16_or(v16_eq(c, '-'), v16_eq(c, '_')));
  return ~v16_mask(ok) & 0xFFFFu;
}

/* the blocks of 16 from p with no byte in stop's class: the first such byte, or where fewer
 * than 16 bytes are left (the caller's byte loop goes on from there) */
static inline size_t v16_skip(const char *t, size_t p, size_t end, uint32_t (*stop)(const char *)) {
  while (end - p >= 16) {
    uint32_t m = stop(t + p);
    if (m) return p + (size_t)__builtin_ctz(m);
    p += 16;
  }
  return p;
}
#endif

/* The end of the name bytes from p (the first byte that is not [A-Za-z0-9_.-], or end). */
static inline size_t name_end(const char *t, size_t p, size_t end) {
#ifdef HS_V16
  while (end - p >= 16) {
    uint32_t m = name_stop16(t + p);
    if (m) return p + (size_t)__builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && is_name_char(t[p])) p++;
  return p;
}

/* The end of the opcode bytes from p ([a-z0-9_-]). */
static inline size_t opcode_end(const char *t, size_t p, size_t end) {
#ifdef HS_V16
  while (end - p >= 16) {
    uint32_t m = opcode_stop16(t + p);
    if (m) return p + (size_t)__builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && is_opcode_char(t[p])) p++;
  return p;
}

/* A quoted string at t[p] == '"': the index after its closing quote, or end (hs_skip_string).
 * Most strings hold no backslash: 16 bytes at a time to the first '"' or '\\', here; after a
 * backslash, or within 16 bytes of the end, hs_skip_string reads it. */
static inline size_t skip_string(const char *t, size_t end, size_t p) {
#ifdef HS_V16
  for (size_t q = p + 1; end - q >= 16; q += 16) {
    v16 c = v16_load(t + q);
    uint32_t m = v16_mask(v16_or(v16_eq(c, '"'), v16_eq(c, '\\')));
    if (m) {
      size_t k = q + (size_t)__builtin_ctz(m);
      return t[k] == '"' ? k + 1 : hs_skip_string(t, end, p);
    }
  }
#endif
  return hs_skip_string(t, end, p);
}

static inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Which frame table the rows after a table header belong to. */
enum { TABLE_NONE = 0, TABLE_FILE_NAMES, TABLE_FUNCTION_NAMES, TABLE_FILE_LOCATIONS, TABLE_STACK_FRAMES }; /* HS_FRAMES_* + 1 */

/* An instruction reader's result besides a position: failed (err filled) or cut by the end. */
#define HLO_FAIL ((size_t)-1)
#define NOWHERE ((size_t)-1)

/* Nested operands deeper than this are refused (the stack must not run out). */
#define MAX_NESTING 200

/* A compact get-tuple-element made in the open computation: its name in d->synth. */
typedef struct {
  uint32_t hash, instr; /* instr + 1; 0 = empty */
} gte_slot;

/* An operand as read: the name it is written with (len 0: a nested instruction, or one the
 * reader made) and what it names (hs_operand's target, or HLO_NAMED_LAST while reading). */
typedef struct {
  hs_slice name;
  int32_t target;
} hlo_op;

/* A name of the open computation (XLA scopes names by computation): its hash, and its
 * instruction's index in the computation with a generation (hlo_scope.c). */
typedef struct {
  uint32_t hash, key;
} name_slot;
#define SCOPE_BATCH 32 /* a big computation's names and operands go into its table in batches */

/* A recently read shape: the same text gives the same (immutable) type. */
typedef struct {
  uint32_t off, len;
  hs_type *type;
} shape_slot;
#define SHAPE_CACHE 1024
#define SHAPE_WAYS 4

/* What hlo_rules.h says of an opcode, in short (hlo_rule_brief), in one word: the operand counts
 * it takes (bits 0-7 and 8-15; max 255: no limit), HLO_SPECIAL_* (what else hlo_check.c looks at),
 * whether its attributes are checked, whether it requires some. One word, not a struct of five
 * fields: it is copied per instruction and passed to hlo_read_attributes, and wasm passes a
 * struct of several fields through memory. */
typedef uint32_t hlo_brief;
enum {
  HLO_SPECIAL_ASYNC = 1u << 16,
  HLO_SPECIAL_INSTR = 1u << 17,
  HLO_SPECIAL_CONSTANT = 1u << 18,
  HLO_BRIEF_CHECKED = 1u << 24,
  HLO_BRIEF_REQUIRED = 1u << 25
};
static inline uint32_t hlo_brief_min(hlo_brief b) { return b & 255; }
static inline uint32_t hlo_brief_max(hlo_brief b) { return b >> 8 & 255; }

typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  int32_t module; /* current module, -1 before the first */
  int32_t comp;   /* open computation, -1 */
  /* the part of the text it reads: [start, len) (hlo_split.c reads a text in two parts, one
     reader each; the second's document starts with the first's line count, lines0) */
  size_t start;
  uint32_t lines0;
  bool small_pages; /* its arrays in 4 KB pages (hlo_split.c says why) */
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
  /* the files metadata names (doc->source_files) by name: open addressing over index + 1 */
  uint32_t *file_slots;
  uint32_t file_cap;
  uint32_t last_file; /* the one named last (index + 1): the next instruction names it again, mostly */
  /* the text ended inside a statement (set by the readers; a truncation, not an error) */
  bool cut;
  /* a value that spans lines and ends with a '}' alone on its line: if the computation is
     never closed, that brace was the computation's and the value lacks its own */
  uint32_t suspect_line;
  size_t suspect_key;
  size_t open_comment; /* a block comment never closed starts here, or NOWHERE */
  size_t hint_at;      /* where the arrays' fill is projected (hlo.c: hint_arrays), or NOWHERE */
  size_t ws_from, ws_to; /* skip_ws's last run of spaces and line breaks (ws_from NOWHERE: none) */
  /* operands of the instructions being read: nested instructions stack theirs above */
  hlo_op *ops;
  uint32_t n_ops, cap_ops;
  /* the names of the open computation's operands, d->operands from op_names_first on (the
     document keeps only what each names): those that named nothing yet are looked up by name
     when it closes */
  hs_slice *op_names;
  uint32_t cap_op_names, op_names_first;
  /* the open computation's instruction names (operands are looked up as they are read), and
     how many of its operands named none yet (looked up again when it closes): hlo_scope.c */
  name_slot *names;
  uint32_t cap_names, mask_names, n_names, dirty_names; /* mask_names: the open computation's slots - 1 */
  uint32_t names_gen;   /* 1-255: 0 is no slot's */
  uint32_t names_first; /* the open computation's first instruction */
  uint32_t big_from;    /* instruction + 1 from which names wait for the close (a big computation), 0 */
  uint32_t last_named;  /* instruction + 1 of the name the table took last (past big_from: named last), 0 */
  uint32_t *name_hashes; /* hs_hash_name of the open computation's names, by index in it (a big one's close reads them) */
  uint32_t cap_name_hashes;
  uint32_t unresolved;
  bool later_warned; /* an operand defined after its use was warned about in the open computation */
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
  uint32_t n_wrapped; /* computations made for "<op>-start" in the module so far */
  uint32_t capped; /* instruction + 1 whose calls past HS_CALLS_MAX were warned about */
  uint32_t call_first; /* where the last instruction's calls start in d->calls (add_call) */
  uint64_t params_seen[4]; /* the parameter numbers below 256 the open computation has (XLA refuses one twice) */
  shape_slot seen[SHAPE_CACHE][SHAPE_WAYS]; /* shapes read before, by their first 8 bytes (shape_seen) */
  shape_slot shapes[SHAPE_CACHE];           /* the same, by their whole text (read_new_shape) */
  struct opcode_slot {
    uint32_t off, len;
    uint8_t lit;  /* LIT_* (hlo.c) */
    uint8_t rule; /* its number in OPCODES (hlo_known_opcode - 1) */
    hlo_brief brief;
  } opcodes[64][2]; /* opcodes found in XLA's list, by a hash of their text: two per slot, the newest first */
  int last_rule;        /* the opcode opcode_kind found last: its number in OPCODES, or -1 */
  hlo_brief last_brief; /* and what hlo_rules.h says of it */
  const hs_type *lit_type; /* the shape of the constant whose literal read_operands reads (NULL: none) */
  hs_slice attr_thread;    /* the async_execution_thread value of the instruction read last (len 0: none) */
  hs_slice attr_layouts;   /* its operand_layout_constraints value (len 0: none) */
  uint8_t attr_branches;   /* its branch_computations (1), true_computation (2), false_computation (4) */
  uint64_t attr_seen[2];   /* its attributes hlo_rules.h numbers (hlo_check.c) */
  struct async_seen {      /* the last async instructions, for hlo_check_async (a ring): their thread and
                              wrapped computation, written or taken from their operand (len 0: none) */
    int32_t instr;
    const char *thread;
    uint32_t thread_len;
    hs_slice calls;
  } asyncs[64];
  uint32_t n_asyncs;
} reader;

/* ---- hlo.c: the driver's steps (hlo_split.c runs them, over the whole text or its two parts) ----
 * A reader of d's text from start to end (the text's end, or where the second part starts) with
 * its arrays reserved for [from, to) (hlo_reserve; false when memory ran out); hlo_read reads its
 * statements and lines; hlo_finish_text closes a computation left open where the text ends;
 * hlo_end_part resolves the module open where the first part ends; hlo_finish_doc warns of what
 * the whole document says (frame references) and fails a document without computations. */
reader *hlo_reader_new(hs_doc *d, hs_error *err, size_t start, size_t end);
void hlo_reader_free(reader *r);
bool hlo_reserve(reader *r, size_t from, size_t to);
int hlo_read(reader *r);
int hlo_finish_text(reader *r);
int hlo_end_part(reader *r);
int hlo_finish_doc(hs_doc *d, uint32_t first_ref_line, hs_error *err);

/* ---- hlo_frames.c -------------------------------------------------------------------------- */
/* A row "N ..." in [p, e) of the frame table being read (r->table): kept in doc->frames (a file
 * or function name row without a string is not). False when memory runs out. */
bool hlo_frame_row(reader *r, size_t p, size_t e);
/* A file metadata names (source_file=): its index in doc->source_files + 1, added the first time;
 * 0 when memory runs out (d->nomem). */
uint32_t hlo_source_file(reader *r, hs_slice name);

/* ---- hlo_values.c --------------------------------------------------------------------------- */
/* The keys' lengths of the attributes whose values are only checked (HLO_CHECKS), one bit each:
 * the attribute loop asks hlo_check_value about a key of such a length */
extern const uint64_t HLO_CHECK_LENGTHS;
/* a value [vs, ve) of one of HLO_CHECKS, key [ks, ke): a warning where XLA's parser would refuse
   it (module: the module line's attributes, else an instruction's) */
void hlo_check_value(reader *r, bool module, size_t ks, size_t ke, size_t vs, size_t ve);
/* a value XLA's parser refuses, going wrong at bad: a warning there naming the key, the value up
   to it and what XLA expects. True (it is no error of memory). */
bool hlo_bad_value(reader *r, size_t ks, size_t vs, size_t ve, size_t bad, const char *expects);

/* ---- hlo_lex.c ------------------------------------------------------------------------------ */
/* errors: set *err; the size_t ones return HLO_FAIL */
int hlo_oom(reader *r);
int hlo_syntax(reader *r, size_t at, const char *msg);
size_t hlo_fail_syntax(reader *r, size_t at, const char *msg);
size_t hlo_fail_oom(reader *r);
/* a warning that XLA's parser refuses what is at `at` (fmt takes %.*s of what, n) */
void hlo_warn_at(reader *r, size_t at, const char *fmt, const char *what, size_t n);
/* the same, inside instruction in, read before (its statement is behind) */
void hlo_warn_in(reader *r, const hs_instr *in, size_t at, const char *fmt, const char *what, size_t n);
/* the same, at offset at, on or after line `line` (which offset on_line is on) */
void hlo_warn_behind(reader *r, uint32_t line, size_t on_line, size_t at, const char *fmt, const char *what, size_t n);
size_t hlo_skip_ws_slow(reader *r, size_t p);
/* one attribute or literal value at p: its end; *open when the text ended inside it */
size_t hlo_scan_value(reader *r, size_t p, bool *open);
/* shapes: skipped (its end, or p), found among those read before (or NULL), built */
size_t hlo_skip_shape(reader *r, size_t p);
const shape_slot *hlo_shape_seen(reader *r, size_t s);
hs_type *hlo_read_new_shape(reader *r, size_t *pp, size_t e);
/* a computation header's result shape at *pp, ending at e: as hs_parse_hlo_shape reads it to e,
   the same text read before taken from the shape cache */
hs_type *hlo_result_shape(reader *r, size_t *pp, size_t e);
/* a shape from s that does not read, going wrong at e: a syntax error there, HLO_FAIL */
size_t hlo_fail_shape(reader *r, size_t s, size_t e, const char *what);
/* An opcode in XLA's list (hlo_opcode.h, with older printers' spellings): its number + 1, or 0.
 * Numbered as hlo_rules.h's HLO_RULES; hlo_opcode_name gives one back. */
#define HLO_OPCODE_COUNT 140
int hlo_known_opcode(const char *s, size_t n);
const char *hlo_opcode_name(int i);
/* Opcodes whose parentheses hold no operands: a number (parameter) or a literal (constant, iota). */
enum { LIT_NONE = 0, LIT_NUMBER, LIT_VALUE };
int hlo_literal_opcode(const char *s, size_t n); /* LIT_* */
/* XLA's names start with a letter or '_' ([a-zA-Z_][a-zA-Z0-9_.-]*): "%1" and "%.x" are refused
 * ("expects name"), with a warning at the name (hlo_warn_name). */
void hlo_warn_name(reader *r, hs_slice name);
static inline void hlo_check_name(reader *r, hs_slice name) {
  char c = r->t[name.off];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) hlo_warn_name(r, name);
}
/* The first word of the literal in [s, e) that XLA's lexer does not read ("+1", "0x10", ".5"), or
 * NOWHERE. */
size_t hlo_literal_bad(reader *r, size_t s, size_t e);
/* [s, e) is a literal word XLA's lexer reads: true, false, inf, nan, a number ("1", "-1.5", "1e-08") */
bool hlo_literal_word(const char *t, size_t s, size_t e);
/* lines: recorded up to a statement's start (hlo_end_stmt, below, records the statement's) */
bool hlo_lines_upto(reader *r, size_t s);
uint32_t hlo_line_of(reader *r, size_t off);
bool hlo_on_last_line(reader *r, size_t p);

/* ---- hlo_scope.c ---------------------------------------------------------------------------- */
/* The open computation's names: a new computation (an empty table), an instruction named in the
 * text (h: hs_hash_name of its name; false when memory ran out), the close (the operands that
 * named nothing yet looked up again; false when memory ran out). */
void hlo_scope_open(reader *r);
bool hlo_scope_put(reader *r, uint32_t idx, uint32_t h);
bool hlo_scope_close(reader *r);
int32_t hlo_scope_lookup(reader *r, hs_slice name);
/* An operand's name: the instruction of the open computation it names so far, or -1 (counted,
 * and looked up again at the close). Most often it is the instruction just made (XLA prints a
 * chain in order: half the operands of every kind the bench reads): found here with no hash and
 * no probe; the rest in hlo_scope_lookup. Past a big computation's small table every name waits
 * for the close (-1, or HLO_NAMED_LAST when it names the one just before: the close then needs
 * no lookup, only to know whether that name was defined twice); either is no instruction yet to
 * the checks made as the text is read, as before. */
#define HLO_NAMED_LAST(i) (-2 - (int32_t)(i)) /* a big computation's operand naming instruction i, just before it */
#define HLO_IS_NAMED_LAST(target) ((target) < -1)
#define HLO_NAMED_LAST_OF(target) ((uint32_t)(-2 - (target))) /* the i of HLO_NAMED_LAST(i) */
static inline int32_t hlo_scope_operand(reader *r, hs_slice name) {
  if (r->last_named) {
    hs_slice k = r->d->instrs[r->last_named - 1].name;
    if (k.len == name.len && hs_bytes_eq(r->t + k.off, r->t + name.off, k.len))
      return r->big_from ? HLO_NAMED_LAST(r->last_named - 1) : (int32_t)r->last_named - 1;
  }
  if (r->big_from) {
    r->unresolved++;
    return -1;
  }
  return hlo_scope_lookup(r, name);
}

/* ---- hlo_attr.c ----------------------------------------------------------------------------- */
/* ", key=value" attributes from p, of instruction idx (-1: of a module or computation), whose
 * opcode is rule (its number in OPCODES, -1: none or unknown; hlo_check.c checks them as brief says) */
size_t hlo_read_attributes(reader *r, int64_t idx, size_t p, bool only_named, int rule, hlo_brief brief);

/* ---- hlo_check.c ---------------------------------------------------------------------------- */
/* What XLA's parser refuses of an opcode (hlo_rules.h), each a warning; rule -1 checks nothing.
 * n operands in the parentheses at open; an attribute [ks, ke) (marked in seen); the required
 * attributes not seen, at the opcode at. */
hlo_brief hlo_rule_brief(int rule); /* rule -1: 0 to 255 operands, nothing checked */
void hlo_check_operands_slow(reader *r, int rule, size_t open, uint32_t n);
static inline void hlo_check_operands(reader *r, int rule, hlo_brief b, size_t open, uint32_t n) {
  if (n < hlo_brief_min(b) || (hlo_brief_max(b) != 255 && n > hlo_brief_max(b))) hlo_check_operands_slow(r, rule, open, n);
}
void hlo_check_attribute(reader *r, int rule, size_t ks, size_t ke, uint64_t seen[2]);
/* the same for an attribute whose number in HLO_ATTR_NAMES is known (a; -1: not there) */
void hlo_check_attribute_number(reader *r, int rule, size_t ks, size_t ke, int a, uint64_t seen[2]);
void hlo_check_required(reader *r, int rule, size_t at, const uint64_t seen[2]);
/* A constant's literal [s, e) against its shape ty: nesting and counts per dimension, values in
 * range for the element type, NaN payloads (a warning at the first XLA refuses) */
void hlo_check_literal(reader *r, const hs_type *ty, size_t s, size_t e);
/* An async-start, -update or -done (or XLA's "<op>-start" sugar) idx, read with its attributes:
 * its shape, and its operand's wrapped opcode, computation and thread against its own */
void hlo_check_async(reader *r, int32_t idx);
/* An operand name written with a shape (written; NULL: none) that names target (-1: not yet known) */
void hlo_check_operand_shape_slow(reader *r, size_t shape_at, hs_slice name, const hs_type *written, int32_t target);
static inline void hlo_check_operand_shape(reader *r, size_t shape_at, hs_slice name, const hs_type *written, int32_t target) {
  if (target >= 0 && r->d->instrs[target].type != written) hlo_check_operand_shape_slow(r, shape_at, name, written, target);
}
/* An instruction read with its attributes: conditional's branch index, infeed's shape, a
 * custom-call's operand_layout_constraints; a closed computation's ROOT against its header */
void hlo_check_instr_slow(reader *r, int32_t idx, int rule);
static inline void hlo_check_instr(reader *r, int32_t idx, int rule, hlo_brief b) {
  if (b & HLO_SPECIAL_INSTR) hlo_check_instr_slow(r, idx, rule);
}
void hlo_check_root(reader *r, int32_t comp);
/* An instruction named as an element type ("%f32", "%s1", "%token"): XLA refuses the name */
void hlo_check_type_name_slow(reader *r, hs_slice name);
static inline void hlo_check_type_name(reader *r, hs_slice name) {
  /* every type's name starts so: s8 u8 f32 c64 (a digit second), bf16, pred, token, opaque */
  const char *t = r->t + name.off;
  char b = name.len > 1 ? t[1] : 0;
  switch (t[0]) {
    case 's': case 'u': case 'f': case 'c': if (b >= '0' && b <= '9') break; return;
    case 'b': if (b == 'f') break; return;
    case 'p': if (b == 'r') break; return;
    case 't': case 'o': if (b == 'o' || b == 'p') break; return;
    default: return;
  }
  hlo_check_type_name_slow(r, name);
}

/* Spaces, line breaks and comments from p: the first byte of the next token (or len). Inline
 * for the common case, spaces and line breaks; comments in hlo_skip_ws_slow. */
static inline size_t skip_ws(reader *r, size_t p) {
  const char *t = r->t;
  size_t len = r->len;
  /* most calls stand on a token, or one space before one */
  if (p < len && (uint8_t)t[p] > ' ' && t[p] != '/') return p;
  if (p + 1 < len && t[p] == ' ' && (uint8_t)t[p + 1] > ' ' && t[p + 1] != '/') return p + 1;
  /* a line break and the next line's indentation: the end of an instruction's attributes, the
     instruction and the driver each look past it; the first time is remembered */
  if (p == r->ws_from) return r->ws_to;
  size_t s = p;
  while (p < len && (t[p] == ' ' || t[p] == '\n')) p++;
  if (p < len && (uint8_t)t[p] > ' ' && t[p] != '/') {
    r->ws_from = s;
    r->ws_to = p;
    return p;
  }
  return hlo_skip_ws_slow(r, p);
}

/* Inside a literal's words [p, e): past the separators (spaces, commas, the bytes of `also`) and
 * comments from p, to the next byte that means something (or e). The lexer's word scan skips
 * braces too ("{}()"); the checker's element count reads them. */
static inline size_t literal_gap(reader *r, size_t p, size_t e, const char *also) {
  const char *t = r->t;
  while (p < e) {
    char c = t[p];
    if (is_space(c) || c == ',' || (c && strchr(also, c))) {
      p++;
    } else if (c == '/' && p + 1 < e && (t[p + 1] == '*' || t[p + 1] == '/')) {
      size_t q = skip_ws(r, p);
      p = q > p ? q : p + 1;
    } else {
      break;
    }
  }
  return p;
}

/* A name at p (optional leading '%'); its slice (len 0 if none), *pp past it. */
static inline hs_slice read_name(const char *t, size_t end, size_t *pp) {
  size_t p = *pp;
  if (p < end && t[p] == '%') p++;
  size_t s = p;
  p = name_end(t, p, end);
  *pp = p;
  return hs_sl((uint32_t)s, (uint32_t)(p - s));
}

/* The word at p is exactly `kw` (followed by a byte that cannot continue a name). */
static inline bool keyword_at(const char *t, size_t len, size_t p, const char *kw, size_t n) {
  return len - p >= n && memcmp(t + p, kw, n) == 0 && (p + n >= len || !is_name_char(t[p + n]));
}

/* Where a layout starts after a shape's ']' at q: its '{' ("{1,0}", "{}", "{1,0:T(8,128)}"), or 0
 * when none does. Mostly the next byte tells; spaces or comments first (" {1,0}"), or a '{' not
 * followed by a number, are for hs_hlo_layout_at ("-> f32[8] {" opens a computation). */
static inline size_t layout_at(const char *t, size_t len, size_t q) {
  if (q + 1 >= len) return 0;
  char c = t[q], n = t[q + 1];
  bool space_next = n == ' ' || n == '\n' || n == '/' || n == '\t' || n == '\r';
  if (c == '{') {
    if (is_digit(n) || n == '}' || n == ':') return q;
    if (!space_next && n != '-') return 0;
  } else if (c == ' ') {
    if (!space_next && n != '{') return 0;
  } else if (c != '\n' && c != '/' && c != '\t' && c != '\r') {
    return 0;
  }
  return hs_hlo_layout_at(t, len, q);
}

/* The statement ended at e (past its last token): records its first line as (kind, ref) and
 * the lines that start before e as its continuation lines. */
static inline bool hlo_end_stmt(reader *r, size_t e, uint8_t kind, uint32_t ref) {
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

#endif
