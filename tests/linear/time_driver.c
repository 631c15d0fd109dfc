/* hs_time_driver [--decisions] FILE [REPEAT [FILE...]]: reads FILE with hs_parse (+ the fusion
 * census; with --decisions, + hs_decisions_json) REPEAT times (default 3) and prints one JSON line: the best CPU time, whether the read succeeded, the
 * error or warning count, and whether this binary runs under a sanitizer (timings mean little then).
 * With more files, each of REPEAT rounds reads every file once, in turn, and one JSON line is
 * printed per file: the sizes of one growth ratio are timed interleaved in one process, so a burst
 * of load elsewhere, or a slower stretch of the machine, falls on both alike.
 * Unlike bench_parse it also times inputs that end in an error.
 * glibc serves blocks above its mmap threshold (at most 32 MB) with fresh mmaps, page faults
 * included, on every run, and smaller ones from warm reused memory: a 4x larger input would pay
 * for page faults the small one does not. The threshold is raised so that N and 4N are both timed
 * warm (best of REPEAT), and growth measures the reader, not the allocator. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "hloscope.h"
#include "slurp.h"

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

typedef struct {
  const char *path;
  char *buf;
  long n;
  double best;
  int ok;
  size_t warnings, instrs;
  hs_error err;
} timed_file;

static int load(timed_file *t) {
  size_t n = 0;
  t->buf = hs_slurp(t->path, &n);
  t->n = (long)n;
  t->best = 1e30;
  return t->buf != NULL;
}

static int with_decisions; /* --decisions */

static void time_once(timed_file *t) {
  double t0 = now();
  hs_doc *d = hs_parse(t->buf, (size_t)t->n, &t->err);
  if (d) {
    hs_census c;
    hs_fusion_census(d, &c);
    if (with_decisions) hs_free(hs_decisions_json(d, NULL));
    t->warnings = hs_doc_warning_count(d);
    t->instrs = hs_doc_instruction_count(d);
    hs_doc_free(d);
    t->ok = 1;
  }
  double dt = now() - t0;
  if (dt < t->best) t->best = dt;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--decisions") == 0) {
    with_decisions = 1;
    argv[1] = argv[0];
    argc--, argv++;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: hs_time_driver [--decisions] FILE [REPEAT [FILE...]]\n");
    return 1;
  }
  int repeat = argc > 2 ? atoi(argv[2]) : 3;
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  int nf = argc > 3 ? argc - 2 : 1;
  timed_file *fs = calloc((size_t)nf, sizeof *fs);
  if (!fs) return 1;
  fs[0].path = argv[1];
  for (int k = 1; k < nf; k++) fs[k].path = argv[k + 2];
  for (int k = 0; k < nf; k++)
    if (!load(&fs[k])) return 1;
  for (int i = 0; i < repeat; i++)
    for (int k = 0; k < nf; k++) time_once(&fs[k]);
  for (int k = 0; k < nf; k++) {
    timed_file *t = &fs[k];
    printf("{\"bytes\":%ld,\"seconds\":%.6f,\"ok\":%s,\"instructions\":%zu,\"warnings\":%zu,\"error_line\":%u,"
           "\"sanitized\":%s}\n",
           t->n, t->best, t->ok ? "true" : "false", t->instrs, t->warnings, t->ok ? 0u : t->err.line,
           HS_SANITIZED ? "true" : "false");
    free(t->buf);
  }
  free(fs);
  return 0;
}
