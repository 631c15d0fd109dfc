/* What the core may claim, and from what evidence (issue 17, items 2, 3 and 5):
 *  - the pipeline stage of an HLO text ("stage" in the summary): our capture's own dump folder
 *    names its files before_optimizations / cpu_after_optimizations (XLA wrote those names);
 *  - no spill or HBM claim about HLO before optimizations ("needs": "optimized");
 *  - a dump cut before its entry computation is "partial" and names no big intermediate
 *    ("needs": "entry"), where the whole text names one;
 *  - the carrier count follows DESIGN.md's rule: on the TPU attention the three lines are the
 *    ROOT convolution of the fused computation, the kOutput fusion and the online-softmax
 *    custom call (DESIGN.md, checked by hand); their line numbers are found in the text itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#define NAIVE HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/naive_attention"

static hs_doc *parse_file(const char *path, char **text, size_t limit) {
  size_t len;
  *text = tu_read(path, &len);
  if (!*text) return NULL;
  if (limit && limit < len) len = limit;
  hs_error err;
  hs_doc *d = hs_parse(*text, len, &err);
  if (!d) fail_msg("%s:%u:%u: %s", path, err.line, err.col, err.message);
  return d;
}

static const char *str_at(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static void stage_is_named_from_the_text(void **state) {
  (void)state;
  char *t1, *t2;
  hs_doc *before = parse_file(NAIVE "/dump/module_0001.jit_naive_attention.before_optimizations.txt", &t1, 0);
  hs_doc *after = parse_file(NAIVE "/dump/module_0001.jit_naive_attention.cpu_after_optimizations.txt", &t2, 0);
  if (!before || !after) {
    print_message("SKIPPED: the naive_attention capture has no dump folder\n");
    skip();
  }
  json_t *s = tu_json(hs_summary_json(before, NULL));
  assert_string_equal(str_at(s, "stage"), "before_optimizations");
  assert_true(json_is_null(json_object_get(s, "partial")));
  json_decref(s);
  s = tu_json(hs_summary_json(after, NULL));
  assert_string_equal(str_at(s, "stage"), "after_optimizations");
  json_decref(s);
  /* no spill, HBM or big-intermediate claim before optimizations: what is needed instead */
  s = tu_json(hs_spills_json(before, NULL));
  assert_true(json_is_null(json_object_get(s, "big")));
  assert_true(json_is_null(json_object_get(s, "hbm_bytes")));
  assert_int_equal(json_integer_value(json_object_get(s, "spill_bytes")), 0);
  assert_string_equal(str_at(s, "needs"), "optimized");
  assert_non_null(strstr(str_at(s, "explanation"), "after optimizations"));
  json_decref(s);
  s = tu_json(hs_spills_json(after, NULL));
  assert_true(json_is_null(json_object_get(s, "needs")));
  assert_false(json_is_null(json_object_get(s, "big")));
  json_decref(s);
  hs_doc_free(before);
  hs_doc_free(after);
  free(t1);
  free(t2);
}

static void a_dump_cut_before_its_entry_is_partial_and_names_no_big_intermediate(void **state) {
  (void)state;
  char *t;
  size_t len = 0;
  char *whole = tu_read(NAIVE "/after_optimizations.txt", &len);
  assert_non_null(whole);
  /* the first 60% of the text, cut at a line end, before the ENTRY computation */
  size_t cut = len * 6 / 10;
  while (cut > 0 && whole[cut - 1] != '\n') cut--;
  const char *entry = strstr(whole, "\nENTRY ");
  assert_non_null(entry);
  assert_true(cut < (size_t)(entry - whole));
  hs_doc *d = parse_file(NAIVE "/after_optimizations.txt", &t, cut);
  json_t *s = tu_json(hs_summary_json(d, NULL));
  json_t *p = json_object_get(s, "partial");
  assert_true(json_is_object(p));
  assert_false(json_is_true(json_object_get(p, "entry")));
  /* the last computation opened before the cut, named in the text */
  const char *open = NULL;
  for (const char *q = whole; q && q < whole + cut; q = strchr(q + 1, '\n'))
    if (q[0] == '\n' && q[1] == '%' && q < whole + cut - 1) open = q + 2;
  assert_non_null(open);
  const char *inside = str_at(p, "inside");
  assert_non_null(inside);
  assert_memory_equal(inside, open, strlen(inside));
  json_decref(s);
  s = tu_json(hs_spills_json(d, NULL));
  assert_true(json_is_null(json_object_get(s, "big")));
  assert_string_equal(str_at(s, "needs"), "entry");
  json_decref(s);
  hs_doc_free(d);
  free(t);
  free(whole);
}

/* The 1-based line of the first line containing `needle`. */
static int line_of(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  if (!at) return -1;
  int n = 1;
  for (const char *q = text; q < at; q++) n += *q == '\n';
  return n;
}

static void carriers_are_the_lines_a_learner_acts_on(void **state) {
  (void)state;
  const char *dir = tu_captures();
  TU_SKIP_UNLESS(dir, "captures/tpu-v6e");
  char lp[1200], rp[1200];
  snprintf(lp, sizeof lp, "%s/jit_naive_attention.stablehlo.mlir", dir);
  snprintf(rp, sizeof rp, "%s/jit_naive_attention.after_optimizations.trimmed.txt", dir);
  char *lt, *rt;
  hs_doc *l = parse_file(lp, &lt, 0), *r = parse_file(rp, &rt, 0);
  json_t *x = tu_json(hs_xray_json(l, r, NULL));
  json_t *sum = json_object_get(x, "summary");
  assert_int_equal(json_integer_value(json_object_get(sum, "carry")), 3);
  int want[3] = {line_of(rt, "ROOT %convolution"), line_of(rt, "kind=kOutput"), line_of(rt, "ROOT %online-softmax")};
  int got[3], n = 0, underlined = 0;
  json_t *line;
  size_t i;
  json_array_foreach(json_object_get(x, "right"), i, line) {
    if (json_is_true(json_object_get(line, "carries"))) underlined++;
    if (json_is_true(json_object_get(line, "carrier")) && n < 3) got[n++] = (int)json_integer_value(json_object_get(line, "line"));
  }
  assert_int_equal(n, 3);
  for (int k = 0; k < 3; k++) assert_int_equal(got[k], want[k]);
  assert_true(underlined >= 3);
  json_decref(x);
  hs_doc_free(l);
  hs_doc_free(r);
  free(lt);
  free(rt);
}

static void carriers_on_cpu_attention_leave_context_lines_uncounted(void **state) {
  (void)state;
  char *lt, *rt;
  hs_doc *l = parse_file(NAIVE "/stablehlo.mlir", &lt, 0), *r = parse_file(NAIVE "/after_optimizations.txt", &rt, 0);
  json_t *x = tu_json(hs_xray_json(l, r, NULL));
  json_t *sum = json_object_get(x, "summary");
  size_t i, counted = 0, typed = 0;
  json_t *line;
  json_array_foreach(json_object_get(x, "right"), i, line) {
    counted += json_is_true(json_object_get(line, "carrier"));
    typed += json_is_true(json_object_get(line, "carries"));
  }
  assert_int_equal(json_integer_value(json_object_get(sum, "carry")), counted);
  assert_true(counted >= 2);  /* the kernel writing it and at least one reading it */
  assert_true(typed > counted); /* fused-body parameters and converts of that type: context only */
  json_decref(x);
  hs_doc_free(l);
  hs_doc_free(r);
  free(lt);
  free(rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stage_is_named_from_the_text),
      cmocka_unit_test(a_dump_cut_before_its_entry_is_partial_and_names_no_big_intermediate),
      cmocka_unit_test(carriers_are_the_lines_a_learner_acts_on),
      cmocka_unit_test(carriers_on_cpu_attention_leave_context_lines_uncounted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
