/* Counting: the events a reader kept -> programs (runs, envelope) and ops (occurrences, total
 * and self time), the way XProf counts them (FORMATS.md section 5):
 *   - TPU: the `XLA Ops` line of the first `/device:TPU:N` plane, with the per-event
 *     `device_offset_ps`/`device_duration_ps` stats preferred over the event's own times;
 *     programs are the `XLA Modules` events `jit_f(<program id>)`;
 *   - GPU: the `Stream #N(...)` lines of `/device:GPU:N` planes, kernel events with `hlo_op`
 *     (the last element of a `::`-joined stack) and `hlo_module`;
 *   - XLA:CPU: `/host:CPU` thread events carrying `hlo_op`.
 * Self time is time minus direct children by time containment on the same line (XLA:CPU's
 * call/while thunks contain their children).
 *
 * hs_profile_count runs named phases: keep_counted_events, nest, name_device, then
 * join_tpu_programs (TPU) or group_runs (GPU, CPU), aggregate_ops, attach_module_runs and
 * sort_results. */
#include <stdlib.h>

#include "profile/profile.h"

static int cmp_ev(const void *a, const void *b) {
  const hs_prof_event *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* the enclosing event first */
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* qsort, skipped when the array is already in order (a profile's events mostly are: a line's
 * events are written in time order). WebAssembly's qsort (musl's smoothsort) jumps across the
 * whole array even on sorted input: on a 1 GB array of events that was most of the time. */
static void sort_unless_sorted(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  const char *b = base;
  size_t i = 1;
  while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0) i++;
  if (i < n) qsort(base, n, size, cmp);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct {
  uint64_t start, end;
  uint32_t prog; /* TPU module runs: the program */
} span;
static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->prog < y->prog ? -1 : x->prog > y->prog;
}

static uint64_t ev_end(const hs_prof_event *e) { return hs_sat_add(e->start, e->dur); }

/* Self time and depth of every counted event, by time containment on its line: an event is
 * a direct child of the innermost open event that encloses it entirely. */
static bool nest(hs_prof_event *evs, uint32_t n) {
  uint32_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
  if (!stack) return false;
  sort_unless_sorted(evs, n, sizeof *evs, cmp_ev);
  uint32_t top = 0;
  for (uint32_t i = 0; i < n; i++) {
    hs_prof_event *e = &evs[i];
    e->self = e->dur;
    while (top && (evs[stack[top - 1]].line != e->line || ev_end(&evs[stack[top - 1]]) <= e->start ||
                   ev_end(e) > ev_end(&evs[stack[top - 1]])))
      top--;
    if (top) {
      hs_prof_event *parent = &evs[stack[top - 1]];
      parent->self = parent->self > e->dur ? parent->self - e->dur : 0;
      e->depth = 1;
    } else {
      e->depth = 0;
    }
    stack[top++] = i;
  }
  free(stack);
  return true;
}

static int32_t find_prog(hs_profile *p, hs_u64map *by_pid, hs_u64map *by_name, bool has_pid, uint64_t pid, uint32_t name) {
  int64_t k = has_pid ? hs_u64map_get(by_pid, pid) : hs_u64map_get(by_name, name);
  if (k >= 0) return (int32_t)k;
  bool ok;
  hs_prof_program *g = HS_VEC_PUSH(p->progs, p->n_progs, p->cap_progs, ok);
  (void)ok;
  if (!g) return -1;
  memset(g, 0, sizeof *g);
  g->name = name;
  g->name_s = name == HS_NONE ? "" : p->strs[name].s;
  g->has_pid = has_pid;
  g->program_id = pid;
  if (!(has_pid ? hs_u64map_put(by_pid, pid, p->n_progs - 1) : hs_u64map_put(by_name, name, p->n_progs - 1))) return -1;
  return (int32_t)(p->n_progs - 1);
}

static int cmp_op(const void *a, const void *b) {
  const hs_prof_op *x = a, *y = b;
  if (x->self != y->self) return x->self > y->self ? -1 : 1;
  int c = strcmp(x->name_s, y->name_s);
  if (!c) c = strcmp(x->module_s, y->module_s);
  if (c) return c;
  if (x->has_pid != y->has_pid) return x->has_pid ? 1 : -1;
  return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

static int cmp_prog(const void *a, const void *b) {
  const hs_prof_program *x = a, *y = b;
  int c = strcmp(x->name_s, y->name_s);
  if (c) return c;
  if (x->has_pid != y->has_pid) return x->has_pid ? 1 : -1;
  return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

/* An event in grouping: its program, its run (0: none, else the run id's index + 1: those
 * without run ids sort first) and itself. 12 bytes an event. */
typedef struct {
  uint32_t owner;
  uint32_t run;
  uint32_t ev;
} member;

static int cmp_member(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  if (x->run != y->run) return x->run < y->run ? -1 : 1;
  return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Runs without run ids: each top-level op of a program runs once per run, so the most common
 * occurrence count among its top-level ops (ties: the larger). */
static uint64_t guess_runs(const hs_prof_event *evs, const member *members, uint32_t nm) {
  hs_u64map counts = {0};
  uint64_t *cnt = calloc(nm ? nm : 1, sizeof *cnt);
  uint32_t distinct = 0;
  if (!cnt) return 0;
  for (uint32_t i = 0; i < nm; i++) {
    const hs_prof_event *e = &evs[members[i].ev];
    if (e->depth) continue;
    int64_t k = hs_u64map_get(&counts, e->name);
    if (k < 0) {
      if (!hs_u64map_put(&counts, e->name, distinct)) break;
      k = distinct++;
    }
    cnt[k]++;
  }
  qsort(cnt, distinct, sizeof *cnt, cmp_u64);
  uint64_t best = 0, best_n = 0;
  for (uint32_t i = 0; i < distinct;) {
    uint32_t j = i;
    while (j < distinct && cnt[j] == cnt[i]) j++;
    if (j - i >= best_n) best = cnt[i], best_n = j - i;
    i = j;
  }
  free(cnt);
  hs_u64map_free(&counts);
  return best;
}

/* ---- the phases of hs_profile_count --------------------------------------------------- */
typedef struct {
  uint8_t want;          /* the event kind counted (HS_PK_*) */
  hs_prof_event *ops;    /* the counted op events */
  uint32_t n_ops;
  hs_prof_event *mods;   /* TPU: the XLA Modules events (program runs) */
  uint32_t n_mods;
  hs_u64map by_pid, by_name; /* program id / name -> program index */
} count_state;

/* Picks the kind of event to count (TPU ops, else GPU kernels, else XLA:CPU thunks) and keeps
 * only those events (and, on TPU, the program events after them). False when out of memory;
 * st->want 0 when there is nothing to count. */
static bool keep_counted_events(hs_profile *p, count_state *st) {
  uint32_t n_tpu = 0, n_gpu = 0, n_cpu = 0;
  for (uint32_t i = 0; i < p->n_evs; i++) {
    uint8_t k = p->evs[i].kind;
    n_tpu += k == HS_PK_TPU_OPS;
    n_gpu += k == HS_PK_GPU;
    n_cpu += k == HS_PK_CPU;
  }
  st->want = n_tpu ? HS_PK_TPU_OPS : n_gpu ? HS_PK_GPU : n_cpu ? HS_PK_CPU : 0;
  p->mode = n_tpu ? HS_PM_TPU : n_gpu ? HS_PM_GPU : n_cpu ? HS_PM_CPU : HS_PM_NONE;
  if (!st->want) return true;
  /* in place (a big profile has no room for a second copy of its events): the program
   * events aside first, then the counted ones to the front, then the program events after */
  uint32_t n_mod = 0;
  for (uint32_t i = 0; st->want == HS_PK_TPU_OPS && i < p->n_evs; i++) n_mod += p->evs[i].kind == HS_PK_TPU_MODULES;
  hs_prof_event *mods = malloc((size_t)(n_mod ? n_mod : 1) * sizeof *mods);
  if (!mods) return false;
  uint32_t m = 0, k = 0;
  for (uint32_t i = 0; i < p->n_evs; i++) {
    if (p->evs[i].kind == st->want) p->evs[m++] = p->evs[i];
    else if (st->want == HS_PK_TPU_OPS && p->evs[i].kind == HS_PK_TPU_MODULES) mods[k++] = p->evs[i];
  }
  uint32_t n_ops = m;
  if (n_mod && m + n_mod > p->cap_evs) { /* cannot happen: modules were among the events */
    free(mods);
    return false;
  }
  if (n_mod) memcpy(p->evs + m, mods, (size_t)n_mod * sizeof *mods);
  free(mods);
  m += n_mod;
  p->n_evs = m;
  st->ops = p->evs;
  st->n_ops = n_ops;
  st->mods = p->evs + n_ops;
  st->n_mods = n_mod;
  return true;
}

/* Which plane and line were counted: the one, or a wildcard when the events span several. */
static void name_device(hs_profile *p, const count_state *st) {
  const hs_prof_event *ops = st->ops;
  uint32_t first_line = ops[0].line, plane = p->lines[first_line].plane;
  bool one_line = true, one_plane = true;
  for (uint32_t i = 1; i < st->n_ops; i++) {
    one_line &= ops[i].line == first_line;
    one_plane &= p->lines[ops[i].line].plane == plane;
  }
  p->device_plane =
      one_plane ? p->planes[plane].name : hs_prof_intern_z(p, st->want == HS_PK_GPU ? "/device:GPU:*" : "/host:CPU");
  p->device_line = one_line ? p->lines[first_line].name : hs_prof_intern_z(p, st->want == HS_PK_GPU ? "Stream #*" : "*");
}

/* TPU: programs are the XLA Modules events; ops join them by program id, else by time
 * containment in a module run. */
static bool join_tpu_programs(hs_profile *p, count_state *st) {
  uint32_t n_mod = st->n_mods;
  span *ms = malloc((size_t)(n_mod ? n_mod : 1) * sizeof *ms);
  if (!ms) return false;
  for (uint32_t i = 0; i < n_mod; i++) {
    hs_prof_event *e = &st->mods[i];
    int32_t g = find_prog(p, &st->by_pid, &st->by_name, e->pid != HS_NONE, e->pid != HS_NONE ? p->ids[e->pid] : 0, e->name);
    if (g < 0) {
      free(ms);
      return false;
    }
    p->progs[g].runs++;
    p->progs[g].envelope = hs_sat_add(p->progs[g].envelope, e->dur);
    ms[i].start = e->raw_start;
    ms[i].end = ev_end(e);
    ms[i].prog = (uint32_t)g;
  }
  if (n_mod > 1) qsort(ms, n_mod, sizeof *ms, cmp_span);
  for (uint32_t i = 0; i < st->n_ops; i++) {
    hs_prof_event *e = &st->ops[i];
    /* the last module run starting at or before the op's own start */
    uint32_t lo = 0, hi = n_mod;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (ms[mid].start <= e->raw_start) lo = mid + 1;
      else hi = mid;
    }
    int32_t run = lo > 0 && e->raw_start < ms[lo - 1].end ? (int32_t)(lo - 1) : -1;
    bool has_pid = e->pid != HS_NONE;
    uint64_t pid = has_pid ? p->ids[e->pid] : 0;
    int64_t g = has_pid ? hs_u64map_get(&st->by_pid, pid) : -1;
    e->prog = g >= 0 ? (uint32_t)g : run >= 0 ? ms[run].prog : HS_NONE; /* e->pid is gone from here on */
    if (e->module != HS_NONE) continue;
    int64_t nm = has_pid ? hs_u64map_get(&p->pid_names, pid) : -1;
    if (nm >= 0) {
      e->module = (uint32_t)nm;
      continue;
    }
    if (run >= 0) e->module = p->progs[ms[run].prog].name;
  }
  free(ms);
  return true;
}

/* GPU and CPU: programs by program id (else by module name); runs from run ids, else guessed.
 * The events are grouped by sorting (program, run id), so the work stays n log n. */
static bool group_runs(hs_profile *p, count_state *st) {
  hs_prof_event *ops = st->ops;
  uint32_t n = st->n_ops;
  bool ok = true;
  member *mb = malloc((size_t)(n ? n : 1) * sizeof *mb);
  span *spans = NULL; /* a guessed program's top-level events, grown to the largest */
  uint32_t cap_spans = 0;
  if (!mb) ok = false;
  for (uint32_t i = 0; ok && i < n; i++) {
    hs_prof_event *e = &ops[i];
    int32_t g = find_prog(p, &st->by_pid, &st->by_name, e->pid != HS_NONE, e->pid != HS_NONE ? p->ids[e->pid] : 0, e->module);
    if (g < 0) {
      ok = false;
      break;
    }
    mb[i].owner = (uint32_t)g;
    mb[i].run = e->run == HS_NONE ? 0 : e->run + 1;
    mb[i].ev = i;
    e->prog = (uint32_t)g; /* e->pid is gone from here on */
  }
  if (ok && n > 1) sort_unless_sorted(mb, n, sizeof *mb, cmp_member);
  for (uint32_t a = 0, b = 0; ok && a < n; a = b) {
    uint32_t g = mb[a].owner;
    while (b < n && mb[b].owner == g) b++;
    hs_prof_program *pg = &p->progs[g];
    /* [a, b): this program's events; those with run ids sort last */
    uint32_t first_run = a;
    while (first_run < b && !mb[first_run].run) first_run++;
    if (first_run < b) {
      /* distinct run ids; envelope = sum over runs of last end - first start */
      for (uint32_t r0 = first_run, r1 = first_run; r0 < b; r0 = r1) {
        uint64_t lo = UINT64_MAX, hi = 0;
        while (r1 < b && mb[r1].run == mb[r0].run) {
          const hs_prof_event *e = &ops[mb[r1].ev];
          if (e->start < lo) lo = e->start;
          if (ev_end(e) > hi) hi = ev_end(e);
          r1++;
        }
        pg->runs++;
        if (hi > lo) pg->envelope = hs_sat_add(pg->envelope, hi - lo);
      }
    } else {
      uint32_t nm = b - a;
      const member *members = mb + a;
      pg->runs = guess_runs(ops, members, nm);
      pg->runs_guessed = 1;
      /* envelope: the top-level events in time order, cut into `runs` equal groups */
      uint32_t ns = 0;
      for (uint32_t k = 0; k < nm; k++) ns += !ops[members[k].ev].depth;
      if (ns > cap_spans) {
        free(spans);
        spans = malloc((size_t)ns * sizeof *spans);
        cap_spans = spans ? ns : 0;
        if (!spans) {
          ok = false;
          break;
        }
      }
      ns = 0;
      for (uint32_t k = 0; k < nm; k++) {
        const hs_prof_event *e = &ops[members[k].ev];
        if (e->depth) continue;
        spans[ns].start = e->start;
        spans[ns].end = ev_end(e);
        spans[ns].prog = 0;
        ns++;
      }
      if (ns > 1) sort_unless_sorted(spans, ns, sizeof *spans, cmp_span);
      uint64_t per = pg->runs && ns % pg->runs == 0 ? ns / pg->runs : ns;
      for (uint32_t q = 0; per && q < ns; q += (uint32_t)per) {
        uint64_t lo = spans[q].start, hi = 0;
        for (uint32_t k = q; k < q + per && k < ns; k++)
          if (spans[k].end > hi) hi = spans[k].end;
        if (hi > lo) pg->envelope = hs_sat_add(pg->envelope, hi - lo);
      }
    }
  }
  free(mb);
  free(spans);
  uint32_t guessed = 0;
  for (uint32_t g = 0; g < p->n_progs; g++) guessed += p->progs[g].runs_guessed;
  if (ok && guessed)
    hs_prof_warn(p, HS_W_PROFILE_RUNS_GUESSED,
                 "%u program%s without run ids: runs = the most common occurrence count among its top-level ops", guessed,
                 guessed == 1 ? "" : "s");
  return ok;
}

/* Ops: occurrences, total and self time by (name, program): two programs that share a name
 * (one function compiled for two shapes) stay apart, as in XProf. An op of no known program
 * is keyed by its module name. */
static bool aggregate_ops(hs_profile *p, const count_state *st) {
  hs_u64map opmap = {0};
  bool ok = true;
  for (uint32_t i = 0; ok && i < st->n_ops; i++) {
    const hs_prof_event *e = &st->ops[i];
    uint32_t owner = e->prog != HS_NONE ? e->prog : 0x80000000u | (e->module & 0x7fffffffu);
    uint64_t key = ((uint64_t)e->name << 32) | owner;
    int64_t k = hs_u64map_get(&opmap, key);
    if (k < 0) {
      hs_prof_op *o = HS_VEC_PUSH(p->ops, p->n_ops, p->cap_ops, ok);
      if (!o) break;
      memset(o, 0, sizeof *o);
      o->name = e->name;
      o->module = e->module;
      if (e->prog != HS_NONE) {
        const hs_prof_program *g = &p->progs[e->prog];
        o->has_pid = g->has_pid;
        o->program_id = g->program_id;
        o->runs = g->runs;
        o->prog_known = 1;
        if (o->module == HS_NONE) o->module = g->name;
      }
      o->name_s = p->strs[e->name].s;
      o->module_s = e->module == HS_NONE ? "" : p->strs[e->module].s;
      o->category = HS_NONE;
      k = p->n_ops - 1;
      if (!hs_u64map_put(&opmap, key, (uint32_t)k)) ok = false;
    }
    hs_prof_op *o = &p->ops[k];
    o->occurrences++;
    o->total = hs_sat_add(o->total, e->dur);
    o->self = hs_sat_add(o->self, e->self);
    if (o->category == HS_NONE) o->category = e->category;
  }
  hs_u64map_free(&opmap);
  return ok;
}

/* The runs of an op of no known program: the runs of every program of its module's name. */
static bool attach_module_runs(hs_profile *p) {
  hs_u64map mod_runs = {0};
  bool ok = true;
  uint64_t *mr = calloc(p->n_progs ? p->n_progs : 1, sizeof *mr);
  if (!mr) ok = false;
  for (uint32_t g = 0, k = 0; ok && g < p->n_progs; g++) {
    if (p->progs[g].name == HS_NONE) continue;
    int64_t at = hs_u64map_get(&mod_runs, p->progs[g].name);
    if (at < 0) {
      if (!hs_u64map_put(&mod_runs, p->progs[g].name, k)) ok = false;
      at = k++;
    }
    mr[at] = hs_sat_add(mr[at], p->progs[g].runs);
  }
  for (uint32_t i = 0; ok && i < p->n_ops; i++) {
    if (p->ops[i].prog_known) continue; /* its program's runs */
    int64_t at = p->ops[i].module == HS_NONE ? -1 : hs_u64map_get(&mod_runs, p->ops[i].module);
    p->ops[i].runs = at >= 0 ? mr[at] : 0;
  }
  free(mr);
  hs_u64map_free(&mod_runs);
  return ok;
}

static void sort_results(hs_profile *p) {
  if (p->n_ops > 1) qsort(p->ops, p->n_ops, sizeof *p->ops, cmp_op);
  if (p->n_progs > 1) qsort(p->progs, p->n_progs, sizeof *p->progs, cmp_prog);
}

/* Events -> programs and ops, phase by phase. */
bool hs_profile_count(hs_profile *p) {
  count_state st = {0};
  bool ok = false;
  p->device_plane = p->device_line = HS_NONE;
  if (!keep_counted_events(p, &st)) return false;
  if (!st.want) {
    hs_prof_warn(p, HS_W_PROFILE_NO_DEVICE,
                 "no events to count: no XLA Ops line on a /device:TPU plane, no GPU stream kernels with hlo_op, no "
                 "/host:CPU events with hlo_op");
    return true;
  }
  if (!nest(st.ops, st.n_ops)) goto done;
  name_device(p, &st);
  if (!(st.want == HS_PK_TPU_OPS ? join_tpu_programs(p, &st) : group_runs(p, &st))) goto done;
  if (!aggregate_ops(p, &st)) goto done;
  if (!hs_timeline_async(p, st.ops, st.n_ops)) goto done;
  if (!attach_module_runs(p)) goto done;
  sort_results(p);
  ok = true;
done:
  hs_u64map_free(&st.by_pid);
  hs_u64map_free(&st.by_name);
  return ok;
}
