/* The wasm boundary: thin C exports over the public API, listed in exports.txt (the only
 * symbols the module exports). JS owns the text buffers; every returned string is malloc'd and
 * freed by JS with hsw_free after it has copied the bytes out. The last error and the last
 * result length live here (one wasm instance runs one call at a time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>
#include <jansson.h>

#include "hloscope.h"

static hs_error last_error;
static size_t last_len;
static int last_side;

const char *hsw_version(void) { return HS_VERSION; }

hs_doc *hsw_parse(const char *text, size_t len) {
  last_side = 0;
  return hs_parse(text, len, &last_error);
}

int hsw_doc_format(const hs_doc *d) { return (int)hs_doc_format(d); }

void hsw_doc_free(hs_doc *d) { hs_doc_free(d); }

/* kind: an hs_kind (HS_KIND_MAP; JS reads the ids from hsw_registry_json) */
char *hsw_result(const hs_doc *d, int kind) {
  last_len = 0;
  return hs_kind_json(d, kind, &last_len);
}

size_t hsw_result_len(void) { return last_len; }

/* The fusion census with at most `rows` fusions listed (hs_fusions_json_rows). */
char *hsw_fusions_rows(const hs_doc *d, uint32_t rows) {
  last_len = 0;
  return hs_fusions_json_rows(d, rows, &last_len);
}

/* The census counts alone, without building the per-fusion JSON (cheap, for progress UIs and
 * benchmarks): {"fusion_computations":N,"fusion_ops":N,"fusion_ops_nested":N}. */
char *hsw_census(const hs_doc *d) {
  hs_census c;
  last_len = 0;
  hs_fusion_census(d, &c);
  char *s = malloc(128);
  if (!s) return NULL;
  int n = snprintf(s, 128, "{\"fusion_computations\":%zu,\"fusion_ops\":%zu,\"fusion_ops_nested\":%zu}",
                   c.fusion_computations, c.fusion_ops, c.fusion_ops_nested);
  last_len = n > 0 ? (size_t)n : 0;
  return s;
}

/* The last parse error as JSON, with "side" (0 none, 1 left, 2 right) for xray. */
char *hsw_error_json(void) {
  last_len = 0;
  char *s = hs_error_json(&last_error, &last_len);
  if (s && last_side && last_len > 1) {
    /* splice ,"side":N before the closing brace */
    char *t = realloc(s, last_len + 12);
    if (t) {
      s = t;
      last_len += (size_t)snprintf(s + last_len - 1, 13, ",\"side\":%d}", last_side) - 1;
    }
  }
  return s;
}

/* The compile diff of two parsed documents (hs_diff_json): the JSON `hloscope diff --json` prints. */
char *hsw_diff(const hs_doc *a, const hs_doc *b) {
  last_len = 0;
  return hs_diff_json(a, b, &last_len);
}

/* The same with what else a side brings (hs_diff_json_ex), each part NULL when not given: a
 * profile of each side's runs (the diff's time); a JSON object per side of facts about its
 * compile the text does not carry (the diff's environment). */
char *hsw_diff_ex(const hs_doc *a, const hs_doc *b, const hs_profile *pa, const hs_profile *pb, const char *ea, size_t ea_len,
                  const char *eb, size_t eb_len) {
  last_len = 0;
  hs_diff_extra x;
  memset(&x, 0, sizeof x);
  x.profile_a = pa;
  x.profile_b = pb;
  x.host_env_a = ea, x.host_env_a_len = ea_len;
  x.host_env_b = eb, x.host_env_b_len = eb_len;
  return hs_diff_json_ex(a, b, &x, &last_len);
}

/* A report page: the template (a page `npm run build` wrote, or a report saved before) with the
 * payload JSON put in (hs_report_page): the notebook's "Save as page". */
char *hsw_report_page(const char *t, size_t tn, const char *p, size_t pn) {
  last_len = 0;
  return hs_report_page(t, tn, p, pn, &last_error, &last_len);
}

/* Whether the core reads a dump file's bytes (hs_dumpset_wants_bytes). */
int hsw_dumpset_wants_bytes(const char *name, size_t len) { return hs_dumpset_wants_bytes(name, len); }

/* One side of a two-text call parsed; on failure last_error says why and last_side which text
 * (1 the first, 2 the second). */
static hs_doc *parse_side(const char *t, size_t n, int side) {
  last_side = side;
  return hs_parse(t, n, &last_error);
}

char *hsw_xray(const char *l, size_t ln, const char *r, size_t rn) {
  last_len = 0;
  last_side = 0;
  hs_doc *a = NULL, *b = NULL; /* a blank left side: the x-ray of the optimized HLO alone */
  if ((!hs_is_blank(l, ln) && !(a = parse_side(l, ln, 1))) || !(b = parse_side(r, rn, 2))) {
    hs_doc_free(a);
    return NULL;
  }
  last_side = 0;
  char *s = hs_xray_json(a, b, &last_len);
  hs_doc_free(a);
  hs_doc_free(b);
  return s;
}

/* Profiles: JS writes the bytes (.xplane.pb, or trace JSON already gunzipped) into wasm memory
 * and may free them as soon as this returns: the profile copies what it keeps. */
hs_profile *hsw_profile_parse(const void *data, size_t len) {
  last_side = 0;
  return hs_profile_parse(data, len, &last_error);
}

/* A profile read by range (hs_profile_parse_source): the bytes come from JS, which holds the
 * file (a File in the page's worker, read by slices with FileReaderSync; an fd in Node), through
 * Module.hsRead(offset, dst, length) -> 0 or nonzero; progress goes to Module.hsProgress. Set by
 * parseProfileSource in hloscope.mjs around this one call. Offsets cross as doubles (exact below
 * 2^53; the core refuses inputs above 4 GiB). */
EM_JS(int, hsw_js_read, (double off, void *dst, size_t len), {
  return Module.hsRead ? Module.hsRead(off, dst >>> 0, len >>> 0) : 1;
});
EM_JS(void, hsw_js_progress, (const char *stage, double done, double total), {
  if (Module.hsProgress) Module.hsProgress(UTF8ToString(stage), done, total);
});
static int js_read(void *ctx, uint64_t off, void *dst, size_t len) {
  (void)ctx;
  return hsw_js_read((double)off, dst, len);
}
static void js_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
  (void)ctx;
  hsw_js_progress(stage, (double)done, (double)total);
}
hs_profile *hsw_profile_parse_source(double size, size_t window, const char *name) {
  last_side = 0;
  hs_profile_source src = {.name = name, .size = size < 0 ? 0 : (uint64_t)size, .window = window,
                           .read = js_read, .progress = js_progress, .ctx = NULL};
  return hs_profile_parse_source(&src, &last_error);
}

/* Several files read as one profile (a multi-process job's .xplane.pb files): `in` holds n
 * records {name, data, len} (three 32-bit words each) that JS wrote, each name NUL-terminated;
 * JS may free them all once this returns. */
hs_profile *hsw_profile_parse_files(const hs_profile_input *in, size_t n) {
  last_side = 0;
  return hs_profile_parse_files(in, n, &last_error);
}

char *hsw_profile_json(const hs_profile *p) {
  last_len = 0;
  return hs_profile_json(p, &last_len);
}

void hsw_profile_free(hs_profile *p) { hs_profile_free(p); }

void hsw_free(void *p) { free(p); }

/* ---- dump folders ---------------------------------------------------------------------------- */
hs_dumpset *hsw_dumpset_new(void) { return hs_dumpset_new(); }
void hsw_dumpset_free(hs_dumpset *s) { hs_dumpset_free(s); }
int hsw_dumpset_set_label(hs_dumpset *s, const char *label, size_t len) { return hs_dumpset_set_label(s, label, len); }
/* data 0: the name alone */
int hsw_dumpset_add(hs_dumpset *s, const char *name, size_t nlen, const char *data, size_t len) {
  return hs_dumpset_add(s, name, nlen, data, len);
}
int hsw_dumpset_add_listing(hs_dumpset *s, const char *text, size_t len) { return hs_dumpset_add_listing(s, text, len); }
char *hsw_dumpset_json(hs_dumpset *s) {
  last_len = 0;
  last_side = 0;
  char *r = hs_dumpset_json(s, &last_error, &last_len);
  if (!r && !last_error.code) last_error.code = HS_E_NOMEM;
  return r;
}
char *hsw_dumpset_compare(hs_dumpset *a, hs_dumpset *b) {
  last_len = 0;
  last_side = 0;
  char *r = hs_dumpset_compare_json(a, b, &last_error, &last_len);
  if (!r && !last_error.code) last_error.code = HS_E_NOMEM;
  return r;
}

/* ---- archives of dump folders (the core walks them: hs_archive_walk) -------------------------
 * Inflating is the page's (DecompressionStream, async), so a walk runs in rounds: the stash holds
 * the archive and every stream inflated so far; a stream the walk asks for and the stash lacks is
 * added as pending and answered HS_INFLATE_LATER; JS inflates the pending ones (hsw_stash_*),
 * hands them back and walks again. A stream is named by where it lies, (buffer, offset, length,
 * method), buffer 0 being the archive and k the k-th stream inflated, so the same stash can be
 * written again into fresh memory and walked for a dump set (hsw_dumpset_add_archive). */
int hsw_archive_kind(const void *bytes, size_t len) { return hs_archive_kind(bytes, len); }

typedef struct {
  uint32_t buf, off, n;
  int method, state; /* 0 pending, 1 inflated, 2 did not inflate */
  unsigned char *out;
  uint32_t out_len;
} stash_item;

typedef struct {
  const unsigned char *archive;
  size_t len;
  stash_item *items;
  uint32_t n, cap;
  json_t *files, *warnings; /* what a listing walk reported */
} hsw_stash;

hsw_stash *hsw_stash_new(void) { return calloc(1, sizeof(hsw_stash)); }
void hsw_stash_free(hsw_stash *st) {
  if (!st) return;
  for (uint32_t i = 0; i < st->n; i++) free(st->items[i].out);
  free(st->items);
  json_decref(st->files);
  json_decref(st->warnings);
  free(st);
}
/* Adds a stream (JS replays what it inflated before, in order); `out` is malloc'd, the stash's
 * from now on; failed: it did not inflate. Returns its index, or -1. */
int hsw_stash_add(hsw_stash *st, uint32_t buf, uint32_t off, uint32_t n, int method, unsigned char *out, uint32_t out_len, int failed) {
  if (st->n == st->cap) {
    uint32_t cap = st->cap ? st->cap * 2 : 16;
    stash_item *ni = realloc(st->items, cap * sizeof *ni);
    if (!ni) return -1;
    st->items = ni;
    st->cap = cap;
  }
  st->items[st->n] = (stash_item){buf, off, n, method, failed ? 2 : out ? 1 : 0, out, out_len};
  return (int)st->n++;
}
uint32_t hsw_stash_count(const hsw_stash *st) { return st->n; }
/* item i as four words for JS: buf, off, n, method (state in hsw_stash_state) */
uint32_t hsw_stash_word(const hsw_stash *st, uint32_t i, int w) {
  const stash_item *it = &st->items[i];
  return w == 0 ? it->buf : w == 1 ? it->off : w == 2 ? it->n : (uint32_t)it->method;
}
int hsw_stash_state(const hsw_stash *st, uint32_t i) { return st->items[i].state; }

/* where a pointer lies: (buffer, offset); 0 when in none */
static int locate(const hsw_stash *st, const unsigned char *p, size_t n, uint32_t *buf, uint32_t *off) {
  if (p >= st->archive && p + n <= st->archive + st->len) {
    *buf = 0;
    *off = (uint32_t)(p - st->archive);
    return 1;
  }
  for (uint32_t i = 0; i < st->n; i++) {
    const stash_item *it = &st->items[i];
    if (it->out && p >= it->out && p + n <= it->out + it->out_len) {
      *buf = i + 1;
      *off = (uint32_t)(p - it->out);
      return 1;
    }
  }
  return 0;
}

static int stash_inflate(void *ctx, int method, const unsigned char *in, size_t n, size_t hint, const unsigned char **out, size_t *out_len) {
  hsw_stash *st = ctx;
  uint32_t buf, off;
  if (!locate(st, in, n, &buf, &off)) return HS_E_ARG;
  for (uint32_t i = 0; i < st->n; i++) {
    const stash_item *it = &st->items[i];
    if (it->buf != buf || it->off != off || it->n != n || it->method != method) continue;
    if (it->state == 0) return HS_INFLATE_LATER;
    if (it->state == 2) return HS_E_FORMAT;
    *out = it->out ? it->out : (const unsigned char *)"";
    *out_len = it->out_len;
    return 0;
  }
  return hsw_stash_add(st, buf, off, (uint32_t)n, method, NULL, 0, 0) < 0 ? HS_E_NOMEM : HS_INFLATE_LATER;
}

static int stash_file(void *ctx, const char *name, size_t nl, const unsigned char *data, size_t len) {
  hsw_stash *st = ctx;
  json_t *e = json_array();
  json_t *js = json_stringn(name, nl);
  if (!js) { /* not UTF-8: shown with '?' (the dump set reads the archive itself, bytes and all) */
    char *c = malloc(nl + 1);
    if (!c) return HS_E_NOMEM;
    for (size_t i = 0; i < nl; i++) c[i] = (unsigned char)name[i] < 0x80 && name[i] ? name[i] : '?';
    js = json_stringn(c, nl);
    free(c);
  }
  json_array_append_new(e, js);
  uint32_t buf, off;
  if (data && locate(st, data, len, &buf, &off)) {
    json_array_append_new(e, json_integer(buf));
    json_array_append_new(e, json_integer(off));
    json_array_append_new(e, json_integer((json_int_t)len));
  } else if (data) { /* an empty member: no bytes to point at */
    json_array_append_new(e, json_integer(0));
    json_array_append_new(e, json_integer(0));
    json_array_append_new(e, json_integer(0));
  }
  return json_array_append_new(st->files, e) ? HS_E_NOMEM : 0;
}

static void stash_warn(void *ctx, int code, const char *message) {
  hsw_stash *st = ctx;
  json_t *w = json_object();
  json_object_set_new(w, "code", json_string(hs_code_name(code)));
  json_object_set_new(w, "line", json_integer(0));
  json_object_set_new(w, "column", json_integer(0));
  json_object_set_new(w, "message", json_string(message));
  json_array_append_new(st->warnings, w);
}

/* One listing walk of the archive at (bytes, len): NULL on an error (hsw_error_json), else
 * {"later": true} when some stream is pending (the stash lists it), else
 * {"later": false, "files": [[name, buf, off, len] | [name]], "warnings": [...]}. */
char *hsw_archive_list(hsw_stash *st, const unsigned char *bytes, size_t len) {
  last_len = 0;
  last_side = 0;
  st->archive = bytes;
  st->len = len;
  json_decref(st->files);
  json_decref(st->warnings);
  st->files = json_array();
  st->warnings = json_array();
  hs_archive_host host = {.inflate = stash_inflate, .file = stash_file, .warn = stash_warn, .ctx = st};
  int rc = hs_archive_walk(bytes, len, &host, &last_error);
  if (rc < 0) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "later", json_boolean(rc == HS_INFLATE_LATER));
  if (rc != HS_INFLATE_LATER) {
    json_object_set(o, "files", st->files);
    json_object_set(o, "warnings", st->warnings);
  }
  char *out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!out) last_error.code = HS_E_NOMEM;
  last_len = out ? strlen(out) : 0;
  return out;
}

/* The archive into a dump set, every stream already in the stash: 0, or a negative code
 * (hsw_error_json); HS_INFLATE_LATER (1) when the stash lacks one. */
int hsw_dumpset_add_archive(hs_dumpset *s, hsw_stash *st, const unsigned char *bytes, size_t len) {
  last_side = 0;
  st->archive = bytes;
  st->len = len;
  return hs_dumpset_add_archive(s, bytes, len, stash_inflate, st, &last_error);
}

/* Which files of a dump folder go together (names: one a line); see hloscope.h. */
long hsw_dumpset_sibling_hlo(const char *names, size_t len, const char *report, size_t rlen) {
  return hs_dumpset_sibling_hlo(names, len, report, rlen);
}
long hsw_dumpset_hlo_for_ll(const char *names, size_t len, const char *ll, size_t llen) {
  uint32_t count = 0;
  long i = hs_dumpset_hlo_for_ll(names, len, ll, llen, &count);
  return i; /* several: the first by name (the CLI refuses to guess; a view shows the first) */
}
char *hsw_dumpset_levels(const char *names, size_t len) {
  last_len = 0;
  return hs_dumpset_levels_json(names, len, &last_len);
}

/* Memory texts and layouts (layout.c, memory.c, buffers.c): no document is kept. */
/* `hlo` (may be empty) is the module's optimized HLO: allocations and values are joined to its
 * instructions; an HLO that does not parse is only not joined. */
/* `name` (may be empty) is the file's name: a buffer assignment takes its backend from it. */
char *hsw_memory(const char *text, size_t len, const char *hlo, size_t hlo_len, const char *name, size_t name_len) {
  last_len = 0;
  last_side = 0;
  char nm[1024];
  size_t nl = name && name_len < sizeof nm ? name_len : 0;
  if (nl) memcpy(nm, name, nl);
  nm[nl] = 0;
  return hs_memory_read_json(text, len, nl ? nm : NULL, hlo, hlo_len, &last_error, &last_len);
}

char *hsw_layout(const char *text, size_t len) {
  last_len = 0;
  last_side = 0;
  return hs_layout_json(text, len, &last_error, &last_len);
}

char *hsw_layouts(const hs_doc *d) {
  last_len = 0;
  return hs_layouts_json(d, &last_len);
}

/* The timeline of a profile. `hlo` / `stablehlo` (may be empty) are dump texts in wasm memory,
 * parsed here and freed before returning; `program` (may be NULL or "") keeps one program.
 * NULL with the last error set when a dump does not parse (its message says which). */
static hs_doc *timeline_doc(const char *t, size_t n, const char *what) {
  if (!t || !n) return NULL;
  hs_doc *d = hs_parse(t, n, &last_error);
  if (!d) {
    char m[sizeof last_error.message];
    snprintf(m, sizeof m, "the %s: %s", what, last_error.message);
    memcpy(last_error.message, m, sizeof m);
  }
  return d;
}

char *hsw_profile_timeline(const hs_profile *p, const char *hlo, size_t hlo_len, const char *shlo, size_t shlo_len,
                           const char *program) {
  last_len = 0;
  last_side = 0;
  hs_doc *h = timeline_doc(hlo, hlo_len, "optimized HLO dump");
  if (hlo_len && !h) return NULL;
  hs_doc *s = timeline_doc(shlo, shlo_len, "StableHLO");
  if (shlo_len && !s) {
    hs_doc_free(h);
    return NULL;
  }
  hs_timeline_options o = {h, s, program};
  char *out = hs_profile_timeline_json(p, &o, &last_len);
  if (!out) {
    memset(&last_error, 0, sizeof last_error);
    last_error.code = HS_E_NOMEM;
    snprintf(last_error.message, sizeof last_error.message, "out of memory building the timeline");
  }
  hs_doc_free(h);
  hs_doc_free(s);
  return out;
}

/* The registry (formats, result kinds, codes) as JSON, read once by wasm/hloscope.mjs at load():
 * malloc'd like every result (length in hsw_result_len, free with hsw_free). */
char *hsw_registry_json(void) {
  last_len = 0;
  return hs_registry_json(&last_len);
}

/* The format of a text (an hs_format id: the registry's formats[id]). */
int hsw_detect(const char *text, size_t len) { return (int)hs_detect_format(text, len); }

/* LLVM IR (issue 15): one call reads the .ll text, and the optimized HLO when hn > 0 (to join
 * kernels to fusions), returns the JSON and frees both models. On an error the last error's
 * side says which text: 1 the LLVM IR, 2 the HLO. */
char *hsw_llvm(const char *t, size_t n, const char *h, size_t hn) {
  last_len = 0;
  last_side = 1;
  hs_llvm *m = hs_llvm_parse(t, n, &last_error);
  if (!m) return NULL;
  hs_doc *d = NULL;
  char *s = NULL;
  if (!hn || (d = parse_side(h, hn, 2))) { /* else last_error and last_side say the HLO failed */
    last_side = 0;
    s = hs_llvm_json(m, d, &last_len);
  }
  hs_doc_free(d);
  hs_llvm_free(m);
  return s;
}

/* A counted string as a C string (the text readers take lengths; hs_text's names are C strings). */
static char *cstr(const char *s, size_t n) {
  if (!s) return NULL;
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

/* The human text of a result (hs_text): kind, the result's JSON, the inputs' names and, for the
 * x-ray, the two texts; each may be a null pointer with length 0. */
char *hsw_text(const char *kind, size_t kind_len, const char *json, size_t json_len, const char *path, size_t path_len,
               const char *path_b, size_t path_b_len, const char *text, size_t len, const char *text_b, size_t len_b) {
  last_len = 0;
  last_side = 0;
  char *k = cstr(kind, kind_len), *p = cstr(path, path_len), *pb = cstr(path_b, path_b_len);
  hs_text_input in;
  memset(&in, 0, sizeof in);
  in.path = p, in.path_b = pb, in.text = text, in.len = len, in.text_b = text_b, in.len_b = len_b;
  char *out = k ? hs_text(k, json, json_len, &in, &last_len) : NULL;
  if (!out) {
    memset(&last_error, 0, sizeof last_error);
    last_error.code = k && !hs_text_has(k) ? HS_E_ARG : HS_E_NOMEM;
    snprintf(last_error.message, sizeof last_error.message, "%s",
             last_error.code == HS_E_ARG ? "no text for this result kind" : "out of memory, or the result is not JSON");
  }
  free(k);
  free(p);
  free(pb);
  return out;
}

/* ---- joins to a document already parsed (the parse-once forms) --------------------------------
 * A page that reads several texts against one optimized HLO (the levels view: one .ll per kernel
 * part, two levels) parses the HLO once into a document (hsw_parse) and hands the handle here,
 * where hsw_llvm and hsw_memory parse the HLO text again on every call. The document is borrowed:
 * the caller frees it. */

/* LLVM IR joined to `d` (may be NULL: not joined). On an error the last error's side is 1 (the LLVM IR). */
char *hsw_llvm_doc(const char *t, size_t n, const hs_doc *d) {
  last_len = 0;
  last_side = 1;
  hs_llvm *m = hs_llvm_parse(t, n, &last_error);
  if (!m) return NULL;
  last_side = 0;
  char *s = hs_llvm_json(m, d, &last_len);
  hs_llvm_free(m);
  return s;
}

/* A memory text joined to `d` (may be NULL: not joined); `name` as in hsw_memory. */
char *hsw_memory_doc(const char *text, size_t len, const hs_doc *d, const char *name, size_t name_len) {
  last_len = 0;
  last_side = 0;
  char *nm = name && name_len ? cstr(name, name_len) : NULL;
  char *s = hs_memory_file_json(text, len, nm, d, &last_error, &last_len);
  free(nm);
  return s;
}
