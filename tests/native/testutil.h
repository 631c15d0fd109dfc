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

static inline json_t *tu_json(char *s) {
  json_error_t e;
  json_t *j = s ? json_loads(s, 0, &e) : NULL;
  free(s);
  return j;
}

#endif
