/* Is a StableHLO (or HLO) text and an optimized HLO the same program? The evidence both texts
 * carry: the module name (`module @jit_f` / `HloModule jit_f`) and the entry signature as
 * doc/signature.c reads it with the core's type readers (so MLIR's signless `i8` is HLO's `s8`,
 * `complex<f32>` is `c64`, and layouts and `/ *index=5* /` comments never count).
 * A different module name or signature says "different"; the same element types with other
 * shapes (a partitioned module's per-device shapes) do not; nothing to compare says unknown.
 * The x-ray carries it as "pair" (hs_xray_json); the pages show it, they do not re-derive it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analyses.h"

/* A side's parameter or result types in HLO form (hs_doc_signature_json), or NULL. */
static json_t *sig_list(json_t *sig, const char *key) {
  json_t *l = json_object_get(sig, key);
  return json_is_array(l) ? l : NULL;
}

/* "f32[8], s8[4]" (or "none") into buf */
static void list_words(json_t *l, char *buf, size_t cap) {
  size_t at = 0, n = json_array_size(l);
  buf[0] = 0;
  if (!n) snprintf(buf, cap, "none");
  for (size_t i = 0; i < n && at + 8 < cap; i++) {
    int w = snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", json_string_value(json_array_get(l, i)));
    at += w > 0 && (size_t)w < cap - at ? (size_t)w : cap - at - 1;
  }
}

/* 0: equal; 1: the same element types and ranks, other shapes; 2: different */
static int compare_lists(hs_arena *a, json_t *x, json_t *y) {
  size_t n = json_array_size(x);
  if (n != json_array_size(y)) return 2;
  int worst = 0;
  for (size_t i = 0; i < n; i++) {
    const char *sx = json_string_value(json_array_get(x, i)), *sy = json_string_value(json_array_get(y, i));
    if (!sx || !sy) return 2;
    if (strcmp(sx, sy) == 0) continue;
    size_t px = 0, py = 0;
    const hs_type *tx = hs_parse_hlo_shape(a, sx, strlen(sx), &px), *ty = hs_parse_hlo_shape(a, sy, strlen(sy), &py);
    if (!tx || !ty || tx->kind != ty->kind || (tx->kind == HS_T_ARRAY && (tx->elem != ty->elem || tx->n != ty->n))) return 2;
    if (!hs_type_equal(tx, ty)) worst = 1;
  }
  return worst;
}

json_t *hs_pair_json(const hs_doc *a, const hs_doc *b) {
  json_t *o = json_object();
  json_t *same = json_array(), *diff = json_array();
  char msg[1200];
  hs_slice ma = a && a->n_modules ? a->modules[0].name : hs_sl(0, 0);
  hs_slice mb = b && b->n_modules ? b->modules[0].name : hs_sl(0, 0);
  if (ma.len && mb.len) {
    int lx = (int)ma.len, ly = (int)mb.len;
    const char *sx = hs_sp(a, ma), *sy = hs_sp(b, mb);
    bool eq = lx == ly && memcmp(sx, sy, (size_t)lx) == 0;
    if (eq) snprintf(msg, sizeof msg, "both are module %.*s", lx, sx);
    else snprintf(msg, sizeof msg, "module %.*s vs %.*s", lx, sx, ly, sy);
    json_array_append_new(eq ? same : diff, json_string(msg));
  }
  if (a && b) {
    json_t *sa = json_object(), *sb = json_object();
    hs_doc_signature_json(a, sa);
    hs_doc_signature_json(b, sb);
    hs_arena arena = {0};
    for (int k = 0; k < 2; k++) {
      const char *key = k ? "results" : "params", *what = k ? "results" : "parameters";
      json_t *lx = sig_list(sa, key), *ly = sig_list(sb, key);
      if (!lx || !ly) continue;
      char wx[500], wy[500];
      list_words(lx, wx, sizeof wx);
      int c = compare_lists(&arena, lx, ly);
      if (c == 0) snprintf(msg, sizeof msg, "the same %s (%s)", what, wx);
      else if (c == 1) snprintf(msg, sizeof msg, "%s of the same element types, other shapes (partitioned?)", what);
      else {
        list_words(ly, wy, sizeof wy);
        snprintf(msg, sizeof msg, "%s (%s) vs (%s)", what, wx, wy);
      }
      json_array_append_new(c == 2 ? diff : same, json_string(msg));
    }
    hs_arena_free(&arena);
    json_decref(sa);
    json_decref(sb);
  }
  bool d = json_array_size(diff) > 0, s = json_array_size(same) > 0;
  json_object_set_new(o, "same_program", d ? json_false() : s ? json_true() : json_null());
  json_object_set_new(o, "evidence", d ? diff : same);
  json_decref(d ? same : diff);
  return o;
}
