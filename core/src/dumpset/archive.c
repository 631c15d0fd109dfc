/* The archives a dump folder travels in, walked over bytes: .tar (ustar, GNU long names, pax
 * paths), .zip (the central directory; stored and deflated entries) and gzip (a .tar.gz, or one
 * gzipped member: module_x.after_optimizations.txt.gz).
 *
 * Every host (the CLI, the page through the wasm, Python through the CLI) walks archives here,
 * so they list the same entries and give the same warnings and errors. Inflating is the host's:
 * the walker asks for it through a callback (the CLI: zlib; the page: DecompressionStream, which
 * is async, so its callback may answer HS_INFLATE_LATER: the walker then goes on collecting what
 * else it needs, reports nothing, and the host calls again once it has every stream asked for).
 *
 * Only the members whose bytes the core reads (hs_dumpset_wants_bytes) are inflated; the rest are
 * reported by name. A corrupt archive is an error that names the byte where it went wrong; a tar
 * cut mid-header and a member the walker cannot read are warnings (HS_W_ARCHIVE_*). */
#include <stdio.h>
#include <stdlib.h>

#include "dumpset/dumpset.h"

int hs_archive_kind(const void *bytes, size_t len) {
  const unsigned char *u = bytes;
  if (!u) return HS_ARCHIVE_NONE;
  if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b) return HS_ARCHIVE_GZIP;
  /* a local header, or the end record alone (an empty zip) */
  if (len >= 4 && u[0] == 'P' && u[1] == 'K' && ((u[2] == 3 && u[3] == 4) || (len >= 22 && u[2] == 5 && u[3] == 6)))
    return HS_ARCHIVE_ZIP;
  if (len >= 512 && memcmp(u + 257, "ustar", 5) == 0) return HS_ARCHIVE_TAR;
  return HS_ARCHIVE_NONE;
}

const char *hs_archive_kind_name(int kind) {
  switch (kind) {
  case HS_ARCHIVE_GZIP: return "gzip";
  case HS_ARCHIVE_TAR: return "tar";
  case HS_ARCHIVE_ZIP: return "zip";
  default: return "none";
  }
}

typedef struct {
  const hs_archive_host *host;
  hs_error *err;
  bool later; /* some inflation was put off: report nothing */
  int files;
} walk;

static int fail(walk *w, int code, size_t at, const char *fmt, ...) {
  if (w->err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err->message, sizeof w->err->message, fmt, ap);
    va_end(ap);
    w->err->code = code;
    w->err->offset = at;
    w->err->line = w->err->col = 0;
  }
  return code;
}

static void warn(walk *w, int code, const char *fmt, ...) {
  if (w->later || !w->host->warn) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  w->host->warn(w->host->ctx, code, buf);
}

/* Asks the host to inflate; 0 with *out, HS_INFLATE_LATER, or a negative code. */
static int inflate(walk *w, int method, const unsigned char *in, size_t n, size_t hint, const unsigned char **out,
                   size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  if (!w->host->inflate) return HS_E_UNSUPPORTED;
  int rc = w->host->inflate(w->host->ctx, method, in, n, hint, out, out_len);
  if (rc == HS_INFLATE_LATER) w->later = true;
  else if (rc == 0 && !*out && *out_len) rc = HS_E_FORMAT;
  return rc;
}

/* One file: its bytes when the core reads them (a gzipped member gunzipped first), else its
 * name alone. `at`: where its data starts in the stream it came from, for the messages. */
static int file(walk *w, const char *name, size_t nl, const unsigned char *data, size_t len, bool have) {
  if (!have || !hs_dumpset_wants_bytes(name, nl)) data = NULL, len = 0;
  if (data && len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    const unsigned char *raw;
    size_t rl;
    int rc = inflate(w, HS_INFLATE_GZIP, data, len, 0, &raw, &rl);
    if (rc == HS_INFLATE_LATER) return 0;
    if (rc == HS_E_NOMEM) return fail(w, HS_E_NOMEM, 0, "out of memory inflating %.*s", (int)(nl > 200 ? 200 : nl), name);
    if (rc == 0) data = raw, len = rl; /* else the core names the file and says it is gzip */
  }
  w->files++;
  if (w->later || !w->host->file) return 0;
  int rc = w->host->file(w->host->ctx, name, nl, data, len);
  return rc ? fail(w, rc, 0, "out of memory adding %.*s", (int)(nl > 200 ? 200 : nl), name) : 0;
}

/* ---- tar ------------------------------------------------------------------------------------ */
static unsigned long long octal(const unsigned char *p, size_t n, bool *ok) {
  unsigned long long v = 0;
  size_t i = 0;
  *ok = true;
  if (n && (p[0] & 0x80)) { /* GNU base-256: a size past 8 GiB */
    *ok = false;
    return 0;
  }
  while (i < n && (p[i] == ' ' || p[i] == 0)) i++;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) v = v * 8 + (p[i] - '0');
  return v;
}

/* The value of a pax record "LEN path=VALUE\n" in [r, end), into out (NUL-terminated). */
static void pax_path(const unsigned char *r, const unsigned char *end, char *out, size_t cap) {
  while (r < end) {
    const unsigned char *sp = memchr(r, ' ', (size_t)(end - r));
    size_t rl = 0;
    for (const unsigned char *d = r; d < sp && d && *d >= '0' && *d <= '9' && rl <= (SIZE_MAX - 9) / 10; d++) rl = rl * 10 + (*d - '0');
    if (!sp || rl == 0 || rl > (size_t)(end - r) || sp >= r + rl) return;
    const unsigned char *kv = sp + 1, *re = r + rl; /* re: past the record's "\n" */
    if (re - kv > 5 && memcmp(kv, "path=", 5) == 0) {
      size_t k = (size_t)(re - (kv + 5));
      if (k && kv[5 + k - 1] == '\n') k--;
      if (k < cap) {
        memcpy(out, kv + 5, k);
        out[k] = 0;
      }
    }
    r = re;
  }
}

static int walk_tar(walk *w, const unsigned char *t, size_t n) {
  size_t p = 0;
  char longname[4096], name[4096];
  longname[0] = 0;
  while (p + 512 <= n) {
    const unsigned char *h = t + p;
    bool zero = true;
    for (int i = 0; i < 512 && zero; i++) zero = h[i] == 0;
    if (zero) return 0; /* the end-of-archive blocks */
    unsigned long long sum = 0;
    for (int i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : h[i];
    bool ok;
    unsigned long long want = octal(h + 148, 8, &ok);
    if (sum != want) return fail(w, HS_E_FORMAT, p, "corrupt tar archive: bad header checksum at byte %zu", p);
    unsigned long long size = octal(h + 124, 12, &ok);
    if (!ok) return fail(w, HS_E_UNSUPPORTED, p, "tar archive: the entry at byte %zu is larger than 8 GiB; not read", p);
    char type = (char)h[156];
    size_t data = p + 512;
    if (longname[0]) {
      snprintf(name, sizeof name, "%s", longname);
      longname[0] = 0;
    } else if (memcmp(h + 257, "ustar", 5) == 0 && h[262] == 0 && h[345]) { /* POSIX prefix, not GNU's */
      snprintf(name, sizeof name, "%.155s/%.100s", (const char *)h + 345, (const char *)h);
    } else {
      snprintf(name, sizeof name, "%.100s", (const char *)h);
    }
    if (size > n - data)
      return fail(w, HS_E_FORMAT, p,
                  "truncated tar archive: the entry at byte %zu (%.200s) holds %llu bytes, %zu are left", p, name,
                  size, n - data);
    if (type == 'L') { /* GNU long name: the next entry's */
      size_t k = size < sizeof longname - 1 ? (size_t)size : sizeof longname - 1;
      memcpy(longname, t + data, k);
      longname[k] = 0;
    } else if (type == 'x') { /* pax extended header: its path */
      pax_path(t + data, t + data + size, longname, sizeof longname);
    } else if (type == '0' || type == 0 || type == '7') {
      int rc = file(w, name, strlen(name), t + data, (size_t)size, true);
      if (rc) return rc;
    } /* folders, links, pax globals: nothing to read */
    p = data + (size_t)((size + 511) / 512) * 512;
    if (p > n) p = n;
  }
  if (p < n)
    warn(w, HS_W_ARCHIVE_TRUNCATED, "the tar archive ends mid-header at byte %zu (%zu bytes of a 512-byte header); read %d files", p,
         n - p, w->files);
  else if (n)
    warn(w, HS_W_ARCHIVE_TRUNCATED, "the tar archive ends at byte %zu without its end-of-archive blocks (cut short?); read %d files", n,
         w->files);
  return 0;
}

/* ---- zip ------------------------------------------------------------------------------------ */
static unsigned rd16(const unsigned char *p) { return p[0] | p[1] << 8; }
static unsigned long rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned long)p[3] << 24; }

static int walk_zip(walk *w, const unsigned char *z, size_t n) {
  if (n < 22) return fail(w, HS_E_FORMAT, 0, "corrupt zip archive: %zu bytes, too short for an end-of-central-directory record", n);
  size_t e = n - 22;
  size_t stop = n > 22 + 65535 ? n - 22 - 65535 : 0;
  while (rd32(z + e) != 0x06054b50) {
    if (e == stop) return fail(w, HS_E_FORMAT, n, "corrupt zip archive: no end-of-central-directory record in its last %zu bytes (cut short?)", n - stop);
    e--;
  }
  unsigned long count = rd16(z + e + 10), cd_size = rd32(z + e + 12), cd_off = rd32(z + e + 16);
  if (count == 0xffff || cd_off == 0xffffffffUL || cd_size == 0xffffffffUL)
    return fail(w, HS_E_UNSUPPORTED, e, "zip64 archives are not read; use .tar.gz");
  if (cd_off > n || cd_size > n - cd_off)
    return fail(w, HS_E_FORMAT, e, "corrupt zip archive: the central directory (%lu bytes at byte %lu) lies past the end (%zu bytes)",
                cd_size, cd_off, n);
  size_t p = cd_off;
  for (unsigned long i = 0; i < count; i++) {
    if (p > n || n - p < 46)
      return fail(w, HS_E_FORMAT, p < n ? p : n, "corrupt zip archive: central-directory entry %lu of %lu starts at byte %zu, too near or past the end (%zu bytes)",
                  i + 1, count, p, n);
    if (rd32(z + p) != 0x02014b50)
      return fail(w, HS_E_FORMAT, p, "corrupt zip archive: a bad central-directory entry at byte %zu (entry %lu of %lu)", p, i + 1, count);
    unsigned flags = rd16(z + p + 8), method = rd16(z + p + 10);
    unsigned long csize = rd32(z + p + 20), usize = rd32(z + p + 24), lho = rd32(z + p + 42);
    unsigned nl = rd16(z + p + 28), xl = rd16(z + p + 30), cl = rd16(z + p + 32);
    if (nl > n - (p + 46)) return fail(w, HS_E_FORMAT, p, "corrupt zip archive: the name of the entry at byte %zu runs past the end", p);
    const char *name = (const char *)z + p + 46;
    size_t at = p;
    p += 46 + (size_t)nl + xl + cl;
    if (nl && (name[nl - 1] == '/' || name[nl - 1] == '\\')) continue; /* a folder */
    if (!hs_dumpset_wants_bytes(name, nl)) {
      int rc = file(w, name, nl, NULL, 0, false);
      if (rc) return rc;
      continue;
    }
    if (lho > n || n - lho < 30 || rd32(z + lho) != 0x04034b50)
      return fail(w, HS_E_FORMAT, at, "corrupt zip archive: a bad local header at byte %lu for %.*s", lho, (int)(nl > 200 ? 200 : nl), name);
    size_t d = lho + 30 + (size_t)rd16(z + lho + 26) + rd16(z + lho + 28);
    if (d > n || csize > n - d)
      return fail(w, HS_E_FORMAT, lho, "corrupt zip archive: %.*s (%lu bytes at byte %zu) runs past the end (%zu bytes)",
                  (int)(nl > 200 ? 200 : nl), name, csize, d, n);
    const unsigned char *data = NULL;
    size_t dl = 0;
    bool have = false;
    if (flags & 1) {
      warn(w, HS_W_ARCHIVE_UNREAD, "%.*s is encrypted; read by name only", (int)(nl > 200 ? 200 : nl), name);
    } else if (method == 0) {
      data = z + d, dl = csize, have = true;
    } else if (method == 8) {
      int rc = inflate(w, HS_INFLATE_RAW, z + d, csize, usize, &data, &dl);
      if (rc == HS_INFLATE_LATER) continue;
      if (rc == HS_E_NOMEM) return fail(w, HS_E_NOMEM, d, "out of memory inflating %.*s", (int)(nl > 200 ? 200 : nl), name);
      if (rc) return fail(w, HS_E_FORMAT, d, "corrupt zip archive: %.*s (deflated, at byte %zu) does not inflate", (int)(nl > 200 ? 200 : nl), name, d);
      have = true;
    } else {
      warn(w, HS_W_ARCHIVE_UNREAD, "%.*s uses compression method %u (stored and deflated are read); read by name only",
           (int)(nl > 200 ? 200 : nl), name, method);
    }
    int rc = file(w, name, nl, data, dl, have);
    if (rc) return rc;
  }
  return 0;
}

/* ---- the walk -------------------------------------------------------------------------------- */
static bool zero_block(const unsigned char *u, size_t n) {
  if (n < 512) return false;
  for (int i = 0; i < 512; i++)
    if (u[i]) return false;
  return true;
}

int hs_archive_walk(const void *bytes, size_t len, const hs_archive_host *host, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!host || (!bytes && len)) return HS_E_ARG;
  walk w = {.host = host, .err = err};
  const unsigned char *u = bytes;
  int rc;
  switch (hs_archive_kind(u, len)) {
  case HS_ARCHIVE_GZIP: {
    const unsigned char *t;
    size_t tl;
    rc = inflate(&w, HS_INFLATE_GZIP, u, len, 0, &t, &tl);
    if (rc == HS_INFLATE_LATER) return rc;
    if (rc == HS_E_NOMEM) return fail(&w, rc, 0, "out of memory inflating the gzip stream");
    if (rc) return fail(&w, HS_E_FORMAT, 0, "corrupt gzip stream (%zu bytes; expected a .tar.gz of a dump folder)", len);
    if (hs_archive_kind(t, tl) == HS_ARCHIVE_TAR || zero_block(t, tl)) rc = walk_tar(&w, t, tl);
    else if (hs_archive_kind(t, tl) == HS_ARCHIVE_ZIP) rc = walk_zip(&w, t, tl);
    else if (!tl) rc = 0;
    else return fail(&w, HS_E_FORMAT, 0, "the gzip stream holds no tar archive (%zu bytes inflated; expected a .tar.gz of a dump folder)", tl);
    if (rc < 0 && err && rc != HS_E_NOMEM) { /* its bytes are the inflated stream's: say so */
      size_t k = strlen(err->message);
      snprintf(err->message + k, sizeof err->message - k, " (of the %zu bytes inflated from the gzip stream)", tl);
    }
    break;
  }
  case HS_ARCHIVE_TAR: rc = walk_tar(&w, u, len); break;
  case HS_ARCHIVE_ZIP: rc = walk_zip(&w, u, len); break;
  default:
    if (zero_block(u, len)) {
      rc = walk_tar(&w, u, len); /* an empty tar: only its end blocks */
      break;
    }
    return fail(&w, HS_E_FORMAT, 0, "not a readable archive (neither gzip, zip nor tar bytes)");
  }
  if (rc) return rc;
  return w.later ? HS_INFLATE_LATER : 0;
}

/* ---- into a dump set: every file, or none ---------------------------------------------------- */
typedef struct {
  char *name;
  size_t nl;
  const unsigned char *data;
  size_t len;
} pending_file;

typedef struct {
  pending_file *files;
  uint32_t n, cap;
  hs_diag diag;
  hs_arena arena;
  const hs_archive_host *outer;
  bool nomem;
} collect;

static int collect_file(void *ctx, const char *name, size_t nl, const unsigned char *data, size_t len) {
  collect *c = ctx;
  bool ok;
  pending_file *f = HS_VEC_PUSH(c->files, c->n, c->cap, ok);
  if (!ok) return HS_E_NOMEM;
  f->name = hs_arena_alloc_raw(&c->arena, nl + 1);
  if (!f->name) {
    c->n--;
    return HS_E_NOMEM;
  }
  memcpy(f->name, name, nl);
  f->name[nl] = 0;
  f->nl = nl;
  f->data = data;
  f->len = len;
  return 0;
}

static void collect_warn(void *ctx, int code, const char *message) {
  collect *c = ctx;
  hs_diag_warn(&c->diag, &c->arena, code, 0, 0, "%s", message);
}

static int collect_inflate(void *ctx, int method, const unsigned char *in, size_t n, size_t hint, const unsigned char **out,
                           size_t *out_len) {
  const collect *c = ctx;
  return c->outer->inflate(c->outer->ctx, method, in, n, hint, out, out_len);
}

int hs_dumpset_add_archive(hs_dumpset *s, const void *bytes, size_t len, hs_inflate_fn inflate_fn, void *ctx, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!s) return HS_E_ARG;
  hs_archive_host outer = {.inflate = inflate_fn, .ctx = ctx};
  collect c = {.diag = {.per_code = HS_DIAG_NO_LIMIT}, .outer = &outer};
  hs_archive_host host = {.inflate = inflate_fn ? collect_inflate : NULL, .file = collect_file, .warn = collect_warn, .ctx = &c};
  int rc = hs_archive_walk(bytes, len, &host, err);
  if (rc == 0 && c.diag.nomem) rc = HS_E_NOMEM;
  for (uint32_t i = 0; rc == 0 && i < c.n; i++) rc = hs_dumpset_add(s, c.files[i].name, c.files[i].nl, (const char *)c.files[i].data, c.files[i].len);
  for (uint32_t i = 0; rc == 0 && i < c.diag.n_warnings; i++)
    if (!hs_diag_warn(&s->diag, &s->arena, c.diag.warnings[i].code, 0, 0, "%s", c.diag.warnings[i].message)) rc = HS_E_NOMEM;
  if (rc == HS_E_NOMEM && err && !err->code) hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory reading the archive");
  free(c.files);
  hs_diag_free(&c.diag);
  hs_arena_free(&c.arena);
  return rc;
}
