/* The text renderers' output buffer, the helpers they share and the dispatch by result kind. */
#include "text/text.h"

#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(hs_out *o, size_t more) {
  if (o->failed) return 0;
  if (o->len + more + 1 <= o->cap) return 1;
  size_t cap = o->cap ? o->cap : 4096;
  while (cap < o->len + more + 1) cap *= 2;
  char *d = realloc(o->data, cap);
  if (!d) {
    o->failed = 1;
    return 0;
  }
  o->data = d;
  o->cap = cap;
  return 1;
}

void hs_outf(hs_out *o, const char *fmt, ...) {
  if (o->failed) return;
  va_list ap;
  va_start(ap, fmt);
  char small[512];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    o->failed = 1;
    return;
  }
  if (!reserve(o, (size_t)n)) return;
  if ((size_t)n < sizeof small) {
    memcpy(o->data + o->len, small, (size_t)n);
  } else {
    va_start(ap, fmt);
    vsnprintf(o->data + o->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  o->len += (size_t)n;
  o->data[o->len] = 0;
}

void hs_outn(hs_out *o, const char *s, size_t n) {
  if (!reserve(o, n)) return;
  memcpy(o->data + o->len, s, n);
  o->len += n;
  o->data[o->len] = 0;
}

void hs_outc(hs_out *o, char c) { hs_outn(o, &c, 1); }

long long hs_tx_int(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

const char *hs_tx_str(json_t *o, const char *k) {
  const char *s = json_string_value(json_object_get(o, k));
  return s ? s : "-";
}

void hs_tx_warnings(hs_out *o, json_t *w, const char *path) {
  size_t i;
  json_t *x;
  json_array_foreach(w, i, x) {
    if (path)
      hs_outf(o, "warning: %s:%lld:%lld: %s\n", path, hs_tx_int(x, "line"), hs_tx_int(x, "column"), hs_tx_str(x, "message"));
    else
      hs_outf(o, "warning: %lld:%lld: %s\n", hs_tx_int(x, "line"), hs_tx_int(x, "column"), hs_tx_str(x, "message"));
  }
}

void hs_tx_ps(unsigned long long ps, char *buf, size_t cap) {
  if (ps >= 1000000000000ULL) snprintf(buf, cap, "%.3f s", ps / 1e12);
  else if (ps >= 1000000000ULL) snprintf(buf, cap, "%.3f ms", ps / 1e9);
  else if (ps >= 1000000ULL) snprintf(buf, cap, "%.3f us", ps / 1e6);
  else snprintf(buf, cap, "%.3f ns", ps / 1e3);
}

void hs_tx_bytes(long long b, char *buf, size_t cap) {
  if (b < 0) snprintf(buf, cap, "%lld B", b); /* no size is negative; said as given all the same */
  else hs_mem_human((uint64_t)b, buf, cap); /* the memory model's binary units, one rule */
}

/* One row per result kind that a person reads. */
static const struct {
  const char *kind;
  void (*render)(hs_out *, json_t *, const hs_text_input *);
} RENDERERS[] = {
    {"summary", hs_text_summary},     {"fusions", hs_text_fusions},     {"spills", hs_text_spills},
    {"computations", hs_text_computations}, {"decisions", hs_text_decisions}, {"overlap", hs_text_overlap},
    {"xray", hs_text_xray},           {"layout", hs_text_layout},       {"layouts", hs_text_layouts},
    {"profile", hs_text_profile},     {"timeline", hs_text_timeline},   {"memory", hs_text_memory},
    {"llvm", hs_text_llvm},           {"passes", hs_text_passes},       {"passes_compare", hs_text_passes_compare},
    {"diff", hs_text_diff},
};

static int find(const char *kind) {
  for (size_t i = 0; kind && i < sizeof RENDERERS / sizeof RENDERERS[0]; i++)
    if (strcmp(RENDERERS[i].kind, kind) == 0) return (int)i;
  return -1;
}

int hs_text_has(const char *kind) { return find(kind) >= 0; }

char *hs_text(const char *kind, const char *json, size_t json_len, const hs_text_input *in, size_t *len) {
  if (len) *len = 0;
  int r = find(kind);
  if (r < 0 || !json) return NULL;
  json_error_t e;
  json_t *j = json_loadb(json, json_len, 0, &e);
  if (!j) return NULL;
  hs_text_input none;
  memset(&none, 0, sizeof none);
  hs_out o = {0};
  RENDERERS[r].render(&o, j, in ? in : &none);
  json_decref(j);
  if (!o.failed && !o.data && reserve(&o, 0)) o.data[0] = 0; /* an empty text is "", not NULL */
  if (o.failed) {
    free(o.data);
    return NULL;
  }
  if (len) *len = o.len;
  return o.data;
}
