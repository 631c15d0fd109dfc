/* Layouts, buffer assignments, usage reports and out-of-memory messages (layout.c, buffers.c,
 * memory.c), held against the texts themselves and against XLA's own numbers:
 *   - every shared message (../shared/captures/memory, errors): each number equals the figure the
 *     text prints, to its printed precision (the figure is looked up in the file, not retyped);
 *   - every buffer assignment (shared captures and all our fixtures' dump folders): its totals
 *     equal the usage report's, its allocations sum to the printed total, and every array value's
 *     size as our layout reader computes it equals the size XLA printed for it (TPU: T(128) on a
 *     scalar is 512 bytes);
 *   - the TPU messages' "Size", "Unpadded size" and "Extra memory due to padding" of each listed
 *     allocation equal our padded and logical sizes of its printed shape;
 *   - bad input says what it is not; a cut list gives what was read and a warning. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "memory/memory.h"
#define TU_WITH_DIRENT
#include "testutil.h"

/* A file under ../shared/captures (rel: "memory/x.txt"); NULL when absent or hidden. */
static char *shared_file(const char *rel, size_t *len) {
  char r[1024], path[2048];
  snprintf(r, sizeof r, "captures/%s", rel);
  return tu_shared(path, sizeof path, r) ? tu_read(path, len) : NULL;
}

#define NEED(ptr) TU_SKIP_UNLESS(ptr, "captures")

static json_t *memory(const char *text, size_t len) {
  hs_error err;
  char *s = hs_memory_json(text, len, &err, NULL);
  if (!s) fail_msg("hs_memory_json: %s (%u:%u)", err.message, err.line, err.col);
  return tu_json(s);
}

/* A printed size ("63.80G", "6.00MiB", "384", "19.0KiB"): value and half its last digit, in bytes. */
static void printed(const char *s, double *value, double *tol) {
  char *end;
  double v = strtod(s, &end);
  const char *dot = strchr(s, '.');
  int decimals = 0;
  if (dot && dot < end) decimals = (int)(end - dot - 1);
  double unit = 1;
  if (*end == 'K') unit = 1024.0;
  else if (*end == 'M') unit = 1024.0 * 1024;
  else if (*end == 'G') unit = 1024.0 * 1024 * 1024;
  else if (*end == 'T') unit = 1024.0 * 1024 * 1024 * 1024;
  *value = v * unit;
  *tol = 0.5 * pow(10, -decimals) * unit + 1;
}

static void near_printed(long long got, const char *s, const char *what) {
  double v, tol;
  printed(s, &v, &tol);
  if (fabs((double)got - v) > tol) fail_msg("%s: %lld bytes, but the text prints %s (%.0f +- %.0f)", what, got, s, v, tol);
}

static long long geti(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  if (!json_is_integer(v)) fail_msg("key %s is not an integer", k);
  return json_integer_value(v);
}

typedef struct {
  const char *file, *key, *figure; /* key in the result, or "totals.X"; figure as printed */
} expect;

static const expect EXPECT[] = {
    {"memory/01_tpu_hbm_easydel_166.txt", "used_bytes", "63.80G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "capacity_bytes", "30.75G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "exceeded_bytes", "33.05G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.total_usage", "65.05G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.reserved", "1.25G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.program", "63.80G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.arguments", "0B"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.global", "1.14M"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.scoped", "4.56M"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.hlo_temp", "63.79G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.hlo_temp_unpadded", "63.58G"},
    {"memory/01_tpu_hbm_easydel_166.txt", "totals.fragmentation", "210.89M"},
    {"memory/01_tpu_hbm_easydel_166.txt", "alloc0.bytes", "2.00G"},
    {"memory/05_tpu_hbm_enzymejax_pr2422_E1000.txt", "used_bytes", "215.17G"},
    {"memory/05_tpu_hbm_enzymejax_pr2422_E1000.txt", "capacity_bytes", "31.25G"},
    {"memory/05_tpu_hbm_enzymejax_pr2422_E1000.txt", "exceeded_bytes", "183.92G"},
    {"memory/06_tpu_hbm_colabfold_62_alloclist.txt", "alloc0.bytes", "64.00M"},
    {"memory/06_tpu_hbm_colabfold_62_alloclist.txt", "alloc0.unpadded_bytes", "61.25M"},
    {"memory/06_tpu_hbm_colabfold_62_alloclist.txt", "alloc0.padding_bytes", "2.75M"},
    {"memory/09_tpu_vmem_jax_38988_tpu7x.txt", "used_bytes", "65.05M"},
    {"memory/09_tpu_vmem_jax_38988_tpu7x.txt", "capacity_bytes", "64.00M"},
    {"memory/09_tpu_vmem_jax_38988_tpu7x.txt", "exceeded_bytes", "1.05M"},
    {"memory/11_tpu_scoped_vmem_tpuinference_pr3407.txt", "requested_bytes", "37.22M"},
    {"memory/11_tpu_scoped_vmem_tpuinference_pr3407.txt", "capacity_bytes", "32.00M"},
    {"memory/11_tpu_scoped_vmem_tpuinference_pr3407.txt", "exceeded_bytes", "5.22M"},
    {"memory/13_gpu_jax_13428_peak_buffers.txt", "requested_bytes", "6291456"},
    {"memory/13_gpu_jax_13428_peak_buffers.txt", "totals.parameter", "6.00MiB"},
    {"memory/13_gpu_jax_13428_peak_buffers.txt", "totals.total", "12.00MiB"},
    {"memory/13_gpu_jax_13428_peak_buffers.txt", "alloc0.bytes", "6.00MiB"},
    {"memory/13_gpu_jax_13428_peak_buffers.txt", "alloc1.bytes", "384.0KiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "requested_bytes", "4770354232"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.parameter", "372.76MiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.constant", "48.5KiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.maybe_live_out", "9.64GiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.preallocated_temp", "4.44GiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.total", "14.44GiB"},
    {"memory/14_gpu_afprofile_8_stats.txt", "totals.fragmentation", "680.30MiB"},
    {"memory/17_gpu_tapnet_48_peak_buffers_tabs.txt", "alloc0.bytes", "4.00MiB"},
    {"memory/20_cpu_jax_2023_failed_request.txt", "requested_bytes", "337385120"},
    {"memory/23_tpu_scoped_vmem_autoresearch_v038.txt", "requested_bytes", "34.90M"},
    {"memory/23_tpu_scoped_vmem_autoresearch_v038.txt", "capacity_bytes", "32.00M"},
    {"memory/23_tpu_scoped_vmem_autoresearch_v038.txt", "exceeded_bytes", "2.90M"},
    {"memory/24_tpu_docs_E1001_vmem_allocation_sample.txt", "requested_bytes", "134217728"},
    {"memory/24_tpu_docs_E1001_vmem_allocation_sample.txt", "capacity_bytes", "67108864"},
    {"errors/tpu_hbm_exhausted.txt", "requested_bytes", "335.31G"},
    {"errors/tpu_hbm_exhausted.txt", "capacity_bytes", "31.24G"},
};

static void test_messages(void **state) {
  (void)state;
  size_t n = 0;
  char *probe = shared_file("memory/01_tpu_hbm_easydel_166.txt", &n);
  NEED(probe);
  free(probe);
  for (size_t i = 0; i < sizeof EXPECT / sizeof EXPECT[0]; i++) {
    const expect *e = &EXPECT[i];
    size_t len = 0;
    char *text = shared_file(e->file, &len);
    assert_non_null(text);
    if (!strstr(text, e->figure)) fail_msg("%s does not print %s", e->file, e->figure);
    json_t *j = memory(text, len);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "oom");
    json_t *obj = j;
    const char *key = e->key;
    if (strncmp(key, "totals.", 7) == 0) {
      obj = json_object_get(j, "totals");
      key += 7;
    } else if (strncmp(key, "alloc", 5) == 0) {
      obj = json_array_get(json_object_get(j, "allocations"), (size_t)(key[5] - '0'));
      assert_non_null(obj);
      key += 7;
    }
    char what[256];
    snprintf(what, sizeof what, "%s %s", e->file, e->key);
    near_printed(geti(obj, key), e->figure, what);
    json_decref(j);
    free(text);
  }
}

static bool has_warning(json_t *j, const char *code) {
  size_t i;
  json_t *w;
  json_array_foreach(json_object_get(j, "warnings"), i, w) {
    if (strcmp(json_string_value(json_object_get(w, "code")), code) == 0) return true;
  }
  return false;
}

/* Every shared message reads, with the fixed keys, and its memory space and backend as printed. */
static void message_reads(const char *path, void *ctx) {
  int *count = ctx;
  const char *name = strrchr(path, '/') + 1;
  static const char *keys[] = {"kind", "backend", "memory_space", "requested_bytes", "used_bytes", "capacity_bytes",
                               "exceeded_bytes", "allocations", "totals", "explanation", "warnings"};
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  json_t *j = memory(text, len);
  const char *k;
  json_t *v;
  size_t i = 0;
  json_object_foreach(j, k, v) {
    if (i < 11) assert_string_equal(k, keys[i]);
    i++;
  }
  assert_true(i >= 11);
  const char *be = json_string_value(json_object_get(j, "backend"));
  if (strstr(name, "_tpu_")) assert_string_equal(be, "tpu");
  if (strstr(name, "_gpu_")) assert_string_equal(be, "gpu");
  const char *ms = json_string_value(json_object_get(j, "memory_space"));
  if (!ms && strstr(name, "_tpu_")) assert_true(has_warning(j, "HS_W_PARTIAL_FORMAT")); /* a list without its headline */
  else if (strstr(name, "_hbm_")) assert_string_equal(ms, "hbm");
  else if (strstr(name, "vmem")) assert_string_equal(ms, "vmem");
  assert_true(json_is_string(json_object_get(j, "explanation")));
  json_decref(j);
  free(text);
  (*count)++;
}

static void test_every_message_reads(void **state) {
  (void)state;
  TU_NEED_SHARED("captures/memory");
  int count = 0;
  tu_each_shared("captures/memory", ".txt", message_reads, &count);
  assert_int_equal(count, 11);
}

/* ---- every figure a message prints (issue 35) -------------------------------------------- */
/* The sizes the text prints, found here without the core: a number (digits, ',' and '.') not
 * glued to a word before it, then K/M/G/T/P with i and B, or B, or " bytes", and no word after. */
static bool is_w(char c) { return isalnum((unsigned char)c) || c == '_'; }

static size_t size_at(const char *f, size_t n, size_t p) {
  if (p > 0 && (is_w(f[p - 1]) || f[p - 1] == '.' || f[p - 1] == ',' || f[p - 1] == ':')) return 0;
  size_t q = p;
  while (q < n && (isdigit((unsigned char)f[q]) || ((f[q] == '.' || f[q] == ',') && q + 1 < n && isdigit((unsigned char)f[q + 1])))) q++;
  if (q == p) return 0;
  if (q < n && strchr("KMGTP", f[q])) {
    q++;
    if (q < n && f[q] == 'i') q++;
    if (q < n && f[q] == 'B') q++;
  } else if (q < n && f[q] == 'B') {
    q++;
  } else if (q + 6 <= n && memcmp(f + q, " bytes", 6) == 0) {
    q += 6;
  } else {
    return 0;
  }
  if (q < n && is_w(f[q])) return 0;
  return q;
}

static const char *const NAMED[] = {"allocated", "reserved", "free", "largest_free", "program", "arguments", "output",
                                    "tensorcore", "sparsecore", "requested", "used", "capacity", "exceeded"};

static void figures_hold(const char *path, void *ctx) {
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  hs_error err;
  char *out = hs_memory_json(text, len, &err, NULL);
  if (!out) { /* a text the core refuses is another test's business (test_detect) */
    free(text);
    return;
  }
  json_t *j = tu_json(out);
  json_t *figs = json_object_get(j, "figures");
  assert_true(json_is_array(figs));
  /* the flat text, as a terminal's wrap leaves it: line breaks out */
  char *f = malloc(len + 1);
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] != '\n' && text[i] != '\r') f[n++] = text[i];
  f[n] = 0;
  bool buffers = strstr(json_string_value(json_object_get(j, "kind")), "buffer") || strstr(json_string_value(json_object_get(j, "kind")), "report");
  for (size_t p = 0; p < n && !buffers; p++) {
    size_t q = size_at(f, n, p);
    if (!q) continue;
    bool found = false;
    size_t i;
    json_t *x;
    json_array_foreach(figs, i, x) {
      const char *pr = json_string_value(json_object_get(x, "printed"));
      char want[64];
      snprintf(want, sizeof want, "%.*s", (int)(q - p), f + p);
      if (pr && strstr(pr, want)) found = true;
    }
    if (!found) fail_msg("%s: \"%.*s\" is printed but not in figures", path, (int)(q - p), f + p);
    p = q - 1;
  }
  /* each figure has its printed text and line; each named figure sets its key */
  size_t i;
  json_t *x;
  json_array_foreach(figs, i, x) {
    const char *nm = json_string_value(json_object_get(x, "name")), *pr = json_string_value(json_object_get(x, "printed"));
    assert_non_null(nm);
    assert_non_null(pr);
    assert_true(json_integer_value(json_object_get(x, "line")) >= 1);
    assert_true(json_is_integer(json_object_get(x, "bytes")));
    for (size_t k = 0; k < sizeof NAMED / sizeof NAMED[0]; k++) {
      if (strcmp(nm, NAMED[k]) != 0) continue;
      char key[64];
      snprintf(key, sizeof key, "%s_bytes", nm);
      if (!json_is_integer(json_object_get(j, key))) fail_msg("%s: figure %s (%s) but %s is not set", path, nm, pr, key);
    }
  }
  /* the device's number is not a size */
  assert_null(json_object_get(json_object_get(j, "totals"), "device_ordinal"));
  (*(int *)ctx)++;
  free(f);
  json_decref(j);
  free(text);
}

static void test_every_figure_is_named(void **state) {
  (void)state;
  static const char *dirs[] = {"captures/oom-variants", "captures/memory", "captures/errors"};
  int count = 0;
  for (int k = 0; k < 3; k++) {
    TU_NEED_SHARED(dirs[k]);
    tu_each_shared(dirs[k], ".txt", figures_hold, &count);
  }
  assert_true(count >= 17);
}

/* The forms no shared capture holds, written here in XLA's words with our own numbers: XLA's
 * E1000/E1002 TensorCore + SparseCore sentence (openxla.org/xla/errors), the runtime's table
 * with the figures issue 35 quotes, and a message with no sizes. */
static void test_named_forms(void **state) {
  (void)state;
  const char *sc = "RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 20.00G, SparseCore Hbm usage 80.50G, exceeding available bytes: 95.75G";
  json_t *j = memory(sc, strlen(sc));
  assert_int_equal(json_integer_value(json_object_get(j, "tensorcore_bytes")), 20LL << 30);
  assert_int_equal(json_integer_value(json_object_get(j, "sparsecore_bytes")), (805LL << 30) / 10);
  assert_int_equal(json_integer_value(json_object_get(j, "capacity_bytes")), (383LL << 30) / 4);
  assert_string_equal(json_string_value(json_object_get(j, "memory_space")), "hbm");
  assert_non_null(strstr(json_string_value(json_object_get(j, "cause")), "SparseCore is the larger"));
  assert_int_equal(json_array_size(json_object_get(j, "figures")), 3);
  json_decref(j);
  const char *rt = "RuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 3.95G. That was not "
                   "possible.\n  HBM capacity 8.00G\n  Currently allocated: 6.08G\n  Program requirement: 3.95G (4,237,689,856 bytes)\n";
  j = memory(rt, strlen(rt));
  assert_int_equal(json_integer_value(json_object_get(j, "program_bytes")), 4237689856LL);
  assert_int_equal(json_integer_value(json_object_get(j, "capacity_bytes")), 8LL << 30);
  assert_true(json_is_integer(json_object_get(j, "allocated_bytes")));
  const char *cause = json_string_value(json_object_get(j, "cause"));
  assert_non_null(cause);
  assert_non_null(strstr(cause, "6.08 GiB were already allocated"));
  assert_non_null(strstr(cause, "the 3.95 GiB program could not fit in the 1.92 GiB left"));
  json_decref(j);
  const char *none = "ResourceExhaustedError: Ran out of memory in memory space vmem.";
  j = memory(none, strlen(none));
  assert_int_equal(json_array_size(json_object_get(j, "lacks")), 2);
  assert_non_null(strstr(json_string_value(json_object_get(j, "explanation")), "prints no sizes"));
  json_decref(j);
  const char *ord = "Failed to allocate request for 256.00MiB (268435456B) on device ordinal 3";
  j = memory(ord, strlen(ord));
  assert_int_equal(json_integer_value(json_object_get(j, "requested_bytes")), 268435456);
  assert_int_equal(json_integer_value(json_object_get(j, "device_ordinal")), 3);
  assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "figures"), 0), "printed")),
                      "256.00MiB (268435456B)");
  json_decref(j);
}

/* XLA:GPU's scheduler prints the memory limit jax's preallocation left it: the cause names the 75%. */
static void test_gpu_base_limit(void **state) {
  (void)state;
  size_t len = 0;
  char *text = shared_file("oom-variants/gpu_bfc_jax_27354_requested_by_op.txt", &len);
  NEED(text);
  json_t *j = memory(text, len);
  assert_int_equal(json_integer_value(json_object_get(j, "requested_bytes")), 1374521760000LL); /* "(rounded to ...)" */
  assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "totals"), "base_limit")), 25554419712LL);
  assert_non_null(strstr(json_string_value(json_object_get(j, "cause")), "preallocates 75%"));
  json_decref(j);
  free(text);
}

/* A buffer assignment whose text does not name its backend takes it from XLA's dump name. */
static void backend_by_name(const char *path, void *ctx) {
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  hs_error err;
  json_t *j = tu_json(hs_memory_file_json(text, len, path, NULL, &err, NULL));
  assert_non_null(j);
  const char *be = json_string_value(json_object_get(j, "backend"));
  const char *base = strrchr(path, '/') + 1;
  const char *want = strncmp(base, "gpu_", 4) == 0 ? "gpu" : strncmp(base, "cpu_", 4) == 0 ? "cpu" : NULL;
  if (want && (!be || strcmp(be, want) != 0)) fail_msg("%s: backend %s, want %s", base, be ? be : "null", want);
  if (strncmp(base, "tpu_", 4) == 0 && be) assert_string_equal(be, "tpu");
  (*(int *)ctx)++;
  json_decref(j);
  free(text);
}

static void test_buffers_backend_by_name(void **state) {
  (void)state;
  TU_NEED_SHARED("captures/buffers");
  int n = 0;
  tu_each_shared("captures/buffers", ".txt", backend_by_name, &n);
  assert_true(n >= 4);
}

/* The padding table's totals count each buffer once: a bitcast, a get-tuple-element and an output
 * aliasing its operand are rows out of the totals (the TPU threefry module's two bitcasts of a
 * padded value held 1016 of its 4568 padding bytes twice). */
static void padding_total(const char *path, void *ctx) {
  size_t len = 0;
  char *text = tu_read(path, &len);
  assert_non_null(text);
  hs_doc *d = hs_parse(text, len, NULL);
  assert_non_null(d);
  json_t *j = tu_json(hs_layouts_json(d, NULL));
  uint64_t pad = 0, logical = 0;
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(j, "rows"), i, r) {
    const char *op = json_string_value(json_object_get(r, "opcode"));
    bool in = json_is_true(json_object_get(r, "in_total"));
    if (strcmp(op, "bitcast") == 0 || strcmp(op, "get-tuple-element") == 0) assert_false(in);
    if (in) {
      pad += (uint64_t)json_integer_value(json_object_get(r, "padding_bytes"));
      logical += (uint64_t)json_integer_value(json_object_get(r, "logical_bytes"));
    }
  }
  assert_int_equal(json_integer_value(json_object_get(j, "padding_bytes")), pad);
  assert_int_equal(json_integer_value(json_object_get(j, "logical_bytes")), logical);
  (*(int *)ctx)++;
  json_decref(j);
  hs_doc_free(d);
  free(text);
}

static void test_padding_total_counts_buffers_once(void **state) {
  (void)state;
  TU_NEED_SHARED("captures/tpu-layouts");
  int n = 0;
  tu_each_shared("captures/tpu-layouts", ".txt", padding_total, &n);
  tu_each_shared("captures/gpu-semantics", ".txt", padding_total, &n);
  assert_true(n >= 2);
}

static void test_cut_and_wrapped(void **state) {
  (void)state;
  size_t len = 0;
  char *text = shared_file("memory/13_gpu_jax_13428_peak_buffers.txt", &len);
  NEED(text);
  json_t *j = memory(text, len);
  assert_int_equal(json_array_size(json_object_get(j, "allocations")), 3); /* what was read */
  assert_true(has_warning(j, "HS_W_TRUNCATED"));
  /* the GPU list's operator joined: op_name and source */
  json_t *a0 = json_array_get(json_object_get(j, "allocations"), 0);
  assert_string_equal(json_string_value(json_object_get(a0, "shape")), "f32[4096,128,3]");
  assert_non_null(strstr(json_string_value(json_object_get(a0, "source")), "models.py:689"));
  json_decref(j);
  free(text);
  /* tab-indented peak buffers, pasted from the middle of the list */
  text = shared_file("memory/17_gpu_tapnet_48_peak_buffers_tabs.txt", &len);
  j = memory(text, len);
  assert_int_equal(json_array_size(json_object_get(j, "allocations")), 6);
  assert_true(has_warning(j, "HS_W_PARTIAL_FORMAT"));
  assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "allocations"), 0), "kind")), "parameter");
  json_decref(j);
  free(text);
  text = shared_file("memory/01_tpu_hbm_easydel_166.txt", &len);
  j = memory(text, len);
  assert_true(has_warning(j, "HS_W_TRUNCATED"));
  json_decref(j);
  free(text);
  /* a sentence broken by a web page and a number cut by a terminal read the same as one line */
  const char *wrapped = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in\nmemory space hbm. Used 63.8\n0G of 30.75G hbm. Exceeded hbm capa\ncity by 33.05G.\n";
  j = memory(wrapped, strlen(wrapped));
  near_printed(geti(j, "used_bytes"), "63.80G", "wrapped used");
  near_printed(geti(j, "exceeded_bytes"), "33.05G", "wrapped exceeded");
  json_decref(j);
  /* prefixed by a log header */
  const char *logged = "2024-05-01 10:00:00.123456: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2826] Execution of "
                       "replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.\n";
  j = memory(logged, strlen(logged));
  assert_int_equal(geti(j, "requested_bytes"), 17179869184LL);
  json_decref(j);
  /* the TPU runtime's program-load failure (XLA error E0101's grammar), wrapped as pasted */
  const char *load = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step':\nAttempting to reserve "
                     "9.62G at the bottom of memory. That was not possible.\nThere are 7.14G free, 0B reserved, and 7.14G reservable.\n";
  j = memory(load, strlen(load));
  near_printed(geti(j, "requested_bytes"), "9.62G", "reserve");
  near_printed(geti(json_object_get(j, "totals"), "reservable"), "7.14G", "reservable");
  assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "allocations"), 0), "label")), "jit_step");
  assert_non_null(strstr(json_string_value(json_object_get(j, "explanation")), "2.48 GiB short"));
  json_decref(j);
}

/* Advice only from evidence in the text: an f32 convert of a bf16 operand, named by its label. */
static void test_advice(void **state) {
  (void)state;
  const char *msg =
      "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 17.46G of 15.48G hbm. "
      "Exceeded hbm capacity by 1.98G.\n\n  Largest program allocations in hbm:\n\n  1. Size: 2.93G\n"
      "     Operator: op_name=\"jit(step)/convert_element_type\" source_file=\"/home/u/model.py\" source_line=3\n"
      "     Shape: f32[50304,15616]{1,0:T(8,128)}\n     Unpadded size: 2.92G\n"
      "     XLA label: %convert.5 = f32[50304,15616]{1,0:T(8,128)} convert(bf16[50304,15616]{1,0:T(8,128)(2,1)} %param.1)\n"
      "     Allocation type: HLO temp\n     ==========================\n";
  json_t *j = memory(msg, strlen(msg));
  const char *ex = json_string_value(json_object_get(j, "explanation"));
  assert_non_null(strstr(ex, "(convert_element_type at model.py:3)"));
  assert_non_null(strstr(ex, "f32 upcast of a bf16 value: keeping it in bf16 saves 1.46 GiB"));
  assert_false(has_warning(j, "HS_W_TRUNCATED"));
  json_decref(j);
  /* the same list entry without the bf16 operand gives no advice */
  char *plain = strdup(msg);
  char *b = strstr(plain, "bf16[");
  memcpy(b, "f32[5", 5);
  j = memory(plain, strlen(plain));
  assert_null(strstr(json_string_value(json_object_get(j, "explanation")), "upcast"));
  json_decref(j);
  free(plain);
}

static void test_not_memory(void **state) {
  (void)state;
  static const char *bad[] = {
      "google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Requests'",
      "The model trained for three epochs and the loss went down nicely.\n",
      "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
  };
  for (size_t i = 0; i < 3; i++) {
    hs_error err;
    char *s = hs_memory_json(bad[i], strlen(bad[i]), &err, NULL);
    assert_null(s);
    assert_int_equal(err.code, HS_E_FORMAT);
    assert_non_null(strstr(err.message, "not an XLA memory message"));
  }
  hs_error err;
  assert_null(hs_memory_json("  \n", 3, &err, NULL));
  assert_int_equal(err.code, HS_E_EMPTY);
}

/* ---- layouts ----------------------------------------------------------------------------- */
static json_t *layout(const char *type) {
  hs_error err;
  char *s = hs_layout_json(type, strlen(type), &err, NULL);
  if (!s) fail_msg("%s: %s at column %u", type, err.message, err.col);
  return tu_json(s);
}

static void test_layout_words(void **state) {
  (void)state;
  json_t *j = layout("bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)}");
  assert_string_equal(json_string_value(json_object_get(j, "words")),
                      "row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on TPU)");
  assert_int_equal(geti(j, "padding_bytes"), 0);
  assert_int_equal(geti(j, "memory_space"), 1);
  json_decref(j);
  j = layout("f32[2,3]{0,1:D(D,C)T(2,128)L(4)#(u32)*(u64)E(32)S(5)SC(0:1)P(f32[4]{0})M(8)}");
  assert_string_equal(json_string_value(json_object_get(j, "dim_level_types")), "D,C");
  assert_string_equal(json_string_value(json_object_get(j, "index_type")), "u32");
  assert_string_equal(json_string_value(json_object_get(j, "pointer_type")), "u64");
  assert_int_equal(geti(j, "element_size_bits"), 32);
  assert_int_equal(geti(j, "tail_padding_alignment"), 4);
  assert_int_equal(geti(j, "dynamic_metadata_bytes"), 8);
  assert_string_equal(json_string_value(json_object_get(j, "physical_shape")), "f32[4]{0}");
  json_decref(j);
  /* a part XLA never prints, and a layout of the wrong rank */
  hs_error err;
  assert_null(hs_layout_json("f32[2,3]{1,0:Q(2)}", 18, &err, NULL));
  assert_int_equal(err.code, HS_E_SYNTAX);
  assert_int_equal(err.col, 14);
  assert_null(hs_layout_json("f32[2,3]{0}", 11, &err, NULL));
  assert_int_equal(err.code, HS_E_SYNTAX);
}

/* TPU allocation lists print a tiled shape with its padded size, unpadded size and padding. */
static void test_padding_against_tpu_messages(void **state) {
  (void)state;
  static const char *files[] = {"memory/01_tpu_hbm_easydel_166.txt", "memory/06_tpu_hbm_colabfold_62_alloclist.txt"};
  int checked = 0;
  for (size_t f = 0; f < 2; f++) {
    size_t len = 0;
    char *text = shared_file(files[f], &len);
    NEED(text);
    json_t *j = memory(text, len);
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(j, "allocations"), i, a) {
      const char *shape = json_string_value(json_object_get(a, "shape"));
      if (!shape || !json_object_get(a, "unpadded_bytes")) continue;
      json_t *l = layout(shape);
      long long padded = geti(l, "padded_bytes"), logical = geti(l, "logical_bytes");
      long long size = geti(a, "bytes"), unpadded = geti(a, "unpadded_bytes");
      /* printed with two decimals of the unit: compare at that precision */
      double unit = size >= (1LL << 30) ? (double)(1LL << 30) : (double)(1LL << 20);
      assert_true(fabs((double)(padded - size)) <= 0.005 * unit + 1);
      assert_true(fabs((double)(logical - unpadded)) <= 0.005 * unit + 1);
      if (json_object_get(a, "padding_bytes"))
        assert_true(fabs((double)(padded - logical - geti(a, "padding_bytes"))) <= 0.01 * unit + 1);
      json_decref(l);
      checked++;
    }
    json_decref(j);
    free(text);
  }
  assert_true(checked >= 2);
}

/* ---- buffer assignments and usage reports --------------------------------------------------- */
static int values_checked, pairs_checked, memory_checked;

static void check_values(json_t *ba, const char *name) {
  size_t i, k;
  json_t *a, *v;
  json_array_foreach(json_object_get(ba, "allocations"), i, a) {
    json_array_foreach(json_object_get(a, "values"), k, v) {
      json_t *lb = json_object_get(v, "layout_bytes");
      if (!json_is_integer(lb)) continue; /* tuples: a pointer table */
      if (json_integer_value(lb) != geti(v, "bytes"))
        fail_msg("%s: value %s %s: XLA says %lld bytes, our layout reader %lld", name, json_string_value(json_object_get(v, "name")),
                 json_string_value(json_object_get(v, "shape")), geti(v, "bytes"), (long long)json_integer_value(lb));
      values_checked++;
    }
  }
}

/* ba and report from the same dump: equal totals; each report allocation within print precision */
static void check_pair(const char *ba_path, const char *report_path) {
  size_t n1 = 0, n2 = 0;
  char *t1 = tu_read(ba_path, &n1), *t2 = tu_read(report_path, &n2);
  assert_non_null(t1);
  assert_non_null(t2);
  json_t *ba = memory(t1, n1), *rep = memory(t2, n2);
  assert_string_equal(json_string_value(json_object_get(ba, "kind")), "buffer_assignment");
  assert_string_equal(json_string_value(json_object_get(rep, "kind")), "memory_usage_report");
  json_t *bt = json_object_get(ba, "totals"), *rt = json_object_get(rep, "totals");
  /* the assignment's allocations sum to the total it prints (when it prints one) */
  if (json_object_get(bt, "total_bytes_used")) assert_int_equal(geti(bt, "allocated"), geti(bt, "total_bytes_used"));
  /* the usage report's total equals the assignment's */
  if (geti(bt, "allocated") != geti(rt, "total_bytes_used"))
    fail_msg("%s: buffer assignment %lld bytes, usage report %lld", ba_path, geti(bt, "allocated"), geti(rt, "total_bytes_used"));
  /* per memory space (color) */
  const char *k;
  json_t *v;
  json_object_foreach(rt, k, v) {
    if (strncmp(k, "color_", 6) == 0) assert_int_equal(json_integer_value(v), geti(bt, k));
  }
  /* the report lists the largest allocations (newer XLA only the first few dozen), sizes rounded */
  json_t *ra = json_object_get(rep, "allocations"), *baa = json_object_get(ba, "allocations");
  assert_true(json_array_size(ra) <= json_array_size(baa));
  assert_true(json_array_size(ra) > 0);
  for (size_t i = 0; i < json_array_size(ra); i++) {
    long long x = geti(json_array_get(baa, i), "bytes"), y = geti(json_array_get(ra, i), "bytes");
    /* newer reports print no allocation line: where its furthest value ends is a lower bound */
    bool exact = json_object_get(json_array_get(ra, i), "index") != NULL;
    if (exact ? fabs((double)(x - y)) > 0.006 * (double)x + 52 : (double)y > 1.006 * (double)x + 52) fail_msg("%s: allocation %zu: %lld bytes, report %lld", report_path, i + 1, x, y);
  }
  check_values(ba, ba_path);
  json_decref(ba);
  json_decref(rep);
  free(t1);
  free(t2);
  pairs_checked++;
}

static void test_shared_buffers(void **state) {
  (void)state;
  static const char *stems[] = {"cpu__module_0010.jit_convert_element_type.cpu_after_optimizations",
                                "gpu_a100__module_0003.SyncTensorsGraph.5.sm_8.0_gpu_after_optimizations",
                                "tpu_v6e__module_0004.jit__threefry_seed.cl_804429027.after_optimizations"};
  char dir[1024], a[2048], b[2048];
  TU_NEED_SHARED("captures/buffers");
  tu_shared(dir, sizeof dir, "captures/buffers");
  values_checked = 0;
  for (int i = 0; i < 3; i++) {
    snprintf(a, sizeof a, "%s/%s-buffer-assignment.txt", dir, stems[i]);
    snprintf(b, sizeof b, "%s/%s-memory-usage-report.txt", dir, stems[i]);
    check_pair(a, b);
  }
  assert_true(values_checked >= 8);
  /* TPU: the tiled scalars take 512 bytes, colors are memory spaces */
  size_t n = 0;
  snprintf(a, sizeof a, "%s/%s-buffer-assignment.txt", dir, stems[2]);
  char *t = tu_read(a, &n);
  json_t *j = memory(t, n);
  assert_string_equal(json_string_value(json_object_get(j, "backend")), "tpu");
  assert_int_equal(geti(json_object_get(j, "totals"), "color_6"), 1024);
  json_decref(j);
  free(t);
}

/* The reports of one fixture's dump folder, found by their names' endings. */
typedef struct {
  char ba[8192], rep[8192], values[8192];
} dump_reports;

static void classify_report(const char *path, void *ctx) {
  dump_reports *r = ctx;
  size_t l = strlen(path);
  if (l > 22 && strcmp(path + l - 22, "-buffer-assignment.txt") == 0) snprintf(r->ba, sizeof r->ba, "%s", path);
  if (l > 24 && strcmp(path + l - 24, "-memory-usage-report.txt") == 0) snprintf(r->rep, sizeof r->rep, "%s", path);
  if (l > 29 && strcmp(path + l - 29, "-buffer-assignment-values.txt") == 0) snprintf(r->values, sizeof r->values, "%s", path);
}

static void fixture_buffers(const char *dir, void *ctx) {
  (void)ctx;
  if (!strstr(dir, "/cpu-jax-0.4.38/") && !strstr(dir, "/cpu-jax-0.10.2/")) return;
  char dump[4200];
  snprintf(dump, sizeof dump, "%s/dump", dir);
  dump_reports r = {"", "", ""};
  if (tu_each_file(dump, "", classify_report, &r) < 0) return;
  if (!r.ba[0] || !r.rep[0]) return;
  check_pair(r.ba, r.rep);
  /* jax's compiled.memory_analysis() (oracle.json): XLA's own argument, output, temp sizes */
  char op[4200];
  snprintf(op, sizeof op, "%s/oracle.json", dir);
  json_error_t je;
  json_t *oracle = json_load_file(op, 0, &je);
  json_t *ma = json_object_get(oracle, "memory_analysis");
  if (ma) {
    size_t bn = 0;
    char *bt = tu_read(r.ba, &bn);
    json_t *bj = memory(bt, bn);
    json_t *tot = json_object_get(bj, "totals");
    json_t *x;
    assert_int_equal((x = json_object_get(tot, "parameter")) ? json_integer_value(x) : 0, geti(ma, "argument_size_in_bytes"));
    assert_int_equal((x = json_object_get(tot, "output")) ? json_integer_value(x) : 0, geti(ma, "output_size_in_bytes"));
    assert_int_equal((x = json_object_get(tot, "temp")) ? json_integer_value(x) : 0, geti(ma, "temp_size_in_bytes"));
    memory_checked++;
    json_decref(bj);
    free(bt);
  }
  json_decref(oracle);
  if (r.values[0]) {
    /* newer XLA prints the total in the -values part: it equals the allocations' sum */
    size_t n1 = 0, n2 = 0;
    char *t1 = tu_read(r.ba, &n1), *t2 = tu_read(r.values, &n2);
    json_t *j1 = memory(t1, n1), *j2 = memory(t2, n2);
    assert_int_equal(geti(json_object_get(j1, "totals"), "allocated"), geti(json_object_get(j2, "totals"), "total_bytes_used"));
    json_decref(j1);
    json_decref(j2);
    free(t1);
    free(t2);
  }
}

static void test_fixture_buffers(void **state) {
  (void)state;
  pairs_checked = 0;
  values_checked = 0;
  tu_each_fixture(0, fixture_buffers, NULL);
  print_message("buffer assignments checked against their usage reports: %d; against memory_analysis(): %d; values sized: %d\n",
                pairs_checked, memory_checked, values_checked);
  assert_true(memory_checked >= 50);
  assert_true(pairs_checked >= 50);
  assert_true(values_checked >= 200);
}

/* Every value of the TPU modules reads, and the padding table is in padding order. */
static void test_tpu_layout_modules(void **state) {
  (void)state;
  static const char *files[] = {"tpu-layouts/tpu_v6e__module_0004.jit__threefry_seed.cl_804429027.after_optimizations.txt",
                                "tpu-layouts/tpu_v6e__module_0028.jit_add.cl_804429027.after_optimizations.txt",
                                "tpu-v6e/jit_naive_attention.after_optimizations.trimmed.txt"};
  for (int i = 0; i < 3; i++) {
    size_t len = 0;
    char *text = shared_file(files[i], &len);
    NEED(text);
    hs_error err;
    hs_doc *d = hs_parse(text, len, &err);
    assert_non_null(d);
    json_t *j = tu_json(hs_layouts_json(d, NULL));
    assert_int_equal(geti(j, "unread"), 0);
    assert_true(geti(j, "values") > 0);
    long long prev = -1;
    size_t k;
    json_t *r;
    json_array_foreach(json_object_get(j, "rows"), k, r) {
      long long p = geti(r, "padding_bytes");
      if (prev >= 0) assert_true(p <= prev);
      prev = p;
      assert_int_equal(geti(r, "padded_bytes") - geti(r, "logical_bytes"), p);
    }
    json_decref(j);
    hs_doc_free(d);
    free(text);
  }
}

/* XLA's own printer (tests/oracle/memory/layout_reference.json, made by make_layout_reference.py with
 * jaxlib's xla_client.Layout) read back part by part. */
static void test_layout_reference(void **state) {
  (void)state;
  char path[1024];
  tu_oracle(path, sizeof path, "memory", "layout_reference.json");
  json_error_t e;
  json_t *ref = json_load_file(path, 0, &e);
  assert_non_null(ref);
  size_t i;
  json_t *c;
  int n = 0;
  json_array_foreach(json_object_get(ref, "cases"), i, c) {
    json_t *m2m = json_object_get(c, "minor_to_major");
    char type[256] = "f32[";
    for (size_t k = 0; k < json_array_size(m2m); k++) strcat(type, k ? ",5" : "5");
    strcat(type, "]");
    strcat(type, json_string_value(json_object_get(c, "printed")));
    json_t *l = layout(type);
    assert_true(json_equal(json_object_get(l, "minor_to_major"), m2m));
    assert_true(json_equal(json_object_get(l, "tiles"), json_object_get(c, "tiles")));
    json_int_t bits = json_integer_value(json_object_get(c, "element_size_bits"));
    json_t *got = json_object_get(l, "element_size_bits");
    if (bits) assert_int_equal(json_integer_value(got), bits);
    else assert_true(json_is_null(got));
    json_decref(l);
    n++;
  }
  assert_true(n >= 10);
  json_decref(ref);
}

/* The registry's detect function: every memory text is one, dumps and prose are not. */
static void detected_as_memory(const char *path, void *ctx) {
  int *yes = ctx;
  size_t len = 0;
  char *t = tu_read(path, &len);
  assert_non_null(t);
  if (hs_detect_memory(t, len, 0) <= 0) fail_msg("%s is not detected as a memory text", path);
  if (hs_detect_format(t, len) != HS_FORMAT_MEMORY) fail_msg("%s is detected as %s", path, hs_format_name(hs_detect_format(t, len)));
  free(t);
  (*yes)++;
}

static void test_detect(void **state) {
  (void)state;
  static const char *dirs[] = {"captures/memory", "captures/buffers", "captures/errors"};
  int yes = 0;
  for (int k = 0; k < 3; k++) {
    TU_NEED_SHARED(dirs[k]);
    tu_each_shared(dirs[k], "", detected_as_memory, &yes);
  }
  assert_int_equal(yes, 18);
  static const char *no[] = {"fixtures/cpu-jax-0.10.2/softmax/after_optimizations.txt", "fixtures/cpu-jax-0.10.2/softmax/stablehlo.mlir",
                             "fixtures/cpu-jax-0.4.38/attention/after_optimizations.txt", "fixtures/cpu-jax-0.4.38/attention/jaxpr.txt"};
  for (int i = 0; i < 4; i++) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", HS_SOURCE_DIR, no[i]);
    size_t len = 0;
    char *t = tu_read(p, &len);
    assert_non_null(t);
    assert_int_equal(hs_detect_memory(t, len, 0), 0);
    assert_int_not_equal(hs_detect_format(t, len), HS_FORMAT_MEMORY);
    free(t);
  }
  const char *prose = "RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'";
  assert_int_equal(hs_detect_memory(prose, strlen(prose), 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_messages),          cmocka_unit_test(test_every_message_reads),
      cmocka_unit_test(test_cut_and_wrapped),   cmocka_unit_test(test_not_memory),
      cmocka_unit_test(test_layout_words),      cmocka_unit_test(test_padding_against_tpu_messages),
      cmocka_unit_test(test_shared_buffers),    cmocka_unit_test(test_fixture_buffers),
      cmocka_unit_test(test_tpu_layout_modules), cmocka_unit_test(test_layout_reference),
      cmocka_unit_test(test_detect), cmocka_unit_test(test_every_figure_is_named), cmocka_unit_test(test_named_forms),
      cmocka_unit_test(test_buffers_backend_by_name), cmocka_unit_test(test_gpu_base_limit), cmocka_unit_test(test_padding_total_counts_buffers_once),            cmocka_unit_test(test_advice),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
