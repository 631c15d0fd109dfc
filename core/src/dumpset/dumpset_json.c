/* A dump folder's modules, pipelines and pass steps as JSON, and two folders compared pass by
 * pass (dumpset_model.h; the names and counts are read in dumpset.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "dumpset/dumpset.h"

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

static int cmp_file(const void *x, const void *y) {
  const ds_file *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
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
  /* The files in the order of their names (then as added), whatever order the host walked the
   * folder or the archive in: the modules, steps, files and warnings come out the same. */
  qsort(s->files, s->n, sizeof *s->files, cmp_file);
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
  json_t *w = hs_diag_json(&s->diag);
  hs_diag unknowns = {.per_code = HS_DIAG_NO_LIMIT, .total = s->diag.n_warnings < 200 ? 200 - s->diag.n_warnings : 1};
  hs_arena arena = {0};
  for (uint32_t i = 0; i < s->n && s->diag.n_warnings < 200; i++) { /* steps given with bytes that are not HLO */
    const ds_file *f = &s->files[i];
    if (f->gzipped)
      hs_diag_warn(&unknowns, &arena, HS_W_DUMP_STEP_UNREADABLE, 0, 0,
                   "%s: gzip-compressed bytes (gunzip them first, or they did not inflate): read by name only", f->name);
    else if (f->counts.error)
      hs_diag_warn(&unknowns, &arena, HS_W_DUMP_STEP_UNREADABLE, 0, 0, "%s: not read as HLO (%s)", f->name, f->counts.error);
  }
  unknowns.total = 0;
  uint32_t shown = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    const ds_file *f = &s->files[i];
    if (f->kind != DS_UNKNOWN) continue;
    if (shown++ >= 50) continue;
    hs_diag_warn(&unknowns, &arena, f->line ? HS_W_DUMP_JUNK_LINE : HS_W_DUMP_UNKNOWN_NAME, f->line, 0,
                 "%.*s: not a file name hloscope knows XLA to write; listed as unknown", 300, f->name);
  }
  if (shown > 50) hs_diag_warn(&unknowns, &arena, HS_W_DUMP_UNKNOWN_NAME, 0, 0, "%u more unknown names not listed here", shown - 50);
  json_t *u = hs_diag_json(&unknowns);
  json_array_extend(w, u);
  json_decref(u);
  hs_diag_free(&unknowns);
  hs_arena_free(&arena);
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
  /* a side with no pass steps: every pass then reads as only in the other, which says nothing of
   * the compiler; say so first */
  json_t *notes = json_array();
  for (int k = 0; k < 2; k++) {
    json_t *o = json_object_get(root, names[k]);
    if (json_integer_value(json_object_get(o, "steps")) != 0) continue;
    const char *label = json_string_value(json_object_get(o, "label"));
    char buf[512];
    snprintf(buf, sizeof buf,
             "%s (%s) has no pass steps (no module_*.NNNN.<pipeline>.after_<pass>.txt files: XLA writes them with "
             "--xla_dump_hlo_pass_re=.*), so each pass of %s shows as only in %s: that is the dump, not the compiler",
             k ? "B" : "A", label ? label : "unnamed", k ? "A" : "B", k ? "A" : "B");
    json_array_append_new(notes, json_string(buf));
  }
  json_object_set_new(root, "notes", notes);
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

/* ---- what each compile was asked for ---------------------------------------------------- */
/* One "key: value" of a text proto into out[prefix key], the value's quotes dropped; a key seen
 * again (a repeated field, or another module's file) keeps each value once, comma-joined. */
static void env_put(json_t *out, const char *prefix, const char *k, size_t kn, const char *v, size_t vn) {
  if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') v++, vn -= 2;
  char key[160];
  if (kn > sizeof key - 16) return;
  snprintf(key, sizeof key, "%s%.*s", prefix, (int)kn, k);
  json_t *val = hs_json_bytes(v, vn);
  const char *nv = json_string_value(val);
  json_t *old = json_object_get(out, key);
  const char *ov = json_string_value(old);
  if (!nv) {
    json_decref(val);
    return;
  }
  if (!ov) {
    json_object_set_new(out, key, val);
    return;
  }
  /* already there: add the value unless the list holds it */
  size_t on = strlen(ov), n = strlen(nv);
  bool has = false;
  for (const char *p = ov; (p = strstr(p, nv)) != NULL; p++)
    if ((p == ov || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) has = true;
  if (!has && on + n + 2 < 4096) {
    char *j = malloc(on + n + 2);
    if (j) {
      memcpy(j, ov, on);
      j[on] = ',';
      memcpy(j + on + 1, nv, n + 1);
      json_object_set_new(out, key, json_string(j));
      free(j);
    }
  }
  json_decref(val);
}

/* The scalar fields of a text proto at `want_depth` (0: top level) inside the block `inside`
 * (NULL: any, at depth 0), each as env_put takes it; `skip` (may be NULL): a key prefix left out. */
static void env_textproto(json_t *out, const char *t, size_t len, const char *prefix, const char *inside, int want_depth,
                          const char *skip) {
  int depth = 0;
  bool in_block = inside == NULL;
  size_t p = 0;
  while (p < len) {
    size_t e = p;
    while (e < len && t[e] != '\n') e++;
    size_t s = p, f = e;
    p = e + 1;
    while (s < f && (t[s] == ' ' || t[s] == '\t')) s++;
    while (f > s && (t[f - 1] == ' ' || t[f - 1] == '\r' || t[f - 1] == '\t')) f--;
    if (s == f) continue;
    if (t[f - 1] == '{') {
      if (depth == 0 && inside) {
        size_t kn = f - 1 - s;
        while (kn && t[s + kn - 1] == ' ') kn--;
        in_block = kn == strlen(inside) && memcmp(t + s, inside, kn) == 0;
      }
      depth++;
      continue;
    }
    if (t[s] == '}') {
      if (depth > 0) depth--;
      if (depth == 0 && inside) in_block = false;
      continue;
    }
    if (depth != want_depth || !in_block) continue;
    size_t c = s;
    while (c < f && t[c] != ':') c++;
    if (c >= f) continue;
    size_t kn = c - s, vs = c + 1;
    while (vs < f && t[vs] == ' ') vs++;
    if (skip && kn >= strlen(skip) && memcmp(t + s, skip, strlen(skip)) == 0) continue;
    env_put(out, prefix, t + s, kn, t + vs, f - vs);
  }
}

static int cmp_env_file(const void *x, const void *y) {
  return strcmp((*(const ds_file *const *)x)->name, (*(const ds_file *const *)y)->name);
}

static void dumpset_environment(const hs_dumpset *s, json_t *out) {
  if (!s || !out) return;
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->files[i].text && s->files[i].kind != DS_AFTER_OPT) n++;
  if (!n) return;
  const ds_file **list = malloc(n * sizeof *list);
  if (!list) return;
  n = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->files[i].text && s->files[i].kind != DS_AFTER_OPT) list[n++] = &s->files[i];
  qsort(list, n, sizeof *list, cmp_env_file);
  for (uint32_t i = 0; i < n; i++) {
    const ds_file *f = list[i];
    if (f->kind == DS_DEBUG_OPTIONS) /* the flags, as XLA_FLAGS spells them; xla_dump_*: where and what to dump */
      env_textproto(out, f->text, f->text_len, "--", NULL, 0, "xla_dump_");
    else if (f->kind == DS_COMPILE_OPTIONS)
      env_textproto(out, f->text, f->text_len, "compile_options.", "executable_build_options", 1, NULL);
  }
  free(list);
}

char *hs_dumpset_environment_json(const hs_dumpset *s, size_t *len) {
  json_t *o = json_object();
  if (!o) return NULL;
  dumpset_environment(s, o);
  return hs_json_finish(o, len);
}
