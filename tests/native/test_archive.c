/* Archives of dump folders walked by the core (dumpset/archive.c) and the dump-folder queries over
 * names (dumpset/pairs.c): the committed fixtures/passes archives as .tar.gz, .tar and a .zip
 * written here (stored and deflated), the async-host protocol (HS_INFLATE_LATER), every cut and
 * many garbled copies (an error naming a byte, or a warning, never a crash: run it under ASan),
 * the set's JSON the same whatever order its files came in, and the sibling / .ll / levels
 * rules. Inflating here is zlib's, as the CLI's. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <zlib.h>

#include <cmocka.h>

#define TU_WITH_DIRENT
#include "testutil.h"
#include "cli.h"

/* ---- a host: zlib inflate, files and warnings collected --------------------------------------- */
typedef struct {
  char **bufs;
  size_t nbufs;
  char *names[4096];
  size_t lens[4096];
  const unsigned char *datas[4096]; /* valid while the host's buffers are */
  int have[4096];
  int n;
  int warnings, codes[64];
  char last_warning[512];
  int later_first; /* answer HS_INFLATE_LATER to each stream the first time it is asked */
  const unsigned char *asked[256];
  size_t n_asked;
} host_t;

/* the CLI's inflate (core/cli/inflate.c) */
static unsigned char *zinflate(const unsigned char *in, size_t n, int window, size_t *out_len) {
  return (unsigned char *)hs_cli_inflate(in, n, window, 0, out_len);
}

static int h_inflate(void *ctx, int method, const unsigned char *in, size_t n, size_t hint, const unsigned char **out, size_t *out_len) {
  host_t *h = ctx;
  if (h->later_first) {
    bool asked = false;
    for (size_t i = 0; i < h->n_asked; i++) asked = asked || h->asked[i] == in;
    if (!asked) {
      if (h->n_asked < 256) h->asked[h->n_asked++] = in;
      return HS_INFLATE_LATER;
    }
  }
  unsigned char *r = zinflate(in, n, method == HS_INFLATE_RAW ? -15 : 15 + 32, out_len);
  if (!r) return HS_E_FORMAT;
  h->bufs = realloc(h->bufs, (h->nbufs + 1) * sizeof *h->bufs);
  h->bufs[h->nbufs++] = (char *)r;
  *out = r;
  return 0;
}

static int h_file(void *ctx, const char *name, size_t nl, const unsigned char *data, size_t len) {
  host_t *h = ctx;
  if (h->n >= 4096) return 0;
  h->names[h->n] = malloc(nl + 1);
  memcpy(h->names[h->n], name, nl);
  h->names[h->n][nl] = 0;
  h->lens[h->n] = len;
  h->datas[h->n] = data;
  h->have[h->n] = data != NULL;
  h->n++;
  return 0;
}

static void h_warn(void *ctx, int code, const char *message) {
  host_t *h = ctx;
  if (h->warnings < 64) h->codes[h->warnings] = code;
  h->warnings++;
  snprintf(h->last_warning, sizeof h->last_warning, "%s", message);
}

static void h_reset(host_t *h) {
  for (size_t i = 0; i < h->nbufs; i++) free(h->bufs[i]);
  free(h->bufs);
  for (int i = 0; i < h->n; i++) free(h->names[i]);
  int later = h->later_first;
  memset(h, 0, sizeof *h);
  h->later_first = later;
}

static int walk(host_t *h, const unsigned char *b, size_t n, hs_error *err) {
  hs_archive_host host = {.inflate = h_inflate, .file = h_file, .warn = h_warn, .ctx = h};
  return hs_archive_walk(b, n, &host, err);
}

/* ---- the fixtures --------------------------------------------------------------------------- */
static unsigned char *read_fixture(const char *rel, size_t *len) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/passes/%s", HS_SOURCE_DIR, rel);
  return (unsigned char *)tu_read(p, len);
}

/* FILES.txt: the names the dump holds, one a line */
static int files_txt(const char *rel, char names[][256], int cap) {
  char p[1024];
  snprintf(p, sizeof p, "%s/fixtures/passes/%s/FILES.txt", HS_SOURCE_DIR, rel);
  size_t len = 0;
  char *t = tu_read(p, &len);
  assert_non_null(t);
  int n = 0;
  for (char *line = strtok(t, "\n"); line && n < cap; line = strtok(NULL, "\n")) snprintf(names[n++], 256, "%s", line);
  free(t);
  return n;
}

static const char *const FIXTURES[] = {"cpu-jax-0.4.38/mlp", "cpu-jax-0.4.38/attention", "cpu-jax-0.12.0.1/mlp"};

static void tar_gz_fixtures(void **state) {
  static char want[512][256];
  for (size_t k = 0; k < sizeof FIXTURES / sizeof *FIXTURES; k++) {
    char rel[256];
    snprintf(rel, sizeof rel, "%s/dump.tar.gz", FIXTURES[k]);
    size_t len = 0;
    unsigned char *gz = read_fixture(rel, &len);
    assert_non_null(gz);
    assert_int_equal(hs_archive_kind(gz, len), HS_ARCHIVE_GZIP);
    host_t h = {0};
    hs_error err;
    assert_int_equal(walk(&h, gz, len, &err), 0);
    int nw = files_txt(FIXTURES[k], want, 512);
    assert_int_equal(h.n, nw);
    for (int i = 0; i < h.n; i++) {
      bool found = false;
      const char *in_dump = strchr(h.names[i], 0x2f) ? strchr(h.names[i], 0x2f) + 1 : h.names[i]; /* past "passes/" */
      for (int j = 0; j < nw && !found; j++) found = strcmp(in_dump, want[j]) == 0;
      if (!found) fail_msg("%s: %s is not in FILES.txt", FIXTURES[k], h.names[i]);
      assert_int_equal(h.have[i], hs_dumpset_wants_bytes(h.names[i], strlen(h.names[i])));
    }
    assert_int_equal(h.warnings, 0);
    /* the .tar inside walks the same */
    size_t tl;
    unsigned char *tar = zinflate(gz, len, 15 + 32, &tl);
    assert_int_equal(hs_archive_kind(tar, tl), HS_ARCHIVE_TAR);
    host_t t = {0};
    assert_int_equal(walk(&t, tar, tl, &err), 0);
    assert_int_equal(t.n, h.n);
    for (int i = 0; i < t.n; i++) assert_string_equal(t.names[i], h.names[i]);
    /* the async host: asked for the gzip stream, then walks */
    host_t a = {.later_first = 1};
    assert_int_equal(walk(&a, gz, len, &err), HS_INFLATE_LATER);
    assert_int_equal(a.n, 0);
    assert_int_equal(walk(&a, gz, len, &err), 0);
    assert_int_equal(a.n, h.n);
    h_reset(&h);
    h_reset(&t);
    h_reset(&a);
    free(tar);
    free(gz);
  }
}

/* ---- a zip written here: stored and deflated entries, a folder, an unknown method ----------- */
typedef struct {
  unsigned char *b;
  size_t n, cap;
} buf_t;
static void put(buf_t *b, const void *p, size_t n) {
  if (b->n + n > b->cap) b->b = realloc(b->b, b->cap = (b->n + n) * 2 + 64);
  memcpy(b->b + b->n, p, n);
  b->n += n;
}
static void put16(buf_t *b, unsigned v) {
  unsigned char x[2] = {v & 255, v >> 8};
  put(b, x, 2);
}
static void put32(buf_t *b, unsigned long v) {
  unsigned char x[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255};
  put(b, x, 4);
}

static unsigned char *deflate_raw(const unsigned char *in, size_t n, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  size_t cap = deflateBound(&z, (uLong)n);
  unsigned char *out = malloc(cap);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  deflate(&z, Z_FINISH);
  *out_len = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

typedef struct {
  const char *name;
  const unsigned char *data;
  size_t len;
  unsigned method; /* 0, 8, or another (written stored, named as that method) */
} zentry;

static buf_t make_zip(const zentry *e, int n) {
  buf_t z = {0}, cd = {0};
  for (int i = 0; i < n; i++) {
    size_t off = z.n, cl = e[i].len;
    unsigned char *c = NULL;
    const unsigned char *body = e[i].data;
    if (e[i].method == 8) body = c = deflate_raw(e[i].data, e[i].len, &cl);
    unsigned long crc = crc32(0, e[i].data, (uInt)e[i].len);
    size_t nl = strlen(e[i].name);
    put32(&z, 0x04034b50), put16(&z, 20), put16(&z, 0), put16(&z, e[i].method), put32(&z, 0), put32(&z, crc);
    put32(&z, cl), put32(&z, e[i].len), put16(&z, nl), put16(&z, 0), put(&z, e[i].name, nl), put(&z, body, cl);
    put32(&cd, 0x02014b50), put16(&cd, 20), put16(&cd, 20), put16(&cd, 0), put16(&cd, e[i].method), put32(&cd, 0);
    put32(&cd, crc), put32(&cd, cl), put32(&cd, e[i].len), put16(&cd, nl), put16(&cd, 0), put16(&cd, 0), put16(&cd, 0);
    put16(&cd, 0), put32(&cd, 0), put32(&cd, off), put(&cd, e[i].name, nl);
    free(c);
  }
  size_t cd_off = z.n;
  put(&z, cd.b, cd.n);
  put32(&z, 0x06054b50), put16(&z, 0), put16(&z, 0), put16(&z, n), put16(&z, n), put32(&z, cd.n), put32(&z, cd_off), put16(&z, 0);
  free(cd.b);
  return z;
}

static const char HLO[] = "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, p)\n}\n";

static buf_t sample_zip(void) {
  const unsigned char *t = (const unsigned char *)HLO;
  zentry e[] = {
      {"dump/", t, 0, 0},
      {"dump/module_0001.jit_f.0000.p.after_pipeline-start.before_x.txt", t, sizeof HLO - 1, 0},
      {"dump/module_0001.jit_f.0001.p.after_x.before_pipeline-end.txt", t, sizeof HLO - 1, 8},
      {"dump/module_0001.jit_f.cpu_after_optimizations.txt", t, sizeof HLO - 1, 12}, /* bzip2: named only */
      {"dump/module_0001.jit_f.ir-no-opt.ll", t, sizeof HLO - 1, 8},                  /* not wanted: not inflated */
  };
  return make_zip(e, 5);
}

static void zip_entries(void **state) {
  buf_t z = sample_zip();
  assert_int_equal(hs_archive_kind(z.b, z.n), HS_ARCHIVE_ZIP);
  host_t h = {0};
  hs_error err;
  assert_int_equal(walk(&h, z.b, z.n, &err), 0);
  assert_int_equal(h.n, 4); /* the folder left out */
  assert_string_equal(h.names[0], "dump/module_0001.jit_f.0000.p.after_pipeline-start.before_x.txt");
  assert_int_equal(h.have[0], 1);
  assert_int_equal(h.lens[0], sizeof HLO - 1);
  assert_int_equal(h.have[1], 1);
  assert_int_equal(h.lens[1], sizeof HLO - 1);
  assert_int_equal(h.have[2], 0);
  assert_int_equal(h.have[3], 0);
  assert_int_equal(h.warnings, 1);
  assert_int_equal(h.codes[0], HS_W_ARCHIVE_UNREAD);
  assert_non_null(strstr(h.last_warning, "compression method 12"));
  h_reset(&h);

  /* into a set: the warning in its JSON, through hs_diag, with its code */
  hs_dumpset *s = hs_dumpset_new();
  host_t later = {.later_first = 1};
  assert_int_equal(hs_dumpset_add_archive(s, z.b, z.n, h_inflate, &later, &err), HS_INFLATE_LATER);
  assert_int_equal(hs_dumpset_file_count(s), 0);
  assert_int_equal(hs_dumpset_add_archive(s, z.b, z.n, h_inflate, &later, &err), 0);
  assert_int_equal(hs_dumpset_file_count(s), 4);
  json_t *j = tu_json(hs_dumpset_json(s, &err, NULL));
  assert_non_null(j);
  json_t *w = json_array_get(json_object_get(j, "warnings"), 0);
  assert_string_equal(json_string_value(json_object_get(w, "code")), "HS_W_ARCHIVE_UNREAD");
  json_t *steps = json_object_get(json_array_get(json_object_get(j, "modules"), 0), "steps");
  assert_int_equal(json_array_size(steps), 2);
  assert_true(json_is_object(json_object_get(json_array_get(steps, 1), "counts")));
  json_decref(j);
  hs_dumpset_free(s);
  h_reset(&later);
  free(z.b);
}

/* ---- cut and garbled: an error that names a byte, or a warning; never a crash ---------------- */
static void check_damaged(const unsigned char *b, size_t n, int *errors, int *oks) {
  host_t h = {0};
  hs_error err;
  int rc = walk(&h, b, n, &err);
  if (rc < 0) {
    (*errors)++;
    assert_true(err.code == rc);
    assert_true(strlen(err.message) > 10);
    if (!(err.offset <= n || strstr(err.message, "inflated from the gzip stream"))) fail_msg("offset %zu of %zu: %s", err.offset, n, err.message);
    if (rc == HS_E_FORMAT && !strstr(err.message, "gzip") && !strstr(err.message, "not a readable") && !strstr(err.message, "does not inflate"))
      if (!strstr(err.message, "byte")) fail_msg("no byte offset in: %s", err.message);
  } else {
    assert_int_equal(rc, 0);
    (*oks)++;
  }
  h_reset(&h);
}

static void damaged(void **state) {
  size_t len = 0;
  unsigned char *gz = read_fixture("cpu-jax-0.4.38/mlp/dump.tar.gz", &len);
  size_t tl;
  unsigned char *tar = zinflate(gz, len, 15 + 32, &tl);
  buf_t z = sample_zip();
  int errors = 0, oks = 0;
  /* every cut of the zip; the tar cut at and around each header; the gzip every 97 bytes */
  for (size_t k = 0; k < z.n; k++) {
    unsigned char *c = malloc(k ? k : 1);
    memcpy(c, z.b, k);
    check_damaged(c, k, &errors, &oks);
    free(c);
  }
  for (size_t k = 0; k < tl; k += (k % 512 == 0) ? 1 : (k % 512 == 1 ? 510 : 1)) {
    unsigned char *c = malloc(k ? k : 1); /* a copy of exactly k bytes: ASan sees any read past it */
    memcpy(c, tar, k);
    check_damaged(c, k, &errors, &oks);
    free(c);
  }
  for (size_t k = 0; k < len; k += 97) {
    unsigned char *c = malloc(k ? k : 1);
    memcpy(c, gz, k);
    check_damaged(c, k, &errors, &oks);
    free(c);
  }
  /* a tar cut mid-header: read, with a warning that says where */
  {
    host_t h = {0};
    hs_error err;
    assert_int_equal(walk(&h, tar, 512 + 1024 + 100, &err) <= 0, 1);
    h_reset(&h);
    size_t first = 512 + ((strtoull((char *)tar + 124, NULL, 8) + 511) / 512) * 512; /* past entry 1 */
    assert_int_equal(walk(&h, tar, first + 100, &err), 0);
    assert_int_equal(h.n, 1);
    assert_int_equal(h.warnings, 1);
    assert_int_equal(h.codes[0], HS_W_ARCHIVE_TRUNCATED);
    assert_non_null(strstr(h.last_warning, "mid-header at byte"));
    h_reset(&h);
  }
  /* garbled: random bytes flipped (a fixed seed), in each of the three */
  uint32_t seed = 12345;
  const unsigned char *srcs[3] = {tar, z.b, gz};
  size_t lens[3] = {tl, z.n, len};
  for (int which = 0; which < 3; which++) {
    for (int round = 0; round < (which == 0 ? 300 : 600); round++) {
      unsigned char *c = malloc(lens[which]);
      memcpy(c, srcs[which], lens[which]);
      for (int f = 0; f < 4; f++) {
        seed = seed * 1103515245u + 12345u;
        size_t at = which == 0 ? (seed >> 8) % (lens[which] < 4096 ? lens[which] : 4096) : (seed >> 8) % lens[which];
        seed = seed * 1103515245u + 12345u;
        c[at] = (unsigned char)(seed >> 16);
      }
      check_damaged(c, lens[which], &errors, &oks);
      free(c);
    }
  }
  assert_true(errors > 100);
  assert_true(oks > 10);
  /* the messages */
  hs_error err;
  host_t h = {0};
  unsigned char bad[1024] = {0};
  memcpy(bad, "module_0001.x.txt", 17);
  memcpy(bad + 257, "ustar", 5);
  assert_int_equal(walk(&h, bad, sizeof bad, &err), HS_E_FORMAT);
  assert_string_equal(err.message, "corrupt tar archive: bad header checksum at byte 0");
  assert_int_equal(walk(&h, gz, 3000, &err), HS_E_FORMAT);
  assert_non_null(strstr(err.message, "corrupt gzip stream"));
  unsigned char junk[100] = {1};
  assert_int_equal(walk(&h, junk, sizeof junk, &err), HS_E_FORMAT);
  assert_string_equal(err.message, "not a readable archive (neither gzip, zip nor tar bytes)");
  assert_int_equal(walk(&h, z.b, 3, &err), HS_E_FORMAT);
  h_reset(&h);
  free(z.b);
  free(tar);
  free(gz);
}

/* ---- the set's JSON does not depend on the order its files came in -------------------------- */
static void any_order(void **state) {
  size_t len = 0;
  unsigned char *gz = read_fixture("cpu-jax-0.4.38/attention/dump.tar.gz", &len);
  host_t h = {0};
  hs_error err;
  assert_int_equal(walk(&h, gz, len, &err), 0);
  /* a: the archive; b: the same files, last first */
  hs_dumpset *a = hs_dumpset_new(), *b = hs_dumpset_new();
  hs_dumpset_set_label(a, "x", 1);
  hs_dumpset_set_label(b, "x", 1);
  host_t h2 = {0};
  assert_int_equal(hs_dumpset_add_archive(a, gz, len, h_inflate, &h2, &err), 0);
  for (int i = h.n; i-- > 0;)
    assert_int_equal(hs_dumpset_add(b, h.names[i], strlen(h.names[i]), (const char *)h.datas[i], h.lens[i]), 0);
  char *ja = hs_dumpset_json(a, &err, NULL), *jb = hs_dumpset_json(b, &err, NULL);
  assert_non_null(ja);
  assert_non_null(jb);
  assert_string_equal(ja, jb);
  hs_free(ja);
  hs_free(jb);
  hs_dumpset_free(a);
  hs_dumpset_free(b);
  h_reset(&h);
  h_reset(&h2);
  free(gz);
}

/* ---- which files go together ----------------------------------------------------------------- */
static void pairs(void **state) {
  const char *names = "module_0000.jit_gqa.before_optimizations.txt\n"
                      "module_0000.jit_gqa.cpu_after_optimizations-buffer-assignment.txt\n"
                      "module_0000.jit_gqa.cpu_after_optimizations-memory-usage-report.txt\n"
                      "\n"
                      "module_0000.jit_gqa.cpu_after_optimizations.txt\n"
                      "module_0001.jit_g.cpu_after_optimizations.txt\n"
                      "module_0001.jit_g.ir-with-opt.ll\n"
                      "module_0001.jit_g.ir-no-opt.part_1.ll\n"
                      "module_0001.jit_g.ir-no-opt.part_0.ll\n"
                      "module_0002.jit_h.ir-no-opt.ll\n";
  size_t n = strlen(names);
  const char *r = "/some/dump/module_0000.jit_gqa.cpu_after_optimizations-buffer-assignment.txt";
  assert_int_equal(hs_dumpset_sibling_hlo(names, n, r, strlen(r)), 4);
  r = "module_0000.jit_gqa.cpu_after_optimizations-memory-usage-report.txt";
  assert_int_equal(hs_dumpset_sibling_hlo(names, n, r, strlen(r)), 4);
  r = "module_0001.jit_g.cpu_after_optimizations-buffer-assignment-values.txt";
  assert_int_equal(hs_dumpset_sibling_hlo(names, n, r, strlen(r)), 5);
  r = "module_0009.x.cpu_after_optimizations-buffer-assignment.txt"; /* not there */
  assert_int_equal(hs_dumpset_sibling_hlo(names, n, r, strlen(r)), -1);
  r = "oom.txt";
  assert_int_equal(hs_dumpset_sibling_hlo(names, n, r, strlen(r)), -1);

  uint32_t count;
  r = "dump/module_0001.jit_g.ir-with-opt.ll";
  assert_int_equal(hs_dumpset_hlo_for_ll(names, n, r, strlen(r), &count), 5);
  assert_int_equal(count, 1);
  r = "copied.ll"; /* no module: every optimized HLO matches; the first by name */
  assert_int_equal(hs_dumpset_hlo_for_ll(names, n, r, strlen(r), &count), 4);
  assert_int_equal(count, 2);
  r = "module_0002.jit_h.ir-no-opt.ll";
  assert_int_equal(hs_dumpset_hlo_for_ll(names, n, r, strlen(r), &count), -1);
  assert_int_equal(count, 0);

  char *j = hs_dumpset_levels_json(names, n, NULL);
  assert_string_equal(j, "{\"module\":\"module_0001.\",\"hlo\":5,\"no_opt\":[8,7],\"with_opt\":[6]}");
  hs_free(j);
  const char *none = "a.txt\nb.ll\n";
  j = hs_dumpset_levels_json(none, strlen(none), NULL);
  assert_string_equal(j, "null");
  hs_free(j);
  const char *only = "x/module_0003.f.ir-no-opt.ll\n"; /* one level, no HLO: still the only choice */
  j = hs_dumpset_levels_json(only, strlen(only), NULL);
  assert_string_equal(j, "{\"module\":\"module_0003.\",\"hlo\":null,\"no_opt\":[0],\"with_opt\":[]}");
  hs_free(j);
}

static void kinds(void **state) {
  assert_int_equal(hs_archive_kind("\x1f\x8b", 2), HS_ARCHIVE_GZIP);
  assert_int_equal(hs_archive_kind("\x1f", 1), HS_ARCHIVE_NONE);
  assert_int_equal(hs_archive_kind("PK\x03\x04", 4), HS_ARCHIVE_ZIP);
  assert_int_equal(hs_archive_kind("module_0001.x.txt\n", 18), HS_ARCHIVE_NONE);
  assert_int_equal(hs_archive_kind(NULL, 0), HS_ARCHIVE_NONE);
  assert_string_equal(hs_archive_kind_name(HS_ARCHIVE_TAR), "tar");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(kinds), cmocka_unit_test(tar_gz_fixtures), cmocka_unit_test(zip_entries),
      cmocka_unit_test(damaged), cmocka_unit_test(any_order), cmocka_unit_test(pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
