/* `hloscope report --out FILE.html INPUT...`: one HTML file to attach to a bug. The core reads
 * the inputs and says the overview and the cells (hs_report_json) and puts the payload into the
 * page (hs_report_page); this file lists files, reads bytes, gzips and base64s each input, and
 * writes the page (and the Markdown and the .zip when asked). The page is the notebook as
 * `npm run build` writes it (dist/hloscope.html), found beside this executable's build. */
#define _XOPEN_SOURCE 700 /* realpath, readlink, PATH_MAX */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "hloscope.h"

#define BIG_ATTACHMENT (25u << 20) /* most issue trackers refuse larger attachments */



static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *template_path(const char *given, const char *argv0) {
  static char buf[PATH_MAX];
  if (given) return given;
  const char *env = getenv("HLOSCOPE_REPORT_TEMPLATE");
  if (env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    if (!realpath(argv0, exe)) return NULL;
  } else exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = 0;
  static const char *const NEAR[] = {"/hloscope.html", "/../../dist/hloscope.html", "/../share/hloscope/hloscope.html"};
  for (size_t i = 0; i < sizeof NEAR / sizeof *NEAR; i++) {
    snprintf(buf, sizeof buf, "%s%s", exe, NEAR[i]);
    if (exists(buf)) return buf;
  }
  return NULL;
}

/* gzip of `data`, base64: malloc'd, NULL when out of memory */
static char *gzip_base64(const char *data, size_t len, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
  size_t cap = deflateBound(&z, len) + 32;
  unsigned char *gz = malloc(cap);
  if (!gz) {
    deflateEnd(&z);
    return NULL;
  }
  z.next_in = (unsigned char *)data;
  z.next_out = gz;
  z.avail_out = (uInt)cap;
  size_t left = len;
  int rc;
  do {
    uInt take = left > (1u << 30) ? (1u << 30) : (uInt)left;
    z.avail_in = take;
    left -= take;
    rc = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
  } while (rc == Z_OK || (rc == Z_BUF_ERROR && left));
  size_t glen = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(gz);
    return NULL;
  }
  static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = (glen + 2) / 3 * 4;
  char *b = malloc(n + 1);
  if (!b) {
    free(gz);
    return NULL;
  }
  size_t o = 0;
  for (size_t i = 0; i < glen; i += 3) {
    unsigned v = (unsigned)gz[i] << 16 | (i + 1 < glen ? (unsigned)gz[i + 1] << 8 : 0) | (i + 2 < glen ? gz[i + 2] : 0);
    b[o++] = B64[v >> 18 & 63];
    b[o++] = B64[v >> 12 & 63];
    b[o++] = i + 1 < glen ? B64[v >> 6 & 63] : '=';
    b[o++] = i + 2 < glen ? B64[v & 63] : '=';
  }
  b[o] = 0;
  free(gz);
  *out_len = o;
  return b;
}

static void put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void put32(unsigned char *p, unsigned long v) {
  put16(p, v & 0xffff);
  put16(p + 2, (v >> 16) & 0xffff);
}

/* A .zip holding one file, deflated (GitHub issue attachments take .zip, not .html). */
static int write_zip(const char *path, const char *name, const char *data, size_t len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
  size_t cap = deflateBound(&z, len) + 32;
  unsigned char *d = malloc(cap);
  if (!d) return -1;
  z.next_in = (unsigned char *)data;
  z.avail_in = (uInt)len;
  z.next_out = d;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t dlen = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(d);
    return -1;
  }
  unsigned long crc = crc32(0L, (const unsigned char *)data, (uInt)len);
  size_t nl = strlen(name);
  unsigned char lh[30] = {0}, ch[46] = {0}, eo[22] = {0};
  /* the local header and the central directory's entry hold the same fields from "version
   * needed" on, the central one two bytes later (after "version made by") */
  put32(lh, 0x04034b50);
  put32(ch, 0x02014b50);
  put16(ch + 4, 20);
  for (int k = 0; k < 2; k++) {
    unsigned char *f = k ? ch + 6 : lh + 4;
    put16(f, 20);
    put16(f + 4, 8); /* deflate */
    put32(f + 10, crc);
    put32(f + 14, (unsigned long)dlen);
    put32(f + 18, (unsigned long)len);
    put16(f + 22, (unsigned)nl);
  }
  put32(ch + 38, 0644ul << 16);
  put32(eo, 0x06054b50);
  put16(eo + 8, 1);
  put16(eo + 10, 1);
  put32(eo + 12, (unsigned long)(46 + nl));
  put32(eo + 16, (unsigned long)(30 + nl + dlen));
  FILE *f = fopen(path, "wb");
  int bad = !f;
  if (f) {
    bad |= fwrite(lh, 1, 30, f) != 30 || fwrite(name, 1, nl, f) != nl || fwrite(d, 1, dlen, f) != dlen;
    bad |= fwrite(ch, 1, 46, f) != 46 || fwrite(name, 1, nl, f) != nl || fwrite(eo, 1, 22, f) != 22;
    bad |= fclose(f) != 0;
  }
  free(d);
  return bad ? -1 : 0;
}

static int write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int bad = fwrite(data, 1, len, f) != len;
  bad |= fclose(f) != 0;
  return bad ? -1 : 0;
}

static void say_size(const char *what, const char *path, size_t n) {
  fprintf(stderr, "hloscope: wrote %s %s (%.2f MiB)\n", what, path, (double)n / (1 << 20));
}

/* Adds one INPUT to the report: a dump folder or archive, a profile log folder, a profile file,
 * or a text (gunzipped when it ends in .gz). `only`: keep files whose names contain it. */
static int add_path(hs_report *r, const char *path, const char *only) {
  int rc = 0;
  int archive = hs_cli_is_archive_name(path);
  int profile = hs_cli_is_profile_name(path);
  if (hs_cli_is_dir(path) ? !hs_cli_is_profile_folder(path) : archive) {
    hs_dumpset *s = hs_dumpset_new();
    if (!s || hs_cli_dumpset_add_path(s, path) != 0) {
      hs_dumpset_free(s);
      return 1;
    }
    rc = hs_report_add_dumpset(r, path, s);
  } else if (hs_cli_is_dir(path) || profile) {
    if (only && !hs_cli_is_dir(path) && !strstr(path, only)) return 0;
    size_t n = 0;
    const char *one[1] = {path};
    hs_profile_input *in = hs_cli_read_profiles(one, 1, &n, &rc);
    if (!in) return rc;
    rc = hs_report_add_profile(r, path, in, n);
    hs_cli_free_profiles(in, n);
  } else {
    if (only && !strstr(path, only)) return 0;
    size_t len = 0;
    char *data = hs_cli_read_all(path, &len);
    if (!data) {
      fprintf(stderr, "hloscope: cannot read %s: %s\n", path, strerror(errno));
      return 1;
    }
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s", strcmp(path, "-") == 0 ? "stdin.txt" : path);
    if (hs_cli_ends_with(name, ".gz")) {
      size_t m = 0;
      char *raw = hs_cli_inflate((const unsigned char *)data, len, 15 + 32, 0, &m);
      free(data);
      if (!raw) {
        fprintf(stderr, "%s:0:0: HS_E_FORMAT: not a readable gzip stream\n", path);
        return 2;
      }
      data = raw;
      len = m;
      name[strlen(name) - 3] = 0;
    }
    rc = hs_report_add_file(r, name, data, len);
    free(data);
  }
  if (rc) fprintf(stderr, "hloscope: %s: %s\n", path, hs_code_message(rc));
  return rc ? 1 : 0;
}

int hs_cli_report(int argc, char **argv) {
  const char *out = NULL, *markdown = NULL, *title = NULL, *tmpl = NULL, *only = NULL;
  int zip = 0, redact = 0, json = 0, n_in = 0;
  const char **ins = calloc((size_t)argc + 1, sizeof *ins);
  if (!ins) return 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **want = strcmp(a, "--out") == 0 ? &out : strcmp(a, "--markdown") == 0 ? &markdown : strcmp(a, "--title") == 0 ? &title
                        : strcmp(a, "--template") == 0 ? &tmpl : strcmp(a, "--only") == 0 ? &only : NULL;
    if (want) {
      if (i + 1 >= argc) {
        fprintf(stderr, "hloscope report: %s needs a value\n", a);
        free(ins);
        return 1;
      }
      *want = argv[++i];
    } else if (strcmp(a, "--zip") == 0) zip = 1;
    else if (strcmp(a, "--redact") == 0) redact = 1;
    else if (strcmp(a, "--json") == 0) json = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "hloscope report: unknown option %s\n", a);
      free(ins);
      return 1;
    } else ins[n_in++] = a;
  }
  if (!n_in || (!out && !markdown && !json)) {
    fprintf(stderr, "usage: hloscope report --out FILE.html [--markdown FILE.md] [--zip] [--redact] [--title TEXT]\n"
                    "                       [--only WORD] [--template PAGE] [--json] INPUT...\n"
                    "INPUT: optimized HLO, StableHLO, jaxpr, dump folders or archives, profiles or log folders,\n"
                    "out-of-memory messages, buffer assignments, LLVM IR\n");
    free(ins);
    return 1;
  }
  hs_report *r = hs_report_new();
  int rc = r ? 0 : 1;
  if (!rc && title) rc = hs_report_set_title(r, title) ? 1 : 0;
  for (int i = 0; !rc && i < n_in; i++) rc = add_path(r, ins[i], only);
  free(ins);
  hs_error err;
  size_t jl = 0;
  char *js = rc ? NULL : hs_report_json(r, redact, &err, &jl);
  if (!rc && !js) {
    fprintf(stderr, "hloscope report: %s: %s\n", hs_code_name(err.code), err.message);
    rc = err.code == HS_E_NOMEM ? 1 : 2;
  }
  json_t *root = js ? json_loadb(js, jl, 0, NULL) : NULL;
  if (js && !root) rc = 1;
  if (!rc && json) {
    char *o = json_dumps(json_object_get(root, "overview"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (o) puts(o);
    free(o);
  }
  if (!rc && markdown) {
    const char *m = json_string_value(json_object_get(root, "markdown"));
    if (write_file(markdown, m, strlen(m)) != 0) {
      fprintf(stderr, "hloscope: cannot write %s: %s\n", markdown, strerror(errno));
      rc = 1;
    } else say_size("the overview", markdown, strlen(m));
  }
  if (!rc && out) {
    const char *tp = template_path(tmpl, argv[0]);
    size_t tl = 0;
    char *page = tp ? hs_cli_read_all(tp, &tl) : NULL;
    if (!page) {
      fprintf(stderr, tp ? "hloscope report: cannot read the page %s: %s\n"
                         : "hloscope report: no page to fill: build it with `npm run build` (dist/hloscope.html), or give "
                           "--template PAGE or HLOSCOPE_REPORT_TEMPLATE%s%s\n",
              tp ? tp : "", tp ? strerror(errno) : "");
      rc = 1;
    }
    /* each file's bytes, gzipped and base64'd, beside the core's entry for it */
    size_t carried = 0;
    json_t *files = json_object_get(root, "files"), *f;
    size_t i;
    json_array_foreach(files, i, f) {
      if (rc) break;
      size_t len = 0, bl = 0;
      const char *data = hs_report_file(r, i, &len);
      char *b = gzip_base64(data, len, &bl);
      if (!b) {
        rc = 1;
        break;
      }
      json_object_set_new(f, "encoding", json_string("gzip+base64"));
      json_object_set_new(f, "data", json_stringn(b, bl));
      carried += bl;
      free(b);
    }
    char when[40];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_object_set_new(root, "created", json_string(when));
    char *payload = rc ? NULL : json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    size_t hl = 0;
    char *html = payload ? hs_report_page(page, tl, payload, strlen(payload), &err, &hl) : NULL;
    if (!rc && !html) {
      fprintf(stderr, "%s:0:0: %s: %s\n", tp, hs_code_name(err.code), err.message);
      rc = 1;
    }
    if (!rc) {
      char zpath[PATH_MAX];
      if (zip) {
        snprintf(zpath, sizeof zpath, "%s", out);
        if (hs_cli_ends_with(zpath, ".html")) zpath[strlen(zpath) - 5] = 0;
        strncat(zpath, ".zip", sizeof zpath - strlen(zpath) - 1);
      }
      const char *slash = strrchr(out, '/');
      int bad = zip ? write_zip(zpath, slash ? slash + 1 : out, html, hl) : write_file(out, html, hl);
      if (bad) {
        fprintf(stderr, "hloscope: cannot write %s: %s\n", zip ? zpath : out, strerror(errno));
        rc = 1;
      } else {
        struct stat st;
        size_t written = stat(zip ? zpath : out, &st) == 0 ? (size_t)st.st_size : hl;
        say_size(zip ? "the report (zipped)" : "the report", zip ? zpath : out, written);
        fprintf(stderr, "hloscope: %.2f MiB of inputs (gzipped), %.2f MiB of page (the core and the views)%s\n",
                (double)carried / (1 << 20), (double)(hl - carried) / (1 << 20), redact ? "; redacted" : "");
        if (written > BIG_ATTACHMENT)
          fprintf(stderr, "hloscope: warning: %s is over 25 MiB, more than most issue trackers take: leave inputs out, "
                          "or keep only some (--only after_optimizations keeps the files whose names hold that word)%s\n",
                  zip ? zpath : out, zip ? "" : "; --zip compresses the page too");
      }
    }
    free(html);
    free(payload);
    free(page);
  }
  json_decref(root);
  hs_free(js);
  hs_report_free(r);
  return rc;
}
