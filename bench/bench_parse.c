/* bench_parse FILE [REPEAT]: parse + fusion census (the counts) of FILE, REPEAT times (default 3); prints
 * the best wall time, MB/s and the process's peak resident memory as one JSON line: over all the
 * parses (peak_over_input) and after the first (first_peak_over_input, what a command that
 * parses once holds). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <time.h>

#include "hloscope.h"
#include "slurp.h"

#ifndef HS_NATIVE_MEMORY /* 0: memory taken as the wasm build takes it (core/src/base/util.c) */
#define HS_NATIVE_MEMORY 1
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* this process's peak resident memory so far, in kB: Linux's VmHWM (its own memory's high-water
   mark); getrusage's ru_maxrss keeps the high-water mark of the process it was exec'd from, so a
   bench started by a big parent (a Python holding the inputs) read that parent's */
static long peak_kb(void) {
  long peak = -1;
  FILE *st = fopen("/proc/self/status", "r");
  if (st) {
    char line[256];
    while (fgets(line, sizeof line, st))
      if (sscanf(line, "VmHWM: %ld kB", &peak) == 1) break;
    fclose(st);
  }
  if (peak < 0) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    peak = ru.ru_maxrss;
  }
  return peak;
}

int main(int argc, char **argv) {
#if defined(__GLIBC__) && HS_NATIVE_MEMORY
  /* as the CLI's main (core/cli/main.c): a document's arrays each their own mapping, so each
     parse here starts from fresh memory and holds what one parse in a fresh process holds */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  if (argc < 2) {
    fprintf(stderr, "usage: hloscope_bench FILE [REPEAT]\n");
    return 1;
  }
  int repeat = argc > 2 ? atoi(argv[2]) : 3;
  if (repeat < 1 || argc > 3) { /* "hloscope_bench a.txt b.txt" once timed no parse at all */
    fprintf(stderr, "usage: hloscope_bench FILE [REPEAT]: one file, REPEAT a number from 1 (3 when left out)\n");
    return 1;
  }
  size_t len;
  char *buf = hs_slurp(argv[1], &len);
  if (!buf) return 1;
  long n = (long)len;
  double best = 1e30;
  hs_census c = {0};
  size_t instrs = 0, lines = 0;
  long first_peak = -1; /* after the first parse: what one parse in a fresh process holds at most */
  for (int i = 0; i < repeat; i++) {
    double t0 = now();
    hs_error err;
    hs_doc *d = hs_parse(buf, (size_t)n, &err);
    if (!d) {
      fprintf(stderr, "%s:%u:%u: %s\n", argv[1], err.line, err.col, err.message);
      return 2;
    }
    hs_fusion_census(d, &c);
    instrs = hs_doc_instruction_count(d);
    lines = hs_doc_line_count(d);
    hs_doc_free(d);
    double t = now() - t0;
    if (t < best) best = t;
    if (i == 0) first_peak = peak_kb();
  }
  /* the highest of all the parses: later parses can hold more than the first, where the C
     library kept memory the parse before freed */
  long peak = peak_kb();
  printf("{\"bytes\":%ld,\"lines\":%zu,\"instructions\":%zu,\"fusion_ops\":%zu,\"fusion_computations\":%zu,"
         "\"seconds\":%.4f,\"mb_per_s\":%.1f,\"peak_rss_bytes\":%ld,\"peak_over_input\":%.3f,\"first_peak_over_input\":%.3f}\n",
         n, lines, instrs, c.fusion_ops, c.fusion_computations, best, (double)n / 1e6 / best,
         peak * 1024L, (double)peak * 1024.0 / (double)n, (double)first_peak * 1024.0 / (double)n);
  free(buf);
  return 0;
}
