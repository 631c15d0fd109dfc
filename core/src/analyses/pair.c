/* Is a StableHLO (or HLO) text and an optimized HLO the same program? The evidence both texts
 * carry: the module name (`module @jit_f` / `HloModule jit_f`) and the entry signature, read
 * with the core's own type readers (so MLIR's signless `i8` is HLO's `s8`, `complex<f32>` is
 * `c64`, and layouts and `/ *index=5* /` comments never count): HLO's
 * `entry_computation_layout={(params)->result}`, StableHLO's `func.func public @main(...) -> ...`.
 * A different module name or signature says "different"; the same element types with other
 * shapes (a partitioned module's per-device shapes) do not; nothing to compare says unknown.
 * The x-ray carries it as "pair" (hs_xray_json); the pages show it, they do not re-derive it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analyses.h"

#define SIG_MAX 256 /* parameters or results kept per side; more are compared as "more" */

typedef struct {
  hs_slice module; /* len 0: none */
  bool has_sig;
  uint32_t n_params, n_results;
  const hs_type *params[SIG_MAX], *results[SIG_MAX];
} evidence;

/* The line's bytes [off, end of line). */
static size_t line_end(const hs_doc *d, size_t off) {
  const char *nl = memchr(d->text + off, '\n', d->len - off);
  return nl ? (size_t)(nl - d->text) : d->len;
}

/* A type list: a tuple's elements, or the one type. */
static uint32_t flatten(const hs_type *t, const hs_type **out) {
  if (!t) return 0;
  if (t->kind != HS_T_TUPLE) {
    out[0] = t;
    return 1;
  }
  uint32_t n = t->n < SIG_MAX ? t->n : SIG_MAX;
  for (uint32_t i = 0; i < n; i++) out[i] = t->elems[i];
  return n;
}

static void hlo_evidence(const hs_doc *d, hs_arena *a, evidence *ev) {
  if (!d->n_modules) return;
  const hs_module *m = &d->modules[0];
  ev->module = m->name;
  if (!m->line || m->line > d->n_lines) return;
  size_t p = d->lines[m->line - 1].off, end = line_end(d, p);
  static const char key[] = "entry_computation_layout={";
  const char *k = NULL;
  for (size_t q = p; q + sizeof key - 1 <= end; q++)
    if (d->text[q] == 'e' && memcmp(d->text + q, key, sizeof key - 1) == 0) {
      k = d->text + q;
      break;
    }
  if (!k) return;
  size_t pos = (size_t)(k - d->text) + sizeof key - 1;
  const hs_type *params = hs_parse_hlo_shape(a, d->text, end, &pos); /* "(p0, p1)" reads as a tuple */
  pos = hs_skip_sp(d->text, end, pos);
  if (!params || params->kind != HS_T_TUPLE || pos + 2 > end || memcmp(d->text + pos, "->", 2) != 0) return;
  pos = hs_skip_sp(d->text, end, pos + 2);
  const hs_type *res = hs_parse_hlo_shape(a, d->text, end, &pos);
  if (!res) return;
  ev->n_params = flatten(params, ev->params);
  ev->n_results = flatten(res, ev->results);
  ev->has_sig = true;
}

/* Past a balanced (), {}, <> or [] group starting at p (strings skipped), or end. */
static size_t skip_group(const char *t, size_t end, size_t p) {
  int depth = 0;
  for (; p < end; p++) {
    char c = t[p];
    if (c == '"') {
      for (p++; p < end && t[p] != '"'; p++)
        if (t[p] == '\\') p++;
    } else if (c == '(' || c == '{' || c == '[' || c == '<') depth++;
    else if (c == ')' || c == '}' || c == ']' || c == '>') {
      if (--depth <= 0) return p + 1;
    }
  }
  return end;
}

/* One type of a signature at p, then its attributes `{...}` and `loc(...)`; NULL when no type. */
static const hs_type *sig_type(hs_arena *a, const char *t, size_t end, size_t *p) {
  size_t q = hs_skip_sp(t, end, *p);
  const hs_type *ty = hs_parse_mlir_type(a, t, end, &q);
  if (!ty) return NULL;
  for (;;) {
    q = hs_skip_sp(t, end, q);
    if (q < end && t[q] == '{') q = skip_group(t, end, q);
    else if (q + 4 <= end && memcmp(t + q, "loc(", 4) == 0) q = skip_group(t, end, q + 3);
    else break;
  }
  *p = q;
  return ty;
}

static void stablehlo_evidence(const hs_doc *d, hs_arena *a, evidence *ev) {
  if (d->n_modules) ev->module = d->modules[0].name;
  const hs_comp *f = NULL;
  for (uint32_t i = 0; i < d->n_comps && !f; i++) {
    const hs_comp *c = &d->comps[i];
    if (c->name.len == 4 && memcmp(d->text + c->name.off, "main", 4) == 0) f = c;
  }
  if (!f || !f->line || f->line > d->n_lines) return;
  const char *t = d->text;
  size_t p = d->lines[f->line - 1].off, end = d->len;
  const char *at = NULL;
  for (size_t q = p; q + 6 <= end && t[q] != '\n'; q++)
    if (memcmp(t + q, "@main(", 6) == 0) {
      at = t + q;
      break;
    }
  if (!at) return;
  p = (size_t)(at - t) + 6;
  /* parameters: "%arg0: TYPE {attrs} loc(...), ..." up to ')' */
  for (;;) {
    p = hs_skip_sp(t, end, p);
    while (p < end && t[p] == '\n') p = hs_skip_sp(t, end, p + 1);
    if (p < end && t[p] == ')') break;
    if (p >= end || t[p] != '%') return;
    while (p < end && t[p] != ':' && t[p] != ')' && t[p] != '\n') p++;
    if (p >= end || t[p] != ':') return;
    p++;
    const hs_type *ty = sig_type(a, t, end, &p);
    if (!ty) return;
    if (ev->n_params < SIG_MAX) ev->params[ev->n_params++] = ty;
    p = hs_skip_sp(t, end, p);
    if (p < end && t[p] == ',') p++;
  }
  p = hs_skip_sp(t, end, p + 1);
  if (p + 2 <= end && memcmp(t + p, "->", 2) == 0) {
    p = hs_skip_sp(t, end, p + 2);
    if (p < end && t[p] == '(') {
      p++;
      for (;;) {
        p = hs_skip_sp(t, end, p);
        if (p < end && t[p] == ')') break;
        const hs_type *ty = sig_type(a, t, end, &p);
        if (!ty) return;
        if (ev->n_results < SIG_MAX) ev->results[ev->n_results++] = ty;
        p = hs_skip_sp(t, end, p);
        if (p < end && t[p] == ',') p++;
      }
    } else {
      const hs_type *ty = sig_type(a, t, end, &p);
      if (!ty) return;
      ev->results[ev->n_results++] = ty;
    }
  }
  ev->has_sig = true;
}

static void read_evidence(const hs_doc *d, hs_arena *a, evidence *ev) {
  memset(ev, 0, sizeof *ev);
  if (!d) return;
  if (d->format == HS_FORMAT_HLO) hlo_evidence(d, a, ev);
  else if (d->format == HS_FORMAT_STABLEHLO) stablehlo_evidence(d, a, ev);
}

/* "f32[8], s8[4]" (or "none") into buf */
static void list_words(const hs_type *const *ts, uint32_t n, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = 0;
  if (!n) snprintf(buf, cap, "none");
  for (uint32_t i = 0; i < n && at + 8 < cap; i++) {
    if (i) at += (size_t)snprintf(buf + at, cap - at, ", ");
    if (at >= cap) break;
    size_t w = hs_type_format(ts[i], buf + at, cap - at);
    at += w < cap - at ? w : cap - at - 1;
  }
}

/* 0: equal; 1: the same element types, other shapes; 2: different */
static int compare_lists(const hs_type *const *x, uint32_t nx, const hs_type *const *y, uint32_t ny) {
  if (nx != ny) return 2;
  bool all = true;
  for (uint32_t i = 0; i < nx; i++) {
    if (hs_type_equal(x[i], y[i])) continue;
    all = false;
    if (x[i]->kind != y[i]->kind || (x[i]->kind == HS_T_ARRAY && (x[i]->elem != y[i]->elem || x[i]->n != y[i]->n))) return 2;
  }
  return all ? 0 : 1;
}

json_t *hs_pair_json(const hs_doc *a, const hs_doc *b) {
  hs_arena arena = {0};
  evidence *x = calloc(2, sizeof *x);
  json_t *o = json_object();
  json_t *same = json_array(), *diff = json_array();
  if (!x) {
    json_object_set_new(o, "same_program", json_null());
    json_object_set_new(o, "evidence", same);
    json_decref(diff);
    return o;
  }
  evidence *y = x + 1;
  read_evidence(a, &arena, x);
  read_evidence(b, &arena, y);
  char msg[1200];
  if (x->module.len && y->module.len) {
    int lx = (int)x->module.len, ly = (int)y->module.len;
    const char *sx = a->text + x->module.off, *sy = b->text + y->module.off;
    if (lx == ly && memcmp(sx, sy, (size_t)lx) == 0) snprintf(msg, sizeof msg, "both are module %.*s", lx, sx);
    else snprintf(msg, sizeof msg, "module %.*s vs %.*s", lx, sx, ly, sy);
    json_array_append_new(lx == ly && memcmp(sx, sy, (size_t)lx) == 0 ? same : diff, json_string(msg));
  }
  if (x->has_sig && y->has_sig) {
    for (int k = 0; k < 2; k++) {
      const char *what = k ? "results" : "parameters";
      const hs_type *const *lx = k ? x->results : x->params, *const *ly = k ? y->results : y->params;
      uint32_t nx = k ? x->n_results : x->n_params, ny = k ? y->n_results : y->n_params;
      char wx[500], wy[500];
      list_words(lx, nx, wx, sizeof wx);
      int c = compare_lists(lx, nx, ly, ny);
      if (c == 0) snprintf(msg, sizeof msg, "the same %s (%s)", what, wx);
      else if (c == 1) snprintf(msg, sizeof msg, "%s of the same element types, other shapes (partitioned?)", what);
      else {
        list_words(ly, ny, wy, sizeof wy);
        snprintf(msg, sizeof msg, "%s (%s) vs (%s)", what, wx, wy);
      }
      json_array_append_new(c == 2 ? diff : same, json_string(msg));
    }
  }
  bool d = json_array_size(diff) > 0, s = json_array_size(same) > 0;
  json_object_set_new(o, "same_program", d ? json_false() : s ? json_true() : json_null());
  json_object_set_new(o, "evidence", d ? diff : same);
  json_decref(d ? same : diff);
  free(x);
  hs_arena_free(&arena);
  return o;
}
