/* Array types: element types, the HLO shape grammar, the MLIR type grammar, and the one
 * canonical form both print to ("bf16[1024,1024]"), which is what lets the x-ray match
 * tensor<1024x1024xbf16> on the left with bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)} on the right. */
#include "types/types.h"

#include <stdio.h>
#include <stdlib.h>

const hs_elem_info hs_elem_types[] = {
    {"pred", "i1", 8},        {"s2", "i2", 2},         {"s4", "i4", 4},
    {"s8", "i8", 8},          {"s16", "i16", 16},      {"s32", "i32", 32},
    {"s64", "i64", 64},       {"u2", "ui2", 2},        {"u4", "ui4", 4},
    {"u8", "ui8", 8},         {"u16", "ui16", 16},     {"u32", "ui32", 32},
    {"u64", "ui64", 64},      {"f16", "f16", 16},      {"f32", "f32", 32},
    {"f64", "f64", 64},       {"bf16", "bf16", 16},    {"c64", "complex<f32>", 64},
    {"c128", "complex<f64>", 128}, {"f8e5m2", "f8E5M2", 8}, {"f8e4m3fn", "f8E4M3FN", 8},
    {"f8e4m3b11fnuz", "f8E4M3B11FNUZ", 8}, {"f8e5m2fnuz", "f8E5M2FNUZ", 8},
    {"f8e4m3fnuz", "f8E4M3FNUZ", 8}, {"f8e3m4", "f8E3M4", 8}, {"f8e4m3", "f8E4M3", 8},
    {"f8e8m0fnu", "f8E8M0FNU", 8}, {"f4e2m1fn", "f4E2M1FN", 4}, {"token", "!stablehlo.token", 0},
    {"opaque", "opaque", 0},  {"index", "index", 64},     {"s1", "si1", 1},
    {"u1", "ui1", 1}, {"f6e2m3fn", "f6E2M3FN", 6}, {"f6e3m2fn", "f6E3M2FN", 6},
    /* appended: the indexes above are fixed (hs_elem_from_hlo) */
};
const size_t hs_elem_type_count = sizeof hs_elem_types / sizeof hs_elem_types[0];

int hs_elem_from_hlo(const char *s, size_t n) {
  /* hot: every shape of every instruction; the common types first, no strlen */
  if (n == 3 && s[0] == 'f' && s[1] == '3' && s[2] == '2') return 14;
  if (n == 4 && memcmp(s, "bf16", 4) == 0) return 16;
  if (n == 3 && s[0] == 's' && s[1] == '3' && s[2] == '2') return 5;
  if (n == 4 && memcmp(s, "pred", 4) == 0) return 0;
  for (size_t i = 0; i < hs_elem_type_count; i++) {
    const char *h = hs_elem_types[i].hlo;
    if (h[0] == s[0] && strlen(h) == n && memcmp(h, s, n) == 0) return (int)i;
  }
  return -1;
}

int hs_elem_from_mlir(const char *s, size_t n) {
  for (size_t i = 0; i < hs_elem_type_count; i++)
    if (strlen(hs_elem_types[i].mlir) == n && memcmp(hs_elem_types[i].mlir, s, n) == 0) return (int)i;
  return -1;
}

/* token and opaque are the element types without bits; every other one is an array's (no
 * strcmp: this runs for every shape) */
static inline uint8_t elem_kind(int elem) {
  const hs_elem_info *e = &hs_elem_types[elem];
  if (e->bits) return HS_T_ARRAY;
  return e->hlo[0] == 't' ? HS_T_TOKEN : e->hlo[0] == 'o' ? HS_T_OPAQUE : HS_T_ARRAY;
}

static inline bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Skips spaces and C comments (XLA prints index comments such as "index=5" among tuple elements). */
static size_t skip_ws_slow(const char *t, size_t end, size_t p);
static inline size_t skip_ws(const char *t, size_t end, size_t p) {
  /* nearly always nothing to skip: one test, no call */
  if (p < end && t[p] != ' ' && t[p] != '\t' && t[p] != '\r' && t[p] != '\n' && t[p] != '/') return p;
  return skip_ws_slow(t, end, p);
}
static size_t skip_ws_slow(const char *t, size_t end, size_t p) {
  for (;;) {
    while (p < end && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
    if (p + 1 < end && t[p] == '/' && t[p + 1] == '*') {
      size_t q = p + 2;
      while (q + 1 < end && !(t[q] == '*' && t[q + 1] == '/')) q++;
      if (q + 1 >= end) return end;
      p = q + 2;
      continue;
    }
    if (p + 1 < end && t[p] == '/' && t[p + 1] == '/') { /* to the line's end */
      while (p < end && t[p] != '\n' && t[p] != '\r') p++;
      continue;
    }
    return p;
  }
}

/* After a layout's ':', the bytes read_layout must look at: brackets, 'S' (a memory space), '/'
 * (a comment), and bytes no layout holds ('%', '=', '"', ';': the next instruction or attribute,
 * the layout was never closed). */
static const uint8_t LAYOUT_SPECIAL[256] = {['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 1, [')'] = 1, [']'] = 1, ['S'] = 1,
                                            ['D'] = 1, ['P'] = 1, ['%'] = 1, ['='] = 1, ['"'] = 1, [';'] = 1, ['/'] = 1};

/* A sparse layout's D(D,C+,S~): from the '(' at p, the position after its ')', or where a
 * dimension's level type is not D, C, S or H (with '+' and '~' after it: XLA's parser refuses
 * it, "expected a DimLevelType abbreviation (D, C, or S)"); *sparse when one is C or S. */
static size_t dim_level_types(const char *t, size_t end, size_t p, bool *sparse, bool *ok) {
  *ok = false;
  for (p++;;) {
    p = skip_ws(t, end, p);
    if (p >= end) return p;
    char c = t[p];
    if (c != 'D' && c != 'C' && c != 'S' && c != 'H') return p;
    if (c == 'C' || c == 'S') *sparse = true;
    for (p++; p < end && (t[p] == '+' || t[p] == '~'); p++) {
    }
    p = skip_ws(t, end, p);
    if (p < end && t[p] == ',') {
      p++;
      continue;
    }
    if (p < end && t[p] == ')') {
      *ok = true;
      return p + 1;
    }
    return p;
  }
}

/* A layout from its '{' at p, as XLA's parser reads one (ParseLayout): dimension numbers and
 * commas ("{1,0}"; XLA's integers may be negative), then optionally ':' and attributes
 * ("{1,0:T(8,128)(2,1)S(1)}"); spaces, line breaks and comments may stand between its tokens.
 * Before ':' nothing else is allowed, and a ',' stands between two numbers ("{1,,0}" and "{1,0,}"
 * are refused); after it the attributes (a set that grows with XLA: T, S, E, L, P(shape), SC,
 * ...) are followed by their brackets only, and its memory space S(n) is read. It must list as
 * many numbers as the shape has dimensions (XLA: "Dimensions size is 2, but minor to major size
 * is 3"), except "{}" (which the HLO reader warns about). Returns the position after its '}' with
 * *ok, or where it went wrong: after the '}' when only the count is wrong. */
static size_t read_layout(const char *t, size_t end, size_t p, size_t rank, int *mem, bool *ok) {
  *mem = -1;
  *ok = false;
  bool empty = p + 1 < end && t[p + 1] == '}';
  size_t n = 0;
  p = skip_ws(t, end, p + 1);
  if (p < end && t[p] != '}' && t[p] != ':') {
    for (;;) {
      if (p + 1 < end && t[p] == '-') p++;
      if (p >= end || t[p] < '0' || t[p] > '9') return p; /* "{1,a}", "{1,,0}", "{1,0,}" */
      while (p < end && t[p] >= '0' && t[p] <= '9') p++;
      n++;
      p = skip_ws(t, end, p);
      if (p < end && t[p] == ',') {
        p = skip_ws(t, end, p + 1);
        continue;
      }
      break;
    }
  }
  if (p >= end) return p;
  if (t[p] == '}') {
    *ok = n == rank || empty;
    return p + 1;
  }
  if (t[p] != ':') return p; /* "{1,0)": not a dimension number */
  int depth = 1;
  bool sparse = false; /* D(...) names a C or S level: XLA (0.4.38) then takes a physical shape P(...) */
  size_t physical = 0; /* where P( is, 0: none */
  for (p++; p < end; p++) {
    while (p < end && !LAYOUT_SPECIAL[(uint8_t)t[p]]) p++;
    if (p >= end) break;
    char c = t[p];
    if (c == '{' || c == '(' || c == '[') {
      depth++;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0) {
        if (c != '}') return p;
        if (physical && !sparse) return physical; /* "Layout has physical shape, but is not for a sparse array" */
        *ok = n == rank;
        return p + 1;
      }
    } else if (c == '/') {
      if (p + 1 < end && (t[p + 1] == '*' || t[p + 1] == '/')) p = skip_ws(t, end, p) - 1; /* a comment */
    } else if (c == 'D' || c == 'P') {
      if (depth != 1 || p + 1 >= end || t[p + 1] != '(') continue;
      if (c == 'P') {
        physical = p;
        continue;
      }
      bool levels;
      p = dim_level_types(t, end, p + 1, &sparse, &levels);
      if (!levels) return p;
      p--; /* the loop steps past the ')' */
    } else if (c == 'S') {
      if (depth == 1 && p + 1 < end && t[p + 1] == '(') {
        int v = 0;
        size_t q = p + 2;
        for (; q < end && t[q] >= '0' && t[q] <= '9'; q++)
          if (v < 100000) v = v * 10 + (t[q] - '0'); /* S(777...7) must not overflow */
        *mem = v > 32767 ? 32767 : v;               /* kept in an int16 */
      }
    } else {
      return p; /* '%', '=', '"', ';': the layout was never closed */
    }
  }
  return p;
}

#define HS_MAX_TYPE_DEPTH 64

hs_type *hs_make_tuple(hs_arena *a, hs_type *const *elems, size_t n) {
  hs_type *ty = hs_arena_alloc_raw(a, sizeof *ty);
  if (!ty) return NULL;
  *ty = (hs_type){0};
  ty->kind = HS_T_TUPLE;
  ty->mem_space = -1;
  ty->n = (uint32_t)n;
  ty->elems = hs_arena_alloc_raw(a, (n ? n : 1) * sizeof *ty->elems);
  if (!ty->elems) return NULL;
  if (n) memcpy(ty->elems, elems, n * sizeof *elems); /* tuple<> has no elements (and elems may be NULL) */
  return ty;
}

/* ---- one object per distinct HLO shape ----------------------------------------------------
 * A module prints the same few hundred shapes again and again: each is made once per arena
 * (a table beside the arena) and shared, which saves most of the arena (about 50 bytes an
 * instruction on real modules) and the time to fill it. */
typedef struct {
  uint32_t hash;
  hs_type *t;
} type_slot;
typedef struct {
  type_slot *slots;
  uint32_t cap, count;
} hs_type_cache; /* the arena's `extra` */

static void type_cache_free(hs_arena *a) {
  hs_type_cache *c = a->extra;
  if (!c) return;
  free(c->slots);
  free(c);
  a->extra = NULL;
}

static inline uint32_t mix32(uint32_t h, uint64_t v) {
  uint64_t x = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/* kind, elem, memory space, rank/arity and the dims (arrays) or element objects (tuples) */
static uint32_t type_hash(uint8_t kind, uint8_t elem, int16_t mem, uint32_t n, const int64_t *dims, const uint8_t *dyn,
                          hs_type *const *elems) {
  uint32_t h = mix32(0x12345u, (uint64_t)kind | (uint64_t)elem << 8 | (uint64_t)(uint16_t)mem << 16 | (uint64_t)n << 32);
  for (uint32_t i = 0; i < n; i++) {
    if (elems) h = mix32(h, (uint64_t)(uintptr_t)elems[i]);
    else h = mix32(h, (uint64_t)dims[i] ^ (dyn ? (uint64_t)dyn[i] << 62 : 0));
  }
  return h;
}

static bool type_is(const hs_type *x, uint8_t kind, uint8_t elem, int16_t mem, uint32_t n, const int64_t *dims,
                    const uint8_t *dyn, hs_type *const *elems) {
  if (x->kind != kind || x->elem != elem || x->mem_space != mem || x->n != n) return false;
  if (elems) return memcmp(x->elems, elems, n * sizeof *elems) == 0;
  if (n && memcmp(x->dims, dims, n * sizeof *dims) != 0) return false;
  if (!x->dyn != !dyn) return false;
  return !dyn || memcmp(x->dyn, dyn, n) == 0;
}

static bool cache_grow(hs_type_cache *c) {
  uint32_t cap = c->cap ? c->cap * 2 : 256;
  type_slot *ns = calloc(cap, sizeof *ns);
  if (!ns) return false;
  for (uint32_t i = 0; i < c->cap; i++) {
    if (!c->slots[i].t) continue;
    uint32_t p = c->slots[i].hash & (cap - 1);
    while (ns[p].t) p = (p + 1) & (cap - 1);
    ns[p] = c->slots[i];
  }
  free(c->slots);
  c->slots = ns;
  c->cap = cap;
  return true;
}

/* The shape described, from the arena's table or made now (dims, dyn and elems are copied);
 * NULL when memory runs out. dyn is NULL when every dimension is static. */
static hs_type *shared_type(hs_arena *a, uint8_t kind, uint8_t elem, int16_t mem, uint32_t n, const int64_t *dims,
                            const uint8_t *dyn, hs_type *const *elems) {
  if (!a->extra) {
    if (!(a->extra = calloc(1, sizeof(hs_type_cache)))) return NULL;
    a->free_extra = type_cache_free;
  }
  hs_type_cache *c = a->extra;
  if ((c->count + 1) * 4 > c->cap * 3 && !cache_grow(c)) return NULL;
  uint32_t h = type_hash(kind, elem, mem, n, dims, dyn, elems);
  uint32_t p = h & (c->cap - 1);
  for (; c->slots[p].t; p = (p + 1) & (c->cap - 1))
    if (c->slots[p].hash == h && type_is(c->slots[p].t, kind, elem, mem, n, dims, dyn, elems)) return c->slots[p].t;
  hs_type *ty = hs_arena_alloc_raw(a, sizeof *ty);
  if (!ty) return NULL;
  *ty = (hs_type){0};
  ty->kind = kind;
  ty->elem = elem;
  ty->mem_space = mem;
  ty->n = n;
  if (elems) {
    ty->elems = hs_arena_alloc_raw(a, (n ? n : 1) * sizeof *ty->elems);
    if (!ty->elems) return NULL;
    memcpy(ty->elems, elems, n * sizeof *elems);
  } else if (n) {
    ty->dims = hs_arena_alloc_raw(a, n * sizeof *ty->dims);
    if (!ty->dims) return NULL;
    memcpy(ty->dims, dims, n * sizeof *dims);
    if (dyn) {
      ty->dyn = hs_arena_alloc_raw(a, n);
      if (!ty->dyn) return NULL;
      memcpy(ty->dyn, dyn, n);
    }
  }
  c->slots[p].hash = h;
  c->slots[p].t = ty;
  c->count++;
  return ty;
}

/* Where a layout starts after a shape's ']' at q: its '{', or 0 when none does. As XLA's parser
 * decides (ParseShape): a '{', after spaces or comments or none, is a layout only when a number or
 * ':' comes next ("f32[8,64] {1,0}"); otherwise it is something else ("-> f32[8] {" opens a
 * computation's body). "]{}" is taken as a layout, for the HLO reader to warn about (XLA refuses
 * it, and "] {}" as well: "expects opcode"). */
size_t hs_hlo_layout_at(const char *t, size_t end, size_t q) {
  if (q + 1 < end && t[q] == '{' && t[q + 1] == '}') return q;
  size_t b = skip_ws(t, end, q);
  if (b >= end || t[b] != '{') return 0;
  size_t k = skip_ws(t, end, b + 1);
  if (k < end && ((t[k] >= '0' && t[k] <= '9') || t[k] == ':' || (t[k] == '-' && k + 1 < end && t[k + 1] >= '0' && t[k + 1] <= '9')))
    return b;
  return 0;
}

static hs_type *hlo_shape(hs_arena *a, const char *t, size_t end, size_t *pos, int depth);

hs_type *hs_parse_hlo_shape(hs_arena *a, const char *t, size_t end, size_t *pos) { return hlo_shape(a, t, end, pos, 0); }

/* Nested tuples deeper than HS_MAX_TYPE_DEPTH are refused: a garbled "((((..." must not
 * exhaust the stack. */
static hs_type *hlo_shape(hs_arena *a, const char *t, size_t end, size_t *pos, int depth) {
  size_t p = skip_ws(t, end, *pos);
  if (depth > HS_MAX_TYPE_DEPTH) {
    *pos = p;
    return NULL;
  }
  if (p >= end) {
    *pos = p;
    return NULL;
  }
  if (t[p] == '(') {
    hs_type *elems_small[16];
    hs_type **elems = elems_small;
    size_t n = 0, cap = 16;
    p = skip_ws(t, end, p + 1);
    if (p < end && t[p] == ')') {
      p++;
    } else {
      for (;;) {
        size_t q = p;
        hs_type *e = hlo_shape(a, t, end, &q, depth + 1);
        if (!e) {
          *pos = q;
          return NULL;
        }
        if (n == cap) {
          hs_type **ne = hs_arena_alloc(a, cap * 2 * sizeof *ne);
          if (!ne) return NULL;
          memcpy(ne, elems, n * sizeof *ne);
          elems = ne;
          cap *= 2;
        }
        elems[n++] = e;
        p = skip_ws(t, end, q);
        if (p < end && t[p] == ',') {
          p = skip_ws(t, end, p + 1);
          continue;
        }
        if (p < end && t[p] == ')') {
          p++;
          break;
        }
        *pos = p;
        return NULL;
      }
    }
    hs_type *ty = shared_type(a, HS_T_TUPLE, 0, -1, (uint32_t)n, NULL, NULL, elems);
    *pos = p;
    return ty;
  }
  size_t s = p;
  while (p < end && is_ident(t[p])) p++;
  int elem = hs_elem_from_hlo(t + s, p - s);
  if (elem >= 0 && p < end && t[p] != '[') p = skip_ws(t, end, p); /* "f32 [8]": XLA reads tokens */
  if (elem < 0 || p >= end || t[p] != '[') {
    *pos = s;
    return NULL;
  }
  p = skip_ws(t, end, p + 1);
  int64_t dims_small[16];
  uint8_t dyn_small[16];
  size_t n = 0;
  bool any_dyn = false;
  int64_t *dims = dims_small;
  uint8_t *dyn = dyn_small;
  size_t cap = 16;
  /* dimensions: none, or sizes between commas ("[8,64]", "[<=8]", "[?]"; "[8,]" is refused) */
  while (p < end && (n > 0 || t[p] != ']')) {
    uint8_t f = HS_DIM_STATIC;
    int64_t v = 0;
    if (t[p] == '?') {
      f = HS_DIM_UNKNOWN;
      v = -1;
      p++;
    } else {
      if (p + 1 < end && t[p] == '<' && t[p + 1] == '=') {
        f = HS_DIM_BOUNDED;
        p = skip_ws(t, end, p + 2);
      }
      if (p >= end || t[p] < '0' || t[p] > '9') {
        *pos = p;
        return NULL;
      }
      while (p < end && t[p] >= '0' && t[p] <= '9') {
        if (v < (INT64_MAX - 9) / 10) v = v * 10 + (t[p] - '0');
        p++;
      }
    }
    if (n == cap) {
      int64_t *nd = hs_arena_alloc(a, cap * 2 * sizeof *nd);
      uint8_t *nf = hs_arena_alloc(a, cap * 2);
      if (!nd || !nf) return NULL;
      memcpy(nd, dims, n * sizeof *nd);
      memcpy(nf, dyn, n);
      dims = nd;
      dyn = nf;
      cap *= 2;
    }
    dims[n] = v;
    dyn[n] = f;
    any_dyn |= f != HS_DIM_STATIC;
    n++;
    p = skip_ws(t, end, p);
    if (p < end && t[p] == ',') p = skip_ws(t, end, p + 1);
    else break;
  }
  if (p >= end || t[p] != ']') {
    *pos = p;
    return NULL;
  }
  p++; /* ']' */
  int mem = -1;
  size_t lb = hs_hlo_layout_at(t, end, p);
  if (lb) {
    bool ok;
    p = read_layout(t, end, lb, n, &mem, &ok);
    if (!ok) {
      *pos = p;
      return NULL;
    }
  }
  hs_type *ty = shared_type(a, elem_kind(elem), (uint8_t)elem, (int16_t)mem, (uint32_t)n, dims, any_dyn ? dyn : NULL, NULL);
  *pos = p;
  return ty;
}

/* ---- MLIR types -------------------------------------------------------------------------- */
static size_t skip_angle(const char *t, size_t end, size_t p) {
  /* t[p] == '<'; returns index after the matching '>' (ignores "->" inside) */
  int depth = 0;
  for (; p < end; p++) {
    if (t[p] == '<') depth++;
    else if (t[p] == '>' && !(p > 0 && t[p - 1] == '-')) {
      if (--depth == 0) return p + 1;
    } else if (t[p] == '\n') return p;
  }
  return p;
}

static int mlir_elem(const char *t, size_t end, size_t *pp) {
  size_t p = *pp;
  if (end - p >= 8 && memcmp(t + p, "complex<", 8) == 0) {
    size_t q = skip_angle(t, end, p + 7);
    int e = hs_elem_from_mlir(t + p, q - p);
    *pp = q;
    return e;
  }
  if (end - p >= 15 && memcmp(t + p, "!quant.uniform<", 15) == 0) {
    /* storage type first: !quant.uniform<i8:f32, 0.0039:-128> */
    size_t q = p + 15, s = q;
    while (q < end && is_ident(t[q])) q++;
    int e = hs_elem_from_mlir(t + s, q - s);
    *pp = skip_angle(t, end, p + 14);
    return e;
  }
  if (end - p >= 16 && memcmp(t + p, "!stablehlo.token", 16) == 0) {
    *pp = p + 16;
    return hs_elem_from_hlo("token", 5);
  }
  size_t s = p;
  while (p < end && is_ident(t[p])) p++;
  *pp = p;
  return hs_elem_from_mlir(t + s, p - s);
}

static hs_type *mlir_type(hs_arena *a, const char *t, size_t end, size_t *pos, int depth);

hs_type *hs_parse_mlir_type(hs_arena *a, const char *t, size_t end, size_t *pos) { return mlir_type(a, t, end, pos, 0); }

static hs_type *mlir_type(hs_arena *a, const char *t, size_t end, size_t *pos, int depth) {
  size_t p = skip_ws(t, end, *pos);
  if (depth > HS_MAX_TYPE_DEPTH) {
    *pos = p;
    return NULL;
  }
  if (end - p >= 6 && memcmp(t + p, "tuple<", 6) == 0) {
    hs_type **el = NULL; /* no cap on the element count */
    uint32_t n = 0, cap = 0;
    p += 6;
    for (;;) {
      p = skip_ws(t, end, p);
      if (p < end && t[p] == '>') {
        p++;
        break;
      }
      size_t q = p;
      hs_type *e = mlir_type(a, t, end, &q, depth + 1);
      bool ok = false;
      hs_type **slot = e ? HS_VEC_PUSH(el, n, cap, ok) : NULL;
      if (!ok) {
        free(el);
        *pos = q;
        return NULL;
      }
      *slot = e;
      p = skip_ws(t, end, q);
      if (p < end && t[p] == ',') p++;
    }
    hs_type *ty = hs_make_tuple(a, el, n);
    free(el);
    *pos = p;
    return ty;
  }
  int64_t dims[64];
  uint8_t dyn[64];
  size_t n = 0;
  bool any_dyn = false;
  int elem;
  if (end - p >= 7 && memcmp(t + p, "tensor<", 7) == 0) {
    size_t close = skip_angle(t, end, p + 6);
    p += 7;
    for (;;) {
      if (p < end && (t[p] == '?' || (t[p] >= '0' && t[p] <= '9'))) {
        size_t q = p;
        int64_t v = 0;
        uint8_t f = HS_DIM_STATIC;
        if (t[q] == '?') {
          v = -1;
          f = HS_DIM_UNKNOWN;
          q++;
        } else {
          while (q < end && t[q] >= '0' && t[q] <= '9') {
            if (v < (INT64_MAX - 9) / 10) v = v * 10 + (t[q] - '0');
            q++;
          }
        }
        if (q < end && t[q] == 'x') {
          if (n < 64) {
            dims[n] = v;
            dyn[n] = f;
            n++;
          }
          any_dyn |= f != HS_DIM_STATIC;
          p = q + 1;
          continue;
        }
      }
      break;
    }
    elem = mlir_elem(t, end, &p);
    /* encoding (bounds) ignored apart from bounded dims: #stablehlo.bounds<8, ?> */
    if (p < end && t[p] == ',') {
      size_t q = p;
      const char *b = "#stablehlo.bounds<";
      q = skip_ws(t, end, q + 1);
      if (end - q > strlen(b) && memcmp(t + q, b, strlen(b)) == 0) {
        q += strlen(b);
        for (size_t i = 0; i < n && q < end; i++) {
          q = skip_ws(t, end, q);
          if (q < end && t[q] >= '0' && t[q] <= '9') {
            int64_t v = 0;
            for (; q < end && t[q] >= '0' && t[q] <= '9'; q++)
              if (v < (INT64_MAX - 9) / 10) v = v * 10 + (t[q] - '0');
            if (dyn[i] == HS_DIM_UNKNOWN) {
              dims[i] = v;
              dyn[i] = HS_DIM_BOUNDED;
            }
          } else if (q < end && t[q] == '?') q++;
          q = skip_ws(t, end, q);
          if (q < end && t[q] == ',') q++;
        }
      }
    }
    p = close;
  } else {
    elem = mlir_elem(t, end, &p);
  }
  if (elem < 0) {
    *pos = p;
    return NULL;
  }
  hs_type *ty = hs_arena_alloc_raw(a, sizeof *ty);
  if (!ty) return NULL;
  *ty = (hs_type){0};
  ty->kind = elem_kind(elem) == HS_T_TOKEN ? HS_T_TOKEN : HS_T_ARRAY;
  ty->elem = (uint8_t)elem;
  ty->mem_space = -1;
  ty->n = (uint32_t)n;
  if (n) {
    ty->dims = hs_arena_alloc_raw(a, n * sizeof *ty->dims);
    if (!ty->dims) return NULL;
    memcpy(ty->dims, dims, n * sizeof *dims);
    if (any_dyn) {
      ty->dyn = hs_arena_alloc_raw(a, n);
      if (!ty->dyn) return NULL;
      memcpy(ty->dyn, dyn, n);
    }
  }
  *pos = p;
  return ty;
}

/* ---- comparing, sizing, printing ------------------------------------------------------- */
bool hs_type_equal(const hs_type *x, const hs_type *y) {
  if (!x || !y) return false;
  if (x->kind != y->kind || x->n != y->n) return false;
  if (x->kind == HS_T_TUPLE) {
    for (uint32_t i = 0; i < x->n; i++)
      if (!hs_type_equal(x->elems[i], y->elems[i])) return false;
    return true;
  }
  if (x->elem != y->elem) return false;
  for (uint32_t i = 0; i < x->n; i++) {
    if (x->dims[i] != y->dims[i]) return false;
    uint8_t fx = x->dyn ? x->dyn[i] : 0, fy = y->dyn ? y->dyn[i] : 0;
    if (fx != fy) return false;
  }
  return true;
}

bool hs_type_contains(const hs_type *t, const hs_type *needle) {
  if (!t || !needle) return false;
  if (hs_type_equal(t, needle)) return true;
  if (t->kind == HS_T_TUPLE)
    for (uint32_t i = 0; i < t->n; i++)
      if (hs_type_contains(t->elems[i], needle)) return true;
  return false;
}

uint64_t hs_type_bytes(const hs_type *t) {
  if (!t) return 0;
  if (t->kind == HS_T_TUPLE) {
    uint64_t s = 0;
    for (uint32_t i = 0; i < t->n; i++) s += hs_type_bytes(t->elems[i]);
    return s;
  }
  if (t->kind != HS_T_ARRAY) return 0;
  uint64_t count = 1;
  for (uint32_t i = 0; i < t->n; i++) {
    int64_t d = t->dims[i];
    if (d < 0) return 0; /* unknown size */
    if (d && count > UINT64_MAX / (uint64_t)d) return UINT64_MAX;
    count *= (uint64_t)d;
  }
  uint64_t bits = hs_elem_types[t->elem].bits;
  if (bits && count > UINT64_MAX / bits) return UINT64_MAX;
  return (count * bits + 7) / 8;
}

int hs_type_mem_space(const hs_type *t) {
  if (!t) return 0;
  if (t->kind == HS_T_TUPLE) return t->n ? hs_type_mem_space(t->elems[0]) : 0;
  return t->mem_space < 0 ? 0 : t->mem_space;
}

typedef struct {
  char *buf;
  size_t cap, len;
} fmtbuf;

static void put(fmtbuf *f, const char *s, size_t n) {
  if (f->len < f->cap) {
    size_t k = f->cap - f->len < n ? f->cap - f->len : n;
    memcpy(f->buf + f->len, s, k);
  }
  f->len += n;
}

static void fmt_type(fmtbuf *f, const hs_type *t) {
  if (!t) {
    put(f, "?", 1);
    return;
  }
  if (t->kind == HS_T_TUPLE) {
    put(f, "(", 1);
    for (uint32_t i = 0; i < t->n; i++) {
      if (i) put(f, ", ", 2);
      fmt_type(f, t->elems[i]);
    }
    put(f, ")", 1);
    return;
  }
  const char *name = hs_elem_types[t->elem].hlo;
  put(f, name, strlen(name));
  put(f, "[", 1);
  char num[32];
  for (uint32_t i = 0; i < t->n; i++) {
    if (i) put(f, ",", 1);
    uint8_t fl = t->dyn ? t->dyn[i] : 0;
    if (fl == HS_DIM_UNKNOWN) {
      put(f, "?", 1);
      continue;
    }
    if (fl == HS_DIM_BOUNDED) put(f, "<=", 2);
    int k = snprintf(num, sizeof num, "%lld", (long long)t->dims[i]);
    put(f, num, (size_t)k);
  }
  put(f, "]", 1);
}

size_t hs_type_format(const hs_type *t, char *buf, size_t cap) {
  fmtbuf f = {buf, cap ? cap - 1 : 0, 0};
  fmt_type(&f, t);
  if (cap) {
    if (f.len > f.cap) {
      if (f.cap >= 3) memcpy(buf + f.cap - 3, "...", 3);
      buf[f.cap] = 0;
    } else {
      buf[f.len] = 0;
    }
  }
  return f.len;
}

json_t *hs_json_type(const hs_type *t) {
  if (!t) return json_null();
  char small[256];
  size_t n = hs_type_format(t, small, sizeof small);
  if (n < sizeof small) return json_stringn(small, n);
  char *big = malloc(n + 1);
  if (!big) return json_null();
  hs_type_format(t, big, n + 1);
  json_t *j = json_stringn(big, n);
  free(big);
  return j;
}

const char *hs_mem_space_words(int ms) {
  switch (ms) {
    case 0: return "the default memory (HBM)";
    case 1: return "on-chip memory (S(1), VMEM on TPU)";
    case 2: return "memory space S(2) (TPU sync flags)";
    case 5: return "pinned host memory (S(5))";
    case 6: return "unpinned host memory (S(6))";
    default: return "a backend-specific memory space";
  }
}

