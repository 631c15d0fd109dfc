/* types: element types, HLO shapes and MLIR types (types.c), layouts in words and bytes
 * (layout.c). Not installed; only core/src includes it. Uses base/ only.
 *
 * hs_type is the one pointer tree of the core: shapes parsed into an arena, each distinct HLO
 * shape made once per arena (its cache is the arena's `extra`, freed with it). It never
 * crosses to JS: results print it in HLO form (hs_type_format, hs_json_type).
 */
#ifndef HS_TYPES_H
#define HS_TYPES_H

#include "base/base.h"

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
/* c64 and c128 (two parts of half the bits each) */
static inline bool hs_elem_is_complex(int e) { return e >= 0 && hs_elem_types[e].hlo[0] == 'c'; }

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
/* The memory space in words: "the default memory (HBM)", "on-chip memory (S(1), VMEM on TPU)", ... */
const char *hs_mem_space_words(int ms);
/* The type's HLO form as a JSON string, or null. */
json_t *hs_json_type(const hs_type *t);


/* ---- layouts (layout.c) ---------------------------------------------------------------- */
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
