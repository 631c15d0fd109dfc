/* Dump folders (XLA_FLAGS=--xla_dump_to=DIR [--xla_dump_hlo_pass_re=.*]): the file names a
 * folder holds, classified; per module the numbered pass steps, the pipelines with their passes
 * and reruns, the layout watershed; per step (when the file's bytes are given) the counts of the
 * HLO it holds and the diff from the step before; two folders compared pass by pass.
 *
 * Pure: the caller hands (name, bytes-or-NULL) pairs (or a pasted `ls` listing, or an archive's
 * bytes: archive.c walks it, with the caller's inflate); walking a directory is the caller's
 * business (core/cli, the page), in any order: hs_dumpset_json sorts the files by name.
 *
 * The names, as XLA writes them (xla/service/dump.cc; seen in ../shared/captures/pass-names/):
 *   module_NNNN.<module name>.[cl_<build id>.]<suffix>
 *     <suffix> = NNNN.<pipeline>.after_<pass>[.before_<pass>].txt    a pass step
 *              | before_optimizations.txt | [<backend>_]after_optimizations.txt | ...
 *   <backend> = cpu | sm_8.0_gpu | gfx90a_gpu | (TPU: none; newer TPU builds put cl_<id> first).
 * The module name may hold dots (torch_xla's "SyncTensorsGraph.636"), and per-kernel files put a
 * kernel name between the module name and the suffix, so a module's name is taken from the
 * files whose suffix is fixed, and the other files of that module are read against it.
 *
 * This file classifies the names and counts each step's HLO; dumpset_json.c builds the modules
 * and writes the JSON; dumpset_model.h holds the kinds and the set. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "dumpset/dumpset.h"

/* ---- file kinds (the map: dumpset_model.h) --------------------------------------------------- */
/* Each kind's pattern, read against the name after its module prefix. */
static const char *const kind_patterns[] = {
#define DS_X_(id, name, pat, hint) pat,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};
/* Kinds whose suffix is fixed: the text before it is the module name (plus a cl_ segment). */
static bool kind_fixes_name(int k) { return k >= DS_BEFORE_OPT && k <= DS_THUNK_SEQUENCE; }
static bool is_tail_kind(int k) { return k > DS_THUNK_SEQUENCE && k < DS_MODULE_FOLDER; }

/* ---- the set ---------------------------------------------------------------------------- */
/* Length of the valid UTF-8 sequence at s[0..n) (jansson's rules: no overlongs, surrogates or
 * code points past U+10FFFF), or 0. NUL counts as invalid (names are C strings here). */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c >= 0x01 && c < 0x80) return 1;
  size_t k = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!k || k > n) return 0;
  for (size_t i = 1; i < k; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && s[1] < 0xA0) return 0;
  if (c == 0xED && s[1] >= 0xA0) return 0;
  if (c == 0xF0 && s[1] < 0x90) return 0;
  if (c == 0xF4 && s[1] >= 0x90) return 0;
  return k;
}

/* A copy with every byte that is not valid UTF-8 replaced by '?': names and opcodes become JSON
 * strings and object keys, which must be UTF-8. */
static char *dup_utf8(const char *s, size_t n) {
  char *p = dup_n(s, n);
  if (!p) return NULL;
  for (size_t i = 0; i < n;) {
    size_t k = utf8_len((const unsigned char *)p + i, n - i);
    if (k) i += k;
    else p[i++] = '?';
  }
  return p;
}

static pcre2_code *compile(const char *pat) {
  int e;
  PCRE2_SIZE off;
  return pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &e, &off, NULL);
}

/* The literal text a pattern's matches end with: the pattern's tail before '$', unescaped,
 * back to the first regex syntax ("^(?:...)?before_x\\.txt$" -> "before_x.txt"). A cheap test
 * that spares the regex most names. */
static size_t literal_ending(const char *pat, char *out, size_t cap) {
  size_t n = strlen(pat);
  if (!n || pat[n - 1] != '$') return 0;
  char rev[64];
  size_t k = 0;
  for (size_t i = n - 1; i-- > 0 && k < sizeof rev;) {
    char c = pat[i];
    if (i > 0 && pat[i - 1] == '\\' && (c == '.' || c == '-')) {
      rev[k++] = c;
      i--;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      rev[k++] = c;
    } else {
      break;
    }
  }
  if (k >= cap) k = cap - 1;
  for (size_t j = 0; j < k; j++) out[j] = rev[k - 1 - j];
  out[k] = 0;
  return k;
}

hs_dumpset *hs_dumpset_new(void) {
  hs_dumpset *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->diag.per_code = HS_DIAG_NO_LIMIT;
  s->diag.total = 200;
  s->re_module = compile("^module_(\\d+)\\.(.+)$");
  /* name [cl_N] NNNN pipeline after_X [before_Y] .txt; pipeline and pass names hold no dots */
  s->re_step = compile("^(.+?)\\.(?:(cl_\\d+)\\.)?(\\d{4,})\\.([^.]+)\\.after_([^.]+?)(?:\\.before_([^.]+))?\\.txt$");
  s->md = pcre2_match_data_create(16, NULL);
  bool ok = s->re_module && s->re_step && s->md;
  for (int k = 0; k < DS_NKINDS; k++) /* the patterns themselves compile on first use (kind_re) */
    if (kind_patterns[k]) s->ending_len[k] = (uint8_t)literal_ending(kind_patterns[k], s->ending[k], sizeof s->ending[k]);
  if (!ok) {
    hs_dumpset_free(s);
    return NULL;
  }
  return s;
}

static void counts_free(ds_counts *c) {
  for (uint32_t i = 0; i < c->n_ops; i++) free(c->ops[i].op);
  free(c->ops);
  for (uint32_t i = 0; i < c->n_fusions; i++) free(c->fusions[i]);
  free(c->fusions);
  free(c->error);
}

void hs_dumpset_free(hs_dumpset *s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->n; i++) {
    ds_file *f = &s->files[i];
    free(f->name);
    free(f->rest);
    free(f->name_guess);
    free(f->segment);
    free(f->backend_pre);
    free(f->pipeline);
    free(f->after);
    free(f->before);
    free(f->text);
    counts_free(&f->counts);
  }
  free(s->files);
  free(s->label);
  hs_diag_free(&s->diag);
  hs_arena_free(&s->arena);
  pcre2_code_free(s->re_module);
  pcre2_code_free(s->re_step);
  for (int k = 0; k < DS_NKINDS; k++) pcre2_code_free(s->re_kind[k]);
  pcre2_match_data_free(s->md);
  free(s);
}

int hs_dumpset_set_label(hs_dumpset *s, const char *label, size_t len) {
  if (!s) return HS_E_ARG;
  free(s->label);
  s->label = dup_utf8(label ? label : "", label ? len : 0);
  return s->label ? 0 : HS_E_NOMEM;
}

static bool match(hs_dumpset *s, pcre2_code *re, const char *t, size_t n) {
  return re && pcre2_match(re, (PCRE2_SPTR)t, n, 0, 0, s->md, NULL) >= 0;
}
/* Kind k's pattern, compiled on first use: the literal ending spares the regex most names, so
 * most sets need few of the patterns (NULL, no match, when out of memory). */
static pcre2_code *kind_re(hs_dumpset *s, int k) {
  if (!s->re_kind[k] && kind_patterns[k]) s->re_kind[k] = compile(kind_patterns[k]);
  return s->re_kind[k];
}
/* Capture group g of the last match, copied; NULL when the group did not take part. */
static char *group(hs_dumpset *s, const char *t, int g) {
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
  if (ov[2 * g] == PCRE2_UNSET) return NULL;
  return dup_n(t + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

/* Classifies f->name into f's fields. */
static void classify(hs_dumpset *s, ds_file *f) {
  const char *nm = f->name;
  size_t n = strlen(nm);
  f->module_id = -1;
  f->step = -1;
  f->kind = DS_UNKNOWN;
  if (n > 4096) return; /* no file system allows it; keeps the patterns' work bounded */
  /* people commit gzipped dumps: module_x.after_optimizations.txt.gz is named as without ".gz" */
  if (n > 3 && memcmp(nm + n - 3, ".gz", 3) == 0) n -= 3;
  const char *rest = nm;
  size_t rn = n;
  if (match(s, s->re_module, nm, n)) {
    char *id = group(s, nm, 1);
    f->module_id = id ? strtol(id, NULL, 10) : -1;
    free(id);
    f->rest = group(s, nm, 2);
    if (!f->rest) return;
    rest = f->rest;
    rn = strlen(rest);
    /* newer XLA: a folder per module, module_NNNN.<name>/{module.mlir,compile_options.textproto,...} */
    const char *slash = strchr(rest, '/');
    if (slash) {
      f->name_guess = dup_n(rest, (size_t)(slash - rest));
      const char *tail = slash + 1;
      f->kind = !strcmp(tail, "module.mlir")                 ? DS_MODULE_MLIR
                : !strcmp(tail, "compile_options.textproto") ? DS_COMPILE_OPTIONS
                : !strcmp(tail, "topology.textproto")        ? DS_TOPOLOGY
                : strstr(tail, ".textproto") || strstr(tail, ".pbtxt") ? DS_PROTO_TEXT
                : strstr(tail, ".mlir")                      ? DS_MLIR
                                                             : DS_UNKNOWN;
      return;
    }
    if (!strchr(rest, '.')) { /* `ls` shows the module folder itself */
      f->kind = DS_MODULE_FOLDER;
      f->name_guess = dup_n(rest, rn);
      return;
    }
    if (match(s, s->re_step, rest, rn)) {
      f->kind = DS_STEP;
      f->name_guess = group(s, rest, 1);
      f->segment = group(s, rest, 2);
      char *num = group(s, rest, 3);
      f->step = num ? strtol(num, NULL, 10) : -1;
      free(num);
      f->pipeline = group(s, rest, 4);
      f->after = group(s, rest, 5);
      f->before = group(s, rest, 6);
      return;
    }
  }
  /* Module-level files: try each tail pattern on every dot-separated tail of the rest, from the
   * longest, so that a fixed suffix reads the module name off what comes before it. */
  bool maybe[DS_NKINDS], any = false;
  for (int k = DS_BEFORE_OPT; k < DS_UNKNOWN; k++) {
    size_t el = s->ending_len[k];
    maybe[k] = kind_fixes_name(k) && rn >= el && memcmp(rest + rn - el, s->ending[k], el) == 0;
    any = any || maybe[k];
  }
  for (size_t p = 0; any && p <= rn; p++) {
    if (p && rest[p - 1] != '.') continue;
    const char *tail = rest + p;
    size_t tn = rn - p;
    for (int k = DS_BEFORE_OPT; k < DS_UNKNOWN; k++) {
      if (!maybe[k] || tn < s->ending_len[k]) continue;
      if (!match(s, kind_re(s, k), tail, tn)) continue;
      if (f->module_id < 0 || p == 0) break; /* a fixed suffix needs a module name before it */
      f->kind = k;
      if (k == DS_BUFFER_ASSIGNMENT || k == DS_MEMORY_REPORT || k == DS_AFTER_OPT) f->backend_pre = group(s, tail, 1);
      size_t end = p - 1; /* the dot before the tail */
      /* a cl_<id> segment just before the suffix */
      size_t q = end;
      while (q > 0 && rest[q - 1] != '.') q--;
      if (q > 0 && end - q > 3 && memcmp(rest + q, "cl_", 3) == 0) {
        bool digits = true;
        for (size_t i = q + 3; i < end; i++) digits = digits && rest[i] >= '0' && rest[i] <= '9';
        if (digits) {
          f->segment = dup_n(rest + q, end - q);
          end = q - 1;
        }
      }
      f->name_guess = dup_n(rest, end);
      return;
    }
  }
  for (int k = DS_BEFORE_OPT; k < DS_UNKNOWN; k++) {
    if (!is_tail_kind(k) || !kind_patterns[k]) continue;
    size_t el = s->ending_len[k];
    if (rn < el || memcmp(rest + rn - el, s->ending[k], el) != 0) continue;
    if (match(s, kind_re(s, k), rest, rn)) {
      f->kind = k;
      return;
    }
  }
}

/* ---- counts from the HLO text of a step --------------------------------------------------- */
static int cmp_op(const void *a, const void *b) { return strcmp(((const ds_opcount *)a)->op, ((const ds_opcount *)b)->op); }
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int count_doc(ds_counts *c, const char *data, size_t len) {
  hs_error err;
  if (hs_doc_detect(data, len, NULL) != HS_FORMAT_HLO) { /* a step's file holds HLO, or it is not read */
    const char *m = hs_is_blank(data, len) ? "empty" : "not HLO text";
    c->error = dup_n(m, strlen(m));
    return 0;
  }
  hs_doc *d = hs_parse_as(data, len, HS_FORMAT_HLO, &err);
  if (!d) {
    char buf[300];
    snprintf(buf, sizeof buf, "%u:%u: %s", err.line, err.col, err.message);
    c->error = dup_n(buf, strlen(buf));
    return err.code == HS_E_NOMEM ? HS_E_NOMEM : 0;
  }
  int rc = 0;
  hs_census cs;
  hs_fusion_census(d, &cs);
  c->has = true;
  c->computations = d->n_comps;
  c->instructions = d->n_instrs;
  c->fusion_ops = (uint32_t)cs.fusion_ops;
  c->fusion_computations = (uint32_t)cs.fusion_computations;
  /* opcode histogram: sort the slices, then run-length */
  uint32_t cap = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    const hs_slice op = hs_opcode(d, in);
    const char *ot = hs_sp(d, op);
    size_t ol = op.len;
    char *clean = NULL; /* an opcode with bytes outside ASCII: compared as its stored, cleaned form */
    for (size_t j = 0; j < ol && !clean; j++)
      if ((unsigned char)ot[j] >= 0x80 || !ot[j]) {
        if (!(clean = dup_utf8(ot, ol))) {
          rc = HS_E_NOMEM;
          goto done;
        }
        ot = clean;
      }
    bool found = false;
    for (uint32_t k = 0; k < c->n_ops; k++) /* few distinct opcodes: a linear probe is enough */
      if (strncmp(c->ops[k].op, ot, ol) == 0 && c->ops[k].op[ol] == 0) {
        c->ops[k].n++;
        found = true;
        break;
      }
    if (!found) {
      bool ok;
      ds_opcount *slot = HS_VEC_PUSH(c->ops, c->n_ops, cap, ok);
      if (!ok || !(slot->op = dup_utf8(ot, ol))) {
        if (ok) c->n_ops--;
        free(clean);
        rc = HS_E_NOMEM;
        goto done;
      }
      slot->n = 1;
    }
    free(clean);
    if (hs_slice_is(d, hs_opcode(d, in), "fusion") && !(in->comp < d->n_comps && d->comps[in->comp].role == HS_ROLE_FUSED)) {
      uint32_t fcap = c->n_fusions; /* grows one by one; fusions per step are few hundred at most */
      char **nf = realloc(c->fusions, (fcap + 1) * sizeof *nf);
      if (!nf) {
        rc = HS_E_NOMEM;
        goto done;
      }
      c->fusions = nf;
      if (!(c->fusions[c->n_fusions] = dup_utf8(hs_sp(d, in->name), in->name.len))) {
        rc = HS_E_NOMEM;
        goto done;
      }
      c->n_fusions++;
    }
  }
  if (c->n_ops) qsort(c->ops, c->n_ops, sizeof *c->ops, cmp_op);
  if (c->n_fusions) qsort(c->fusions, c->n_fusions, sizeof *c->fusions, cmp_str);
done:
  hs_doc_free(d);
  return rc;
}

int hs_dumpset_add(hs_dumpset *s, const char *name, size_t name_len, const char *data, size_t len) {
  if (!s || (!name && name_len)) return HS_E_ARG;
  /* a path: keep the base name, and the folder when it is a module's (module_NNNN.<name>/) */
  size_t b = name_len;
  while (b > 0 && name[b - 1] != '/' && name[b - 1] != '\\') b--;
  if (b > 1) {
    size_t a = b - 1;
    while (a > 0 && name[a - 1] != '/' && name[a - 1] != '\\') a--;
    if (b - 1 - a > 8 && memcmp(name + a, "module_", 7) == 0 && name[a + 7] >= '0' && name[a + 7] <= '9') b = a;
  }
  bool ok;
  ds_file *f = HS_VEC_PUSH(s->files, s->n, s->cap, ok);
  if (!ok) return HS_E_NOMEM;
  memset(f, 0, sizeof *f);
  if (!(f->name = dup_utf8(name + b, name_len - b))) {
    s->n--;
    return HS_E_NOMEM;
  }
  classify(s, f);
  bool hlo_kind = f->kind == DS_STEP || f->kind == DS_BEFORE_OPT || f->kind == DS_AFTER_OPT ||
                  f->kind == DS_AFTER_OPT_BEFORE_BA || f->kind == DS_AFTER_OPT_AFTER_BA || f->kind == DS_AFTER_CODEGEN;
  f->seq = s->n - 1;
  /* what could not be read is said by hs_dumpset_json, in the order of the names */
  if (data && hlo_kind && hs_archive_kind(data, len) == HS_ARCHIVE_GZIP) {
    f->gzipped = true; /* the host passed a .gz file's bytes as they are (or they did not inflate) */
  } else if (data && hlo_kind) {
    int rc = count_doc(&f->counts, data, len);
    if (rc) return rc;
    if (f->kind == DS_AFTER_OPT && !f->counts.error) {
      if (!(f->text = dup_n(data, len))) return HS_E_NOMEM;
      f->text_len = len;
    }
  } else if (data && (f->kind == DS_DEBUG_OPTIONS || f->kind == DS_COMPILE_OPTIONS) && len <= ENV_FILE_MAX) {
    /* what the compile was asked for (hs_dumpset_environment_json): kept as text */
    if (!(f->text = dup_n(data, len))) return HS_E_NOMEM;
    f->text_len = len;
  }
  return 0;
}

int hs_dumpset_wants_bytes(const char *name, size_t n) {
  if (!name) return 0;
  const char *base = name;
  for (size_t i = 0; i < n; i++)
    if (name[i] == '/' || name[i] == '\\') base = name + i + 1;
  size_t bn = n - (size_t)(base - name);
#define ENDS_(suf) (n >= sizeof suf - 1 && memcmp(name + n - (sizeof suf - 1), suf, sizeof suf - 1) == 0)
  /* a module's compile options (module_NNNN.<name>/compile_options.textproto) and debug options */
  if (bn == sizeof "compile_options.textproto" - 1 && memcmp(base, "compile_options.textproto", bn) == 0) return 1;
  if (bn > 11 && memcmp(base, "module_", 7) == 0 && ENDS_(".debug_options")) return 1;
  if (ENDS_(".gz")) n -= 3; /* module_x.after_optimizations.txt.gz: its text, gunzipped */
  int r = bn > 11 && memcmp(base, "module_", 7) == 0 && ENDS_(".txt") && !ENDS_("-buffer-assignment.txt") &&
          !ENDS_("-memory-usage-report.txt") && !ENDS_("-buffer-assignment-values.txt") && !ENDS_("-live-range.txt");
#undef ENDS_
  return r;
}

int hs_dumpset_add_listing(hs_dumpset *s, const char *text, size_t len) {
  if (!s || (!text && len)) return HS_E_ARG;
  uint32_t line = 0;
  size_t p = 0;
  while (p < len) {
    size_t e = p;
    while (e < len && text[e] != '\n') e++;
    line++;
    size_t a = p, z = e;
    p = e + 1;
    while (a < z && (text[a] == ' ' || text[a] == '\t')) a++;
    while (z > a && (text[z - 1] == ' ' || text[z - 1] == '\t' || text[z - 1] == '\r')) z--;
    if (a == z) continue;
    s->listing_lines++;
    if (z - a > 6 && memcmp(text + a, "total ", 6) == 0) continue; /* ls -l */
    if (text[z - 1] == ':') continue;                              /* ls -R: "dir:" */
    /* `ls -l`: permissions first, the name last */
    bool long_form = z - a > 10 && strchr("-dlcbps", text[a]) && strchr("r-", text[a + 1]) && strchr("w-", text[a + 2]);
    size_t t = a;
    if (long_form) {
      t = z;
      while (t > a && text[t - 1] != ' ' && text[t - 1] != '\t') t--;
    }
    uint32_t before = s->n;
    while (t < z) {
      size_t u = t;
      while (u < z && text[u] != ' ' && text[u] != '\t') u++;
      if (text[u - 1] != '/') { /* `ls -F` marks folders */
        int rc = hs_dumpset_add(s, text + t, u - t, NULL, 0);
        if (rc) return rc;
        s->files[s->n - 1].line = line;
      }
      t = u;
      while (t < z && (text[t] == ' ' || text[t] == '\t')) t++;
    }
    bool any_known = false;
    for (uint32_t i = before; i < s->n; i++) any_known = any_known || s->files[i].kind != DS_UNKNOWN;
    if (!any_known) s->junk_lines++;
  }
  return 0;
}

uint32_t hs_dumpset_file_count(const hs_dumpset *s) { return s ? s->n : 0; }

/* ---- format detection (the registry's PASS_LISTING line) ---------------------------------- */
/* A pasted `ls` of a dump folder: the first line is a name XLA writes (module_NNNN.<...>), or
 * `ls -l`'s "total N" / a permissions column followed by such names. Read with hs_dumpset_*
 * (`hloscope passes`, readPasses()), not hs_parse. */
static bool module_name_at(const char *t, size_t end, size_t p) {
  if (!hs_starts(t, end, p, "module_")) return false;
  p += 7;
  size_t d = p;
  while (p < end && t[p] >= '0' && t[p] <= '9') p++;
  return p > d && p < end && t[p] == '.';
}

int hs_detect_pass_listing(const char *text, size_t len, size_t first) {
  size_t eol = first;
  while (eol < len && text[eol] != '\n') eol++;
  if (module_name_at(text, eol, first)) {
    for (size_t i = first; i < eol; i++)
      if (text[i] == '{' || text[i] == '=' || text[i] == '(') return 0; /* not a name */
    return 90;
  }
  if (!hs_starts(text, len, first, "total ") && !(eol - first > 10 && (text[first] == '-' || text[first] == 'd') &&
                                                   (text[first + 1] == 'r' || text[first + 1] == '-')))
    return 0;
  /* ls -l: a module name at the end of one of the next lines */
  size_t p = first, lines = 0;
  while (p < len && lines < 8) {
    size_t e = p;
    while (e < len && text[e] != '\n') e++;
    size_t b = e;
    while (b > p && text[b - 1] != ' ') b--;
    if (module_name_at(text, e, b)) return 60;
    p = e + 1;
    lines++;
  }
  return 0;
}

/* The optimized HLO of every module (its *after_optimizations.txt given with its bytes), in the
 * order of the files' names (module_NNNN first, so by module id), one text of several modules. */
static int cmp_text_file(const void *x, const void *y) {
  return strcmp((*(const ds_file *const *)x)->name, (*(const ds_file *const *)y)->name);
}

char *hs_dumpset_optimized_hlo(const hs_dumpset *s, size_t *len, uint32_t *n_modules) {
  *len = 0;
  if (n_modules) *n_modules = 0;
  if (!s) return NULL;
  uint32_t n = 0;
  size_t total = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->files[i].text && s->files[i].kind == DS_AFTER_OPT) n++, total += s->files[i].text_len + 1;
  if (!n) return NULL;
  const ds_file **list = malloc(n * sizeof *list);
  char *out = malloc(total + 1);
  if (!list || !out) {
    free(list);
    free(out);
    return NULL;
  }
  n = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->files[i].text && s->files[i].kind == DS_AFTER_OPT) list[n++] = &s->files[i];
  qsort(list, n, sizeof *list, cmp_text_file);
  size_t at = 0;
  for (uint32_t i = 0; i < n; i++) {
    memcpy(out + at, list[i]->text, list[i]->text_len);
    at += list[i]->text_len;
    if (at && out[at - 1] != '\n') out[at++] = '\n';
  }
  out[at] = 0;
  free(list);
  *len = at;
  if (n_modules) *n_modules = n;
  return out;
}
