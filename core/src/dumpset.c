/* Dump folders (XLA_FLAGS=--xla_dump_to=DIR [--xla_dump_hlo_pass_re=.*]): the file names a
 * folder holds, classified; per module the numbered pass steps, the pipelines with their passes
 * and reruns, the layout watershed; per step (when the file's bytes are given) the counts of the
 * HLO it holds and the diff from the step before; two folders compared pass by pass.
 *
 * Pure: the caller hands (name, bytes-or-NULL) pairs (or a pasted `ls` listing); walking a
 * directory or opening an archive is the caller's business (core/cli, the page).
 *
 * The names, as XLA writes them (xla/service/dump.cc; seen in ../shared/captures/pass-names/):
 *   module_NNNN.<module name>.[cl_<build id>.]<suffix>
 *     <suffix> = NNNN.<pipeline>.after_<pass>[.before_<pass>].txt    a pass step
 *              | before_optimizations.txt | [<backend>_]after_optimizations.txt | ...
 *   <backend> = cpu | sm_8.0_gpu | gfx90a_gpu | (TPU: none; newer TPU builds put cl_<id> first).
 * The module name may hold dots (torch_xla's "SyncTensorsGraph.636"), and per-kernel files put a
 * kernel name between the module name and the suffix, so a module's name is taken from the
 * files whose suffix is fixed, and the other files of that module are read against it. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonout.h"

/* The backend before after_optimizations: "cpu", "sm_8.0_gpu", "gfx90a_gpu", "gpu". */
#define BACKEND_PRE "(cpu|gpu|(?:sm_\\d+\\.\\d+[a-z]?|gfx[0-9a-z]+|[a-z0-9]+)_gpu)"

/* ---- file kinds ---------------------------------------------------------------------------- */
/* X(ID, json name, tail pattern (anchored at the end of the name after the module prefix), backend hint) */
#define DS_KIND_MAP(X)                                                                                      \
  X(STEP, "step", NULL, NULL)                                                                               \
  X(BEFORE_OPT, "before_optimizations", "^before_optimizations\\.txt$", NULL)                               \
  X(BUFFER_ASSIGNMENT, "buffer_assignment", "^(?:" BACKEND_PRE "_)?after_optimizations-buffer-assignment\\.txt$", NULL) \
  X(BUFFER_VALUES, "buffer_assignment_values", "^(?:" BACKEND_PRE "_)?after_optimizations-buffer-assignment-values\\.txt$", NULL) \
  X(LIVE_RANGE, "live_range", "^(?:" BACKEND_PRE "_)?after_optimizations-live-range\\.txt$", NULL) \
  X(MEMORY_REPORT, "memory_usage_report", "^(?:" BACKEND_PRE "_)?after_optimizations-memory-usage-report\\.txt$", NULL) \
  X(AFTER_OPT_BEFORE_BA, "after_optimizations_before_buffer_assignment",                                   \
    "^after_optimizations_before_buffer_assignment\\.txt$", "tpu")                                         \
  X(AFTER_OPT_AFTER_BA, "after_optimizations_after_buffer_assignment",                                     \
    "^after_optimizations_after_buffer_assignment\\.txt$", "tpu")                                          \
  X(AFTER_OPT, "after_optimizations", "^(?:" BACKEND_PRE "_)?after_optimizations\\.txt$", NULL)                       \
  X(AFTER_CODEGEN, "after_codegen", "^after_codegen\\.txt$", "tpu")                                         \
  X(EXECUTION_OPTIONS, "execution_options", "^execution_options\\.txt$", NULL)                              \
  X(MODULE_CONFIG, "hlo_module_config", "^hlo_module_config\\.txt$", NULL)                                  \
  X(TPU_COMP_ENV, "tpu_comp_env", "^tpu_comp_env\\.txt$", "tpu")                                            \
  X(FLAGFILE, "flagfile", "^flagfile$", NULL)                                                               \
  X(DEBUG_OPTIONS, "debug_options", "^debug_options$", NULL)                                                \
  X(TARGET_ARGUMENTS, "target_arguments", "^target_arguments\\.txt$", "tpu")                                \
  X(SDC_METADATA, "sdc_metadata", "^sdc_metadata\\.txt$", "tpu")                                            \
  X(TRANSFER_STATS, "transfer_stats", "^transfer_stats\\.txt$", "tpu")                                      \
  X(AUTOTUNE, "autotune_results", "^autotune_results\\.pbtxt$", "gpu")                                      \
  X(TARGET_CONFIG, "target_config", "^(?:gpu_)?target_config\\.pbtxt$", "gpu")                             \
  X(THUNK_SEQUENCE, "thunk_sequence", "^thunk_sequence\\.txt$", "gpu")                                      \
  X(PTX, "ptx", "(?:^|\\.)ptx$", "gpu")                                                                     \
  X(LLVM_IR_NO_OPT, "llvm_ir_no_opt", "(?:^|\\.)ir-no-opt(?:-noconst)?(?:\\.part_\\d+)?\\.ll$", NULL)                        \
  X(LLVM_IR_WITH_OPT, "llvm_ir_with_opt", "(?:^|\\.)ir-with-opt(?:-noconst)?(?:\\.part_\\d+)?\\.ll$", NULL)                  \
  X(KERNEL_MLIR, "kernel_mlir", "_kernel_module-(?:pre-optimization|post-optimization|post-lowering)\\.mlir$", "cpu") \
  X(OBJECT_FILE, "object_file", "(?:^|\\.)obj-file\\..+\\.o$", NULL)                                                \
  X(TRITON_IR, "triton_ir", "\\.ttir$", "gpu")                                                              \
  X(KERNEL_HLO, "kernel_hlo", "\\.hlo$", NULL)                                                              \
  X(HLO_PROTO, "hlo_proto", "\\.(?:hlo\\.pb|pb)$", NULL)                                                    \
  X(PROTO_TEXT, "proto_text", "\\.pbtxt$", NULL)                                                            \
  X(GRAPH, "graph", "\\.(?:dot|html|svg|url)$", NULL)                                                       \
  X(MLIR, "mlir", "\\.mlir$", NULL)                                                                         \
  X(TEXT, "text", "\\.txt$", NULL)                                                                          \
  X(MODULE_FOLDER, "module_folder", NULL, NULL)                                                             \
  X(MODULE_MLIR, "module_mlir", NULL, NULL)                                                                 \
  X(COMPILE_OPTIONS, "compile_options", NULL, NULL)                                                         \
  X(TOPOLOGY, "topology", NULL, NULL)                                                                       \
  X(UNKNOWN, "unknown", NULL, NULL)

enum {
#define DS_X_(id, name, pat, hint) DS_##id,
  DS_KIND_MAP(DS_X_)
#undef DS_X_
      DS_NKINDS
};
static const char *const kind_names[] = {
#define DS_X_(id, name, pat, hint) name,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};
static const char *const kind_patterns[] = {
#define DS_X_(id, name, pat, hint) pat,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};
static const char *const kind_hints[] = {
#define DS_X_(id, name, pat, hint) hint,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};
/* Kinds whose suffix is fixed: the text before it is the module name (plus a cl_ segment). */
static bool kind_fixes_name(int k) { return k >= DS_BEFORE_OPT && k <= DS_THUNK_SEQUENCE; }
static bool is_tail_kind(int k) { return k > DS_THUNK_SEQUENCE && k < DS_MODULE_FOLDER; }

/* ---- the set ---------------------------------------------------------------------------- */
typedef struct {
  char *op;
  uint32_t n;
} ds_opcount;

typedef struct {
  bool has;
  uint32_t computations, instructions, fusion_ops, fusion_computations;
  ds_opcount *ops; /* sorted by op */
  uint32_t n_ops;
  char **fusions; /* names of top-level fusion instructions, sorted */
  uint32_t n_fusions;
  char *error; /* the file was given but did not parse */
} ds_counts;

typedef struct {
  char *name;
  int kind;
  long module_id;      /* -1 when the name has no module_NNNN prefix */
  char *rest;          /* the name after "module_NNNN." */
  char *name_guess;    /* module name read off a fixed suffix (or a step), else NULL */
  char *segment;       /* "cl_804429027", or NULL */
  char *backend_pre;   /* "cpu", "sm_8.0_gpu" before after_optimizations, or NULL */
  long step;           /* step number, -1 */
  char *pipeline, *after, *before;
  ds_counts counts;
  uint32_t line;       /* listing line, 0 for files */
} ds_file;

struct hs_dumpset {
  ds_file *files;
  uint32_t n, cap;
  char *label;
  json_t *warnings; /* array */
  pcre2_code *re_module, *re_step, *re_kind[DS_NKINDS];
  char ending[DS_NKINDS][64]; /* the literal every match of a kind's pattern ends with */
  uint8_t ending_len[DS_NKINDS];
  pcre2_match_data *md;
  int junk_lines, listing_lines;
};

static char *dup_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

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
  s->warnings = json_array();
  s->re_module = compile("^module_(\\d+)\\.(.+)$");
  /* name [cl_N] NNNN pipeline after_X [before_Y] .txt; pipeline and pass names hold no dots */
  s->re_step = compile("^(.+?)\\.(?:(cl_\\d+)\\.)?(\\d{4,})\\.([^.]+)\\.after_([^.]+?)(?:\\.before_([^.]+))?\\.txt$");
  s->md = pcre2_match_data_create(16, NULL);
  bool ok = s->warnings && s->re_module && s->re_step && s->md;
  for (int k = 0; k < DS_NKINDS && ok; k++) {
    if (kind_patterns[k] && !(s->re_kind[k] = compile(kind_patterns[k]))) ok = false;
    if (kind_patterns[k]) s->ending_len[k] = (uint8_t)literal_ending(kind_patterns[k], s->ending[k], sizeof s->ending[k]);
  }
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
    counts_free(&f->counts);
  }
  free(s->files);
  free(s->label);
  json_decref(s->warnings);
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

static void warn(hs_dumpset *s, const char *code, uint32_t line, const char *fmt, ...) {
  if (json_array_size(s->warnings) >= 200) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  json_t *o = json_object();
  json_object_set_new(o, "code", json_string(code));
  json_object_set_new(o, "line", json_integer(line));
  json_object_set_new(o, "column", json_integer(0));
  json_object_set_new(o, "message", hs_json_bytes(buf, strlen(buf)));
  json_array_append_new(s->warnings, o);
}

static bool match(hs_dumpset *s, pcre2_code *re, const char *t, size_t n) {
  return pcre2_match(re, (PCRE2_SPTR)t, n, 0, 0, s->md, NULL) >= 0;
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
      if (!match(s, s->re_kind[k], tail, tn)) continue;
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
    if (!is_tail_kind(k) || !s->re_kind[k]) continue;
    size_t el = s->ending_len[k];
    if (rn < el || memcmp(rest + rn - el, s->ending[k], el) != 0) continue;
    if (match(s, s->re_kind[k], rest, rn)) {
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
  hs_doc *d = hs_parse(data, len, &err);
  if (!d) {
    char buf[300];
    snprintf(buf, sizeof buf, "%u:%u: %s", err.line, err.col, err.message);
    c->error = dup_n(buf, strlen(buf));
    return err.code == HS_E_NOMEM ? HS_E_NOMEM : 0;
  }
  int rc = 0;
  if (d->format != HS_FORMAT_HLO) {
    const char *m = "not HLO text";
    c->error = dup_n(m, strlen(m));
    goto done;
  }
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
    const char *ot = hs_sp(d, in->opcode);
    size_t ol = in->opcode.len;
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
    if (hs_slice_is(d, in->opcode, "fusion") && !(in->comp < d->n_comps && d->comps[in->comp].role == HS_ROLE_FUSED)) {
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
  if (data && hlo_kind) {
    int rc = count_doc(&f->counts, data, len);
    if (rc) return rc;
    if (f->counts.error)
      warn(s, "HS_W_DUMP_STEP_UNREADABLE", 0, "%s: not read as HLO (%s)", f->name, f->counts.error);
  }
  return 0;
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

/* ---- modules ------------------------------------------------------------------------------ */
typedef struct {
  long id;
  const char *name;    /* borrowed from a file */
  const char *backend; /* "cpu", "gpu", "tpu" or NULL */
  char *target;        /* "sm_8.0", "cl_804429027" */
  bool inferred;
  uint32_t *steps; /* file indices, sorted by step number */
  uint32_t n_steps, cap_steps;
} ds_module;

typedef struct {
  long step;
  const char *name;
  uint32_t idx;
} ds_key;
static int cmp_key(const void *a, const void *b) {
  const ds_key *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* A JSON object {opcode: n} from two sorted histograms: what `x` has more of than `y`. */
static json_t *op_delta(const ds_counts *x, const ds_counts *y, uint32_t *total) {
  json_t *o = json_object();
  uint32_t i = 0, j = 0;
  *total = 0;
  while (i < x->n_ops) {
    int c = j < y->n_ops ? strcmp(x->ops[i].op, y->ops[j].op) : -1;
    if (c < 0) {
      json_object_set_new(o, x->ops[i].op, json_integer(x->ops[i].n));
      *total += x->ops[i].n;
      i++;
    } else if (c > 0) {
      j++;
    } else {
      if (x->ops[i].n > y->ops[j].n) {
        json_object_set_new(o, x->ops[i].op, json_integer(x->ops[i].n - y->ops[j].n));
        *total += x->ops[i].n - y->ops[j].n;
      }
      i++;
      j++;
    }
  }
  return o;
}

/* Appends to buf (NUL-terminated, truncated at cap); *n never passes cap - 1. */
static void ap(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
  if (*n + 1 >= cap) return;
  va_list va;
  va_start(va, fmt);
  int k = vsnprintf(buf + *n, cap - *n, fmt, va);
  va_end(va);
  if (k > 0) *n = *n + (size_t)k < cap - 1 ? *n + (size_t)k : cap - 1;
}

static void op_list(char *buf, size_t cap, size_t *n, json_t *ops) {
  const char *k;
  json_t *v;
  int shown = 0;
  json_object_foreach(ops, k, v) {
    if (shown++ < 4) ap(buf, cap, n, "%s%lld %s", shown > 1 ? ", " : "", json_integer_value(v), k);
  }
  if (shown > 4) ap(buf, cap, n, ", ...");
}

static void describe(char *buf, size_t cap, json_t *added, json_t *removed, uint32_t na, uint32_t nr, size_t formed,
                     const char *pass, const char *pipeline) {
  size_t n = 0;
  buf[0] = 0;
  bool start = pass && strcmp(pass, "pipeline-start") == 0;
  if (start) ap(buf, cap, &n, "The module as it enters %.200s", pipeline);
  else ap(buf, cap, &n, "%.200s", pass ? pass : "this pass");
  if (!na && !nr) {
    ap(buf, cap, &n, start ? ": no opcode count changed since the last step."
                           : " changed no opcode counts (it rewrote operands, shapes, layouts or attributes).");
    return;
  }
  if (start) ap(buf, cap, &n, ": since the last step it");
  if (nr) {
    ap(buf, cap, &n, " removed %u instruction%s (", nr, nr == 1 ? "" : "s");
    op_list(buf, cap, &n, removed);
    ap(buf, cap, &n, ")");
  }
  if (na) {
    ap(buf, cap, &n, "%s added %u (", nr ? " and" : "", na);
    op_list(buf, cap, &n, added);
    ap(buf, cap, &n, ")");
  }
  if (formed) ap(buf, cap, &n, ", forming %zu fusion%s", formed, formed == 1 ? "" : "s");
  ap(buf, cap, &n, ".");
}

static json_t *counts_json(const ds_counts *c) {
  if (!c->has) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "computations", json_integer(c->computations));
  json_object_set_new(o, "instructions", json_integer(c->instructions));
  json_object_set_new(o, "fusion_ops", json_integer(c->fusion_ops));
  json_object_set_new(o, "fusion_computations", json_integer(c->fusion_computations));
  json_t *ops = json_object();
  for (uint32_t i = 0; i < c->n_ops; i++) json_object_set_new(ops, c->ops[i].op, json_integer(c->ops[i].n));
  json_object_set_new(o, "opcodes", ops);
  return o;
}

static json_t *diff_json(const ds_counts *cur, const ds_counts *prev, const char *pass, const char *pipeline) {
  if (!cur->has || !prev || !prev->has) return json_null();
  uint32_t na, nr;
  json_t *added = op_delta(cur, prev, &na), *removed = op_delta(prev, cur, &nr);
  json_t *formed = json_array();
  uint32_t j = 0;
  for (uint32_t i = 0; i < cur->n_fusions; i++) {
    while (j < prev->n_fusions && strcmp(prev->fusions[j], cur->fusions[i]) < 0) j++;
    if (j < prev->n_fusions && strcmp(prev->fusions[j], cur->fusions[i]) == 0) continue;
    json_array_append_new(formed, json_string(cur->fusions[i]));
  }
  char sentence[600];
  describe(sentence, sizeof sentence, added, removed, na, nr, json_array_size(formed), pass, pipeline);
  json_t *o = json_object();
  json_object_set_new(o, "instructions", json_integer((long long)cur->instructions - (long long)prev->instructions));
  json_object_set_new(o, "added", added);
  json_object_set_new(o, "removed", removed);
  json_object_set_new(o, "fusions_formed", formed);
  json_object_set_new(o, "sentence", json_string(sentence));
  return o;
}

static const char *backend_of_prefix(const char *pre, char **target) {
  if (!pre) return NULL;
  size_t n = strlen(pre);
  if (strcmp(pre, "cpu") == 0) return "cpu";
  if (n >= 3 && strcmp(pre + n - 3, "gpu") == 0) {
    if (n > 4) *target = dup_n(pre, n - 4);
    return "gpu";
  }
  return NULL;
}

/* Builds the module table (modules sorted by id); returns the count or -1 on OOM. */
static int build_modules(hs_dumpset *s, ds_module **out) {
  ds_module *m = NULL;
  uint32_t nm = 0, cap = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    ds_file *f = &s->files[i];
    if (f->module_id < 0) continue;
    ds_module *mod = NULL;
    for (uint32_t k = nm; k-- > 0;)
      if (m[k].id == f->module_id) {
        mod = &m[k];
        break;
      }
    if (!mod) {
      bool ok;
      mod = HS_VEC_PUSH(m, nm, cap, ok);
      if (!ok) goto oom;
      memset(mod, 0, sizeof *mod);
      mod->id = f->module_id;
    }
    if (!mod->name && f->name_guess) mod->name = f->name_guess;
    if (f->kind == DS_STEP) {
      bool ok;
      uint32_t *slot = HS_VEC_PUSH(mod->steps, mod->n_steps, mod->cap_steps, ok);
      if (!ok) goto oom;
      *slot = i;
    }
    if (!mod->backend && f->segment && memcmp(f->segment, "cl_", 3) == 0) {
      mod->backend = "tpu";
      mod->target = dup_n(f->segment, strlen(f->segment));
    }
    if (f->backend_pre && !mod->target) {
      const char *b = backend_of_prefix(f->backend_pre, &mod->target);
      if (!mod->backend) mod->backend = b;
    }
    if (!mod->backend && f->kind != DS_UNKNOWN && kind_hints[f->kind]) mod->backend = kind_hints[f->kind];
    /* TPU's own after_optimizations has no backend prefix; CPU and GPU always print one */
    if (!mod->backend && (f->kind == DS_AFTER_OPT || f->kind == DS_BUFFER_ASSIGNMENT) && !f->backend_pre)
      mod->backend = "tpu";
  }
  /* modules with no backend of their own: the folder's, when every other module agrees */
  const char *common = NULL;
  bool agree = true;
  for (uint32_t k = 0; k < nm; k++) {
    if (!m[k].backend) continue;
    if (common && strcmp(common, m[k].backend) != 0) agree = false;
    common = m[k].backend;
  }
  for (uint32_t k = 0; k < nm; k++)
    if (!m[k].backend && agree && common) {
      m[k].backend = common;
      m[k].inferred = true;
    }
  for (uint32_t k = 0; k < nm; k++) {
    if (m[k].n_steps < 2) continue;
    ds_key *keys = malloc(m[k].n_steps * sizeof *keys);
    if (!keys) goto oom;
    for (uint32_t j = 0; j < m[k].n_steps; j++) {
      const ds_file *f = &s->files[m[k].steps[j]];
      keys[j] = (ds_key){f->step, f->name, m[k].steps[j]};
    }
    qsort(keys, m[k].n_steps, sizeof *keys, cmp_key);
    for (uint32_t j = 0; j < m[k].n_steps; j++) m[k].steps[j] = keys[j].idx;
    free(keys);
  }
  /* modules in id order */
  for (uint32_t a = 1; a < nm; a++)
    for (uint32_t b = a; b > 0 && m[b - 1].id > m[b].id; b--) {
      ds_module t = m[b];
      m[b] = m[b - 1];
      m[b - 1] = t;
    }
  *out = m;
  return (int)nm;
oom:
  for (uint32_t k = 0; k < nm; k++) {
    free(m[k].steps);
    free(m[k].target);
  }
  free(m);
  return -1;
}

static void free_modules(ds_module *m, int nm) {
  for (int k = 0; k < nm; k++) {
    free(m[k].steps);
    free(m[k].target);
  }
  free(m);
}

static bool is_marker(const char *pass) { return !pass || !strcmp(pass, "pipeline-start") || !strcmp(pass, "pipeline-end"); }

static void add_unique(json_t *arr, const char *s) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), s) == 0) return;
  json_array_append_new(arr, json_string(s));
}

/* The pipelines of a module in order of first entry: {"name","passes","runs","steps"}. */
static json_t *pipelines_json(const hs_dumpset *s, const ds_module *m) {
  json_t *arr = json_array();
  for (uint32_t k = 0; k < m->n_steps; k++) {
    const ds_file *f = &s->files[m->steps[k]];
    json_t *p = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(json_object_get(v, "name")), f->pipeline) == 0) p = v;
    bool start = f->after && strcmp(f->after, "pipeline-start") == 0;
    if (!p) {
      p = json_object();
      json_object_set_new(p, "name", json_string(f->pipeline));
      json_object_set_new(p, "passes", json_array());
      json_object_set_new(p, "runs", json_integer(0));
      json_object_set_new(p, "steps", json_integer(0));
      json_object_set_new(p, "first_step", json_integer(f->step));
      json_array_append_new(arr, p);
      if (!start) json_object_set_new(p, "runs", json_integer(1)); /* entered before the dump shows it */
    }
    if (start) json_object_set_new(p, "runs", json_integer(json_integer_value(json_object_get(p, "runs")) + 1));
    json_object_set_new(p, "steps", json_integer(json_integer_value(json_object_get(p, "steps")) + 1));
    json_t *passes = json_object_get(p, "passes");
    if (!is_marker(f->after)) add_unique(passes, f->after);
    if (!is_marker(f->before)) add_unique(passes, f->before);
  }
  return arr;
}

static json_t *module_json(const hs_dumpset *s, const ds_module *m) {
  json_t *o = json_object();
  json_object_set_new(o, "id", json_integer(m->id));
  json_object_set_new(o, "name", m->name ? json_string(m->name) : json_null());
  json_object_set_new(o, "backend", m->backend ? json_string(m->backend) : json_null());
  json_object_set_new(o, "backend_inferred", json_boolean(m->inferred));
  json_object_set_new(o, "target", m->target ? json_string(m->target) : json_null());
  json_t *steps = json_array();
  json_t *runs = json_object(); /* pipeline -> run number so far */
  long watershed = -1, first_fusion = -1, after_layout = -1;
  const ds_counts *prev = NULL;
  /* the step before the first: before_optimizations when it was read */
  for (uint32_t i = 0; i < s->n; i++)
    if (s->files[i].module_id == m->id && s->files[i].kind == DS_BEFORE_OPT && s->files[i].counts.has) prev = &s->files[i].counts;
  for (uint32_t k = 0; k < m->n_steps; k++) {
    const ds_file *f = &s->files[m->steps[k]];
    json_t *st = json_object();
    json_object_set_new(st, "n", json_integer(f->step));
    json_object_set_new(st, "pipeline", json_string(f->pipeline));
    json_object_set_new(st, "after", f->after ? json_string(f->after) : json_null());
    json_object_set_new(st, "before", f->before ? json_string(f->before) : json_null());
    json_object_set_new(st, "file", json_string(f->name));
    long run = json_integer_value(json_object_get(runs, f->pipeline));
    if (run == 0 || (f->after && strcmp(f->after, "pipeline-start") == 0)) run++;
    json_object_set_new(runs, f->pipeline, json_integer(run));
    json_object_set_new(st, "run", json_integer(run));
    json_object_set_new(st, "counts", counts_json(&f->counts));
    json_object_set_new(st, "diff", diff_json(&f->counts, prev, f->after, f->pipeline));
    if (f->counts.has) prev = &f->counts;
    if (watershed < 0 && f->before && strcmp(f->before, "layout-assignment") == 0) watershed = f->step;
    if (after_layout < 0 && f->after && strcmp(f->after, "layout-assignment") == 0) after_layout = f->step;
    if (first_fusion < 0 && f->counts.has && f->counts.fusion_ops > 0) first_fusion = f->step;
    json_array_append_new(steps, st);
  }
  json_decref(runs);
  json_object_set_new(o, "steps", steps);
  json_object_set_new(o, "pipelines", pipelines_json(s, m));
  /* XLA writes a step only when the pass before it changed the module: when no step is about to
   * run layout-assignment, the first step after it marks the watershed */
  const char *ws_from = watershed >= 0 ? "before_layout-assignment" : after_layout >= 0 ? "after_layout-assignment" : NULL;
  if (watershed < 0) watershed = after_layout;
  json_object_set_new(o, "watershed", watershed >= 0 ? json_integer(watershed) : json_null());
  json_object_set_new(o, "watershed_from", ws_from ? json_string(ws_from) : json_null());
  json_object_set_new(o, "first_fusion", first_fusion >= 0 ? json_integer(first_fusion) : json_null());
  json_t *files = json_object();
  for (uint32_t i = 0; i < s->n; i++) {
    if (s->files[i].module_id != m->id) continue;
    const char *kn = kind_names[s->files[i].kind];
    json_object_set_new(files, kn, json_integer(json_integer_value(json_object_get(files, kn)) + 1));
  }
  json_object_set_new(o, "kinds", files);
  return o;
}

/* The whole result object (not serialised); NULL on OOM. `err` receives a hard failure: no
 * names, or no name XLA writes. */
static json_t *dumpset_object(hs_dumpset *s, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  uint32_t known = 0;
  for (uint32_t i = 0; i < s->n; i++) known += s->files[i].kind != DS_UNKNOWN;
  if (s->n == 0 || known == 0) {
    if (err) {
      err->code = s->n ? HS_E_FORMAT : HS_E_EMPTY;
      if (s->n)
        snprintf(err->message, sizeof err->message,
                 "none of the %u names is a file XLA writes with --xla_dump_to (expected names like "
                 "module_0001.jit_f.0000.<pipeline>.after_<pass>.before_<pass>.txt)",
                 s->n);
      else
        snprintf(err->message, sizeof err->message, "no file names: the folder, archive or listing is empty");
    }
    return NULL;
  }
  ds_module *m = NULL;
  int nm = build_modules(s, &m);
  if (nm < 0) return NULL;
  json_t *root = json_object();
  json_object_set_new(root, "label", s->label ? json_string(s->label) : json_null());
  json_t *mods = json_array();
  for (int k = 0; k < nm; k++) json_array_append_new(mods, module_json(s, &m[k]));
  json_object_set_new(root, "modules", mods);
  json_t *files = json_array();
  uint32_t unknown = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    const ds_file *f = &s->files[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", hs_json_bytes(f->name, strlen(f->name)));
    json_object_set_new(o, "kind", json_string(kind_names[f->kind]));
    json_object_set_new(o, "module", f->module_id >= 0 ? json_integer(f->module_id) : json_null());
    json_array_append_new(files, o);
    unknown += f->kind == DS_UNKNOWN;
  }
  json_object_set_new(root, "files", files);
  json_t *w = json_deep_copy(s->warnings);
  uint32_t shown = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    const ds_file *f = &s->files[i];
    if (f->kind != DS_UNKNOWN) continue;
    if (shown++ >= 50) continue;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*s: not a file name hloscope knows XLA to write; listed as unknown", 300, f->name);
    json_t *o = json_object();
    json_object_set_new(o, "code", json_string(f->line ? "HS_W_DUMP_JUNK_LINE" : "HS_W_DUMP_UNKNOWN_NAME"));
    json_object_set_new(o, "line", json_integer(f->line));
    json_object_set_new(o, "column", json_integer(0));
    json_object_set_new(o, "message", hs_json_bytes(buf, strlen(buf)));
    json_array_append_new(w, o);
  }
  if (shown > 50) {
    char buf[100];
    snprintf(buf, sizeof buf, "%u more unknown names not listed here", shown - 50);
    json_t *o = json_object();
    json_object_set_new(o, "code", json_string("HS_W_DUMP_UNKNOWN_NAME"));
    json_object_set_new(o, "line", json_integer(0));
    json_object_set_new(o, "column", json_integer(0));
    json_object_set_new(o, "message", json_string(buf));
    json_array_append_new(w, o);
  }
  json_object_set_new(root, "unknown", json_integer(unknown));
  json_object_set_new(root, "warnings", w);
  free_modules(m, nm);
  return root;
}

char *hs_dumpset_json(hs_dumpset *s, hs_error *err, size_t *len) {
  if (!s) return NULL;
  json_t *root = dumpset_object(s, err);
  if (!root) return NULL;
  return hs_json_finish(root, len);
}

/* ---- compare ------------------------------------------------------------------------------ */
/* pass -> {pipeline: true} over every module of a result object */
static json_t *pass_index(json_t *root) {
  json_t *idx = json_object();
  size_t i, k;
  json_t *m, *p;
  json_array_foreach(json_object_get(root, "modules"), i, m) {
    json_array_foreach(json_object_get(m, "pipelines"), k, p) {
      const char *pipe = json_string_value(json_object_get(p, "name"));
      size_t j;
      json_t *pass;
      json_array_foreach(json_object_get(p, "passes"), j, pass) {
        const char *ps = json_string_value(pass);
        json_t *e = json_object_get(idx, ps);
        if (!e) json_object_set_new(idx, ps, e = json_object());
        json_object_set_new(e, pipe, json_true());
      }
    }
  }
  return idx;
}

static json_t *keys_array(json_t *obj) {
  json_t *a = json_array();
  const char *k;
  json_t *v;
  json_object_foreach(obj, k, v) json_array_append_new(a, json_string(k));
  return a;
}

char *hs_dumpset_compare_json(hs_dumpset *a, hs_dumpset *b, hs_error *err, size_t *len) {
  if (!a || !b) return NULL;
  json_t *ra = dumpset_object(a, err);
  if (!ra) return NULL;
  json_t *rb = dumpset_object(b, err);
  if (!rb) {
    json_decref(ra);
    return NULL;
  }
  json_t *ia = pass_index(ra), *ib = pass_index(rb);
  json_t *root = json_object();
  json_t *sides[2] = {ra, rb};
  const char *names[2] = {"a", "b"};
  for (int k = 0; k < 2; k++) {
    json_t *o = json_object();
    json_object_set(o, "label", json_object_get(sides[k], "label"));
    json_t *mods = json_array(), *backends = json_array();
    size_t i;
    json_t *m;
    long steps = 0;
    json_array_foreach(json_object_get(sides[k], "modules"), i, m) {
      json_array_append_new(mods, json_string(json_string_value(json_object_get(m, "name")) ? json_string_value(json_object_get(m, "name")) : ""));
      if (json_is_string(json_object_get(m, "backend"))) add_unique(backends, json_string_value(json_object_get(m, "backend")));
      steps += (long)json_array_size(json_object_get(m, "steps"));
    }
    json_object_set_new(o, "modules", mods);
    json_object_set_new(o, "backends", backends);
    json_object_set_new(o, "steps", json_integer(steps));
    json_object_set_new(o, "passes", json_integer((json_int_t)json_object_size(k ? ib : ia)));
    json_object_set_new(root, names[k], o);
  }
  /* every pass, in A's order of appearance then B's */
  json_t *passes = json_array();
  json_t *per_pipe = json_object(); /* pipeline -> {only_a, only_b, both} */
  json_t *order = json_array();
  const char *k;
  json_t *v;
  json_object_foreach(ia, k, v) json_array_append_new(order, json_string(k));
  json_object_foreach(ib, k, v) if (!json_object_get(ia, k)) json_array_append_new(order, json_string(k));
  size_t i;
  json_t *pn;
  json_array_foreach(order, i, pn) {
    const char *pass = json_string_value(pn);
    json_t *pa = json_object_get(ia, pass), *pb = json_object_get(ib, pass);
    const char *origin = pa && pb ? "both" : pa ? "a" : "b";
    json_t *o = json_object();
    json_object_set_new(o, "pass", json_string(pass));
    json_object_set_new(o, "origin", json_string(origin));
    json_object_set_new(o, "pipelines_a", pa ? keys_array(pa) : json_array());
    json_object_set_new(o, "pipelines_b", pb ? keys_array(pb) : json_array());
    json_array_append_new(passes, o);
    for (int side = 0; side < 2; side++) {
      json_t *src = side ? pb : pa;
      if (!src) continue;
      const char *pipe;
      json_t *t;
      json_object_foreach(src, pipe, t) {
        json_t *e = json_object_get(per_pipe, pipe);
        if (!e) {
          json_object_set_new(per_pipe, pipe, e = json_object());
          json_object_set_new(e, "name", json_string(pipe));
          json_object_set_new(e, "only_a", json_array());
          json_object_set_new(e, "only_b", json_array());
          json_object_set_new(e, "both", json_array());
        }
        json_t *other = side ? pa : pb;
        bool in_other = other && json_object_get(other, pipe);
        add_unique(json_object_get(e, in_other ? "both" : side ? "only_b" : "only_a"), pass);
      }
    }
  }
  json_decref(order);
  json_t *pipes = json_array();
  const char *pk;
  json_t *pv;
  json_object_foreach(per_pipe, pk, pv) json_array_append(pipes, pv);
  json_decref(per_pipe);
  json_object_set_new(root, "passes", passes);
  json_object_set_new(root, "pipelines", pipes);
  json_t *w = json_array();
  json_array_extend(w, json_object_get(ra, "warnings"));
  json_array_extend(w, json_object_get(rb, "warnings"));
  json_object_set_new(root, "warnings", w);
  json_decref(ia);
  json_decref(ib);
  json_decref(ra);
  json_decref(rb);
  return hs_json_finish(root, len);
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
