/* Layouts in words (layout.c), shared with the memory readers (memory.c, buffers.c).
 * Internal: only core/src includes it. */
#ifndef HS_LAYOUT_H
#define HS_LAYOUT_H
#include <jansson.h>

#include "internal.h"

#define HS_LAYOUT_MAX_RANK 16
#define HS_LAYOUT_MAX_TILES 4

/* Every part XLA's Layout::Print writes, in its order:
 * {minor_to_major:D(...)T(..)(..)L(n)#(t)*(t)E(n)S(n)SC(..)P(shape)M(n)} */
typedef struct {
  bool present;   /* a {...} followed the dimensions */
  uint32_t rank;  /* entries in minor_to_major */
  int64_t m2m[HS_LAYOUT_MAX_RANK];
  uint32_t n_tiles;
  uint32_t tile_rank[HS_LAYOUT_MAX_TILES];
  int64_t tiles[HS_LAYOUT_MAX_TILES][HS_LAYOUT_MAX_RANK]; /* -1 = '*' (combined dimension) */
  hs_slice dim_levels;      /* inside D(...), or len 0 */
  int64_t tail_align;       /* L(n); 1 when absent */
  hs_slice index_type;      /* inside #(...) */
  hs_slice pointer_type;    /* inside *(...) */
  int64_t elem_bits;        /* E(n); 0 when absent */
  int64_t mem_space;        /* S(n); 0 when absent */
  hs_slice split_configs;   /* after SC: "(0:1024)(1:8)" */
  hs_slice physical_shape;  /* inside P(...) */
  int64_t dyn_prefix_bytes; /* M(n); 0 when absent */
} hs_layout;

/* Parses the layout at t[p] == '{' up to its '}' (offsets are into t). Returns the index after
 * '}', or 0 on a syntax error with *bad set to the offending offset. */
size_t hs_layout_parse(const char *t, size_t end, size_t p, hs_layout *out, size_t *bad);

/* Bytes of an array with this layout as XLA's ShapeUtil::ArraySize counts them: the first tile
 * rounds the minor dimensions up (a scalar with T(128) holds 128 elements), L(n) rounds the
 * element count, E(n) sets the bits per element (else the element type's byte size). */
uint64_t hs_layout_padded_bytes(const hs_type *ty, const hs_layout *l);

/* The layout in words, e.g. "row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory
 * space 1 (VMEM on TPU)". */
void hs_layout_words(const char *t, const hs_type *ty, const hs_layout *l, char *buf, size_t cap);

/* Reads one HLO shape with layouts (array or tuple) at t[*pos] and returns its JSON
 * ({"type","shape",...,"logical_bytes","padded_bytes","padding_bytes","words"}), or NULL with
 * *bad set on a syntax error. Sums over tuple elements. */
json_t *hs_layout_shape_json(const char *t, size_t end, size_t *pos, size_t *bad);

/* Parses "12.5M", "63.80G", "384", "0B", "6.00MiB", "19.0KiB", "512B" (K, M, G, T binary) into
 * bytes, rounded to the nearest byte. Returns the index after the number and unit, or 0 when
 * t[p] does not start a number. */
size_t hs_parse_size(const char *t, size_t end, size_t p, uint64_t *bytes);
#endif
