/* Element types (types.c) and entry signatures (doc/signature.c), held against jaxlib:
 *   - every member of jaxlib's PrimitiveType enum, in every jax version we pin, as XLA's shape
 *     printer and HLO parser wrote it and as jax lowers its dtype to MLIR (MLIR's parser printed it
 *     back): tests/oracle/types/element_types.json, written by make_element_types.py beside it, so
 *     this test runs without jax. Each round-trips through both readers, alone and inside a
 *     document (token and opaque in HLO only: StableHLO has no tensor of them);
 *   - our own complex captures (fixtures/types/, fixtures/capture/capture_types.py): the StableHLO
 *     and the HLO of each program have the same module and entry signature, and f64 -> c128 is not
 *     an upcast; the shared A100 jit_fft module reads as c64 throughout. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "types/types.h"
#define TU_WITH_DIRENT
#include "testutil.h"

/* "f8e4m3fn[2,3]{1,0}" -> "f8e4m3fn[2,3]" */
static void strip_layout(const char *s, char *out, size_t cap) {
  snprintf(out, cap, "%s", s);
  char *b = strchr(out, ']');
  if (b) b[1] = 0;
}

static json_t *oracle(void) {
  char path[2048];
  size_t len = 0;
  char *s = tu_read(tu_oracle(path, sizeof path, "types", "element_types.json"), &len);
  assert_non_null(s);
  json_t *j = tu_json(s);
  assert_non_null(j);
  return j;
}

static json_t *summary_of(const char *text) {
  hs_error err;
  hs_doc *d = hs_parse(text, strlen(text), &err);
  if (!d) fail_msg("hs_parse: %s (%u:%u) on\n%s", err.message, err.line, err.col, text);
  json_t *j = tu_json(hs_summary_json(d, NULL));
  hs_doc_free(d);
  assert_non_null(j);
  return j;
}

static void expect_one(json_t *list, const char *want, const char *what) {
  if (!json_is_array(list) || json_array_size(list) != 1 || !json_is_string(json_array_get(list, 0)) ||
      strcmp(json_string_value(json_array_get(list, 0)), want) != 0) {
    char *s = json_dumps(list, JSON_COMPACT | JSON_ENCODE_ANY);
    fail_msg("%s: %s, want [\"%s\"]", what, s ? s : "null", want);
  }
}

/* one HLO shape: parsed, printed back without its layout */
static void hlo_round_trip(const char *text, const char *want, int kind) {
  hs_arena a;
  memset(&a, 0, sizeof a);
  size_t pos = 0;
  hs_type *t = hs_parse_hlo_shape(&a, text, strlen(text), &pos);
  if (!t) fail_msg("HLO reader refused %s", text);
  char buf[128];
  hs_type_format(t, buf, sizeof buf);
  if (strcmp(buf, want) != 0 || t->kind != kind) fail_msg("HLO %s read as %s (kind %d)", text, buf, t->kind);
  assert_int_equal(pos, strlen(text));
  hs_arena_free(&a);
}

static void mlir_round_trip(const char *text, const char *want) {
  hs_arena a;
  memset(&a, 0, sizeof a);
  size_t pos = 0;
  hs_type *t = hs_parse_mlir_type(&a, text, strlen(text), &pos);
  if (!t) fail_msg("MLIR reader refused %s", text);
  char buf[128];
  hs_type_format(t, buf, sizeof buf);
  if (strcmp(buf, want) != 0) fail_msg("MLIR %s read as %s, want %s", text, buf, want);
  assert_int_equal(pos, strlen(text));
  hs_arena_free(&a);
}

static void test_every_primitive_type(void **state) {
  (void)state;
  json_t *o = oracle();
  json_t *versions = json_object_get(o, "versions");
  assert_true(json_object_size(versions) >= 1);
  const char *ver;
  json_t *v;
  size_t checked = 0, mlir_checked = 0;
  bool saw_f6 = false, saw_token = false, saw_opaque = false;
  json_object_foreach(versions, ver, v) {
    json_t *types = json_object_get(v, "types"), *e;
    size_t i;
    assert_true(json_array_size(types) >= 20);
    json_array_foreach(types, i, e) {
      const char *prim = json_string_value(json_object_get(e, "primitive"));
      const char *hlo = json_string_value(json_object_get(e, "hlo"));
      const char *printed = json_string_value(json_object_get(e, "xla_printed"));
      assert_non_null(prim);
      assert_non_null(hlo);
      if (!printed) fail_msg("jax %s: XLA's parser refused %s (%s)", ver, hlo,
                             json_string_value(json_object_get(e, "xla_error")));
      int kind = strcmp(prim, "TOKEN") == 0 ? HS_T_TOKEN : strcmp(prim, "OPAQUE_TYPE") == 0 ? HS_T_OPAQUE : HS_T_ARRAY;
      saw_token |= kind == HS_T_TOKEN;
      saw_opaque |= kind == HS_T_OPAQUE;
      saw_f6 |= strncmp(prim, "F6", 2) == 0;
      char want[128];
      strip_layout(hlo, want, sizeof want);
      hlo_round_trip(hlo, want, kind);
      hlo_round_trip(printed, want, kind);
      /* the element name is the enum's, lower case (OPAQUE_TYPE prints as opaque) */
      char name[64];
      size_t k = 0;
      for (; prim[k] && prim[k] != '_' && k + 1 < sizeof name; k++) name[k] = (char)(prim[k] | 0x20);
      name[k] = 0;
      assert_int_equal(strncmp(want, name, strlen(name)), 0);
      /* inside a document: the entry's parameter and result */
      char doc[512];
      snprintf(doc, sizeof doc, "HloModule m\n\nENTRY %%e (p0: %s) -> %s {\n  ROOT %%p0 = %s parameter(0)\n}\n", hlo, hlo, hlo);
      json_t *s = summary_of(doc);
      expect_one(json_object_get(s, "params"), want, hlo);
      expect_one(json_object_get(s, "results"), want, hlo);
      json_decref(s);
      checked++;
      const char *tensor = json_string_value(json_object_get(e, "tensor"));
      if (kind != HS_T_ARRAY) {
        assert_null(tensor); /* HLO only */
        continue;
      }
      assert_non_null(tensor);
      mlir_round_trip(tensor, want);
      /* MLIR's parser printed "(tensor<2x3xT>) -> tensor<2x3xT>": read its argument back */
      const char *fty = json_string_value(json_object_get(e, "mlir_printed"));
      assert_non_null(fty);
      char arg[256];
      snprintf(arg, sizeof arg, "%s", fty + 1);
      char *close = strstr(arg, ") ->");
      assert_non_null(close);
      *close = 0;
      mlir_round_trip(arg, want);
      snprintf(doc, sizeof doc,
               "module @m {\n  func.func public @main(%%arg0: %s) -> (%s) {\n    return %%arg0 : %s\n  }\n}\n", tensor,
               tensor, tensor);
      s = summary_of(doc);
      expect_one(json_object_get(s, "params"), want, tensor);
      expect_one(json_object_get(s, "results"), want, tensor);
      json_decref(s);
      mlir_checked++;
    }
    /* spellings outside the enum that XLA's parser takes (s1, u1, s2, u2) */
    json_t *probes = json_object_get(v, "probes");
    json_array_foreach(probes, i, e) {
      const char *hlo = json_string_value(json_object_get(e, "hlo"));
      if (!json_object_get(e, "xla_printed")) continue; /* XLA refused it: nothing to hold us to */
      char want[128];
      strip_layout(hlo, want, sizeof want);
      hlo_round_trip(hlo, want, HS_T_ARRAY);
      checked++;
    }
  }
  assert_true(saw_f6 && saw_token && saw_opaque);
  print_message("%zu HLO and %zu MLIR element types round-tripped\n", checked, mlir_checked);
  json_decref(o);
}

/* ---- our complex and int8 captures --------------------------------------------------------- */
static json_t *summary_file(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len = 0;
  char *text = tu_read(path, &len);
  if (!text) fail_msg("cannot read %s", path);
  json_t *j = summary_of(text);
  free(text);
  return j;
}

static void same_key(json_t *a, json_t *b, const char *key, const char *dir) {
  json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
  if (!json_is_array(x) && !json_is_string(x)) fail_msg("%s: StableHLO has no %s", dir, key);
  if (!json_equal(x, y)) {
    char *s = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY), *t = json_dumps(y, JSON_COMPACT | JSON_ENCODE_ANY);
    fail_msg("%s: %s %s (StableHLO) vs %s (HLO)", dir, key, s, t);
  }
}

/* the walker lists the version folder's MANIFEST.json too */
static bool is_manifest(const char *dir) {
  size_t n = strlen(dir);
  return n >= 5 && strcmp(dir + n - 5, ".json") == 0;
}

static void pair_dir(const char *dir, void *ctx) {
  if (is_manifest(dir)) return;
  json_t *l = summary_file(dir, "stablehlo.mlir"), *r = summary_file(dir, "after_optimizations.txt");
  same_key(l, r, "module", dir);
  same_key(l, r, "params", dir);
  same_key(l, r, "results", dir);
  json_decref(l);
  json_decref(r);
  (*(size_t *)ctx)++;
}

static void test_capture_pairs_are_one_program(void **state) {
  (void)state;
  size_t n = 0;
  assert_true(tu_each_fixture_in("types", 0, pair_dir, &n) >= 3);
  assert_true(n >= 3);
}

static size_t upcasts_to(const char *path, const char *to) {
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  assert_non_null(d);
  json_t *j = tu_json(hs_decisions_json(d, NULL));
  assert_non_null(j);
  size_t n = 0, i;
  json_t *e;
  json_array_foreach(json_object_get(j, "decisions"), i, e) {
    const char *k = json_string_value(json_object_get(e, "kind")), *t = json_string_value(json_object_get(e, "to"));
    if (k && strcmp(k, "upcast") == 0 && t && strcmp(t, to) == 0) n++;
  }
  json_decref(j);
  hs_doc_free(d);
  free(text);
  return n;
}

static void c128_dir(const char *dir, void *ctx) {
  if (!strstr(dir, "/to_c128")) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/stablehlo.mlir", dir);
  assert_int_equal(upcasts_to(path, "c128"), 0);
  snprintf(path, sizeof path, "%s/after_optimizations.txt", dir);
  assert_int_equal(upcasts_to(path, "c128"), 0);
  /* the convert is there, and typed c128 */
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(strstr(text, "c128[16,16]{1,0} convert("));
  free(text);
  (*(size_t *)ctx)++;
}

static void test_real_to_complex_is_not_an_upcast(void **state) {
  (void)state;
  size_t n = 0;
  tu_each_fixture_in("types", 0, c128_dir, &n);
  assert_true(n >= 1);
  /* complex to wider complex still is one */
  const char *t = "HloModule m\n\nENTRY %e (p: c64[4]) -> c128[4] {\n  %p = c64[4]{0} parameter(0)\n"
                  "  ROOT %c = c128[4]{0} convert(%p)\n}\n";
  hs_doc *d = hs_parse(t, strlen(t), NULL);
  assert_non_null(d);
  json_t *j = tu_json(hs_decisions_json(d, NULL));
  json_t *first = json_array_get(json_object_get(j, "decisions"), 0);
  assert_string_equal(json_string_value(json_object_get(first, "kind")), "upcast");
  json_decref(j);
  hs_doc_free(d);
}

static void fft_file(const char *path, void *ctx) {
  if (!strstr(path, "jit_fft")) return;
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  json_t *s = summary_of(text);
  json_t *p = json_object_get(s, "params");
  assert_true(json_array_size(p) >= 1);
  assert_int_equal(strncmp(json_string_value(json_array_get(p, 0)), "c64[", 4), 0);
  assert_int_equal(strncmp(json_string_value(json_array_get(json_object_get(s, "results"), 0)), "c64[", 4), 0);
  json_decref(s);
  hs_doc *d = hs_parse(text, len, NULL);
  char *c = hs_computations_json(d, NULL);
  assert_null(strstr(c, "comple"));
  assert_non_null(strstr(c, "\"opcode\":\"fft\",\"type\":\"c64["));
  hs_free(c);
  hs_doc_free(d);
  free(text);
  (*(size_t *)ctx)++;
}

static void test_shared_fft_is_c64(void **state) {
  (void)state;
  size_t n = 0;
  long files = tu_each_shared("captures/gpu-semantics", ".txt", fft_file, &n);
  if (files < 0) skip();
  assert_int_equal(n, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_primitive_type),
      cmocka_unit_test(test_capture_pairs_are_one_program),
      cmocka_unit_test(test_real_to_complex_is_not_an_upcast),
      cmocka_unit_test(test_shared_fft_is_c64),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
