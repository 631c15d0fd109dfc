/* The jaxpr reader's own structures (private to jaxpr.c, which reads jax's grammar, and
 * jaxpr_doc.c, which builds the document from what it read). */
#ifndef HS_JAXPR_READER_H
#define HS_JAXPR_READER_H

#include "doc/doc.h"

/* An equation as read (in reading order: an equation comes before the equations of the bodies its
 * parameters hold). */
typedef struct {
  size_t start, end;   /* its first byte; where it ends (after its last operand) */
  hs_slice prim, name; /* primitive; first output variable (len 0 when none) */
  hs_type *out, *in0;  /* outputs (a tuple when several); first operand (NULL: an untyped literal, unknown) */
  uint32_t body;       /* the body it belongs to */
  bool cut;            /* the text ends (or stops being a jaxpr) inside it: left out of the document */
} jeqn;

typedef struct {
  hs_slice name;        /* hoisted: NAME of "let NAME = {...} in"; inline: the parameter key */
  bool hoisted, visited;
  int32_t scope_eqn;    /* the equation whose parameters it is written in (its outer scope), -1 */
  int32_t holder;       /* the equation that holds it in jax's print order (the walk), else scope_eqn */
  int32_t parent;       /* the walk: the body of holder, -1 when the walk did not reach it that way */
  size_t open, close;   /* its '{'; the byte after its '}' (0: the text ends inside it) */
  uint32_t first_eqn, within; /* the equations read inside its braces (nested bodies' too) */
} jbody;

/* A body an equation's parameters hold: inline (body), or named (ref, a hoisted one). */
typedef struct {
  uint32_t eqn;
  int32_t body;
  hs_slice ref;
} jedge;

typedef struct {
  hs_doc *d;
  const char *t;
  size_t len;
  jeqn *eqns;
  uint32_t n_eqns, cap_eqns;
  jbody *bodies;
  uint32_t n_bodies, cap_bodies;
  jedge *edges;
  uint32_t n_edges, cap_edges;
  uint32_t *edge_first, *edge_order; /* the edges of equation i: edge_order[edge_first[i] .. edge_first[i+1]) */
  /* variables: open addressing, (body, slice) -> type; jax reuses names in nested bodies */
  uint32_t *vb;
  hs_slice *vk;
  hs_type **vt;
  uint32_t vcap, vcount;
  int depth;
  bool stop; /* ran out of text or met something unreadable (warned), or out of memory (d->nomem) */
} jr;

/* The 1-based line holding offset off (the lines are recorded first). */
static inline uint32_t line_of(const hs_doc *d, size_t off) {
  uint32_t lo = 0, hi = d->n_lines;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (hs_line_off(d, mid) <= off) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

/* The document from what was read (jaxpr_doc.c): the walk in jax's print order gives each body
 * the equation holding it; the bodies become computations, their equations instructions, the
 * lines get their kinds. main_body: the top level jaxpr, -1 when none was read. */
int hs_jaxpr_build(jr *r, int32_t main_body);

#endif
