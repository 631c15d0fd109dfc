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
    const hs_prof_hlo *s = hs_prof_find_hlo_id(p, h->program_id, h->operand0);
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

/* The program and device of an event, as one key half: a -done pairs with the last -start on
 * its own device. */
static uint32_t owner_of(const hs_profile *p, const hs_prof_event *e) {
  if (e->prog == HS_NONE) return HS_NONE;
  uint64_t k = (uint64_t)e->prog * (p->n_devs ? p->n_devs : 1) + p->planes[p->lines[e->line].plane].dev;
  return k < HS_NONE ? (uint32_t)k : e->prog;
}

/* Runs of a program on the devices whose transfers can be told (what per run divides by). */
static uint64_t async_runs(const hs_profile *p, uint32_t prog) {
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  uint64_t r = 0;
  for (uint32_t i = first; i < first + n; i++)
    if (hs_prof_device_async_known(p, p->devruns[i].dev)) r += p->devruns[i].runs;
  return r;
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
  uint32_t k0 = 0;
  for (uint32_t i = 0; ok && i < n; i++) {
    uint64_t key = ((uint64_t)ops[i].prog << 32) | ops[i].name;
    /* on a TPU chip without Async XLA Ops events, hidden and exposed time cannot be told */
    if (!hs_prof_device_async_known(p, p->planes[p->lines[ops[i].line].plane].dev)) continue;
    if (hs_u64map_get(&partner, key) > 0 || hs_u64map_get(&wanted, key) >= 0) order[k0].ev = i, order[k0++].start = ops[i].start;
  }
  m = k0;
  if (ok && m > 1) qsort(order, m, sizeof *order, cmp_order);
  for (uint32_t k = 0; ok && k < m; k++) {
    const hs_prof_event *e = &ops[order[k].ev];
    uint64_t key = ((uint64_t)e->prog << 32) | e->name;
    uint64_t own = ((uint64_t)owner_of(p, e) << 32) | e->name;
    int64_t pn = hs_u64map_get(&partner, key);
    if (pn > 0) {
      int64_t si = hs_u64map_get(&last, ((uint64_t)owner_of(p, e) << 32) | (uint32_t)(pn - 1));
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
            x->runs = async_runs(p, e->prog);
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
    if (hs_u64map_get(&last, own) >= 0) hs_u64map_set(&last, own, order[k].ev);
    else if (!hs_u64map_put(&last, own, order[k].ev)) ok = false;
  }
  free(order);
  hs_u64map_free(&last);
  hs_u64map_free(&partner);
  hs_u64map_free(&pairs);
  hs_u64map_free(&wanted);
  return ok;
}

/* ---- classification ------------------------------------------------------------------------ */
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
      size_t off = in->line && in->line <= d->n_lines ? hs_line_off(d, in->line - 1) : in->name.off;
      const char *s = d->text + off, *e = memchr(s, '\n', d->len - off);
      f->line_text = s;
      f->line_len = e ? (size_t)(e - s) : d->len - off;
      if (f->line_len && s[f->line_len - 1] == '\r') f->line_len--;
      if (!f->known) {
        f->known = true;
        copy_slice(f->opcode, sizeof f->opcode, hs_sp(d, hs_opcode(d, in)), hs_opcode(d, in).len);
        const hs_hlo_instr hv = hs_hlo_of(d, in), *h = &hv;
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
static bool program_matches(const hs_profile *p, const char *want, uint32_t name, bool has_pid, uint64_t pid) {
  if (!want || !*want) return true;
  if (name != HS_NONE && strcmp(p->strs[name].s, want) == 0) return true;
  char buf[24];
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)pid);
  return has_pid && strcmp(buf, want) == 0;
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

/* The facts of an op: from the embedded proto, then the dump (its line, and what the proto
 * lacked). */
static void op_facts_of(const hs_profile *p, const hs_prof_op *op, const hs_timeline_options *opt, op_facts *f) {
  memset(f, 0, sizeof *f);
  const hs_prof_hlo *h = hs_prof_find_hlo(p, op->has_pid, op->program_id, op->module, op->name);
  if (h) {
    f->known = true;
    if (h->opcode != HS_NONE) copy_slice(f->opcode, sizeof f->opcode, p->strs[h->opcode].s, p->strs[h->opcode].len);
    if (h->target != HS_NONE) copy_slice(f->target, sizeof f->target, p->strs[h->target].s, p->strs[h->target].len);
    if (h->op_name != HS_NONE) copy_slice(f->op_name, sizeof f->op_name, p->strs[h->op_name].s, p->strs[h->op_name].len);
    if (h->source_file != HS_NONE) snprintf(f->source, sizeof f->source, "%s:%u", p->strs[h->source_file].s, h->source_line);
  }
  if (opt->hlo && op->module != HS_NONE)
    facts_from_dump(opt->hlo, find_dump_module(opt->hlo, p->strs[op->module].s), p->strs[op->name].s, f);
}

/* "2 kernels per run: A and B" when an op launches more than one kernel (or occurs more than
 * once) per run and device. */
static json_t *per_run_note(const hs_profile *p, uint32_t op_index, double per_run) {
  if (per_run < 1.5) return json_null();
  uint32_t n = 0;
  const char *names[3] = {0};
  for (uint32_t i = 0; i < p->n_kerns; i++) {
    if (p->kerns[i].op != op_index) continue;
    if (n < 3) names[n] = p->strs[p->kerns[i].kernel].s;
    n++;
  }
  char buf[1024];
  hs_prof_text t = hs_prof_text_in(buf, sizeof buf);
  if (n > 1) {
    hs_prof_put(&t, "%.4g kernel launches per run: %u kernels, ", per_run, n);
    for (uint32_t i = 0; i < n && i < 3; i++)
      hs_prof_put(&t, "%s%.60s%s", i == 0 ? "" : i + 1 == n || i == 2 ? " and " : ", ", names[i], strlen(names[i]) > 60 ? "..." : "");
    if (n > 3) hs_prof_put(&t, " and %u more", n - 3);
  } else if (n == 1) {
    hs_prof_put(&t, "%.4g launches per run of one kernel, %.60s", per_run, names[0]);
  } else {
    hs_prof_put(&t, "%.4g occurrences per run", per_run);
  }
  return hs_json_bytes(buf, t.n);
}

/* The rows: one per op of the programs kept, then the device time no HLO op accounts for. */
static json_t *rows_json(const hs_profile *p, const hs_timeline_options *opt, uint32_t *row_of_op,
                         const hs_prof_op **top_op, uint32_t *not_asked, uint64_t *unattributed, uint64_t *unattr_n) {
  json_t *rows = json_array();
  uint64_t mean_step = hs_prof_mean_step(p);
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const hs_prof_op *op = &p->ops[i];
    row_of_op[i] = HS_NONE;
    if (!program_matches(p, opt->program, op->module, op->has_pid, op->program_id)) continue;
    const hs_prof_program *g = op->prog != HS_NONE ? &p->progs[op->prog] : NULL;
    const char *name = p->strs[op->name].s;
    op_facts f;
    op_facts_of(p, op, opt, &f);
    const char *wb = written_by(&f, opt->stablehlo);
    uint64_t per_run = hs_prof_op_per_run(op);
    double div = (double)op->runs * (op->devices ? op->devices : 1);
    json_t *x = json_object();
    json_object_set_new(x, "name", hs_prof_json_str(p, op->name));
    json_object_set_new(x, "program_id", hs_prof_json_pid(op->has_pid, op->program_id));
    json_object_set_new(x, "module", hs_prof_json_str(p, op->module));
    json_object_set_new(x, "kind", json_string(hs_prof_kind_of(f.known && f.opcode[0] ? f.opcode : NULL, name)));
    json_object_set_new(x, "written_by", json_string(wb));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(op->occurrences));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(op->total));
    json_object_set_new(x, "self_ps", hs_prof_json_ps(op->self));
    json_object_set_new(x, "per_run_ps", hs_prof_json_ps(per_run));
    json_object_set_new(x, "share", json_real(g && g->per_run > 0 && div > 0 ? (double)op->total / div / g->per_run : 0.0));
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
    json_object_set_new(x, "device_count", json_integer(op->devices));
    json_object_set_new(x, "kernels", hs_prof_kernels_json(p, i));
    json_object_set_new(x, "per_run_count", div > 0 ? json_real((double)op->occurrences / div) : json_null());
    json_object_set_new(x, "per_run_note", div > 0 ? per_run_note(p, i, (double)op->occurrences / div) : json_null());
    json_object_set_new(x, "instruction", hs_prof_instruction_json(p, op));
    /* per device, when there are several */
    json_t *devs = json_array();
    uint32_t first = 0, n = op->devices > 1 ? hs_prof_opdevs_of(p, i, &first) : 0;
    for (uint32_t k = first; n && k < first + n; k++) {
      const hs_prof_opdev *od = &p->opdevs[k];
      uint64_t runs = 0, env = 0;
      uint32_t df = 0, nd = g ? hs_prof_devruns_of(p, op->prog, &df) : 0;
      for (uint32_t j = df; j < df + nd; j++)
        if (p->devruns[j].dev == od->dev) runs = p->devruns[j].runs, env = p->devruns[j].envelope;
      json_t *d = json_object();
      json_object_set_new(d, "plane", hs_prof_json_str(p, p->planes[p->devs[od->dev]].name));
      json_object_set_new(d, "occurrences", hs_prof_json_ps(od->occurrences));
      json_object_set_new(d, "total_ps", hs_prof_json_ps(od->total));
      json_object_set_new(d, "self_ps", hs_prof_json_ps(od->self));
      json_object_set_new(d, "per_run_ps", hs_prof_json_ps(runs ? od->total / runs : 0));
      json_object_set_new(d, "share", json_real(env ? (double)od->total / (double)env : 0.0));
      json_array_append_new(devs, d);
    }
    json_object_set_new(x, "devices", devs);
    if (p->n_steps) {
      uint64_t per_step = op->in_steps / p->n_steps;
      json_object_set_new(x, "per_step_ps", hs_prof_json_ps(per_step));
      json_object_set_new(x, "step_share", json_real(mean_step ? (double)per_step / (double)mean_step : 0.0));
    }
    row_of_op[i] = (uint32_t)json_array_size(rows);
    json_array_append_new(rows, x);
    if (!*top_op || per_run > hs_prof_op_per_run(*top_op)) *top_op = op;
    *not_asked += strcmp(wb, "compiler") == 0;
  }
  /* device time no HLO op accounts for (GPU kernels without an hlo_op): one row */
  json_t *un = opt->program && *opt->program ? json_array() : hs_prof_kernels_json(p, HS_NONE);
  if (json_array_size(un)) {
    uint64_t count = 0, total = 0;
    size_t k;
    json_t *kx;
    json_array_foreach(un, k, kx) {
      count += (uint64_t)json_integer_value(json_object_get(kx, "occurrences"));
      total += (uint64_t)json_integer_value(json_object_get(kx, "total_ps"));
    }
    char name[512];
    if (json_array_size(un) == 1) snprintf(name, sizeof name, "%s", json_string_value(json_object_get(json_array_get(un, 0), "name")));
    else snprintf(name, sizeof name, "%zu kernels without an HLO op", json_array_size(un));
    json_t *x = json_object();
    json_object_set_new(x, "name", json_string(name));
    json_object_set_new(x, "program_id", json_null());
    json_object_set_new(x, "module", json_null());
    json_object_set_new(x, "kind", json_string("unattributed"));
    json_object_set_new(x, "written_by", json_string("unknown"));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(count));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(total));
    json_object_set_new(x, "self_ps", hs_prof_json_ps(total));
    json_object_set_new(x, "per_run_ps", hs_prof_json_ps(0));
    json_object_set_new(x, "share", json_real(0.0));
    json_object_set_new(x, "hlo", json_null());
    json_object_set_new(x, "opcode", json_null());
    json_object_set_new(x, "target", json_null());
    json_object_set_new(x, "op_name", json_null());
    json_object_set_new(x, "source", json_null());
    json_object_set_new(x, "device_count", json_null());
    json_object_set_new(x, "kernels", un);
    json_object_set_new(x, "per_run_count", json_null());
    json_object_set_new(x, "per_run_note", json_string("device time that no HLO op accounts for: the profile gives these kernels no hlo_op"));
    json_object_set_new(x, "instruction", json_null());
    json_object_set_new(x, "devices", json_array());
    json_array_append_new(rows, x);
    *unattributed = total;
    *unattr_n = count;
  } else {
    json_decref(un);
  }
  return rows;
}

/* What an async pair moves, from the embedded HloModuleProto: its kind (the start's opcode
 * without "-start"; an async-start's: its computation's ROOT opcode, as `hloscope overlap` says
 * it) and bytes (the done's result). null each when the profile carries no HLO for them. */
static void transfer_of(const hs_profile *p, const hs_prof_async *a, json_t *x) {
  const hs_prof_hlo *s = hs_prof_find_hlo(p, a->has_pid, a->program_id, a->module, a->start);
  const hs_prof_hlo *d = hs_prof_find_hlo(p, a->has_pid, a->program_id, a->module, a->done);
  json_t *kind = json_null(), *bytes = json_null();
  if (s && s->opcode != HS_NONE) {
    const char *op = p->strs[s->opcode].s;
    size_t n = strlen(op);
    if (n > 6 && strcmp(op + n - 6, "-start") == 0) n -= 6;
    if (n == 5 && strncmp(op, "async", 5) == 0 && s->called >= 0) {
      for (uint32_t c = 0; c < p->n_hcomps; c++) {
        const hs_prof_hcomp *hc = &p->hcomps[c];
        if (hc->program_id != s->program_id || hc->id != s->called) continue;
        const hs_prof_hlo *r = hs_prof_find_hlo_id(p, hc->program_id, hc->root);
        if (r && r->opcode != HS_NONE) op = p->strs[r->opcode].s, n = strlen(op);
        break;
      }
    }
    kind = json_stringn(op, n);
  }
  if (d && d->shape != HS_NONE) {
    const char *t = p->strs[d->shape].s;
    hs_arena ar;
    memset(&ar, 0, sizeof ar);
    size_t pos = 0;
    const hs_type *ty = hs_parse_hlo_shape(&ar, t, strlen(t), &pos);
    if (ty) bytes = json_integer((json_int_t)hs_type_bytes(ty));
    hs_arena_free(&ar);
  }
  json_object_set_new(x, "kind", kind);
  json_object_set_new(x, "bytes", bytes);
}

/* The async pairs of the programs kept; in flight and exposed per run summed into *fl, *ex. */
static json_t *async_json(const hs_profile *p, const hs_timeline_options *opt, uint64_t *fl, uint64_t *ex, uint32_t *n_pairs) {
  json_t *as = json_array();
  for (uint32_t i = 0; i < p->n_asyncs; i++) {
    const hs_prof_async *a = &p->asyncs[i];
    if (!program_matches(p, opt->program, a->module, a->has_pid, a->program_id)) continue;
    uint64_t runs = a->runs ? a->runs : 1;
    uint64_t in_flight = a->in_flight / runs, exposed = a->exposed / runs;
    uint64_t hidden = in_flight > exposed ? in_flight - exposed : 0;
    char f1[32], f2[32], sentence[256];
    hs_prof_fmt_time(in_flight, f1, sizeof f1);
    hs_prof_fmt_time(exposed, f2, sizeof f2);
    const char *what = strncmp(p->strs[a->start].s, "copy", 4) == 0 ? "copy" : "transfer";
    snprintf(sentence, sizeof sentence, "%s of %s, %s exposed: %s", f1, what, f2,
             exposed * 10 <= in_flight  ? "it hid behind compute"
             : exposed * 2 >= in_flight ? "the core waited for most of it"
                                        : "it partly hid behind compute");
    json_t *x = json_object();
    json_object_set_new(x, "start", hs_prof_json_str(p, a->start));
    json_object_set_new(x, "done", hs_prof_json_str(p, a->done));
    transfer_of(p, a, x);
    json_object_set_new(x, "program_id", hs_prof_json_pid(a->has_pid, a->program_id));
    json_object_set_new(x, "module", hs_prof_json_str(p, a->module));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(a->occurrences));
    json_object_set_new(x, "in_flight_ps", hs_prof_json_ps(in_flight));
    json_object_set_new(x, "exposed_ps", hs_prof_json_ps(exposed));
    json_object_set_new(x, "hidden_ps", hs_prof_json_ps(hidden));
    json_object_set_new(x, "exposed_total_ps", hs_prof_json_ps(a->exposed));
    json_object_set_new(x, "sentence", json_string(sentence));
    json_array_append_new(as, x);
    *fl += in_flight;
    *ex += exposed;
    (*n_pairs)++;
  }
  return as;
}

char *hs_profile_timeline_json(const hs_profile *p, const hs_timeline_options *opt, size_t *len) {
  if (!p) return NULL;
  hs_timeline_options none = {0};
  if (!opt) opt = &none;
  uint32_t *row_of_op = malloc(((size_t)p->n_ops + 1) * sizeof *row_of_op);
  if (!row_of_op) return NULL;
  json_t *o = json_object();
  json_t *warnings = hs_warnings_json(p->diag.warnings, p->diag.n_warnings);
  /* rows first: the programs' pictures refer to them */
  const hs_prof_op *top_op = NULL;
  uint32_t not_asked = 0;
  uint64_t unattributed = 0, unattr_n = 0;
  json_t *rows = rows_json(p, opt, row_of_op, &top_op, &not_asked, &unattributed, &unattr_n);
  /* programs: per device, and the one with the most device time (for the reading) */
  json_t *progs = json_array();
  uint32_t top = HS_NONE;
  uint64_t top_busy = 0;
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const hs_prof_program *g = &p->progs[i];
    if (!program_matches(p, opt->program, g->name, g->has_pid, g->program_id)) continue;
    uint32_t df, nd = hs_prof_devruns_of(p, i, &df);
    uint64_t busy = 0;
    for (uint32_t k = df; k < df + nd; k++) busy = hs_sat_add(busy, p->devruns[k].busy);
    json_t *go = json_object();
    json_object_set_new(go, "name", hs_prof_json_str(p, g->name));
    json_object_set_new(go, "program_id", hs_prof_json_pid(g->has_pid, g->program_id));
    json_object_set_new(go, "runs", hs_prof_json_ps(g->runs));
    json_object_set_new(go, "envelope_ps", hs_prof_json_ps(g->envelope));
    json_object_set_new(go, "per_run_ps", hs_prof_json_ps(g->per_run_ps));
    json_object_set_new(go, "device_count", json_integer(g->devices));
    json_object_set_new(go, "runs_differ", json_boolean(g->runs_differ));
    json_object_set_new(go, "busy_ps", hs_prof_json_ps(busy));
    json_object_set_new(go, "devices", hs_prof_program_devices_json(p, i));
    char sb[1024];
    hs_prof_text st = hs_prof_text_in(sb, sizeof sb);
    hs_prof_say_devices(p, i, true, &st);
    hs_prof_say_async_unknown(p, i, &st);
    json_object_set_new(go, "sentence", st.n > 2 ? hs_json_bytes(sb + 1, st.n - 1) : json_null());
    json_object_set_new(go, "picture", hs_prof_picture_json(p, i, row_of_op));
    json_array_append_new(progs, go);
    if (top == HS_NONE || busy > top_busy) top = i, top_busy = busy;
  }
  json_object_set_new(o, "programs", progs);
  size_t n_listed = json_array_size(progs);
  if (opt->program && *opt->program && !n_listed) {
    char m[600];
    snprintf(m, sizeof m, "no program named or numbered '%.500s' in this profile", opt->program);
    json_t *w = json_pack("{s:s,s:i,s:i,s:s}", "code", hs_warning_name(HS_W_PROFILE_SKIPPED), "line", 0, "column", 0,
                          "message", m);
    json_array_append_new(warnings, w);
  }
  /* which program a page opens on: the one there is, else all of them (they show the most) */
  json_t *open = json_null();
  if (n_listed == 1) {
    json_t *only = json_array_get(progs, 0);
    json_decref(open);
    open = json_pack("{s:O,s:O}", "name", json_object_get(only, "name"), "program_id", json_object_get(only, "program_id"));
  }
  json_object_set_new(o, "rows", rows);
  uint64_t fl = 0, ex = 0;
  uint32_t n_pairs = 0;
  json_object_set_new(o, "async", async_json(p, opt, &fl, &ex, &n_pairs));
  /* the reading */
  char reading[4096];
  hs_prof_text r = hs_prof_text_in(reading, sizeof reading);
  json_t *hosts = hs_prof_hosts_json(p, top, NULL);
  json_t *steps = json_array();
  if (!p->n_ops) {
    say_nothing_counted(p, reading, sizeof reading);
    r.n = strlen(reading);
  } else if (!n_listed && !top_op) {
    hs_prof_put(&r, "No op of the program '%.500s' was counted in this profile.", opt->program);
  } else {
    const char *sep = "";
    if (top != HS_NONE) {
      const hs_prof_program *g = &p->progs[top];
      char env[32];
      hs_prof_fmt_time(g->per_run_ps, env, sizeof env);
      hs_prof_put(&r, "%s ran %llu time%s", g->name == HS_NONE ? "a program" : p->strs[g->name].s, (unsigned long long)g->runs,
                  g->runs == 1 ? "" : "s");
      if (g->devices > 1) {
        hs_prof_say_devices(p, top, false, &r);
        hs_prof_put(&r, " (%s on average)", env);
        hs_prof_say_async_unknown(p, top, &r);
      } else {
        hs_prof_put(&r, ", %s per run", env);
      }
      sep = "; ";
    }
    if (top_op) {
      char t[32];
      hs_prof_fmt_time(hs_prof_op_per_run(top_op), t, sizeof t);
      hs_prof_put(&r, "%s%s took the most device time per run (%s)", sep, p->strs[top_op->name].s, t);
    }
    if (n_pairs) {
      char f1[32], f2[32];
      hs_prof_fmt_time(fl, f1, sizeof f1);
      hs_prof_fmt_time(ex, f2, sizeof f2);
      hs_prof_put(&r, "; %u async pair%s: %s in flight per run, %s exposed: %s", n_pairs, n_pairs == 1 ? "" : "s", f1, f2,
                  ex * 10 <= fl ? "they hid behind compute" : ex * 2 >= fl ? "the core waited for most of it" : "partly hidden");
    }
    if (unattr_n) {
      char t[32];
      hs_prof_fmt_time(unattributed, t, sizeof t);
      hs_prof_put(&r, "; %llu kernel launch%s (%s in all) that no HLO op accounts for", (unsigned long long)unattr_n,
                  unattr_n == 1 ? "" : "es", t);
    }
    if (not_asked)
      hs_prof_put(&r, "; %u kernel%s no line of the program asked for", not_asked, not_asked == 1 ? "" : "s");
    json_decref(hosts);
    hosts = hs_prof_hosts_json(p, top, &r);
    json_decref(steps);
    steps = hs_prof_steps_json(p, &r);
    hs_prof_put(&r, ".");
  }
  if (json_array_size(steps) == 0) {
    json_decref(steps);
    steps = hs_prof_steps_json(p, NULL);
  }
  json_object_set_new(o, "reading", hs_json_bytes(reading, r.n));
  json_object_set_new(o, "warnings", warnings);
  json_object_set_new(o, "open", open);
  json_object_set_new(o, "devices", hs_prof_devices_json(p));
  json_object_set_new(o, "hosts", hosts);
  json_object_set_new(o, "steps", steps);
  free(row_of_op);
  return hs_json_finish(o, len);
}
