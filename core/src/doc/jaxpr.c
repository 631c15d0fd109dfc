/* The jaxpr reader (a pasted `jax.make_jaxpr(f)(x)`, as jax prints it), recursive over jax's
 * grammar: a closed jaxpr "{ lambda CONSTS ; INPUTS . let EQNS in OUTS }", whose equations'
 * parameters may hold further jaxprs (pjit, remat, scan, cond, while): written inline, or hoisted
 * by newer jax as "let NAME = { lambda ... } in" before the top level one and named there.
 *
 * The document: one module; each jaxpr (body) a computation, in the order their braces open: the
 * top level one is the entry, a hoisted one is named by its let, an inline one by the parameter
 * holding it ("jaxpr", "branches"). Each equation is an instruction of its own body at the line
 * where it begins (its wrapped parameters are its continuation lines), named by its first output
 * (no name when it has none), typed by its outputs (a tuple when several) in jax's types with HLO
 * element names (i32 -> s32, bool -> pred). What only a jaxpr has stays out of the shared structs:
 * doc->jaxpr_eqns (per equation: its first operand's type) and doc->jaxpr_bodies (per body: the
 * equation holding it in jax's print order, hence its nesting path). A text cut short, or
 * unreadable from some point, gives the equations read before that point and a warning.
 * This file reads; jaxpr_doc.c builds the document from what was read (jaxpr_reader.h). */
#include <stdio.h>
#include <stdlib.h>

#include "doc/jaxpr_reader.h"

/* "{ lambda ...; ... }" (a closed jaxpr) or "let" (its body). */
int hs_detect_jaxpr(const char *text, size_t len, size_t p) {
  if (hs_starts(text, len, p, "{ lambda") || hs_starts(text, len, p, "{lambda") || hs_starts(text, len, p, "let "))
    return 100;
  return 0;
}

/* A byte of a jaxpr identifier ([A-Za-z0-9_]). */
static inline bool jid(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void oom(jr *r) {
  r->d->nomem = true;
  r->stop = true;
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

/* A variable of `body`, else of the bodies it is written in (a hoisted body sees only its own). */
static hs_type *var_get(const jr *r, uint32_t body, size_t off, size_t n) {
  if (!r->vcap || !n) return NULL;
  for (int hops = 0; hops < 256; hops++) {
    uint32_t h = var_hash(r, body, off, n) & (r->vcap - 1);
    while (r->vk[h].len) {
      if (r->vb[h] == body && r->vk[h].len == n && memcmp(r->t + r->vk[h].off, r->t + off, n) == 0) return r->vt[h];
      h = (h + 1) & (r->vcap - 1);
    }
    int32_t pe = r->bodies[body].scope_eqn;
    if (r->bodies[body].hoisted || pe < 0) return NULL;
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
  if (!o) return -1;
  if (buf[0] == 'i') buf[0] = 's'; /* i32 -> s32 */
  return hs_elem_from_hlo(buf, o);
}

/* Reads a jaxpr type at t[*pos] ("f32[64,256]", "bool[]", "key<fry>[]"); NULL when it is not one
 * (or memory ran out: d->nomem). */
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
  hs_arena *a = &r->d->arena;
  hs_type *ty = hs_arena_alloc(a, sizeof *ty);
  if (!ty) goto nomem;
  ty->kind = elem >= 0 ? HS_T_ARRAY : HS_T_OPAQUE;
  ty->elem = elem >= 0 ? (uint8_t)elem : 0;
  ty->mem_space = -1;
  ty->n = (uint32_t)n;
  if (n) {
    ty->dims = hs_arena_alloc(a, n * sizeof *ty->dims);
    if (!ty->dims) goto nomem;
    memcpy(ty->dims, dims, n * sizeof *dims);
    for (size_t i = 0; i < n; i++)
      if (dims[i] < 0) {
        ty->dyn = hs_arena_alloc(a, n);
        if (!ty->dyn) goto nomem;
        for (size_t k = 0; k < n; k++) ty->dyn[k] = dims[k] < 0 ? HS_DIM_UNKNOWN : HS_DIM_STATIC;
        break;
      }
  }
  return ty;
nomem:
  oom(r);
  return NULL;
}

/* Stops reading at p, saying why: what was read before stays. */
static void jr_fail(jr *r, size_t p, const char *what) {
  if (r->stop) return;
  r->stop = true;
  uint32_t line, col;
  hs_line_col(r->t, r->len, p, &line, &col);
  if (p >= r->len)
    hs_doc_warn(r->d, HS_W_TRUNCATED, line, col,
                "the jaxpr ends in the middle of %s (truncated?): the equations read before line %u are kept", what, line);
  else
    hs_doc_warn(r->d, HS_W_PARTIAL_FORMAT, line, col, "cannot read %s here: the equations read before line %u are kept", what,
                line);
}

/* Binders "a:f32[4] b:i32[]" up to (not including) one of the stop bytes, on any number of lines. */
static size_t read_binders(jr *r, uint32_t body, size_t p, const char *stops, hs_type **tuple_out, hs_slice *first_name) {
  const char *t = r->t;
  hs_type *el[64];
  size_t n = 0;
  for (;;) {
    p = skip_ws_nl(t, r->len, p);
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
      oom(r);
      return p;
    }
  }
  if (tuple_out) {
    *tuple_out = n == 1 ? el[0] : n ? hs_make_tuple(&r->d->arena, el, n) : NULL;
    if (n > 1 && !*tuple_out) oom(r);
  }
  return p;
}

static size_t parse_body(jr *r, size_t p, hs_slice name, bool hoisted, int32_t scope_eqn);

static bool push_edge(jr *r, uint32_t eqn, int32_t body, hs_slice ref) {
  bool ok;
  jedge *e = HS_VEC_PUSH(r->edges, r->n_edges, r->cap_edges, ok);
  if (!ok) return false;
  e->eqn = eqn;
  e->body = body;
  e->ref = ref;
  return true;
}

/* An equation's parameters "[k=v ...]" from t[p] == '[': bodies written inline are read, names
 * that may be hoisted bodies kept as edges. Returns the index after its ']'. */
static size_t read_params(jr *r, size_t p, uint32_t ei) {
  const char *t = r->t;
  size_t start = p;
  hs_slice key = {0, 0}; /* the parameter being read */
  int depth = 0;
  while (p < r->len) {
    char ch = t[p];
    if (ch == '{') {
      size_t q = skip_ws_nl(t, r->len, p + 1);
      if (hs_starts(t, r->len, q, "lambda")) {
        if (!push_edge(r, ei, (int32_t)r->n_bodies, (hs_slice){0, 0})) {
          oom(r);
          return p;
        }
        p = parse_body(r, p, key, false, (int32_t)ei);
        if (r->stop) return p;
        continue;
      }
      depth++;
    } else if (ch == '[' || ch == '(') {
      depth++;
    } else if (ch == ']' || ch == ')' || ch == '}') {
      if (--depth == 0 && ch == ']') return p + 1;
    } else if (ch == '=') {
      size_t ks = p;
      while (ks > start && jid(t[ks - 1])) ks--;
      key = hs_sl((uint32_t)ks, (uint32_t)(p - ks));
      if (p + 1 < r->len && jid(t[p + 1])) {
        /* name=value: a bare identifier may name a hoisted jaxpr */
        size_t s = p + 1, q = s;
        while (q < r->len && jid(t[q])) q++;
        bool is_name = key.len == 4 && memcmp(t + ks, "name", 4) == 0;
        if (!is_name && (q >= r->len || t[q] == ' ' || t[q] == '\n' || t[q] == ']' || t[q] == '\r')) {
          if (!push_edge(r, ei, -1, hs_sl((uint32_t)s, (uint32_t)(q - s)))) {
            oom(r);
            return p;
          }
        }
        p = q;
        continue;
      }
    } else if (ch == '\'' || ch == '"') {
      size_t q = p + 1;
      while (q < r->len && t[q] != ch && t[q] != '\n') q++;
      p = q;
    }
    p++;
  }
  jr_fail(r, p, "an equation's parameters");
  return p;
}

/* One equation, from the start of its first binder to the end of its last operand. */
static size_t parse_eqn(jr *r, size_t p, uint32_t body) {
  const char *t = r->t;
  size_t start = p;
  hs_type *outs = NULL;
  hs_slice name = {0, 0};
  /* binders, unless the equation has no outputs ("prim[...] args") */
  size_t k = p;
  while (k < r->len && jid(t[k])) k++;
  if (k < r->len && t[k] == ':') {
    p = read_binders(r, body, p, "=", &outs, &name);
    if (r->stop) return p;
    p = hs_skip_sp(t, r->len, p + 1); /* after the '=' */
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
    oom(r);
    return p;
  }
  uint32_t ei = r->n_eqns - 1;
  memset(e, 0, sizeof *e);
  e->start = start;
  e->prim = hs_sl((uint32_t)ps, (uint32_t)(p - ps));
  e->name = name;
  e->out = outs;
  e->body = body;
  e->cut = true;
  if (p < r->len && t[p] == '[') {
    p = read_params(r, p, ei);
    if (r->stop) return p;
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
      e->cut = false;
      e->end = s;
      return s;
    }
    if (colon && ((t[s] >= 'a' && t[s] <= 'z') || (t[s] >= 'A' && t[s] <= 'Z') || t[s] == '_') &&
        !hs_starts(t, le, s, "True:") && !hs_starts(t, le, s, "False:") && !hs_starts(t, le, s, "inf:") &&
        !hs_starts(t, le, s, "nan:")) {
      /* a binder when an " = " follows on this line */
      bool eq = false;
      for (size_t m = p; m + 2 < le && !eq; m++) eq = t[m] == ' ' && t[m + 1] == '=' && t[m + 2] == ' ';
      if (eq) {
        e->cut = false;
        e->end = s;
        return s;
      }
    }
    if (first) {
      if (colon) {
        size_t q = colon + 1;
        e->in0 = jax_type(r, &q, p);
        if (r->stop) return p; /* out of memory */
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
  e->end = le;
  return le + 1;
}

/* "{ lambda C ; I. let EQNS in OUTS }" at t[p] == '{'; returns the index after its '}'. */
static size_t parse_body(jr *r, size_t p, hs_slice name, bool hoisted, int32_t scope_eqn) {
  const char *t = r->t;
  if (++r->depth > 200) {
    jr_fail(r, p, "a jaxpr nested this deep");
    r->depth--;
    return p;
  }
  bool ok;
  jbody *b = HS_VEC_PUSH(r->bodies, r->n_bodies, r->cap_bodies, ok);
  if (!ok) {
    oom(r);
    r->depth--;
    return p;
  }
  uint32_t bi = r->n_bodies - 1;
  memset(b, 0, sizeof *b);
  b->name = name;
  b->hoisted = hoisted;
  b->scope_eqn = b->holder = scope_eqn;
  b->parent = -1;
  b->open = p;
  b->first_eqn = r->n_eqns;
  p = skip_ws_nl(t, r->len, p + 1);
  if (!hs_starts(t, r->len, p, "lambda")) {
    jr_fail(r, p, "'{ lambda'");
    goto out;
  }
  p = read_binders(r, bi, p + 6, ";", NULL, NULL);
  if (r->stop) goto out;
  p = read_binders(r, bi, p + 1, ".", NULL, NULL);
  if (r->stop) goto out;
  p = skip_ws_nl(t, r->len, p + 1);
  if (!hs_starts(t, r->len, p, "let")) {
    jr_fail(r, p, "'let' after the inputs of a jaxpr");
    goto out;
  }
  p += 3;
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
      r->bodies[bi].close = p;
      break;
    }
    p = parse_eqn(r, p, bi);
    if (r->stop) goto out;
  }
out:
  r->bodies[bi].within = r->n_eqns - r->bodies[bi].first_eqn;
  r->depth--;
  return p;
}

int hs_parse_jaxpr_text(hs_doc *d, hs_error *err) {
  (void)err;
  const char *t = d->text;
  size_t len = d->len;
  /* the lines first (an equation's line is looked up by offset) */
  for (size_t p = 0; p < len;) {
    const char *nl = memchr(t + p, '\n', len - p);
    size_t le = nl ? (size_t)(nl - t) : len;
    if (!hs_doc_add_line(d, (uint32_t)p, hs_skip_sp(t, le, p) >= le ? HS_LINE_BLANK : HS_LINE_OTHER, 0)) return HS_E_NOMEM;
    p = le + 1;
  }
  jr r;
  memset(&r, 0, sizeof r);
  r.d = d;
  r.t = t;
  r.len = len;
  size_t p = 0;
  int32_t main_body = -1;
  for (;;) {
    p = skip_ws_nl(t, len, p);
    if (p >= len) break;
    if (hs_starts(t, len, p, "let ")) { /* a hoisted body: "let NAME = { lambda ... } in" */
      size_t s = hs_skip_sp(t, len, p + 4), q = s;
      while (q < len && jid(t[q])) q++;
      hs_slice nm = hs_sl((uint32_t)s, (uint32_t)(q - s));
      q = hs_skip_sp(t, len, q);
      if (q >= len || t[q] != '=') {
        jr_fail(&r, q, "'let NAME = { lambda ... } in'");
        break;
      }
      q = skip_ws_nl(t, len, q + 1);
      if (q >= len || t[q] != '{') {
        jr_fail(&r, q, "a hoisted jaxpr '{ lambda ...'");
        break;
      }
      p = parse_body(&r, q, nm, true, -1);
      if (r.stop) break;
      p = skip_ws_nl(t, len, p);
      if (!hs_starts(t, len, p, "in")) {
        jr_fail(&r, p, "'in' after a hoisted jaxpr");
        break;
      }
      p += 2;
      continue;
    }
    if (t[p] == '{') {
      main_body = (int32_t)r.n_bodies;
      p = parse_body(&r, p, hs_sl(0, 0), false, -1);
      if (!r.stop && skip_ws_nl(t, len, p) < len)
        jr_fail(&r, skip_ws_nl(t, len, p), "the end of the jaxpr (text follows its closing brace)");
      break;
    }
    jr_fail(&r, p, "a jaxpr ('{ lambda' or 'let')");
    break;
  }
  int rc = d->nomem ? HS_E_NOMEM : hs_jaxpr_build(&r, main_body);
  free(r.eqns);
  free(r.bodies);
  free(r.edges);
  free(r.edge_first);
  free(r.edge_order);
  free(r.vk);
  free(r.vt);
  free(r.vb);
  return rc;
}
