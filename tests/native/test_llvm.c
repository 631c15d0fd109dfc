/* The LLVM IR reader (core/src/llvm.c): small texts whose answers are in the text itself, and
 * every captured .ll cut at many points and garbled (no crash, hang or leak; this runs under
 * ASan/UBSan too). LLVM's own tools are the oracle for the captured files: see
 * tests/oracle/llvm/check.mjs (ctest llvm_oracle). */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

static json_t *read_llvm(const char *text, hs_error *err) {
  hs_llvm *m = hs_llvm_parse(text, strlen(text), err);
  if (!m) return NULL;
  json_t *j = tu_json(hs_llvm_json(m, NULL, NULL));
  hs_llvm_free(m);
  return j;
}

/* A rotated loop nest written the way LLVM prints it: the answers are in the text. */
static const char NEST[] =
    "; ModuleID = 'm'\n"
    "define void @k(ptr noalias align 64 dereferenceable(4096) %a, ptr %b) {\n"
    "entry:\n"
    "  br label %outer\n"
    "outer:\n"
    "  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]\n"
    "  br label %inner\n"
    "inner:\n"
    "  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]\n"
    "  %p = getelementptr inbounds [16 x [8 x float]], ptr %a, i64 0, i64 %i, i64 %j\n"
    "  %v = load <4 x float>, ptr %p, align 16\n"
    "  %w = fmul <4 x float> %v, %v\n"
    "  store <4 x float> %w, ptr %p, align 16\n"
    "  %e = call float @llvm.exp.f32(float 1.0)\n"
    "  %j.next = add nuw nsw i64 %j, 4\n"
    "  %c = icmp eq i64 %j.next, 8\n"
    "  br i1 %c, label %outer.latch, label %inner\n"
    "outer.latch:\n"
    "  %i.next = add nuw nsw i64 %i, 1\n"
    "  %d = icmp ult i64 %i.next, 16\n"
    "  switch i32 0, label %exit [\n"
    "    i32 1, label %outer\n"
    "  ]\n"
    "exit:\n"
    "  ret void\n"
    "}\n"
    "declare float @llvm.exp.f32(float)\n";

static void test_nest(void **state) {
  (void)state;
  hs_error err;
  json_t *j = read_llvm(NEST, &err);
  assert_non_null(j);
  json_t *fs = json_object_get(j, "functions");
  assert_int_equal(json_array_size(fs), 1);
  json_t *f = json_array_get(fs, 0);
  assert_string_equal(json_string_value(json_object_get(f, "name")), "k");
  json_t *p0 = json_array_get(json_object_get(f, "params"), 0);
  assert_true(json_is_true(json_object_get(p0, "noalias")));
  assert_int_equal(json_integer_value(json_object_get(p0, "align")), 64);
  assert_int_equal(json_integer_value(json_object_get(p0, "dereferenceable")), 4096);
  json_t *loops = json_object_get(f, "loops");
  assert_int_equal(json_array_size(loops), 2);
  /* outer: header %outer, depth 1 (its exit is a switch: no constant count); inner: depth 2,
   * j = 0, 4 -> exits when j.next == 8: backedge taken once, the body runs twice */
  json_t *outer = json_array_get(loops, 0), *inner = json_array_get(loops, 1);
  assert_string_equal(json_string_value(json_object_get(outer, "header")), "outer");
  assert_int_equal(json_integer_value(json_object_get(outer, "depth")), 1);
  assert_true(json_is_null(json_object_get(outer, "trip_count")));
  assert_string_equal(json_string_value(json_object_get(inner, "header")), "inner");
  assert_int_equal(json_integer_value(json_object_get(inner, "depth")), 2);
  assert_int_equal(json_integer_value(json_object_get(inner, "backedge_taken")), 1);
  assert_int_equal(json_integer_value(json_object_get(inner, "trip_count")), 2);
  assert_string_equal(json_string_value(json_array_get(json_object_get(f, "vector_widths"), 0)), "<4 x float>");
  assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(f, "loads"), "types"), "<4 x float>")), 1);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(f, "ops"), "fmul")), 1);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(f, "calls"), "llvm.exp.f32")), 1);
  assert_string_equal(json_string_value(json_array_get(json_object_get(j, "declared"), 0)), "llvm.exp.f32");
  json_decref(j);
}

static void test_registry(void **state) {
  (void)state;
  /* the registry line: LLVM IR is detected, and hs_parse sends it to its own reader */
  assert_int_equal(hs_detect_format(NEST, strlen(NEST)), HS_FORMAT_LLVM);
  const char *commented = "; Function Attrs: uwtable\ndefine ptr @k(ptr %0) {\n  ret ptr null\n}\n";
  assert_int_equal(hs_detect_format(commented, strlen(commented)), HS_FORMAT_LLVM);
  assert_string_equal(hs_format_name(HS_FORMAT_LLVM), "llvm");
  hs_error err;
  assert_null(hs_parse(NEST, strlen(NEST), &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_non_null(strstr(err.message, "LLVM IR"));
}

/* A GPU kernel writes its fusion's '.' as '_' (loop_add_fusion.1 -> @loop_add_fusion_1): joined,
 * and what was dropped is stated against the fused body. */
/* The LLVM IR `ll` as JSON, joined to the dump `dump` (which must read as `format`). */
static json_t *joined(const char *dump, hs_format format, const char *ll) {
  hs_error err;
  hs_doc *d = hs_parse(dump, strlen(dump), &err);
  assert_non_null(d);
  assert_int_equal(hs_doc_format(d), format);
  hs_llvm *m = hs_llvm_parse(ll, strlen(ll), &err);
  assert_non_null(m);
  json_t *j = tu_json(hs_llvm_json(m, d, NULL));
  hs_llvm_free(m);
  hs_doc_free(d);
  return j;
}

static void test_gpu_join(void **state) {
  (void)state;
  const char *hlo =
      "HloModule m\n\nfused_add {\n  p0 = f32[8]{0} parameter(0)\n  p1 = f32[8]{0} parameter(1)\n"
      "  ROOT a = f32[8]{0} add(p0, p1)\n}\n\nENTRY e {\n  x = f32[8]{0} parameter(0)\n  y = f32[8]{0} parameter(1)\n"
      "  ROOT loop_add_fusion.1 = f32[8]{0} fusion(x, y), kind=kLoop, calls=fused_add\n}\n";
  const char *ll =
      "target triple = \"nvptx64-nvidia-cuda\"\n\n"
      "define void @loop_add_fusion_1(ptr noalias align 16 dereferenceable(32) %arg0, ptr noalias align 16 "
      "dereferenceable(32) %arg1, ptr noalias align 128 dereferenceable(32) %arg2) {\nentry:\n"
      "  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "  %1 = getelementptr inbounds float, ptr %arg0, i32 %0\n  %2 = load float, ptr %1, align 4\n"
      "  %3 = getelementptr inbounds float, ptr %arg1, i32 %0\n  %4 = load float, ptr %3, align 4\n"
      "  %add.2 = fadd float %2, %4\n  %5 = getelementptr inbounds float, ptr %arg2, i32 %0\n"
      "  store float %add.2, ptr %5, align 4\n  ret void\n}\n\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";
  json_t *j = joined(hlo, HS_FORMAT_HLO, ll);
  json_t *f = json_array_get(json_object_get(j, "functions"), 0);
  assert_string_equal(json_string_value(json_object_get(f, "hlo")), "loop_add_fusion.1");
  assert_int_equal(json_array_size(json_object_get(f, "loops")), 0); /* one thread per element: no loop */
  json_t *dr = json_array_get(json_object_get(j, "dropped"), 0);
  json_t *fu = json_object_get(dr, "fusion");
  assert_string_equal(json_string_value(json_object_get(fu, "hlo_body")), "fused_add");
  assert_int_equal(json_integer_value(json_object_get(fu, "hlo_body_instructions")), 3);
  json_t *sh = json_object_get(dr, "shapes");
  assert_string_equal(json_string_value(json_array_get(json_object_get(sh, "hlo_operands"), 1)), "f32[8]");
  assert_int_equal(json_integer_value(json_object_get(sh, "llvm_pointer_params")), 3);
  assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(dr, "layouts"), "hlo_layouts"), 0)), "{0}");
  json_decref(j);
}

/* Only an optimized HLO joins: a StableHLO fragment (ops outside any function, so no
 * computations at all) beside the same kernel is no HLO (fuzz_parse found it read comps[0]). */
static void test_join_needs_hlo(void **state) {
  (void)state;
  const char *shlo = "#loc = loc(unknown)\n%3 = stablehlo.add %arg1, %arg2 : tensor<f32>\n%loop_add_fusion.1 = stablehlo.add %3, %3 : tensor<f32>\n";
  const char *ll = "define void @loop_add_fusion_1(ptr %arg0) {\nentry:\n  ret void\n}\n";
  json_t *j = joined(shlo, HS_FORMAT_STABLEHLO, ll);
  json_t *f = json_array_get(json_object_get(j, "functions"), 0);
  assert_true(json_is_null(json_object_get(f, "hlo")));
  json_decref(j);
}

/* An instruction the text does not spell out (a nested operand, named "negate.anon" in
 * d->synth, past the text) joins by its name like any other (fuzz_parse found the join reading
 * its name from the text, past the end). */
static void test_join_made_names(void **state) {
  (void)state;
  const char *hlo = "HloModule m\n\nENTRY e {\n  x = f32[8]{0} parameter(0)\n"
                    "  ROOT a = f32[8]{0} add(x, f32[8]{0} negate(x))\n}\n";
  const char *ll = "define void @negate_anon(ptr %arg0) {\nentry:\n  ret void\n}\n";
  json_t *j = joined(hlo, HS_FORMAT_HLO, ll);
  json_t *f = json_array_get(json_object_get(j, "functions"), 0);
  assert_string_equal(json_string_value(json_object_get(f, "hlo")), "negate.anon");
  json_decref(j);
}

static void test_not_llvm(void **state) {
  (void)state;
  hs_error err;
  assert_null(read_llvm("HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_non_null(strstr(err.message, "not LLVM IR"));
  assert_int_equal(err.line, 1);
  assert_null(read_llvm("   \n\n", &err));
  assert_int_equal(err.code, HS_E_EMPTY);
}

static void test_truncated(void **state) {
  (void)state;
  char buf[sizeof NEST + 200];
  snprintf(buf, sizeof buf, "define void @first() {\n  ret void\n}\n%.*s", (int)(sizeof NEST / 2), NEST);
  hs_error err;
  json_t *j = read_llvm(buf, &err);
  assert_non_null(j);
  assert_int_equal(json_array_size(json_object_get(j, "functions")), 1);
  json_t *w = json_array_get(json_object_get(j, "warnings"), 0);
  assert_string_equal(json_string_value(json_object_get(w, "code")), "HS_W_TRUNCATED");
  json_decref(j);
}

static void exercise(const char *text, size_t len) {
  hs_error err;
  hs_llvm *m = hs_llvm_parse(text, len, &err);
  if (!m) {
    assert_true(err.code < 0);
    return;
  }
  size_t n = 0;
  char *s = hs_llvm_json(m, NULL, &n);
  assert_non_null(s);
  json_error_t je;
  json_t *j = json_loadb(s, n, 0, &je);
  if (!j) fail_msg("invalid JSON: %s", je.text);
  json_decref(j);
  hs_free(s);
  hs_llvm_free(m);
}

static void torture_ll(const char *path, void *ctx) {
  int *files = ctx;
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  size_t step = len / 60 + 1;
  for (size_t cut = 0; cut <= len; cut += step) exercise(text, cut);
  const char subst[] = {'%', '[', ']', '\n', '"', ',', '<', '\0', (char)0xff};
  for (size_t k = 0; k < 12 && len; k++) {
    size_t pos = (k * 7919u) % len;
    char keep = text[pos];
    for (size_t s = 0; s < sizeof subst; s++) {
      text[pos] = subst[s];
      exercise(text, len);
    }
    text[pos] = keep;
  }
  free(text);
  (*files)++;
}

static void torture_level(const char *dir, void *ctx) { tu_each_file(dir, ".ll", torture_ll, ctx); }

static void test_torture(void **state) {
  (void)state;
  int files = 0;
  tu_each_fixture_in("levels", 0, torture_level, &files);
  assert_true(files >= 10);
  int shared = 0;
  if (tu_each_shared("captures/llvm", ".ll", torture_ll, &shared) >= 0) assert_true(shared > 0);
}

/* 6000 loops one after another in one function (18000 blocks): linear work, every count known. */
static void test_many_loops(void **state) {
  (void)state;
  enum { N = 6000 };
  size_t cap = (size_t)N * 400 + 1000, o = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  o += (size_t)snprintf(t + o, cap - o, "define void @big(ptr %%a) {\nentry:\n  br label %%h0\n");
  for (int k = 0; k < N; k++) {
    o += (size_t)snprintf(t + o, cap - o,
                          "h%d:\n  %%i%d = phi i64 [ 0, %%%s%d ], [ %%n%d, %%h%d ]\n  %%n%d = add i64 %%i%d, 1\n"
                          "  %%c%d = icmp eq i64 %%n%d, %d\n  br i1 %%c%d, label %%x%d, label %%h%d\n"
                          "x%d:\n  br label %%%s%d\n",
                          k, k, k ? "x" : "entry", k ? k - 1 : 0, k, k, k, k, k, k, 1 + k % 7, k, k, k, k,
                          k + 1 < N ? "h" : "done", k + 1 < N ? k + 1 : 0);
  }
  o += (size_t)snprintf(t + o, cap - o, "done0:\n  ret void\n}\n");
  /* the first loop's phi names %entry0, which is no block: fix the text to name %entry */
  char *e0 = strstr(t, "%entry0");
  assert_non_null(e0);
  memcpy(e0, "%entry ", 7);
  hs_error err;
  hs_llvm *m = hs_llvm_parse(t, o, &err);
  assert_non_null(m);
  json_t *j = tu_json(hs_llvm_json(m, NULL, NULL));
  hs_llvm_free(m);
  json_t *loops = json_object_get(json_array_get(json_object_get(j, "functions"), 0), "loops");
  assert_int_equal(json_array_size(loops), N);
  for (size_t k = 0; k < N; k++) {
    json_t *L = json_array_get(loops, k);
    assert_int_equal(json_integer_value(json_object_get(L, "depth")), 1);
    assert_int_equal(json_integer_value(json_object_get(L, "trip_count")), 1 + (json_int_t)(atoi(json_string_value(json_object_get(L, "header")) + 1) % 7));
  }
  json_decref(j);
  free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_nest), cmocka_unit_test(test_registry), cmocka_unit_test(test_gpu_join), cmocka_unit_test(test_join_needs_hlo), cmocka_unit_test(test_join_made_names), cmocka_unit_test(test_not_llvm),
                                     cmocka_unit_test(test_truncated), cmocka_unit_test(test_many_loops), cmocka_unit_test(test_torture)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
