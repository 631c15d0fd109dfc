/* The HLO reader's names (hlo_reader.h), scoped by computation as XLA's parser scopes them. */
#include "doc/hlo/hlo_reader.h"

#include <stdlib.h>
#include <string.h>

/* Each instruction named in the text joins the open computation's table as it is made, and each
 * operand is looked up as it is read: the name, the table and (mostly) the instruction it names
 * are still in the cache. An operand naming an instruction further down is looked up again when
 * the computation closes; one naming another computation's instruction names nothing (XLA
 * refuses it). The table starts small for every computation (a fused one has a few
 * instructions: its slots stay in the first cache) and holds at most SCOPE_NAMES names: in a
 * bigger computation a slot would be a cache miss, so from there on (big_from) the names and
 * operands wait for the close, where a table sized for the whole computation takes them in
 * batches whose cache misses overlap (scope_close_big). */
#define SCOPE_NAMES 8192

/* A slot holds the whole hash, and the instruction (its index in the computation, 24 bits) with
 * the generation (the low 8 bits): slots of another generation count as empty. */
static inline bool scope_live(const reader *r, const name_slot *e) { return (e->key & 0xFF) == r->names_gen; }
static inline uint32_t scope_instr(const reader *r, const name_slot *e) { return r->names_first + (e->key >> 8); }

/* The instruction of the open computation named [s, s+n) (hash h) in the table, or -1. */
static int32_t scope_get(const reader *r, const char *s, size_t n, uint32_t h) {
  const hs_doc *d = r->d;
  if (!r->cap_names) return -1;
  for (uint32_t pos = h & r->mask_names;; pos = (pos + 1) & r->mask_names) {
    const name_slot *e = &r->names[pos];
    if (!scope_live(r, e)) return -1;
    /* one past n_instrs was undone with the statement the text cut short (broken) */
    if (e->hash == h && scope_instr(r, e) < d->n_instrs) {
      hs_slice k = d->instrs[scope_instr(r, e)].name;
      if (k.len == n && hs_bytes_eq(r->t + k.off, s, n)) return (int32_t)scope_instr(r, e);
    }
  }
}

/* The operand's name was not the instruction just made: hashed and looked up (hlo_scope_operand). */
int32_t hlo_scope_lookup(reader *r, hs_slice name) {
  const char *s = r->t + name.off;
  int32_t i = scope_get(r, s, name.len, hs_hash_name(s, name.len));
  if (i < 0) r->unresolved++;
  return i;
}

/* The slots [0, mask] in use, and empty: slots of another generation count as empty, so a new
 * generation empties them at no cost (every 255th wipes what was used since the last). */
static void scope_empty(reader *r, uint32_t mask) {
  if (++r->names_gen == 256) {
    memset(r->names, 0, (size_t)r->dirty_names * sizeof *r->names);
    r->names_gen = 1;
    r->dirty_names = 0;
  }
  r->mask_names = mask;
  if (mask + 1 > r->dirty_names) r->dirty_names = mask + 1;
}

/* A new computation: an empty table of 256 slots. */
void hlo_scope_open(reader *r) {
  r->names_first = r->d->n_instrs;
  r->op_names_first = r->d->n_operands;
  r->n_names = 0;
  r->unresolved = 0;
  r->big_from = 0;
  r->last_named = 0;
  r->later_warned = false;
  if (r->names) scope_empty(r, 255);
}

/* The table, twice the slots: its entries taken out and put back. */
static bool scope_grow(reader *r) {
  uint32_t cap = r->cap_names ? (r->mask_names + 1) * 2 : 256;
  name_slot live[SCOPE_NAMES];
  uint32_t n = 0;
  for (uint32_t i = 0; r->n_names && i <= r->mask_names; i++)
    if (scope_live(r, &r->names[i])) live[n++] = r->names[i];
  if (cap > r->cap_names) {
    name_slot *ns = calloc(cap, sizeof *ns);
    if (!ns) return false;
    free(r->names);
    r->names = ns;
    r->cap_names = cap;
    r->dirty_names = 0;
  }
  scope_empty(r, cap - 1);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t pos = live[i].hash & r->mask_names;
    while (scope_live(r, &r->names[pos])) pos = (pos + 1) & r->mask_names;
    r->names[pos] = (name_slot){live[i].hash, (live[i].key & ~0xFFu) | r->names_gen};
  }
  return true;
}

/* XLA refuses a name twice in one computation: the operands name the first. The warning's line
 * and column: from the statement being read, or (at the close) from the lines recorded. */
static void scope_warn_twice(reader *r, uint32_t first, uint32_t again, bool at_close) {
  hs_doc *d = r->d;
  hs_slice name = d->instrs[again].name, cn = d->comps[r->comp].name;
  uint32_t line, col;
  if (!at_close) {
    line = hlo_line_of(r, name.off);
    col = (uint32_t)(name.off - r->lc_off) + 1;
  } else {
    line = d->instrs[again].line;
    col = hs_doc_name_col(d, line, name);
  }
  hs_doc_warn(d, HS_W_XLA_REFUSES, line, col,
              "instruction %.*s is defined twice in computation %.*s (lines %u and %u): XLA's parser refuses this (instruction already exists); operands name the first",
              (int)(name.len < 60 ? name.len : 60), r->t + name.off, (int)(cn.len < 60 ? cn.len : 60), hs_sp(d, cn), d->instrs[first].line, line);
}

/* Instruction idx (named in the text; h: hs_hash_name of its name) joins the table, or (the
 * table is full) waits for the close. False when memory ran out. */
bool hlo_scope_put(reader *r, uint32_t idx, uint32_t h) {
  hs_doc *d = r->d;
  uint32_t at = idx - r->names_first;
  if (at >= r->cap_name_hashes && !hs_vec_grow((void **)&r->name_hashes, &r->cap_name_hashes, at + 1, sizeof *r->name_hashes)) return false;
  r->name_hashes[at] = h;
  if (!r->big_from && (r->n_names == SCOPE_NAMES || at >= (1u << 24))) r->big_from = idx + 1;
  if (r->big_from) {
    r->last_named = idx + 1;
    return true;
  }
  if (!r->cap_names || (r->n_names + 1) * 2 > r->mask_names + 1) {
    if (!scope_grow(r)) return false;
  }
  hs_slice name = d->instrs[idx].name;
  const char *s = r->t + name.off;
  uint32_t mask = r->mask_names, pos = h & mask;
  for (; scope_live(r, &r->names[pos]); pos = (pos + 1) & mask) {
    const name_slot *e = &r->names[pos];
    if (e->hash != h || scope_instr(r, e) >= d->n_instrs) continue;
    hs_slice k = d->instrs[scope_instr(r, e)].name;
    if (k.len != name.len || !hs_bytes_eq(r->t + k.off, s, name.len)) continue;
    scope_warn_twice(r, scope_instr(r, e), idx, false);
    return true;
  }
  r->names[pos] = (name_slot){h, (idx - r->names_first) << 8 | r->names_gen};
  r->n_names++;
  r->last_named = idx + 1;
  return true;
}

static hs_slice instr_key(const hs_doc *d, uint32_t i) { return d->instrs[i].name; }

/* An operand of instruction i that names an instruction defined after it (or i itself): XLA's
 * parser reads a computation in order, and refuses it ("cannot parse as an instruction name").
 * Said once per computation (r->later_warned). */
static void scope_later(reader *r, int32_t target, hs_slice name, uint32_t i) {
  if ((uint32_t)target < i || r->later_warned) return;
  r->later_warned = true;
  hlo_warn_in(r, &r->d->instrs[i], name.off, "%.*s: an operand defined after the instruction that uses it: XLA's parser reads a computation in order "
              "and refuses this one (cannot parse as an instruction name); move the definition up", r->t + name.off,
              name.len < 60 ? name.len : 60);
}

/* The name operand k (of d->operands, in the open computation) is written with. */
static inline hs_slice op_name(const reader *r, uint32_t k) { return r->op_names[k - r->op_names_first]; }

/* An operand that names nothing: counted, the first one's line kept (hs_resolve warns once). */
static void scope_unresolved(reader *r, uint32_t line) {
  hs_unresolved *u = &r->d->unresolved;
  if (!u->ops) u->first_op_line = line;
  u->ops++;
}

/* A batch of operands looked up in a big table (their slots were prefetched), in three steps,
 * each over the whole batch so that the misses overlap: the first slot whose hash bits agree,
 * that instruction's name, the name's text; then the comparison (a candidate that is not the
 * name falls back to the full probe). */
static void scope_flush_big(reader *r, const hs_names *t, const uint32_t *op, const uint32_t *hash, const uint32_t *line, const uint32_t *user,
                            uint32_t n) {
  const hs_doc *d = r->d;
  const uint32_t mask = t->cap - 1;
  uint32_t cand[SCOPE_BATCH]; /* instruction + 1, 0: none */
  for (uint32_t j = 0; j < n; j++) {
    uint32_t tag = hash[j] & ~mask;
    cand[j] = 0;
    for (uint32_t pos = hash[j] & mask, v; (v = t->slots[pos]) != 0; pos = (pos + 1) & mask)
      if ((v & ~mask) == tag) {
        cand[j] = (v & mask) + t->base;
        hs_prefetch(&d->instrs[cand[j] - 1].name);
        break;
      }
  }
  for (uint32_t j = 0; j < n; j++)
    if (cand[j]) hs_prefetch(r->t + d->instrs[cand[j] - 1].name.off);
  for (uint32_t j = 0; j < n; j++) {
    hs_operand *o = &d->operands[op[j]];
    hs_slice name = op_name(r, op[j]);
    const char *s = r->t + name.off;
    if (cand[j]) {
      hs_slice k = d->instrs[cand[j] - 1].name;
      o->target = k.len == name.len && hs_bytes_eq(r->t + k.off, s, k.len) ? (int32_t)(cand[j] - 1)
                                                                           : hs_names_get_hashed(t, d, instr_key, s, name.len, hash[j]);
    }
    if (o->target < 0) scope_unresolved(r, line[j]);
    else scope_later(r, o->target, name, user[j]);
  }
}

/* A big computation closes: all its names go into a table sized for them (in batches, each
 * slot asked for first), the names past the small table warned about when twice; then the
 * operands not resolved yet are looked up in batches. False when memory ran out. */
static bool scope_close_big(reader *r) {
  hs_doc *d = r->d;
  uint32_t i0 = r->names_first, i1 = d->n_instrs;
  hs_names t = {0};
  if (!hs_names_init_base(&t, i1 - i0 + 1, i0)) return false;
  uint32_t hash[SCOPE_BATCH], line[SCOPE_BATCH], user[SCOPE_BATCH], n = 0;
  const uint32_t *hashes = r->name_hashes; /* each name's, kept by hlo_scope_put */
  uint32_t *first = NULL; /* a name defined twice: the first + 1, by the second's index in the computation */
  for (uint32_t b0 = i0; b0 < i1; b0 += SCOPE_BATCH) {
    uint32_t b1 = i1 - b0 > SCOPE_BATCH ? b0 + SCOPE_BATCH : i1;
    for (uint32_t i = b0; i < b1; i++)
      if (!d->instrs[i].synth) hs_names_prefetch(&t, hashes[i - i0]);
    for (uint32_t i = b0; i < b1; i++) {
      if (d->instrs[i].synth) continue; /* made ones have no name in the text */
      if (!hs_names_put_hashed(&t, d, instr_key, i, hashes[i - i0])) {
        hs_names_free(&t);
        free(first);
        return false;
      }
      if (t.dup) {
        if (i + 1 >= r->big_from) scope_warn_twice(r, t.dup - 1, i, true);
        if (!first && !(first = calloc(i1 - i0, sizeof *first))) {
          hs_names_free(&t);
          return false;
        }
        first[i - i0] = t.dup;
      }
      t.dup = 0;
    }
  }
  uint32_t op[SCOPE_BATCH];
  for (uint32_t i = i0; i < i1; i++) {
    const hs_instr *in = &d->instrs[i];
    for (uint32_t k = 0, n_ops = hs_op_count(d, in); k < n_ops; k++) {
      hs_operand *o = &d->operands[in->op_first + k];
      hs_slice name = op_name(r, in->op_first + k);
      if (o->target >= 0 || !name.len) continue;
      if (HLO_IS_NAMED_LAST(o->target)) { /* it named the instruction just before it: that one, or the first of its name */
        uint32_t j = HLO_NAMED_LAST_OF(o->target);
        o->target = first && first[j - i0] ? (int32_t)first[j - i0] - 1 : (int32_t)j;
        continue;
      }
      hash[n] = hs_hash_name(r->t + name.off, name.len);
      hs_names_prefetch(&t, hash[n]);
      op[n] = in->op_first + k;
      line[n] = in->line;
      user[n] = i;
      if (++n == SCOPE_BATCH) {
        scope_flush_big(r, &t, op, hash, line, user, n);
        n = 0;
      }
    }
  }
  scope_flush_big(r, &t, op, hash, line, user, n);
  hs_names_free(&t);
  free(first);
  return true;
}

/* The open computation ends: the operands that named nothing when read (or, past the small
 * table, were not looked up) are looked up now. False when memory ran out. */
bool hlo_scope_close(reader *r) {
  hs_doc *d = r->d;
  bool again = r->unresolved;
  r->unresolved = 0;
  if (r->big_from) return scope_close_big(r);
  if (!again) return true;
  for (uint32_t i = r->names_first; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    for (uint32_t k = 0, n_ops = hs_op_count(d, in); k < n_ops; k++) {
      hs_operand *o = &d->operands[in->op_first + k];
      hs_slice name = op_name(r, in->op_first + k);
      if (o->target >= 0 || !name.len) continue;
      o->target = scope_get(r, r->t + name.off, name.len, hs_hash_name(r->t + name.off, name.len));
      if (o->target < 0) scope_unresolved(r, in->line);
      else scope_later(r, o->target, name, i);
    }
  }
  return true;
}
