/* The timeline of a profile: per program its runs and per-run envelope, per op its time per
 * run and share of the envelope, its kind and who wrote it, the async pairs (time in flight,
 * exposed, hidden) and a reading in one sentence.
 *
 * Who wrote a kernel comes from the HloModuleProto the profile embeds (hlo_proto.c), or from
 * an optimized HLO dump when one is given:
 *   - library: a custom call to a BLAS/DNN library XLA dispatched (__cublas$gemm, hipBLASLt,
 *     cuDNN/MIOpen convolutions, ...);
 *   - compiler: any other custom call that the program's StableHLO does not ask for (XLA:TPU's
 *     tpu_custom_call online softmax for a naive attention); without the StableHLO it cannot be
 *     told, and it says unknown;
 *   - program: an op traced from the user's code (its metadata names an op_name);
 *   - unknown: nothing says.
 * Async pairs are found at counting time (the events are dropped after it): the -done's first
 * operand in the proto is its -start (else the name with -done turned into -start); each
 * -done pairs with the last start of its partner in the same program before it. */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

/* ---- the HLO instruction of an op ---------------------------------------------------------- */
static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t k = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
  return k;
}

const hs_prof_hlo *hs_prof_find_hlo(const hs_profile *p, bool has_pid, uint64_t program_id, uint32_t module,
                                    uint32_t name) {
  /* a linear scan would be quadratic over rows: the lookups go through a map built once */
  hs_profile *q = (hs_profile *)p; /* the map is a cache: building it does not change the profile */
  if (!q->hlo_index_built) {
    q->hlo_index_built = 1;
    for (uint32_t i = 0; i < p->n_hlos; i++) {
      const hs_prof_hlo *h = &p->hlos[i];
      if (!hs_u64map_put(&q->hlo_by_pid, mix(h->program_id, h->name), i)) break;
      if (h->module != HS_NONE && !hs_u64map_put(&q->hlo_by_module, mix((uint64_t)h->module << 1 | 1, h->name), i)) break;
      if (h->id >= 0 && !hs_u64map_put(&q->hlo_by_id, mix(h->program_id ^ 0x5bd1e995u, (uint64_t)h->id), i)) break;
    }
  }
  if (has_pid) {
    int64_t k = hs_u64map_get(&p->hlo_by_pid, mix(program_id, name));
    if (k >= 0 && p->hlos[k].program_id == program_id && p->hlos[k].name == name) return &p->hlos[k];
  }
  if (module != HS_NONE) {
    int64_t k = hs_u64map_get(&p->hlo_by_module, mix((uint64_t)module << 1 | 1, name));
    if (k >= 0 && p->hlos[k].module == module && p->hlos[k].name == name) return &p->hlos[k];
  }
  return NULL;
}

static const hs_prof_hlo *find_hlo_id(const hs_profile *p, uint64_t program_id, int64_t id) {
  int64_t k = hs_u64map_get(&p->hlo_by_id, mix(program_id ^ 0x5bd1e995u, (uint64_t)id));
  return k >= 0 && p->hlos[k].program_id == program_id && p->hlos[k].id == id ? &p->hlos[k] : NULL;
}

static bool ends_with(const char *s, const char *lit) {
  size_t n = strlen(s), k = strlen(lit);
  return n >= k && memcmp(s + n - k, lit, k) == 0;
}

/* ---- async pairs (at counting time) ------------------------------------------------------ */
typedef struct {
  uint32_t ev;
  uint64_t start;
} ev_order;

static int cmp_order(const void *a, const void *b) {
  const ev_order *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The -start a -done waits for: the proto's first operand, else the name. HS_NONE: not a done. */
static uint32_t partner_of(hs_profile *p, const hs_prof_event *e) {
  const hs_prof_program *g = e->prog != HS_NONE ? &p->progs[e->prog] : NULL;
  const hs_prof_hlo *h = hs_prof_find_hlo(p, g && g->has_pid, g ? g->program_id : 0, e->module, e->name);
  const char *name = p->strs[e->name].s;
  bool is_done = h && h->opcode != HS_NONE ? ends_with(p->strs[h->opcode].s, "-done") : strstr(name, "-done") != NULL;
  if (!is_done) return HS_NONE;
  if (h && h->operand0 >= 0) {
    const hs_prof_hlo *s = find_hlo_id(p, h->program_id, h->operand0);
    if (s) return s->name;
  }
  const char *d = strstr(name, "-done");
  if (!d) return HS_NONE;
  char buf[512];
  size_t pre = (size_t)(d - name);
  if (pre + strlen(d) + 2 > sizeof buf) return HS_NONE;
  memcpy(buf, name, pre);
  snprintf(buf + pre, sizeof buf - pre, "-start%s", d + 5);
  return hs_prof_intern_z(p, buf);
}

bool hs_timeline_async(hs_profile *p, hs_prof_event *ops, uint32_t n) {
  if (!n) return true;
  hs_u64map last = {0}, partner = {0}, pairs = {0}, wanted = {0};
  bool ok = true;
  /* Only the -done events and the events some -done waits for are put in time order (a big
   * profile has millions of events and few async pairs: sorting them all was slow, and the
   * order of the others does not matter). Which op is a -done is decided once per op. */
  uint32_t m = 0;
  for (uint32_t i = 0; ok && i < n; i++) {
    const hs_prof_event *e = &ops[i];
    uint64_t key = ((uint64_t)e->prog << 32) | e->name;
    if (hs_u64map_get(&partner, key) >= 0) continue;
    uint32_t s = partner_of(p, e);
    uint32_t pn = s == HS_NONE ? 0 : s + 1;
    if (p->diag.nomem || !hs_u64map_put(&partner, key, pn)) ok = false;
    if (pn && !hs_u64map_put(&wanted, ((uint64_t)e->prog << 32) | s, 1)) ok = false;
  }
  for (uint32_t i = 0; ok && i < n; i++) {
    uint64_t key = ((uint64_t)ops[i].prog << 32) | ops[i].name;
    m += hs_u64map_get(&partner, key) > 0 || hs_u64map_get(&wanted, key) >= 0;
  }
  ev_order *order = ok ? malloc((size_t)(m ? m : 1) * sizeof *order) : NULL;
  if (!order) ok = false;
  for (uint32_t i = 0, k = 0; ok && i < n; i++) {
    uint64_t key = ((uint64_t)ops[i].prog << 32) | ops[i].name;
    if (hs_u64map_get(&partner, key) > 0 || hs_u64map_get(&wanted, key) >= 0) order[k].ev = i, order[k++].start = ops[i].start;
  }
  if (ok && m > 1) qsort(order, m, sizeof *order, cmp_order);
  for (uint32_t k = 0; ok && k < m; k++) {
    const hs_prof_event *e = &ops[order[k].ev];
    uint64_t key = ((uint64_t)e->prog << 32) | e->name;
    int64_t pn = hs_u64map_get(&partner, key);
    if (pn > 0) {
      int64_t si = hs_u64map_get(&last, ((uint64_t)e->prog << 32) | (uint32_t)(pn - 1));
      if (si >= 0) {
        const hs_prof_event *s = &ops[si];
        int64_t a = hs_u64map_get(&pairs, key);
        if (a < 0) {
          hs_prof_async *x = HS_VEC_PUSH(p->asyncs, p->n_asyncs, p->cap_asyncs, ok);
          if (!x) break;
          memset(x, 0, sizeof *x);
          x->start = s->name;
          x->done = e->name;
          x->module = e->module;
          if (e->prog != HS_NONE) {
            x->has_pid = p->progs[e->prog].has_pid;
            x->program_id = p->progs[e->prog].program_id;
            x->runs = p->progs[e->prog].runs;
          }
          a = p->n_asyncs - 1;
          if (!hs_u64map_put(&pairs, key, (uint32_t)a)) ok = false;
        }
        hs_prof_async *x = &p->asyncs[a];
        uint64_t end = hs_sat_add(e->start, e->dur);
        x->occurrences++;
        x->in_flight = hs_sat_add(x->in_flight, end > s->start ? end - s->start : 0);
        x->exposed = hs_sat_add(x->exposed, e->self);
      }
    }
    /* every event may be some -done's start: remember the latest */
    if (hs_u64map_get(&last, key) >= 0) hs_u64map_set(&last, key, order[k].ev);
    else if (!hs_u64map_put(&last, key, order[k].ev)) ok = false;
  }
  free(order);
  hs_u64map_free(&last);
  hs_u64map_free(&partner);
  hs_u64map_free(&pairs);
  hs_u64map_free(&wanted);
  return ok;
}

/* ---- classification ------------------------------------------------------------------------ */
static const char *const COLLECTIVES[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                                          "collective-permute", "collective-broadcast", "ragged-all-to-all",
                                          "send", "recv"};

/* "fusion", "custom", "copy", "collective" or "other", from the opcode (else the name). */
static const char *op_kind(const char *opcode, const char *name) {
  const char *s = opcode ? opcode : name;
  if (!opcode && strstr(name, "fusion")) return "fusion";
  if (strcmp(s, "fusion") == 0) return "fusion";
  if (strncmp(s, "custom-call", 11) == 0) return "custom";
  if (strncmp(s, "copy", 4) == 0 && (s[4] == 0 || s[4] == '-' || s[4] == '.')) return "copy";
  for (size_t i = 0; i < sizeof COLLECTIVES / sizeof COLLECTIVES[0]; i++) {
    size_t k = strlen(COLLECTIVES[i]);
    if (strncmp(s, COLLECTIVES[i], k) == 0 && (s[k] == 0 || s[k] == '-' || s[k] == '.')) return "collective";
  }
  return "other";
}

static bool contains_ci(const char *s, const char *lit) {
  size_t k = strlen(lit);
  for (; *s; s++) {
    size_t i = 0;
    while (i < k && s[i] && (s[i] | 0x20) == lit[i]) i++;
    if (i == k) return true;
  }
  return false;
}

/* BLAS, DNN, FFT and solver libraries XLA dispatches custom calls to. */
static bool is_library_target(const char *t) {
  static const char *const LIBS[] = {"blas", "dnn", "miopen", "cufft", "hipfft", "rocfft", "solver", "lapack", "mkl"};
  for (size_t i = 0; i < sizeof LIBS / sizeof LIBS[0]; i++)
    if (contains_ci(t, LIBS[i])) return true;
  return false;
}

static bool text_has(const hs_doc *d, const char *needle) {
  size_t k = strlen(needle);
  if (!k || k > d->len) return false;
  for (const char *s = d->text, *end = d->text + d->len - k + 1; s < end; s++) {
    s = memchr(s, needle[0], (size_t)(end - s));
    if (!s) return false;
    if (memcmp(s, needle, k) == 0) return true;
  }
  return false;
}

/* What an op's HLO says, from the embedded proto or from the dump. */
typedef struct {
  char opcode[64], target[256], op_name[512], source[512];
  bool known; /* an instruction was found */
  int32_t line;   /* in the dump, 1-based; 0 when no dump line */
  const char *line_text;
  size_t line_len;
} op_facts;

static void copy_slice(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = 0;
}

static int32_t find_dump_module(const hs_doc *d, const char *name) {
  if (!d) return -1;
  size_t n = strlen(name);
  for (uint32_t m = 0; m < d->n_modules; m++) {
    hs_slice s = d->modules[m].name;
    if (s.len == n && memcmp(hs_sp(d, s), name, n) == 0) return (int32_t)m;
  }
  return d->n_modules == 1 ? 0 : -1; /* a lone module: the dump the user gave for this profile */
}

static void facts_from_dump(const hs_doc *d, int32_t m, const char *name, op_facts *f) {
  if (m < 0) return;
  const hs_module *mod = &d->modules[m];
  size_t n = strlen(name);
  for (uint32_t c = mod->first_comp; c < mod->first_comp + mod->comp_count; c++) {
    const hs_comp *cp = &d->comps[c];
    for (uint32_t i = cp->first; i < cp->first + cp->count; i++) {
      const hs_instr *in = &d->instrs[i];
      if (in->name.len != n || memcmp(hs_sp(d, in->name), name, n) != 0) continue;
      f->line = (int32_t)in->line;
      size_t off = in->line && in->line <= d->n_lines ? d->lines[in->line - 1].off : in->name.off;
      const char *s = d->text + off, *e = memchr(s, '\n', d->len - off);
      f->line_text = s;
      f->line_len = e ? (size_t)(e - s) : d->len - off;
      if (f->line_len && s[f->line_len - 1] == '\r') f->line_len--;
      if (!f->known) {
        f->known = true;
        copy_slice(f->opcode, sizeof f->opcode, hs_sp(d, in->opcode), in->opcode.len);
        const hs_hlo_instr *h = hs_hlo_of(d, in);
        if (h->custom_call_target.len) {
          hs_slice t = h->custom_call_target;
          const char *ts = hs_sp(d, t);
          size_t tl = t.len;
          if (tl >= 2 && ts[0] == '"') ts++, tl -= 2;
          copy_slice(f->target, sizeof f->target, ts, tl);
        }
        if (h->op_name.len) copy_slice(f->op_name, sizeof f->op_name, hs_sp(d, h->op_name), h->op_name.len);
      }
      return;
    }
  }
}

static const char *written_by(const op_facts *f, const hs_doc *stablehlo) {
  if (!f->known) return "unknown";
  if (strcmp(f->opcode, "custom-call") == 0) {
    if (f->target[0] && is_library_target(f->target)) return "library";
    if (!stablehlo || !f->target[0]) return "unknown";
    return text_has(stablehlo, f->target) ? "program" : "compiler";
  }
  return f->op_name[0] ? "program" : "unknown";
}

/* ---- output -------------------------------------------------------------------------------- */
static void fmt_time(uint64_t ps, char *buf, size_t cap) {
  double us = (double)ps / 1e6;
  if (us >= 1e4) snprintf(buf, cap, "%.2f ms", us / 1e3);
  else snprintf(buf, cap, "%.1f \xc2\xb5s", us);
}

static bool program_matches(const hs_profile *p, const char *want, uint32_t name, bool has_pid, uint64_t pid) {
  if (!want || !*want) return true;
  if (name != HS_NONE && strcmp(p->strs[name].s, want) == 0) return true;
  char buf[24];
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)pid);
  return has_pid && strcmp(buf, want) == 0;
}

static const hs_prof_program *program_of(const hs_profile *p, bool has_pid, uint64_t pid, uint32_t module) {
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const hs_prof_program *g = &p->progs[i];
    if (has_pid ? g->has_pid && g->program_id == pid : !g->has_pid && g->name == module) return g;
  }
  return NULL;
}

static void say_nothing_counted(const hs_profile *p, char *buf, size_t cap) {
  uint64_t events = 0;
  for (uint32_t l = 0; l < p->n_lines; l++) events += p->lines[l].events;
  int o = snprintf(buf, cap, "This profile holds %u plane%s and %llu event%s", p->n_planes, p->n_planes == 1 ? "" : "s",
                   (unsigned long long)events, events == 1 ? "" : "s");
  for (uint32_t i = 0; i < p->n_planes && i < 4 && o > 0 && (size_t)o < cap; i++)
    o += snprintf(buf + o, cap - (size_t)o, "%s%s", i ? ", " : " (", p->strs[p->planes[i].name].s);
  if (p->n_planes && o > 0 && (size_t)o < cap) o += snprintf(buf + o, cap - (size_t)o, "%s)", p->n_planes > 4 ? ", ..." : "");
  if (o > 0 && (size_t)o < cap)
    snprintf(buf + o, cap - (size_t)o,
             ", but no HLO ops: no XLA Ops line on a /device:TPU plane, no GPU kernels with hlo_op, no XLA:CPU "
             "thunks. It is not a trace of XLA-compiled programs (a TensorFlow-only or Python-only trace?): "
             "profile jitted JAX calls with jax.profiler.trace.");
}

char *hs_profile_timeline_json(const hs_profile *p, const hs_timeline_options *opt, size_t *len) {
  if (!p) return NULL;
  hs_timeline_options none = {0};
  if (!opt) opt = &none;
  json_t *o = json_object();
  json_t *warnings = hs_warnings_json(p->diag.warnings, p->diag.n_warnings);
  /* programs */
  json_t *progs = json_array();
  const hs_prof_program *top = NULL; /* the program with the most device time, for the reading */
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const hs_prof_program *g = &p->progs[i];
    if (!program_matches(p, opt->program, g->name, g->has_pid, g->program_id)) continue;
    json_t *go = json_object();
    json_object_set_new(go, "name", hs_prof_json_str(p, g->name));
    json_object_set_new(go, "program_id", hs_prof_json_pid(g->has_pid, g->program_id));
    json_object_set_new(go, "runs", hs_prof_json_ps(g->runs));
    json_object_set_new(go, "envelope_ps", hs_prof_json_ps(g->envelope));
    json_object_set_new(go, "per_run_ps", hs_prof_json_ps(g->runs ? g->envelope / g->runs : 0));
    json_array_append_new(progs, go);
    if (!top || g->envelope > top->envelope) top = g;
  }
  json_object_set_new(o, "programs", progs);
  if (opt->program && *opt->program && !json_array_size(progs)) {
    char m[600];
    snprintf(m, sizeof m, "no program named or numbered '%.500s' in this profile", opt->program);
    json_t *w = json_pack("{s:s,s:i,s:i,s:s}", "code", hs_warning_name(HS_W_PROFILE_SKIPPED), "line", 0, "column", 0,
                          "message", m);
    json_array_append_new(warnings, w);
  }
  /* rows */
  json_t *rows = json_array();
  const hs_prof_op *top_op = NULL;
  uint32_t not_asked = 0;
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const hs_prof_op *op = &p->ops[i];
    if (!program_matches(p, opt->program, op->module, op->has_pid, op->program_id)) continue;
    const hs_prof_program *g = program_of(p, op->has_pid, op->program_id, op->module);
    const char *name = p->strs[op->name].s;
    op_facts f;
    memset(&f, 0, sizeof f);
    const hs_prof_hlo *h = hs_prof_find_hlo(p, op->has_pid, op->program_id, op->module, op->name);
    if (h) {
      f.known = true;
      if (h->opcode != HS_NONE) copy_slice(f.opcode, sizeof f.opcode, p->strs[h->opcode].s, p->strs[h->opcode].len);
      if (h->target != HS_NONE) copy_slice(f.target, sizeof f.target, p->strs[h->target].s, p->strs[h->target].len);
      if (h->op_name != HS_NONE) copy_slice(f.op_name, sizeof f.op_name, p->strs[h->op_name].s, p->strs[h->op_name].len);
      if (h->source_file != HS_NONE)
        snprintf(f.source, sizeof f.source, "%s:%u", p->strs[h->source_file].s, h->source_line);
    }
    if (opt->hlo && op->module != HS_NONE)
      facts_from_dump(opt->hlo, find_dump_module(opt->hlo, p->strs[op->module].s), name, &f);
    const char *wb = written_by(&f, opt->stablehlo);
    json_t *x = json_object();
    json_object_set_new(x, "name", hs_prof_json_str(p, op->name));
    json_object_set_new(x, "program_id", hs_prof_json_pid(op->has_pid, op->program_id));
    json_object_set_new(x, "module", hs_prof_json_str(p, op->module));
    json_object_set_new(x, "kind", json_string(op_kind(f.known && f.opcode[0] ? f.opcode : NULL, name)));
    json_object_set_new(x, "written_by", json_string(wb));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(op->occurrences));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(op->total));
    json_object_set_new(x, "self_ps", hs_prof_json_ps(op->self));
    uint64_t per_run = op->runs ? op->total / op->runs : 0;
    json_object_set_new(x, "per_run_ps", hs_prof_json_ps(per_run));
    json_object_set_new(x, "share", json_real(g && g->envelope ? (double)op->total / (double)g->envelope : 0.0));
    if (f.line) {
      json_t *hl = json_object();
      json_object_set_new(hl, "line", json_integer(f.line));
      json_object_set_new(hl, "text", hs_json_bytes(f.line_text, f.line_len));
      json_object_set_new(x, "hlo", hl);
    } else {
      json_object_set_new(x, "hlo", json_null());
    }
    json_object_set_new(x, "opcode", f.opcode[0] ? json_string(f.opcode) : json_null());
    json_object_set_new(x, "target", f.target[0] ? hs_json_bytes(f.target, strlen(f.target)) : json_null());
    json_object_set_new(x, "op_name", f.op_name[0] ? hs_json_bytes(f.op_name, strlen(f.op_name)) : json_null());
    json_object_set_new(x, "source", f.source[0] ? hs_json_bytes(f.source, strlen(f.source)) : json_null());
    json_array_append_new(rows, x);
    if (!top_op || per_run > (top_op->runs ? top_op->total / top_op->runs : 0)) top_op = op;
    not_asked += strcmp(wb, "compiler") == 0;
  }
  json_object_set_new(o, "rows", rows);
  /* async pairs */
  json_t *as = json_array();
  uint64_t fl = 0, ex = 0;
  uint32_t n_pairs = 0;
  for (uint32_t i = 0; i < p->n_asyncs; i++) {
    const hs_prof_async *a = &p->asyncs[i];
    if (!program_matches(p, opt->program, a->module, a->has_pid, a->program_id)) continue;
    uint64_t runs = a->runs ? a->runs : 1;
    uint64_t in_flight = a->in_flight / runs, exposed = a->exposed / runs;
    uint64_t hidden = in_flight > exposed ? in_flight - exposed : 0;
    char f1[32], f2[32], sentence[256];
    fmt_time(in_flight, f1, sizeof f1);
    fmt_time(exposed, f2, sizeof f2);
    const char *what = strncmp(p->strs[a->start].s, "copy", 4) == 0 ? "copy" : "transfer";
    snprintf(sentence, sizeof sentence, "%s of %s, %s exposed: %s", f1, what, f2,
             exposed * 10 <= in_flight  ? "it hid behind compute"
             : exposed * 2 >= in_flight ? "the core waited for most of it"
                                        : "it partly hid behind compute");
    json_t *x = json_object();
    json_object_set_new(x, "start", hs_prof_json_str(p, a->start));
    json_object_set_new(x, "done", hs_prof_json_str(p, a->done));
    json_object_set_new(x, "program_id", hs_prof_json_pid(a->has_pid, a->program_id));
    json_object_set_new(x, "module", hs_prof_json_str(p, a->module));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(a->occurrences));
    json_object_set_new(x, "in_flight_ps", hs_prof_json_ps(in_flight));
    json_object_set_new(x, "exposed_ps", hs_prof_json_ps(exposed));
    json_object_set_new(x, "hidden_ps", hs_prof_json_ps(hidden));
    json_object_set_new(x, "exposed_total_ps", hs_prof_json_ps(a->exposed));
    json_object_set_new(x, "sentence", json_string(sentence));
    json_array_append_new(as, x);
    fl += in_flight;
    ex += exposed;
    n_pairs++;
  }
  json_object_set_new(o, "async", as);
  /* the reading */
  char reading[1024];
  if (!p->n_ops) {
    say_nothing_counted(p, reading, sizeof reading);
  } else if (!json_array_size(rows)) {
    snprintf(reading, sizeof reading, "No op of the program '%.500s' was counted in this profile.", opt->program);
  } else {
    int k = 0;
    if (top) {
      char env[32];
      fmt_time(top->runs ? top->envelope / top->runs : 0, env, sizeof env);
      k = snprintf(reading, sizeof reading, "%s ran %llu time%s, %s per run", top->name == HS_NONE ? "a program" : p->strs[top->name].s,
                   (unsigned long long)top->runs, top->runs == 1 ? "" : "s", env);
    }
    if (top_op && k >= 0 && (size_t)k < sizeof reading) {
      char t[32];
      fmt_time(top_op->runs ? top_op->total / top_op->runs : 0, t, sizeof t);
      k += snprintf(reading + k, sizeof reading - (size_t)k, "%s%s took the most device time per run (%s)", k ? "; " : "",
                    p->strs[top_op->name].s, t);
    }
    if (n_pairs && k >= 0 && (size_t)k < sizeof reading) {
      char f1[32], f2[32];
      fmt_time(fl, f1, sizeof f1);
      fmt_time(ex, f2, sizeof f2);
      k += snprintf(reading + k, sizeof reading - (size_t)k, "; %u async pair%s: %s in flight per run, %s exposed: %s",
                    n_pairs, n_pairs == 1 ? "" : "s", f1, f2,
                    ex * 10 <= fl ? "they hid behind compute" : ex * 2 >= fl ? "the core waited for most of it" : "partly hidden");
    }
    if (not_asked && k >= 0 && (size_t)k < sizeof reading)
      k += snprintf(reading + k, sizeof reading - (size_t)k, "; %u kernel%s no line of the program asked for", not_asked,
                    not_asked == 1 ? "" : "s");
    if (k >= 0 && (size_t)k + 1 < sizeof reading) snprintf(reading + k, sizeof reading - (size_t)k, ".");
  }
  json_object_set_new(o, "reading", hs_json_bytes(reading, strlen(reading)));
  json_object_set_new(o, "warnings", warnings);
  return hs_json_finish(o, len);
}
