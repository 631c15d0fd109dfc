/* zlib's inflate for the CLI (dump archives, gzipped profiles and steps) and the native tests that
 * walk archives with the core (tests/native/test_archive.c): the host side of hs_archive_walk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli.h"

/* Inflates all of `in` (window as zlib's inflateInit2 takes it: -15 raw deflate, 15 + 32 gzip or
 * zlib with concatenated members); `hint` is the expected size or 0. Malloc'd, or NULL on a
 * damaged stream or out of memory. */
char *hs_cli_inflate(const unsigned char *in, size_t n, int window, size_t hint, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, window) != Z_OK) return NULL;
  size_t cap = hint ? hint + 1 : n * 4 + 4096, used = 0;
  char *out = malloc(cap);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  int rc = Z_OK;
  while (out) {
    if (used == cap) {
      /* 8 GiB at most; a 32-bit size_t (the WASI build) stops before cap * 2 overflows */
      char *nb = (unsigned long long)cap > (1ULL << 33) || cap > SIZE_MAX / 4 ? NULL : realloc(out, cap * 2);
      if (!nb) {
        free(out);
        out = NULL;
        break;
      }
      out = nb;
      cap *= 2;
    }
    z.next_out = (Bytef *)out + used;
    z.avail_out = (uInt)(cap - used > 0x40000000 ? 0x40000000 : cap - used);
    uInt before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    used += before - z.avail_out;
    if (rc == Z_STREAM_END) {
      if (window < 0 || z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (out && rc != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  *out_len = used;
  return out;
}
