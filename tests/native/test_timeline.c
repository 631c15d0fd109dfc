/* Native tests of the timeline (hs_profile_timeline_json) and of the per-program keying.
 *
 * Where expected values come from:
 *  - tests/oracle/profile/xprof_reference.json: XProf 2.24.2's own HLO Op Stats, per (program id, op):
 *    occurrences and self time. The exposed time of a copy-done is XProf's self time of it.
 *  - tests/oracle/profile/jaxlib_reference.json: jaxlib's profile data API (jax.profiler.ProfileData,
 *    XLA's C++ XSpace reader), a second reader of the same files: planes, lines, events.
 *  - ../shared/captures/README.md: the MI300X GEMMs are custom calls to the BLAS library.
 *  - the dump text itself: the line an op joins to is the line that defines it ("%name = ").
 * Shared captures are read in place; the tests that need them say SKIPPED when absent. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "testutil.h"

/* A profile of ../shared/captures/profiles; NULL when absent or hidden (HLOSCOPE_NO_SHARED). */
static const char *shared_profile_path(const char *name) {
  static char path[2048];
  char rel[1024];
  snprintf(rel, sizeof rel, "captures/profiles/%s", name);
  return tu_shared(path, sizeof path, rel);
}

#define NEED(path) TU_SKIP_UNLESS(path, "captures")

static hs_profile *load(const char *path) {
  size_t len = 0;
  char *data = tu_read(path, &len);
  if (!data) fail_msg("cannot read %s", path);
  hs_error err;
  hs_profile *p = hs_profile_parse(data, len, &err);
  free(data);
  if (!p) fail_msg("%s: %s", path, err.message);
  return p;
}

static json_t *timeline(const char *path, const hs_doc *hlo, const hs_doc *shlo, const char *program) {
  hs_profile *p = load(path);
  hs_timeline_options o = {hlo, shlo, program};
  json_t *j = tu_json(hs_profile_timeline_json(p, &o, NULL));
  hs_profile_free(p);
  assert_non_null(j);
  return j;
}

static json_t *profile(const char *path) {
  hs_profile *p = load(path);
  json_t *j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_non_null(j);
  return j;
}

static const char *sget(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static long long iget(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static json_t *load_ref(const char *name) {
  char path[2048];
  tu_oracle(path, sizeof path, "profile", name);
  json_error_t e;
  json_t *r = json_load_file(path, 0, &e);
  if (!r) fail_msg("cannot read %s: %s", path, e.text);
  return r;
}

static json_t *find_row(json_t *j, const char *name, const char *pid) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "rows"), i, x) {
    if (strcmp(sget(x, "name"), name) != 0) continue;
    if (!pid || (sget(x, "program_id") && strcmp(sget(x, "program_id"), pid) == 0)) return x;
  }
  return NULL;
}

/* Each copy-start/copy-done pair: in flight, exposed and hidden; exposed = the copy-done's self
 * time on TPU:0 (the chip whose transfers can be told) = XProf's per occurrence (XProf, like the
 * row, merges the four TPU chips). */
static void test_tpu_async_pairs(void **state) {
  (void)state;
  const char *path = shared_profile_path("xprof_tpu_inference_2.xplane.pb");
  NEED(path);
  json_t *j = timeline(path, NULL, NULL, NULL);
  json_t *root = load_ref("xprof_reference.json");
  json_t *ref = json_object_get(json_object_get(json_object_get(root, "profiles"), "shared/xprof_tpu_inference_2.xplane.pb"),
                                "rows");
  size_t i, k, pairs = 0;
  json_t *a, *r;
  json_array_foreach(json_object_get(j, "rows"), i, a) {
    if (strncmp(sget(a, "name"), "copy-done", 9) != 0) continue;
    json_t *found = NULL, *x;
    json_array_foreach(json_object_get(j, "async"), k, x) if (strcmp(sget(x, "done"), sget(a, "name")) == 0) found = x;
    if (!found) fail_msg("%s has no async pair", sget(a, "name"));
    assert_int_equal(strncmp(sget(found, "start"), "copy-start", 10), 0);
    assert_string_equal(sget(a, "kind"), "copy");
    long long fl = iget(found, "in_flight_ps"), ex = iget(found, "exposed_ps"), hid = iget(found, "hidden_ps");
    assert_true(fl >= ex);
    assert_int_equal(hid, fl - ex);
    /* the pairs are told on TPU:0 only (the one chip with Async XLA Ops events): they match
     * that chip's share of the row, which sums the four */
    json_t *tpu0 = NULL, *d;
    size_t m;
    json_array_foreach(json_object_get(a, "devices"), m, d) if (strcmp(sget(d, "plane"), "/device:TPU:0") == 0) tpu0 = d;
    assert_non_null(tpu0);
    assert_int_equal(iget(a, "device_count"), 4);
    assert_int_equal(iget(found, "occurrences"), iget(tpu0, "occurrences"));
    assert_int_equal(iget(found, "exposed_total_ps"), iget(tpu0, "self_ps"));
    assert_non_null(strstr(sget(found, "sentence"), "exposed"));
    /* XProf's self time of this copy-done, per occurrence */
    json_t *mine = NULL;
    json_array_foreach(ref, k, r) if (strcmp(sget(r, "name"), sget(a, "name")) == 0 &&
                                      strcmp(sget(r, "program_id"), sget(a, "program_id")) == 0) mine = r;
    assert_non_null(mine);
    long long occ = iget(found, "occurrences"), xocc = iget(mine, "occurrences");
    assert_int_equal(iget(a, "occurrences"), xocc); /* XProf merges the four chips, as the row does */
    double ours = (double)iget(found, "exposed_total_ps") / (double)occ;
    double theirs = json_number_value(json_object_get(mine, "self_us")) * 1e6 / (double)xocc;
    if (theirs >= 1e6) { /* ops of a microsecond or more (see test_profile.c on the cores' spread) */
      double diff = ours > theirs ? ours - theirs : theirs - ours;
      if (diff > theirs * 0.01) fail_msg("%s exposed %.0f ps per occurrence, XProf self %.0f", sget(a, "name"), ours, theirs);
    }
    pairs++;
  }
  assert_int_equal(pairs, 6);
  assert_non_null(strstr(sget(j, "reading"), "async pair"));
  json_decref(j);
  json_decref(root);
}

/* The MI300X GEMMs: custom calls to the BLAS library. */
static void test_gpu_library_kernels(void **state) {
  (void)state;
  const char *names[] = {"tracelens_mi300_jax08_gemm.xplane.pb", "tracelens_mi300_jax08_attention.xplane.pb"};
  for (int n = 0; n < 2; n++) {
    const char *path = shared_profile_path(names[n]);
    NEED(path);
    json_t *j = timeline(path, NULL, NULL, NULL);
    size_t i, libs = 0;
    json_t *x;
    json_array_foreach(json_object_get(j, "rows"), i, x) {
      if (strncmp(sget(x, "name"), "custom-call", 11) != 0) continue;
      assert_string_equal(sget(x, "kind"), "custom");
      assert_non_null(strstr(sget(x, "target"), "blas"));
      assert_string_equal(sget(x, "written_by"), "library");
      libs++;
    }
    assert_true(libs > 0);
    json_decref(j);
  }
}

/* Per (program id, op): occurrences and self time as XProf's HLO Op Stats. */
static void test_xprof_per_program(void **state) {
  (void)state;
  NEED(shared_profile_path("xprof_tpu_inference_2.xplane.pb")); /* XProf's rows are of the shared profiles */
  json_t *ref = load_ref("xprof_reference.json");
  const char *key;
  json_t *want;
  size_t compared = 0;
  json_object_foreach(json_object_get(ref, "profiles"), key, want) {
    json_t *rows = json_object_get(want, "rows");
    if (!json_array_size(rows) || strncmp(key, "shared/", 7) != 0) continue;
    const char *path = shared_profile_path(key + 7);
    if (!path) fail_msg("%s: the reference names it, ../shared/captures/profiles lacks it", key);
    bool tpu = strstr(key, "tpu") != NULL;
    json_t *j = profile(path);
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
      json_t *o = NULL, *x;
      size_t k;
      json_array_foreach(json_object_get(j, "ops"), k, x) if (strcmp(sget(x, "name"), sget(r, "name")) == 0 &&
                                                            sget(x, "program_id") &&
                                                            strcmp(sget(x, "program_id"), sget(r, "program_id")) == 0) o = x;
      if (!o) fail_msg("%s: XProf has %s in program %s, we do not", key, sget(r, "name"), sget(r, "program_id"));
      long long occ = iget(o, "occurrences"), xocc = iget(r, "occurrences");
      double self = (double)iget(o, "self_ps"), xself = json_number_value(json_object_get(r, "self_us")) * 1e6;
      if (tpu) { /* XProf merges the four TPU cores */
        assert_true(xocc % occ == 0 && xocc / occ <= 4);
        compared++;
        continue;
      }
      assert_int_equal(occ, xocc);
      double diff = self > xself ? self - xself : xself - self;
      if (diff > xself * 0.01 + 1.0) fail_msg("%s: %s (%s) self %.0f ps, XProf %.0f", key, sget(r, "name"), sget(r, "program_id"), self, xself);
      compared++;
    }
    /* and no op of ours that XProf lacks */
    if (!tpu) assert_int_equal(json_array_size(json_object_get(j, "ops")), json_array_size(rows));
    json_decref(j);
  }
  print_message("(program id, op) rows compared with XProf: %zu\n", compared);
  assert_true(compared > 0);
  json_decref(ref);
}

/* jaxlib's profile data API reads the same planes, lines and events per line. */
static void test_jaxlib_second_reader(void **state) {
  (void)state;
  json_t *ref = load_ref("jaxlib_reference.json");
  const char *key;
  json_t *want;
  size_t files = 0;
  json_object_foreach(json_object_get(ref, "profiles"), key, want) {
    char path[2048];
    if (strncmp(key, "shared/", 7) == 0) {
      const char *sp = shared_profile_path(key + 7);
      if (!sp) continue;
      snprintf(path, sizeof path, "%s", sp);
    } else {
      snprintf(path, sizeof path, "%s/%s", HS_SOURCE_DIR, key);
    }
    json_t *j = profile(path);
    json_t *planes = json_object_get(j, "planes"), *wp = json_object_get(want, "planes");
    assert_int_equal(json_array_size(planes), json_array_size(wp));
    size_t i, k;
    json_t *p, *l;
    json_array_foreach(wp, i, p) {
      json_t *ours = json_array_get(planes, i);
      assert_string_equal(sget(ours, "name"), sget(p, "name"));
      assert_int_equal(json_array_size(json_object_get(ours, "lines")), json_array_size(json_object_get(p, "lines")));
      json_array_foreach(json_object_get(p, "lines"), k, l) {
        json_t *ol = json_array_get(json_object_get(ours, "lines"), k);
        assert_string_equal(sget(ol, "name"), sget(l, "name"));
        if (iget(ol, "events") != iget(l, "events"))
          fail_msg("%s: %s / %s: %lld events, jaxlib %lld", key, sget(p, "name"), sget(l, "name"), iget(ol, "events"),
                   iget(l, "events"));
      }
    }
    json_decref(j);
    files++;
  }
  print_message("profiles compared with jaxlib %s: %zu\n", sget(ref, "jax"), files);
  assert_true(files >= 10);
  json_decref(ref);
}

/* The join to an optimized HLO dump: each op gets the dump line that defines it. */
static void test_hlo_join(void **state) {
  (void)state;
  const char *sets[] = {"cpu-jax-0.10.2/softmax", "cpu-jax-0.4.38/softmax", "cpu-jax-0.10.2/scan"};
  for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
    char path[2048], dump[2048], shlo[2048];
    snprintf(path, sizeof path, "%s/fixtures/%s/profile.xplane.pb", HS_SOURCE_DIR, sets[s]);
    snprintf(dump, sizeof dump, "%s/fixtures/%s/after_optimizations.txt", HS_SOURCE_DIR, sets[s]);
    snprintf(shlo, sizeof shlo, "%s/fixtures/%s/stablehlo.mlir", HS_SOURCE_DIR, sets[s]);
    size_t dl = 0, sl = 0;
    char *dt = tu_read(dump, &dl), *st = tu_read(shlo, &sl);
    assert_non_null(dt);
    assert_non_null(st);
    hs_error err;
    hs_doc *d = hs_parse(dt, dl, &err), *sd = hs_parse(st, sl, &err);
    assert_non_null(d);
    assert_non_null(sd);
    json_t *j = timeline(path, d, sd, NULL);
    size_t i, joined = 0;
    json_t *x;
    json_array_foreach(json_object_get(j, "rows"), i, x) {
      json_t *h = json_object_get(x, "hlo");
      if (!json_is_object(h)) fail_msg("%s: %s has no HLO line", sets[s], sget(x, "name"));
      char needle[600];
      snprintf(needle, sizeof needle, "%%%s = ", sget(x, "name"));
      if (!strstr(sget(h, "text"), needle)) fail_msg("%s: line %lld does not define %s", sets[s], iget(h, "line"), sget(x, "name"));
      /* the line number is the line of the dump that holds that text */
      const char *t = dt;
      for (long long n = 1; n < iget(h, "line"); n++) t = strchr(t, '\n') + 1;
      assert_int_equal(strncmp(t, sget(h, "text"), strlen(sget(h, "text"))), 0);
      const char *wb = sget(x, "written_by");
      assert_true(strcmp(wb, "program") == 0 || strcmp(wb, "library") == 0 || strcmp(wb, "compiler") == 0 ||
                  strcmp(wb, "unknown") == 0);
      double share = json_number_value(json_object_get(x, "share"));
      assert_true(share >= 0 && share <= 1.0 + 1e-9);
      joined++;
    }
    assert_true(joined > 0);
    json_decref(j);
    hs_doc_free(d);
    hs_doc_free(sd);
    free(dt);
    free(st);
  }
}

/* --program keeps one program, by name or by id. */
static void test_program_filter(void **state) {
  (void)state;
  const char *path = shared_profile_path("tracelens_mi300_jax08_attention.xplane.pb");
  NEED(path);
  /* three programs named jit_add (XProf: program ids 71, 88, 94) stay three */
  json_t *j = timeline(path, NULL, NULL, "jit_add");
  assert_int_equal(json_array_size(json_object_get(j, "programs")), 3);
  assert_non_null(find_row(j, "loop_convert_fusion", "71"));
  assert_non_null(find_row(j, "loop_convert_fusion", "88"));
  assert_non_null(find_row(j, "loop_convert_fusion", "94"));
  json_decref(j);
  j = timeline(path, NULL, NULL, "88");
  assert_int_equal(json_array_size(json_object_get(j, "programs")), 1);
  assert_int_equal(json_array_size(json_object_get(j, "rows")), 1);
  json_t *r = find_row(j, "loop_convert_fusion", "88");
  assert_non_null(r);
  /* one op in the program: its share of the envelope is whole, per run = total / runs */
  json_t *g = json_array_get(json_object_get(j, "programs"), 0);
  assert_int_equal(iget(r, "per_run_ps"), iget(r, "total_ps") / iget(g, "runs"));
  json_decref(j);
  j = timeline(path, NULL, NULL, "no_such_program");
  assert_int_equal(json_array_size(json_object_get(j, "rows")), 0);
  assert_true(json_array_size(json_object_get(j, "warnings")) > 0);
  json_decref(j);
}

/* A trace of another tool: says what it holds and that it lacks HLO ops. */
static void test_not_xla(void **state) {
  (void)state;
  const char *tf = "{\"traceEvents\":["
                   "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/job:localhost/replica:0/task:0/device:CPU:0\"}},"
                   "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":3,\"name\":\"MatMul\",\"args\":{\"long_name\":\"MatMul:MatMul\"}},"
                   "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":3,\"name\":\"BiasAdd\"}]}";
  hs_error err;
  hs_profile *p = hs_profile_parse(tf, strlen(tf), &err);
  assert_non_null(p);
  json_t *j = tu_json(hs_profile_timeline_json(p, NULL, NULL));
  hs_profile_free(p);
  assert_int_equal(json_array_size(json_object_get(j, "rows")), 0);
  const char *reading = sget(j, "reading");
  assert_non_null(strstr(reading, "no HLO ops"));
  assert_non_null(strstr(reading, "2 events"));
  assert_non_null(strstr(reading, "/job:localhost/replica:0/task:0/device:CPU:0"));
  assert_string_equal(sget(json_array_get(json_object_get(j, "warnings"), 0), "code"), "HS_W_PROFILE_NO_DEVICE");
  json_decref(j);
}


/* Who wrote a kernel, on XLA:TPU's naive attention (../shared/captures/tpu-v6e): the optimized
 * module's ROOT is %online-softmax, a custom call to tpu_custom_call, and the program's StableHLO
 * holds no custom_call: the compiler substituted it. %fusion carries the program's op_name. The
 * profile is a minimal trace JSON naming those two ops on a TPU XLA Ops line; what is checked
 * comes from the two dump texts. */
static void test_compiler_kernel(void **state) {
  (void)state;
  char dump[2048], shlo[2048];
  size_t dl = 0, sl = 0;
  char *dt = tu_shared(dump, sizeof dump, "captures/tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt") ? tu_read(dump, &dl) : NULL;
  char *st = tu_shared(shlo, sizeof shlo, "captures/tpu-v6e/jit_naive_attention.stablehlo.mlir") ? tu_read(shlo, &sl) : NULL;
  if (!dt || !st) {
    free(dt);
    free(st);
    NEED((const char *)NULL);
  }
  hs_error err;
  hs_doc *d = hs_parse(dt, dl, &err), *sd = hs_parse(st, sl, &err);
  assert_non_null(d);
  assert_non_null(sd);
  const char *tr = "{\"traceEvents\":["
                   "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:0\"}},"
                   "{\"ph\":\"M\",\"pid\":2,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},"
                   "{\"ph\":\"M\",\"pid\":2,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Modules\"}},"
                   "{\"ph\":\"X\",\"pid\":2,\"tid\":2,\"ts\":0,\"dur\":100,\"name\":\"jit_naive_attention(7)\"},"
                   "{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":10,\"dur\":30,\"name\":\"fusion\"},"
                   "{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":50,\"dur\":40,\"name\":\"online-softmax\"}]}";
  hs_profile *p = hs_profile_parse(tr, strlen(tr), &err);
  assert_non_null(p);
  hs_timeline_options with = {d, sd, NULL}, without = {d, NULL, NULL};
  json_t *j = tu_json(hs_profile_timeline_json(p, &with, NULL));
  json_t *k = tu_json(hs_profile_timeline_json(p, &without, NULL));
  hs_profile_free(p);
  json_t *os = find_row(j, "online-softmax", "7"), *fu = find_row(j, "fusion", "7");
  assert_non_null(os);
  assert_non_null(fu);
  assert_string_equal(sget(os, "kind"), "custom");
  assert_string_equal(sget(os, "target"), "tpu_custom_call");
  assert_string_equal(sget(os, "written_by"), "compiler");
  assert_int_equal(iget(json_object_get(os, "hlo"), "line"), 30);
  assert_string_equal(sget(fu, "written_by"), "program");
  assert_string_equal(sget(fu, "kind"), "fusion");
  assert_string_equal(sget(find_row(k, "online-softmax", "7"), "written_by"), "unknown"); /* no StableHLO: cannot tell */
  assert_non_null(strstr(sget(j, "reading"), "1 kernel no line of the program asked for"));
  json_decref(j);
  json_decref(k);
  hs_doc_free(d);
  hs_doc_free(sd);
  free(dt);
  free(st);
}

/* Several files as one profile (the multi-process capture, fixtures/profiles/): one host per
 * file, named by the file; a file that is not a profile, or a cut one, is named in the error or
 * its warning; no file at all is an error. */
static void test_several_files(void **state) {
  (void)state;
  const char *names[] = {"process_0.xplane.pb", "process_1.xplane.pb", "process_2.xplane.pb"};
  hs_profile_input in[3];
  char *data[3], paths[3][2048];
  for (int k = 0; k < 3; k++) {
    snprintf(paths[k], sizeof paths[k], "%s/fixtures/profiles/multiprocess-cpu-jax-0.10.2/%s", HS_SOURCE_DIR, names[k]);
    size_t len = 0;
    data[k] = tu_read(paths[k], &len);
    assert_non_null(data[k]);
    in[k].name = paths[k]; /* a path keeps its base name */
    in[k].data = data[k];
    in[k].len = len;
    hs_error err;
    if (k < 2) continue;
    hs_profile *p = hs_profile_parse_files(in, 3, &err);
    assert_non_null(p);
    json_t *j = tu_json(hs_profile_timeline_json(p, NULL, NULL));
    assert_int_equal(json_array_size(json_object_get(j, "hosts")), 3);
    for (int h = 0; h < 3; h++) assert_string_equal(sget(json_array_get(json_object_get(j, "hosts"), h), "file"), names[h]);
    assert_string_equal(sget(json_array_get(json_object_get(j, "hosts"), 0), "host"), "vm"); /* the XSpace's hostnames */
    json_decref(j);
    hs_profile_free(p);
  }
  for (int k = 0; k < 3; k++) in[k].name = names[k];
  hs_error err;
  in[1].data = "garbage";
  in[1].len = 7;
  assert_null(hs_profile_parse_files(in, 3, &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_int_equal(strncmp(err.message, "process_1.xplane.pb: ", 21), 0);
  /* a cut file: what was read before the cut, with a warning */
  in[1].data = data[1];
  in[1].len = 4000;
  hs_profile *p = hs_profile_parse_files(in, 3, &err);
  assert_non_null(p);
  json_t *j = tu_json(hs_profile_json(p, NULL));
  assert_true(json_array_size(json_object_get(j, "warnings")) > 0);
  json_decref(j);
  hs_profile_free(p);
  assert_null(hs_profile_parse_files(in, 0, &err));
  assert_int_equal(err.code, HS_E_EMPTY);
  for (int k = 0; k < 3; k++) free(data[k]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tpu_async_pairs),  cmocka_unit_test(test_gpu_library_kernels),
      cmocka_unit_test(test_xprof_per_program), cmocka_unit_test(test_jaxlib_second_reader),
      cmocka_unit_test(test_hlo_join),          cmocka_unit_test(test_program_filter),
      cmocka_unit_test(test_not_xla),           cmocka_unit_test(test_compiler_kernel),
      cmocka_unit_test(test_several_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
