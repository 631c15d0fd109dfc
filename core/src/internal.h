/* Internal data model of a parsed document. Not installed; only core/src includes it.
 *
 * One document = one arena (types, small strings) plus a few flat, growable arrays
 * (lines, computations, instructions, operands). Names and opcodes are slices: byte offsets
 * into the text the caller keeps alive. Everything refers to everything else by index.
 */
#ifndef HS_INTERNAL_H
#define HS_INTERNAL_H

#include "hloscope.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* WebAssembly: the compiler calls memcmp even for a few constant bytes (natively it compares
 * in place); a call for "fusion" or a keyword costs more than the comparison. Constant sizes up
 * to 16 compare in place here; every other one calls memcmp (wasm/fastmem.c). */
#if defined(__wasm__)
static inline int hs_memcmp_(const void *a, const void *b, size_t n) {
  if (__builtin_constant_p(n) && n <= 16) {
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
      if (x[i] != y[i]) return x[i] - y[i];
    return 0;
  }
  return (memcmp)(a, b, n);
}
#define memcmp(a, b, n) hs_memcmp_((a), (b), (n))
#endif

/* ---- arena ---------------------------------------------------------------------------- */
typedef struct hs_arena_block hs_arena_block;
typedef struct hs_type_cache hs_type_cache;
typedef struct {
  hs_arena_block *head;
  size_t used_total;
  hs_type_cache *types; /* the HLO shapes made in this arena, each once (types.c) */
} hs_arena;

void *hs_arena_alloc(hs_arena *a, size_t size);     /* 8-byte aligned, zeroed; NULL on OOM */
void *hs_arena_alloc_raw(hs_arena *a, size_t size); /* the same, not zeroed: the caller writes every byte */
void hs_arena_free(hs_arena *a);
void hs_type_cache_free(hs_arena *a); /* types.c; hs_arena_free calls it */

/* ---- growable arrays (amortised doubling; no malloc per element) ---------------------- */
bool hs_vec_grow(void **data, uint32_t *cap, uint32_t need, size_t elem);
/* A hint that a large block [p, p+n) will be filled: 2 MB pages where the OS has them (util.c). */
void hs_mem_hint_huge(void *p, size_t n);
#define HS_VEC_PUSH(vdata, vlen, vcap, ok)                                                      \
  ((vlen) < (vcap) || hs_vec_grow((void **)&(vdata), &(vcap), (vlen) + 1, sizeof(*(vdata))) \
       ? ((ok) = true, &(vdata)[(vlen)++])                                                   \
       : ((ok) = false, (void *)0))

/* ---- slices --------------------------------------------------------------------------- */
typedef struct {
  uint32_t off;
  uint32_t len;
} hs_slice;

static inline hs_slice hs_sl(uint32_t off, uint32_t len) {
  hs_slice s = {off, len};
  return s;
}

/* ---- types ---------------------------------------------------------------------------- */
enum { HS_T_ARRAY = 0, HS_T_TUPLE, HS_T_TOKEN, HS_T_OPAQUE };
enum { HS_DIM_STATIC = 0, HS_DIM_BOUNDED = 1, HS_DIM_UNKNOWN = 2 };

typedef struct hs_type hs_type;
struct hs_type {
  uint8_t kind;      /* HS_T_* */
  uint8_t elem;      /* index into hs_elem_types (arrays) */
  int16_t mem_space; /* S(n) of the layout; -1 when no layout or no S(n) printed */
  uint32_t n;        /* rank (arrays) or element count (tuples) */
  int64_t *dims;     /* arrays: n sizes (bound for <=N, -1 for ?) */
  uint8_t *dyn;      /* arrays: n HS_DIM_* flags, or NULL when all static */
  hs_type **elems;   /* tuples: n element types */
};

typedef struct {
  const char *hlo;  /* name as HLO prints it: "bf16" */
  const char *mlir; /* MLIR spelling: "bf16", "i32", "f8E4M3FN" */
  uint16_t bits;
} hs_elem_info;
extern const hs_elem_info hs_elem_types[];
extern const size_t hs_elem_type_count;
int hs_elem_from_hlo(const char *s, size_t n);  /* -1 if unknown */
int hs_elem_from_mlir(const char *s, size_t n); /* -1 if unknown */

/* Parses an HLO shape at text[*pos] (array, tuple, token[]), layouts and comments included;
 * advances *pos. Returns NULL on a syntax error (sets *pos to where it stopped). Equal shapes
 * (memory space included) parsed into one arena are one object: never change what it returns. */
hs_type *hs_parse_hlo_shape(hs_arena *a, const char *t, size_t end, size_t *pos);
/* Where a layout starts after a shape's ']' at q (spaces and comments may come first): its '{',
 * or 0 when none does ("-> f32[8] {" opens a computation's body). */
size_t hs_hlo_layout_at(const char *t, size_t end, size_t q);
/* Parses an MLIR type (tensor<...>, tuple<...>, !stablehlo.token, a scalar like f32);
 * returns NULL when it is not one we know. */
hs_type *hs_parse_mlir_type(hs_arena *a, const char *t, size_t end, size_t *pos);

hs_type *hs_make_tuple(hs_arena *a, hs_type *const *elems, size_t n); /* copies the element list */
bool hs_type_equal(const hs_type *x, const hs_type *y); /* layout and memory space aside */
uint64_t hs_type_bytes(const hs_type *t);                /* tuples: sum; arrays: ceil(bits/8) */
bool hs_type_contains(const hs_type *t, const hs_type *needle); /* t or a tuple element of t */
/* Writes the HLO form ("bf16[1024,1024]", "(f32[], s32[4])") into buf (NUL-terminated,
 * truncated with "..." when longer than cap); returns the full length. */
size_t hs_type_format(const hs_type *t, char *buf, size_t cap);
int hs_type_mem_space(const hs_type *t); /* arrays: S(n) or 0; tuples: first element's */

/* ---- the document --------------------------------------------------------------------- */
enum {
  HS_LINE_BLANK = 0,
  HS_LINE_MODULE,    /* HloModule / module @x */
  HS_LINE_TABLE,     /* frame tables, #loc lines, attribute aliases */
  HS_LINE_COMP,      /* computation / func header; ref = computation */
  HS_LINE_INSTR,     /* instruction / op; ref = instruction */
  HS_LINE_CLOSE,     /* closing brace of a computation; ref = computation */
  HS_LINE_CONT,      /* continuation of a statement that spans lines; ref = instruction */
  HS_LINE_REGION,    /* region structure (StableHLO: ^bb, cond {, } do {, })...) */
  HS_LINE_COMMENT,
  HS_LINE_OTHER
};

/* 8 bytes: a 100 MB dump has about a million lines */
#define HS_LINE_REF_MAX ((1u << 28) - 1)
typedef struct {
  uint32_t off;       /* offset of the line's first byte */
  uint32_t kind : 4;  /* HS_LINE_* */
  uint32_t ref : 28;  /* computation or instruction index, per kind (at most HS_LINE_REF_MAX) */
} hs_line;

enum { HS_ROLE_ENTRY = 0, HS_ROLE_FUSED, HS_ROLE_CALLED, HS_ROLE_FUNCTION };

typedef struct {
  hs_slice name;
  uint32_t line, end_line; /* 1-based; end_line 0 while open */
  uint32_t module;
  uint32_t first, count; /* instructions [first, first+count) */
  hs_type *result;       /* declared result (header), may be NULL */
  int32_t root;          /* instruction index of ROOT, -1 if none */
  uint8_t is_entry;
  uint8_t role;       /* HS_ROLE_*, decided after parsing */
  /* HLO only (hs_resolve fills them; other formats keep -1 / 0): */
  int32_t fused_by;   /* a fusion instruction calling this body, -1 if none */
  uint8_t inner;      /* runs inside a kernel: a fused body, or a combiner (to_apply) */
  uint32_t fusions;   /* HLO: its instructions whose opcode is fusion (the HLO reader counts them) */
} hs_comp;

typedef struct {
  hs_slice name;   /* without '%' */
  hs_slice opcode; /* "fusion", "stablehlo.add" */
  uint32_t line;   /* 1-based */
  uint32_t comp;
  hs_type *type;   /* result type; may be NULL when unknown (StableHLO region ops) */
  uint32_t op_first, op_count; /* operands in doc->operands */
  union {
    uint32_t call_first; /* called computation names in doc->calls (call_count of them) */
    int32_t gte_index;   /* HS_SYNTH_GTE (which calls nothing): the tuple index it reads (typed
                            from the tuple by hs_resolve) */
  };
  uint16_t call_count; /* at most HS_CALLS_MAX */
  uint8_t is_root;
  uint8_t synth;   /* HS_SYNTH_*: made by the reader, not written as a statement in the text */
} hs_instr; /* 48 bytes: a 100 MB dump has about 700k instructions */
#define HS_CALLS_MAX 65535u
/* Instructions XLA's parser creates that the text has no statement for: a compact
 * get-tuple-element operand ("%t#1": one per distinct tuple and index path in a computation,
 * named "t_1" as XLA names it) and a nested operand ("f32[4] negate(f32[4] %x)", named
 * "negate.anon"). Their names and opcodes live in d->synth; their line is where they are
 * written. */
enum { HS_SYNTH_NONE = 0, HS_SYNTH_GTE, HS_SYNTH_NESTED };

/* What only HLO instructions carry: doc->hlo, indexed like doc->instrs (HLO documents only;
 * read it through hs_hlo_of). */
typedef struct {
  hs_slice kind;             /* kind=kLoop (fusion) */
  hs_slice custom_call_target;
  hs_slice op_name;          /* metadata op_name (without quotes) */
  hs_slice backend_config;   /* raw value (JSON object or quoted string) */
} hs_hlo_instr;

typedef struct {
  hs_slice name;    /* operand name without '%' and without "#i" suffixes */
  int32_t target;   /* resolved instruction index, -1 if unresolved (a compact get-tuple-element
                       operand "%t#1" targets the instruction made for it) */
} hs_operand;

typedef struct {
  hs_slice name;  /* called computation name, without '%' */
  int32_t target; /* resolved computation index, -1 if unresolved */
  uint32_t instr; /* the calling instruction */
  uint8_t attr;   /* HS_CALL_* */
  uint8_t by_fusion, by_call; /* the calling instruction is a fusion, a call (for the roles) */
} hs_call;
enum { HS_CALL_CALLS = 0, HS_CALL_TO_APPLY, HS_CALL_BODY, HS_CALL_CONDITION, HS_CALL_BRANCH, HS_CALL_OTHER };

typedef struct {
  hs_slice name;
  uint32_t line;
  uint32_t first_comp, comp_count;
  uint32_t first_call; /* its calls are [first_call, the next module's first_call) */
  int32_t entry;
  uint8_t resolved; /* hs_resolve_module ran (the HLO reader resolves each module as it ends) */
} hs_module;

typedef struct {
  int code; /* positive HS_W_* */
  uint32_t line, col;
  char *message; /* arena */
} hs_warning;

#define HS_WARNING_MAP(X)                                                  \
  X(HS_W_FRAME_TABLES_MISSING, 1)                                          \
  X(HS_W_FRAME_REF_DANGLING, 2)                                            \
  X(HS_W_TRUNCATED, 3)                                                     \
  X(HS_W_SKIPPED_LINE, 4)                                                  \
  X(HS_W_UNRESOLVED_OPERAND, 5)                                            \
  X(HS_W_UNRESOLVED_CALL, 6)                                               \
  X(HS_W_UNKNOWN_TYPE, 7)                                                  \
  X(HS_W_PARTIAL_FORMAT, 8)                                                \
  X(HS_W_PROFILE_SKIPPED, 9)                                               \
  X(HS_W_PROFILE_NO_DEVICE, 10)                                            \
  X(HS_W_PROFILE_RUNS_GUESSED, 11)                                        \
  X(HS_W_XLA_REFUSES, 12)

enum {
#define HS_WX_(name, value) name = value,
  HS_WARNING_MAP(HS_WX_)
#undef HS_WX_
};
const char *hs_warning_name(int code);
#define HS_MAX_WARNINGS_PER_CODE 20

/* ---- diagnostics (diag.c): one piece shared by every model (documents, profiles, ...) -- */
/* Warnings in an arena, at most HS_MAX_WARNINGS_PER_CODE listed per code (the rest only
 * counted, then summarised once by hs_diag_finish), and whether memory ran out on the way. */
#define HS_DIAG_CODES 32
#define HS_DIAG_FIELDS                                                                       \
  hs_warning *warnings;                                                                      \
  uint32_t n_warnings, cap_warnings;                                                         \
  uint32_t warn_counts[HS_DIAG_CODES]; /* per code; past the limit they are only counted */ \
  uint32_t warn_suppressed;                                                                  \
  bool nomem;
typedef struct hs_diag {
  HS_DIAG_FIELDS
} hs_diag;
/* Adds a warning (line/col 0 when the input has no lines). False when memory ran out; then
 * g->nomem is set too, so callers may check once at the end. */
bool hs_diag_warn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, ...);
bool hs_diag_vwarn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, va_list ap);
/* Lists the count of suppressed warnings once, under `code`, and resets the counters. */
void hs_diag_finish(hs_diag *g, hs_arena *a, int code);
void hs_diag_free(hs_diag *g);

/* The growable arrays of a document, one line each: X(element type, field). Gives the fields
 * `type *field; uint32_t n_field, cap_field;` of struct hs_doc, and hs_doc_free frees them all.
 * The warnings are in the document's hs_diag (below). */
#define HS_DOC_ARRAYS(X)      \
  X(hs_line, lines)           \
  X(hs_comp, comps)           \
  X(hs_instr, instrs)         \
  X(hs_hlo_instr, hlo)        \
  X(hs_operand, operands)     \
  X(hs_call, calls)           \
  X(hs_module, modules)       \
  X(char, synth)

/* Names that resolve to nothing, counted as they are resolved (operands by the HLO reader as
 * each computation closes, calls by module; hs_resolve warns once for the whole document):
 * the line of the first unresolved operand and call. */
typedef struct {
  uint32_t ops, calls, first_op_line, first_call_line;
} hs_unresolved;

struct hs_doc {
  const char *text;
  size_t len;
  hs_format format;
  hs_arena arena;

#define HS_DA_(type, field) \
  type *field;              \
  uint32_t n_##field, cap_##field;
  HS_DOC_ARRAYS(HS_DA_)
#undef HS_DA_
  /* diagnostics: one hs_diag, also reachable by its field names (d->warnings, ...) */
  union {
    hs_diag diag;
    struct {
      HS_DIAG_FIELDS
    };
  };

  /* HLO only: frame tables */
  uint32_t stack_frames;    /* entries in StackFrames tables */
  uint32_t frame_refs;      /* instructions with stack_frame_id= */
  uint32_t frame_refs_dangling;
  uint32_t first_dangling_line;
  /* hs_resolve counted every instruction's fusions into its computation (hs_comp.fusions) */
  bool fusions_counted;
  hs_unresolved unresolved;
};

/* The HLO-only part of an instruction (all empty for other formats). */
extern const hs_hlo_instr hs_hlo_none;
static inline const hs_hlo_instr *hs_hlo_of(const hs_doc *d, const hs_instr *in) {
  size_t i = (size_t)(in - d->instrs);
  return i < d->n_hlo ? &d->hlo[i] : &hs_hlo_none;
}

/* Each format's detect and parse functions, declared from HS_FORMAT_MAP (hloscope.h says what
 * they return). A parser fills a fresh document: d->text, d->len and d->format are set. */
#define HS_FX_(id, name, label, detect_fn, parse_fn)          \
  int detect_fn(const char *text, size_t len, size_t first); \
  int parse_fn(hs_doc *d, hs_error *err);
HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_

/* ---- document builders, shared by every text reader (doc.c) -------------------------------
 * Each returns the new index (or the new element), or -1 / NULL when memory runs out. */
/* A module starting at `line` (1-based); name may be empty (an anonymous module). */
int32_t hs_doc_open_module(hs_doc *d, hs_slice name, uint32_t line);
/* A computation of `module` whose header is at `line`: no instructions yet, no root, the
 * module's comp_count grows by one. */
int32_t hs_doc_open_comp(hs_doc *d, uint32_t module, hs_slice name, uint32_t line, uint8_t role);
/* Ends computation `comp`: it holds the instructions added since it was opened. end_line 0
 * leaves it open-ended (a dump cut inside it). */
void hs_doc_close_comp(hs_doc *d, uint32_t comp, uint32_t end_line);
/* An instruction of computation `comp` (zeroed; operands and calls start at the ends of those
 * arrays). The pointer is valid until the next push. Inline: the readers' hottest builder. */
static inline hs_instr *hs_doc_add_instr(hs_doc *d, hs_slice name, hs_slice opcode, uint32_t line, uint32_t comp) {
  bool ok;
  hs_instr *in = HS_VEC_PUSH(d->instrs, d->n_instrs, d->cap_instrs, ok);
  if (!ok) return NULL;
  memset(in, 0, sizeof *in);
  in->name = name;
  in->opcode = opcode;
  in->line = line;
  in->comp = comp;
  in->op_first = d->n_operands;
  in->call_first = d->n_calls;
  return in;
}
/* A line of the text (its first byte's offset, HS_LINE_* kind, ref); false when memory runs
 * out. Inline: called for every line. */
static inline bool hs_doc_add_line(hs_doc *d, uint32_t off, uint8_t kind, uint32_t ref) {
  bool ok;
  if (ref > HS_LINE_REF_MAX) return false;
  hs_line *l = HS_VEC_PUSH(d->lines, d->n_lines, d->cap_lines, ok);
  if (!ok) return false;
  l->off = off;
  l->kind = kind;
  l->ref = ref;
  return true;
}
/* Records a warning (past HS_MAX_WARNINGS_PER_CODE per code, only counts it); out of memory
 * sets d->nomem. */
void hs_doc_warn(hs_doc *d, int code, uint32_t line, uint32_t col, const char *fmt, ...);
/* The one wording for "the text ends inside this line, which was skipped". */
void hs_warn_truncated_line(hs_doc *d, uint32_t line);
void hs_set_error(hs_error *err, int code, const hs_doc *d, size_t offset, const char *fmt, ...);
void hs_line_col(const char *t, size_t len, size_t offset, uint32_t *line, uint32_t *col);
/* The bytes of a document's slice. A slice points into the text, or (offsets past the text's
 * end) into d->synth: the names and opcodes of instructions the reader made that the text does
 * not spell out (a compact get-tuple-element "%t#1", a nested operand "f32[4] negate(%x)"). */
static inline const char *hs_sp(const hs_doc *d, hs_slice s) {
  return s.off > d->len ? d->synth + (s.off - d->len - 1) : d->text + s.off;
}
static inline bool hs_slice_eq(const hs_doc *d, hs_slice a, hs_slice b) {
  return a.len == b.len && memcmp(hs_sp(d, a), hs_sp(d, b), a.len) == 0;
}
static inline bool hs_slice_is(const hs_doc *d, hs_slice a, const char *lit) {
  size_t n = strlen(lit);
  if (a.len != n) return false;
  /* a loop over a literal's few bytes: unrolled in place (the wasm backend calls memcmp) */
  const char *s = hs_sp(d, a);
  for (size_t i = 0; i < n; i++)
    if (s[i] != lit[i]) return false;
  return true;
}
/* True when the slice is not in the text (made by the reader: see hs_sp). */
static inline bool hs_slice_synth(const hs_doc *d, hs_slice s) { return s.off > d->len; }

/* Scanning helpers shared by the text parsers; every position is checked against `end`. */
static inline size_t hs_skip_sp(const char *t, size_t end, size_t p) {
  while (p < end && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r')) p++;
  return p;
}
static inline bool hs_starts(const char *t, size_t end, size_t p, const char *lit) {
  size_t n = strlen(lit);
  return p <= end && end - p >= n && memcmp(t + p, lit, n) == 0;
}
/* Skips a quoted string at t[p] == '"' (backslash escapes honoured); returns the index after
 * the closing quote, or `end` when the text ends first. */
size_t hs_skip_string(const char *t, size_t end, size_t p);
/* Where the literal lit first occurs in t[a, b), or SIZE_MAX: memchr to each candidate first
 * byte, then memcmp (the detectors and memory readers scan up to 256 KiB with it). */
size_t hs_find(const char *t, size_t a, size_t b, const char *lit);
static inline bool hs_contains(const char *t, size_t n, const char *lit) { return hs_find(t, 0, n, lit) != SIZE_MAX; }

/* A hash for names (instruction, computation names: mostly 4-30 bytes): eight bytes at a
 * time, multiply-mixed, instead of FNV's one multiply per byte. Only its bits matter, never
 * an order: no output depends on where a name lands in a table. */
static inline uint64_t hs_load8(const char *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

static inline uint32_t hs_hash_name(const char *s, size_t n) {
  const uint64_t K = 0x9E3779B97F4A7C15ull;
  uint64_t h = (uint64_t)n * K;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = (h ^ hs_load8(s + i)) * K, h ^= h >> 29;
  if (i < n) {
    /* the last 1-7 bytes: two overlapping loads when 4 or more, else byte by byte */
    size_t r = n - i;
    uint64_t v;
    if (r >= 4) {
      uint32_t a, b;
      memcpy(&a, s + i, 4);
      memcpy(&b, s + n - 4, 4);
      v = ((uint64_t)a << 32) | b;
    } else {
      v = (uint64_t)(uint8_t)s[i] | (uint64_t)(uint8_t)s[i + r / 2] << 8 | (uint64_t)(uint8_t)s[n - 1] << 16;
    }
    h = (h ^ v) * K;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

/* Name tables: open addressing over slices (a module's computation names: unique per module).
 * Entries are indexes from `base` on; a slot holds the index (low bits) and hash bits (high). */
typedef struct {
  uint32_t *slots; /* (hash & ~(cap-1)) | (index-base+1); 0 = empty */
  uint32_t cap;    /* power of two */
  uint32_t count;
  uint32_t base;   /* the smallest index the table holds */
  uint32_t dup;    /* set by a put whose name was there already: that entry's index + 1 (the caller clears it) */
} hs_names;
uint32_t hs_hash(const char *s, size_t n);      /* FNV-1a: byte by byte */
/* For `expected` entries with indexes from base on (the table stays small and dense). */
bool hs_names_init_base(hs_names *m, uint32_t expected, uint32_t base);
void hs_names_free(hs_names *m);
/* get_key(ctx, idx) gives the slice of entry idx. Returns idx or -1. */
typedef hs_slice (*hs_key_fn)(const hs_doc *d, uint32_t idx);
/* Adds entry idx (>= base) unless its name is there already (the first definition wins);
 * false when memory runs out. */
bool hs_names_put(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx);
/* Equal bytes; names are short: a plain loop beats a call to memcmp. */
static inline bool hs_bytes_eq(const char *a, const char *b, size_t n) {
  if (n <= 16) { /* names: 8 bytes a step, the last step overlapping the one before */
    uint64_t x, y, u, v;
    if (n >= 8) {
      memcpy(&x, a, 8), memcpy(&y, b, 8), memcpy(&u, a + n - 8, 8), memcpy(&v, b + n - 8, 8);
      return ((x ^ y) | (u ^ v)) == 0;
    }
    if (n >= 4) {
      uint32_t p, q, r, s;
      memcpy(&p, a, 4), memcpy(&q, b, 4), memcpy(&r, a + n - 4, 4), memcpy(&s, b + n - 4, 4);
      return ((p ^ q) | (r ^ s)) == 0;
    }
    for (size_t i = 0; i < n; i++)
      if (a[i] != b[i]) return false;
    return true;
  }
  if (n <= 32) { /* "broadcast_multiply_fusion.3": the first 16 bytes and the last 16 */
    uint64_t x[4], y[4];
    memcpy(x, a, 16), memcpy(y, b, 16), memcpy(x + 2, a + n - 16, 16), memcpy(y + 2, b + n - 16, 16);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
  }
  return memcmp(a, b, n) == 0;
}
static inline void hs_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}
/* Asks the cache for the slot a hash probes first (batched lookups hide the miss). */
static inline void hs_names_prefetch(const hs_names *m, uint32_t hash) {
  if (m->cap) hs_prefetch(&m->slots[hash & (m->cap - 1)]);
}
/* The same with the name's hs_hash_name computed by the caller: inline where the first empty
 * slot comes before any slot with the same hash bits (nearly always); the rest (a table to
 * grow, a possible duplicate) in hs_names_put_slow. */
bool hs_names_put_slow(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx, uint32_t hash);
static inline bool hs_names_put_hashed(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx, uint32_t hash) {
  if (idx < m->base || m->count + 1 > m->cap - m->cap / 4 || idx - m->base + 1 > m->cap - 1)
    return hs_names_put_slow(m, d, key, idx, hash);
  uint32_t mask = m->cap - 1, tag = hash & ~mask, pos = hash & mask;
  for (uint32_t v; (v = m->slots[pos]) != 0; pos = (pos + 1) & mask)
    if ((v & ~mask) == tag) return hs_names_put_slow(m, d, key, idx, hash);
  m->slots[pos] = tag | (idx - m->base + 1);
  m->count++;
  return true;
}
static inline int32_t hs_names_get_hashed(const hs_names *m, const hs_doc *d, hs_key_fn key, const char *s, size_t n, uint32_t hash) {
  if (!m->cap) return -1;
  uint32_t mask = m->cap - 1, tag = hash & ~mask;
  for (uint32_t pos = hash & mask, v; (v = m->slots[pos]) != 0; pos = (pos + 1) & mask) {
    if ((v & ~mask) != tag) continue;
    uint32_t e = (v & mask) - 1 + m->base;
    hs_slice o = key(d, e);
    if (o.len == n && hs_bytes_eq(hs_sp(d, o), s, n)) return (int32_t)e;
  }
  return -1;
}

/* The column of a name on its line (a warning's), 0 when the line is not recorded yet. */
uint32_t hs_doc_name_col(const hs_doc *d, uint32_t line, hs_slice name);
/* Resolves call names within each module and assigns computation roles (the HLO reader has
 * resolved the operands, computation by computation). */
int hs_resolve(hs_doc *d);
/* Resolves module m now, while its text is in the cache (a reader calls it when the module has
 * ended: nothing is added to it after); hs_resolve then leaves it. */
int hs_resolve_module(hs_doc *d, uint32_t m);

/* Analysis helpers shared by spills and xray. */
typedef struct {
  int32_t big;          /* instruction index of the big intermediate, -1 if none */
  const hs_type *big_type; /* its (array) type */
  int32_t kept;         /* when big < 0: largest value kept inside fused bodies, -1 if none */
  const hs_type *kept_type;
  uint32_t consumers;   /* kernels consuming big */
  uint64_t hbm_read, hbm_written;
  uint8_t needs;        /* HS_NEEDS_*: what the text lacks for kernel-level claims (0: nothing) */
} hs_spill_info;
enum { HS_NEEDS_NOTHING = 0, HS_NEEDS_OPTIMIZED, HS_NEEDS_ENTRY };
void hs_spill_analyse(const hs_doc *d, hs_spill_info *out);
bool hs_instr_is_alias(const hs_doc *d, const hs_instr *in);
bool hs_line_carries(const hs_doc *d, uint32_t line_index, const hs_type *t, int *mem_space);
bool hs_comp_in_fused(const hs_doc *d, uint32_t comp);
/* Lines that carry the big intermediate and count (the rule in DESIGN.md): marks[line] = 1 for
 * the instruction computing it, the kernel writing it and each kernel reading it. Returns the count. */
uint32_t hs_big_carriers(const hs_doc *d, const hs_spill_info *si, uint8_t *marks);

/* Pipeline stage of an HLO text, and whether it is whole (stage.c). */
enum { HS_STAGE_NONE = 0, HS_STAGE_BEFORE_OPT, HS_STAGE_AFTER_SPMD, HS_STAGE_PASS_STEP, HS_STAGE_AFTER_OPT };
int hs_doc_stage(const hs_doc *d);
const char *hs_stage_name(int stage); /* "before_optimizations", ...; NULL for HS_STAGE_NONE */
bool hs_doc_has_entry(const hs_doc *d);
bool hs_module_has_entry(const hs_doc *d, uint32_t module);

/* ---- protobuf wire format (protobuf.c) ------------------------------------------------- */
/* A cursor over one message: [p, end) inside the whole input that starts at base. */
typedef struct {
  const uint8_t *base, *p, *end;
} hs_pb;
enum { HS_PB_VARINT = 0, HS_PB_FIXED64 = 1, HS_PB_LEN = 2, HS_PB_FIXED32 = 5 };
typedef struct {
  uint32_t field;
  uint8_t wire;        /* HS_PB_* */
  uint64_t u;          /* varint and fixed values (fixed64 doubles: hs_pb_double) */
  const uint8_t *data; /* length-delimited: the bytes, inside the input */
  size_t len;
} hs_pb_field;
hs_pb hs_pb_open(const void *data, size_t len);
/* A cursor over the bytes of a length-delimited field (a nested message). */
hs_pb hs_pb_sub(const hs_pb *parent, const hs_pb_field *f);
/* Reads the next field: 1, or 0 at the end of the message, or -1 when the bytes are not a
 * field (a truncated varint, a length past the end, a group): r->p then points at it. */
int hs_pb_next(hs_pb *r, hs_pb_field *f);
size_t hs_pb_offset(const hs_pb *r); /* bytes from base to the cursor */
double hs_pb_double(uint64_t bits);

#endif
