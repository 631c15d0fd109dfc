#define _DEFAULT_SOURCE
/* The decisions analysis (hs_decisions_json) on the fixtures' jaxpr, StableHLO and HLO texts.
 * Expected lines and names come from the texts themselves (the line an equation's text begins on,
 * the opcode printed on a line); the comparison with jax's own equation records is
 * tests/node/decisions.test.mjs. Also: truncated and garbled jaxprs, deep nesting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

static char *fixture(const char *ver, const char *id, const char *file, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fixtures/cpu-jax-%s/%s/%s", HS_SOURCE_DIR, ver, id, file);
  char *t = tu_read(path, len);
  if (!t) fail_msg("cannot read %s", path);
  return t;
}

static json_t *decisions_of(const char *text, size_t len) {
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  if (!d) fail_msg("parse failed: %s", err.message);
  json_t *j = tu_json(hs_decisions_json(d, NULL));
  assert_non_null(j);
  hs_doc_free(d);
  return j;
}

/* The 1-based line of the first occurrence of `needle` in text at or after line `from`, 0 if none. */
static unsigned line_of(const char *text, const char *needle, unsigned from) {
  unsigned line = 1;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (line >= from) {
      const char *h = strstr(p, needle);
      if (h && (size_t)(h - p) < n) return line;
    }
    if (!nl) break;
    p = nl + 1;
    line++;
  }
  return 0;
}

static const char *line_text(const char *text, unsigned line, size_t *n) {
  const char *p = text;
  for (unsigned k = 1; k < line && p; k++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (!p) return NULL;
  const char *nl = strchr(p, '\n');
  *n = nl ? (size_t)(nl - p) : strlen(p);
  return p;
}

static const char *sget(json_t *o, const char *k) {
  const char *s = json_string_value(json_object_get(o, k));
  return s ? s : "";
}

static json_t *first_of(json_t *j, const char *kind) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "decisions"), i, x) if (strcmp(sget(x, "kind"), kind) == 0) return x;
  return NULL;
}

static void check_sorted(json_t *j) {
  size_t i;
  json_t *x;
  long long prev = 0;
  json_array_foreach(json_object_get(j, "decisions"), i, x) {
    long long l = json_integer_value(json_object_get(x, "line"));
    assert_true(l >= prev);
    prev = l;
  }
}

/* mlp: the first upcast is the first convert_element_type equation (bf16 -> f32), the first
 * broadcast the first broadcast_in_dim equation, in both jax versions. */
static void test_jaxpr_mlp(void **state) {
  (void)state;
  const char *vers[] = {"0.4.38", "0.10.2"};
  for (size_t v = 0; v < 2; v++) {
    size_t len;
    char *t = fixture(vers[v], "mlp", "jaxpr.txt", &len);
    json_t *j = decisions_of(t, len);
    assert_string_equal(sget(j, "format"), "jaxpr");
    check_sorted(j);
    json_t *up = first_of(j, "upcast"), *bc = first_of(j, "broadcast");
    assert_non_null(up);
    assert_non_null(bc);
    assert_int_equal(json_integer_value(json_object_get(up, "line")), line_of(t, "= convert_element_type", 1));
    assert_string_equal(sget(up, "from"), "bf16");
    assert_string_equal(sget(up, "to"), "f32");
    assert_int_equal(json_integer_value(json_object_get(bc, "line")), line_of(t, "= broadcast_in_dim", 1));
    assert_string_equal(sget(bc, "path"), "");
    assert_true(json_is_null(json_object_get(bc, "source")));
    assert_int_equal(json_array_size(json_object_get(j, "warnings")), 0);
    json_decref(j);
    free(t);
  }
}

/* remat: the remat2 equation's line is where it begins (its parameters wrap over many lines);
 * the transposes inside its body have the path "remat2". In 0.10.2 the body is hoisted above
 * ("let jaxpr = { lambda ... } in") and still gets that path. */
static void test_jaxpr_remat(void **state) {
  (void)state;
  const char *vers[] = {"0.4.38", "0.10.2"};
  for (size_t v = 0; v < 2; v++) {
    size_t len;
    char *t = fixture(vers[v], "remat", "jaxpr.txt", &len);
    json_t *j = decisions_of(t, len);
    check_sorted(j);
    json_t *rm = first_of(j, "remat");
    assert_non_null(rm);
    assert_int_equal(json_integer_value(json_object_get(rm, "line")), line_of(t, "= remat2[", 1));
    assert_string_equal(sget(rm, "path"), "");
    size_t i, transposes = 0;
    json_t *x;
    json_array_foreach(json_object_get(j, "decisions"), i, x) {
      if (strcmp(sget(x, "kind"), "transpose")) continue;
      transposes++;
      assert_string_equal(sget(x, "path"), "remat2");
      size_t n = 0;
      const char *lt = line_text(t, (unsigned)json_integer_value(json_object_get(x, "line")), &n);
      assert_non_null(lt);
      char want[64];
      snprintf(want, sizeof want, "%s:", sget(x, "name"));
      assert_true(n > strlen(want) && strstr(lt, want) != NULL && strstr(lt, "= transpose[") != NULL);
    }
    assert_int_equal(transposes, 2);
    json_decref(j);
    free(t);
  }
}

/* A jaxpr cut in the middle of an equation: the decisions read before the cut, and a warning. */
static void test_jaxpr_truncated(void **state) {
  (void)state;
  size_t len;
  char *t = fixture("0.4.38", "mlp", "jaxpr.txt", &len);
  json_t *whole = decisions_of(t, len);
  unsigned second = line_of(t, "= convert_element_type", line_of(t, "= convert_element_type", 1) + 1);
  assert_true(second > 0);
  size_t n = 0;
  const char *lt = line_text(t, second, &n);
  size_t cut = (size_t)(lt - t) + n / 2;
  json_t *j = decisions_of(t, cut);
  size_t i, expect = 0;
  json_t *x;
  json_array_foreach(json_object_get(whole, "decisions"), i, x) if (json_integer_value(json_object_get(x, "line")) < second)
      expect++;
  assert_true(expect > 0);
  assert_int_equal(json_array_size(json_object_get(j, "decisions")), expect);
  for (i = 0; i < expect; i++)
    assert_true(json_equal(json_array_get(json_object_get(j, "decisions"), i), json_array_get(json_object_get(whole, "decisions"), i)));
  json_t *w = json_array_get(json_object_get(j, "warnings"), 0);
  assert_non_null(w);
  assert_string_equal(sget(w, "code"), "HS_W_TRUNCATED");
  json_decref(j);
  json_decref(whole);
  free(t);
}

/* HLO: each upcast/downcast line prints a convert, each layout copy a copy; StableHLO with
 * locations gives the source file of the program. */
static void test_hlo_and_stablehlo(void **state) {
  (void)state;
  const char *vers[] = {"0.4.38", "0.10.2"};
  const char *ids[] = {"mlp", "mha", "remat", "dequant"};
  for (size_t v = 0; v < 2; v++) {
    for (size_t k = 0; k < 4; k++) {
      size_t len;
      char *t = fixture(vers[v], ids[k], "after_optimizations.txt", &len);
      json_t *j = decisions_of(t, len);
      assert_string_equal(sget(j, "format"), "hlo");
      check_sorted(j);
      size_t i;
      json_t *x;
      json_array_foreach(json_object_get(j, "decisions"), i, x) {
        size_t n = 0;
        const char *lt = line_text(t, (unsigned)json_integer_value(json_object_get(x, "line")), &n);
        char *line = strndup(lt, n);
        const char *kind = sget(x, "kind");
        if (!strcmp(kind, "upcast") || !strcmp(kind, "downcast")) assert_non_null(strstr(line, " convert("));
        if (!strcmp(kind, "layout_copy")) assert_non_null(strstr(line, " copy("));
        if (!strcmp(kind, "broadcast")) assert_non_null(strstr(line, " broadcast("));
        if (!strcmp(kind, "remat")) assert_true(strstr(line, "rematted_computation") || strstr(line, " opt-barrier("));
        assert_non_null(strstr(line, sget(x, "name")));
        free(line);
      }
      json_decref(j);
      free(t);
      t = fixture(vers[v], ids[k], "stablehlo.debug.mlir", &len);
      j = decisions_of(t, len);
      assert_string_equal(sget(j, "format"), "stablehlo");
      json_array_foreach(json_object_get(j, "decisions"), i, x) {
        char want[128];
        snprintf(want, sizeof want, "fixtures/cpu-jax-%s/%s/source.py:", vers[v], ids[k]);
        assert_true(strncmp(sget(x, "source"), want, strlen(want)) == 0);
      }
      json_decref(j);
      free(t);
    }
  }
  /* mha: the layout copies XLA inserted for the head transposes */
  size_t len;
  char *t = fixture("0.4.38", "mha", "after_optimizations.txt", &len);
  json_t *j = decisions_of(t, len);
  assert_non_null(first_of(j, "layout_copy"));
  json_decref(j);
  free(t);
  /* remat: StableHLO marks the recomputation with an optimization barrier */
  t = fixture("0.4.38", "remat", "stablehlo.mlir", &len);
  j = decisions_of(t, len);
  json_t *rm = first_of(j, "remat");
  assert_non_null(rm);
  assert_int_equal(json_integer_value(json_object_get(rm, "line")), line_of(t, "stablehlo.optimization_barrier", 1));
  json_decref(j);
  free(t);
}

/* StableHLO whose #loc table fans out 16 ways, 8 levels deep, and names no file: following every
 * reference costs 16^8 table lines, which fuzz_decisions found as a hang (a 1.3 KB text, 0.8 s
 * natively, 16 s under ASan; at 12 ways this test took 19 s natively before the fix, 0.06 s
 * after). A source lookup now reads at most 16 table lines; the test's ctest TIMEOUT catches a
 * return of the blow-up. */
static void test_stablehlo_loc_fanout(void **state) {
  (void)state;
  enum { FAN = 16, DEPTH = 8 };
  size_t cap = 1 << 16, n = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  n += (size_t)snprintf(t + n, cap - n,
                        "module @m {\n  func.func @main(%%arg0: tensor<f32>) -> tensor<4xf32> {\n"
                        "    %%0 = stablehlo.broadcast_in_dim %%arg0, dims = [] : (tensor<f32>) -> tensor<4xf32> loc(#loc1)\n"
                        "    return %%0 : tensor<4xf32> loc(#loc1)\n  } loc(#loc1)\n} loc(#loc1)\n");
  /* #loc1 names level 0; node j of level i is #loc(2 + i*FAN + j) and names every node of level i+1 */
  n += (size_t)snprintf(t + n, cap - n, "#loc1 = loc(fused[");
  for (int j = 0; j < FAN; j++) n += (size_t)snprintf(t + n, cap - n, "%s#loc%d", j ? ", " : "", 2 + j);
  n += (size_t)snprintf(t + n, cap - n, "])\n");
  for (int i = 0; i < DEPTH; i++)
    for (int j = 0; j < FAN; j++) {
      n += (size_t)snprintf(t + n, cap - n, "#loc%d = loc(fused[", 2 + i * FAN + j);
      for (int k = 0; k < FAN; k++) n += (size_t)snprintf(t + n, cap - n, "%s#loc%d", k ? ", " : "", 2 + (i + 1) * FAN + k);
      n += (size_t)snprintf(t + n, cap - n, "])\n");
    }
  json_t *j = decisions_of(t, n);
  assert_string_equal(sget(j, "format"), "stablehlo");
  assert_int_equal(json_array_size(json_object_get(j, "decisions")), 1);
  json_decref(j);
  free(t);
}

/* Every cut of a few jaxprs, and deep or odd input: never a crash, always JSON. */
static void test_jaxpr_torture(void **state) {
  (void)state;
  const char *ids[] = {"remat", "scan", "moe"};
  const char *vers[] = {"0.4.38", "0.10.2"};
  for (size_t v = 0; v < 2; v++)
    for (size_t k = 0; k < 3; k++) {
      size_t len;
      char *t = fixture(vers[v], ids[k], "jaxpr.txt", &len);
      for (size_t cut = 12; cut <= len; cut += (len / 300 + 1)) json_decref(decisions_of(t, cut));
      free(t);
    }
  /* 5000 nested bodies */
  size_t cap = 5000 * 64 + 64, n = 0;
  char *b = malloc(cap);
  assert_non_null(b);
  for (int i = 0; i < 5000; i++) n += (size_t)snprintf(b + n, cap - n, "{ lambda ; a:f32[]. let b:f32[] = p[j=");
  json_t *j = decisions_of(b, n);
  assert_true(json_array_size(json_object_get(j, "warnings")) > 0);
  json_decref(j);
  free(b);
  const char *odd[] = {"{ lambda ; . let\n  in () }", "let x = { lambda ; . let in () } in\n{ lambda ; . let\n  a:f32[2] = remat2[jaxpr=x] \n in (a,) }",
                       "{ lambda ; a:f32[. let", "{ lambda ; a:f32[2]. let\n  b:bf16[2] = convert_element_type[new_dtype=bfloat16] a\n  c:",
                       "let let let", "{ lambda ; a:q9[2] b:key<fry>[]. let c:f32[2] = convert_element_type a in (c,) }"};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) json_decref(decisions_of(odd[i], strlen(odd[i])));
  /* the downcast in the fourth, before the cut */
  j = decisions_of(odd[3], strlen(odd[3]));
  json_t *dc = first_of(j, "downcast");
  assert_non_null(dc);
  assert_int_equal(json_integer_value(json_object_get(dc, "line")), 2);
  assert_string_equal(sget(dc, "from"), "f32");
  assert_string_equal(sget(dc, "to"), "bf16");
  json_decref(j);
  /* a hoisted body used by a remat equation gets its path */
  j = decisions_of(odd[1], strlen(odd[1]));
  json_decref(j);
}

/* HLO sources as the reader keeps them: source_file/source_line metadata, and stack_frame_id
 * through the frame tables of the instruction's own module (two modules here, each with its own
 * tables numbered from 1: the second's frame 1 is b.py, where decisions once took the first
 * module's tables for every module). */
static void test_hlo_sources_per_module(void **state) {
  (void)state;
  const char *mod =
      "HloModule m%d, entry_computation_layout={(f32[])->f32[4]}\n\n"
      "FileNames\n1 \"%s\"\n2 \"unused.py\"\n\n"
      "FunctionNames\n1 \"f\"\n\n"
      "FileLocations\n1 {file_name_id=2 function_name_id=1 line=1 end_line=1 column=1 end_column=2}\n"
      "2 {file_name_id=1 function_name_id=1 line=%d end_line=%d column=1 end_column=2}\n\n"
      "StackFrames\n1 {file_location_id=2 parent_frame_id=0}\n\n"
      "ENTRY %%main (p: f32[]) -> f32[4] {\n"
      "  %%p = f32[] parameter(0)\n"
      "  %%t = f32[4]{0} broadcast(f32[] %%p), dimensions={}, metadata={op_name=\"jit(f)/broadcast_in_dim\" source_file=\"c.py\" source_line=%d}\n"
      "  %%u = f32[4]{0} broadcast(f32[] %%p), dimensions={}, metadata={op_name=\"jit(f)/broadcast_in_dim\" source_file=\"c.py\"}\n"
      "  %%v = f32[4]{0} broadcast(f32[] %%p), dimensions={}, metadata={op_name=\"jit(f)/broadcast_in_dim\" stack_frame_id=7}\n"
      "  ROOT %%b = f32[4]{0} broadcast(f32[] %%p), dimensions={}, metadata={op_name=\"jit(f)/broadcast_in_dim\" stack_frame_id=1}\n"
      "}\n\n";
  char t[4096];
  size_t n = (size_t)snprintf(t, sizeof t, mod, 1, "a.py", 10, 10, 3);
  n += (size_t)snprintf(t + n, sizeof t - n, mod, 2, "b.py", 20, 20, 4);
  json_t *j = decisions_of(t, n);
  assert_string_equal(sget(j, "format"), "hlo");
  const char *want[] = {"c.py:3", "c.py", "", "a.py:10", "c.py:4", "c.py", "", "b.py:20"};
  json_t *ds = json_object_get(j, "decisions");
  assert_int_equal(json_array_size(ds), 8);
  for (size_t i = 0; i < 8; i++) {
    json_t *x = json_array_get(ds, i);
    assert_string_equal(sget(x, "kind"), "broadcast");
    if (!*want[i]) assert_true(json_is_null(json_object_get(x, "source"))); /* frame 7: no such row */
    else assert_string_equal(sget(x, "source"), want[i]);
  }
  json_decref(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jaxpr_mlp),        cmocka_unit_test(test_jaxpr_remat),
      cmocka_unit_test(test_jaxpr_truncated),  cmocka_unit_test(test_hlo_and_stablehlo),
      cmocka_unit_test(test_jaxpr_torture),    cmocka_unit_test(test_stablehlo_loc_fanout),
      cmocka_unit_test(test_hlo_sources_per_module),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
