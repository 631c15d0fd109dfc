/* Arena, growable arrays, hashing, scanning, positions, errors and the names of the public
 * lists: the plumbing every model uses. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE (sys/mman.h hides them under strict C11) */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct hs_arena_block {
  hs_arena_block *next;
  size_t cap, used;
  /* data follows, 8-byte aligned */
};

#define HS_ARENA_BLOCK (256u * 1024u)

void *hs_arena_alloc(hs_arena *a, size_t size) {
  void *p = hs_arena_alloc_raw(a, size);
  if (p) memset(p, 0, size);
  return p;
}

void *hs_arena_alloc_raw(hs_arena *a, size_t size) {
  size = (size + 7u) & ~(size_t)7u;
  hs_arena_block *b = a->head;
  if (!b || b->cap - b->used < size) {
    size_t cap = size > HS_ARENA_BLOCK / 4 ? size : HS_ARENA_BLOCK;
    b = malloc(sizeof(hs_arena_block) + cap);
    if (!b) return NULL;
    b->cap = cap;
    b->used = 0;
    /* a big one-off block goes behind the head so the head keeps serving small requests */
    if (a->head && cap != HS_ARENA_BLOCK) {
      b->next = a->head->next;
      a->head->next = b;
    } else {
      b->next = a->head;
      a->head = b;
    }
  }
  void *p = (char *)(b + 1) + b->used;
  b->used += size;
  a->used_total += size;
  return p;
}

void hs_arena_adopt(hs_arena *a, hs_arena *b) {
  if (b->free_extra) b->free_extra(b); /* a lookup table only: the objects stay in the blocks */
  b->extra = NULL;
  b->free_extra = NULL;
  if (!b->head) return;
  hs_arena_block **tail = &a->head;
  while (*tail) tail = &(*tail)->next;
  *tail = b->head;
  a->used_total += b->used_total;
  b->head = NULL;
  b->used_total = 0;
}

void hs_arena_free(hs_arena *a) {
  hs_arena_block *b = a->head;
  while (b) {
    hs_arena_block *n = b->next;
    free(b);
    b = n;
  }
  a->head = NULL;
  a->used_total = 0;
  if (a->free_extra) a->free_extra(a);
  a->extra = NULL;
  a->free_extra = NULL;
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
/* madvise over the whole units (pages of `unit` bytes, a power of two) inside [p, p+n) */
static void advise_inside(void *p, size_t n, uintptr_t unit, int advice) {
  uintptr_t s = ((uintptr_t)p + unit - 1) & ~(unit - 1), e = ((uintptr_t)p + n) & ~(unit - 1);
  if (e > s) (void)madvise((void *)s, e - s, advice);
}
#endif

/* Asks the kernel for 2 MB pages under the whole 2 MB pages of [p, p+n) (Linux, where transparent
 * huge pages are "madvise" or "always"): the growable arrays of a 50 MB module fill about 45 MB
 * of fresh memory, and at 4 KB a page, the page faults took a tenth of the parse (perf, bench
 * input). A hint only: where the kernel says no, nothing changes. */
void hs_mem_hint_huge(void *p, size_t n) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  advise_inside(p, n, (uintptr_t)2 << 20, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

/* Gives the whole pages of [p, p+n) back to the kernel (Linux): a block about to be freed, read
 * to its end in pieces, holds no more than the piece being read (hs_doc_append_hlo). */
void hs_mem_release(void *p, size_t n) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  advise_inside(p, n, 4096, MADV_DONTNEED);
#else
  (void)p;
  (void)n;
#endif
}

/* How many bytes of [s, s+n) are c: 16 at a time where SSE2 is there. */
size_t hs_count_byte(const char *s, size_t n, char c) {
  size_t count = 0, i = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(c), zero = _mm_setzero_si128();
  while (n - i >= 16) {
    /* up to 255 blocks summed per byte lane, then the lanes added */
    __m128i acc = zero;
    size_t blocks = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
    for (size_t b = 0; b < blocks; b++, i += 16)
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), want));
    __m128i sums = _mm_sad_epu8(acc, zero);
    count += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
  }
#endif
  for (; i < n; i++) count += s[i] == c;
  return count;
}

/* HS_NATIVE_MEMORY=0: memory taken as the wasm build takes it (tools/pgo-train.sh trains the
   wasm's profile on a native build made so: the addresses the shape cache hashes, and so the
   counts, are then those of the allocation the wasm does) */
#ifndef HS_NATIVE_MEMORY
#define HS_NATIVE_MEMORY 1
#endif

void hs_vec_prefill(void *data, uint32_t cap, uint32_t n, uint64_t fill_to, uint64_t huge_to, size_t elem) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  if (!data || n >= cap) return;
  if (fill_to > cap) fill_to = cap;
  if (huge_to > cap) huge_to = cap;
  const uintptr_t huge = (uintptr_t)2 << 20, page = 4096;
  uintptr_t base = (uintptr_t)data, end = base + (size_t)cap * elem;
  /* 2 MB pages only in a block that starts on a 2 MB boundary (hs_vec_grow's reservations): one
     that realloc may grow and move is better without them (hs_vec_grow says why) */
  if (huge_to && (base & (huge - 1)) == 0) {
    if (huge_to > n) hs_mem_hint_huge((void *)(base + (size_t)n * elem), (size_t)(huge_to - n) * elem);
    /* none past huge_to: an earlier, higher projection may have asked for them there */
    uintptr_t s = (base + (size_t)(huge_to > n ? huge_to : n) * elem) & ~(huge - 1);
    if (end > s + huge) (void)madvise((void *)s, ((end - s) & ~(page - 1)), MADV_NOHUGEPAGE);
  }
#if defined(MADV_POPULATE_WRITE)
  /* its pages up to fill_to made now, in one call, not one fault each (a tenth of the parse) */
  uintptr_t ps = (base + (size_t)n * elem + page - 1) & ~(page - 1), pe = (base + (size_t)fill_to * elem) & ~(page - 1);
  if (pe > ps) (void)madvise((void *)ps, pe - ps, MADV_POPULATE_WRITE);
#endif
#else
  (void)data, (void)cap, (void)n, (void)fill_to, (void)huge_to, (void)elem;
#endif
}

bool hs_vec_grow(void **data, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
  while (nc < need) nc *= 2;
  if (nc > UINT32_MAX) nc = UINT32_MAX;
  if (nc < need || nc * elem > SIZE_MAX / 2) return false;
  void *p;
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && HS_NATIVE_MEMORY
  /* A new block of 4 MB or more (the document's arrays, reserved at about one to three times
     their final size when a parse starts: doc/hlo/hlo.c) starts on a 2 MB boundary, in 4 KB
     pages: the reader asks for 2 MB pages once it can tell how much of each array it will fill
     (hs_vec_prefill). 2 MB pages from the start, under the block's first half, made a page of
     2 MB for an array that stays nearly empty (a short-line module's computations), and
     rounded every array's filled end up to its 2 MB page: together 0.04-0.09x of a 60 MB
     input (issue 37's peak). */
  if (!*data && (size_t)nc * elem >= ((size_t)4 << 20)) {
    if (posix_memalign(&p, (size_t)2 << 20, (size_t)nc * elem) != 0) p = NULL;
  } else
#endif
    p = realloc(*data, (size_t)nc * elem);
  /* A block grown here gets no 2 MB pages: where it had them, moving it (glibc grows a large
     block by mremap, to an address off the 2 MB grid) held 5 MB more for a moment on the TPU
     captures' frame tables (0.08x of the input) and was slower; without them a 50 MB StableHLO
     parse is 5% faster and holds 0.04x less. */
  if (!p) return false;
  *data = p;
  *cap = (uint32_t)nc;
  return true;
}

/* ---- codes ----------------------------------------------------------------------------- */
const char *hs_code_name(int code) {
  switch (code) {
#define HS_X_(name, value, msg) \
  case value:                   \
    return #name;
    HS_ERROR_MAP(HS_X_)
#undef HS_X_
  }
  return "HS_E_UNKNOWN";
}

const char *hs_code_message(int code) {
  switch (code) {
#define HS_X_(name, value, msg) \
  case value:                   \
    return msg;
    HS_ERROR_MAP(HS_X_)
#undef HS_X_
  }
  return "unknown error";
}

const char *hs_warning_name(int code) {
  switch (code) {
#define HS_WX_(name, value) \
  case value:               \
    return #name;
    HS_WARNING_MAP(HS_WX_)
#undef HS_WX_
  }
  return "HS_W_UNKNOWN";
}

static const char *const FORMAT_NAMES[HS_FORMAT_COUNT][2] = {
#define HS_FX_(id, name, label, detect_fn, parse_fn) {name, label},
    HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_
};

const char *hs_format_name(hs_format f) {
  return FORMAT_NAMES[(unsigned)f < HS_FORMAT_COUNT ? f : HS_FORMAT_UNKNOWN][0];
}

const char *hs_format_label(hs_format f) {
  return FORMAT_NAMES[(unsigned)f < HS_FORMAT_COUNT ? f : HS_FORMAT_UNKNOWN][1];
}

static const char *const KIND_NAMES[HS_KIND_COUNT] = {
#define HS_KX_(id, name, json_fn) name,
    HS_KIND_MAP(HS_KX_)
#undef HS_KX_
};

const char *hs_kind_name(int kind) { return kind >= 0 && kind < HS_KIND_COUNT ? KIND_NAMES[kind] : NULL; }

void hs_free(void *p) { free(p); }

int hs_is_blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') return 0;
  return 1;
}

/* ---- positions ------------------------------------------------------------------------- */
void hs_line_col(const char *t, size_t len, size_t offset, uint32_t *line, uint32_t *col) {
  if (offset > len) offset = len;
  uint32_t ln = 1;
  size_t ls = 0;
  const char *p = t, *e = t + offset;
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    if (!nl) break;
    ln++;
    ls = (size_t)(nl - t) + 1;
    p = nl + 1;
  }
  *line = ln;
  *col = (uint32_t)(offset - ls) + 1;
}

void hs_set_error(hs_error *err, int code, const char *text, size_t len, size_t offset, const char *fmt, ...) {
  if (!err) return;
  err->code = code;
  err->offset = offset;
  err->line = err->col = 0;
  if (text) hs_line_col(text, len, offset, &err->line, &err->col);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
}

size_t hs_skip_string(const char *t, size_t end, size_t p) {
  p++;
  for (;;) {
    const char *q = p < end ? memchr(t + p, '"', end - p) : NULL;
    if (!q) return end;
    size_t k = (size_t)(q - t);
    size_t bs = 0;
    while (k - bs > p && t[k - bs - 1] == '\\') bs++;
    if ((bs & 1) == 0) return k + 1;
    p = k + 1;
  }
}

size_t hs_find(const char *t, size_t a, size_t b, const char *lit) {
  size_t k = strlen(lit);
  if (!k) return a <= b ? a : SIZE_MAX;
  while (a < b && b - a >= k) {
    const char *q = memchr(t + a, lit[0], b - a - k + 1);
    if (!q) return SIZE_MAX;
    a = (size_t)(q - t);
    if (memcmp(q, lit, k) == 0) return a;
    a++;
  }
  return SIZE_MAX;
}

size_t hs_skip_blank(const char *t, size_t len, size_t p) {
  for (;;) {
    while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
    if (p + 1 < len && t[p] == '/' && t[p + 1] == '/') {
      const char *nl = memchr(t + p, '\n', len - p);
      if (!nl) return len;
      p = (size_t)(nl - t) + 1;
      continue;
    }
    return p;
  }
}

size_t hs_first_meaningful(const char *text, size_t len) {
  size_t p = hs_skip_blank(text, len, 0);
  if (len - p >= 3 && (uint8_t)text[p] == 0xEF && (uint8_t)text[p + 1] == 0xBB && (uint8_t)text[p + 2] == 0xBF)
    p = hs_skip_blank(text, len, p + 3);
  return p;
}

/* ---- hashing --------------------------------------------------------------------------- */
uint32_t hs_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}
