/* The report's redaction (`hloscope report --redact`): every module name, source file path and
 * op_name prefix found in the report's files, and every file name, replaced in the bytes by a
 * placeholder of the same length. Same length: a protobuf's length prefixes stay valid. The same
 * name gets the same placeholder everywhere, so a StableHLO and the HLO it became still pair.
 * Names shorter than four bytes are left (too common to replace blindly) and counted.
 *
 * Where names are found: in texts, after their keys (`HloModule`, `module @`, `source_file="`,
 * `op_name="`, a frame table's FileNames, MLIR `loc("...")`); in profiles, in an XSpace's
 * protobuf strings or a trace JSON's string values (one rule for both, classify()), and the
 * programs, op names and sources the profile model reads. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/report.h"

typedef struct {
  char *from, *to;
  size_t len;
  char cls; /* 'm' module, 'f' source file, 'p' op_name prefix */
} r_pat;

struct hs_redaction {
  r_pat *v;
  size_t n, cap;
  size_t counts[3], short_left;
  size_t *bucket_head; /* 65536 heads into `next`, by the first two bytes; SIZE_MAX = none */
  size_t *next;
};

static int cls_index(char c) { return c == 'm' ? 0 : c == 'f' ? 1 : 2; }

static void add_pat(hs_redaction *x, const char *s, size_t n, char cls) {
  if (n < 4) {
    if (n) x->short_left++;
    return;
  }
  for (size_t i = 0; i < x->n; i++)
    if (x->v[i].len == n && memcmp(x->v[i].from, s, n) == 0) return;
  if (x->n == x->cap) {
    size_t nc = x->cap ? x->cap * 2 : 64;
    r_pat *nv = realloc(x->v, nc * sizeof *nv);
    if (!nv) return;
    x->v = nv;
    x->cap = nc;
  }
  r_pat *p = &x->v[x->n];
  p->from = hs_report_dupn(s, n);
  p->to = malloc(n + 1);
  if (!p->from || !p->to) {
    free(p->from);
    free(p->to);
    return;
  }
  p->len = n;
  p->cls = cls;
  size_t k = ++x->counts[cls_index(cls)];
  /* "module7", "src7.py", "prefix7/": the class, a number, and '_' to the original length */
  char head[40];
  const char *word = cls == 'm' ? "module" : cls == 'f' ? "src" : "prefix";
  int w = snprintf(head, sizeof head, "%s%zu", word, k);
  if ((size_t)w > n - (cls == 'p')) w = snprintf(head, sizeof head, "%c%zu", cls, k);
  memset(p->to, '_', n);
  memcpy(p->to, head, (size_t)w < n ? (size_t)w : n);
  if (cls == 'p') p->to[n - 1] = '/';
  if (cls == 'f' && n >= 3 && memcmp(s + n - 3, ".py", 3) == 0 && (size_t)w + 3 <= n) memcpy(p->to + n - 3, ".py", 3);
  p->to[n] = 0;
  x->n++;
}

/* a byte of a module's name: letters, digits, '_', '.', '-' */
static int name_char(unsigned char c) {
  return c == '_' || c == '.' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* "jit(" or "pmap(" at s (n bytes there): a call of a function, which names it */
static int is_call(const char *s, size_t n) { return (n > 4 && memcmp(s, "jit(", 4) == 0) || (n > 5 && memcmp(s, "pmap(", 5) == 0); }

/* An op name ("jit(f)/jit(main)/add"): its prefix up to the last '/' ('p'), the whole name when its
 * last part is a call (".../jit(g)"); with `bare`, a name that is one call ("jit(f)") is the
 * function a module is named after ('m'). */
static void add_op_name(hs_redaction *x, const char *s, size_t n, int bare) {
  size_t slash = n;
  while (slash > 0 && s[slash - 1] != '/') slash--;
  if (slash) add_pat(x, s, is_call(s + slash, n - slash) ? n : slash, 'p');
  else if (bare && is_call(s, n) && s[n - 1] == ')') add_pat(x, s, n, 'm');
}

/* One string a profile holds (a protobuf's, a trace JSON's), s[0, n): a source path ("x.py",
 * "x.py:37 f"), an op name, a jit call's Python function ("PjitFunction(f)") or a module's name
 * ("jit_f", "jit_f(17)"). */
static void classify(hs_redaction *x, const char *s, size_t n) {
  const char *py = n >= 3 ? memmem(s, n, ".py", 3) : NULL;
  if (py && ((size_t)(py - s) + 3 == n || py[3] == ':')) add_pat(x, s, (size_t)(py - s) + 3, 'f');
  if (is_call(s, n)) add_op_name(x, s, n, 1);
  if (n > 13 && memcmp(s, "PjitFunction(", 13) == 0) add_pat(x, s, n, 'm');
  if ((n > 4 && memcmp(s, "jit_", 4) == 0) || (n > 5 && memcmp(s, "pmap_", 5) == 0)) {
    size_t k = 0;
    while (k < n && name_char((unsigned char)s[k])) k++;
    if (k == n || s[k] == '(') add_pat(x, s, k, 'm');
  }
}

/* The end of a quoted value starting at s (a '"' before a newline, within 4096 bytes), or SIZE_MAX. */
static size_t quoted_end(const char *t, size_t len, size_t s) {
  size_t e = s;
  while (e < len && t[e] != '"' && t[e] != '\n' && e - s < 4096) e++;
  return e < len && t[e] == '"' ? e : SIZE_MAX;
}

/* `key` then a quoted value: the value is a pattern of `cls` ('p': an op name) */
static void scan_quoted(hs_redaction *x, const char *t, size_t len, const char *key, char cls) {
  size_t kl = strlen(key);
  for (size_t i = hs_find(t, 0, len, key); i != SIZE_MAX; i = hs_find(t, i + 1, len, key)) {
    size_t s = i + kl, e = quoted_end(t, len, s);
    if (e == SIZE_MAX) continue;
    if (cls == 'p') add_op_name(x, t + s, e - s, 0);
    else add_pat(x, t + s, e - s, cls);
    i = e;
  }
}

/* `HloModule NAME`, `module @NAME` (or @"NAME") at a line's start or after a space, `; ModuleID = 'NAME'` */
static void scan_modules(hs_redaction *x, const char *t, size_t len) {
  static const char *const KEYS[] = {"HloModule ", "module @", "ModuleID = '"};
  for (int k = 0; k < 3; k++) {
    size_t kl = strlen(KEYS[k]);
    for (size_t i = hs_find(t, 0, len, KEYS[k]); i != SIZE_MAX; i = hs_find(t, i + 1, len, KEYS[k])) {
      if (i && k < 2 && t[i - 1] != '\n' && t[i - 1] != ' ') continue;
      size_t s = i + kl, e;
      if (k == 1 && s < len && t[s] == '"') s++;
      for (e = s; e < len && name_char((unsigned char)t[e]); e++) {
      }
      if (e > s) add_pat(x, t + s, e - s, 'm');
      i = e ? e - 1 : 0;
    }
  }
}

/* A frame table's FileNames section: `FileNames` then lines `  1 "/path/x.py"` up to a blank line. */
static void scan_frame_files(hs_redaction *x, const char *t, size_t len) {
  for (size_t i = hs_find(t, 0, len, "FileNames\n"); i != SIZE_MAX; i = hs_find(t, i + 1, len, "FileNames\n")) {
    size_t j = i + 10;
    while (j < len && t[j] != '\n') {
      size_t e = j;
      while (e < len && t[e] != '\n') e++;
      const char *q = memchr(t + j, '"', e - j);
      const char *q2 = q ? memchr(q + 1, '"', (size_t)(t + e - q - 1)) : NULL;
      if (q && q2) add_pat(x, q + 1, (size_t)(q2 - q - 1), 'f');
      j = e + 1;
    }
    i = j - 1;
  }
}

/* MLIR locations: loc("path/x.py":12:3), and the op-name locations loc("jit(f)/jit(main)/add"(...)) */
static void scan_locs(hs_redaction *x, const char *t, size_t len) {
  for (size_t i = hs_find(t, 0, len, "loc(\""); i != SIZE_MAX; i = hs_find(t, i + 1, len, "loc(\"")) {
    size_t s = i + 5, e = quoted_end(t, len, s);
    if (e == SIZE_MAX || e + 1 >= len) continue;
    if (t[e + 1] == ':') add_pat(x, t + s, e - s, 'f');
    else add_op_name(x, t + s, e - s, 0);
    i = e;
  }
}

/* The length a protobuf string field's varint before `k` gives (1 or 2 bytes), or SIZE_MAX. */
static size_t len_before(const unsigned char *t, size_t k) {
  if (k >= 1 && t[k - 1] < 0x80) {
    if (k >= 2 && t[k - 2] >= 0x80) return (size_t)(t[k - 2] & 0x7f) | (size_t)t[k - 1] << 7;
    return t[k - 1];
  }
  return SIZE_MAX;
}

static int printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

/* Whether [k, k+l) is a string a protobuf holds: inside the bytes and printable throughout (a
 * byte before a printable run that only looks like its length fails this, so a pattern never
 * spans a field's tag or length). */
static int proto_string(const unsigned char *t, size_t len, size_t k, size_t l) {
  if (l == SIZE_MAX || k + l > len) return 0;
  for (size_t q = k; q < k + l; q++)
    if (!printable(t[q])) return 0;
  return 1;
}

/* An XSpace's strings (length-delimited fields) around the bytes that can begin or hold a name:
 * ".py" (a path, as its HloModuleProtos' stack frames and metadata hold them, found by walking
 * back to the string's start), and "jit(", "pmap(", "jit_", "pmap_", "PjitFunction(" at a string's
 * start; a string is taken only where the varint before it is its length. */
static void scan_proto(hs_redaction *x, const char *text, size_t len) {
  const unsigned char *t = (const unsigned char *)text;
  for (size_t i = 0; i + 3 <= len; i++) {
    if (t[i] == '.' && t[i + 1] == 'p' && t[i + 2] == 'y' && (i + 3 == len || !printable(t[i + 3]) || t[i + 3] == ':')) {
      size_t e = i + 3, s = i;
      while (s > 0 && printable(t[s - 1]) && t[s - 1] != ' ' && e - s < 4096) s--;
      for (size_t k = s; k < i; k++) {
        size_t l = len_before(t, k);
        if (l != SIZE_MAX && l >= e - k && proto_string(t, len, k, l)) { /* the path, or a string that begins with it ("x.py:37") */
          add_pat(x, text + k, e - k, 'f');
          break;
        }
      }
    }
    if (t[i] == 'j' || t[i] == 'p' || t[i] == 'P') {
      size_t l = len_before(t, i);
      if (l >= 5 && proto_string(t, len, i, l) &&
          (is_call(text + i, l) || memcmp(t + i, "jit_", 4) == 0 || (l > 5 && memcmp(t + i, "pmap_", 5) == 0) ||
           (l > 13 && memcmp(t + i, "PjitFunction(", 13) == 0)))
        classify(x, text + i, l);
    }
  }
}

/* A trace JSON's string values (one with an escape or over 4096 bytes is stepped over). */
static void scan_json(hs_redaction *x, const char *t, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (t[i] != '"') continue;
    size_t e = hs_skip_string(t, len, i); /* after the closing quote */
    size_t s = i + 1, n = e > s ? e - s - 1 : 0;
    if (e <= len && n < 4096 && e > s && t[e - 1] == '"' && !memchr(t + s, '\\', n) && !memchr(t + s, '\n', n)) classify(x, t + s, n);
    i = e - 1;
  }
}

static int cmp_len_desc(const void *a, const void *b) {
  size_t x = ((const r_pat *)a)->len, y = ((const r_pat *)b)->len;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void index_patterns(hs_redaction *x) {
  if (x->n) qsort(x->v, x->n, sizeof *x->v, cmp_len_desc);
  x->bucket_head = malloc(65536 * sizeof(size_t));
  x->next = malloc((x->n ? x->n : 1) * sizeof(size_t));
  if (!x->bucket_head || !x->next) return;
  for (size_t i = 0; i < 65536; i++) x->bucket_head[i] = SIZE_MAX;
  /* in reverse, so each bucket lists its longest patterns first */
  for (size_t i = x->n; i-- > 0;) {
    unsigned h = (unsigned char)x->v[i].from[0] << 8 | (unsigned char)x->v[i].from[1];
    x->next[i] = x->bucket_head[h];
    x->bucket_head[h] = i;
  }
}

size_t hs_redaction_apply(const hs_redaction *x, char *t, size_t len) {
  if (!x || !x->bucket_head || !x->next || !x->n) return 0;
  size_t hits = 0;
  for (size_t i = 0; i + 1 < len;) {
    unsigned h = (unsigned char)t[i] << 8 | (unsigned char)t[i + 1];
    size_t k = x->bucket_head[h], took = 0;
    for (; k != SIZE_MAX; k = x->next[k]) {
      const r_pat *p = &x->v[k];
      if (p->len <= len - i && memcmp(t + i, p->from, p->len) == 0) {
        memcpy(t + i, p->to, p->len);
        took = p->len;
        hits++;
        break;
      }
    }
    i += took ? took : 1;
  }
  return hits;
}

void hs_redaction_free(hs_redaction *x) {
  if (!x) return;
  for (size_t i = 0; i < x->n; i++) {
    free(x->v[i].from);
    free(x->v[i].to);
  }
  free(x->v);
  free(x->bucket_head);
  free(x->next);
  free(x);
}

/* The extension a redacted name keeps: ".xplane.pb", ".trace.json", or a short last one (".txt");
 * never a middle part of the name, which may be a module's (module_0039.jit_fft.sm_8.0_...). */
static const char *safe_ext(const char *name) {
  static const char *const LONG[] = {".xplane.pb", ".trace.json"};
  for (size_t i = 0; i < 2; i++)
    if (strlen(name) > strlen(LONG[i]) && strcmp(name + strlen(name) - strlen(LONG[i]), LONG[i]) == 0) return LONG[i];
  const char *dot = strrchr(name, '.');
  if (!dot || strlen(dot) > 6) return "";
  for (const char *p = dot + 1; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) return "";
  return dot;
}

/* a name replaced by a copy of `name` */
static void rename_to(char **slot, const char *name) {
  free(*slot);
  *slot = hs_report_dupn(name, strlen(name));
}

/* A profile input's programs, op names and sources, as the profile model reads them. */
static void scan_profile_model(hs_redaction *x, const hs_report *r, const r_input *in) {
  hs_profile_input *pi = calloc(in->n, sizeof *pi);
  if (!pi) return;
  for (size_t k = 0; k < in->n; k++) pi[k] = (hs_profile_input){NULL, r->files[in->first + k].data, r->files[in->first + k].len};
  hs_profile *p = hs_profile_parse_files(pi, in->n, NULL);
  free(pi);
  size_t jl = 0;
  char *js = p ? hs_profile_timeline_json(p, NULL, &jl) : NULL;
  hs_profile_free(p);
  json_t *t = js ? json_loadb(js, jl, 0, NULL) : NULL;
  hs_free(js);
  json_t *v;
  size_t k;
  json_array_foreach(json_object_get(t, "programs"), k, v) {
    const char *name = json_string_value(json_object_get(v, "name"));
    if (name) add_pat(x, name, strlen(name), 'm');
  }
  json_array_foreach(json_object_get(t, "rows"), k, v) {
    const char *op = json_string_value(json_object_get(v, "op_name"));
    const char *src = json_string_value(json_object_get(v, "source"));
    const char *slash = op ? strrchr(op, '/') : NULL;
    if (slash) add_pat(x, op, (size_t)(slash - op) + 1, 'p');
    const char *colon = src ? strrchr(src, ':') : NULL;
    if (src) add_pat(x, src, colon ? (size_t)(colon - src) : strlen(src), 'f');
  }
  json_decref(t);
}

json_t *hs_report_redact(hs_report *r, hs_redaction **out) {
  hs_redaction *x = calloc(1, sizeof *x);
  *out = x;
  if (!x) return json_null();
  for (size_t i = 0; i < r->n_files; i++) {
    const r_file *f = &r->files[i];
    scan_modules(x, f->data, f->len);
    scan_quoted(x, f->data, f->len, "source_file=\"", 'f');
    scan_quoted(x, f->data, f->len, "op_name=\"", 'p');
    scan_quoted(x, f->data, f->len, "source_filename = \"", 'f');
    scan_frame_files(x, f->data, f->len);
    scan_locs(x, f->data, f->len);
    /* a profile: an XSpace's protobuf strings, or a trace JSON's string values */
    if (f->format < 0 && f->len && (unsigned char)f->data[0] == 0x0a) scan_proto(x, f->data, f->len);
    else if (f->format < 0) scan_json(x, f->data, f->len);
  }
  for (size_t i = 0; i < r->n_in; i++)
    if (r->in[i].kind == RI_PROFILE && r->in[i].n) scan_profile_model(x, r, &r->in[i]);
  index_patterns(x);
  size_t hits = 0;
  for (size_t i = 0; i < r->n_files; i++) {
    hits += hs_redaction_apply(x, r->files[i].data, r->files[i].len);
    hits += hs_redaction_apply(x, r->files[i].name, strlen(r->files[i].name));
  }
  /* the names the user gave (paths are never kept: base names only) */
  for (size_t i = 0; i < r->n_in; i++) {
    r_input *in = &r->in[i];
    if (in->folder_of != SIZE_MAX) continue; /* named after its folder below */
    char name[64];
    snprintf(name, sizeof name, "input%zu%s", i + 1, in->kind == RI_FOLDER ? "" : safe_ext(in->label));
    rename_to(&in->label, name);
    if (in->kind != RI_PROFILE && in->kind != RI_FOLDER && in->n == 1) rename_to(&r->files[in->first].name, name);
    for (size_t k = 0; in->kind == RI_PROFILE && k < in->n; k++) {
      char fn[80];
      snprintf(fn, sizeof fn, "input%zu_%zu%s", i + 1, k + 1, safe_ext(r->files[in->first + k].name));
      rename_to(&r->files[in->first + k].name, fn);
    }
    if (in->hlo_of != SIZE_MAX) {
      r_input *h = &r->in[in->hlo_of];
      char hn[96];
      snprintf(hn, sizeof hn, "%s.after_optimizations.txt", name);
      rename_to(&h->label, hn);
      rename_to(&r->files[h->first].name, hn);
    }
  }
  json_t *o = json_object();
  json_object_set_new(o, "module_names", json_integer((json_int_t)x->counts[0]));
  json_object_set_new(o, "source_files", json_integer((json_int_t)x->counts[1]));
  json_object_set_new(o, "op_name_prefixes", json_integer((json_int_t)x->counts[2]));
  json_object_set_new(o, "replacements", json_integer((json_int_t)hits));
  json_object_set_new(o, "short_names_left", json_integer((json_int_t)x->short_left));
  return o;
}
