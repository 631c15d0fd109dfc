/* Helpers that build result JSON with jansson, for every model: strings from any bytes, the
 * warnings of an hs_diag, the error object, and serialising with a stable key order. */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

json_t *hs_json_bytes(const char *s, size_t n) {
  json_t *j = memchr(s, 0, n) ? NULL : json_stringn(s, n);
  if (j) return j;
  /* invalid UTF-8 (a garbled paste): replace bad bytes */
  char *buf = malloc(n * 3 + 1);
  if (!buf) return json_null();
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool good = k > 0 && i + k <= n && c != 0;
    for (size_t m = 1; good && m < k; m++) good = ((unsigned char)s[i + m] >> 6) == 2;
    if (good && k > 1) {
      json_t *probe = json_stringn(s + i, k); /* rejects overlongs and surrogates */
      good = probe != NULL;
      json_decref(probe);
    }
    if (good) {
      memcpy(buf + o, s + i, k);
      o += k;
      i += k;
    } else {
      memcpy(buf + o, "\xEF\xBF\xBD", 3);
      o += 3;
      i++;
    }
  }
  j = json_stringn(buf, o);
  free(buf);
  return j ? j : json_null();
}

char *hs_json_finish(json_t *root, size_t *len) {
  if (!root) return NULL;
  char *s = json_dumps(root, DUMP_FLAGS);
  json_decref(root);
  if (s && len) *len = strlen(s);
  return s;
}

void hs_fmt_bytes(uint64_t b, char *buf, size_t cap) {
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)b);
  size_t o = 0;
  for (int i = 0; i < n && o + 1 < cap; i++) {
    if (i && (n - i) % 3 == 0 && o + 1 < cap) buf[o++] = ',';
    if (o + 1 < cap) buf[o++] = tmp[i];
  }
  buf[o] = 0;
}

json_t *hs_warnings_json(const hs_warning *ws, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++) {
    const hs_warning *w = &ws[i];
    json_t *o = json_object();
    json_object_set_new(o, "code", json_string(hs_warning_name(w->code)));
    json_object_set_new(o, "line", json_integer(w->line));
    json_object_set_new(o, "column", json_integer(w->col));
    json_object_set_new(o, "message", hs_json_bytes(w->message, strlen(w->message)));
    json_array_append_new(a, o);
  }
  return a;
}

static size_t msg_len(const char *s, size_t cap) {
  size_t n = 0;
  while (n < cap && s[n]) n++;
  return n;
}

char *hs_error_json(const hs_error *err, size_t *len) {
  if (!err) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "code", json_string(hs_code_name(err->code)));
  json_object_set_new(o, "line", json_integer(err->line));
  json_object_set_new(o, "column", json_integer(err->col));
  json_object_set_new(o, "offset", json_integer((json_int_t)err->offset));
  json_object_set_new(o, "message", hs_json_bytes(err->message, msg_len(err->message, sizeof err->message)));
  return hs_json_finish(o, len);
}
