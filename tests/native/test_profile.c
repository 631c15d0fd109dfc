/* Native tests of the profile reader: the shared TPU and GPU captures (read in place from
 * ../shared), our own CPU profiles under fixtures/, small inline inputs, and a truncate/garble
 * torture of every profile.
 *
 * Where expected values come from:
 *  - ../shared/captures/README.md: what each capture holds (TPU: /host:metadata HloProtos, the
 *    XLA Modules / XLA Ops / Async XLA Ops lines, copy-start/copy-done, a broadcast_add_fusion,
 *    an all-reduce; MI300: GEMM custom-calls on Stream #N(...) lines with hlo_op / hlo_module /
 *    program_id stats).
 *  - tests/oracle/profile/wire_facts.json: an independent reading of the same files by
 *    tests/oracle/profile/wire_facts.py (Python, standard library only, no code shared with the core):
 *    per op occurrences and total time of the events the counting rules select, and the
 *    XLA Modules program names with their run counts.
 *  - fixtures/<set>/<id>/oracle.json (XLA's own instruction names for the module) and
 *    fixtures/README.md (module `jit_<id>`; the capture traces 5 calls after a warm-up).
 *  - tests/oracle/profile/xprof_reference.json: XProf's own per-op table. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

/* ../shared/captures/profiles (with the TPU sample); NULL when absent or hidden (HLOSCOPE_NO_SHARED). */
static const char *profiles_dir(void) {
  static char path[1024];
  char probe[1100];
  if (!tu_shared(probe, sizeof probe, "captures/profiles/xprof_tpu_inference_2.xplane.pb")) return NULL;
  return tu_shared(path, sizeof path, "captures/profiles");
}

#define NEED_PROFILES() TU_NEED_SHARED("captures/profiles/xprof_tpu_inference_2.xplane.pb")

/* Whole-file gunzip (the CLI does the same for .gz; the core never sees gzip). */
static char *gunzip_file(const char *path, size_t *len) {
  gzFile g = gzopen(path, "rb");
  if (!g) return NULL;
  size_t cap = 1 << 20, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    int k = gzread(g, buf + n, (unsigned)(cap - n));
    if (k < 0) {
      free(buf);
      buf = NULL;
      break;
    }
    if (k == 0) break;
    n += (size_t)k;
  }
  gzclose(g);
  if (buf) *len = n;
  return buf;
}

static char *read_profile_file(const char *path, size_t *len) {
  size_t pl = strlen(path);
  if (pl > 3 && strcmp(path + pl - 3, ".gz") == 0) return gunzip_file(path, len);
  return tu_read(path, len);
}

static json_t *profile_json(const char *path) {
  size_t len;
  char *data = read_profile_file(path, &len);
  if (!data) fail_msg("cannot read %s", path);
  hs_error err;
  hs_profile *p = hs_profile_parse(data, len, &err);
  free(data); /* the profile copies what it keeps */
  if (!p) fail_msg("%s:%u:%u: %s: %s", path, err.line, err.col, hs_code_name(err.code), err.message);
  json_t *j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_non_null(j);
  return j;
}

static json_t *shared_profile(const char *name) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", profiles_dir(), name);
  return profile_json(path);
}

static const char *sget(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static long long iget(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static json_t *find_plane(json_t *j, const char *name) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "planes"), i, x) if (strcmp(sget(x, "name"), name) == 0) return x;
  return NULL;
}

static long long line_events(json_t *plane, const char *name) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(plane, "lines"), i, x) if (strcmp(sget(x, "name"), name) == 0) return iget(x, "events");
  return -1;
}

static json_t *find_op(json_t *j, const char *name) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "ops"), i, x) if (strcmp(sget(x, "name"), name) == 0) return x;
  return NULL;
}

static json_t *wire_facts(const char *key) {
  static json_t *facts;
  if (!facts) {
    char path[2048];
    tu_oracle(path, sizeof path, "profile", "wire_facts.json");
    json_error_t e;
    facts = json_load_file(path, 0, &e);
    if (!facts) fail_msg("cannot read %s: %s", path, e.text);
  }
  return json_object_get(facts, key);
}

/* Every op's occurrences and total time equal the independent reading's, and nothing else.
 * The reading keys ops by (name, module); ours are per program id, so ours are summed by
 * (name, module) first (two programs may share a module name). */
static void check_against_wire_facts(json_t *j, const char *key) {
  json_t *f = wire_facts(key);
  assert_non_null(f);
  json_t *want = json_object_get(f, "ops");
  size_t i;
  json_t *x;
  long long counted = 0;
  json_t *ours = json_object();
  json_array_foreach(json_object_get(j, "ops"), i, x) {
    char k[1024];
    const char *mod = sget(x, "module");
    snprintf(k, sizeof k, "%s|%s", sget(x, "name"), mod ? mod : "None");
    assert_true(iget(x, "self_ps") <= iget(x, "total_ps"));
    json_t *t = json_object_get(ours, k);
    if (!t) {
      t = json_pack("[I,I]", (json_int_t)0, (json_int_t)0);
      json_object_set_new(ours, k, t);
    }
    json_array_set_new(t, 0, json_integer(json_integer_value(json_array_get(t, 0)) + iget(x, "occurrences")));
    json_array_set_new(t, 1, json_integer(json_integer_value(json_array_get(t, 1)) + iget(x, "total_ps")));
  }
  const char *k;
  json_t *t;
  json_object_foreach(ours, k, t) {
    json_t *w = json_object_get(want, k);
    if (!w) fail_msg("%s: op %s is not in wire_facts.json", key, k);
    assert_int_equal(json_integer_value(json_array_get(t, 0)), json_integer_value(json_array_get(w, 0)));
    assert_int_equal(json_integer_value(json_array_get(t, 1)), json_integer_value(json_array_get(w, 1)));
    counted += json_integer_value(json_array_get(t, 0));
  }
  assert_int_equal(json_object_size(ours), json_object_size(want));
  json_decref(ours);
  assert_int_equal(counted, json_integer_value(json_object_get(f, "counted_events")));
}

static void test_tpu_sample(void **state) {
  (void)state;
  NEED_PROFILES();
  json_t *j = shared_profile("xprof_tpu_inference_2.xplane.pb");
  assert_string_equal(sget(j, "format"), "xplane");
  /* every chip counted: the four /device:TPU:N planes with an XLA Ops line */
  json_t *dev = json_object_get(j, "device");
  assert_string_equal(sget(dev, "plane"), "/device:TPU:*");
  assert_string_equal(sget(dev, "line"), "XLA Ops");
  assert_int_equal(json_array_size(json_object_get(j, "devices")), 4);
  json_t *tpu0 = find_plane(j, "/device:TPU:0");
  assert_non_null(tpu0);
  assert_true(line_events(tpu0, "XLA Modules") > 0);
  assert_true(line_events(tpu0, "XLA Ops") > 0);
  assert_true(line_events(tpu0, "Async XLA Ops") > 0);
  assert_non_null(find_plane(j, "/host:metadata"));
  /* /host:metadata holds the programs' HloProtos */
  json_t *mods = json_object_get(j, "hlo_modules");
  assert_true(json_array_size(mods) > 0);
  int has_f = 0;
  size_t i;
  json_t *x;
  json_array_foreach(mods, i, x) has_f |= strcmp(json_string_value(x), "jit_f") == 0;
  assert_true(has_f);
  /* the ops README.md names */
  int copy_start = 0, copy_done = 0, all_reduce = 0;
  json_array_foreach(json_object_get(j, "ops"), i, x) {
    const char *n = sget(x, "name");
    copy_start |= strncmp(n, "copy-start", 10) == 0;
    copy_done |= strncmp(n, "copy-done", 9) == 0;
    all_reduce |= strncmp(n, "all-reduce", 10) == 0;
    assert_non_null(sget(x, "module"));
    assert_non_null(sget(x, "category"));
    if (i) assert_true(iget(x, "self_ps") <= iget(json_array_get(json_object_get(j, "ops"), i - 1), "self_ps"));
  }
  assert_true(copy_start && copy_done && all_reduce);
  json_t *bf = find_op(j, "broadcast_add_fusion");
  assert_non_null(bf);
  assert_string_equal(sget(bf, "module"), "jit_f");
  /* programs: the XLA Modules events of the independent reading; ids above 2^63 kept exact */
  json_t *progs = json_object_get(wire_facts("xprof_tpu_inference_2.xplane.pb"), "programs");
  assert_int_equal(json_array_size(json_object_get(j, "programs")), json_object_size(progs));
  json_array_foreach(json_object_get(j, "programs"), i, x) {
    char k[256];
    snprintf(k, sizeof k, "%s(%s)", sget(x, "name"), sget(x, "program_id"));
    json_t *w = json_object_get(progs, k);
    if (!w) fail_msg("program %s is not an XLA Modules event name", k);
    assert_int_equal(iget(x, "runs"), json_integer_value(w));
  }
  json_t *f = NULL;
  json_array_foreach(json_object_get(j, "programs"), i, x) if (strcmp(sget(x, "name"), "jit_f") == 0) f = x;
  assert_string_equal(sget(f, "program_id"), "12190760917235803885");
  /* per run = total over the chips / (runs of jit_f x the chips it ran on) */
  assert_int_equal(iget(f, "device_count"), 4);
  assert_int_equal(iget(bf, "devices"), 4);
  assert_int_equal(iget(bf, "per_run_ps"), iget(bf, "total_ps") / (iget(f, "runs") * 4));
  check_against_wire_facts(j, "xprof_tpu_inference_2.xplane.pb");
  json_decref(j);
}

static void test_gpu_samples(void **state) {
  (void)state;
  NEED_PROFILES();
  const char *names[] = {"tracelens_mi300_jax08_gemm.xplane.pb", "tracelens_mi300_jax08_attention.xplane.pb"};
  for (int k = 0; k < 2; k++) {
    json_t *j = shared_profile(names[k]);
    json_t *dev = json_object_get(j, "device");
    assert_non_null(dev);
    assert_int_equal(strncmp(sget(dev, "plane"), "/device:GPU:", 12), 0);
    assert_int_equal(strncmp(sget(dev, "line"), "Stream #", 8), 0);
    size_t i;
    json_t *x;
    int custom_call = 0;
    json_array_foreach(json_object_get(j, "ops"), i, x) {
      custom_call |= strncmp(sget(x, "name"), "custom-call", 11) == 0;
      assert_non_null(sget(x, "module"));
      assert_int_equal(strncmp(sget(x, "module"), "jit_", 4), 0);
      assert_int_equal(iget(x, "self_ps"), iget(x, "total_ps")); /* kernels do not nest */
    }
    if (k == 0) assert_true(custom_call); /* the GEMMs: custom-calls to the BLAS library */
    json_array_foreach(json_object_get(j, "programs"), i, x) {
      assert_non_null(sget(x, "program_id")); /* from the program_id stat */
      assert_true(iget(x, "runs") >= 1);
    }
    assert_true(json_array_size(json_object_get(j, "hlo_modules")) > 0);
    check_against_wire_facts(j, names[k]);
    json_decref(j);
  }
}

/* Our CPU fixtures: every op is one of XLA's instructions for the module, the module is
 * jit_<id>, and the 5 traced calls show as at least 5 runs; xplane and trace JSON agree. */
static void cpu_fixture(const char *dir, void *ctx) {
  size_t *checked = ctx;
  char path[4200], module[512];
  snprintf(path, sizeof path, "%s/oracle.json", dir);
  json_error_t e;
  json_t *oracle = json_load_file(path, 0, &e);
  if (!oracle) return;
  snprintf(module, sizeof module, "jit_%s", strrchr(dir, '/') + 1);
  const char *files[] = {"profile.xplane.pb", "profile.trace.json.gz"};
  long long runs[2] = {0, 0};
  size_t nops[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    json_t *j = profile_json(path);
    assert_string_equal(sget(j, "format"), k == 0 ? "xplane" : "trace_json");
    assert_string_equal(sget(json_object_get(j, "device"), "plane"), "/host:CPU");
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(j, "ops"), i, x) {
      const char *name = sget(x, "name");
      int found = 0;
      size_t a, b, c;
      json_t *m, *cp, *in;
      json_array_foreach(json_object_get(oracle, "modules"), a, m) {
        json_array_foreach(json_object_get(m, "computations"), b, cp) {
          json_array_foreach(json_object_get(cp, "instructions"), c, in) found |= strcmp(sget(in, "name"), name) == 0;
        }
      }
      if (!found) fail_msg("%s: op %s is not an instruction of oracle.json", path, name);
      assert_string_equal(sget(x, "module"), module);
    }
    nops[k] = json_array_size(json_object_get(j, "ops"));
    assert_true(nops[k] > 0);
    json_array_foreach(json_object_get(j, "programs"), i, x) if (strcmp(sget(x, "name"), module) == 0) runs[k] =
        iget(x, "runs");
    if (runs[k] < 5) fail_msg("%s: %lld runs of %s, expected at least 5", path, runs[k], module);
    json_decref(j);
    (*checked)++;
  }
  assert_int_equal(nops[0], nops[1]);
  assert_int_equal(runs[0], runs[1]);
  json_decref(oracle);
}

static void test_cpu_fixtures(void **state) {
  (void)state;
  size_t checked = 0;
  tu_each_fixture(0, cpu_fixture, &checked);
  print_message("CPU fixture profiles checked: %zu\n", checked);
  assert_true(checked >= 10);
}

static void test_cpu_wire_facts(void **state) {
  (void)state;
  const char *rel[] = {"cpu-jax-0.10.2/softmax/profile.xplane.pb", "cpu-jax-0.4.38/softmax/profile.xplane.pb"};
  for (int k = 0; k < 2; k++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/%s", HS_SOURCE_DIR, rel[k]);
    json_t *j = profile_json(path);
    check_against_wire_facts(j, rel[k]);
    json_decref(j);
  }
}

/* XProf's own per-op table (tests/oracle/profile/make_xprof_reference.py, XProf's hlo_stats), summed
 * by op name: occurrences equal, self times within 1%. XProf merges every /device:TPU:N plane,
 * as the core does (its ops sum every chip). */
static void test_xprof_reference(void **state) {
  (void)state;
  char path[2048];
  tu_oracle(path, sizeof path, "profile", "xprof_reference.json");
  json_error_t e;
  json_t *ref = json_load_file(path, 0, &e);
  if (!ref) fail_msg("cannot read %s: %s (the oracle is part of the repository)", path, e.text);
  const char *key;
  json_t *want;
  size_t compared = 0;
  json_object_foreach(json_object_get(ref, "profiles"), key, want) {
    char p2[2048];
    if (strncmp(key, "shared/", 7) == 0) {
      const char *dir = profiles_dir();
      if (!dir) continue;
      snprintf(p2, sizeof p2, "%s/%s", dir, key + 7);
    } else {
      snprintf(p2, sizeof p2, "%s/%s", HS_SOURCE_DIR, key);
    }
    json_t *rows = json_object_get(want, "rows");
    if (!json_array_size(rows)) continue; /* XProf has no table for XLA:CPU host-only profiles */
    json_t *j = profile_json(p2);
    size_t i, k;
    json_t *x, *r;
    /* XProf by op name */
    json_t *theirs = json_object();
    json_array_foreach(rows, k, r) {
      json_t *t = json_object_get(theirs, sget(r, "name"));
      if (!t) {
        t = json_pack("{s:I,s:f}", "occurrences", (json_int_t)0, "self_us", 0.0);
        json_object_set_new(theirs, sget(r, "name"), t);
      }
      json_object_set_new(t, "occurrences", json_integer(iget(t, "occurrences") + iget(r, "occurrences")));
      json_object_set_new(t, "self_us", json_real(json_number_value(json_object_get(t, "self_us")) +
                                                  json_number_value(json_object_get(r, "self_us"))));
    }
    /* ours by op name */
    json_t *ours = json_object();
    json_array_foreach(json_object_get(j, "ops"), i, x) {
      json_t *t = json_object_get(ours, sget(x, "name"));
      if (!t) {
        t = json_pack("{s:I,s:I}", "occurrences", (json_int_t)0, "self_ps", (json_int_t)0);
        json_object_set_new(ours, sget(x, "name"), t);
      }
      json_object_set_new(t, "occurrences", json_integer(iget(t, "occurrences") + iget(x, "occurrences")));
      json_object_set_new(t, "self_ps", json_integer(iget(t, "self_ps") + iget(x, "self_ps")));
    }
    assert_int_equal(json_object_size(ours), json_object_size(theirs));
    const char *op;
    json_t *t;
    json_object_foreach(theirs, op, t) {
      json_t *o = json_object_get(ours, op);
      if (!o) fail_msg("%s: XProf lists op %s, we do not", key, op);
      long long occ = iget(o, "occurrences"), xocc = iget(t, "occurrences");
      double self = (double)iget(o, "self_ps"), xself = json_number_value(json_object_get(t, "self_us")) * 1e6;
      if (occ != xocc) fail_msg("%s: %s occurs %lld times, XProf says %lld", key, op, occ, xocc);
      double diff = self > xself ? self - xself : xself - self;
      if (diff > xself * 0.01 + 1.0) /* 1 ps: XProf prints microseconds with 5 decimals */ fail_msg("%s: %s self %.0f ps, XProf %.0f ps", key, op, self, xself);
      compared++;
    }
    json_decref(theirs);
    json_decref(ours);
    json_decref(j);
  }
  print_message("ops compared with XProf %s: %zu\n", sget(ref, "xprof"), compared);
  json_decref(ref);
}

static void test_small_inputs(void **state) {
  (void)state;
  hs_error err;
  /* empty, gzip, neither format */
  assert_null(hs_profile_parse("", 0, &err));
  assert_int_equal(err.code, HS_E_EMPTY);
  assert_null(hs_profile_parse("\x1f\x8b\x08\x00", 4, &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_null(hs_profile_parse("HloModule m", 11, &err));
  assert_int_equal(err.code, HS_E_FORMAT);
  /* bad JSON: line and column of the error (the comma on line 2, column 17) */
  const char *bad = "{\"traceEvents\":[\n{\"ph\":\"X\",\"ts\":,}]}";
  assert_null(hs_profile_parse(bad, strlen(bad), &err));
  assert_int_equal(err.code, HS_E_SYNTAX);
  assert_int_equal(err.line, 2);
  assert_true(err.col > 0);
  /* a protobuf length past the end: field 1, length 100, 2 bytes follow */
  assert_null(hs_profile_parse("\x0a\x64\x01\x02", 4, &err));
  assert_int_equal(err.code, HS_E_SYNTAX);
  assert_int_equal(err.offset, 0);
  /* a hand-made trace JSON, timestamps in microseconds: outer 0..10 us contains inner 2..5 us,
   * so outer's self time is 7 us; 2 runs by run_id; a stack "a::b::inner" names "inner" */
  const char *t =
      "{\"traceEvents\":["
      "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
      "{\"ph\":\"M\",\"pid\":1,\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":0,\"dur\":10,\"name\":\"outer\",\"args\":{\"hlo_op\":\"outer\",\"hlo_module\":\"jit_m\",\"run_id\":\"1\"}},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":2,\"dur\":3,\"name\":\"k\",\"args\":{\"hlo_op\":\"a::b::inner\",\"hlo_module\":\"jit_m\",\"run_id\":\"1\"}},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":20,\"dur\":10,\"name\":\"outer\",\"args\":{\"hlo_op\":\"outer\",\"hlo_module\":\"jit_m\",\"run_id\":\"-2\"}},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":100,\"dur\":1,\"name\":\"python\"},"
      "{}]}";
  hs_profile *p = hs_profile_parse(t, strlen(t), &err);
  assert_non_null(p);
  json_t *j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_string_equal(sget(j, "format"), "trace_json");
  assert_int_equal(line_events(find_plane(j, "/host:CPU"), "worker"), 4);
  json_t *o = find_op(j, "outer");
  assert_int_equal(iget(o, "occurrences"), 2);
  assert_int_equal(iget(o, "total_ps"), 20000000);
  assert_int_equal(iget(o, "self_ps"), 17000000);
  assert_int_equal(iget(o, "per_run_ps"), 10000000);
  json_t *in = find_op(j, "inner");
  assert_int_equal(iget(in, "self_ps"), 3000000);
  json_t *prog = json_array_get(json_object_get(j, "programs"), 0);
  assert_string_equal(sget(prog, "name"), "jit_m");
  assert_true(json_is_null(json_object_get(prog, "program_id")));
  assert_int_equal(iget(prog, "runs"), 2);
  assert_int_equal(iget(prog, "envelope_ps"), 20000000);
  /* sorted by self time */
  assert_string_equal(sget(json_array_get(json_object_get(j, "ops"), 0), "name"), "outer");
  json_decref(j);
  /* an XSpace whose first plane is 123 bytes long starts "\n{": still a protobuf (one plane,
   * its name field 2 holding 121 bytes) */
  char xs[125];
  xs[0] = 0x0a;
  xs[1] = 0x7b;
  xs[2] = 0x12;
  xs[3] = 121;
  memset(xs + 4, 'a', 121);
  p = hs_profile_parse(xs, sizeof xs, &err);
  assert_non_null(p);
  j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_string_equal(sget(j, "format"), "xplane");
  assert_int_equal(json_array_size(json_object_get(j, "planes")), 1);
  json_decref(j);
  /* and a JSON text that starts with a newline is JSON */
  p = hs_profile_parse("\n[]", 3, &err);
  assert_non_null(p);
  j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_string_equal(sget(j, "format"), "trace_json");
  json_decref(j);
  /* nothing to count */
  const char *none = "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"x\"}]";
  p = hs_profile_parse(none, strlen(none), &err);
  assert_non_null(p);
  j = tu_json(hs_profile_json(p, NULL));
  hs_profile_free(p);
  assert_true(json_is_null(json_object_get(j, "device")));
  assert_string_equal(sget(json_array_get(json_object_get(j, "warnings"), 0), "code"), "HS_W_PROFILE_NO_DEVICE");
  json_decref(j);
}

/* ---- torture ------------------------------------------------------------------------------ */
static size_t n_inputs, n_profiles, n_errors;

/* A source over bytes in memory that counts its reads and checks each is inside the input. */
typedef struct {
  const char *data;
  size_t len, reads;
  uint64_t last_done, bytes;
} mem_src;

static int mem_read(void *ctx, uint64_t off, void *dst, size_t len) {
  mem_src *m = ctx;
  assert_true(off <= m->len && len <= m->len - off);
  memcpy(dst, m->data + off, len);
  m->reads++;
  m->bytes += len;
  return 0;
}

static void mem_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
  mem_src *m = ctx;
  assert_non_null(stage);
  assert_true(done <= total);
  if (strcmp(stage, "counting") == 0) {
    assert_int_equal(total, 700);
    m->last_done = done == total ? m->len : 0; /* the end of the counting: the end of the parse */
    return;
  }
  assert_true(total == 2 * (uint64_t)m->len); /* a line's bytes are walked twice */
  assert_true(done >= m->last_done || done == 0); /* a stage never goes back */
  m->last_done = done;
}

/* The same bytes read through hs_profile_parse_source with a small window give the same
 * profile JSON (or the same error) as the whole-buffer parse: `whole` is that JSON or NULL. */
static void same_by_windows(const char *data, size_t len, const char *whole, const hs_error *werr, size_t window) {
  mem_src m = {data, len, 0, 0, 0};
  hs_profile_source src = {.name = NULL, .size = len, .window = window, .read = mem_read, .progress = mem_progress, .ctx = &m};
  hs_error err;
  hs_profile *p = hs_profile_parse_source(&src, &err);
  if (!whole) {
    if (p) fail_msg("read by windows of %zu: a profile where the whole bytes give an error (%s)", window, werr->message);
    assert_int_equal(err.code, werr->code);
    assert_string_equal(err.message, werr->message);
    return;
  }
  if (!p) fail_msg("read by windows of %zu: %s, where the whole bytes read", window, err.message);
  char *s = hs_profile_json(p, NULL);
  assert_non_null(s);
  assert_string_equal(s, whole);
  hs_free(s);
  hs_profile_free(p);
}

static void exercise(const char *data, size_t len) {
  hs_error err;
  hs_profile *p = hs_profile_parse(data, len, &err);
  n_inputs++;
  /* every fourth input also read by windows, of 61 bytes (fields across windows) or 4 KiB */
  bool windows = n_inputs % 4 == 1;
  if (!p) {
    assert_true(err.code < 0);
    assert_true(err.message[0] != 0);
    n_errors++;
    if (windows) same_by_windows(data, len, NULL, &err, n_inputs % 8 == 1 ? 61 : 4096);
    return;
  }
  if (windows) {
    char *w = hs_profile_json(p, NULL);
    assert_non_null(w);
    same_by_windows(data, len, w, NULL, n_inputs % 8 == 1 ? 61 : 4096);
    hs_free(w);
  }
  n_profiles++;
  size_t n = 0;
  char *s = hs_profile_json(p, &n);
  assert_non_null(s);
  json_error_t je;
  json_t *j = json_loadb(s, n, 0, &je);
  if (!j) fail_msg("invalid JSON from a profile: %s", je.text);
  json_decref(j);
  hs_free(s);
  if (n_profiles % 3 == 1) { /* the timeline of whatever was read (every third: the run stays short) */
    s = hs_profile_timeline_json(p, NULL, &n);
    assert_non_null(s);
    j = json_loadb(s, n, 0, &je);
    if (!j) fail_msg("invalid timeline JSON from a profile: %s", je.text);
    json_decref(j);
    hs_free(s);
  }
  hs_profile_free(p);
}

static void torture(const char *data, size_t len, bool is_json) {
  /* ~60 evenly spread cuts plus every cut in the first 64 bytes */
  size_t step = len / 60 + 1;
  for (size_t cut = 0; cut <= len; cut += (cut < 64 ? 1 : step)) exercise(data, cut);
  char *buf = malloc(len + 1);
  assert_non_null(buf);
  const char pb_subst[] = {(char)0xff, (char)0x80, 0, 0x0a, 0x12, 0x7f, 0x0b};
  const char js_subst[] = {'{', '}', '[', ']', '"', ',', '\0', (char)0xff};
  const char *subst = is_json ? js_subst : pb_subst;
  size_t ns = is_json ? sizeof js_subst : sizeof pb_subst;
  for (size_t k = 0; k < 12 && len; k++) {
    size_t pos = (k * 7919u + 13) % len;
    for (size_t s = 0; s < ns; s++) {
      memcpy(buf, data, len);
      buf[pos] = subst[s];
      exercise(buf, len);
    }
  }
  /* a huge length: a varint 0xff.. written over the bytes at a spread position */
  for (size_t k = 0; k < 8 && len > 16; k++) {
    size_t pos = (k * 104729u) % (len - 12);
    memcpy(buf, data, len);
    memset(buf + pos, 0xff, 9);
    buf[pos + 9] = 0x01;
    exercise(buf, len);
  }
  free(buf);
}

/* Tortures the profile at path; false when it cannot be read. */
static bool torture_path(const char *path) {
  size_t len;
  char *d = read_profile_file(path, &len);
  if (!d) return false;
  size_t pl = strlen(path);
  torture(d, len, pl > 3 && strcmp(path + pl - 3, ".gz") == 0);
  free(d);
  return true;
}

/* Every real profile read by windows (the page's worker reads a big File so): the same JSON as
 * read whole, at most five times the file's bytes read in all (a scan, the plane's fields, its
 * lines, and a window read again where a field crosses its end, for a file of 64 windows or
 * more), and progress told to the end. */
static void by_windows(const char *path) {
  size_t len;
  char *d = read_profile_file(path, &len);
  if (!d) fail_msg("cannot read %s", path);
  hs_error err;
  hs_profile *p = hs_profile_parse(d, len, &err);
  if (!p) fail_msg("%s: %s", path, err.message);
  char *whole = hs_profile_json(p, NULL);
  hs_profile_free(p);
  for (size_t window = 1024; window <= (1u << 20); window *= 32) {
    mem_src m = {d, len, 0, 0, 0};
    hs_profile_source src = {.name = NULL, .size = len, .window = window, .read = mem_read, .progress = mem_progress, .ctx = &m};
    p = hs_profile_parse_source(&src, &err);
    if (!p) fail_msg("%s by windows of %zu: %s", path, window, err.message);
    char *s = hs_profile_json(p, NULL);
    if (strcmp(s, whole) != 0) fail_msg("%s by windows of %zu: not the profile read whole", path, window);
    hs_free(s);
    hs_profile_free(p);
    if (d[0] == 0x0a) { /* an XSpace: read by windows, told to the end */
      assert_int_equal(m.last_done, len);
      if (len >= 64 * window && m.bytes > 5 * (uint64_t)len + 8 * (uint64_t)window) fail_msg("%s: %zu reads of %zu bytes for %zu bytes", path, m.reads, window, len);
    }
  }
  hs_free(whole);
  free(d);
}

static void by_windows_fixture(const char *dir, void *ctx) {
  char path[4200];
  snprintf(path, sizeof path, "%s/profile.xplane.pb", dir);
  struct stat st;
  if (stat(path, &st) != 0) return;
  by_windows(path);
  (*(size_t *)ctx)++;
}

static void test_by_windows(void **state) {
  (void)state;
  size_t n = 0;
  tu_each_fixture(0, by_windows_fixture, &n);
  const char *dir = profiles_dir();
  if (dir) {
    const char *names[] = {"xprof_tpu_inference_2.xplane.pb", "tracelens_mi300_jax08_gemm.xplane.pb",
                           "tracelens_mi300_jax08_attention.xplane.pb"};
    for (int i = 0; i < 3; i++, n++) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      by_windows(path);
    }
  } else {
    tu_say_shared_absent("captures/profiles");
  }
  print_message("profiles read by windows: %zu\n", n);
  assert_true(n >= 10);
}

static void test_torture(void **state) {
  (void)state;
  const char *dir = profiles_dir();
  if (dir) {
    const char *names[] = {"xprof_tpu_inference_2.xplane.pb", "tracelens_mi300_jax08_gemm.xplane.pb",
                           "tracelens_mi300_jax08_attention.xplane.pb"};
    for (int i = 0; i < 3; i++) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      if (!torture_path(path)) fail_msg("cannot read %s", path);
    }
  } else {
    printf("(the shared part) ");
    tu_say_shared_absent("captures/profiles");
  }
  const char *fx[] = {"cpu-jax-0.10.2/softmax", "cpu-jax-0.4.38/softmax", "cpu-jax-0.10.2/scan", "cpu-jax-0.4.38/remat"};
  for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/%s/profile.xplane.pb", HS_SOURCE_DIR, fx[i]);
    if (!torture_path(path)) fail_msg("cannot read %s: an in-repo fixture", path);
    snprintf(path, sizeof path, "%s/fixtures/%s/profile.trace.json.gz", HS_SOURCE_DIR, fx[i]);
    if (!torture_path(path)) fail_msg("cannot read %s: an in-repo fixture", path);
  }
  /* pathological: deep JSON nesting, a long run of empty protobuf planes, a run of tags */
  size_t n = 1 << 20;
  char *b = malloc(n);
  assert_non_null(b);
  memset(b, '[', n);
  exercise(b, n);
  for (size_t i = 0; i < n; i += 2) b[i] = 0x0a, b[i + 1] = 0x00;
  exercise(b, n);
  memset(b, 0x0a, n);
  exercise(b, n);
  free(b);
  /* quadratic traps: 40000 CPU events, each its own program and run, in reverse time order,
   * plus 40000 TPU XLA Modules runs listed backwards over one XLA Ops event */
  size_t cap = 40000 * 160 + 512, o = 0;
  char *t = malloc(cap);
  assert_non_null(t);
  o += (size_t)snprintf(t + o, cap - o, "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}}");
  for (int i = 40000; i > 0; i--)
    o += (size_t)snprintf(t + o, cap - o,
                          ",{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1,\"name\":\"x\",\"args\":{\"hlo_op\":\"op\",\"hlo_module\":\"m%d\",\"run_id\":\"%d\"}}",
                          i % 7, i, i, i);
  o += (size_t)snprintf(t + o, cap - o, "]}");
  exercise(t, o);
  o = 0;
  o += (size_t)snprintf(t + o, cap - o,
                        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:0\"}},"
                        "{\"ph\":\"M\",\"pid\":2,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},"
                        "{\"ph\":\"M\",\"pid\":2,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Modules\"}},"
                        "{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":5,\"dur\":1,\"name\":\"fusion\"}");
  for (int i = 40000; i > 0; i--)
    o += (size_t)snprintf(t + o, cap - o, ",{\"ph\":\"X\",\"pid\":2,\"tid\":2,\"ts\":%d,\"dur\":2,\"name\":\"jit_f%d(%d)\"}", i, i, i);
  o += (size_t)snprintf(t + o, cap - o, "]}");
  exercise(t, o);
  free(t);
  print_message("torture inputs: %zu (profiles %zu, errors %zu)\n", n_inputs, n_profiles, n_errors);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tpu_sample),     cmocka_unit_test(test_gpu_samples),
      cmocka_unit_test(test_cpu_fixtures),   cmocka_unit_test(test_cpu_wire_facts),
      cmocka_unit_test(test_xprof_reference), cmocka_unit_test(test_small_inputs),
      cmocka_unit_test(test_torture),        cmocka_unit_test(test_by_windows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
