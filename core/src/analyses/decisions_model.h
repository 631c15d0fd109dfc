/* Decisions (decisions.c: HLO and StableHLO, and the JSON; decisions_jaxpr.c: the jaxpr reader):
 * the list they fill, and the helpers both use. Private to those two. */
#ifndef HS_DECISIONS_MODEL_H
#define HS_DECISIONS_MODEL_H

#include "analyses/analyses.h"

/* The kinds, in the order of KIND_NAMES (decisions.c). */
enum { D_UPCAST = 0, D_DOWNCAST, D_BROADCAST, D_REMAT, D_TRANSPOSE, D_LAYOUT_COPY };

/* One decision, on the line it was made. */
typedef struct {
  uint8_t kind;
  uint32_t line, seq;
  const char *name;
  size_t name_len;
  int from, to; /* element type indices, -1 when none */
  const hs_type *shape;
  char *detail, *source, *path; /* malloc'd; source and path may be NULL */
} dec;

/* One hs_decisions_json call: its document, its list, its warnings. */
typedef struct {
  const hs_doc *d;
  hs_arena arena; /* types made here (jaxpr) */
  dec *v;
  uint32_t n, cap;
  hs_diag diag; /* our own warnings (no limits; messages in arena), after the document's */
  bool nomem;
  uint32_t *locs;   /* StableHLO's table lines ("#loc12 = ...") by name: line index + 1 (loc_line) */
  uint32_t loc_cap; /* 0 until the first lookup makes the index */
} ctx;

/* The element type of an array type, or -1. */
static inline int elem_of(const hs_type *t) { return t && t->kind == HS_T_ARRAY ? t->elem : -1; }
/* A byte of a jaxpr or MLIR identifier ([A-Za-z0-9_]). */
static inline bool jid(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* a malloc'd printf, a malloc'd copy of n bytes */
char *hs_dec_fmt(const char *f, ...);
char *hs_dec_dupn(const char *s, size_t n);
/* one of our own warnings, after the document's */
void hs_dec_warn(ctx *c, int code, uint32_t line, uint32_t col, const char *msg);
/* a new decision on the list (NULL when memory ran out: c->nomem) */
dec *hs_dec_add(ctx *c, uint8_t kind, uint32_t line, const char *name, size_t name_len);
/* D_UPCAST, D_DOWNCAST or -1 for a convert between element types; the details' words */
int hs_dec_convert_kind(int from, int to);
void hs_dec_cast_detail(dec *x, const char *op, const hs_type *in, const hs_type *out);
void hs_dec_shape_detail(dec *x, const char *op, const char *verb, const hs_type *in, const hs_type *out);
/* decisions_jaxpr.c: the decisions of a jaxpr */
void hs_dec_jaxpr(ctx *c);

#endif
