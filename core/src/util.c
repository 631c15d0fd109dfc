/* Arena, growable arrays, name tables, errors and warnings: the plumbing every module uses. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
}

bool hs_vec_grow(void **data, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint64_t nc = *cap ? (uint64_t)*cap * 2 : 64;
  while (nc < need) nc *= 2;
  if (nc > UINT32_MAX) nc = UINT32_MAX;
  if (nc < need || nc * elem > SIZE_MAX / 2) return false;
  void *p = realloc(*data, (size_t)nc * elem);
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

bool hs_doc_add_line(hs_doc *d, uint32_t off, uint8_t kind, uint32_t ref) {
  bool ok;
  hs_line *l = HS_VEC_PUSH(d->lines, d->n_lines, d->cap_lines, ok);
  if (!ok) return false;
  l->off = off;
  l->kind = kind;
  l->ref = ref;
  return true;
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

/* ---- name tables ----------------------------------------------------------------------- */
uint32_t hs_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

bool hs_names_init(hs_names *m, uint32_t expected) {
  uint32_t cap = 64;
  while (cap < expected * 2u && cap < (1u << 30)) cap <<= 1;
  m->slots = calloc(cap, sizeof(uint32_t));
  m->cap = cap;
  m->count = 0;
  return m->slots != NULL;
}

void hs_names_free(hs_names *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}

static bool names_rehash(hs_names *m, const hs_doc *d, hs_key_fn key) {
  hs_names n;
  if (!hs_names_init(&n, m->cap)) return false; /* doubles */
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->slots[i]) continue;
    hs_slice s = key(d, m->slots[i] - 1);
    uint32_t h = hs_hash(hs_sp(d, s), s.len) & (n.cap - 1);
    while (n.slots[h]) h = (h + 1) & (n.cap - 1);
    n.slots[h] = m->slots[i];
    n.count++;
  }
  free(m->slots);
  *m = n;
  return true;
}

bool hs_names_put(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx) {
  if ((m->count + 1) * 2 > m->cap && !names_rehash(m, d, key)) return false;
  hs_slice s = key(d, idx);
  uint32_t h = hs_hash(hs_sp(d, s), s.len) & (m->cap - 1);
  while (m->slots[h]) {
    hs_slice o = key(d, m->slots[h] - 1);
    if (hs_slice_eq(d, o, s)) { /* duplicate name: the first definition wins */
      return true;
    }
    h = (h + 1) & (m->cap - 1);
  }
  m->slots[h] = idx + 1;
  m->count++;
  return true;
}

int32_t hs_names_get(const hs_names *m, const hs_doc *d, hs_key_fn key, const char *s, size_t n) {
  if (!m->cap) return -1;
  uint32_t h = hs_hash(s, n) & (m->cap - 1);
  while (m->slots[h]) {
    hs_slice o = key(d, m->slots[h] - 1);
    if (o.len == n && memcmp(hs_sp(d, o), s, n) == 0) return (int32_t)(m->slots[h] - 1);
    h = (h + 1) & (m->cap - 1);
  }
  return -1;
}
