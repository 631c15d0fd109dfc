/* slurp.h: a whole file read into memory, for the bench and test drivers (bench_parse,
 * tests/differential/diff_driver, tests/linear/time_driver): the same dozen lines they each had. */
#ifndef HS_SLURP_H
#define HS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path` (NUL-terminated, *n without the NUL), or NULL after printing why. */
static char *hs_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return NULL;
  }
  long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  char *buf = len >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)len + 1) : NULL;
  if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "%s: read failed\n", path);
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  buf[len] = 0;
  *n = (size_t)len;
  return buf;
}

#endif
