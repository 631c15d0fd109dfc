/* Name tables: open addressing over the slices of a document (a module's computation names,
 * a computation's instruction names). */
#include <stdlib.h>

#include "doc/doc.h"

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

