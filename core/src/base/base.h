/* base: what every model of the core is built on. Not installed; only core/src includes it.
 *
 * The arena and growable arrays (util.c), slices into the input, hashing, scanning helpers,
 * positions and errors (util.c), the one diagnostics path every model warns through (diag.c),
 * the protobuf wire-format cursor (protobuf.c) and the helpers that build result JSON
 * (jsonout.c). The names of codes, formats and kinds come from the X-macro lists of
 * hloscope.h (util.c), so every layer can name them without reaching the registry above.
 *
 * Layering (core/README.md): base <- types <- doc <- analyses <- {profile, memory, dumpset,
 * llvm} <- text <- api. A folder includes its own header, base.h and the headers of the folders
 * to its left, nothing else; no call crosses a folder from left to right.
 */
#ifndef HS_BASE_H
#define HS_BASE_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hloscope.h"

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
typedef struct hs_arena hs_arena;
struct hs_arena {
  hs_arena_block *head;
  size_t used_total;
  /* What a layer above keeps beside the arena's blocks and frees with them: types/ keeps the
   * HLO shapes made in this arena, each once (its cache), and sets free_extra. */
  void *extra;
  void (*free_extra)(hs_arena *a);
};

void *hs_arena_alloc(hs_arena *a, size_t size);     /* 8-byte aligned, zeroed; NULL on OOM */
void *hs_arena_alloc_raw(hs_arena *a, size_t size); /* the same, not zeroed: the caller writes every byte */
void hs_arena_free(hs_arena *a);                    /* the blocks, then free_extra */
/* a takes b's blocks (b's objects live on, freed with a's); b's extra is freed, b left empty */
void hs_arena_adopt(hs_arena *a, hs_arena *b);

/* ---- growable arrays (amortised doubling; no malloc per element) ---------------------- */
bool hs_vec_grow(void **data, uint32_t *cap, uint32_t need, size_t elem);
/* A hint that a large block [p, p+n) will be filled: 2 MB pages where the OS has them (util.c). */
void hs_mem_hint_huge(void *p, size_t n);
/* The whole pages of [p, p+n), a part of a block already read that is about to be freed, given
 * back to the OS now (Linux; elsewhere nothing). Its bytes then read as zeros. */
void hs_mem_release(void *p, size_t n);
/* How many bytes of [s, s+n) are c. */
size_t hs_count_byte(const char *s, size_t n, char c);
/* A growable array of n elements of elem bytes (cap reserved) that will hold about huge_to
 * (projected) and fill_to soon: 2 MB pages from its n-th element to its huge_to-th, 4 KB pages
 * after it, and its pages up to fill_to made now (Linux; elsewhere nothing). Within cap. huge_to
 * 0: 4 KB pages only, none asked for or taken back (an array that never had 2 MB pages). */
void hs_vec_prefill(void *data, uint32_t cap, uint32_t n, uint64_t fill_to, uint64_t huge_to, size_t elem);
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

/* ---- scanning helpers shared by the text readers; every position is checked against `end` */
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

/* The offset of the first byte at or after p that is not a space, tab, CR, LF or part of a //
 * comment line; and of the first such byte at the start that is not a UTF-8 byte order mark
 * either (where detectors look). */
size_t hs_skip_blank(const char *t, size_t len, size_t p);
size_t hs_first_meaningful(const char *text, size_t len);

/* ---- hashing -------------------------------------------------------------------------- */
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

uint32_t hs_hash(const char *s, size_t n); /* FNV-1a: byte by byte */

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
  /* source paths (50-100 bytes, one per instruction of newer dumps): 16 bytes a step, the last
     step overlapping; no call (wasm's memcmp is one, out of the compiled code) */
  for (size_t i = 0;; i += 16) {
    if (i + 16 > n) i = n - 16;
    uint64_t x[2], y[2];
    memcpy(x, a + i, 16), memcpy(y, b + i, 16);
    if ((x[0] ^ y[0]) | (x[1] ^ y[1])) return false;
    if (i + 16 == n) return true;
  }
}
static inline void hs_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/* ---- positions and errors ------------------------------------------------------------- */
/* The 1-based line and column of byte `offset` of t[0, len). */
void hs_line_col(const char *t, size_t len, size_t offset, uint32_t *line, uint32_t *col);
/* Fills err (may be NULL): code, offset, the message, and the line and column of `offset` in
 * `text` (0 and 0 when text is NULL). */
void hs_set_error(hs_error *err, int code, const char *text, size_t len, size_t offset, const char *fmt, ...);

/* ---- names of the public lists (util.c) ------------------------------------------------ */
/* "HS_W_TRUNCATED", ...; "HS_W_UNKNOWN" for a value outside HS_WARNING_MAP. */
const char *hs_warning_name(int code);

/* ---- diagnostics (diag.c): the one path every model (documents, profiles, LLVM IR, memory
 * texts, dump folders, decisions) warns through ------------------------------------------ */
typedef struct {
  int code; /* positive HS_W_* */
  uint32_t line, col;
  char *message; /* in the arena the warning was made with */
} hs_warning;

#define HS_MAX_WARNINGS_PER_CODE 20
#define HS_DIAG_CODES 32
/* Warnings, with how many are listed: per code at most `per_code` (0: HS_MAX_WARNINGS_PER_CODE;
 * HS_DIAG_NO_LIMIT: all), the rest only counted and summarised once by hs_diag_finish; and at
 * most `total` in all (0: no limit; past it a warning is dropped without a count). Whether
 * memory ran out on the way is kept in nomem. A zeroed hs_diag is ready to use. */
#define HS_DIAG_NO_LIMIT UINT32_MAX
#define HS_DIAG_FIELDS                                                                       \
  hs_warning *warnings;                                                                      \
  uint32_t n_warnings, cap_warnings;                                                         \
  uint32_t warn_counts[HS_DIAG_CODES]; /* per code; past the limit they are only counted */ \
  uint32_t warn_suppressed;                                                                  \
  uint32_t per_code, total;                                                                  \
  bool nomem;
typedef struct hs_diag {
  HS_DIAG_FIELDS
} hs_diag;
/* Adds a warning (line/col 0 when the input has no lines); its message is formatted, at most
 * 511 bytes, into `a`. False when memory ran out; then g->nomem is set too, so callers may
 * check once at the end. */
bool hs_diag_warn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, ...);
bool hs_diag_vwarn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, va_list ap);
/* Lists the count of suppressed warnings once, under `code`, and resets the counters. */
void hs_diag_finish(hs_diag *g, hs_arena *a, int code);
void hs_diag_free(hs_diag *g);
/* Adds b's warnings after g's, as if each had been warned into g in its turn (g's limits: those
 * past them only counted), b's counted-only ones counted in g too. The messages stay where b's
 * were made (the caller keeps that arena alive: hs_arena_adopt). False when memory ran out. */
bool hs_diag_append(hs_diag *g, const hs_diag *b);

/* ---- result JSON (jsonout.c) ---------------------------------------------------------- */
/* A JSON string from arbitrary bytes: invalid UTF-8 becomes U+FFFD, never a NULL. */
json_t *hs_json_bytes(const char *s, size_t n);
/* [{"code","line","column","message"}] of warnings (a model's hs_diag). */
json_t *hs_warnings_json(const hs_warning *ws, uint32_t n);
static inline json_t *hs_diag_json(const hs_diag *g) { return hs_warnings_json(g->warnings, g->n_warnings); }
/* Serialises and frees `root`; NULL on allocation failure. Key order is insertion order, so
 * native and wasm builds print identical bytes. */
char *hs_json_finish(json_t *root, size_t *len);
/* "2,097,152" */
void hs_fmt_bytes(uint64_t b, char *buf, size_t cap);

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

/* ---- a window over bytes read by range (protobuf.c) ----------------------------------- */
/* Big inputs (a 500 MB .xplane.pb in the page's worker) need not be held whole: the reader asks
 * for [off, off + len) and gets a pointer that stays valid until its next request. Over bytes
 * held whole (`whole` set) a request is a pointer sum; otherwise `read` fills a buffer of
 * HS_WINDOW bytes (or more, for one long field). `progress`, when set, is told the stage and
 * the bytes the reader says it has walked (hs_window_advance) of the stage's total, every 1/128
 * of it or so. */
enum { HS_WINDOW = 8 << 20 };
typedef struct hs_window {
  const uint8_t *whole;
  uint64_t size;
  int (*read)(void *ctx, uint64_t off, void *dst, size_t len); /* 0, or nonzero on failure */
  void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total);
  void *ctx;
  size_t chunk; /* bytes read at a time (0: HS_WINDOW) */
  /* private */
  uint8_t *buf;
  size_t cap, buf_len;
  uint64_t buf_off;
  uint64_t total, done, reported; /* the stage's work, in bytes walked */
  const char *stage;
  bool failed; /* a read failed or memory ran out: every later request gives NULL */
} hs_window;
/* The bytes [off, off + len) (off + len <= size), or NULL when they cannot be read. */
const uint8_t *hs_window_get(hs_window *w, uint64_t off, size_t len);
/* Starts a stage of `total` bytes of work (the walks it makes) and reports its start. */
void hs_window_stage(hs_window *w, const char *stage, uint64_t total);
/* The reader walked `bytes` more of the stage (reported when it has moved on enough). */
void hs_window_advance(hs_window *w, uint64_t bytes);
void hs_window_free(hs_window *w);
/* One field of a message read through a window: a length-delimited field's bytes are not read,
 * only located (off, len), so a message of any size is walked a window at a time. */
typedef struct {
  uint32_t field;
  uint8_t wire;
  uint64_t u;
  uint64_t off, len; /* HS_PB_LEN: where the bytes are in the input */
} hs_pbw_field;
/* The next field of the message [*pos, end): 1 (and *pos past it), 0 at the end, or -1 when the
 * bytes are not a field (*pos stays at it; w->failed when the bytes could not be read). */
int hs_pbw_next(hs_window *w, uint64_t *pos, uint64_t end, hs_pbw_field *f);

#endif
