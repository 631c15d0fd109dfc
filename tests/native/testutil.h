/* Shared helpers for the native tests: file reading, captures location, JSON results. */
#ifndef HS_TESTUTIL_H
#define HS_TESTUTIL_H
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloscope.h"

static inline char *tu_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) {
    b[n] = 0;
    *len = (size_t)n;
  }
  return b;
}

/* The captures of ../shared are other people's data, read in place; NULL when absent. */
static inline const char *tu_captures(void) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/captures/tpu-v6e", HS_SHARED_DIR);
  FILE *f;
  char probe[1100];
  snprintf(probe, sizeof probe, "%s/jit_naive_attention.stablehlo.mlir", path);
  if (!(f = fopen(probe, "rb"))) return NULL;
  fclose(f);
  return path;
}

/* The oracle data file name of area (tests/oracle/<area>/<name>: hlo, llvm, profile, memory,
 * differential; tests/oracle/README.md) written into buf. */
#ifdef HS_SOURCE_DIR
static inline const char *tu_oracle(char *buf, size_t n, const char *area, const char *name) {
  snprintf(buf, n, "%s/tests/oracle/%s/%s", HS_SOURCE_DIR, area, name);
  return buf;
}
#endif

static inline json_t *tu_json(char *s) {
  json_error_t e;
  json_t *j = s ? json_loads(s, 0, &e) : NULL;
  free(s);
  return j;
}

/* The value at a path of keys and array indexes separated by '/' ("modules/0/computations/0/
 * result"); NULL when a step is missing. A last step "#" is not handled here (see test_cases.c). */
static inline json_t *tu_path(json_t *j, const char *path) {
  char step[256];
  while (j && *path) {
    size_t n = strcspn(path, "/");
    if (n >= sizeof step) return NULL;
    memcpy(step, path, n);
    step[n] = 0;
    if (json_is_array(j)) {
      char *end;
      unsigned long i = strtoul(step, &end, 10);
      j = *end || !n ? NULL : json_array_get(j, i);
    } else {
      j = json_object_get(j, step);
    }
    path += n;
    if (*path == '/') path++;
  }
  return j;
}

/* The one fixture walker: calls fn(dir, ctx) for each fixtures/cpu-jax-<version>/<id>/ folder,
 * in name order, at most per_set of them per version (0: all). */
#ifdef TU_WITH_DIRENT
#include <dirent.h>
static inline size_t tu_each_fixture(size_t per_set, void (*fn)(const char *dir, void *ctx), void *ctx) {
  char root[1024];
  snprintf(root, sizeof root, "%s/fixtures", HS_SOURCE_DIR);
  struct dirent **sets = NULL;
  int ns = scandir(root, &sets, NULL, alphasort);
  size_t count = 0;
  for (int i = 0; i < ns; i++) {
    if (strncmp(sets[i]->d_name, "cpu-jax-", 8) == 0) {
      char sdir[2048];
      snprintf(sdir, sizeof sdir, "%s/%s", root, sets[i]->d_name);
      struct dirent **ids = NULL;
      int ni = scandir(sdir, &ids, NULL, alphasort);
      size_t taken = 0;
      for (int k = 0; k < ni; k++) {
        if (ids[k]->d_name[0] != '.' && (!per_set || taken < per_set)) {
          char dir[4096];
          snprintf(dir, sizeof dir, "%s/%s", sdir, ids[k]->d_name);
          fn(dir, ctx);
          taken++;
          count++;
        }
        free(ids[k]);
      }
      free(ids);
    }
    free(sets[i]);
  }
  free(sets);
  return count;
}
#endif

#endif
