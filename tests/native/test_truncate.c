/* Malformed input: every capture and fixture, truncated at many points and garbled in several
 * ways, must give an error or a partial result: never a crash, a hang or a leak (this test runs
 * under AddressSanitizer and UndefinedBehaviorSanitizer in CI). Also pathological shapes that
 * would expose quadratic time or unbounded recursion. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

static size_t n_inputs, n_docs, n_errors;

static void exercise(const char *text, size_t len) {
  hs_error err;
  hs_doc *d = hs_parse(text, len, &err);
  n_inputs++;
  if (!d) {
    assert_true(err.code < 0);
    assert_true(err.message[0] != 0);
    char *e = hs_error_json(&err, NULL);
    assert_non_null(e);
    hs_free(e);
    n_errors++;
    return;
  }
  n_docs++;
  char *(*fns[])(const hs_doc *, size_t *) = {hs_summary_json, hs_fusions_json, hs_spills_json, hs_computations_json,
                                                 hs_decisions_json};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    size_t n = 0;
    char *s = fns[i](d, &n);
    assert_non_null(s);
    json_error_t je;
    json_t *j = json_loadb(s, n, 0, &je);
    if (!j) fail_msg("invalid JSON from result %zu: %s", i, je.text);
    json_decref(j);
    hs_free(s);
  }
  char *x = hs_xray_json(d, d, NULL);
  assert_non_null(x);
  hs_free(x);
  hs_doc_free(d);
}

static void torture(const char *text, size_t len) {
  /* truncations: ~150 evenly spread cut points plus every cut in the first 300 bytes */
  size_t step = len / 100 + 1;
  for (size_t cut = 0; cut <= len; cut += (cut < 300 ? 1 : step)) exercise(text, cut);
  char *buf = malloc(len + 1);
  assert_non_null(buf);
  /* garbles: a byte replaced by each of a few troublesome characters at spread positions */
  const char subst[] = {'{', '}', '(', ')', '"', '\n', '%', '=', ',', '\0', (char)0xff};
  for (size_t k = 0; k < 20 && len; k++) {
    size_t pos = (k * 7919u) % len;
    for (size_t s = 0; s < sizeof subst; s++) {
      memcpy(buf, text, len);
      buf[pos] = subst[s];
      exercise(buf, len);
    }
  }
  /* a line deleted */
  for (size_t k = 0; k < 20 && len; k++) {
    size_t pos = (k * 104729u) % len;
    const char *nl = memchr(text + pos, '\n', len - pos);
    if (!nl) continue;
    const char *nl2 = memchr(nl + 1, '\n', len - (size_t)(nl + 1 - text));
    if (!nl2) continue;
    size_t a = (size_t)(nl - text), b = (size_t)(nl2 - text);
    memcpy(buf, text, a);
    memcpy(buf + a, text + b, len - b);
    exercise(buf, len - (b - a));
  }
  free(buf);
}

/* A run can be one shard of N (argv "K/N": ctest runs truncate/0 .. truncate/N-1 side by side):
 * the units of work (each file, each pathological shape) are numbered in the order they are met,
 * the same in every shard, and this run does those numbered K mod N. */
static unsigned shard_k = 0, shard_n = 1, unit_no = 0;
static bool mine(void) { return unit_no++ % shard_n == shard_k; }

static void torture_file(const char *path) {
  if (!mine()) return;
  size_t len;
  char *t = tu_read(path, &len);
  if (!t) return;
  torture(t, len);
  free(t);
}

static void torture_one(const char *path, void *ctx) {
  (void)ctx;
  torture_file(path);
}

static void test_captures(void **state) {
  (void)state;
  TU_NEED_SHARED("captures/tpu-v6e");
  long n = tu_each_shared("captures/tpu-v6e", "", torture_one, NULL);
  print_message("shared capture files tortured: %ld\n", n);
  assert_true(n >= 9); /* three programs, three texts each (../shared/captures/README.md) */
}

/* our own captures: fixtures/cpu-jax-<version>/<id>/{after_optimizations.txt,stablehlo.mlir},
 * the first 12 ids of each version. Every fixture holds both; a file of 300 KB or more is
 * counted but not tortured (its ~150 cuts would take minutes under the sanitizers). */
typedef struct {
  size_t tortured, present;
} fixture_count;

static void torture_fixture(const char *dir, void *ctx) {
  fixture_count *c = ctx;
  const char *names[] = {"after_optimizations.txt", "stablehlo.mlir"};
  for (int k = 0; k < 2; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    struct stat st;
    if (stat(path, &st) != 0) fail_msg("%s is missing: every fixture holds it", path);
    c->present++;
    if (st.st_size < 300000) {
      torture_file(path);
      c->tortured++;
    }
  }
}

static void test_fixtures(void **state) {
  (void)state;
  fixture_count c = {0, 0};
  size_t folders = tu_each_fixture(12, torture_fixture, &c);
  print_message("fixture files tortured: %zu of %zu in %zu fixture folders\n", c.tortured, c.present, folders);
  assert_true(folders >= 3 * 12); /* three jax versions, at least 12 programs each (fixtures/README.md) */
  assert_int_equal(c.present, 2 * folders);
  assert_true(c.tortured >= folders); /* at least one text of every folder */
}

static void test_pathological(void **state) {
  (void)state;
  size_t n = 1 << 20;
  char *b = malloc(n + 64);
  assert_non_null(b);
  const char *heads[] = {"HloModule m\nENTRY %e {\n  %a = f32[1] custom-call(", "HloModule m\nENTRY %e (", "module @m {\n  %0 = ",
                         "HloModule m\nENTRY %e {\n  %a = ("};
  const char fills[] = {'(', '{', '[', '"', '}', '\n', '<'};
  for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
    for (size_t f = 0; f < sizeof fills; f++) {
      size_t hl = strlen(heads[h]);
      memcpy(b, heads[h], hl);
      if (!mine()) continue;
      memset(b + hl, fills[f], n - hl);
      exercise(b, n);
    }
  }
  /* a million tiny lines */
  if (!mine()) {
    free(b);
    return;
  }
  for (size_t i = 0; i < n; i += 2) {
    b[i] = '}';
    b[i + 1] = '\n';
  }
  memcpy(b, "HloModule m\n", 12);
  exercise(b, n);
  free(b);
}

/* One instruction calling 70,000 computations: hloscope follows the first 65,535 (an
 * instruction's call count is 16 bits) and says so, at that name; the rest of the text reads on. */
static void test_too_many_calls(void **state) {
  (void)state;
  if (!mine()) return; /* another shard runs it */
  const unsigned n_branches = 70000;
  size_t cap = (size_t)n_branches * 16 + 256, len = 0;
  char *b = malloc(cap);
  assert_non_null(b);
  len += (size_t)snprintf(b + len, cap - len, "HloModule m\n\nENTRY %%e (p: s32[]) -> f32[] {\n  %%p = s32[] parameter(0)\n"
                                              "  ROOT %%c = f32[] conditional(%%p), branch_computations={");
  for (unsigned i = 0; i < n_branches; i++) len += (size_t)snprintf(b + len, cap - len, "%s%%b%u", i ? ", " : "", i);
  len += (size_t)snprintf(b + len, cap - len, "}\n}\n");
  hs_error err;
  hs_doc *d = hs_parse(b, len, &err);
  assert_non_null(d);
  assert_int_equal(hs_doc_instruction_count(d), 2);
  char *sum = hs_summary_json(d, NULL);
  assert_non_null(sum);
  assert_non_null(strstr(sum, "hloscope follows the first 65535"));
  assert_non_null(strstr(sum, "\"line\":5"));
  const char *first = strstr(sum, "hloscope follows the first 65535");
  assert_null(strstr(first + 1, "hloscope follows the first 65535")); /* once */
  hs_free(sum);
  hs_doc_free(d);
  free(b);
}

int main(int argc, char **argv) {
  if (argc > 1 && (sscanf(argv[1], "%u/%u", &shard_k, &shard_n) != 2 || shard_n == 0 || shard_k >= shard_n)) {
    fprintf(stderr, "usage: test_truncate [K/N]: the K-th of N shards (0 <= K < N)\n");
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_captures),
      cmocka_unit_test(test_fixtures),
      cmocka_unit_test(test_pathological),
      cmocka_unit_test(test_too_many_calls),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  printf("shard %u of %u: inputs %zu (documents %zu, errors %zu)\n", shard_k, shard_n, n_inputs, n_docs, n_errors);
  return rc;
}
