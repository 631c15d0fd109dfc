/* Diagnostics shared by every model: documents, profiles, LLVM IR, memory texts, dump folders
 * and decisions each hold one hs_diag and warn through it, so the limits, the summary line and
 * the out-of-memory flag behave the same everywhere (each model sets its own limits). */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

bool hs_diag_vwarn(hs_diag *g, hs_arena *a, int code, uint32_t line, uint32_t col, const char *fmt, va_list ap) {
  if (g->total && g->n_warnings >= g->total) return true;
  uint32_t per_code = g->per_code ? g->per_code : HS_MAX_WARNINGS_PER_CODE;
  if (per_code != HS_DIAG_NO_LIMIT && code >= 0 && code < HS_DIAG_CODES && g->warn_counts[code]++ >= per_code) {
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

bool hs_diag_append(hs_diag *g, const hs_diag *b) {
  uint32_t listed[HS_DIAG_CODES] = {0};
  uint32_t per_code = g->per_code ? g->per_code : HS_MAX_WARNINGS_PER_CODE;
  for (uint32_t i = 0; i < b->n_warnings; i++) {
    const hs_warning *w = &b->warnings[i];
    bool coded = w->code >= 0 && w->code < HS_DIAG_CODES;
    if (coded) listed[w->code]++;
    if (g->total && g->n_warnings >= g->total) continue;
    if (per_code != HS_DIAG_NO_LIMIT && coded && g->warn_counts[w->code]++ >= per_code) {
      g->warn_suppressed++;
      continue;
    }
    bool ok;
    hs_warning *to = HS_VEC_PUSH(g->warnings, g->n_warnings, g->cap_warnings, ok);
    if (!ok) {
      g->nomem = true;
      return false;
    }
    *to = *w;
  }
  /* those b only counted */
  for (int c = 0; c < HS_DIAG_CODES; c++) {
    uint32_t more = b->warn_counts[c] > listed[c] ? b->warn_counts[c] - listed[c] : 0;
    g->warn_counts[c] += more;
    g->warn_suppressed += more;
  }
  if (b->nomem) g->nomem = true;
  return true;
}
