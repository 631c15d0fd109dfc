/* The report (core/src/api/report.c), under AddressSanitizer in CI: every kind of input, cut at
 * many points and garbled, gives an overview (an error per input where it does not read) and
 * never a crash or a leak; redaction keeps every file's length and leaves no module name of the
 * inputs; the page assembler fills the slot, replaces a data block, refuses a page without
 * either, and never lets "</script" or "<!--" into the block. */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

static char *fixture(const char *rel, size_t *len) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s", HS_SOURCE_DIR, rel);
  char *t = tu_read(p, len);
  if (!t) fail_msg("cannot read %s", p);
  return t;
}

static json_t *report_of(const char *const *names, char **data, const size_t *lens, size_t n, int redact, hs_report **keep) {
  hs_report *r = hs_report_new();
  assert_non_null(r);
  for (size_t i = 0; i < n; i++) assert_int_equal(hs_report_add_file(r, names[i], data[i], lens[i]), 0);
  hs_error err;
  size_t jl = 0;
  char *js = hs_report_json(r, redact, &err, &jl);
  assert_non_null(js);
  json_t *j = json_loadb(js, jl, 0, NULL);
  assert_non_null(j);
  hs_free(js);
  if (keep) *keep = r;
  else hs_report_free(r);
  return j;
}

static const char *const NAMES[] = {"stablehlo.mlir", "after_optimizations.txt", "profile.xplane.pb", "profile.trace.json"};
static const char *const FILES[] = {"fixtures/cpu-jax-0.4.38/naive_attention/stablehlo.mlir",
                                    "fixtures/cpu-jax-0.4.38/naive_attention/after_optimizations.txt",
                                    "fixtures/cpu-jax-0.4.38/naive_attention/profile.xplane.pb",
                                    "fixtures/levels/cpu-jax-0.4.38/add/module_0001.jit_add.ir-no-opt.ll"};

static void test_whole(void **state) {
  (void)state;
  char *data[4];
  size_t lens[4];
  for (int i = 0; i < 4; i++) data[i] = fixture(FILES[i], &lens[i]);
  const char *names[4] = {NAMES[0], NAMES[1], NAMES[2], "kernel.ll"};
  json_t *j = report_of(names, data, lens, 4, 0, NULL);
  json_t *ins = tu_path(j, "overview/inputs");
  assert_int_equal(json_array_size(ins), 4);
  for (size_t i = 0; i < 4; i++) assert_null(json_object_get(json_array_get(ins, i), "error"));
  assert_string_equal(json_string_value(tu_path(j, "open")), "pair-1"); /* the x-ray of the pair */
  assert_true(strstr(json_string_value(json_object_get(j, "markdown")), "## Headlines") != NULL);
  json_decref(j);
  for (int i = 0; i < 4; i++) free(data[i]);
}

/* Every input cut at many points, and garbled: an overview every time. */
static void test_cut(void **state) {
  (void)state;
  for (int f = 0; f < 4; f++) {
    size_t len;
    char *t = fixture(FILES[f], &len);
    size_t step = len / 37 + 1;
    for (size_t cut = 0; cut <= len; cut += step) {
      char *c = malloc(cut + 1);
      memcpy(c, t, cut);
      for (int garble = 0; garble < 2; garble++) {
        if (garble && cut > 8) c[cut / 2] ^= 0x5a;
        const char *names[1] = {NAMES[f < 3 ? f : 1]};
        size_t lens[1] = {cut};
        char *data[1] = {c};
        for (int redact = 0; redact < 2; redact++) {
          json_t *j = report_of(names, data, lens, 1, redact, NULL);
          assert_int_equal(json_array_size(tu_path(j, "overview/inputs")), 1);
          json_decref(j);
        }
      }
      free(c);
    }
    free(t);
  }
}

/* Redaction keeps lengths and leaves no module name; the pair still pairs. */
static void test_redact(void **state) {
  (void)state;
  char *data[3];
  size_t lens[3];
  for (int i = 0; i < 3; i++) data[i] = fixture(FILES[i], &lens[i]);
  hs_report *r = NULL;
  json_t *j = report_of(NAMES, data, lens, 3, 1, &r);
  for (size_t i = 0; i < 3; i++) {
    size_t n = 0;
    const char *b = hs_report_file(r, i, &n);
    assert_int_equal(n, lens[i]);
    assert_null(memmem(b, n, "jit_naive_attention", 19));
    assert_null(memmem(b, n, "naive_attention.py", 18));
  }
  assert_int_equal(json_array_size(tu_path(j, "overview/pairs")), 1);
  assert_int_equal(json_array_size(tu_path(j, "overview/inputs")), 3);
  for (size_t i = 0; i < 3; i++) assert_null(json_object_get(json_array_get(tu_path(j, "overview/inputs"), i), "error"));
  assert_true(json_integer_value(tu_path(j, "overview/redacted/module_names")) >= 1);
  char *all = json_dumps(j, 0);
  assert_null(strstr(all, "jit_naive_attention"));
  free(all);
  json_decref(j);
  hs_report_free(r);
  for (int i = 0; i < 3; i++) free(data[i]);
}

static void test_page(void **state) {
  (void)state;
  hs_error err;
  size_t n = 0;
  const char *payload = "{\"x\":\"</script><!-- <script>\"}";
  const char *tmpl = "<html><body><!--HS:REPORT-->\n<script>app</script></body></html>";
  char *page = hs_report_page(tmpl, strlen(tmpl), payload, strlen(payload), &err, &n);
  assert_non_null(page);
  assert_int_equal(strlen(page), n);
  const char *block = strstr(page, "id=\"hs-report\">");
  assert_non_null(block);
  const char *end = strstr(block, "</script>");
  assert_true(end && end < strstr(page, "<script>app"));
  assert_null(memmem(block, (size_t)(end - block), "<!--", 4));
  /* saved again: the block replaced, the rest kept */
  char *again = hs_report_page(page, n, "{}", 2, &err, &n);
  assert_non_null(again);
  assert_string_equal(again, "<html><body><script type=\"application/json\" id=\"hs-report\">{}</script>\n<script>app</script></body></html>");
  hs_free(page);
  hs_free(again);
  /* no slot: said */
  assert_null(hs_report_page("<html></html>", 13, "{}", 2, &err, &n));
  assert_int_equal(err.code, HS_E_FORMAT);
  /* a block cut short (no end): refused, never read past */
  const char *cut = "<script type=\"application/json\" id=\"hs-report\">{\"a\":";
  assert_null(hs_report_page(cut, strlen(cut), "{}", 2, &err, &n));
  /* nothing given */
  hs_report *r = hs_report_new();
  assert_null(hs_report_json(r, 0, &err, &n));
  assert_int_equal(err.code, HS_E_EMPTY);
  hs_report_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_whole), cmocka_unit_test(test_cut), cmocka_unit_test(test_redact),
                                     cmocka_unit_test(test_page)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
