/* hloscope passes: dump folders on the command line.
 *
 *   hloscope passes PATH... [--json]          PATH: a dump folder, a .tar.gz/.tgz/.tar/.zip of
 *   hloscope passes --compare A B [--json]    one, or a listing file (one name per line, `ls`)
 *
 * The core reads names and bytes (hs_dumpset_*) and walks archives (hs_dumpset_add_archive);
 * walking folders happens here, and inflating, with zlib (already the CLI's for .trace.json.gz).
 * Only the files whose bytes the core reads are read (hs_dumpset_wants_bytes); the other files
 * (LLVM IR, objects, PTX) are known by name alone. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "hloscope.h"

#define MAX_CONTENT ((size_t)512 << 20)

/* The names whose bytes the core reads (its rule: hs_dumpset_wants_bytes). */
static int wants_bytes(const char *name, size_t n) { return hs_dumpset_wants_bytes(name, n); }

static int fail(const char *path, const char *code, const char *msg) {
  fprintf(stderr, "%s:0:0: %s: %s\n", path, code, msg);
  return 2;
}

static int add_dir(hs_dumpset *s, const char *dir, int depth) {
  struct dirent **list = NULL;
  int n = scandir(dir, &list, NULL, NULL); /* any order: hs_dumpset_json sorts the names */
  if (n < 0) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", dir, strerror(errno));
    return 1;
  }
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    struct dirent *e = list[i];
    if (e->d_name[0] == '.') continue;
    size_t pl = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(pl);
    if (!p) {
      rc = 1;
      break;
    }
    snprintf(p, pl, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        if (depth < 8) rc = add_dir(s, p, depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        size_t nl = strlen(e->d_name), len = 0;
        char *data = NULL;
        if (wants_bytes(e->d_name, nl) && (size_t)st.st_size <= MAX_CONTENT) data = hs_cli_read_all(p, &len);
        if (data && hs_archive_kind(data, len) == HS_ARCHIVE_GZIP) { /* module_x.txt.gz: its text */
          size_t m = 0;
          char *raw = hs_cli_inflate((const unsigned char *)data, len, 15 + 32, 0, &m);
          if (raw) { /* else the core says it is gzip and reads it by name */
            free(data);
            data = raw;
            len = m;
          }
        }
        rc = hs_dumpset_add(s, e->d_name, nl, data, len) ? 1 : 0;
        free(data);
      }
    }
    free(p);
  }
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  return rc;
}


/* The core's inflate callback (hs_inflate_fn) over zlib; the buffers it made are freed once the
 * walk is over (free_inflated). */
typedef struct {
  char **bufs;
  size_t n, cap;
} inflated;

static int zlib_inflate(void *ctx, int method, const unsigned char *in, size_t n, size_t hint, const unsigned char **out,
                        size_t *out_len) {
  inflated *z = ctx;
  if (z->n == z->cap) {
    size_t cap = z->cap ? z->cap * 2 : 16;
    char **nb = realloc(z->bufs, cap * sizeof *nb);
    if (!nb) return HS_E_NOMEM;
    z->bufs = nb;
    z->cap = cap;
  }
  char *raw = hs_cli_inflate(in, n, method == HS_INFLATE_RAW ? -15 : 15 + 32, hint, out_len);
  if (!raw) return HS_E_FORMAT;
  z->bufs[z->n++] = raw;
  *out = (const unsigned char *)raw;
  return 0;
}

static void free_inflated(inflated *z) {
  for (size_t i = 0; i < z->n; i++) free(z->bufs[i]);
  free(z->bufs);
}

/* PATH: a folder (walked here), an archive (walked by the core, hs_dumpset_add_archive: what its
 * bytes are, never its name), or a listing. A name that promises an archive but whose bytes are
 * none gets the core's "not a readable archive" rather than being read as a listing. */
int hs_cli_dumpset_add_path(hs_dumpset *s, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  hs_dumpset_set_label(s, base, strlen(base));
  if (S_ISDIR(st.st_mode)) return add_dir(s, path, 0);
  size_t len = 0;
  char *data = hs_cli_read_all(path, &len);
  if (!data) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  int rc;
  if (hs_archive_kind(data, len) != HS_ARCHIVE_NONE || hs_cli_ends_with(path, ".zip") || hs_cli_ends_with(path, ".tar") ||
      hs_cli_ends_with(path, ".tgz") || hs_cli_ends_with(path, ".gz")) {
    inflated z = {0};
    hs_error err;
    rc = hs_dumpset_add_archive(s, data, len, zlib_inflate, &z, &err);
    free_inflated(&z);
    if (rc < 0) rc = rc == HS_E_NOMEM ? (fprintf(stderr, "hloscope: out of memory\n"), 1) : fail(path, hs_code_name(rc), err.message);
  } else {
    rc = hs_dumpset_add_listing(s, data, len) ? 1 : 0;
  }
  free(data);
  return rc;
}

int hs_cli_passes(int argc, char **argv) {
  int json = 0, compare = 0;
  const char *paths[256];
  int np = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--compare") == 0) compare = 1;
    else if (np < 256) paths[np++] = argv[i];
  }
  if (np == 0 || (compare && np != 2)) {
    fprintf(stderr, "usage: hloscope passes PATH... [--json]\n       hloscope passes --compare A B [--json]\n"
                    "PATH: a dump folder, a .tar.gz/.tgz/.tar/.zip of one, or a listing (one name per line)\n");
    return 1;
  }
  hs_dumpset *sets[2] = {hs_dumpset_new(), compare ? hs_dumpset_new() : NULL};
  int rc = 0;
  if (!sets[0] || (compare && !sets[1])) rc = 1;
  for (int i = 0; i < np && !rc; i++) rc = hs_cli_dumpset_add_path(sets[compare ? i : 0], paths[i]);
  char *out = NULL;
  size_t n = 0;
  hs_error err;
  memset(&err, 0, sizeof err);
  if (!rc) {
    out = compare ? hs_dumpset_compare_json(sets[0], sets[1], &err, &n) : hs_dumpset_json(sets[0], &err, &n);
    if (!out) {
      if (err.code) {
        fprintf(stderr, "%s:0:0: %s: %s\n", np == 1 ? paths[0] : "(inputs)", hs_code_name(err.code), err.message);
        rc = 2;
      } else {
        fprintf(stderr, "hloscope: out of memory\n");
        rc = 1;
      }
    }
  }
  if (out) rc = hs_cli_emit(out, n, json, compare ? "passes_compare" : "passes", NULL);
  hs_dumpset_free(sets[0]);
  hs_dumpset_free(sets[1]);
  return rc;
}
