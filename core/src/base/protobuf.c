/* A small protobuf wire-format reader: tags, varints, fixed32/64 and length-delimited fields,
 * bounds-checked against the enclosing message. It holds no state beyond a cursor and never
 * recurses: callers open a sub-reader over a length-delimited field themselves, so the depth
 * of nesting is the depth of the caller's code (XSpace -> plane -> line -> event -> stat).
 * Groups (wire types 3 and 4, deprecated) are refused as malformed. */
#include "base/base.h"

hs_pb hs_pb_open(const void *data, size_t len) {
  hs_pb r;
  r.base = data;
  r.p = data;
  r.end = data ? (const uint8_t *)data + len : NULL; /* NULL + 0 is undefined in C */
  return r;
}

hs_pb hs_pb_sub(const hs_pb *parent, const hs_pb_field *f) {
  hs_pb r;
  r.base = parent->base;
  r.p = f->data;
  r.end = f->data ? f->data + f->len : f->data;
  return r;
}

size_t hs_pb_offset(const hs_pb *r) { return (size_t)(r->p - r->base); }

static bool read_varint(hs_pb *r, uint64_t *out) {
  uint64_t v = 0;
  const uint8_t *p = r->p;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (p >= r->end) return false;
    uint8_t c = *p++;
    if (shift == 63 && c > 1) return false; /* more than 64 bits */
    v |= (uint64_t)(c & 0x7f) << shift;
    if (c < 0x80) {
      r->p = p;
      *out = v;
      return true;
    }
  }
  return false;
}

/* A field's head at r->p: its tag, and its value (varint, fixed) or, for a length-delimited
 * field, its length in *n (the bytes themselves not checked: the caller does). False when the
 * bytes are not a field's head; r->p past the head otherwise. Shared by the reader over bytes
 * held whole and the one through a window. */
static inline bool read_head(hs_pb *r, hs_pb_field *f, uint64_t *n) {
  uint64_t tag;
  if (!read_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > 536870911u) return false;
  f->field = (uint32_t)(tag >> 3);
  f->wire = (uint8_t)(tag & 7);
  f->u = 0;
  f->data = NULL;
  f->len = 0;
  *n = 0;
  switch (f->wire) {
    case HS_PB_VARINT: return read_varint(r, &f->u);
    case HS_PB_FIXED64:
    case HS_PB_FIXED32: {
      int k = f->wire == HS_PB_FIXED64 ? 8 : 4;
      if (r->end - r->p < k) return false;
      for (int i = k - 1; i >= 0; i--) f->u = (f->u << 8) | r->p[i];
      r->p += k;
      return true;
    }
    case HS_PB_LEN: return read_varint(r, n);
    default: return false;
  }
}

int hs_pb_next(hs_pb *r, hs_pb_field *f) {
  if (r->p >= r->end) return 0;
  const uint8_t *start = r->p;
  uint64_t n;
  if (!read_head(r, f, &n)) goto bad;
  if (f->wire == HS_PB_LEN) {
    if (n > (uint64_t)(r->end - r->p)) goto bad;
    f->data = r->p;
    f->len = (size_t)n;
    r->p += n;
  }
  return 1;
bad:
  r->p = start; /* the offset of the field that could not be read */
  return -1;
}

double hs_pb_double(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* ---- a window over bytes read by range ------------------------------------------------- */
static void report(hs_window *w) {
  if (!w->progress) return;
  uint64_t step = w->total / 128 > (1u << 20) ? w->total / 128 : (1u << 20);
  w->reported = w->done + step;
  w->progress(w->ctx, w->stage ? w->stage : "reading", w->done > w->total ? w->total : w->done, w->total);
}

void hs_window_stage(hs_window *w, const char *stage, uint64_t total) {
  w->stage = stage;
  w->total = total;
  w->done = 0;
  report(w);
}

void hs_window_advance(hs_window *w, uint64_t bytes) {
  w->done += bytes;
  if (w->done >= w->reported) report(w);
}

const uint8_t *hs_window_get(hs_window *w, uint64_t off, size_t len) {
  if (w->failed || off > w->size || len > w->size - off) return NULL;
  if (w->whole) return w->whole + off;
  if (w->buf && off >= w->buf_off && off + len <= w->buf_off + w->buf_len) return w->buf + (off - w->buf_off);
  size_t chunk = w->chunk ? w->chunk : HS_WINDOW;
  size_t want = len > chunk ? len : chunk;
  if (want > w->size - off) want = (size_t)(w->size - off);
  if (want > w->cap) {
    free(w->buf); /* its bytes are not kept: the new window is read afresh */
    w->buf = malloc(want ? want : 1);
    w->cap = w->buf ? want : 0;
    w->buf_len = 0;
    if (!w->buf) {
      w->failed = true;
      return NULL;
    }
  }
  if (want && w->read(w->ctx, off, w->buf, want) != 0) {
    w->failed = true;
    w->buf_len = 0;
    return NULL;
  }
  w->buf_off = off;
  w->buf_len = want;
  return w->buf;
}

void hs_window_free(hs_window *w) {
  free(w->buf);
  w->buf = NULL;
  w->cap = w->buf_len = 0;
}

int hs_pbw_next(hs_window *w, uint64_t *pos, uint64_t end, hs_pbw_field *f) {
  if (*pos >= end) return 0;
  /* a field's head is at most 20 bytes: a tag and a length (or a value), 10 bytes each */
  size_t n = end - *pos < 20 ? (size_t)(end - *pos) : 20;
  const uint8_t *b = hs_window_get(w, *pos, n);
  if (!b) return -1;
  hs_pb r = hs_pb_open(b, n);
  hs_pb_field g;
  uint64_t len;
  if (!read_head(&r, &g, &len)) return -1;
  uint64_t at = *pos + (uint64_t)(r.p - b);
  f->field = g.field;
  f->wire = g.wire;
  f->u = g.u;
  f->off = f->len = 0;
  if (g.wire == HS_PB_LEN) {
    if (len > end - at) return -1;
    f->off = at;
    f->len = len;
    at += len;
  }
  *pos = at;
  return 1;
}
