/* Decisions the framework or the compiler made, in a jaxpr, a StableHLO module or an HLO module:
 * upcasts and downcasts (a convert to a dtype of more or fewer bits), explicit broadcasts,
 * recomputation marks (remat/checkpoint equations, optimization barriers, op_name
 * "rematted_computation"), transposes, and HLO copies that change the layout.
 *
 * StableHLO and HLO are read from the document model (instructions, their result types, resolved
 * operands) plus the text of each instruction's line (operand types, layouts, locations). A jaxpr
 * is read here, from the text, by a small recursive reader: the document's jaxpr reader keeps only
 * one line per equation, while a decision needs the line where an equation begins even when its
 * parameters wrap, the types of its operands, and the nesting path through pjit, remat, scan,
 * cond and while bodies (inline, or hoisted as "let name = { lambda ... } in" by newer jax). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonout.h"

enum { D_UPCAST = 0, D_DOWNCAST, D_BROADCAST, D_REMAT, D_TRANSPOSE, D_LAYOUT_COPY };
static const char *const KIND_NAMES[] = {"upcast", "downcast", "broadcast", "remat", "transpose", "layout_copy"};

typedef struct {
  uint8_t kind;
  uint32_t line, seq;
  const char *name;
  size_t name_len;
  int from, to; /* element type indices, -1 when none */
  const hs_type *shape;
  char *detail, *source, *path; /* malloc'd; source and path may be NULL */
} dec;

typedef struct {
  const hs_doc *d;
  hs_arena arena; /* types made here (jaxpr) */
  dec *v;
  uint32_t n, cap;
  json_t *warnings; /* our own, after the document's */
  bool nomem;
  uint32_t *locs;   /* StableHLO's table lines ("#loc12 = ...") by name: line index + 1 (loc_line) */
  uint32_t loc_cap; /* 0 until the first lookup makes the index */
} ctx;

static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, f);
  vsnprintf(s, (size_t)n + 1, f, ap);
  va_end(ap);
  return s;
}

static char *dupn(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

static void warn(ctx *c, const char *code, uint32_t line, uint32_t col, const char *msg) {
  json_t *o = json_object();
  json_object_set_new(o, "code", json_string(code));
  json_object_set_new(o, "line", json_integer(line));
  json_object_set_new(o, "column", json_integer(col));
  json_object_set_new(o, "message", hs_json_bytes(msg, strlen(msg)));
  json_array_append_new(c->warnings, o);
}

static dec *add(ctx *c, uint8_t kind, uint32_t line, const char *name, size_t name_len) {
  bool ok;
  dec *x = HS_VEC_PUSH(c->v, c->n, c->cap, ok);
  if (!ok) {
    c->nomem = true;
    return NULL;
  }
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->line = line;
  x->seq = c->n - 1;
  x->name = name;
  x->name_len = name_len;
  x->from = x->to = -1;
  return x;
}

static int elem_of(const hs_type *t) { return t && t->kind == HS_T_ARRAY ? t->elem : -1; }
static const char *elem_name(int e) { return e >= 0 ? hs_elem_types[e].hlo : "?"; }

static void type_str(const hs_type *t, char *buf, size_t cap) {
  if (!t) {
    snprintf(buf, cap, "?");
    return;
  }
  hs_type_format(t, buf, cap);
}

/* The kind of a convert from `from` to `to`: upcast, downcast, or -1 (same width, or unknown). */
static int convert_kind(int from, int to) {
  if (from < 0 || to < 0) return -1;
  unsigned a = hs_elem_types[from].bits, b = hs_elem_types[to].bits;
  if (!a || !b || a == b) return -1;
  return b > a ? D_UPCAST : D_DOWNCAST;
}

static void cast_detail(dec *x, const char *op, const hs_type *in, const hs_type *out) {
  char a[128], b[128];
  type_str(in, a, sizeof a);
  type_str(out, b, sizeof b);
  x->detail = fmt("%s carries the value from %s to %s: %u -> %u bits (%s -> %s)", op, elem_name(x->from),
                  elem_name(x->to), hs_elem_types[x->from].bits, hs_elem_types[x->to].bits, a, b);
}

static void shape_detail(dec *x, const char *op, const char *verb, const hs_type *in, const hs_type *out) {
  char a[128], b[128];
  type_str(in, a, sizeof a);
  type_str(out, b, sizeof b);
  if (in)
    x->detail = fmt("%s %s %s into %s", op, verb, a, b);
  else
    x->detail = fmt("%s %s a scalar into %s", op, verb, b);
}

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

static inline bool jid(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
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
    warn(r->c, "HS_W_TRUNCATED", line, col, msg);
  } else {
    snprintf(msg, sizeof msg, "cannot read %s here: the decisions cover the equations read before line %u", what, line);
    warn(r->c, "HS_W_PARTIAL_FORMAT", line, col, msg);
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
  b->path = path ? dupn(path, strlen(path)) : NULL;
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

static void jaxpr_decisions(ctx *c) {
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
      char *nm = dupn(r.t + b->let_name.off, b->let_name.len);
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
      int k = convert_kind(elem_of(e->in0), elem_of(e->out));
      if (k < 0) continue;
      x = add(c, (uint8_t)k, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->from = elem_of(e->in0);
      x->to = elem_of(e->out);
      cast_detail(x, prim, e->in0, e->out);
    } else if (prim_is(&r, e->prim, "broadcast_in_dim")) {
      x = add(c, D_BROADCAST, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->to = elem_of(e->out);
      x->from = e->in0 ? elem_of(e->in0) : x->to;
      shape_detail(x, prim, "broadcasts", e->in0, e->out);
    } else if (prim_is(&r, e->prim, "transpose")) {
      x = add(c, D_TRANSPOSE, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      x->to = elem_of(e->out);
      x->from = e->in0 ? elem_of(e->in0) : x->to;
      shape_detail(x, prim, "transposes", e->in0, e->out);
    } else if (is_remat_prim(&r, e->prim)) {
      x = add(c, D_REMAT, e->line, r.t + e->name.off, e->name.len);
      if (!x) break;
      uint32_t inner = 0;
      for (uint32_t b = 0; b < r.n_bodies; b++)
        if (r.bodies[b].path_eqn == (int32_t)i) inner += r.bodies[b].count;
      if (prim_is(&r, e->prim, "optimization_barrier"))
        x->detail = fmt("%s marks recomputation: it keeps XLA from merging the values it holds with the forward pass", prim);
      else
        x->detail = fmt("%s marks recomputation: its body of %u equations is recomputed for the backward pass instead of "
                        "being kept from the forward pass",
                        prim, inner);
    } else {
      continue;
    }
    x->shape = e->out;
    if (path && !(x->path = dupn(path, strlen(path)))) c->nomem = true;
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

/* ================================================================ HLO and StableHLO ======== */

/* [start, end) of an instruction's text: its line and the continuation lines after it. */
static void instr_span(const hs_doc *d, const hs_instr *in, size_t *s, size_t *e) {
  uint32_t li = in->line - 1;
  *s = d->lines[li].off;
  uint32_t k = li + 1;
  while (k < d->n_lines && d->lines[k].kind == HS_LINE_CONT) k++;
  *e = k < d->n_lines ? d->lines[k].off : d->len;
  while (*e > *s && (d->text[*e - 1] == '\n' || d->text[*e - 1] == '\r')) (*e)--;
}

/* The layout "{1,0}" printed after the first shape at t[p] (the result shape after " = "). */
static bool layout_after(const char *t, size_t e, size_t p, size_t *ls, size_t *ln) {
  while (p < e && t[p] != ']' && t[p] != ' ' && t[p] != '(') p++;
  if (p >= e || t[p] != ']') return false;
  p++;
  if (p >= e || t[p] != '{') return false;
  size_t s = p;
  int dp = 0;
  for (; p < e; p++) {
    if (t[p] == '{') dp++;
    else if (t[p] == '}' && --dp == 0) break;
  }
  if (p >= e) return false;
  *ls = s;
  *ln = p + 1 - s;
  return true;
}

/* The result layout of an HLO instruction: the shape after "= " on its line. */
static bool result_layout(const hs_doc *d, const hs_instr *in, size_t *ls, size_t *ln) {
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *eq = memchr(d->text + s, '=', e - s);
  if (!eq) return false;
  size_t p = hs_skip_sp(d->text, e, (size_t)(eq - d->text) + 1);
  return layout_after(d->text, e, p, ls, ln);
}

/* The position just after the opcode's "(" on an HLO instruction's line, or 0. */
static size_t operands_open(const hs_doc *d, const hs_instr *in) {
  size_t p = in->opcode.off + in->opcode.len;
  return p < d->len && d->text[p] == '(' ? p + 1 : 0;
}

/* The type of an HLO instruction's first operand: the resolved operand's, else the long form's
 * inline "f32[64,256]{1,0} %x". */
static const hs_type *hlo_operand_type(const hs_doc *d, const hs_instr *in, hs_arena *a) {
  if (in->op_count) {
    const hs_operand *o = &d->operands[in->op_first];
    if (o->target >= 0 && d->instrs[o->target].type) return d->instrs[o->target].type;
  }
  size_t p = operands_open(d, in);
  if (!p) return NULL;
  size_t s, e;
  instr_span(d, in, &s, &e);
  if (p < e && d->text[p] != '%') {
    size_t q = p;
    return hs_parse_hlo_shape(a, d->text, e, &q);
  }
  return NULL;
}

static bool operand_layout(const hs_doc *d, const hs_instr *in, size_t *ls, size_t *ln) {
  size_t p = operands_open(d, in);
  size_t s, e;
  instr_span(d, in, &s, &e);
  if (p && p < e && d->text[p] != '%' && layout_after(d->text, e, p, ls, ln)) return true;
  if (in->op_count) {
    const hs_operand *o = &d->operands[in->op_first];
    if (o->target >= 0) return result_layout(d, &d->instrs[o->target], ls, ln);
  }
  return false;
}

/* ---- HLO source locations: source_file/source_line, or stack_frame_id through the tables ---- */
typedef struct {
  /* FileNames, FileLocations (file, line), StackFrames (location) by id; 0 = none */
  hs_slice *files;
  uint32_t n_files;
  uint32_t *loc_file, *loc_line;
  uint32_t n_locs;
  uint32_t *frame_loc;
  uint32_t n_frames;
} frames;

static uint32_t num_after(const char *t, size_t s, size_t e, const char *key) {
  size_t k = strlen(key);
  for (size_t i = s; i + k <= e; i++) {
    if (memcmp(t + i, key, k) == 0 && (i == s || t[i - 1] == ' ' || t[i - 1] == '{')) {
      uint32_t v = 0;
      for (size_t p = i + k; p < e && t[p] >= '0' && t[p] <= '9'; p++) v = v * 10 + (uint32_t)(t[p] - '0');
      return v;
    }
  }
  return 0;
}

static bool grow_u32(uint32_t **a, uint32_t *n, uint32_t id) {
  if (id < *n) return true;
  if (id > 1000000) return false;
  uint32_t nn = id + 1 > *n * 2 ? id + 1 : *n * 2;
  uint32_t *b = realloc(*a, nn * sizeof *b);
  if (!b) return false;
  memset(b + *n, 0, (nn - *n) * sizeof *b);
  *a = b;
  *n = nn;
  return true;
}

static void read_frames(const hs_doc *d, frames *f) {
  memset(f, 0, sizeof *f);
  if (!d->frame_refs) return;
  int table = 0; /* 1 files, 2 locations, 3 frames */
  for (uint32_t li = 0; li < d->n_lines; li++) {
    size_t s = d->lines[li].off, e = li + 1 < d->n_lines ? d->lines[li + 1].off : d->len;
    while (e > s && (d->text[e - 1] == '\n' || d->text[e - 1] == '\r')) e--;
    const char *t = d->text;
    if (d->lines[li].kind != HS_LINE_TABLE) {
      if (d->lines[li].kind == HS_LINE_COMP) break;
      table = 0;
      continue;
    }
    if (hs_starts(t, e, s, "FileNames")) table = 1;
    else if (hs_starts(t, e, s, "FunctionNames")) table = 0;
    else if (hs_starts(t, e, s, "FileLocations")) table = 2;
    else if (hs_starts(t, e, s, "StackFrames")) table = 3;
    else if (table && s < e && t[s] >= '0' && t[s] <= '9') {
      uint32_t id = 0;
      size_t p = s;
      while (p < e && t[p] >= '0' && t[p] <= '9') id = id * 10 + (uint32_t)(t[p++] - '0');
      if (table == 1) {
        const char *q = memchr(t + p, '"', e - p);
        if (!q) continue;
        size_t qs = (size_t)(q - t) + 1, qe = hs_skip_string(t, e, qs - 1);
        uint32_t nf = f->n_files;
        if (id >= nf) {
          if (id > 1000000) continue;
          hs_slice *b = realloc(f->files, (id + 1) * sizeof *b);
          if (!b) continue;
          memset(b + nf, 0, (id + 1 - nf) * sizeof *b);
          f->files = b;
          f->n_files = id + 1;
        }
        f->files[id] = hs_sl((uint32_t)qs, (uint32_t)(qe > qs ? qe - 1 - qs : 0));
      } else if (table == 2) {
        uint32_t n0 = f->n_locs;
        if (!grow_u32(&f->loc_file, &n0, id)) continue;
        n0 = f->n_locs;
        if (!grow_u32(&f->loc_line, &n0, id)) continue;
        f->n_locs = n0;
        f->loc_file[id] = num_after(t, p, e, "file_name_id=");
        f->loc_line[id] = num_after(t, p, e, "line=");
      } else if (table == 3) {
        if (!grow_u32(&f->frame_loc, &f->n_frames, id)) continue;
        f->frame_loc[id] = num_after(t, p, e, "file_location_id=");
      }
    }
  }
}

static void free_frames(frames *f) {
  free(f->files);
  free(f->loc_file);
  free(f->loc_line);
  free(f->frame_loc);
}

static char *hlo_source(const hs_doc *d, const hs_instr *in, const frames *f) {
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *t = d->text;
  for (size_t i = s; i + 13 <= e; i++) {
    if (memcmp(t + i, "source_file=\"", 13) == 0) {
      size_t qs = i + 13, qe = hs_skip_string(t, e, i + 12);
      size_t fn = qe > qs ? qe - 1 - qs : 0;
      uint32_t line = num_after(t, qe, e, "source_line=");
      return line ? fmt("%.*s:%u", (int)fn, t + qs, line) : dupn(t + qs, fn);
    }
  }
  uint32_t fid = num_after(t, s, e, "stack_frame_id=");
  if (fid && fid < f->n_frames) {
    uint32_t loc = f->frame_loc[fid];
    if (loc && loc < f->n_locs) {
      uint32_t file = f->loc_file[loc];
      if (file && file < f->n_files && f->files[file].len)
        return fmt("%.*s:%u", (int)f->files[file].len, t + f->files[file].off, f->loc_line[loc]);
    }
  }
  return NULL;
}

static void hlo_decisions(ctx *c) {
  const hs_doc *d = c->d;
  frames fr;
  read_frames(d, &fr);
  for (uint32_t i = 0; i < d->n_instrs && !c->nomem; i++) {
    const hs_instr *in = &d->instrs[i];
    const char *op = hs_sp(d, in->opcode);
    size_t on = in->opcode.len;
    char opname[32];
    snprintf(opname, sizeof opname, "%.*s", (int)(on < 31 ? on : 31), op);
    dec *x = NULL;
    const hs_type *src = NULL;
    if (hs_slice_is(d, in->opcode, "convert")) {
      src = hlo_operand_type(d, in, &c->arena);
      int k = convert_kind(elem_of(src), elem_of(in->type));
      if (k < 0) continue;
      x = add(c, (uint8_t)k, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->from = elem_of(src);
      x->to = elem_of(in->type);
      cast_detail(x, opname, src, in->type);
    } else if (hs_slice_is(d, in->opcode, "broadcast") || hs_slice_is(d, in->opcode, "transpose")) {
      bool bc = opname[0] == 'b';
      src = hlo_operand_type(d, in, &c->arena);
      x = add(c, bc ? D_BROADCAST : D_TRANSPOSE, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->to = elem_of(in->type);
      x->from = src ? elem_of(src) : x->to;
      shape_detail(x, opname, bc ? "broadcasts" : "transposes", src, in->type);
    } else if (hs_slice_is(d, in->opcode, "copy")) {
      size_t as, an, bs, bn;
      if (!operand_layout(d, in, &as, &an) || !result_layout(d, in, &bs, &bn)) continue;
      if (an == bn && memcmp(d->text + as, d->text + bs, an) == 0) continue;
      x = add(c, D_LAYOUT_COPY, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->from = x->to = elem_of(in->type);
      char b[128];
      type_str(in->type, b, sizeof b);
      x->detail = fmt("copy moves %s from layout %.*s to layout %.*s", b, (int)an, d->text + as, (int)bn, d->text + bs);
    } else if (hs_slice_is(d, in->opcode, "opt-barrier")) {
      x = add(c, D_REMAT, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->detail = fmt("opt-barrier marks recomputation: it keeps XLA from merging the values it holds with the forward pass");
    } else if (hs_hlo_of(d, in)->op_name.len &&
               hs_contains(hs_sp(d, hs_hlo_of(d, in)->op_name), hs_hlo_of(d, in)->op_name.len, "rematted_computation")) {
      hs_slice opn = hs_hlo_of(d, in)->op_name;
      x = add(c, D_REMAT, in->line, hs_sp(d, in->name), in->name.len);
      if (!x) break;
      x->detail = fmt("%s is recomputed for the backward pass: its op_name \"%.*s\" names a rematted_computation", opname,
                      (int)opn.len, hs_sp(d, opn));
    } else {
      continue;
    }
    x->shape = in->type;
    x->source = hlo_source(d, in, &fr);
    if (in->comp < d->n_comps) x->path = dupn(hs_sp(d, d->comps[in->comp].name), d->comps[in->comp].name.len);
  }
  free_frames(&fr);
}

/* ---- StableHLO: the operand type from "(A) -> R"; the location through the #loc table ------ */

static const hs_type *mlir_operand_type(ctx *c, const hs_instr *in) {
  const hs_doc *d = c->d;
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *t = d->text;
  /* the last " : (" on the line: the function type of a pretty or generic op */
  size_t found = 0;
  for (size_t p = s; p + 4 <= e; p++)
    if (t[p] == ' ' && t[p + 1] == ':' && t[p + 2] == ' ' && t[p + 3] == '(') found = p + 4;
  if (!found) return NULL;
  size_t q = found;
  return hs_parse_mlir_type(&c->arena, t, e, &q);
}

/* The name of table line li ("#loc12" of "#loc12 = loc(...)"): its length, or 0. */
static size_t loc_name_len(const hs_doc *d, uint32_t li, size_t *end) {
  size_t s = d->lines[li].off, e = li + 1 < d->n_lines ? d->lines[li + 1].off : d->len, k = 1;
  *end = e;
  if (s >= e || d->text[s] != '#') return 0;
  while (s + k < e && jid(d->text[s + k])) k++;
  return e - s > k + 3 && d->text[s + k] == ' ' && d->text[s + k + 1] == '=' ? k : 0;
}

/* The byte range, after its name, of the table line "#locN = ..." that ref names. The table is
 * indexed by name on the first lookup (the first line of a name wins): a text with thousands of
 * decisions looked each one up in every line. */
static bool loc_line(ctx *c, const char *ref, size_t rn, size_t *ls, size_t *le) {
  const hs_doc *d = c->d;
  size_t e;
  if (!c->loc_cap) {
    uint32_t n = 0, cap = 16;
    for (uint32_t li = 0; li < d->n_lines; li++) n += d->lines[li].kind == HS_LINE_TABLE;
    while (cap < 2u * n) cap <<= 1;
    c->loc_cap = cap;
    c->locs = calloc(cap, sizeof *c->locs);
    for (uint32_t li = 0; c->locs && li < d->n_lines; li++) {
      size_t k = d->lines[li].kind == HS_LINE_TABLE ? loc_name_len(d, li, &e) : 0;
      if (!k) continue;
      const char *name = d->text + d->lines[li].off;
      for (uint32_t h = hs_hash(name, k) & (cap - 1);; h = (h + 1) & (cap - 1)) {
        uint32_t v = c->locs[h];
        if (!v) c->locs[h] = li + 1;
        if (!v || (loc_name_len(d, v - 1, &e) == k && memcmp(d->text + d->lines[v - 1].off, name, k) == 0)) break;
      }
    }
  }
  if (!c->locs) return false; /* out of memory: no source */
  for (uint32_t h = hs_hash(ref, rn) & (c->loc_cap - 1);; h = (h + 1) & (c->loc_cap - 1)) {
    uint32_t v = c->locs[h];
    if (!v) return false;
    size_t s = d->lines[v - 1].off;
    if (loc_name_len(d, v - 1, &e) == rn && memcmp(d->text + s, ref, rn) == 0) {
      *ls = s + rn;
      *le = e;
      return true;
    }
  }
}

/* "file":L:C inside [s, e), following #locN references (at most 8 hops, and at most *budget
 * table lines in all: a line naming several #locs that each name several more would otherwise
 * cost their product, up to the 8th power; fuzz_decisions found a 1.3 KB text taking 0.8 s). */
#define LOC_LINES_PER_SOURCE 16
static char *mlir_source(ctx *c, size_t s, size_t e, int hops, int *budget) {
  const char *t = c->d->text;
  for (size_t p = s; p < e; p++) {
    if (t[p] == '"') {
      size_t q = hs_skip_string(t, e, p);
      if (q < e && t[q] == ':' && q + 1 < e && t[q + 1] >= '0' && t[q + 1] <= '9') {
        uint32_t line = 0;
        for (size_t k = q + 1; k < e && t[k] >= '0' && t[k] <= '9'; k++) line = line * 10 + (uint32_t)(t[k] - '0');
        return fmt("%.*s:%u", (int)(q - 1 - (p + 1)), t + p + 1, line);
      }
      p = q - 1;
      continue;
    }
    if (t[p] == '#' && hs_starts(t, e, p, "#loc") && hops < 8) {
      size_t q = p + 4;
      while (q < e && jid(t[q])) q++;
      size_t ls, le;
      if (*budget <= 0) return NULL;
      (*budget)--;
      if (loc_line(c, t + p, q - p, &ls, &le)) {
        char *r = mlir_source(c, ls, le, hops + 1, budget);
        if (r) return r;
      }
      p = q - 1;
    }
  }
  return NULL;
}

static char *stablehlo_source(ctx *c, const hs_instr *in) {
  const hs_doc *d = c->d;
  size_t s, e;
  instr_span(d, in, &s, &e);
  const char *t = d->text;
  /* the trailing loc(...) */
  for (size_t p = e; p > s + 4; p--) {
    if (memcmp(t + p - 4, "loc(", 4) == 0) {
      int budget = LOC_LINES_PER_SOURCE;
      return mlir_source(c, p, e, 0, &budget);
    }
  }
  return NULL;
}

static void stablehlo_decisions(ctx *c) {
  const hs_doc *d = c->d;
  for (uint32_t i = 0; i < d->n_instrs && !c->nomem; i++) {
    const hs_instr *in = &d->instrs[i];
    hs_slice op = in->opcode;
    if (op.len > 10 && memcmp(hs_sp(d, op), "stablehlo.", 10) == 0) op = hs_sl(op.off + 10, op.len - 10);
    else if (op.len > 4 && memcmp(hs_sp(d, op), "mhlo.", 5) == 0) op = hs_sl(op.off + 5, op.len - 5);
    else continue;
    char opname[48];
    snprintf(opname, sizeof opname, "%.*s", (int)(in->opcode.len < 47 ? in->opcode.len : 47), hs_sp(d, in->opcode));
    const hs_type *src = NULL;
    dec *x = NULL;
    hs_slice nm = in->name;
    if (nm.len && nm.off > 0 && d->text[nm.off - 1] == '%') nm = hs_sl(nm.off - 1, nm.len + 1);
    if (hs_slice_is(d, op, "convert")) {
      src = mlir_operand_type(c, in);
      int k = convert_kind(elem_of(src), elem_of(in->type));
      if (k < 0) continue;
      x = add(c, (uint8_t)k, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->from = elem_of(src);
      x->to = elem_of(in->type);
      cast_detail(x, opname, src, in->type);
    } else if (hs_slice_is(d, op, "broadcast_in_dim") || hs_slice_is(d, op, "broadcast") ||
               hs_slice_is(d, op, "transpose")) {
      bool bc = d->text[op.off] == 'b';
      src = mlir_operand_type(c, in);
      x = add(c, bc ? D_BROADCAST : D_TRANSPOSE, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->to = elem_of(in->type);
      x->from = src ? elem_of(src) : x->to;
      shape_detail(x, opname, bc ? "broadcasts" : "transposes", src, in->type);
    } else if (hs_slice_is(d, op, "optimization_barrier")) {
      x = add(c, D_REMAT, in->line, hs_sp(d, nm), nm.len);
      if (!x) break;
      x->detail = fmt("%s marks recomputation: it keeps XLA from merging the values it holds with the forward pass", opname);
    } else {
      continue;
    }
    x->shape = in->type;
    x->source = stablehlo_source(c, in);
    if (in->comp < d->n_comps && d->n_comps) x->path = dupn(hs_sp(d, d->comps[in->comp].name), d->comps[in->comp].name.len);
  }
}

/* ================================================================ output ==================== */

static int by_line(const void *a, const void *b) {
  const dec *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *hs_decisions_json(const hs_doc *doc, size_t *len) {
  if (!doc) return NULL;
  ctx c;
  memset(&c, 0, sizeof c);
  c.d = doc;
  c.warnings = json_array();
  if (doc->format == HS_FORMAT_JAXPR) jaxpr_decisions(&c);
  else if (doc->format == HS_FORMAT_STABLEHLO) stablehlo_decisions(&c);
  else if (doc->format == HS_FORMAT_HLO) hlo_decisions(&c);
  json_t *o = NULL;
  if (!c.nomem) {
    if (c.n) qsort(c.v, c.n, sizeof *c.v, by_line);
    o = json_object();
    json_object_set_new(o, "format", json_string(hs_format_name(doc->format)));
    json_t *a = json_array();
    for (uint32_t i = 0; i < c.n; i++) {
      const dec *x = &c.v[i];
      json_t *e = json_object();
      json_object_set_new(e, "kind", json_string(KIND_NAMES[x->kind]));
      json_object_set_new(e, "line", json_integer(x->line));
      json_object_set_new(e, "name", hs_json_bytes(x->name, x->name_len));
      json_object_set_new(e, "from", x->from >= 0 ? json_string(hs_elem_types[x->from].hlo) : json_null());
      json_object_set_new(e, "to", x->to >= 0 ? json_string(hs_elem_types[x->to].hlo) : json_null());
      json_object_set_new(e, "shape", hs_json_type(x->shape));
      json_object_set_new(e, "detail", x->detail ? hs_json_bytes(x->detail, strlen(x->detail)) : json_string(""));
      json_object_set_new(e, "source", x->source ? hs_json_bytes(x->source, strlen(x->source)) : json_null());
      json_object_set_new(e, "path", x->path ? hs_json_bytes(x->path, strlen(x->path)) : json_string(""));
      json_array_append_new(a, e);
    }
    json_object_set_new(o, "decisions", a);
    json_t *w = hs_warnings_json(doc->warnings, doc->n_warnings);
    json_array_extend(w, c.warnings);
    json_object_set_new(o, "warnings", w);
  }
  for (uint32_t i = 0; i < c.n; i++) {
    free(c.v[i].detail);
    free(c.v[i].source);
    free(c.v[i].path);
  }
  free(c.v);
  free(c.locs);
  json_decref(c.warnings);
  hs_arena_free(&c.arena);
  return o ? hs_json_finish(o, len) : NULL;
}
