/* The profiles of `hloscope profile` and `hloscope timeline`: one or more files, or a folder,
 * read into one hs_profile (hs_profile_parse_files: a multi-process or multi-host job writes one
 * .xplane.pb per process). A folder is a jax.profiler log_dir (its newest
 * plugins/profile/<run>/), a run folder itself, or any folder of profiles: every .xplane.pb in
 * it, else every .trace.json.gz / .trace.json. A file whose bytes are gzip (hs_archive_kind,
 * not its name: a gzipped trace without .gz reads as in the page) is gunzipped here. One
 * .xplane.pb given alone is read by range (hs_profile_parse_source over fseeko/fread), as the
 * page's worker reads a File: a 500 MB profile is never held whole. Uses only the public header. */
#define _POSIX_C_SOURCE 200809L /* fseeko */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "hloscope.h"


typedef struct {
  char **v;
  size_t n, cap;
} names;

static int push(names *l, char *s) {
  if (!s) return -1;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 8;
    char **nv = realloc(l->v, nc * sizeof *nv);
    if (!nv) {
      free(s);
      return -1;
    }
    l->v = nv;
    l->cap = nc;
  }
  l->v[l->n++] = s;
  return 0;
}

static void drop(names *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", dir, name);
  return s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }



/* The entries of a folder whose names end with `suf` (sorted), or its sub-folders (suf NULL). */
static int list(const char *dir, const char *suf, names *out) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  int rc = 0;
  size_t start = out->n; /* sort what this folder adds, not the files of earlier arguments */
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char *p = join(dir, e->d_name);
    if (!p) {
      rc = -1;
      break;
    }
    if (suf ? hs_cli_ends_with(e->d_name, suf) && !hs_cli_is_dir(p) : hs_cli_is_dir(p)) rc = push(out, p);
    else free(p);
  }
  closedir(d);
  if (out->n - start > 1) qsort(out->v + start, out->n - start, sizeof *out->v, cmp_str);
  return rc;
}

/* The names jax.profiler writes, in the order a folder's files are looked for. */
static const char *const SUFFIX[] = {".xplane.pb", ".trace.json.gz", ".trace.json"};

int hs_cli_is_profile_name(const char *name) {
  for (size_t k = 0; k < 3; k++)
    if (hs_cli_ends_with(name, SUFFIX[k])) return 1;
  return 0;
}

int hs_cli_is_profile_folder(const char *dir) {
  char *runs_dir = join(dir, "plugins/profile");
  int yes = runs_dir && hs_cli_is_dir(runs_dir);
  free(runs_dir);
  DIR *d = yes ? NULL : opendir(dir);
  struct dirent *e;
  while (d && !yes && (e = readdir(d)) != NULL) yes = hs_cli_is_profile_name(e->d_name);
  if (d) closedir(d);
  return yes;
}

/* The profile files of a folder: its newest plugins/profile/<run>/ when it is a log_dir. */
static int folder_files(const char *dir, names *out) {
  char *runs_dir = join(dir, "plugins/profile");
  if (!runs_dir) return -1;
  names runs = {0};
  char *use = NULL;
  if (hs_cli_is_dir(runs_dir) && list(runs_dir, NULL, &runs) == 0 && runs.n) {
    use = runs.v[runs.n - 1]; /* runs are named by their start time: the newest sorts last */
    runs.v[runs.n - 1] = NULL;
    if (runs.n > 1) fprintf(stderr, "hloscope: %s holds %zu runs: reading the newest, %s\n", dir, runs.n, use);
  }
  drop(&runs);
  free(runs_dir);
  const char *from = use ? use : dir;
  int rc = 0;
  size_t before = out->n; /* the files of earlier arguments are already in `out` */
  for (size_t k = 0; rc == 0 && k < 3 && out->n == before; k++) rc = list(from, SUFFIX[k], out);
  free(use);
  return rc;
}

hs_profile_input *hs_cli_read_profiles(const char *const *paths, int n, size_t *count, int *rc) {
  names files = {0};
  *rc = 0;
  *count = 0;
  for (int i = 0; i < n && !*rc; i++) {
    if (hs_cli_is_dir(paths[i])) {
      size_t before = files.n;
      if (folder_files(paths[i], &files) != 0) {
        fprintf(stderr, "hloscope: cannot read the folder %s: %s\n", paths[i], strerror(errno));
        *rc = 1;
      } else if (files.n == before) {
        fprintf(stderr, "%s:0:0: HS_E_EMPTY: no .xplane.pb or .trace.json(.gz) in this folder (jax.profiler.trace writes "
                        "them under plugins/profile/<run>/)\n", paths[i]);
        *rc = 2;
      }
    } else {
      char *c = malloc(strlen(paths[i]) + 1);
      if (c) strcpy(c, paths[i]);
      if (push(&files, c) != 0) *rc = 1;
    }
  }
  hs_profile_input *in = *rc ? NULL : calloc(files.n ? files.n : 1, sizeof *in);
  if (!*rc && !in) *rc = 1;
  for (size_t i = 0; !*rc && i < files.n; i++) {
    size_t len = 0;
    char *data = hs_cli_read_all(files.v[i], &len);
    if (!data) {
      fprintf(stderr, "hloscope: cannot read %s: %s\n", files.v[i], strerror(errno));
      *rc = 1;
      break;
    }
    if (hs_archive_kind(data, len) == HS_ARCHIVE_GZIP) { /* by its bytes, as the page: a .gz or not */
      size_t m = 0;
      char *raw = hs_cli_inflate((const unsigned char *)data, len, 15 + 32, 0, &m);
      free(data);
      if (!raw) {
        fprintf(stderr, "%s:0:0: HS_E_FORMAT: not a readable gzip stream\n", files.v[i]);
        *rc = 2;
        break;
      }
      data = raw;
      len = m;
    }
    in[i].name = files.v[i];
    in[i].data = data;
    in[i].len = len;
  }
  if (*rc) {
    hs_cli_free_profiles(in, files.n);
    drop(&files);
    return NULL;
  }
  for (size_t i = 0; i < files.n; i++) files.v[i] = NULL; /* the inputs own their names now */
  *count = files.n;
  drop(&files);
  return in;
}

void hs_cli_free_profiles(hs_profile_input *in, size_t n) {
  for (size_t i = 0; in && i < n; i++) {
    free((void *)in[i].data);
    free((void *)in[i].name);
  }
  free(in);
}

static int file_read(void *ctx, uint64_t off, void *dst, size_t len) {
  FILE *f = ctx;
  if (off > (uint64_t)INT64_MAX || fseeko(f, (off_t)off, SEEK_SET) != 0) return 1;
  return fread(dst, 1, len, f) == len ? 0 : 1;
}

/* One regular file whose bytes are not gzip, read by range; NULL with *handled false otherwise
 * (the caller reads it whole). */
static hs_profile *load_by_range(const char *path, int *rc, bool *handled) {
  *handled = false;
  FILE *f = hs_cli_is_dir(path) ? NULL : fopen(path, "rb");
  if (!f) return NULL;
  unsigned char head[512];
  size_t h = fread(head, 1, sizeof head, f);
  struct stat st;
  if (hs_archive_kind(head, h) == HS_ARCHIVE_GZIP || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return NULL;
  }
  *handled = true;
  hs_profile_source src = {.name = NULL, .size = (uint64_t)st.st_size, .read = file_read, .ctx = f};
  hs_error err;
  hs_profile *p = hs_profile_parse_source(&src, &err);
  fclose(f);
  if (!p) {
    fprintf(stderr, "%s:%u:%u: %s: %s\n", path, err.line, err.col, hs_code_name(err.code), err.message);
    *rc = err.code == HS_E_NOMEM ? 1 : 2;
  }
  return p;
}

hs_profile *hs_cli_load_profiles(const char *const *paths, int n, int *rc) {
  *rc = 0;
  if (n == 1) {
    bool handled;
    hs_profile *p = load_by_range(paths[0], rc, &handled);
    if (handled) return p;
  }
  size_t count = 0;
  hs_profile_input *in = hs_cli_read_profiles(paths, n, &count, rc);
  if (!in) return NULL;
  hs_error err;
  const char *first = in[0].name;
  if (count == 1) in[0].name = NULL; /* one file: named by the profile itself, as in the JS API */
  hs_profile *p = hs_profile_parse_files(in, count, &err);
  in[0].name = first;
  if (!p) {
    /* with several files the message names the one in error */
    fprintf(stderr, "%s:%u:%u: %s: %s\n", count == 1 ? first : paths[0], err.line, err.col, hs_code_name(err.code), err.message);
    *rc = err.code == HS_E_NOMEM ? 1 : 2;
  }
  hs_cli_free_profiles(in, count);
  return p;
}
