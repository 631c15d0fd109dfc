/* Diagnostics shared by every model: a document, a profile, and the readers to come each hold
 * one hs_diag and warn through it, so the per-code limit, the summary line and the
 * out-of-memory flag behave the same everywhere. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

bool hs_diag_vwarn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, va_list ap) {
  if (code >= 0 && code < HS_DIAG_CODES && g->warn_counts[code]++ >= HS_MAX_WARNINGS_PER_CODE) {
    g->warn_suppressed++;
    return true;
  }
  char buf[512];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  if (n < 0) return true; /* an encoding error in the message: nothing to list */
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
  char *m = hs_arena_alloc(a, (size_t)n + 1);
  bool ok = false;
  hs_warning *w = m ? HS_VEC_PUSH(g->warnings, g->n_warnings, g->cap_warnings, ok) : NULL;
  if (!w || !ok) {
    g->nomem = true;
    return false;
  }
  memcpy(m, buf, (size_t)n + 1);
  w->code = code;
  w->line = line;
  w->col = col;
  w->message = m;
  return true;
}

bool hs_diag_warn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bool ok = hs_diag_vwarn(g, a, code, line, col, fmt, ap);
  va_end(ap);
  return ok;
}

void hs_diag_finish(hs_diag *g, hs_arena *a, int code) {
  if (!g->warn_suppressed) return;
  uint32_t n = g->warn_suppressed;
  g->warn_suppressed = 0;
  memset(g->warn_counts, 0, sizeof g->warn_counts);
  hs_diag_warn(g, a, code, 0, 0, "%u more warnings like the ones above were not listed", n);
}

void hs_diag_free(hs_diag *g) {
  free(g->warnings);
  g->warnings = NULL;
  g->n_warnings = g->cap_warnings = 0;
}
