/* The jaxpr document from what doc/jaxpr.c read (jaxpr_reader.h): the nesting in jax's print
 * order, the bodies as computations (in the order their braces open) with their own equations,
 * the jaxpr-only parts (doc->jaxpr_eqns, doc->jaxpr_bodies) and the kinds of the lines. */
#include <stdlib.h>

#include "doc/jaxpr_reader.h"

/* Walks bodies in jax's order (each equation, then the bodies its parameters hold, first visit
 * wins) and gives each body it reaches the equation holding it (its nesting path). */
static void walk(jr *r, uint32_t bi, int depth) {
  jbody *b = &r->bodies[bi];
  b->visited = true;
  if (depth > 200) return;
  for (uint32_t i = b->first_eqn; i < b->first_eqn + b->within && i < r->n_eqns; i++) {
    if (r->eqns[i].body != bi) continue; /* equations of bodies nested inside come via their edges */
    for (uint32_t q = r->edge_first[i]; q < r->edge_first[i + 1]; q++) {
      const jedge *g = &r->edges[r->edge_order[q]];
      int32_t target = g->body;
      for (uint32_t m = 0; target < 0 && m < r->n_bodies; m++) /* the first hoisted body of that name */
        if (r->bodies[m].hoisted && r->bodies[m].name.len == g->ref.len &&
            memcmp(r->t + r->bodies[m].name.off, r->t + g->ref.off, g->ref.len) == 0)
          target = (int32_t)m;
      if (target < 0 || target >= (int32_t)r->n_bodies || r->bodies[target].visited) continue;
      r->bodies[target].holder = (int32_t)i;
      r->bodies[target].parent = (int32_t)bi;
      walk(r, (uint32_t)target, depth + 1);
    }
  }
}

/* The edges of each equation, in the order they were read (a stable counting sort); false when
 * memory runs out. */
static bool index_edges(jr *r) {
  r->edge_first = calloc((size_t)r->n_eqns + 2, sizeof *r->edge_first);
  r->edge_order = malloc(((size_t)r->n_edges + 1) * sizeof *r->edge_order);
  uint32_t *fill = calloc((size_t)r->n_eqns + 1, sizeof *fill);
  bool ok = r->edge_first && r->edge_order && fill;
  if (ok) {
    for (uint32_t k = 0; k < r->n_edges; k++) r->edge_first[r->edges[k].eqn + 1]++;
    for (uint32_t i = 0; i < r->n_eqns; i++) r->edge_first[i + 1] += r->edge_first[i];
    for (uint32_t k = 0; k < r->n_edges; k++) {
      uint32_t e = r->edges[k].eqn;
      r->edge_order[r->edge_first[e] + fill[e]++] = k;
    }
  }
  free(fill);
  return ok;
}

/* Sets a line's kind unless it holds one that ranks higher: an equation's first line, then a
 * body's opening or closing line, then an equation's continuation lines (equal ranks: the last
 * one set wins). */
static void mark_line(hs_doc *d, uint32_t line, uint8_t kind, uint32_t ref) {
  if (!line || line > d->n_lines || ref > HS_LINE_REF_MAX) return;
  hs_line *l = &d->lines[line - 1];
  static const uint8_t rank[] = {[HS_LINE_CONT] = 1, [HS_LINE_COMP] = 2, [HS_LINE_CLOSE] = 2, [HS_LINE_INSTR] = 3};
  if (l->kind < sizeof rank && rank[l->kind] > rank[kind]) return;
  l->kind = kind;
  l->ref = ref;
}

/* The document from what was read: the bodies as computations (in the order they open), each
 * with its own equations (those read whole), the lines' kinds. */
static int build(jr *r, int32_t main_body) {
  hs_doc *d = r->d;
  int32_t m = hs_doc_open_module(d, hs_sl(0, 0), 1, 0);
  if (m < 0) return HS_E_NOMEM;
  /* the equations of each body together, in reading order (a stable counting sort) */
  uint32_t *first = calloc((size_t)r->n_bodies + 1, sizeof *first);
  uint32_t *order = malloc(((size_t)r->n_eqns + 1) * sizeof *order);
  uint32_t *doc_of = malloc(((size_t)r->n_eqns + 1) * sizeof *doc_of); /* read index -> instruction, UINT32_MAX: cut */
  int rc = 0;
  if (!first || !order || !doc_of) {
    rc = HS_E_NOMEM;
    goto done;
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < r->n_eqns; i++)
    if (!r->eqns[i].cut) first[r->eqns[i].body + 1]++, kept++;
  for (uint32_t b = 0; b < r->n_bodies; b++) first[b + 1] += first[b];
  for (uint32_t i = 0; i < r->n_eqns; i++) {
    doc_of[i] = UINT32_MAX;
    if (r->eqns[i].cut) continue;
    uint32_t k = first[r->eqns[i].body]++;
    order[k] = i;
    doc_of[i] = d->n_instrs + k;
  }
  uint32_t k = 0;
  for (uint32_t b = 0; b < r->n_bodies; b++) {
    const jbody *jb = &r->bodies[b];
    int32_t c = hs_doc_open_comp(d, (uint32_t)m, jb->name, line_of(d, jb->open), HS_ROLE_CALLED);
    if (c < 0) {
      rc = HS_E_NOMEM;
      goto done;
    }
    for (; k < kept && r->eqns[order[k]].body == b; k++) {
      const jeqn *e = &r->eqns[order[k]];
      /* one without outputs: an empty name where its primitive is (see hs_instr.opc) */
      hs_instr *in = hs_doc_add_instr(d, e->name.len ? e->name : hs_sl(e->prim.off, 0), e->prim, line_of(d, e->start), (uint32_t)c);
      if (!in) {
        rc = HS_E_NOMEM;
        goto done;
      }
      in->type = e->out;
      bool ok;
      hs_jaxpr_eqn *je = HS_VEC_PUSH(d->jaxpr_eqns, d->n_jaxpr_eqns, d->cap_jaxpr_eqns, ok);
      if (!ok) {
        rc = HS_E_NOMEM;
        goto done;
      }
      je->in0 = e->in0;
    }
    hs_doc_close_comp(d, (uint32_t)c, jb->close ? line_of(d, jb->close - 1) : 0);
    bool ok;
    hs_jaxpr_body *bb = HS_VEC_PUSH(d->jaxpr_bodies, d->n_jaxpr_bodies, d->cap_jaxpr_bodies, ok);
    if (!ok) {
      rc = HS_E_NOMEM;
      goto done;
    }
    bb->holder = jb->holder >= 0 ? (int32_t)doc_of[jb->holder] : -1;
    bb->parent = jb->parent;
    bb->via = jb->parent >= 0 ? r->eqns[jb->holder].prim : hs_sl(0, 0);
    bb->within = jb->within;
    bb->hoisted = jb->hoisted;
  }
  if (main_body >= 0 && (uint32_t)main_body < d->n_comps) {
    d->comps[main_body].is_entry = 1;
    d->modules[m].entry = main_body;
  }
  /* the lines' kinds: continuation lines, then the bodies' braces, then first lines (the first
     equation of a line keeps it) */
  for (uint32_t i = 0; i < r->n_eqns; i++) {
    const jeqn *e = &r->eqns[i];
    if (doc_of[i] == UINT32_MAX) continue;
    for (uint32_t l = line_of(d, e->start) + 1, last = line_of(d, e->end); l <= last; l++) mark_line(d, l, HS_LINE_CONT, doc_of[i]);
  }
  for (uint32_t b = 0; b < r->n_bodies; b++)
    if (r->bodies[b].close) mark_line(d, line_of(d, r->bodies[b].close - 1), HS_LINE_CLOSE, b);
  for (uint32_t b = 0; b < r->n_bodies; b++) mark_line(d, line_of(d, r->bodies[b].open), HS_LINE_COMP, b);
  for (uint32_t i = r->n_eqns; i-- > 0;)
    if (doc_of[i] != UINT32_MAX) mark_line(d, line_of(d, r->eqns[i].start), HS_LINE_INSTR, doc_of[i]);
done:
  free(first);
  free(order);
  free(doc_of);
  return rc;
}

int hs_jaxpr_build(jr *r, int32_t main_body) {
  if (!index_edges(r)) return HS_E_NOMEM;
  if (main_body >= 0 && (uint32_t)main_body < r->n_bodies) walk(r, (uint32_t)main_body, 0);
  /* a hoisted body no equation read here refers to (the text was cut before its user): the path
     of what it holds starts at its name */
  for (uint32_t b = 0; b < r->n_bodies; b++)
    if (!r->bodies[b].visited && r->bodies[b].hoisted) walk(r, b, 1);
  return build(r, main_body);
}
