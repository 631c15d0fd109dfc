/* Shared helpers for the native tests: file reading, the shared captures (HLOSCOPE_NO_SHARED), the
 * oracle files, JSON results, and the one fixture walker of the C tests (TU_WITH_DIRENT). */
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

/* The shared folder beside the repository (../shared, other people's data read in place), the C
 * side of tests/fixtures.mjs: HLOSCOPE_NO_SHARED=1 (any value but "" and "0") makes every test
 * behave as if it were absent, as the JS and Python tests do. */
static inline int tu_no_shared(void) {
  const char *v = getenv("HLOSCOPE_NO_SHARED");
  return v && *v && strcmp(v, "0") != 0;
}

/* The path of rel under the shared folder ("captures/memory/x.txt", "captures/profiles") written
 * into buf; NULL when it is absent or hidden by HLOSCOPE_NO_SHARED. */
static inline const char *tu_shared(char *buf, size_t n, const char *rel) {
  if (tu_no_shared()) return NULL;
  snprintf(buf, n, "%s/%s", HS_SHARED_DIR, rel);
  FILE *f = fopen(buf, "rb"); /* a folder opens too, on Linux */
  if (!f) return NULL;
  fclose(f);
  return buf;
}

/* Prints, plainly, why ../shared/<rel> is not read: absent, or hidden by HLOSCOPE_NO_SHARED. */
static inline void tu_say_shared_absent(const char *rel) {
  if (tu_no_shared())
    printf("SKIPPED: ../shared/%s is treated as absent (HLOSCOPE_NO_SHARED=1)\n", rel);
  else
    printf("SKIPPED: ../shared/%s is absent (%s/%s: other people's data, read in place)\n", rel, HS_SHARED_DIR, rel);
}

/* In a cmocka test: when ptr is NULL (what it read of ../shared is not there), skip, saying that
 * ../shared/<rel> is absent or hidden. */
#define TU_SKIP_UNLESS(ptr, rel)   \
  do {                             \
    if (!(ptr)) {                  \
      tu_say_shared_absent(rel);   \
      skip();                      \
    }                              \
  } while (0)

/* In a cmocka test: skip, saying why, when ../shared/<rel> cannot be read. */
#define TU_NEED_SHARED(rel)                                                  \
  do {                                                                       \
    char tu_probe_[2048];                                                    \
    TU_SKIP_UNLESS(tu_shared(tu_probe_, sizeof tu_probe_, rel), rel);        \
  } while (0)

/* The TPU v6e captures folder (../shared/captures/tpu-v6e, with its naive attention); NULL when
 * absent or hidden. */
static inline const char *tu_captures(void) {
  static char path[1024];
  char probe[1100];
  if (!tu_shared(probe, sizeof probe, "captures/tpu-v6e/jit_naive_attention.stablehlo.mlir")) return NULL;
  snprintf(path, sizeof path, "%s/captures/tpu-v6e", HS_SHARED_DIR);
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

/* The one fixture walker of the C tests (tests/fixtures.mjs is the JS one): calls fn(dir, ctx)
 * for each fixtures/<under>/cpu-jax-<version>/<id>/ folder (under: "" for the fixture cases,
 * "levels" or "passes"), in name order, at most per_set of them per version (0: all). Returns
 * the number of folders visited. */
#ifdef TU_WITH_DIRENT
#include <dirent.h>
static inline size_t tu_each_fixture_in(const char *under, size_t per_set, void (*fn)(const char *dir, void *ctx), void *ctx) {
  char root[1024];
  snprintf(root, sizeof root, "%s/fixtures/%s", HS_SOURCE_DIR, under);
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

/* fixtures/cpu-jax-<version>/<id>/: the fixture cases. */
static inline size_t tu_each_fixture(size_t per_set, void (*fn)(const char *dir, void *ctx), void *ctx) {
  return tu_each_fixture_in("", per_set, fn, ctx);
}

/* Calls fn(path, ctx) for each file of dir (a fixture's dump/ folder, a shared captures folder)
 * whose name ends in suffix ("" for all; dot files aside), in name order. Returns the number of
 * files, or -1 when dir cannot be opened. */
static inline long tu_each_file(const char *dir, const char *suffix, void (*fn)(const char *path, void *ctx), void *ctx) {
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, alphasort);
  if (n < 0) return -1;
  long count = 0;
  size_t sl = strlen(suffix);
  for (int i = 0; i < n; i++) {
    const char *nm = names[i]->d_name;
    size_t l = strlen(nm);
    if (nm[0] != '.' && l >= sl && strcmp(nm + l - sl, suffix) == 0) {
      char path[8192];
      snprintf(path, sizeof path, "%s/%s", dir, nm);
      fn(path, ctx);
      count++;
    }
    free(names[i]);
  }
  free(names);
  return count;
}

/* tu_each_file over ../shared/<rel>: -1, after saying why, when it is absent or hidden. */
static inline long tu_each_shared(const char *rel, const char *suffix, void (*fn)(const char *path, void *ctx), void *ctx) {
  char dir[2048];
  if (!tu_shared(dir, sizeof dir, rel)) {
    tu_say_shared_absent(rel);
    return -1;
  }
  return tu_each_file(dir, suffix, fn, ctx);
}
#endif

#endif
