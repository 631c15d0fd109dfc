/* Layouts in words, and the padding a tiled layout adds (`hloscope layout`; a module's padding table, `hloscope layouts`, is analyses/layouts.c).
 *
 * The grammar is XLA's Layout::Print (xla/layout.cc), whose parts always print in one order:
 *   {minor_to_major : D(dim level types) T(tile)(tile)... L(tail alignment) #(index type)
 *    *(pointer type) E(element bits) S(memory space) SC(split configs) P(physical shape)
 *    M(dynamic-shape metadata prefix bytes)}
 * Older printers wrote fewer parts, never others, so one reader serves every era: a part we
 * do not know is a syntax error with its column. Sizes follow ShapeUtil::ArraySize: the first
 * tile rounds the minor dimensions up to its own (the sub-tiles add no padding). */
#include "types/types.h"

#include <stdio.h>
#include <stdlib.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static size_t read_int(const char *t, size_t end, size_t p, int64_t *v) {
  int64_t x = 0;
  size_t s = p;
  while (p < end && is_digit(t[p])) {
    if (x < (INT64_MAX - 9) / 10) x = x * 10 + (t[p] - '0');
    p++;
  }
  *v = x;
  return p == s ? 0 : p;
}

/* The matching ')' of the '(' at t[p]; 0 if none before the end. */
static size_t close_paren(const char *t, size_t end, size_t p) {
  int depth = 0;
  for (; p < end; p++) {
    if (t[p] == '(' || t[p] == '[' || t[p] == '{') depth++;
    else if (t[p] == ')' || t[p] == ']' || t[p] == '}') {
      if (--depth == 0) return t[p] == ')' ? p : 0;
    } else if (t[p] == '\n') return 0;
  }
  return 0;
}

size_t hs_layout_parse(const char *t, size_t end, size_t p, hs_layout *l, size_t *bad) {
  memset(l, 0, sizeof *l);
  l->tail_align = 1;
  if (p >= end || t[p] != '{') {
    *bad = p;
    return 0;
  }
  l->present = true;
  p++;
  /* minor_to_major */
  while (p < end && t[p] != ':' && t[p] != '}') {
    int64_t v;
    p = hs_skip_sp(t, end, p);
    size_t q = read_int(t, end, p, &v);
    if (!q) {
      *bad = p;
      return 0;
    }
    if (l->rank < HS_LAYOUT_MAX_RANK) l->m2m[l->rank] = v;
    l->rank++;
    p = hs_skip_sp(t, end, q);
    if (p < end && t[p] == ',') p++;
    else if (p < end && t[p] != ':' && t[p] != '}') {
      *bad = p;
      return 0;
    }
  }
  if (p >= end) {
    *bad = p;
    return 0;
  }
  if (t[p] == '}') return p + 1;
  p++; /* ':' */
  while (p < end && t[p] != '}') {
    char c = t[p];
    size_t open = p + 1;
    if (c == 'S' && p + 1 < end && t[p + 1] == 'C') open = p + 2;
    if (open >= end || t[open] != '(') {
      *bad = p;
      return 0;
    }
    size_t close = close_paren(t, end, open);
    if (!close) {
      *bad = open;
      return 0;
    }
    hs_slice inner = hs_sl((uint32_t)(open + 1), (uint32_t)(close - open - 1));
    int64_t v = 0;
    if (c == 'T') {
      /* one or more tiles: T(8,128)(2,1) */
      size_t q = open;
      while (q < end && t[q] == '(') {
        size_t qc = close_paren(t, end, q);
        if (!qc) {
          *bad = q;
          return 0;
        }
        uint32_t k = l->n_tiles < HS_LAYOUT_MAX_TILES ? l->n_tiles : HS_LAYOUT_MAX_TILES - 1;
        uint32_t r = 0;
        size_t x = q + 1;
        while (x < qc) {
          x = hs_skip_sp(t, qc, x);
          int64_t d;
          if (x < qc && t[x] == '*') {
            d = -1;
            x++;
          } else {
            size_t y = read_int(t, qc, x, &d);
            if (!y) {
              *bad = x;
              return 0;
            }
            x = y;
          }
          if (r < HS_LAYOUT_MAX_RANK) l->tiles[k][r] = d;
          r++;
          x = hs_skip_sp(t, qc, x);
          if (x < qc && t[x] == ',') x++;
          else if (x < qc) {
            *bad = x;
            return 0;
          }
        }
        l->tile_rank[k] = r < HS_LAYOUT_MAX_RANK ? r : HS_LAYOUT_MAX_RANK;
        if (l->n_tiles < HS_LAYOUT_MAX_TILES) l->n_tiles++;
        q = qc + 1;
      }
      p = q;
      continue;
    }
    if (c == 'L' || c == 'E' || c == 'S' || c == 'M') {
      if (c == 'S' && open == p + 2) {
        l->split_configs = hs_sl((uint32_t)open, (uint32_t)(close + 1 - open));
        /* SC(0:1024)(1:8): every following group belongs to it */
        size_t q = close + 1;
        while (q < end && t[q] == '(') {
          size_t qc = close_paren(t, end, q);
          if (!qc) {
            *bad = q;
            return 0;
          }
          q = qc + 1;
        }
        l->split_configs.len = (uint32_t)(q - open);
        p = q;
        continue;
      }
      size_t y = read_int(t, close, open + 1, &v);
      if (!y || y != close) {
        *bad = open + 1;
        return 0;
      }
      if (c == 'L') l->tail_align = v ? v : 1;
      else if (c == 'E') l->elem_bits = v;
      else if (c == 'S') l->mem_space = v;
      else l->dyn_prefix_bytes = v;
    } else if (c == 'D') {
      l->dim_levels = inner;
    } else if (c == '#') {
      l->index_type = inner;
    } else if (c == '*') {
      l->pointer_type = inner;
    } else if (c == 'P') {
      l->physical_shape = inner;
    } else {
      *bad = p;
      return 0;
    }
    p = close + 1;
  }
  if (p >= end) {
    *bad = p;
    return 0;
  }
  return p + 1;
}

static uint64_t round_up(uint64_t x, uint64_t m) { return m ? (x + m - 1) / m * m : x; }

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

uint64_t hs_layout_padded_bytes(const hs_type *ty, const hs_layout *l) {
  if (!ty || ty->kind != HS_T_ARRAY) return 0;
  uint32_t rank = ty->n;
  uint64_t bits = hs_elem_types[ty->elem].bits;
  uint64_t elem_bytes = bits ? (bits + 7) / 8 : 0; /* ByteSizeOfPrimitiveType: sub-byte types take a byte */
  for (uint32_t i = 0; i < rank; i++)
    if (ty->dims[i] < 0) return 0;
  if (!l || !l->present || l->n_tiles == 0 || l->rank != rank || rank > HS_LAYOUT_MAX_RANK) {
    if (!l || !l->present || (l->tail_align <= 1 && !l->elem_bits)) return hs_type_bytes(ty);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n = mul_sat(n, (uint64_t)ty->dims[i]);
    if (l->tail_align > 1) n = round_up(n, (uint64_t)l->tail_align);
    return (mul_sat(n, l->elem_bits ? (uint64_t)l->elem_bits : bits) + 7) / 8;
  }
  uint32_t tr = l->tile_rank[0];
  const int64_t *tile = l->tiles[0];
  uint64_t n = 1;
  uint32_t dim = 0;
  for (; dim < tr; dim++) {
    uint64_t size = 1;
    if (dim < rank) {
      int64_t m = l->m2m[dim];
      size = (m >= 0 && (uint32_t)m < rank) ? (uint64_t)ty->dims[m] : 1;
    }
    int64_t td = tile[tr - dim - 1];
    n = mul_sat(n, td > 0 ? round_up(size, (uint64_t)td) : size);
  }
  for (; dim < rank; dim++) {
    int64_t m = l->m2m[dim];
    n = mul_sat(n, (m >= 0 && (uint32_t)m < rank) ? (uint64_t)ty->dims[m] : 1);
  }
  if (l->tail_align > 1) n = round_up(n, (uint64_t)l->tail_align);
  if (l->elem_bits) return (mul_sat(n, (uint64_t)l->elem_bits) + 7) / 8;
  return mul_sat(n, elem_bytes);
}

typedef struct {
  char *buf;
  size_t cap, len;
} wbuf;

static void wputn(wbuf *w, const char *s, size_t n) {
  for (size_t i = 0; i < n && w->len + 1 < w->cap; i++) w->buf[w->len++] = s[i];
  if (w->cap) w->buf[w->len < w->cap ? w->len : w->cap - 1] = 0;
}
static void wput(wbuf *w, const char *s) { wputn(w, s, strlen(s)); }
static void wputf(wbuf *w, const char *fmt, long long v) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, fmt, v);
  wput(w, tmp);
}

static void put_tile(wbuf *w, const hs_layout *l, uint32_t k) {
  for (uint32_t i = 0; i < l->tile_rank[k]; i++) {
    if (i) wput(w, "x");
    if (l->tiles[k][i] < 0) wput(w, "*");
    else wputf(w, "%lld", (long long)l->tiles[k][i]);
  }
}

static const char *space_words(int64_t ms) {
  switch (ms) {
    case 1: return "VMEM on TPU";
    case 2: return "TPU sync flags";
    case 5: return "pinned host memory";
    case 6: return "unpinned host memory";
    default: return NULL;
  }
}

static void level_words(wbuf *w, const char *t, hs_slice s) {
  for (uint32_t i = 0; i < s.len; i++) {
    char c = t[s.off + i];
    if (c == ',') wput(w, ", ");
    else if (c == 'D') wput(w, "dense");
    else if (c == 'C') wput(w, "compressed");
    else if (c == 'S') wput(w, "singleton");
    else if (c == 'H') wput(w, "loose compressed");
    else if (c == '+') wput(w, " (not unique)");
    else if (c == '~') wput(w, " (not ordered)");
    else wputn(w, &c, 1);
  }
}

void hs_layout_words(const char *t, const hs_type *ty, const hs_layout *l, char *buf, size_t cap) {
  wbuf w = {buf, cap, 0};
  if (cap) buf[0] = 0;
  if (!l || !l->present) {
    wput(&w, "no layout printed (XLA's default: row-major)");
    return;
  }
  uint32_t r = l->rank;
  bool row = true, col = true;
  for (uint32_t i = 0; i < r && i < HS_LAYOUT_MAX_RANK; i++) {
    if (l->m2m[i] != (int64_t)(r - 1 - i)) row = false;
    if (l->m2m[i] != (int64_t)i) col = false;
  }
  if (r == 0) wput(&w, "scalar");
  else if (r == 1) wput(&w, "one dimension");
  else if (row) wput(&w, "row-major");
  else if (col) wput(&w, "column-major");
  else {
    wput(&w, "dimension ");
    for (uint32_t i = 0; i < r && i < HS_LAYOUT_MAX_RANK; i++) {
      if (i == 1) wput(&w, " varies fastest, then ");
      else if (i > 1) wput(&w, ", then ");
      wputf(&w, "%lld", (long long)l->m2m[i]);
    }
    if (r > 1) wput(&w, " (minor to major)");
  }
  if (l->dim_levels.len) {
    wput(&w, "; dimension levels: ");
    level_words(&w, t, l->dim_levels);
  }
  const char *elem = ty && ty->kind == HS_T_ARRAY ? hs_elem_types[ty->elem].hlo : NULL;
  unsigned bits = ty && ty->kind == HS_T_ARRAY ? hs_elem_types[ty->elem].bits : 0;
  for (uint32_t k = 0; k < l->n_tiles; k++) {
    wput(&w, k ? ", then " : "; tiled ");
    if (k == 0) {
      put_tile(&w, l, 0);
      continue;
    }
    uint64_t prod = 1;
    bool star = false;
    for (uint32_t i = 0; i < l->tile_rank[k]; i++) {
      if (l->tiles[k][i] < 0) star = true;
      else prod *= (uint64_t)l->tiles[k][i];
    }
    if (!star && elem && bits && bits < 32 && prod == 32 / bits) {
      wput(&w, elem);
      wput(&w, prod == 2 ? " pairs" : prod == 4 ? " quads" : " groups");
      if (prod > 4) wputf(&w, " of %lld", (long long)prod);
      wput(&w, " packed ");
    } else {
      wput(&w, "sub-tiled ");
    }
    put_tile(&w, l, k);
  }
  if (l->tail_align > 1) wputf(&w, "; tail padded to a multiple of %lld elements", (long long)l->tail_align);
  if (l->index_type.len) {
    wput(&w, "; indices stored as ");
    wputn(&w, t + l->index_type.off, l->index_type.len);
  }
  if (l->pointer_type.len) {
    wput(&w, "; pointers stored as ");
    wputn(&w, t + l->pointer_type.off, l->pointer_type.len);
  }
  if (l->elem_bits) wputf(&w, "; %lld bits per element", (long long)l->elem_bits);
  if (l->mem_space) {
    wputf(&w, "; lives in memory space %lld", (long long)l->mem_space);
    const char *sw = space_words(l->mem_space);
    if (sw) {
      wput(&w, " (");
      wput(&w, sw);
      wput(&w, ")");
    }
  }
  if (l->split_configs.len) {
    wput(&w, "; split ");
    wputn(&w, t + l->split_configs.off, l->split_configs.len);
    wput(&w, " (dimension:split points)");
  }
  if (l->physical_shape.len) {
    wput(&w, "; stored as ");
    wputn(&w, t + l->physical_shape.off, l->physical_shape.len);
  }
  if (l->dyn_prefix_bytes) wputf(&w, "; %lld bytes of dynamic-shape metadata first", (long long)l->dyn_prefix_bytes);
}

static json_t *slice_or_null(const char *t, hs_slice s) { return s.len ? hs_json_bytes(t + s.off, s.len) : json_null(); }

static json_t *ints_json(const int64_t *v, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n && i < HS_LAYOUT_MAX_RANK; i++)
    json_array_append_new(a, v[i] < 0 ? json_string("*") : json_integer((json_int_t)v[i]));
  return a;
}

static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static json_t *shape_json(const char *t, size_t end, size_t *pos, size_t *bad, int depth, uint64_t *logical, uint64_t *padded) {
  size_t p = hs_skip_sp(t, end, *pos);
  size_t start = p;
  if (depth > 32) {
    *bad = p;
    return NULL;
  }
  hs_arena a = {0};
  json_t *o = json_object();
  if (p < end && t[p] == '(') {
    json_t *elems = json_array();
    uint64_t lsum = 0, psum = 0;
    p = hs_skip_sp(t, end, p + 1);
    while (p < end && t[p] != ')') {
      uint64_t l1 = 0, p1 = 0;
      json_t *e = shape_json(t, end, &p, bad, depth + 1, &l1, &p1);
      if (!e) {
        json_decref(elems);
        json_decref(o);
        return NULL;
      }
      json_array_append_new(elems, e);
      lsum += l1;
      psum += p1;
      p = hs_skip_sp(t, end, p);
      if (p < end && t[p] == ',') p = hs_skip_sp(t, end, p + 1);
      else if (p < end && t[p] != ')') {
        *bad = p;
        json_decref(elems);
        json_decref(o);
        return NULL;
      }
    }
    if (p >= end) {
      *bad = p;
      json_decref(elems);
      json_decref(o);
      return NULL;
    }
    p++;
    json_object_set_new(o, "type", hs_json_bytes(t + start, p - start));
    json_object_set_new(o, "elements", elems);
    json_object_set_new(o, "logical_bytes", json_integer((json_int_t)lsum));
    json_object_set_new(o, "padded_bytes", json_integer((json_int_t)psum));
    json_object_set_new(o, "padding_bytes", json_integer((json_int_t)(psum - lsum)));
    json_object_set_new(o, "words", json_string("a tuple: each element has its own layout"));
    *logical = lsum;
    *padded = psum;
    *pos = p;
    return o;
  }
  /* element[dims] first, read by the shared shape reader without its layout */
  size_t q = p;
  while (q < end && is_ident(t[q])) q++;
  if (q >= end || t[q] != '[') {
    *bad = q;
    json_decref(o);
    return NULL;
  }
  while (q < end && t[q] != ']' && t[q] != '\n') q++;
  if (q >= end || t[q] != ']') {
    *bad = q;
    json_decref(o);
    return NULL;
  }
  size_t dims_end = q + 1, r = p;
  hs_type *ty = hs_parse_hlo_shape(&a, t, dims_end, &r);
  if (!ty || r != dims_end) {
    *bad = ty ? r : p;
    hs_arena_free(&a);
    json_decref(o);
    return NULL;
  }
  hs_layout l;
  memset(&l, 0, sizeof l);
  l.tail_align = 1;
  p = dims_end;
  size_t lay = hs_hlo_layout_at(t, end, p); /* "f32[8,64]{1,0}", and as XLA "f32[8,64] {1,0}" */
  if (lay) {
    size_t after = hs_layout_parse(t, end, lay, &l, bad);
    if (!after) {
      hs_arena_free(&a);
      json_decref(o);
      return NULL;
    }
    p = after;
  }
  if (l.present && ty->kind == HS_T_ARRAY && l.rank != ty->n) {
    *bad = dims_end;
    hs_arena_free(&a);
    json_decref(o);
    return NULL;
  }
  char small[256];
  hs_type_format(ty, small, sizeof small);
  uint64_t lb = ty->kind == HS_T_ARRAY ? hs_type_bytes(ty) : 0;
  uint64_t pb = ty->kind == HS_T_ARRAY ? hs_layout_padded_bytes(ty, &l) : 0;
  if (pb < lb) pb = lb;
  char words[512];
  hs_layout_words(t, ty, &l, words, sizeof words);
  json_object_set_new(o, "type", hs_json_bytes(t + start, p - start));
  json_object_set_new(o, "shape", json_string(small));
  json_object_set_new(o, "element", json_string(hs_elem_types[ty->elem].hlo));
  json_t *dims = json_array();
  for (uint32_t i = 0; i < ty->n; i++) json_array_append_new(dims, json_integer((json_int_t)ty->dims[i]));
  json_object_set_new(o, "dims", dims);
  json_object_set_new(o, "layout", l.present ? json_true() : json_false());
  json_object_set_new(o, "minor_to_major", l.present ? ints_json(l.m2m, l.rank) : json_null());
  json_t *tiles = json_array();
  for (uint32_t k = 0; k < l.n_tiles; k++) json_array_append_new(tiles, ints_json(l.tiles[k], l.tile_rank[k]));
  json_object_set_new(o, "tiles", tiles);
  json_object_set_new(o, "dim_level_types", slice_or_null(t, l.dim_levels));
  json_object_set_new(o, "tail_padding_alignment", json_integer((json_int_t)l.tail_align));
  json_object_set_new(o, "index_type", slice_or_null(t, l.index_type));
  json_object_set_new(o, "pointer_type", slice_or_null(t, l.pointer_type));
  json_object_set_new(o, "element_size_bits", l.elem_bits ? json_integer((json_int_t)l.elem_bits) : json_null());
  json_object_set_new(o, "memory_space", json_integer((json_int_t)l.mem_space));
  json_object_set_new(o, "split_configs", slice_or_null(t, l.split_configs));
  json_object_set_new(o, "physical_shape", slice_or_null(t, l.physical_shape));
  json_object_set_new(o, "dynamic_metadata_bytes", json_integer((json_int_t)l.dyn_prefix_bytes));
  json_object_set_new(o, "logical_bytes", json_integer((json_int_t)lb));
  json_object_set_new(o, "padded_bytes", json_integer((json_int_t)pb));
  json_object_set_new(o, "padding_bytes", json_integer((json_int_t)(pb - lb)));
  json_object_set_new(o, "words", json_string(words));
  hs_arena_free(&a);
  *logical = lb;
  *padded = pb;
  *pos = p;
  return o;
}

json_t *hs_layout_shape_json(const char *t, size_t end, size_t *pos, size_t *bad) {
  uint64_t l = 0, p = 0;
  return shape_json(t, end, pos, bad, 0, &l, &p);
}

char *hs_layout_json(const char *text, size_t len, hs_error *err, size_t *out_len) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  if (!text) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "type is NULL");
    return NULL;
  }
  size_t p = 0;
  while (p < len && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) p++;
  if (p >= len) {
    hs_set_error(err, HS_E_EMPTY, text, len, 0, "the type is empty: give one like bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)}");
    return NULL;
  }
  size_t bad = p;
  json_t *o = hs_layout_shape_json(text, len, &p, &bad);
  if (!o) {
    hs_set_error(err, HS_E_SYNTAX, text, len, bad,
                 "expected an HLO type such as bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)} (layout parts in XLA's order: "
                 "minor-to-major, then D() T() L() #() *() E() S() SC() P() M())");
    return NULL;
  }
  while (p < len && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) p++;
  if (p < len) {
    json_decref(o);
    hs_set_error(err, HS_E_SYNTAX, text, len, p, "unexpected text after the type");
    return NULL;
  }
  return hs_json_finish(o, out_len);
}

/* ---- sizes as XLA prints them ---------------------------------------------------------- */
size_t hs_parse_size(const char *t, size_t end, size_t p, uint64_t *bytes) {
  uint64_t mant = 0, scale = 1;
  size_t s = p;
  int frac = -1;
  while (p < end && (is_digit(t[p]) || (t[p] == '.' && frac < 0) || (t[p] == ',' && frac < 0 && p + 3 < end && is_digit(t[p + 1])))) {
    if (t[p] == '.') frac = 0;
    else if (t[p] != ',') {
      if (mant < UINT64_MAX / 10 - 10) {
        mant = mant * 10 + (uint64_t)(t[p] - '0');
        if (frac >= 0) {
          frac++;
          scale *= 10;
        }
      }
    }
    p++;
  }
  if (p == s || !is_digit(t[s])) return 0;
  if (t[p - 1] == '.') p--; /* a sentence's full stop */
  int shift = 0;
  if (p < end && (t[p] == 'K' || t[p] == 'k')) shift = 10;
  else if (p < end && t[p] == 'M') shift = 20;
  else if (p < end && t[p] == 'G') shift = 30;
  else if (p < end && t[p] == 'T') shift = 40;
  else if (p < end && t[p] == 'P') shift = 50;
  if (shift) {
    p++;
    if (p < end && t[p] == 'i') p++;
    if (p < end && t[p] == 'B') p++;
  } else if (p < end && t[p] == 'B') {
    p++;
  } else if (end - p >= 6 && memcmp(t + p, " bytes", 6) == 0) {
    p += 6;
  }
  long double v = (long double)mant * (long double)((uint64_t)1 << shift) / (long double)scale;
  *bytes = v >= 1.8e19L ? UINT64_MAX : (uint64_t)(v + 0.5L);
  return p;
}
