/* The report (`hloscope report`): every input given read by the model that reads it, its headline
 * answers gathered into an overview (JSON and Markdown), the notebook cells a report page opens
 * with, and the bytes it carries, redacted when asked. The page itself is the notebook built by
 * `npm run build` (dist/hloscope.html); hs_report_page puts a payload into it, for the CLI and for
 * the notebook's "Save as page" alike. The hosts compress the files (zlib in the CLI, the
 * browser's CompressionStream) and move bytes; what is said, and which cells open, is here.
 * Redaction (--redact) is redact.c's: it runs first, on the bytes, and what is read afterwards
 * is read from the redacted bytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/report.h"

char *hs_report_dupn(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (!c) return NULL;
  if (n) memcpy(c, s, n);
  c[n] = 0;
  return c;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

hs_report *hs_report_new(void) { return calloc(1, sizeof(hs_report)); }

void hs_report_free(hs_report *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n_files; i++) {
    free(r->files[i].name);
    free(r->files[i].data);
  }
  for (size_t i = 0; i < r->n_in; i++) {
    free(r->in[i].label);
    hs_dumpset_free(r->in[i].set);
  }
  free(r->files);
  free(r->in);
  free(r->title);
  free(r);
}

int hs_report_set_title(hs_report *r, const char *title) {
  if (!r) return HS_E_ARG;
  free(r->title);
  r->title = title ? hs_report_dupn(title, strlen(title)) : NULL;
  return title && !r->title ? HS_E_NOMEM : 0;
}

static int add_file(hs_report *r, const char *name, const char *data, size_t len, int format) {
  if (r->n_files == r->cap_files) {
    size_t nc = r->cap_files ? r->cap_files * 2 : 8;
    r_file *nf = realloc(r->files, nc * sizeof *nf);
    if (!nf) return HS_E_NOMEM;
    r->files = nf;
    r->cap_files = nc;
  }
  r_file *f = &r->files[r->n_files];
  f->name = hs_report_dupn(name, strlen(name));
  f->data = hs_report_dupn(data, len);
  f->len = len;
  f->format = format;
  if (!f->name || !f->data) {
    free(f->name);
    free(f->data);
    return HS_E_NOMEM;
  }
  r->n_files++;
  return 0;
}

static r_input *add_input(hs_report *r, ri_kind kind, const char *label) {
  if (r->n_in == r->cap_in) {
    size_t nc = r->cap_in ? r->cap_in * 2 : 8;
    r_input *ni = realloc(r->in, nc * sizeof *ni);
    if (!ni) return NULL;
    r->in = ni;
    r->cap_in = nc;
  }
  r_input *in = &r->in[r->n_in];
  memset(in, 0, sizeof *in);
  in->kind = kind;
  in->label = hs_report_dupn(label, strlen(label));
  in->first = r->n_files;
  in->hlo_of = in->folder_of = SIZE_MAX;
  if (!in->label) return NULL;
  r->n_in++;
  return in;
}

static int is_profile_bytes(const char *data, size_t len) {
  /* an XSpace starts with field 1 (planes, length-delimited: 0x0a); a trace JSON with '{' */
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (len && (unsigned char)data[0] == 0x0a) return 1;
  if (i < len && data[i] == '{') {
    const char *p = memchr(data + i, '"', len - i < 200 ? len - i : 200);
    if (p && len - (size_t)(p - data) > 12 && (memcmp(p, "\"traceEvents\"", 13) == 0 || memcmp(p, "\"displayTimeUnit\"", 17) == 0))
      return 1;
  }
  return 0;
}

int hs_report_add_file(hs_report *r, const char *name, const char *data, size_t len) {
  if (!r || !name || (!data && len)) return HS_E_ARG;
  const char *b = base_name(name);
  if (is_profile_bytes(data, len)) {
    hs_profile_input one = {b, data, len};
    return hs_report_add_profile(r, b, &one, 1);
  }
  hs_format f = hs_detect_format(data, len);
  if (f == HS_FORMAT_PASS_LISTING) { /* an `ls` of a dump folder: read as the folder's names */
    hs_dumpset *s = hs_dumpset_new();
    if (!s || hs_dumpset_set_label(s, b, strlen(b)) || hs_dumpset_add_listing(s, data, len)) {
      hs_dumpset_free(s);
      return HS_E_NOMEM;
    }
    return hs_report_add_dumpset(r, b, s);
  }
  ri_kind k = f == HS_FORMAT_HLO || f == HS_FORMAT_STABLEHLO || f == HS_FORMAT_JAXPR ? RI_DOC
              : f == HS_FORMAT_MEMORY ? RI_MEMORY
              : f == HS_FORMAT_LLVM   ? RI_LLVM
                                      : RI_UNKNOWN;
  r_input *in = add_input(r, k, b);
  if (!in) return HS_E_NOMEM;
  in->n = 1;
  return add_file(r, b, data, len, (int)f);
}

int hs_report_add_profile(hs_report *r, const char *label, const hs_profile_input *files, size_t n) {
  if (!r || !label || (!files && n)) return HS_E_ARG;
  r_input *in = add_input(r, RI_PROFILE, base_name(label));
  if (!in) return HS_E_NOMEM;
  for (size_t i = 0; i < n; i++) {
    int rc = add_file(r, base_name(files[i].name ? files[i].name : label), files[i].data, files[i].len, -1);
    if (rc) return rc;
    in->n++;
  }
  return 0;
}

int hs_report_add_dumpset(hs_report *r, const char *label, hs_dumpset *s) {
  if (!r || !label || !s) return HS_E_ARG;
  size_t me = r->n_in;
  r_input *in = add_input(r, RI_FOLDER, base_name(label));
  if (!in) {
    hs_dumpset_free(s);
    return HS_E_NOMEM;
  }
  in->set = s;
  size_t hl = 0;
  uint32_t mods = 0;
  char *hlo = hs_dumpset_optimized_hlo(s, &hl, &mods);
  if (hlo) {
    char name[300];
    snprintf(name, sizeof name, "%s.after_optimizations.txt", in->label);
    int rc = hs_report_add_file(r, name, hlo, hl);
    hs_free(hlo);
    if (rc) return rc;
    r->in[me].hlo_of = r->n_in - 1;
    r->in[r->n_in - 1].folder_of = me;
  }
  return 0;
}

/* ---------------------------------------------------------------- the overview */

/* the JSON a core function returned (its length through `n`, read after the call), freed */
static json_t *loads(char *s, const size_t *n) {
  json_t *j = s ? json_loadb(s, *n, 0, NULL) : NULL;
  hs_free(s);
  return j;
}

static const char *str_of(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* a growing Markdown text */
typedef struct {
  char *s;
  size_t n, cap;
} md_buf;

static void md(md_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void md(md_buf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if (b->s && (size_t)w < b->cap - b->n) {
      b->n += (size_t)w;
      return;
    }
    size_t nc = (b->cap ? b->cap * 2 : 4096) + (size_t)w;
    char *ns = realloc(b->s, nc);
    if (!ns) return;
    b->s = ns;
    b->cap = nc;
  }
}

/* Markdown-safe words of a name: inline code without backticks (names are never Markdown) */
static void md_code(md_buf *b, const char *s) {
  md(b, "`");
  for (const char *p = s ? s : ""; *p; p++) md(b, "%c", *p == '`' || *p == '\n' ? '\'' : *p);
  md(b, "`");
}

/* Markdown-safe prose: the core's sentences carry names with '_' and '*' */
static void md_text(md_buf *b, const char *s) {
  for (const char *p = s ? s : ""; *p; p++) {
    if (strchr("\\`*_[]<>#|", *p)) md(b, "\\");
    md(b, "%c", *p == '\n' ? ' ' : *p);
  }
}

static void fmt_ps(double ps, char *buf, size_t cap) {
  if (ps >= 1e12) snprintf(buf, cap, "%.3g s", ps / 1e12);
  else if (ps >= 1e9) snprintf(buf, cap, "%.4g ms", ps / 1e9);
  else if (ps >= 1e6) snprintf(buf, cap, "%.4g µs", ps / 1e6);
  else snprintf(buf, cap, "%.4g ns", ps / 1e3);
}

typedef struct {
  hs_doc *doc;   /* RI_DOC inputs */
  json_t *item;  /* the input's entry in the overview */
  int stage;     /* hs_doc_stage */
} r_parsed;

/* the input's "error": the core's error as hs_error_json gives it, less the offset */
static void set_error(json_t *item, const hs_error *err) {
  json_object_set_new(item, "error", json_pack("{s:s,s:i,s:i,s:s}", "code", hs_code_name(err->code), "line", err->line, "column",
                                               err->col, "message", err->message));
}

static void headline(json_t *item, const char *kind, const char *sentence, json_t *figures) {
  json_t *hs = json_object_get(item, "headlines");
  json_t *h = json_object();
  json_object_set_new(h, "kind", json_string(kind));
  json_object_set_new(h, "sentence", sentence ? hs_json_bytes(sentence, strlen(sentence)) : json_null());
  json_object_set_new(h, "figures", figures ? figures : json_object());
  json_array_append_new(hs, h);
}

static void set_int(json_t *o, const char *k, json_t *from, const char *fk) {
  json_t *v = json_object_get(from, fk);
  json_object_set(o, k, v ? v : json_null());
}

static void read_doc(r_parsed *pp, const r_file *f, json_t *prov) {
  hs_error err;
  pp->doc = hs_parse(f->data, f->len, &err);
  json_t *item = pp->item;
  if (!pp->doc) {
    set_error(item, &err);
    return;
  }
  size_t n;
  json_t *sum = loads(hs_summary_json(pp->doc, &n), &n);
  json_object_set(item, "module", json_object_get(sum, "module") ? json_object_get(sum, "module") : json_null());
  json_object_set(item, "stage", json_object_get(sum, "stage") ? json_object_get(sum, "stage") : json_null());
  json_t *fig = json_object();
  set_int(fig, "lines", sum, "lines");
  set_int(fig, "computations", sum, "computations");
  set_int(fig, "instructions", sum, "instructions");
  pp->stage = hs_doc_stage(pp->doc);
  char s[400];
  long long ni = (long long)json_integer_value(json_object_get(sum, "instructions"));
  long long nc = (long long)json_integer_value(json_object_get(sum, "computations"));
  snprintf(s, sizeof s, "%lld instruction%s in %lld computation%s", ni, ni == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
  headline(item, "summary", s, fig);
  json_decref(sum);
  if (hs_doc_format(pp->doc) != HS_FORMAT_HLO) return;
  json_t *fu = loads(hs_fusions_json(pp->doc, &n), &n);
  json_t *ff = json_object();
  set_int(ff, "fusion_ops", fu, "fusion_ops");
  set_int(ff, "fusion_computations", fu, "fusion_computations");
  long long fo = (long long)json_integer_value(json_object_get(fu, "fusion_ops"));
  long long fc = (long long)json_integer_value(json_object_get(fu, "fusion_computations"));
  snprintf(s, sizeof s, "%lld fusion op%s (%lld fused computation%s)", fo, fo == 1 ? "" : "s", fc, fc == 1 ? "" : "s");
  headline(item, "census", s, ff);
  json_decref(fu);
  json_t *sp = loads(hs_spills_json(pp->doc, &n), &n);
  json_t *tf = json_object();
  set_int(tf, "spill_bytes", sp, "spill_bytes");
  json_t *hbm = json_object_get(sp, "hbm_bytes");
  set_int(tf, "hbm_read_bytes", hbm, "read");
  set_int(tf, "hbm_written_bytes", hbm, "written");
  json_t *big = json_object_get(sp, "big");
  json_object_set_new(tf, "big", big && json_is_object(big) ? json_pack("{s:O?,s:O?,s:O?}", "name", json_object_get(big, "name"), "type",
                                                                         json_object_get(big, "type"), "bytes", json_object_get(big, "bytes"))
                                                             : json_null());
  headline(item, "traffic", str_of(sp, "explanation"), tf);
  json_decref(sp);
  (void)prov;
}

static void read_memory(r_parsed *pp, const r_file *f, json_t *prov) {
  hs_error err;
  size_t n;
  json_t *m = loads(hs_memory_file_json(f->data, f->len, f->name, NULL, &err, &n), &n);
  if (!m) {
    set_error(pp->item, &err);
    return;
  }
  json_t *fig = json_object();
  static const char *const K[] = {"kind", "backend", "requested_bytes", "used_bytes", "capacity_bytes", "exceeded_bytes"};
  for (size_t i = 0; i < sizeof K / sizeof *K; i++) set_int(fig, K[i], m, K[i]);
  const char *be = str_of(m, "backend");
  if (be) json_array_append_new(json_object_get(prov, "backend"), json_pack("{s:s,s:s}", "value", be, "from", f->name));
  headline(pp->item, "memory", str_of(m, "explanation"), fig);
  json_decref(m);
}

/* LLVM IR: its kernels, joined to the report's optimized HLO when it has one (the kernels named
 * after its instructions), and the backend its target triple names. */
static void read_llvm(r_parsed *pp, const r_file *f, const hs_doc *hlo, json_t *prov) {
  hs_error err;
  hs_llvm *m = hs_llvm_parse(f->data, f->len, &err);
  if (!m) {
    set_error(pp->item, &err);
    return;
  }
  size_t n;
  json_t *j = loads(hs_llvm_json(m, hlo, &n), &n);
  hs_llvm_free(m);
  size_t kernels = 0, joined = 0, k;
  json_t *fn;
  json_array_foreach(json_object_get(j, "functions"), k, fn) {
    kernels += json_is_true(json_object_get(fn, "kernel"));
    joined += json_is_string(json_object_get(fn, "hlo"));
  }
  size_t fns = json_array_size(json_object_get(j, "functions"));
  const char *triple = str_of(j, "triple");
  char s[400];
  int w = snprintf(s, sizeof s, "%zu function%s defined, %zu kernel%s", fns, fns == 1 ? "" : "s", kernels, kernels == 1 ? "" : "s");
  if (hlo && w > 0 && (size_t)w < sizeof s)
    w += snprintf(s + w, sizeof s - (size_t)w, "; %zu joined to the optimized HLO's instructions", joined);
  if (triple && w > 0 && (size_t)w < sizeof s) snprintf(s + w, sizeof s - (size_t)w, "; target %s", triple);
  headline(pp->item, "llvm", s, json_pack("{s:I,s:I,s:O?,s:I}", "functions", (json_int_t)fns, "kernels", (json_int_t)kernels,
                                            "triple", json_object_get(j, "triple"), "joined", (json_int_t)joined));
  /* the backend the triple names: x86_64/aarch64 CPU, nvptx64 (CUDA) and amdgcn (ROCm) GPU */
  const char *be = !triple ? NULL : strncmp(triple, "nvptx", 5) == 0 || strncmp(triple, "amdgcn", 6) == 0 ? "gpu"
                   : strncmp(triple, "x86_64", 6) == 0 || strncmp(triple, "aarch64", 7) == 0 ? "cpu" : NULL;
  if (be) json_array_append_new(json_object_get(prov, "backend"), json_pack("{s:s,s:s}", "value", be, "from", f->name));
  json_decref(j);
}

static void read_profile(r_parsed *pp, const hs_report *r, const r_input *in, json_t *prov) {
  hs_profile_input *pi = calloc(in->n ? in->n : 1, sizeof *pi);
  if (!pi) return;
  for (size_t k = 0; k < in->n; k++)
    pi[k] = (hs_profile_input){in->n > 1 ? r->files[in->first + k].name : NULL, r->files[in->first + k].data,
                               r->files[in->first + k].len};
  hs_error err;
  hs_profile *p = hs_profile_parse_files(pi, in->n, &err);
  free(pi);
  if (!p) {
    set_error(pp->item, &err);
    return;
  }
  size_t n;
  json_t *t = loads(hs_profile_timeline_json(p, NULL, &n), &n);
  hs_profile_free(p);
  json_t *fig = json_object();
  json_t *progs = json_array(), *v;
  size_t k;
  json_array_foreach(json_object_get(t, "programs"), k, v) {
    json_array_append_new(progs, json_pack("{s:O?,s:O?,s:O?,s:O?}", "name", json_object_get(v, "name"), "program_id",
                                           json_object_get(v, "program_id"), "runs", json_object_get(v, "runs"), "per_run_ps",
                                           json_object_get(v, "per_run_ps")));
  }
  json_object_set_new(fig, "programs", progs);
  json_t *top = json_array_get(json_object_get(t, "rows"), 0);
  json_object_set_new(fig, "top_op", top ? json_pack("{s:O?,s:O?,s:O?,s:O?}", "name", json_object_get(top, "name"), "program_id",
                                                     json_object_get(top, "program_id"), "per_run_ps", json_object_get(top, "per_run_ps"),
                                                     "share", json_object_get(top, "share"))
                                         : json_null());
  /* the devices the profile names: "/device:TPU:0" says TPU */
  json_t *kinds = json_array();
  json_array_foreach(json_object_get(t, "devices"), k, v) {
    const char *plane = str_of(v, "plane");
    const char *d = plane ? strstr(plane, "/device:") : NULL;
    if (!d) continue;
    d += 8;
    const char *e = strchr(d, ':');
    json_t *w = hs_json_bytes(d, e ? (size_t)(e - d) : strlen(d));
    int seen = 0;
    json_t *u;
    size_t q;
    json_array_foreach(kinds, q, u) seen |= json_equal(u, w);
    if (seen) json_decref(w);
    else json_array_append_new(kinds, w);
  }
  json_object_set_new(fig, "device_count", json_integer((json_int_t)json_array_size(json_object_get(t, "devices"))));
  json_array_foreach(kinds, k, v) json_array_append_new(json_object_get(prov, "backend"), json_pack("{s:O,s:s}", "value", v, "from", in->label));
  json_object_set_new(fig, "device_kinds", kinds);
  headline(pp->item, "time", str_of(t, "reading"), fig);
  json_decref(t);
}

/* The folder as the core reads it (its pipelines, file names and flags), redacted as its files
 * were when `x` is given (the set was read from the bytes as given). */
static void read_folder(r_parsed *pp, r_input *in, json_t *prov, char **passes_out, const hs_redaction *x) {
  hs_error err;
  size_t n;
  char *js = hs_dumpset_json(in->set, &err, &n);
  if (js && x) hs_redaction_apply(x, js, n);
  json_t *ps = js ? json_loadb(js, n, 0, NULL) : NULL;
  if (!ps) {
    hs_free(js);
    set_error(pp->item, &err);
    return;
  }
  if (x) { /* redacted, the folder's label is the input's new name */
    json_object_set_new(ps, "label", json_string(in->label));
    *passes_out = json_dumps(ps, JSON_COMPACT | JSON_PRESERVE_ORDER);
  } else *passes_out = hs_report_dupn(js, n);
  json_object_set_new(pp->item, "files", json_integer((json_int_t)json_array_size(json_object_get(ps, "files"))));
  hs_free(js);
  json_t *m, *mods = json_array();
  size_t k, steps = 0;
  json_array_foreach(json_object_get(ps, "modules"), k, m) {
    json_t *pl = json_array(), *p;
    size_t q;
    json_array_foreach(json_object_get(m, "pipelines"), q, p) {
      const char *name = str_of(p, "name");
      if (name) json_array_append_new(pl, json_string(name));
    }
    steps += json_array_size(json_object_get(m, "steps"));
    json_array_append_new(mods, json_pack("{s:O?,s:O?,s:I,s:o}", "name", json_object_get(m, "name"), "backend", json_object_get(m, "backend"),
                                          "steps", (json_int_t)json_array_size(json_object_get(m, "steps")), "pipelines", pl));
    const char *be = str_of(m, "backend");
    if (be) json_array_append_new(json_object_get(prov, "backend"), json_pack("{s:s,s:s}", "value", be, "from", in->label));
  }
  char s[300];
  snprintf(s, sizeof s, "%zu module%s, %zu pass step%s dumped", json_array_size(mods), json_array_size(mods) == 1 ? "" : "s", steps,
           steps == 1 ? "" : "s");
  headline(pp->item, "pipelines", s, json_pack("{s:o,s:I}", "modules", mods, "steps", (json_int_t)steps));
  json_decref(ps);
  char *es = hs_dumpset_environment_json(in->set, &n);
  if (es && x) hs_redaction_apply(x, es, n);
  json_t *env = loads(es, &n);
  const char *key;
  json_t *val;
  json_object_foreach(env, key, val) {
    json_array_append_new(json_object_get(prov, "xla_flags"), json_pack("{s:s,s:O,s:s}", "flag", key, "value", val, "from", in->label));
  }
  json_decref(env);
}

/* The anchors of cells the overview links to */
static void anchor(char *buf, size_t cap, const char *what, size_t i) { snprintf(buf, cap, "%s-%zu", what, i + 1); }

static json_t *cell(const char *kind, const char *name, const char *text, const char *anchor_id) {
  json_t *c = json_object();
  json_object_set_new(c, "kind", json_string(kind));
  if (name) json_object_set_new(c, "name", json_string(name));
  if (text) json_object_set_new(c, "text", hs_json_bytes(text, strlen(text)));
  if (anchor_id) json_object_set_new(c, "anchor", json_string(anchor_id));
  return c;
}

static const char *kind_words(const r_input *in, const r_file *f, int stage) {
  switch (in->kind) {
  case RI_DOC:
    if (f->format == HS_FORMAT_HLO) {
      const char *st = hs_stage_name(stage);
      return st && strcmp(st, "after_optimizations") == 0 ? "HLO after optimizations" : st ? "HLO before optimizations" : "HLO";
    }
    return hs_format_label((hs_format)f->format);
  case RI_MEMORY: return "XLA memory text";
  case RI_LLVM: return "LLVM IR";
  case RI_PROFILE: return in->n > 1 ? "profile (several files)" : "profile";
  case RI_FOLDER: return "dump folder";
  default: return "unknown format";
  }
}

char *hs_report_json(hs_report *r, int redact, hs_error *err, size_t *len) {
  if (!r || !r->n_in) {
    hs_set_error(err, HS_E_EMPTY, NULL, 0, 0, "nothing to report: give one or more dumps, profiles or messages");
    return NULL;
  }
  hs_redaction *x = NULL;
  json_t *red = redact ? hs_report_redact(r, &x) : json_null();
  json_t *root = json_object(), *items = json_array(), *cells = json_array(), *files = json_array();
  json_t *prov = json_pack("{s:[],s:[],s:[]}", "backend", "xla_flags", "versions");
  r_parsed *pp = calloc(r->n_in, sizeof *pp);
  char **passes = calloc(r->n_in, sizeof *passes);
  char **dump_name = calloc(r->n_in, sizeof *dump_name);
  if (!pp || !passes || !dump_name) {
    free(pp);
    free(passes);
    free(dump_name);
    json_decref(root);
    json_decref(items);
    json_decref(cells);
    json_decref(files);
    json_decref(prov);
    json_decref(red);
    hs_redaction_free(x);
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  size_t n_dumps = 0;
  for (size_t i = 0; i < r->n_in; i++) {
    r_input *in = &r->in[i];
    json_t *item = json_object();
    char a[32];
    anchor(a, sizeof a, "input", i);
    json_object_set_new(item, "index", json_integer((json_int_t)i + 1));
    json_object_set_new(item, "name", hs_json_bytes(in->label, strlen(in->label)));
    json_object_set_new(item, "anchor", json_string(a));
    size_t bytes = 0;
    for (size_t k = 0; k < in->n; k++) bytes += r->files[in->first + k].len;
    json_object_set_new(item, "bytes", json_integer((json_int_t)bytes));
    json_object_set_new(item, "files", json_integer((json_int_t)in->n));
    json_object_set_new(item, "headlines", json_array());
    if (in->folder_of != SIZE_MAX) json_object_set_new(item, "from_folder", json_integer((json_int_t)in->folder_of + 1));
    pp[i].item = item;
    switch (in->kind) {
    case RI_DOC: read_doc(&pp[i], &r->files[in->first], prov); break;
    case RI_MEMORY: read_memory(&pp[i], &r->files[in->first], prov); break;
    case RI_LLVM: break; /* below, once every HLO is read */
    case RI_PROFILE: read_profile(&pp[i], r, in, prov); break;
    case RI_FOLDER: read_folder(&pp[i], in, prov, &passes[i], x); break;
    default: {
      hs_error e;
      hs_set_error(&e, HS_E_FORMAT, NULL, 0, 0, "not a format hloscope reads: carried in the report as it is");
      set_error(item, &e);
    }
    }
    json_object_set_new(item, "what", json_string(kind_words(in, in->n ? &r->files[in->first] : NULL, pp[i].stage)));
    if (in->kind == RI_DOC || in->kind == RI_MEMORY || in->kind == RI_LLVM || in->kind == RI_UNKNOWN) {
      char nm[32];
      snprintf(nm, sizeof nm, "dump%zu", ++n_dumps);
      dump_name[i] = hs_report_dupn(nm, strlen(nm));
      json_object_set_new(item, "cell", json_string(nm));
    }
    json_array_append_new(items, item);
  }

  /* LLVM IR, joined to the last optimized HLO given */
  const hs_doc *opt_hlo = NULL;
  for (size_t i = 0; i < r->n_in; i++) {
    const char *st = hs_stage_name(pp[i].stage);
    if (pp[i].doc && hs_doc_format(pp[i].doc) == HS_FORMAT_HLO && st && strcmp(st, "after_optimizations") == 0) opt_hlo = pp[i].doc;
  }
  for (size_t i = 0; i < r->n_in; i++)
    if (r->in[i].kind == RI_LLVM) read_llvm(&pp[i], &r->files[r->in[i].first], opt_hlo, prov);

  /* pairs: two compiles of one program (optimized HLO, the same module and signature) open on
   * their diff; a StableHLO and the HLO it became on the x-ray */
  json_t *pairs = json_array();
  unsigned char *paired = calloc(r->n_in, 1); /* bit 1: in a diff, bit 2: in an x-ray */
  for (size_t i = 0; paired && i < r->n_in; i++) {
    for (size_t j = i + 1; j < r->n_in; j++) {
      hs_doc *a = pp[i].doc, *b = pp[j].doc;
      if (!a || !b) continue;
      int fa = hs_doc_format(a), fb = hs_doc_format(b);
      const char *sa = hs_stage_name(pp[i].stage), *sb = hs_stage_name(pp[j].stage);
      int opt_a = fa == HS_FORMAT_HLO && sa && strcmp(sa, "after_optimizations") == 0;
      int opt_b = fb == HS_FORMAT_HLO && sb && strcmp(sb, "after_optimizations") == 0;
      const char *view = NULL;
      hs_doc *left = a, *right = b;
      size_t li = i, ri = j;
      if (opt_a && opt_b) view = "diff";
      else if (fa == HS_FORMAT_STABLEHLO && opt_b) view = "xray";
      else if (fb == HS_FORMAT_STABLEHLO && opt_a) view = "xray", left = b, right = a, li = j, ri = i;
      unsigned bit = view && strcmp(view, "diff") == 0 ? 1 : 2;
      if (!view || (paired[i] & bit) || (paired[j] & bit)) continue;
      json_t *pe = hs_pair_json(left, right);
      if (!json_is_true(json_object_get(pe, "same_program"))) {
        json_decref(pe);
        continue;
      }
      json_t *pr = json_object();
      char an[32];
      anchor(an, sizeof an, "pair", json_array_size(pairs));
      paired[i] |= bit;
      paired[j] |= bit;
      json_object_set_new(pr, "view", json_string(view));
      json_object_set_new(pr, "a", json_integer((json_int_t)li + 1));
      json_object_set_new(pr, "b", json_integer((json_int_t)ri + 1));
      json_object_set_new(pr, "anchor", json_string(an));
      json_object_set(pr, "evidence", json_object_get(pe, "evidence"));
      json_decref(pe);
      if (strcmp(view, "diff") == 0) {
        size_t n;
        json_t *d = loads(hs_diff_json(left, right, &n), &n);
        json_object_set(pr, "sentence", json_object_get(d, "verdict") ? json_object_get(d, "verdict") : json_null());
        json_decref(d);
      } else json_object_set_new(pr, "sentence", json_null());
      json_array_append_new(pairs, pr);
    }
  }

  free(paired);
  /* dedupe the provenance's backends (value, from) */
  json_t *backends = json_object_get(prov, "backend"), *uniq = json_array(), *v;
  size_t k;
  json_array_foreach(backends, k, v) {
    int seen = 0;
    json_t *u;
    size_t q;
    json_array_foreach(uniq, q, u) seen |= json_equal(u, v);
    if (!seen) json_array_append(uniq, v);
  }
  json_object_set_new(prov, "backend", uniq);

  /* the Markdown overview */
  md_buf b = {0};
  md(&b, "# hloscope report");
  if (r->title) {
    md(&b, ": ");
    md_text(&b, r->title);
  }
  md(&b, "\n\n%zu input%s", r->n_in, r->n_in == 1 ? "" : "s");
  if (redact)
    md(&b, ". **Redacted**: %lld module names, %lld source file paths and %lld op\\_name prefixes replaced by placeholders of the "
           "same length%s",
       (long long)json_integer_value(json_object_get(red, "module_names")), (long long)json_integer_value(json_object_get(red, "source_files")),
       (long long)json_integer_value(json_object_get(red, "op_name_prefixes")),
       json_integer_value(json_object_get(red, "short_names_left")) ? " (names shorter than 4 characters were left as they are)" : "");
  md(&b, ".\n\n## What was given\n\n");
  json_t *it;
  json_array_foreach(items, k, it) {
    md(&b, "%zu. [", k + 1);
    md_text(&b, str_of(it, "name"));
    long long nf = (long long)json_integer_value(json_object_get(it, "files"));
    if (strcmp(str_of(it, "what"), "dump folder") == 0) md(&b, "](#%s): dump folder, %lld file names", str_of(it, "anchor"), nf);
    else md(&b, "](#%s): %s, %lld bytes", str_of(it, "anchor"), str_of(it, "what"), (long long)json_integer_value(json_object_get(it, "bytes")));
    if (nf > 1 && strcmp(str_of(it, "what"), "dump folder") != 0) md(&b, " in %lld files", nf);
    if (json_object_get(it, "from_folder")) md(&b, " (the folder's optimized HLO)");
    if (str_of(it, "module")) {
      md(&b, ", module ");
      md_code(&b, str_of(it, "module"));
    }
    json_t *e = json_object_get(it, "error");
    if (e) {
      md(&b, ". Not read: ");
      md_text(&b, str_of(e, "message"));
      if (json_integer_value(json_object_get(e, "line")))
        md(&b, " (line %lld, column %lld)", (long long)json_integer_value(json_object_get(e, "line")),
           (long long)json_integer_value(json_object_get(e, "column")));
    }
    md(&b, "\n");
  }
  md(&b, "\n## Provenance\n\n- Backend: ");
  if (!json_array_size(uniq)) md(&b, "unknown (no input says it)");
  json_array_foreach(uniq, k, v) {
    md(&b, "%s%s (", k ? "; " : "", str_of(v, "value"));
    md_text(&b, str_of(v, "from"));
    md(&b, ")");
  }
  md(&b, "\n- XLA flags: ");
  json_t *flags = json_object_get(prov, "xla_flags");
  if (!json_array_size(flags)) md(&b, "none in the inputs (a dump folder of jax 0.5 or later carries them)");
  json_array_foreach(flags, k, v) {
    md(&b, "%s", k ? ", " : "");
    char fl[600];
    snprintf(fl, sizeof fl, "%s=%s", str_of(v, "flag"), json_is_string(json_object_get(v, "value")) ? str_of(v, "value") : "");
    md_code(&b, fl);
  }
  md(&b, "\n- Versions: unknown (none of the inputs prints jax's or XLA's version)\n");
  if (json_array_size(pairs)) md(&b, "\n## Pairs\n\n");
  json_array_foreach(pairs, k, v) {
    const char *view = str_of(v, "view");
    json_t *ia = json_array_get(items, (size_t)json_integer_value(json_object_get(v, "a")) - 1);
    json_t *ib = json_array_get(items, (size_t)json_integer_value(json_object_get(v, "b")) - 1);
    md(&b, "- [%s](#%s) of ", strcmp(view, "diff") == 0 ? "The compile diff" : "The x-ray", str_of(v, "anchor"));
    md_text(&b, str_of(ia, "name"));
    md(&b, strcmp(view, "diff") == 0 ? " (A) and " : " and ");
    md_text(&b, str_of(ib, "name"));
    md(&b, strcmp(view, "diff") == 0 ? " (B): two compiles of one program (" : ": the program XLA received and what it became (");
    json_t *ev;
    size_t q;
    json_array_foreach(json_object_get(v, "evidence"), q, ev) {
      md(&b, "%s", q ? "; " : "");
      md_text(&b, json_string_value(ev));
    }
    md(&b, ")");
    if (str_of(v, "sentence")) {
      md(&b, ". ");
      md_text(&b, str_of(v, "sentence"));
    }
    md(&b, "\n");
  }
  md(&b, "\n## Headlines\n");
  json_array_foreach(items, k, it) {
    md(&b, "\n### %zu. ", k + 1);
    md_text(&b, str_of(it, "name"));
    md(&b, "\n\n");
    json_t *h;
    size_t q;
    json_array_foreach(json_object_get(it, "headlines"), q, h) {
      const char *kind = str_of(h, "kind");
      static const char *const WORDS[][2] = {{"summary", "Size"}, {"census", "Fusion census"}, {"traffic", "Big intermediate and traffic"},
                                             {"memory", "Memory"}, {"time", "Time"}, {"pipelines", "Pipelines"}, {"llvm", "LLVM IR"}};
      const char *w = kind;
      for (size_t z = 0; z < sizeof WORDS / sizeof *WORDS; z++)
        if (strcmp(WORDS[z][0], kind) == 0) w = WORDS[z][1];
      md(&b, "- %s: ", w);
      md_text(&b, str_of(h, "sentence") ? str_of(h, "sentence") : "nothing to say");
      json_t *top = json_object_get(json_object_get(h, "figures"), "top_op");
      if (top && json_is_object(top) && json_real_value(json_object_get(top, "share")) > 0) {
        char t[40];
        fmt_ps((double)json_integer_value(json_object_get(top, "per_run_ps")), t, sizeof t);
        md(&b, " Top op by its own time: ");
        md_code(&b, str_of(top, "name"));
        md(&b, ", %s per run, %.1f%% of the run.", t, 100.0 * json_real_value(json_object_get(top, "share")));
      }
      md(&b, "\n");
    }
    json_t *e = json_object_get(it, "error");
    if (e) {
      md(&b, "- Not read: ");
      md_text(&b, str_of(e, "message"));
      md(&b, " [%s]\n", str_of(e, "code"));
    }
    md(&b, "- [Full view](#%s)\n", str_of(it, "anchor"));
  }
  md(&b, "\n*Made by hloscope %s; every figure above is the core's, as `hloscope <command> --json` prints it.*\n", HS_VERSION);

  /* the cells the page opens with */
  json_array_append_new(cells, cell("markdown", NULL, b.s ? b.s : "", "overview"));
  json_array_foreach(pairs, k, v) {
    char code[200];
    size_t ia = (size_t)json_integer_value(json_object_get(v, "a")) - 1, ib = (size_t)json_integer_value(json_object_get(v, "b")) - 1;
    snprintf(code, sizeof code, "show.%s(%s, %s)", str_of(v, "view"), dump_name[ia], dump_name[ib]);
    json_array_append_new(cells, cell("code", NULL, code, str_of(v, "anchor")));
  }
  for (size_t i = 0; i < r->n_in; i++) {
    r_input *in = &r->in[i];
    const char *an = str_of(pp[i].item, "anchor");
    if (in->kind == RI_PROFILE) {
      json_t *c = cell("profile", in->label, NULL, an);
      json_t *fl = json_array();
      for (size_t q = 0; q < in->n; q++) json_array_append_new(fl, json_integer((json_int_t)(in->first + q)));
      json_object_set_new(c, "files", fl);
      json_array_append_new(cells, c);
    } else if (in->kind == RI_FOLDER) {
      json_array_append_new(cells, cell("folder", in->label, passes[i] ? passes[i] : "", an));
    } else {
      json_t *c = cell("dump", dump_name[i], NULL, an);
      json_object_set_new(c, "file", json_integer((json_int_t)in->first));
      json_array_append_new(cells, c);
      char code[200] = "";
      const char *st = hs_stage_name(pp[i].stage);
      if (pp[i].doc && hs_doc_format(pp[i].doc) == HS_FORMAT_HLO && st && strcmp(st, "after_optimizations") == 0)
        snprintf(code, sizeof code, "show.fusions(%s)", dump_name[i]);
      else if (in->kind == RI_MEMORY) snprintf(code, sizeof code, "show.memory(%s)", dump_name[i]);
      else if (in->kind == RI_LLVM) {
        const char *hlo = "null";
        for (size_t q = 0; q < r->n_in; q++) {
          const char *sq = hs_stage_name(pp[q].stage);
          if (pp[q].doc && hs_doc_format(pp[q].doc) == HS_FORMAT_HLO && sq && strcmp(sq, "after_optimizations") == 0) hlo = dump_name[q];
        }
        snprintf(code, sizeof code, "show.levels(%s, %s)", hlo, dump_name[i]);
      }
      if (code[0]) json_array_append_new(cells, cell("code", NULL, code, NULL));
    }
  }
  for (size_t i = 0; i < r->n_files; i++) {
    const r_file *f = &r->files[i];
    json_array_append_new(files, json_pack("{s:o,s:I,s:s}", "name", hs_json_bytes(f->name, strlen(f->name)), "bytes", (json_int_t)f->len,
                                           "format", f->format < 0 ? "profile" : hs_format_name((hs_format)f->format)));
  }
  json_t *overview = json_object();
  json_object_set_new(overview, "title", r->title ? json_string(r->title) : json_null());
  json_object_set_new(overview, "inputs", items);
  json_object_set_new(overview, "provenance", prov);
  json_object_set_new(overview, "pairs", pairs);
  json_object_set_new(overview, "redacted", red);
  json_object_set_new(root, "format", json_string("hloscope-report"));
  json_object_set_new(root, "version", json_integer(1));
  json_object_set_new(root, "title", r->title ? json_string(r->title) : json_string("hloscope report"));
  json_object_set_new(root, "core", json_string(HS_VERSION));
  json_object_set_new(root, "overview", overview);
  /* the cell the page opens on: two compiles of one program on their diff, a StableHLO and its
   * HLO on the x-ray, else the overview */
  json_t *first_pair = json_array_get(pairs, 0);
  json_object_set_new(root, "open", json_string(first_pair ? str_of(first_pair, "anchor") : "overview"));
  json_object_set_new(root, "markdown", hs_json_bytes(b.s ? b.s : "", b.n));
  json_object_set_new(root, "cells", cells);
  json_object_set_new(root, "files", files);
  free(b.s);
  for (size_t i = 0; i < r->n_in; i++) {
    hs_doc_free(pp[i].doc);
    free(passes[i]);
    free(dump_name[i]);
  }
  free(pp);
  free(passes);
  free(dump_name);
  hs_redaction_free(x);
  return hs_json_finish(root, len);
}

const char *hs_report_file(const hs_report *r, size_t i, size_t *len) {
  if (!r || i >= r->n_files) return NULL;
  if (len) *len = r->files[i].len;
  return r->files[i].data;
}

/* ---------------------------------------------------------------- the page */

#define SLOT "<!--HS:REPORT-->"
#define OPEN "<script type=\"application/json\" id=\"hs-report\">"
#define CLOSE "</script>"

char *hs_report_page(const char *tmpl, size_t tlen, const char *payload, size_t plen, hs_error *err, size_t *len) {
  if (!tmpl || (!payload && plen)) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "no template or payload");
    return NULL;
  }
  /* the slot: the template's own, or the data block of a report page being saved again */
  size_t at = SIZE_MAX, cut = 0;
  for (size_t i = 0; i + sizeof SLOT - 1 <= tlen; i++) {
    if (tmpl[i] == '<' && memcmp(tmpl + i, SLOT, sizeof SLOT - 1) == 0) {
      at = i;
      cut = sizeof SLOT - 1;
      break;
    }
    if (tmpl[i] == '<' && tlen - i >= sizeof OPEN - 1 && memcmp(tmpl + i, OPEN, sizeof OPEN - 1) == 0) {
      size_t e = i + sizeof OPEN - 1;
      while (e + sizeof CLOSE - 1 <= tlen && memcmp(tmpl + e, CLOSE, sizeof CLOSE - 1) != 0) e++;
      if (e + sizeof CLOSE - 1 > tlen) break;
      at = i;
      cut = e + sizeof CLOSE - 1 - i;
      break;
    }
  }
  if (at == SIZE_MAX) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0,
                 "not a report template: no " SLOT " slot (use dist/hloscope.html as `npm run build` writes it)");
    return NULL;
  }
  /* JSON in a script element: '<' written \u003c, so neither "</script" nor "<!--" appears */
  size_t lt = 0;
  for (size_t i = 0; i < plen; i++) lt += payload[i] == '<';
  size_t n = tlen - cut + sizeof OPEN - 1 + plen + lt * 5 + sizeof CLOSE - 1;
  char *out = malloc(n + 1), *o = out;
  if (!out) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  memcpy(o, tmpl, at);
  o += at;
  memcpy(o, OPEN, sizeof OPEN - 1);
  o += sizeof OPEN - 1;
  for (size_t i = 0; i < plen; i++) {
    if (payload[i] == '<') {
      memcpy(o, "\\u003c", 6);
      o += 6;
    } else *o++ = payload[i];
  }
  memcpy(o, CLOSE, sizeof CLOSE - 1);
  o += sizeof CLOSE - 1;
  memcpy(o, tmpl + at + cut, tlen - at - cut);
  o += tlen - at - cut;
  *o = 0;
  if (len) *len = (size_t)(o - out);
  return out;
}
