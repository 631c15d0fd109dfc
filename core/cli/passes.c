/* hloscope passes: dump folders on the command line.
 *
 *   hloscope passes PATH... [--json]          PATH: a dump folder, a .tar.gz/.tgz/.tar/.zip of
 *   hloscope passes --compare A B [--json]    one, or a listing file (one name per line, `ls`)
 *
 * The core reads names and bytes (hs_dumpset_*); walking folders and opening archives happens
 * here, with zlib (already the CLI's for .trace.json.gz). Only `.txt` files' bytes are read: the
 * HLO steps and module dumps; the other files (LLVM IR, objects, PTX) are known by name alone. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "hloscope.h"

#define MAX_CONTENT ((size_t)512 << 20)


static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}



/* The names whose bytes the core reads (its rule: hs_dumpset_wants_bytes). */
static int wants_bytes(const char *name, size_t n) { return hs_dumpset_wants_bytes(name, n); }

static int fail(const char *path, const char *code, const char *msg) {
  fprintf(stderr, "%s:0:0: %s: %s\n", path, code, msg);
  return 2;
}

/* Names in byte order (strcmp, as Node's readdir gives them), so that the same folder reads the
 * same on every machine whatever order its filesystem returns. */
static int by_bytes(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int add_dir(hs_dumpset *s, const char *dir, int depth) {
  struct dirent **list = NULL;
  int n = scandir(dir, &list, NULL, by_bytes);
  if (n < 0) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", dir, strerror(errno));
    return 1;
  }
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    struct dirent *e = list[i];
    if (e->d_name[0] == '.') continue;
    size_t pl = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(pl);
    if (!p) {
      rc = 1;
      break;
    }
    snprintf(p, pl, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        if (depth < 8) rc = add_dir(s, p, depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        size_t nl = strlen(e->d_name), len = 0;
        char *data = NULL;
        if (wants_bytes(e->d_name, nl) && (size_t)st.st_size <= MAX_CONTENT) data = slurp(p, &len);
        if (data && len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
          size_t m = 0;
          char *raw = hs_cli_inflate((const unsigned char *)data, len, 15 + 32, 0, &m);
          if (raw) { /* else the core says it is gzip and reads it by name */
            free(data);
            data = raw;
            len = m;
          }
        }
        rc = hs_dumpset_add(s, e->d_name, nl, data, len) ? 1 : 0;
        free(data);
      }
    }
    free(p);
  }
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  return rc;
}

/* Inflates a gzip (window 15+32) or raw deflate (-15) stream of known or unknown output size. */
/* Inflates all of `in` (window as zlib's inflateInit2 takes it: -15 raw deflate, 15 + 32 gzip or
 * zlib with concatenated members); `hint` is the expected size or 0. Malloc'd, or NULL on a
 * damaged stream or out of memory. Shared with main.c (the profile command's .gz). */
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

static unsigned long long octal(const unsigned char *p, size_t n) {
  unsigned long long v = 0;
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == 0)) i++;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) v = v * 8 + (p[i] - '0');
  return v;
}

/* A ustar/GNU/pax tar stream; returns 0, or 2 with a message for a corrupt archive. */
static int add_tar(hs_dumpset *s, const char *path, const unsigned char *t, size_t n) {
  size_t p = 0;
  char longname[4096];
  longname[0] = 0;
  int files = 0;
  while (p + 512 <= n) {
    const unsigned char *h = t + p;
    int zero = 1;
    for (int i = 0; i < 512 && zero; i++) zero = h[i] == 0;
    if (zero) break;
    unsigned long long sum = 0;
    for (int i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : h[i];
    if (sum != octal(h + 148, 8)) {
      char m[120];
      snprintf(m, sizeof m, "corrupt tar archive: bad header checksum at byte %zu", p);
      return fail(path, "HS_E_FORMAT", m);
    }
    unsigned long long size = octal(h + 124, 12);
    char type = (char)h[156];
    size_t data = p + 512;
    if (size > n - data) return fail(path, "HS_E_FORMAT", "truncated tar archive: an entry runs past the end");
    char name[4096];
    if (longname[0]) {
      snprintf(name, sizeof name, "%s", longname);
      longname[0] = 0;
    } else if (memcmp(h + 257, "ustar", 5) == 0 && h[262] == 0 && h[345]) { /* POSIX prefix, not GNU */
      snprintf(name, sizeof name, "%.155s/%.100s", (const char *)h + 345, (const char *)h + 0);
    } else {
      snprintf(name, sizeof name, "%.100s", (const char *)h);
    }
    if (type == 'L') { /* GNU long name: the next entry's name */
      size_t k = size < sizeof longname - 1 ? size : sizeof longname - 1;
      memcpy(longname, t + data, k);
      longname[k] = 0;
    } else if (type == 'x') { /* pax: "len path=value\n" records */
      const char *r = (const char *)t + data, *end = r + size;
      while (r < end) {
        const char *sp = memchr(r, ' ', (size_t)(end - r));
        long rl = strtol(r, NULL, 10);
        if (!sp || rl <= 0 || rl > end - r) break;
        if (end - sp > 6 && memcmp(sp + 1, "path=", 5) == 0) {
          size_t k = (size_t)(r + rl - (sp + 6)) - 1;
          if (k < sizeof longname) {
            memcpy(longname, sp + 6, k);
            longname[k] = 0;
          }
        }
        r += rl;
      }
    } else if (type == '0' || type == 0 || type == '7') {
      size_t nl = strlen(name);
      int want = wants_bytes(name, nl);
      if (hs_dumpset_add(s, name, nl, want ? (const char *)t + data : NULL, want ? size : 0)) return 1;
      files++;
    }
    p = data + ((size + 511) / 512) * 512;
  }
  if (p + 512 > n && p < n) fprintf(stderr, "warning: %s: the tar archive ends mid-header; read %d files\n", path, files);
  return 0;
}

static unsigned rd16(const unsigned char *p) { return p[0] | p[1] << 8; }
static unsigned long rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned long)p[3] << 24; }

/* A .zip: the central directory, then each entry's local header; stored and deflated entries. */
static int add_zip(hs_dumpset *s, const char *path, const unsigned char *z, size_t n) {
  if (n < 22) return fail(path, "HS_E_FORMAT", "corrupt zip archive: too short for an end-of-directory record");
  size_t e = n - 22;
  size_t stop = n > 22 + 65535 ? n - 22 - 65535 : 0;
  while (rd32(z + e) != 0x06054b50) {
    if (e == stop) return fail(path, "HS_E_FORMAT", "corrupt zip archive: no end-of-central-directory record");
    e--;
  }
  unsigned long count = rd16(z + e + 10), cd_size = rd32(z + e + 12), cd_off = rd32(z + e + 16);
  if (count == 0xffff || cd_off == 0xffffffffUL) return fail(path, "HS_E_UNSUPPORTED", "zip64 archives are not read; use .tar.gz");
  if (cd_off > n || cd_size > n - cd_off) return fail(path, "HS_E_FORMAT", "corrupt zip archive: the central directory lies past the end");
  size_t p = cd_off;
  for (unsigned long i = 0; i < count; i++) {
    if (p + 46 > n || rd32(z + p) != 0x02014b50) return fail(path, "HS_E_FORMAT", "corrupt zip archive: a bad central-directory entry");
    unsigned method = rd16(z + p + 10);
    unsigned long csize = rd32(z + p + 20), usize = rd32(z + p + 24), lho = rd32(z + p + 42);
    unsigned nl = rd16(z + p + 28), xl = rd16(z + p + 30), cl = rd16(z + p + 32);
    if (p + 46 + nl > n) return fail(path, "HS_E_FORMAT", "corrupt zip archive: a name runs past the end");
    const char *name = (const char *)z + p + 46;
    p += 46 + nl + xl + cl;
    if (nl && name[nl - 1] == '/') continue; /* a folder */
    int want = wants_bytes(name, nl);
    char *data = NULL;
    size_t dl = 0;
    if (want) {
      if (lho + 30 > n || rd32(z + lho) != 0x04034b50) return fail(path, "HS_E_FORMAT", "corrupt zip archive: a bad local header");
      size_t d = lho + 30 + rd16(z + lho + 26) + rd16(z + lho + 28);
      if (d > n || csize > n - d) return fail(path, "HS_E_FORMAT", "corrupt zip archive: an entry runs past the end");
      if (method == 0) {
        data = malloc(csize ? csize : 1);
        if (data) memcpy(data, z + d, csize);
        dl = csize;
      } else if (method == 8) {
        data = hs_cli_inflate(z + d, csize, -15, usize, &dl);
        if (!data) return fail(path, "HS_E_FORMAT", "corrupt zip archive: an entry does not inflate");
      } else {
        fprintf(stderr, "warning: %s: %.*s uses compression method %u; read by name only\n", path, (int)nl, name, method);
      }
    }
    int rc = hs_dumpset_add(s, name, nl, data, dl);
    free(data);
    if (rc) return 1;
  }
  return 0;
}

int hs_cli_dumpset_add_path(hs_dumpset *s, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  hs_dumpset_set_label(s, base, strlen(base));
  if (S_ISDIR(st.st_mode)) return add_dir(s, path, 0);
  size_t len = 0;
  char *data = slurp(path, &len);
  if (!data) {
    fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  const unsigned char *u = (const unsigned char *)data;
  int rc;
  if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
    size_t tl = 0;
    char *tar = hs_cli_inflate(u, len, 15 + 32, 0, &tl);
    if (!tar) rc = fail(path, "HS_E_FORMAT", "corrupt gzip stream (expected a .tar.gz of a dump folder)");
    else rc = add_tar(s, path, (const unsigned char *)tar, tl);
    free(tar);
  } else if (len >= 4 && rd32(u) == 0x04034b50) {
    rc = add_zip(s, path, u, len);
  } else if (len >= 512 && memcmp(u + 257, "ustar", 5) == 0) {
    rc = add_tar(s, path, u, len);
  } else if (hs_cli_ends_with(path, ".zip") || hs_cli_ends_with(path, ".tar") || hs_cli_ends_with(path, ".tgz") || hs_cli_ends_with(path, ".gz")) {
    rc = fail(path, "HS_E_FORMAT", "not a readable archive (neither gzip, zip nor tar bytes)");
  } else {
    rc = hs_dumpset_add_listing(s, data, len) ? 1 : 0;
  }
  free(data);
  return rc;
}

static const char *gs(json_t *o, const char *k) {
  const char *v = json_string_value(json_object_get(o, k));
  return v ? v : "-";
}
static long long gi(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static void human(json_t *j) {
  size_t i, k;
  json_t *m, *x;
  json_array_foreach(json_object_get(j, "modules"), i, m) {
    json_t *steps = json_object_get(m, "steps"), *pipes = json_object_get(m, "pipelines");
    printf("module %04lld %s (%s%s%s%s)", gi(m, "id"), gs(m, "name"), gs(m, "backend"),
           json_is_string(json_object_get(m, "target")) ? " " : "",
           json_is_string(json_object_get(m, "target")) ? gs(m, "target") : "",
           json_is_true(json_object_get(m, "backend_inferred")) ? ", inferred from the folder" : "");
    if (!json_array_size(steps)) {
      printf(": no pass steps\n");
      continue;
    }
    printf(": %zu steps over %zu pipelines", json_array_size(steps), json_array_size(pipes));
    if (json_is_integer(json_object_get(m, "watershed"))) printf(", layout watershed at step %lld", gi(m, "watershed"));
    if (json_is_integer(json_object_get(m, "first_fusion"))) printf(", first fusion at step %lld", gi(m, "first_fusion"));
    printf("\n  pipelines:\n");
    json_array_foreach(pipes, k, x) {
      printf("    %-44s %3lld steps, %2lld run%s, %zu passes\n", gs(x, "name"), gi(x, "steps"), gi(x, "runs"),
             gi(x, "runs") == 1 ? " " : "s", json_array_size(json_object_get(x, "passes")));
    }
    printf("  steps:\n");
    json_array_foreach(steps, k, x) {
      json_t *c = json_object_get(x, "counts");
      printf("    %04lld %-40.40s after %-32.32s before %-32.32s", gi(x, "n"), gs(x, "pipeline"), gs(x, "after"),
             gs(x, "before"));
      if (json_is_object(c))
        printf(" %5lld instr %4lld fusions", gi(c, "instructions"), gi(c, "fusion_ops"));
      if (gi(x, "run") > 1) printf(" (run %lld)", gi(x, "run"));
      printf("\n");
      json_t *d = json_object_get(x, "diff");
      if (json_is_object(d)) printf("         %s\n", gs(d, "sentence"));
    }
  }
  /* files by kind */
  json_t *kinds = json_object();
  json_array_foreach(json_object_get(j, "files"), i, x) {
    const char *kn = gs(x, "kind");
    json_object_set_new(kinds, kn, json_integer(gi(kinds, kn) + 1));
  }
  printf("files: %zu\n", json_array_size(json_object_get(j, "files")));
  const char *kk;
  json_object_foreach(kinds, kk, x) printf("  %-48s %lld\n", kk, json_integer_value(x));
  json_decref(kinds);
  json_array_foreach(json_object_get(j, "warnings"), i, x) printf("warning: %s\n", gs(x, "message"));
}

static void human_compare(json_t *j) {
  json_t *a = json_object_get(j, "a"), *b = json_object_get(j, "b");
  printf("A: %s (%lld steps, %lld passes)\nB: %s (%lld steps, %lld passes)\n", gs(a, "label"), gi(a, "steps"),
         gi(a, "passes"), gs(b, "label"), gi(b, "steps"), gi(b, "passes"));
  size_t i, k;
  json_t *p, *x;
  json_array_foreach(json_object_get(j, "notes"), i, x) printf("note: %s\n", json_string_value(x));
  json_array_foreach(json_object_get(j, "pipelines"), i, p) {
    printf("pipeline %s\n", gs(p, "name"));
    const char *keys[3] = {"both", "only_a", "only_b"};
    const char *words[3] = {"both", "only A", "only B"};
    for (int w = 0; w < 3; w++) {
      json_t *arr = json_object_get(p, keys[w]);
      if (!json_array_size(arr)) continue;
      printf("  %-7s", words[w]);
      json_array_foreach(arr, k, x) printf(" %s", json_string_value(x));
      printf("\n");
    }
  }
}

int hs_cli_passes(int argc, char **argv) {
  int json = 0, compare = 0;
  const char *paths[256];
  int np = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) json = 1;
    else if (strcmp(argv[i], "--compare") == 0) compare = 1;
    else if (np < 256) paths[np++] = argv[i];
  }
  if (np == 0 || (compare && np != 2)) {
    fprintf(stderr, "usage: hloscope passes PATH... [--json]\n       hloscope passes --compare A B [--json]\n"
                    "PATH: a dump folder, a .tar.gz/.tgz/.tar/.zip of one, or a listing (one name per line)\n");
    return 1;
  }
  hs_dumpset *sets[2] = {hs_dumpset_new(), compare ? hs_dumpset_new() : NULL};
  int rc = 0;
  if (!sets[0] || (compare && !sets[1])) rc = 1;
  for (int i = 0; i < np && !rc; i++) rc = hs_cli_dumpset_add_path(sets[compare ? i : 0], paths[i]);
  char *out = NULL;
  size_t n = 0;
  hs_error err;
  memset(&err, 0, sizeof err);
  if (!rc) {
    out = compare ? hs_dumpset_compare_json(sets[0], sets[1], &err, &n) : hs_dumpset_json(sets[0], &err, &n);
    if (!out) {
      if (err.code) {
        fprintf(stderr, "%s:0:0: %s: %s\n", np == 1 ? paths[0] : "(inputs)", hs_code_name(err.code), err.message);
        rc = 2;
      } else {
        fprintf(stderr, "hloscope: out of memory\n");
        rc = 1;
      }
    }
  }
  if (out) {
    if (json) {
      fwrite(out, 1, n, stdout);
      fputc('\n', stdout);
    } else {
      json_error_t e;
      json_t *j = json_loadb(out, n, 0, &e);
      if (compare) human_compare(j);
      else human(j);
      json_decref(j);
    }
  }
  hs_free(out);
  hs_dumpset_free(sets[0]);
  hs_dumpset_free(sets[1]);
  return rc;
}
