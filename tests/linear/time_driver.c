/* hs_time_driver FILE [REPEAT]: reads FILE with hs_parse (+ the fusion census) REPEAT times
 * (default 3) and prints one JSON line: the best CPU time, whether the read succeeded, the error
 * or warning count, and whether this binary runs under a sanitizer (timings mean little then).
 * Unlike bench_parse it also times inputs that end in an error.
 * glibc serves blocks above its mmap threshold (at most 32 MB) with fresh mmaps, page faults
 * included, on every run, and smaller ones from warm reused memory: a 4x larger input would pay
 * for page faults the small one does not. The threshold is raised so that N and 4N are both timed
 * warm (best of REPEAT), and growth measures the reader, not the allocator. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "hloscope.h"

#if defined(__SANITIZE_ADDRESS__)
#define HS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define HS_SANITIZED 1
#endif
#endif
#ifndef HS_SANITIZED
#define HS_SANITIZED 0
#endif

/* CPU time of this process: on a shared machine, other processes' load inflates wall time, not this */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hs_time_driver FILE [REPEAT]\n");
    return 1;
  }
  int repeat = argc > 2 ? atoi(argv[2]) : 3;
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "read failed\n");
    return 1;
  }
  fclose(f);
  double best = 1e30;
  int ok = 0;
  size_t warnings = 0, instrs = 0;
  hs_error err = {0};
  for (int i = 0; i < repeat; i++) {
    double t0 = now();
    hs_doc *d = hs_parse(buf, (size_t)n, &err);
    if (d) {
      hs_census c;
      hs_fusion_census(d, &c);
      warnings = hs_doc_warning_count(d);
      instrs = hs_doc_instruction_count(d);
      hs_doc_free(d);
      ok = 1;
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("{\"bytes\":%ld,\"seconds\":%.6f,\"ok\":%s,\"instructions\":%zu,\"warnings\":%zu,\"error_line\":%u,"
         "\"sanitized\":%s}\n",
         n, best, ok ? "true" : "false", instrs, warnings, ok ? 0u : err.line, HS_SANITIZED ? "true" : "false");
  free(buf);
  return 0;
}
