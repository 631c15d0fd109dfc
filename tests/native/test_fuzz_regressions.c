/* The inputs the fuzzers found (tests/fuzz/regressions/), replayed through every public reader
 * here too, so that the sanitizer build of ctest (npm test) catches a bug that comes back even
 * where clang's libFuzzer is not installed. Each input sits in a buffer of exactly its size
 * (no terminating NUL), as libFuzzer hands it over: a read one byte past the end is an ASan
 * error. Plus the two buffer-assignment reads past the end the long run found (buffers.c):
 * the text must still read, as a buffer assignment. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

/* `text` copied into a malloc'd buffer of exactly `len` bytes */
static char *exact(const char *text, size_t len) {
  char *b = malloc(len ? len : 1);
  assert_non_null(b);
  memcpy(b, text, len);
  return b;
}

static void every_reader(const char *text, size_t len) {
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  if (d) {
    for (int k = 0; hs_kind_name(k); k++) hs_free(hs_kind_json(d, k, NULL));
    hs_free(hs_xray_json(d, d, NULL));
  } else {
    hs_free(hs_error_json(&err, NULL));
  }
  hs_free(hs_memory_json(text, len, NULL, NULL));
  hs_free(hs_memory_join_json(text, len, d, NULL, NULL));
  hs_free(hs_layout_json(text, len, NULL, NULL));
  hs_llvm *ll = hs_llvm_parse(text, len, NULL);
  if (ll) hs_free(hs_llvm_json(ll, d, NULL));
  hs_llvm_free(ll);
  hs_profile *p = hs_profile_parse(text, len, NULL);
  if (p) {
    hs_free(hs_profile_json(p, NULL));
    hs_free(hs_profile_timeline_json(p, NULL, NULL));
  }
  hs_profile_free(p);
  hs_dumpset *s = hs_dumpset_new();
  assert_non_null(s);
  hs_dumpset_add_listing(s, text, len);
  hs_free(hs_dumpset_json(s, &err, NULL));
  hs_dumpset_free(s);
  hs_doc_free(d);
}

static void test_regressions(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions", HS_SOURCE_DIR);
  DIR *dp = opendir(dir);
  assert_non_null(dp);
  struct dirent *de;
  int n = 0;
  while ((de = readdir(dp))) {
    if (de->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    size_t len = 0;
    char *text = tu_read(path, &len);
    assert_non_null(text);
    char *b = exact(text, len);
    every_reader(b, len);
    free(b);
    free(text);
    n++;
  }
  closedir(dp);
  assert_true(n >= 7);
}

/* buffers.c read one byte past the end: an indented line at the very end of a usage table
 * (tests/fuzz/regressions/buffers-table-row-past-end), and a value line that ends the text
 * right after "): " (buffers-value-shape-past-end) */
static void test_buffers_end_of_text(void **state) {
  (void)state;
  static const char *const texts[] = {
      "BufferAssignment:\nallocation : size 6\ncumulative_size;\n ",
      "BufferAssignment:\nallocation 0: size 6, parameter 0, shape |f32[]| at ShapeIndex {}:\n value: <0 a @0> (size=6,offset=0): ",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    size_t len = strlen(texts[i]);
    char *b = exact(texts[i], len);
    hs_error err;
    char *out = hs_memory_json(b, len, &err, NULL);
    assert_non_null(out);
    json_t *j = tu_json(out);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "buffer_assignment");
    json_decref(j);
    free(b);
  }
}

/* types.c: a StableHLO bound past INT64_MAX overflowed, and a text that ends inside
 * "#stablehlo.bounds<" was read one byte past its end (the memory space S(n) past INT_MAX that
 * fuzz_jaxpr found is regressions/jaxpr-memory-space-int-overflow) */
static void test_types_numbers(void **state) {
  (void)state;
  static const char *const texts[] = {
      "module @m {\n  func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n"
      "    %0 = stablehlo.abs %arg0 : tensor<?xf32, #stablehlo.bounds<99999999999999999999>>\n"
      "    return %0 : tensor<?xf32>\n  }\n}\n",
      "module @m {\n  func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n"
      "    %0 = stablehlo.abs %arg0 : tensor<?xf32, #stablehlo.bounds< ",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    size_t len = strlen(texts[i]);
    char *b = exact(texts[i], len);
    every_reader(b, len);
    free(b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_regressions),
      cmocka_unit_test(test_buffers_end_of_text),
      cmocka_unit_test(test_types_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
