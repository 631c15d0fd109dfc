/* The decisions of a jaxpr (decisions_model.h), read from the text by a small recursive reader:
 * the document's jaxpr reader keeps only one line per equation, while a decision needs the line
 * where an equation begins even when its parameters wrap, the types of its operands, and the
 * nesting path through pjit, remat, scan, cond and while bodies (inline, or hoisted as
 * "let name = { lambda ... } in" by newer jax). */
#include <stdio.h>
#include <stdlib.h>

#include "analyses/decisions_model.h"

/* ================================================================ jaxpr ==================== */

typedef struct {
  uint32_t line;        /* where the equation begins */
  hs_slice prim, name;  /* primitive; first output variable */
  hs_type *out, *in0;   /* outputs (a tuple when several); first operand (NULL for an untyped literal) */
  uint32_t body;        /* the body it sits in */
  bool cut;             /* the text ends (or stops being a jaxpr) inside it */
} jeqn;

typedef struct {
  hs_slice let_name; /* hoisted: "let NAME = {...} in"; len 0 for inline bodies */
  int32_t path_eqn;  /* the equation whose parameters hold it (first in walk order), -1 */
  uint32_t first_eqn, count;
  char *path;
  bool visited;
} jbody;

typedef struct {
  uint32_t eqn;
  int32_t body;  /* an inline body, or -1: a reference by name */
  hs_slice ref;  /* the name referred to */
} jedge;

typedef struct {
  ctx *c;
  const char *t;
  size_t len;
  jeqn *eqns;
  uint32_t n_eqns, cap_eqns;
  jbody *bodies;
  uint32_t n_bodies, cap_bodies;
  jedge *edges;
  uint32_t n_edges, cap_edges;
  uint32_t *lets, n_lets;             /* the hoisted bodies ("let name = ..."), by index */
  uint32_t *edge_first, *edge_order; /* the edges of equation i: edge_order[edge_first[i] .. edge_first[i+1]) */
  /* variables: open addressing, (body, slice) -> type; jax reuses names in nested bodies */
  uint32_t *vb;
  hs_slice *vk;
  hs_type **vt;
  uint32_t vcap, vcount;
  int depth;
  bool stop; /* ran out of text or met something unreadable */
} jr;

static uint32_t line_of(const hs_doc *d, size_t off) {
  uint32_t lo = 0, hi = d->n_lines;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->lines[mid].off <= off) lo = mid;
    else hi = mid;
  }
  return lo + 1;
}

static uint32_t var_hash(const jr *r, uint32_t body, size_t off, size_t n) {
  return hs_hash(r->t + off, n) ^ (body * 2654435761u);
}

static bool var_put(jr *r, uint32_t body, hs_slice k, hs_type *ty) {
  if ((r->vcount + 1) * 2 > r->vcap) {
    uint32_t nc = r->vcap ? r->vcap * 2 : 256;
    hs_slice *nk = calloc(nc, sizeof *nk);
    hs_type **nt = calloc(nc, sizeof *nt);
    uint32_t *nb = calloc(nc, sizeof *nb);
    if (!nk || !nt || !nb) {
      free(nk);
      free(nt);
      free(nb);
      return false;
    }
    for (uint32_t i = 0; i < r->vcap; i++) {
      if (!r->vk[i].len) continue;
      uint32_t h = var_hash(r, r->vb[i], r->vk[i].off, r->vk[i].len) & (nc - 1);
      while (nk[h].len) h = (h + 1) & (nc - 1);
      nk[h] = r->vk[i];
      nt[h] = r->vt[i];
      nb[h] = r->vb[i];
    }
    free(r->vk);
    free(r->vt);
    free(r->vb);
    r->vk = nk;
    r->vt = nt;
    r->vb = nb;
    r->vcap = nc;
  }
  uint32_t h = var_hash(r, body, k.off, k.len) & (r->vcap - 1);
  while (r->vk[h].len) {
    if (r->vb[h] == body && r->vk[h].len == k.len && memcmp(r->t + r->vk[h].off, r->t + k.off, k.len) == 0) {
      r->vt[h] = ty;
      return true;
    }
    h = (h + 1) & (r->vcap - 1);
  }
  r->vk[h] = k;
  r->vt[h] = ty;
  r->vb[h] = body;
  r->vcount++;
  return true;
}

/* A variable of `body`, else of the bodies it is nested in. */
static hs_type *var_get(const jr *r, uint32_t body, size_t off, size_t n) {
  if (!r->vcap || !n) return NULL;
  for (int hops = 0; hops < 256; hops++) {
    uint32_t h = var_hash(r, body, off, n) & (r->vcap - 1);
    while (r->vk[h].len) {
      if (r->vb[h] == body && r->vk[h].len == n && memcmp(r->t + r->vk[h].off, r->t + off, n) == 0) return r->vt[h];
      h = (h + 1) & (r->vcap - 1);
    }
    int32_t pe = r->bodies[body].path_eqn;
    if (r->bodies[body].let_name.len || pe < 0) return NULL;
    body = r->eqns[pe].body;
  }
  return NULL;
}

static size_t skip_ws_nl(const char *t, size_t len, size_t p) {
  while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
  return p;
}

/* A jaxpr element type name ("f32", "bf16", "i32", "bool", "f8_e4m3fn") as an HLO element index. */
static int jax_elem(const char *s, size_t n) {
  char buf[32];
  size_t o = 0;
  if (n == 0 || n >= sizeof buf) return -1;
  if (n == 4 && memcmp(s, "bool", 4) == 0) return hs_elem_from_hlo("pred", 4);
  for (size_t i = 0; i < n; i++)
    if (s[i] != '_') buf[o++] = s[i];
  if (buf[0] == 'i') buf[0] = 's'; /* i32 -> s32 */
  return hs_elem_from_hlo(buf, o);
}

/* Reads a jaxpr type at t[*pos] ("f32[64,256]", "bool[]", "key<fry>[]"); NULL when it is not one. */
static hs_type *jax_type(jr *r, size_t *pos, size_t end) {
  const char *t = r->t;
  size_t p = *pos, s = p;
  while (p < end && (jid(t[p]))) p++;
  size_t en = p;
  if (p < end && t[p] == '<') { /* key<fry> */
    int dp = 0;
    for (; p < end; p++) {
      if (t[p] == '<') dp++;
      else if (t[p] == '>' && --dp == 0) {
        p++;
        break;
      }
    }
  }
  if (p >= end || t[p] != '[') return NULL;
  int elem = jax_elem(t + s, en - s);
  int64_t dims[64];
  size_t n = 0;
  p++;
  while (p < end && t[p] != ']') {
    size_t q = p;
    int64_t v = 0;
    bool num = false;
    while (q < end && t[q] >= '0' && t[q] <= '9') {
      v = v * 10 + (t[q] - '0');
      if (v > ((int64_t)1 << 50)) v = (int64_t)1 << 50;
      num = true;
      q++;
    }
    while (q < end && t[q] != ',' && t[q] != ']' && t[q] != '\n') q++; /* "8@x", symbolic dims */
    if (n < 64) dims[n++] = num ? v : -1;
    p = q;
    if (p < end && t[p] == ',') p++;
    if (p < end && t[p] == '\n') return NULL;
  }
  if (p >= end) return NULL;
  p++;
  if (p < end && t[p] == '{') { /* an annotation: f32[32,128]{V:i} */
    int dp = 0;
    for (; p < end && t[p] != '\n'; p++) {
      if (t[p] == '{') dp++;
      else if (t[p] == '}' && --dp == 0) {
        p++;
        break;
      }
    }
  }
  *pos = p;
  hs_type *ty = hs_arena_alloc(&r->c->arena, sizeof *ty);
  if (!ty) return NULL;
  ty->kind = elem >= 0 ? HS_T_ARRAY : HS_T_OPAQUE;
  ty->elem = elem >= 0 ? (uint8_t)elem : 0;
  ty->mem_space = -1;
  ty->n = (uint32_t)n;
  if (n) {
    ty->dims = hs_arena_alloc(&r->c->arena, n * sizeof *ty->dims);
    if (!ty->dims) return NULL;
    memcpy(ty->dims, dims, n * sizeof *dims);
    for (size_t i = 0; i < n; i++)
      if (dims[i] < 0) {
        ty->dyn = hs_arena_alloc(&r->c->arena, n);
        if (!ty->dyn) return NULL;
        for (size_t k = 0; k < n; k++) ty->dyn[k] = dims[k] < 0 ? HS_DIM_UNKNOWN : HS_DIM_STATIC;
        break;
      }
  }
  return ty;
}

static void jr_fail(jr *r, size_t p, const char *what) {
  if (r->stop) return;
  r->stop = true;
  uint32_t line, col;
  hs_line_col(r->t, r->len, p, &line, &col);
  char msg[200];
  if (p >= r->len) {
    snprintf(msg, sizeof msg, "the jaxpr ends in the middle of %s (truncated?): the decisions cover the equations read before line %u",
             what, line);
    hs_dec_warn(r->c, HS_W_TRUNCATED, line, col, msg);
  } else {
    snprintf(msg, sizeof msg, "cannot read %s here: the decisions cover the equations read before line %u", what, line);
    hs_dec_warn(r->c, HS_W_PARTIAL_FORMAT, line, col, msg);
  }
}

/* Binders "a:f32[4] b:i32[]" up to (not including) one of the stop bytes, on any number of lines. */
static size_t read_binders(jr *r, uint32_t body, size_t p, const char *stops, bool stop_at_nl, hs_type **first_out, hs_type **tuple_out,
                           hs_slice *first_name) {
  const char *t = r->t;
  hs_type *el[64];
  size_t n = 0;
  for (;;) {
    while (p < r->len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || (!stop_at_nl && t[p] == '\n'))) p++;
    if (p >= r->len) {
      jr_fail(r, p, "a list of variables");
      return p;
    }
    if (strchr(stops, t[p])) break;
    size_t s = p;
    while (p < r->len && (jid(t[p]) || t[p] == '\'')) p++;
    if (p == s || p >= r->len || t[p] != ':') {
      jr_fail(r, p, "a variable with its type (name:type)");
      return p;
    }
    hs_slice nm = hs_sl((uint32_t)s, (uint32_t)(p - s));
    p++;
    size_t q = p;
    hs_type *ty = jax_type(r, &q, r->len);
    if (!ty) {
      jr_fail(r, q, "a type");
      return q;
    }
    p = q;
    if (first_name && n == 0) *first_name = nm;
    if (n < 64) el[n++] = ty;
    if (!(nm.len == 1 && t[nm.off] == '_') && !var_put(r, body, nm, ty)) {
      r->c->nomem = true;
      r->stop = true;
      return p;
    }
  }
  if (first_out) *first_out = n ? el[0] : NULL;
  if (tuple_out) *tuple_out = n == 1 ? el[0] : n ? hs_make_tuple(&r->c->arena, el, n) : NULL;
  return p;
}

static size_t parse_body(jr *r, size_t p, hs_slice let_name, int32_t parent_eqn);

static bool push_edge(jr *r, uint32_t eqn, int32_t body, hs_slice ref) {
  bool ok;
  jedge *e = HS_VEC_PUSH(r->edges, r->n_edges, r->cap_edges, ok);
  if (!ok) return false;
  e->eqn = eqn;
  e->body = body;
  e->ref = ref;
  return true;
}

/* One equation, from the start of its first binder to the end of its last line. */
static size_t parse_eqn(jr *r, size_t p, uint32_t body) {
  const char *t = r->t;
  size_t start = p;
  hs_type *outs = NULL;
  hs_slice name = {0, 0};
  /* binders, unless the equation has no outputs ("prim[...] args") */
  size_t k = p;
  while (k < r->len && jid(t[k])) k++;
  if (k < r->len && t[k] == ':') {
    p = read_binders(r, body, p, "=", false, NULL, &outs, &name);
    if (r->stop) return p;
    if (p >= r->len || t[p] != '=') {
      jr_fail(r, p, "an equation ('=' after its outputs)");
      return p;
    }
    p = hs_skip_sp(t, r->len, p + 1);
  } else if (k < r->len && t[k] == ' ' && k + 2 < r->len && t[k + 1] == '=' && t[k + 2] == ' ') {
    jr_fail(r, k, "an equation's outputs (name:type)");
    return k;
  }
  size_t ps = p;
  while (p < r->len && (jid(t[p]) || t[p] == '-')) p++;
  if (p == ps) {
    jr_fail(r, p, "an equation's primitive");
    return p;
  }
  bool ok;
  jeqn *e = HS_VEC_PUSH(r->eqns, r->n_eqns, r->cap_eqns, ok);
  if (!ok) {
    r->c->nomem = r->stop = true;
    return p;
  }
  uint32_t ei = r->n_eqns - 1;
  memset(e, 0, sizeof *e);
  e->line = line_of(r->c->d, start);
  e->prim = hs_sl((uint32_t)ps, (uint32_t)(p - ps));
  e->name = name.len ? name : e->prim;
  e->out = outs;
  e->body = body;
  e->cut = true;
  if (p < r->len && t[p] == '[') {
    /* parameters: nested bodies inline, or names of hoisted ones */
    int depth = 0;
    while (p < r->len) {
      char ch = t[p];
      if (ch == '{') {
        size_t q = skip_ws_nl(t, r->len, p + 1);
        if (hs_starts(t, r->len, q, "lambda")) {
          hs_slice none = {0, 0};
          if (!push_edge(r, ei, (int32_t)r->n_bodies, none)) {
            r->c->nomem = r->stop = true;
            return p;
          }
          p = parse_body(r, p, none, (int32_t)ei);
          if (r->stop) return p;
          continue;
        }
        depth++;
      } else if (ch == '[' || ch == '(') {
        depth++;
      } else if (ch == ']' || ch == ')' || ch == '}') {
        if (--depth == 0 && ch == ']') {
          p++;
          break;
        }
      } else if (ch == '=' && p + 1 < r->len && (jid(t[p + 1]))) {
        /* name=value: a bare identifier may name a hoisted jaxpr */
        size_t s = p + 1, q = s;
        while (q < r->len && jid(t[q])) q++;
        bool is_name = p >= 4 && memcmp(t + p - 4, "name", 4) == 0 && (p == 4 || !jid(t[p - 5]));
        if (!is_name && (q >= r->len || t[q] == ' ' || t[q] == '\n' || t[q] == ']' || t[q] == '\r')) {
          if (!push_edge(r, ei, -1, hs_sl((uint32_t)s, (uint32_t)(q - s)))) {
            r->c->nomem = r->stop = true;
            return p;
          }
        }
        p = q;
        continue;
      } else if (ch == '\'' || ch == '"') {
        size_t q = p + 1;
        while (q < r->len && t[q] != ch && t[q] != '\n') q++;
        p = q;
      }
      p++;
    }
    if (p >= r->len && depth > 0) {
      jr_fail(r, p, "an equation's parameters");
      return p;
    }
  }
  e = &r->eqns[ei];
  /* operands: tokens up to the end of the line, the body's "in", or the next equation's binder
   * (a short jaxpr prints several equations on one line) */
  size_t le = p;
  while (le < r->len && t[le] != '\n') le++;
  bool first = true;
  for (;;) {
    p = hs_skip_sp(t, le, p);
    if (p >= le) break;
    size_t s = p, colon = 0;
    while (p < le && t[p] != ' ') {
      if (t[p] == ':' && !colon) colon = p;
      p++;
    }
    if (p - s == 2 && t[s] == 'i' && t[s + 1] == 'n' && p + 1 < le && t[p + 1] == '(') { /* "in (outs) }" */
      p = s;
      e->cut = false;
      return p;
    }
    if (colon && ((t[s] >= 'a' && t[s] <= 'z') || (t[s] >= 'A' && t[s] <= 'Z') || t[s] == '_') &&
        !hs_starts(t, le, s, "True:") && !hs_starts(t, le, s, "False:") && !hs_starts(t, le, s, "inf:") &&
        !hs_starts(t, le, s, "nan:")) {
      /* a binder when an " = " follows on this line */
      bool eq = false;
      for (size_t m = p; m + 2 < le && !eq; m++) eq = t[m] == ' ' && t[m + 1] == '=' && t[m + 2] == ' ';
      if (eq) {
        e->cut = false;
        return s;
      }
    }
    if (first) {
      if (colon) {
        size_t q = colon + 1;
        e->in0 = jax_type(r, &q, p);
      } else {
        e->in0 = var_get(r, body, s, p - s);
      }
      first = false;
    }
  }
  if (le >= r->len) {
    /* the text ends on this equation's line: it may be cut inside its operands */
    jr_fail(r, le, "an equation");
    return le;
  }
  e->cut = false;
  return le + 1;
}

/* "{ lambda C ; I. let EQNS in OUTS }" at t[p] == '{'; returns the index after its '}'. */
static size_t parse_body(jr *r, size_t p, hs_slice let_name, int32_t parent_eqn) {
  const char *t = r->t;
  if (++r->depth > 200) {
    jr_fail(r, p, "a jaxpr nested this deep");
    r->depth--;
    return p;
  }
  bool ok;
  jbody *b = HS_VEC_PUSH(r->bodies, r->n_bodies, r->cap_bodies, ok);
  if (!ok) {
    r->c->nomem = r->stop = true;
    return p;
  }
  uint32_t bi = r->n_bodies - 1;
  memset(b, 0, sizeof *b);
  b->let_name = let_name;
  b->path_eqn = parent_eqn;
  b->first_eqn = r->n_eqns;
  p = skip_ws_nl(t, r->len, p + 1);
  if (!hs_starts(t, r->len, p, "lambda")) {
    jr_fail(r, p, "'{ lambda'");
    goto out;
  }
  p = read_binders(r, bi, p + 6, ";", false, NULL, NULL, NULL);
  if (r->stop) goto out;
  p = read_binders(r, bi, p + 1, ".", false, NULL, NULL, NULL);
  if (r->stop) goto out;
  p = skip_ws_nl(t, r->len, p + 1);
  if (!hs_starts(t, r->len, p, "let")) {
    jr_fail(r, p, "'let' after the inputs of a jaxpr");
    goto out;
  }
  p += 3;
  r->bodies[bi].first_eqn = r->n_eqns;
  for (;;) {
    p = skip_ws_nl(t, r->len, p);
    if (p >= r->len) {
      jr_fail(r, p, "a jaxpr's equations");
      goto out;
    }
    if (hs_starts(t, r->len, p, "in (") || hs_starts(t, r->len, p, "in(")) {
      /* outputs, then the closing brace */
      int depth = 0;
      p += 2;
      while (p < r->len) {
        char ch = t[p];
        if (ch == '(' || ch == '[') depth++;
        else if (ch == ')' || ch == ']') depth--;
        else if (ch == '}' && depth <= 0) break;
        p++;
      }
      if (p >= r->len) {
        jr_fail(r, p, "a jaxpr's outputs");
        goto out;
      }
      p++;
      break;
    }
    p = parse_eqn(r, p, bi);
    if (r->stop) goto out;
  }
out:
  r->bodies[bi].count = r->n_eqns - r->bodies[bi].first_eqn;
  if (r->bodies[bi].count > r->n_eqns) r->bodies[bi].count = 0;
  r->depth--;
  return p;
}

static bool is_remat_prim(const jr *r, hs_slice s) {
  static const char *const names[] = {"remat", "remat2", "checkpoint", "remat_call", "optimization_barrier"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i]);
    if (s.len == n && memcmp(r->t + s.off, names[i], n) == 0) return true;
  }
  return false;
}

static bool prim_is(const jr *r, hs_slice s, const char *lit) {
  size_t n = strlen(lit);
  return s.len == n && memcmp(r->t + s.off, lit, n) == 0;
}

/* Walks bodies in jax's order (each equation, then the bodies its parameters hold, first visit
 * wins) and gives each body its path: the primitives of the equations that hold it. */
static void walk(jr *r, uint32_t bi, const char *path, int depth) {
  jbody *b = &r->bodies[bi];
  b->visited = true;
  free(b->path);
  b->path = path ? hs_dec_dupn(path, strlen(path)) : NULL;
  if (path && !b->path) r->c->nomem = true;
  if (depth > 200) return;
  for (uint32_t i = b->first_eqn; i < b->first_eqn + b->count && i < r->n_eqns; i++) {
    if (r->eqns[i].body != bi) continue; /* equations of bodies nested inside come via their edges */
    for (uint32_t q = r->edge_first[i]; q < r->edge_first[i + 1]; q++) {
      uint32_t k = r->edge_order[q];
      int32_t target = r->edges[k].body;
      if (target < 0) {
        for (uint32_t li = 0; li < r->n_lets; li++) {
          uint32_t m = r->lets[li];
          if (r->bodies[m].let_name.len == r->edges[k].ref.len &&
              memcmp(r->t + r->bodies[m].let_name.off, r->t + r->edges[k].ref.off, r->edges[k].ref.len) == 0) {
            target = (int32_t)m;
            break;
          }
        }
      }
      if (target < 0 || target >= (int32_t)r->n_bodies || r->bodies[target].visited) continue;
      const jeqn *e = &r->eqns[i];
      size_t pl = path ? strlen(path) : 0;
      char *np = malloc(pl + e->prim.len + 2);
      if (!np) {
        r->c->nomem = true;
        return;
      }
      if (pl) memcpy(np, path, pl);
      size_t o = pl;
      if (pl) np[o++] = '/';
      memcpy(np + o, r->t + e->prim.off, e->prim.len);
      np[o + e->prim.len] = 0;
      r->bodies[target].path_eqn = (int32_t)i;
      walk(r, (uint32_t)target, np, depth + 1);
      free(np);
    }
  }
}

void hs_dec_jaxpr(ctx *c) {
  const hs_doc *d = c->d;
  jr r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.t = d->text;
  r.len = d->len;
  size_t p = 0;
  int32_t main_body = -1;
  for (;;) {
    p = skip_ws_nl(r.t, r.len, p);
    if (p >= r.len) break;
    if (hs_starts(r.t, r.len, p, "let ")) {
      size_t s = hs_skip_sp(r.t, r.len, p + 4), q = s;
      while (q < r.len && jid(r.t[q])) q++;
      hs_slice nm = hs_sl((uint32_t)s, (uint32_t)(q - s));
      q = hs_skip_sp(r.t, r.len, q);
      if (q >= r.len || r.t[q] != '=') {
        jr_fail(&r, q, "'let NAME = { lambda ... } in'");
        break;
      }
      q = skip_ws_nl(r.t, r.len, q + 1);
      if (q >= r.len || r.t[q] != '{') {
        jr_fail(&r, q, "a hoisted jaxpr '{ lambda ...'");
        break;
      }
      p = parse_body(&r, q, nm, -1);
      if (r.stop) break;
      p = skip_ws_nl(r.t, r.len, p);
      if (!hs_starts(r.t, r.len, p, "in")) {
        jr_fail(&r, p, "'in' after a hoisted jaxpr");
        break;
      }
      p += 2;
      continue;
    }
    if (r.t[p] == '{') {
      main_body = (int32_t)r.n_bodies;
      hs_slice none = {0, 0};
      p = parse_body(&r, p, none, -1);
      if (!r.stop && skip_ws_nl(r.t, r.len, p) < r.len) jr_fail(&r, skip_ws_nl(r.t, r.len, p), "the end of the jaxpr (text follows its closing brace)");
      break;
    }
    jr_fail(&r, p, "a jaxpr ('{ lambda' or 'let')");
    break;
  }
  /* the edges of each equation, in the order they were read (a stable counting sort) */
  r.lets = malloc(((size_t)r.n_bodies + 1) * sizeof *r.lets);
  if (r.lets)
    for (uint32_t bi = 0; bi < r.n_bodies; bi++)
      if (r.bodies[bi].let_name.len) r.lets[r.n_lets++] = bi;
  r.edge_first = calloc((size_t)r.n_eqns + 2, sizeof *r.edge_first);
  r.edge_order = malloc(((size_t)r.n_edges + 1) * sizeof *r.edge_order);
  if (!r.edge_first || !r.edge_order || !r.lets) {
    c->nomem = true;
    main_body = -1;
    r.n_bodies = 0;
  } else {
    for (uint32_t k = 0; k < r.n_edges; k++) r.edge_first[r.edges[k].eqn + 1]++;
    for (uint32_t i = 0; i < r.n_eqns; i++) r.edge_first[i + 1] += r.edge_first[i];
    uint32_t *fillp = calloc((size_t)r.n_eqns + 1, sizeof *fillp);
    if (!fillp) {
      c->nomem = true;
      main_body = -1;
      r.n_bodies = 0;
    } else {
      for (uint32_t k = 0; k < r.n_edges; k++) {
        uint32_t e = r.edges[k].eqn;
        r.edge_order[r.edge_first[e] + fillp[e]++] = k;
      }
      free(fillp);
    }
  }
  if (main_body >= 0) walk(&r, (uint32_t)main_body, NULL, 0);
  for (uint32_t bi = 0; bi < r.n_bodies; bi++) {
    if (r.bodies[bi].visited) continue;
    /* a hoisted body no equation read here refers to (the text was cut before its user) */
    jbody *b = &r.bodies[bi];
    if (b->let_name.len) {
      char *nm = hs_dec_dupn(r.t + b->let_name.off, b->let_name.len);
      if (!nm) c->nomem = true;
      else walk(&r, bi, nm, 1);
      free(nm);
    }
  }
  for (uint32_t i = 0; i < r.n_eqns && !c->nomem; i++) {
    const jeqn *e = &r.eqns[i];
    if (e->cut) continue;
    const char *path = r.bodies[e->body].path;
    char prim[64];
    size_t pn = e->prim.len < sizeof prim - 1 ? e->prim.len : sizeof prim - 1;
    memcpy(prim, r.t + e->prim.off, pn);
    prim[pn] = 0;
    dec *x = NULL;
    if (prim_is(&r, e->prim, "convert_element_type")) {
      int k = hs_dec_convert_kind(elem_of(e->in0), elem_of(e->out));
      if (k < 0) continue;
      x = hs_dec_add(c, (uint8_t)k, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->from = elem_of(e->in0);
      x->to = elem_of(e->out);
      hs_dec_cast_detail(x, prim, e->in0, e->out);
    } else if (prim_is(&r, e->prim, "broadcast_in_dim")) {
      x = hs_dec_add(c, D_BROADCAST, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->to = elem_of(e->out);
      x->from = e->in0 ? elem_of(e->in0) : x->to;
      hs_dec_shape_detail(x, prim, "broadcasts", e->in0, e->out);
    } else if (prim_is(&r, e->prim, "transpose")) {
      x = hs_dec_add(c, D_TRANSPOSE, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->to = elem_of(e->out);
      x->from = e->in0 ? elem_of(e->in0) : x->to;
      hs_dec_shape_detail(x, prim, "transposes", e->in0, e->out);
    } else if (is_remat_prim(&r, e->prim)) {
      x = hs_dec_add(c, D_REMAT, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      uint32_t inner = 0;
      for (uint32_t b = 0; b < r.n_bodies; b++)
        if (r.bodies[b].path_eqn == (int32_t)i) inner += r.bodies[b].count;
      if (prim_is(&r, e->prim, "optimization_barrier"))
        x->detail = hs_dec_fmt("%s marks recomputation: it keeps XLA from merging the values it holds with the forward pass", prim);
      else
        x->detail = hs_dec_fmt("%s marks recomputation: its body of %u equations is recomputed for the backward pass instead of "
                        "being kept from the forward pass",
                        prim, inner);
    } else {
      continue;
    }
    x->shape = e->out;
    if (path && !(x->path = hs_dec_dupn(path, strlen(path)))) c->nomem = true;
  }
  for (uint32_t bi = 0; bi < r.n_bodies; bi++) free(r.bodies[bi].path);
  free(r.bodies);
  free(r.eqns);
  free(r.edges);
  free(r.vk);
  free(r.vt);
  free(r.vb);
  free(r.edge_first);
  free(r.edge_order);
  free(r.lets);
}
