/* The entry signature of a document: its entry computation's parameter and result types, in HLO
 * form, read from the header line by the type readers (types/): "ENTRY %main (p: c64[8]) ->
 * c64[8] {" and "func.func public @main(%arg0: tensor<8xcomplex<f32>>) -> (tensor<8xcomplex<f32>>)"
 * both give params ["c64[8]"] and results ["c64[8]"]. What pairs a StableHLO text with its HLO
 * (the summary's "params" and "results") is this, not a second reading of the types in JS. */
#include "doc/doc.h"

/* The parameters of the header at t[p] (its '(' somewhere after the name), each the type after a
 * "name:" up to the ')' that closes them; NULL when a type cannot be read. */
static json_t *header_params(hs_arena *a, const char *t, size_t end, size_t p, bool mlir) {
  while (p < end && t[p] != '(' && t[p] != '\n') p++;
  if (p >= end || t[p] != '(') return NULL;
  json_t *out = json_array();
  p++;
  for (;;) {
    while (p < end && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r' || t[p] == ',')) p++;
    if (p >= end) break;
    if (t[p] == ')') return out;
    /* the name, up to its ':' */
    while (p < end && t[p] != ':' && t[p] != ')' && t[p] != '\n') p++;
    if (p >= end || t[p] != ':') break;
    p++;
    size_t q = p;
    hs_type *ty = mlir ? hs_parse_mlir_type(a, t, end, &q) : hs_parse_hlo_shape(a, t, end, &q);
    if (!ty) break;
    json_array_append_new(out, hs_json_type(ty));
    p = q;
    /* attributes after a StableHLO argument: {mhlo.sharding = "..."}, {jax.arg_info = ...} */
    while (p < end && (t[p] == ' ' || t[p] == '\t')) p++;
    if (p < end && t[p] == '{') {
      int depth = 0;
      for (; p < end; p++) {
        if (t[p] == '"') {
          p = hs_skip_string(t, end, p) - 1;
          continue;
        }
        if (t[p] == '{') depth++;
        else if (t[p] == '}' && --depth == 0) {
          p++;
          break;
        }
      }
    }
  }
  json_decref(out);
  return NULL;
}

static json_t *result_list(const hs_type *r) {
  if (!r) return json_null();
  json_t *out = json_array();
  if (r->kind == HS_T_TUPLE)
    for (uint32_t i = 0; i < r->n; i++) json_array_append_new(out, hs_json_type(r->elems[i]));
  else
    json_array_append_new(out, hs_json_type(r));
  return out;
}

void hs_doc_signature_json(const hs_doc *d, json_t *into) {
  json_t *params = NULL, *results = NULL;
  if (d && d->n_modules && d->modules[0].entry >= 0 && (d->format == HS_FORMAT_HLO || d->format == HS_FORMAT_STABLEHLO)) {
    const hs_comp *c = &d->comps[d->modules[0].entry];
    if (c->line >= 1 && c->line <= d->n_lines) {
      hs_arena a;
      memset(&a, 0, sizeof a);
      size_t p = hs_comp_line_off(d, c);
      if (d->format == HS_FORMAT_STABLEHLO) {
        const char *at = memchr(d->text + p, '@', d->len - p);
        p = at ? (size_t)(at - d->text) : d->len;
      }
      params = header_params(&a, d->text, d->len, p, d->format == HS_FORMAT_STABLEHLO);
      hs_arena_free(&a);
    }
    results = result_list(c->result);
  }
  json_object_set_new(into, "params", params ? params : json_null());
  json_object_set_new(into, "results", results ? results : json_null());
}
