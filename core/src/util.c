/* Arena, growable arrays, name tables, errors and warnings: the plumbing every module uses. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE (sys/mman.h hides them under strict C11) */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
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

void hs_arena_free(hs_arena *a) {
  hs_arena_block *b = a->head;
  while (b) {
    hs_arena_block *n = b->next;
    free(b);
    b = n;
  }
  a->head = NULL;
  a->used_total = 0;
  hs_type_cache_free(a);
}

/* Asks the kernel for 2 MB pages under a large block (Linux, where transparent huge pages are
 * "madvise" or "always"): the growable arrays of a 50 MB module fill about 45 MB of fresh memory,
 * and at 4 KB a page, the page faults took a tenth of the parse (perf, bench input). A hint
 * only: where the kernel says no, nothing changes. */
void hs_mem_hint_huge(void *p, size_t n) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (n < 2 * huge) return;
  uintptr_t s = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
  if (e > s) (void)madvise((void *)s, e - s, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

bool hs_vec_grow(void **data, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
  while (nc < need) nc *= 2;
  if (nc > UINT32_MAX) nc = UINT32_MAX;
  if (nc < need || nc * elem > SIZE_MAX / 2) return false;
  void *p = realloc(*data, (size_t)nc * elem);
  if (!p) return false;
  hs_mem_hint_huge(p, (size_t)nc * elem);
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

void hs_free(void *p) { free(p); }

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

void hs_set_error(hs_error *err, int code, const hs_doc *d, size_t offset, const char *fmt, ...) {
  if (!err) return;
  err->code = code;
  err->offset = offset;
  err->line = err->col = 0;
  if (d && d->text) hs_line_col(d->text, d->len, offset, &err->line, &err->col);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
}

void hs_doc_warn(hs_doc *d, int code, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_diag_vwarn(&d->diag, &d->arena, code, line, col, fmt, ap); /* OOM: d->nomem */
  va_end(ap);
}

void hs_warn_truncated_line(hs_doc *d, uint32_t line) {
  hs_doc_warn(d, HS_W_TRUNCATED, line, 1, "the dump ends in the middle of line %u (truncated?): that line was skipped", line);
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

/* ---- name tables ----------------------------------------------------------------------- */
uint32_t hs_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

/* A slot is 32 bits: the low bits (as many as the table has positions) hold index-base+1
 * (0 = empty), the high bits hold the same bits of the name's hash, those the position does
 * not use. A probe compares those in the table itself and reads the entry and its text only
 * when they agree, which is nearly always the entry sought; and the table stays half the size
 * it would be with a whole hash beside the index. */
static bool names_alloc(hs_names *m, uint32_t cap, uint32_t base) {
  m->slots = calloc(cap, sizeof *m->slots);
  m->cap = cap;
  m->count = 0;
  m->base = base;
  m->dup = 0;
  return m->slots != NULL;
}

bool hs_names_init_base(hs_names *m, uint32_t expected, uint32_t base) {
  /* at most 3/4 full: linear probing stays short, and the slots compare hash bits themselves */
  uint32_t cap = 64;
  while (cap - cap / 4 < expected + 1u && cap < (1u << 30)) cap <<= 1;
  return names_alloc(m, cap, base);
}

void hs_names_free(hs_names *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}

/* A table twice as large (or larger, until index idx fits in a slot's low bits). */
static bool names_grow(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx) {
  uint32_t cap = m->cap ? m->cap * 2 : 64;
  while (cap < (1u << 31) && idx - m->base + 1 > cap - 1) cap <<= 1;
  if (idx - m->base + 1 > cap - 1) return false;
  hs_names n;
  if (!names_alloc(&n, cap, m->base)) return false;
  for (uint32_t i = 0; i < m->cap; i++) {
    uint32_t v = m->slots[i];
    if (!v) continue;
    uint32_t e = (v & (m->cap - 1)) - 1 + m->base;
    hs_slice s = key(d, e);
    uint32_t h = hs_hash_name(hs_sp(d, s), s.len);
    uint32_t pos = h & (n.cap - 1);
    while (n.slots[pos]) pos = (pos + 1) & (n.cap - 1);
    n.slots[pos] = (h & ~(n.cap - 1)) | (e - n.base + 1);
    n.count++;
  }
  free(m->slots);
  *m = n;
  return true;
}

bool hs_names_put_slow(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx, uint32_t hash) {
  if (idx < m->base) return false; /* the caller's mistake: never silently */
  if ((m->count + 1) > m->cap - m->cap / 4 || idx - m->base + 1 > m->cap - 1)
    if (!names_grow(m, d, key, idx)) return false;
  uint32_t mask = m->cap - 1, tag = hash & ~mask;
  uint32_t pos = hash & mask;
  hs_slice s = {0, 0};
  bool have = false;
  for (uint32_t v; (v = m->slots[pos]) != 0; pos = (pos + 1) & mask) {
    if ((v & ~mask) != tag) continue;
    if (!have) s = key(d, idx), have = true;
    hs_slice o = key(d, (v & mask) - 1 + m->base);
    if (o.len == s.len && hs_bytes_eq(hs_sp(d, o), hs_sp(d, s), s.len)) { /* duplicate name: the first definition wins */
      m->dup = (v & mask) + m->base;
      return true;
    }
  }
  m->slots[pos] = tag | (idx - m->base + 1);
  m->count++;
  return true;
}

bool hs_names_put(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx) {
  hs_slice s = key(d, idx);
  return hs_names_put_hashed(m, d, key, idx, hs_hash_name(hs_sp(d, s), s.len));
}

