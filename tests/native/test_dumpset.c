/* Dump folders: the shared listings (other people's dumps, read in place), our own CPU pass
 * dumps, compare, and bad input. Expected values come from the names themselves (what XLA wrote),
 * counted here with plain string tests, not with the reader's patterns. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"

/* ../shared/captures/pass-names; NULL when absent or hidden (HLOSCOPE_NO_SHARED). */
static const char *listings(void) {
  static char path[1024];
  return tu_shared(path, sizeof path, "captures/pass-names");
}

static hs_dumpset *from_listing(const char *file, size_t *lines) {
  size_t len = 0;
  char *t = tu_read(file, &len);
  assert_non_null(t);
  *lines = 0;
  for (size_t i = 0; i < len; i++) *lines += t[i] == '\n';
  hs_dumpset *s = hs_dumpset_new();
  assert_non_null(s);
  assert_int_equal(hs_dumpset_add_listing(s, t, len), 0);
  free(t);
  return s;
}

static json_t *result(hs_dumpset *s) {
  hs_error err;
  json_t *j = tu_json(hs_dumpset_json(s, &err, NULL));
  if (!j) fail_msg("no result: %s", err.message);
  return j;
}

static void gpu_listing(void **state) {
  const char *dir = listings();
  TU_SKIP_UNLESS(dir, "captures/pass-names");
  char p[1200];
  snprintf(p, sizeof p, "%s/gpu_shawnwang18_xla_vit_pjit_train_step.txt", dir);
  size_t lines;
  hs_dumpset *s = from_listing(p, &lines);
  json_t *j = result(s);
  json_t *mods = json_object_get(j, "modules");
  assert_int_equal(json_array_size(mods), 1);
  json_t *m = json_array_get(mods, 0);
  assert_string_equal(json_string_value(json_object_get(m, "backend")), "gpu");
  assert_string_equal(json_string_value(json_object_get(m, "target")), "sm_8.0");
  json_t *steps = json_object_get(m, "steps");
  assert_int_equal(json_array_size(steps), 158);
  assert_int_equal(json_array_size(json_object_get(m, "pipelines")), 23);
  assert_int_equal(json_integer_value(json_object_get(m, "watershed")), 96);
  /* steps in order 0..157; the watershed step is about to run layout-assignment */
  for (size_t i = 0; i < 158; i++) assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, i), "n")), i);
  assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 96), "before")), "layout-assignment");
  /* 0148: a copy-insertion step with no before_ part */
  json_t *s148 = json_array_get(steps, 148);
  assert_string_equal(json_string_value(json_object_get(s148, "pipeline")), "copy-insertion");
  assert_true(json_is_null(json_object_get(s148, "before")));
  assert_true(json_is_null(json_object_get(s148, "counts")));
  /* spmd-simplify is entered 7 times (steps with after_pipeline-start in the names) */
  size_t i;
  json_t *pl;
  json_array_foreach(json_object_get(m, "pipelines"), i, pl) {
    if (strcmp(json_string_value(json_object_get(pl, "name")), "spmd-simplify") == 0)
      assert_int_equal(json_integer_value(json_object_get(pl, "runs")), 7);
  }
  json_decref(j);
  hs_dumpset_free(s);
}

/* Every name in every shared listing is classified; the unknown ones are reported. */
/* One name of each kind that has a pattern, as XLA writes them (FORMATS.md). The patterns compile
 * on first use: a pattern that did not compile would read as no match, so each must classify. */
static void every_kind(void **state) {
  static const char *const names[][2] = {
      {"module_0001.jit_f.before_optimizations.txt", "before_optimizations"},
      {"module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt", "buffer_assignment"},
      {"module_0001.jit_f.sm_8.0_gpu_after_optimizations-buffer-assignment-values.txt", "buffer_assignment_values"},
      {"module_0001.jit_f.after_optimizations-live-range.txt", "live_range"},
      {"module_0001.jit_f.gpu_after_optimizations-memory-usage-report.txt", "memory_usage_report"},
      {"module_0001.jit_f.after_optimizations_before_buffer_assignment.txt", "after_optimizations_before_buffer_assignment"},
      {"module_0001.jit_f.after_optimizations_after_buffer_assignment.txt", "after_optimizations_after_buffer_assignment"},
      {"module_0001.jit_f.cpu_after_optimizations.txt", "after_optimizations"},
      {"module_0001.jit_f.after_codegen.txt", "after_codegen"},
      {"module_0001.jit_f.execution_options.txt", "execution_options"},
      {"module_0001.jit_f.hlo_module_config.txt", "hlo_module_config"},
      {"module_0001.jit_f.tpu_comp_env.txt", "tpu_comp_env"},
      {"module_0001.jit_f.flagfile", "flagfile"},
      {"module_0001.jit_f.debug_options", "debug_options"},
      {"module_0001.jit_f.target_arguments.txt", "target_arguments"},
      {"module_0001.jit_f.sdc_metadata.txt", "sdc_metadata"},
      {"module_0001.jit_f.transfer_stats.txt", "transfer_stats"},
      {"module_0001.jit_f.autotune_results.pbtxt", "autotune_results"},
      {"module_0001.jit_f.gpu_target_config.pbtxt", "target_config"},
      {"module_0001.jit_f.thunk_sequence.txt", "thunk_sequence"},
      {"module_0001.jit_f.ptx", "ptx"},
      {"module_0001.jit_f.ir-no-opt.ll", "llvm_ir_no_opt"},
      {"module_0001.jit_f.ir-with-opt-noconst.part_1.ll", "llvm_ir_with_opt"},
      {"module_0001.jit_f.fusion_kernel_module-post-optimization.mlir", "kernel_mlir"},
      {"module_0001.jit_f.obj-file.0.o", "object_file"},
      {"module_0001.jit_f.triton_gemm.ttir", "triton_ir"},
      {"module_0001.jit_f.fusion.hlo", "kernel_hlo"},
      {"module_0001.jit_f.hlo.pb", "hlo_proto"},
      {"module_0001.jit_f.gpu_options.pbtxt", "proto_text"},
      {"module_0001.jit_f.dot", "graph"},
      {"module_0001.jit_f.sharding.mlir", "mlir"},
      {"module_0001.jit_f.notes.txt", "text"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    hs_dumpset *s = hs_dumpset_new();
    assert_non_null(s);
    assert_int_equal(hs_dumpset_add_listing(s, names[i][0], strlen(names[i][0])), 0);
    json_t *j = result(s);
    const char *k = json_string_value(json_object_get(json_array_get(json_object_get(j, "files"), 0), "kind"));
    if (!k || strcmp(k, names[i][1]) != 0) fail_msg("%s: kind %s, expected %s", names[i][0], k ? k : "(none)", names[i][1]);
    json_decref(j);
    hs_dumpset_free(s);
  }
}

static void one_listing(const char *p, void *ctx) {
  int *seen = ctx;
  size_t lines;
  hs_dumpset *s = from_listing(p, &lines);
  json_t *j = result(s);
  json_t *files = json_object_get(j, "files");
  assert_int_equal(json_array_size(files), lines);
  size_t i, unknown = 0, steps = 0, numbered = 0;
  json_t *f;
  json_array_foreach(files, i, f) {
    const char *k = json_string_value(json_object_get(f, "kind"));
    const char *n = json_string_value(json_object_get(f, "name"));
    assert_non_null(k);
    unknown += strcmp(k, "unknown") == 0;
    steps += strcmp(k, "step") == 0;
    /* a numbered step: ".after_" in the name, not the module-level after_optimizations/after_codegen */
    numbered += strstr(n, ".after_") && !strstr(n, ".after_optimizations") && !strstr(n, "_after_optimizations") &&
                !strstr(n, ".after_codegen");
  }
  assert_int_equal(steps, numbered);
  size_t reported = 0;
  json_array_foreach(json_object_get(j, "warnings"), i, f) {
    reported += strcmp(json_string_value(json_object_get(f, "code")), "HS_W_DUMP_UNKNOWN_NAME") == 0 ||
                strcmp(json_string_value(json_object_get(f, "code")), "HS_W_DUMP_JUNK_LINE") == 0;
  }
  assert_int_equal(json_integer_value(json_object_get(j, "unknown")), unknown);
  assert_true(reported >= (unknown > 50 ? 50 : unknown));
  /* every module names a backend */
  json_array_foreach(json_object_get(j, "modules"), i, f) assert_true(json_is_string(json_object_get(f, "backend")));
  print_message("%s: %zu names, %zu steps, %zu unknown\n", strrchr(p, '/') + 1, lines, steps, unknown);
  json_decref(j);
  hs_dumpset_free(s);
  (*seen)++;
}

static void every_listing(void **state) {
  (void)state;
  const char *dir = listings();
  TU_SKIP_UNLESS(dir, "captures/pass-names");
  int seen = 0;
  tu_each_file(dir, ".txt", one_listing, &seen);
  assert_true(seen >= 6);
}

/* Our own capture: the folder with its bytes; steps equal the step files written. */
typedef struct {
  hs_dumpset *s;
  size_t step_files;
} folder_read;

static void add_file(const char *p, void *ctx) {
  folder_read *r = ctx;
  const char *name = strrchr(p, '/') + 1;
  size_t len = 0;
  char *t = tu_read(p, &len);
  assert_non_null(t);
  assert_int_equal(hs_dumpset_add(r->s, name, strlen(name), t, len), 0);
  free(t);
  r->step_files += strncmp(name, "module_", 7) == 0 && strstr(name, ".after_") && !strstr(name, "after_optimizations");
}

static hs_dumpset *from_folder(const char *dir, size_t *step_files) {
  folder_read r = {hs_dumpset_new(), 0};
  assert_true(tu_each_file(dir, "", add_file, &r) > 0);
  *step_files = r.step_files;
  return r.s;
}

static void cpu_capture(void **state) {
  size_t step_files;
  hs_dumpset *s = from_folder(HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/attention/passes", &step_files);
  json_t *j = result(s);
  json_t *m = json_array_get(json_object_get(j, "modules"), 0);
  assert_string_equal(json_string_value(json_object_get(m, "name")), "jit_attention");
  assert_string_equal(json_string_value(json_object_get(m, "backend")), "cpu");
  json_t *steps = json_object_get(m, "steps");
  assert_true(step_files > 20);
  assert_int_equal(json_array_size(steps), step_files);
  size_t i;
  json_t *st;
  long first_fusion = -1;
  json_array_foreach(steps, i, st) {
    json_t *c = json_object_get(st, "counts");
    assert_true(json_is_object(c));
    if (first_fusion < 0 && json_integer_value(json_object_get(c, "fusion_ops")) > 0)
      first_fusion = json_integer_value(json_object_get(st, "n"));
  }
  assert_int_equal(json_integer_value(json_object_get(m, "first_fusion")), first_fusion);
  /* the step that formed the first fusions says so */
  json_array_foreach(steps, i, st) {
    if (json_integer_value(json_object_get(st, "n")) != first_fusion) continue;
    json_t *diff = json_object_get(st, "diff");
    assert_true(json_array_size(json_object_get(diff, "fusions_formed")) > 0);
    assert_non_null(strstr(json_string_value(json_object_get(diff, "sentence")), "fusion"));
  }
  json_decref(j);
  hs_dumpset_free(s);
}

static void compare_cpu_gpu(void **state) {
  const char *dir = listings();
  TU_SKIP_UNLESS(dir, "captures/pass-names");
  size_t n;
  hs_dumpset *a = from_folder(HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/attention/passes", &n);
  char p[1200];
  snprintf(p, sizeof p, "%s/gpu_shawnwang18_xla_vit_pjit_train_step.txt", dir);
  hs_dumpset *b = from_listing(p, &n);
  hs_error err;
  json_t *j = tu_json(hs_dumpset_compare_json(a, b, &err, NULL));
  assert_non_null(j);
  size_t i;
  json_t *x;
  int found = 0;
  json_array_foreach(json_object_get(j, "passes"), i, x) {
    const char *pass = json_string_value(json_object_get(x, "pass"));
    const char *origin = json_string_value(json_object_get(x, "origin"));
    if (!strcmp(pass, "layout-assignment")) found++, assert_string_equal(origin, "both");
    if (!strcmp(pass, "algsimp")) found++, assert_string_equal(origin, "both");
    if (!strcmp(pass, "sharding-remover")) found++, assert_string_equal(origin, "a");
    if (!strcmp(pass, "gpu-conv-rewriter")) found++, assert_string_equal(origin, "b");
    if (!strcmp(pass, "cpu-parallel-task-assigner")) found++, assert_string_equal(origin, "a");
  }
  assert_int_equal(found, 5);
  json_decref(j);
  hs_dumpset_free(a);
  hs_dumpset_free(b);
}

/* People commit gzipped dumps: every name of our own pass dump with ".gz" after it reads as the
 * same modules, steps and kinds (issue 35). */
static void gz_names(void **state) {
  (void)state;
  size_t len = 0;
  char *t = tu_read(HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/attention/passes/FILES.txt", &len);
  assert_non_null(t);
  char *gz = malloc(len * 2 + 8);
  size_t o = 0, lines = 0;
  for (size_t i = 0; i < len; i++) {
    if (t[i] == '\n') {
      memcpy(gz + o, ".gz", 3);
      o += 3;
      lines++;
    }
    gz[o++] = t[i];
  }
  hs_dumpset *a = hs_dumpset_new(), *b = hs_dumpset_new();
  assert_int_equal(hs_dumpset_add_listing(a, t, len), 0);
  assert_int_equal(hs_dumpset_add_listing(b, gz, o), 0);
  json_t *ja = result(a), *jb = result(b);
  json_t *ma = json_array_get(json_object_get(ja, "modules"), 0), *mb = json_array_get(json_object_get(jb, "modules"), 0);
  assert_non_null(mb);
  assert_true(lines > 10);
  assert_true(json_array_size(json_object_get(ma, "steps")) > 10);
  assert_int_equal(json_array_size(json_object_get(ma, "steps")), json_array_size(json_object_get(mb, "steps")));
  assert_true(json_equal(json_object_get(ma, "name"), json_object_get(mb, "name")));
  assert_true(json_equal(json_object_get(ma, "pipelines"), json_object_get(mb, "pipelines")));
  /* each file is named with its ".gz" and has the kind it has without it */
  json_t *fa = json_object_get(ja, "files"), *fb = json_object_get(jb, "files");
  assert_int_equal(json_array_size(fa), json_array_size(fb));
  for (size_t i = 0; i < json_array_size(fa); i++) {
    json_t *x = json_array_get(fa, i), *y = json_array_get(fb, i);
    assert_true(json_equal(json_object_get(x, "kind"), json_object_get(y, "kind")));
    char want[1024];
    snprintf(want, sizeof want, "%s.gz", json_string_value(json_object_get(x, "name")));
    assert_string_equal(json_string_value(json_object_get(y, "name")), want);
  }
  assert_true(json_equal(json_object_get(ja, "unknown"), json_object_get(jb, "unknown")));
  json_decref(ja);
  json_decref(jb);
  hs_dumpset_free(a);
  hs_dumpset_free(b);
  free(gz);
  free(t);
}

/* A comparison against a dump with no pass steps says so before its "only in" lists. */
static void compare_no_steps(void **state) {
  (void)state;
  size_t n;
  hs_dumpset *a = from_folder(HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/attention/dump", &n);
  hs_dumpset *b = from_folder(HS_SOURCE_DIR "/fixtures/cpu-jax-0.4.38/attention/passes", &n);
  hs_error err;
  json_t *j = tu_json(hs_dumpset_compare_json(a, b, &err, NULL));
  assert_non_null(j);
  json_t *notes = json_object_get(j, "notes");
  assert_int_equal(json_array_size(notes), 1);
  assert_int_equal(strncmp(json_string_value(json_array_get(notes, 0)), "A (", 3), 0);
  assert_non_null(strstr(json_string_value(json_array_get(notes, 0)), "has no pass steps"));
  json_decref(j);
  j = tu_json(hs_dumpset_compare_json(b, b, &err, NULL));
  assert_int_equal(json_array_size(json_object_get(j, "notes")), 0);
  json_decref(j);
  hs_dumpset_free(a);
  hs_dumpset_free(b);
}

static void bad_input(void **state) {
  hs_error err;
  hs_dumpset *s = hs_dumpset_new();
  assert_null(hs_dumpset_json(s, &err, NULL));
  assert_int_equal(err.code, HS_E_EMPTY);
  hs_dumpset_free(s);

  s = hs_dumpset_new();
  const char *junk = "hello world\nREADME.md\n";
  assert_int_equal(hs_dumpset_add_listing(s, junk, strlen(junk)), 0);
  assert_null(hs_dumpset_json(s, &err, NULL));
  assert_int_equal(err.code, HS_E_FORMAT);
  assert_non_null(strstr(err.message, "none of the 3 names"));
  hs_dumpset_free(s);

  /* a listing with junk lines: the good names are read, each junk line is reported by line */
  s = hs_dumpset_new();
  const char *mixed = "total 12\n"
                      "module_0001.jit_f.before_optimizations.txt\n"
                      "$ ls dump/\n"
                      "-rw-r--r-- 1 u u 10 Jan 1 00:00 module_0001.jit_f.0000.simp.after_pipeline-start.before_algsimp.txt\n"
                      "\n";
  assert_int_equal(hs_dumpset_add_listing(s, mixed, strlen(mixed)), 0);
  json_t *j = result(s);
  assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j, "modules"), 0), "steps")), 1);
  size_t i;
  json_t *w;
  int line3 = 0;
  json_array_foreach(json_object_get(j, "warnings"), i, w) line3 += json_integer_value(json_object_get(w, "line")) == 3;
  assert_int_equal(line3, 2); /* "$" and "ls"; "dump/" is a folder */
  json_decref(j);
  hs_dumpset_free(s);

  /* bytes that are not UTF-8 in names become '?': the JSON stays valid (found by fuzzing) */
  s = hs_dumpset_new();
  const char *bad8 = "module_0001.jit_f.0000.p\xff.after_pipeline-start.before_x\xc3.txt\n";
  assert_int_equal(hs_dumpset_add_listing(s, bad8, strlen(bad8)), 0);
  j = result(s);
  json_t *st0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "modules"), 0), "steps"), 0);
  assert_string_equal(json_string_value(json_object_get(st0, "pipeline")), "p?");
  assert_string_equal(json_string_value(json_object_get(st0, "before")), "x?");
  json_decref(j);
  hs_dumpset_free(s);

  /* a step file whose bytes are not HLO: counted as nothing, with a warning */
  s = hs_dumpset_new();
  const char *name = "module_0001.jit_f.0000.simp.after_pipeline-start.before_algsimp.txt";
  assert_int_equal(hs_dumpset_add(s, name, strlen(name), "\x01\x02garbage", 9), 0);
  j = result(s);
  assert_true(json_is_null(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(j, "modules"), 0), "steps"), 0), "counts")));
  assert_true(json_array_size(json_object_get(j, "warnings")) >= 1);
  json_decref(j);
  hs_dumpset_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(gpu_listing), cmocka_unit_test(every_kind), cmocka_unit_test(every_listing), cmocka_unit_test(cpu_capture),
      cmocka_unit_test(compare_cpu_gpu), cmocka_unit_test(bad_input), cmocka_unit_test(gz_names),
      cmocka_unit_test(compare_no_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
