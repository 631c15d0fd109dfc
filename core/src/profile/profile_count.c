/* Counting: the events a reader kept -> programs (runs, envelope) and ops (occurrences, total
 * and self time), the way XProf counts them (FORMATS.md section 5), on every device:
 *   - TPU: the `XLA Ops` line of every `/device:TPU:N` plane, with the per-event
 *     `device_offset_ps`/`device_duration_ps` stats preferred over the event's own times;
 *     programs are the `XLA Modules` events `jit_f(<program id>)` of each plane;
 *   - GPU: the `Stream #N(...)` lines of `/device:GPU:N` planes, kernel events with `hlo_op`
 *     (the last element of a `::`-joined stack) and `hlo_module`;
 *   - XLA:CPU: `/host:CPU` thread events carrying `hlo_op`.
 * Self time is time minus direct children by time containment on the same line (XLA:CPU's
 * call/while thunks contain their children).
 *
 * A device is a plane whose events are counted; runs and envelopes are found on each device,
 * ops are summed over devices and kept per device too (devices.c turns these into each
 * program's figures over its devices).
 *
 * hs_profile_count runs named phases: keep_counted_events, nest, name_device, then
 * join_tpu_programs (TPU) or group_runs (GPU, CPU), aggregate_ops, attach_kernels, the device
 * figures, the async pairs, attach_module_runs, the pictures and sort_results. */
#include <stdlib.h>

#include "profile/profile.h"

/* How the counting goes, for whoever reads a big profile (p->progress): phase k of 7, and
 * `part` of `whole` of it done; told every 2^20 steps or so of a long loop. */
static void progress(const hs_profile *p, uint32_t phase, uint64_t part, uint64_t whole) {
  if (p->progress) p->progress(p->progress_ctx, "counting", phase * 100 + (whole ? part * 100 / whole : 0), 700);
}

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


static uint64_t ev_end(const hs_prof_event *e) { return hs_sat_add(e->start, e->dur); }

/* Self time and depth of every counted event, by time containment on its line: an event is
 * a direct child of the innermost open event that encloses it entirely. */
static bool nest(hs_prof_event *evs, uint32_t n) {
  uint32_t cap = 64; /* the stack of open events: as deep as the nesting, grown when deeper */
  uint32_t *stack = malloc(cap * sizeof *stack);
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
    if (top == cap) {
      uint32_t *ns = realloc(stack, (size_t)cap * 2 * sizeof *ns);
      if (!ns) {
        free(stack);
        return false;
      }
      stack = ns;
      cap *= 2;
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
  g->orig = p->n_progs - 1;
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

/* Guessing runs walks a program's top-level events in time order. They are in time order on
 * each line already (the events are sorted by line, then start), so the walk merges the lines'
 * runs of members with a heap of one cursor per line: no copy of the events, no sort of them
 * (a sort of 12 million spans took seconds in wasm). Ties (the same start) go by end. */
typedef struct {
  uint32_t at, end; /* the cursor's next member, and past its last */
} cursor;

static bool cursor_less(const hs_prof_event *ops, const member *m, const cursor *a, const cursor *b) {
  const hs_prof_event *x = &ops[m[a->at].ev], *y = &ops[m[b->at].ev];
  if (x->start != y->start) return x->start < y->start;
  return ev_end(x) < ev_end(y);
}

static void cursor_down(const hs_prof_event *ops, const member *m, cursor *h, uint32_t n, uint32_t i) {
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, best = i;
    if (l < n && cursor_less(ops, m, &h[l], &h[best])) best = l;
    if (r < n && cursor_less(ops, m, &h[r], &h[best])) best = r;
    if (best == i) return;
    cursor t = h[i];
    h[i] = h[best];
    h[best] = t;
    i = best;
  }
}

/* The next top-level member in time order (its index into m), or UINT32_MAX at the end. */
static uint32_t cursor_next(const hs_prof_event *ops, const member *m, cursor *h, uint32_t *n) {
  while (*n) {
    cursor *c = &h[0];
    while (c->at < c->end && ops[m[c->at].ev].depth) c->at++;
    if (c->at == c->end) {
      h[0] = h[--*n];
      cursor_down(ops, m, h, *n, 0);
      continue;
    }
    uint32_t got = c->at++;
    /* the cursor moved on: put it back in its place (skipping nested members first) */
    while (c->at < c->end && ops[m[c->at].ev].depth) c->at++;
    if (c->at == c->end) h[0] = h[--*n];
    cursor_down(ops, m, h, *n, 0);
    return got;
  }
  return UINT32_MAX;
}

/* Runs without run ids: each top-level op of a program runs once per run, so the most common
 * occurrence count among its top-level ops (ties: the larger). */
static uint64_t guess_runs(const hs_prof_event *evs, const member *members, uint32_t nm) {
  hs_u64map counts = {0};
  uint64_t *cnt = NULL; /* one count per distinct name (a big profile names few ops many times) */
  uint32_t distinct = 0, cap = 0;
  for (uint32_t i = 0; i < nm; i++) {
    const hs_prof_event *e = &evs[members[i].ev];
    if (e->depth) continue;
    int64_t k = hs_u64map_get(&counts, e->name);
    if (k < 0) {
      bool ok = true;
      uint64_t *slot = HS_VEC_PUSH(cnt, distinct, cap, ok);
      (void)ok;
      if (!slot || !hs_u64map_put(&counts, e->name, distinct - 1)) break;
      *slot = 0;
      k = distinct - 1;
    }
    cnt[k]++;
  }
  if (distinct > 1) qsort(cnt, distinct, sizeof *cnt, cmp_u64); /* none: cnt is NULL, which qsort may not take */
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
  hs_prof_event *aside;  /* after them: TPU program runs and transfers, steps (not counted) */
  uint32_t n_aside;
  hs_u64map by_pid, by_name; /* program id / name -> program index */
  hs_u64map devrun_index;    /* program << 32 | device -> devrun index */
  hs_u64map opmap;           /* op name << 32 | owner -> op index */
  hs_prof_run *runs;         /* every run of every program on every device */
  uint32_t n_runs, cap_runs;
} count_state;

static bool is_aside(uint8_t want, uint8_t kind) {
  return kind == HS_PK_STEPS || (want == HS_PK_TPU_OPS && (kind == HS_PK_TPU_MODULES || kind == HS_PK_TPU_ASYNC));
}

static uint32_t dev_of(const hs_profile *p, const hs_prof_event *e) { return p->planes[p->lines[e->line].plane].dev; }

static int cmp_step(const void *a, const void *b) {
  const hs_prof_step *x = a, *y = b;
  if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Picks the kind of event to count (TPU ops, else GPU kernels, else XLA:CPU thunks) and keeps
 * only those events, then (after them) the events read beside them; makes the devices (the
 * planes those events are on, in plane order) and the steps. False when out of memory;
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
  /* in place (a big profile has no room for a second copy of its events): the events kept
   * aside first, then the counted ones to the front, then the aside ones after */
  uint32_t n_aside = 0;
  for (uint32_t i = 0; i < p->n_evs; i++) n_aside += is_aside(st->want, p->evs[i].kind);
  hs_prof_event *aside = malloc((size_t)(n_aside ? n_aside : 1) * sizeof *aside);
  uint8_t *on = calloc(p->n_planes ? p->n_planes : 1, 1);
  if (!aside || !on) {
    free(aside);
    free(on);
    return false;
  }
  uint32_t m = 0, k = 0;
  for (uint32_t i = 0; i < p->n_evs; i++) {
    if (p->evs[i].kind == st->want) p->evs[m++] = p->evs[i];
    else if (is_aside(st->want, p->evs[i].kind)) aside[k++] = p->evs[i];
  }
  uint32_t n_ops = m;
  if (n_aside) memcpy(p->evs + m, aside, (size_t)n_aside * sizeof *aside);
  free(aside);
  p->n_evs = m + n_aside;
  st->ops = p->evs;
  st->n_ops = n_ops;
  st->aside = p->evs + n_ops;
  st->n_aside = n_aside;
  /* devices: the planes that ran programs, in plane order */
  for (uint32_t i = 0; i < n_ops; i++) on[p->lines[st->ops[i].line].plane] = 1;
  for (uint32_t i = 0; i < n_aside; i++)
    if (st->aside[i].kind == HS_PK_TPU_MODULES) on[p->lines[st->aside[i].line].plane] = 1;
  bool ok = true;
  for (uint32_t pl = 0; ok && pl < p->n_planes; pl++)
    if (on[pl] && hs_prof_device_of(p, pl) == HS_NONE) ok = false;
  free(on);
  /* steps: the Steps events of planes whose events are counted */
  for (uint32_t i = 0; ok && i < n_aside; i++) {
    const hs_prof_event *e = &st->aside[i];
    uint32_t pl = p->lines[e->line].plane;
    if (e->kind != HS_PK_STEPS || p->planes[pl].dev == HS_NONE) continue;
    hs_prof_step *s = HS_VEC_PUSH(p->steps, p->n_steps, p->cap_steps, ok);
    if (!s) break;
    s->plane = pl;
    s->name = e->name;
    s->start = e->start;
    s->dur = e->dur;
    s->busy = 0;
  }
  if (ok && p->n_steps > 1) qsort(p->steps, p->n_steps, sizeof *p->steps, cmp_step);
  return ok;
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
  const char *planes = st->want == HS_PK_GPU ? "/device:GPU:*" : st->want == HS_PK_TPU_OPS ? "/device:TPU:*" : "/host:CPU";
  p->device_plane = one_plane ? p->planes[plane].name : hs_prof_intern_z(p, planes);
  p->device_line = one_line ? p->lines[first_line].name
                            : hs_prof_intern_z(p, st->want == HS_PK_GPU ? "Stream #*" : st->want == HS_PK_TPU_OPS ? "XLA Ops" : "*");
}

/* The figures of a program on a device (made on first use); HS_NONE when out of memory. */
static uint32_t devrun_of(hs_profile *p, count_state *st, uint32_t prog, uint32_t dev) {
  uint64_t key = ((uint64_t)prog << 32) | dev;
  int64_t k = hs_u64map_get(&st->devrun_index, key);
  if (k >= 0) return (uint32_t)k;
  bool ok;
  hs_prof_devrun *d = HS_VEC_PUSH(p->devruns, p->n_devruns, p->cap_devruns, ok);
  (void)ok;
  if (!d || !hs_u64map_put(&st->devrun_index, key, p->n_devruns - 1)) return HS_NONE;
  memset(d, 0, sizeof *d);
  d->prog = prog;
  d->dev = dev;
  return p->n_devruns - 1;
}

static bool add_run(count_state *st, uint32_t prog, uint32_t dev, uint64_t start, uint64_t end) {
  bool ok;
  hs_prof_run *r = HS_VEC_PUSH(st->runs, st->n_runs, st->cap_runs, ok);
  (void)ok;
  if (!r) return false;
  r->start = start;
  r->end = end;
  r->prog = prog;
  r->dev = dev;
  return true;
}

static int cmp_run_dev(const void *a, const void *b) {
  const hs_prof_run *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->prog < y->prog ? -1 : x->prog > y->prog;
}

/* TPU: programs are the XLA Modules events of each plane; ops join them by program id, else by
 * time containment in a module run on their own plane. */
static bool join_tpu_programs(hs_profile *p, count_state *st) {
  for (uint32_t i = 0; i < st->n_aside; i++) {
    hs_prof_event *e = &st->aside[i];
    if (e->kind != HS_PK_TPU_MODULES) continue;
    int32_t g = find_prog(p, &st->by_pid, &st->by_name, e->pid != HS_NONE, e->pid != HS_NONE ? p->ids[e->pid] : 0, e->name);
    uint32_t dev = dev_of(p, e);
    uint32_t d = g >= 0 ? devrun_of(p, st, (uint32_t)g, dev) : HS_NONE;
    if (d == HS_NONE || !add_run(st, (uint32_t)g, dev, e->raw_start, ev_end(e))) return false;
    p->devruns[d].runs++;
    p->devruns[d].envelope = hs_sat_add(p->devruns[d].envelope, e->dur);
  }
  /* the module runs by device, then time: each op looks among its own device's */
  hs_prof_run *ms = st->runs;
  uint32_t n_mod = st->n_runs;
  if (n_mod > 1) qsort(ms, n_mod, sizeof *ms, cmp_run_dev);
  uint32_t *first = calloc((size_t)p->n_devs + 1, sizeof *first);
  if (!first) return false;
  for (uint32_t i = 0; i < n_mod; i++) first[ms[i].dev + 1]++;
  for (uint32_t d = 0; d < p->n_devs; d++) first[d + 1] += first[d];
  for (uint32_t i = 0; i < st->n_ops; i++) {
    hs_prof_event *e = &st->ops[i];
    uint32_t dev = dev_of(p, e);
    /* the last module run on its device starting at or before the op's own start */
    uint32_t lo = first[dev], hi = first[dev + 1], end = hi;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (ms[mid].start <= e->raw_start) lo = mid + 1;
      else hi = mid;
    }
    int32_t run = lo > first[dev] && lo <= end && e->raw_start < ms[lo - 1].end ? (int32_t)(lo - 1) : -1;
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
  free(first);
  return true;
}

/* GPU and CPU: programs by program id (else by module name); on each device, runs from run ids,
 * else guessed. The events are grouped by sorting (program and device, run id), so the work
 * stays n log n. */
static bool group_runs(hs_profile *p, count_state *st) {
  hs_prof_event *ops = st->ops;
  uint32_t n = st->n_ops;
  bool ok = true;
  member *mb = malloc((size_t)(n ? n : 1) * sizeof *mb);
  cursor *heap = NULL; /* a guessed program's lines, one cursor each, grown to the most */
  uint32_t cap_heap = 0;
  if (!mb) ok = false;
  uint32_t last_g = HS_NONE, last_dev = HS_NONE, last_d = HS_NONE; /* neighbours share both, mostly */
  for (uint32_t i = 0; ok && i < n; i++) {
    if ((i & 0xfffff) == 0xfffff) progress(p, 1, i, 2 * (uint64_t)n);
    hs_prof_event *e = &ops[i];
    int32_t g = find_prog(p, &st->by_pid, &st->by_name, e->pid != HS_NONE, e->pid != HS_NONE ? p->ids[e->pid] : 0, e->module);
    uint32_t dev = dev_of(p, e);
    uint32_t d = g >= 0 && (uint32_t)g == last_g && dev == last_dev ? last_d : g >= 0 ? devrun_of(p, st, (uint32_t)g, dev) : HS_NONE;
    last_g = (uint32_t)g, last_dev = dev, last_d = d;
    if (d == HS_NONE) {
      ok = false;
      break;
    }
    mb[i].owner = d;
    mb[i].run = e->run == HS_NONE ? 0 : e->run + 1;
    mb[i].ev = i;
    e->prog = (uint32_t)g; /* e->pid is gone from here on */
  }
  if (ok && n > 1) sort_unless_sorted(mb, n, sizeof *mb, cmp_member);
  for (uint32_t a = 0, b = 0; ok && a < n; a = b) {
    uint32_t owner = mb[a].owner;
    while (b < n && mb[b].owner == owner) b++;
    hs_prof_devrun *dr = &p->devruns[owner];
    /* [a, b): this program's events on this device; those with run ids sort last */
    uint32_t first_run = a;
    while (first_run < b && !mb[first_run].run) first_run++;
    if (first_run < b) {
      /* distinct run ids; envelope = sum over runs of last end - first start */
      for (uint32_t r0 = first_run, r1 = first_run; ok && r0 < b; r0 = r1) {
        uint64_t lo = UINT64_MAX, hi = 0;
        while (r1 < b && mb[r1].run == mb[r0].run) {
          const hs_prof_event *e = &ops[mb[r1].ev];
          if (e->start < lo) lo = e->start;
          if (ev_end(e) > hi) hi = ev_end(e);
          r1++;
        }
        dr->runs++;
        if (hi > lo) dr->envelope = hs_sat_add(dr->envelope, hi - lo);
        ok = add_run(st, dr->prog, dr->dev, lo, hi > lo ? hi : lo);
      }
      continue;
    }
    uint32_t nm = b - a;
    const member *members = mb + a;
    dr->runs = guess_runs(ops, members, nm);
    dr->runs_guessed = 1;
    /* envelope: the top-level events in time order, cut into `runs` equal groups */
    uint32_t ns = 0, n_lines = 0;
    for (uint32_t k = 0; k < nm; k++) {
      ns += !ops[members[k].ev].depth;
      n_lines += k == 0 || ops[members[k].ev].line != ops[members[k - 1].ev].line;
    }
    if (n_lines > cap_heap) {
      free(heap);
      heap = malloc((size_t)n_lines * sizeof *heap);
      cap_heap = heap ? n_lines : 0;
      if (!heap) {
        ok = false;
        break;
      }
    }
    uint32_t nh = 0;
    for (uint32_t k = 0; k < nm; k++) {
      if (k == 0 || ops[members[k].ev].line != ops[members[k - 1].ev].line) heap[nh++] = (cursor){k, k};
      heap[nh - 1].end = k + 1;
    }
    /* order the cursors by their first top-level member (a cursor with none sorts anywhere: it
     * is dropped when it comes up) */
    for (uint32_t k = 0; k < nh; k++)
      while (heap[k].at < heap[k].end && ops[members[heap[k].at].ev].depth) heap[k].at++;
    uint32_t live = 0;
    for (uint32_t k = 0; k < nh; k++)
      if (heap[k].at < heap[k].end) heap[live++] = heap[k];
    nh = live;
    for (uint32_t k = nh / 2; k-- > 0;) cursor_down(ops, members, heap, nh, k);
    uint64_t per = dr->runs && ns % dr->runs == 0 ? ns / dr->runs : ns;
    uint64_t lo = 0, hi = 0, in_group = 0;
    uint32_t walked = 0;
    for (uint32_t got; ok && per && (got = cursor_next(ops, members, heap, &nh)) != UINT32_MAX;) {
      if ((++walked & 0xfffff) == 0) progress(p, 1, (uint64_t)n + (uint64_t)a + walked, 2 * (uint64_t)n);
      const hs_prof_event *e = &ops[members[got].ev];
      if (in_group == 0) lo = e->start, hi = 0;
      if (ev_end(e) > hi) hi = ev_end(e);
      if (++in_group == per) {
        if (hi > lo) dr->envelope = hs_sat_add(dr->envelope, hi - lo);
        ok = add_run(st, dr->prog, dr->dev, lo, hi > lo ? hi : lo);
        in_group = 0;
      }
    }
    if (ok && in_group) { /* a last, shorter group (ns not a multiple of per cannot happen: per is ns then) */
      if (hi > lo) dr->envelope = hs_sat_add(dr->envelope, hi - lo);
      ok = add_run(st, dr->prog, dr->dev, lo, hi > lo ? hi : lo);
    }
  }
  free(mb);
  free(heap);
  /* the programs whose runs were guessed on some device */
  uint32_t guessed = 0;
  uint8_t *g = calloc(p->n_progs ? p->n_progs : 1, 1);
  if (!g) ok = false;
  for (uint32_t i = 0; ok && i < p->n_devruns; i++)
    if (p->devruns[i].runs_guessed && !g[p->devruns[i].prog]) g[p->devruns[i].prog] = 1, guessed++;
  free(g);
  if (ok && guessed)
    hs_prof_warn(p, HS_W_PROFILE_RUNS_GUESSED,
                 "%u program%s without run ids: runs = the most common occurrence count among its top-level ops", guessed,
                 guessed == 1 ? "" : "s");
  return ok;
}

/* The step of a plane that holds a time, or NULL (steps are sorted by plane, then start). */
static hs_prof_step *step_at(hs_profile *p, uint32_t plane, uint64_t t) {
  uint32_t lo = 0, hi = p->n_steps;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const hs_prof_step *s = &p->steps[mid];
    if (s->plane < plane || (s->plane == plane && s->start <= t)) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return NULL;
  hs_prof_step *s = &p->steps[lo - 1];
  return s->plane == plane && t < hs_sat_add(s->start, s->dur) ? s : NULL;
}

/* Ops: occurrences, total and self time by (name, program), and by device: two programs that
 * share a name (one function compiled for two shapes) stay apart, as in XProf. An op of no
 * known program is keyed by its module name. Steps gain the self time of what starts in them. */
static bool aggregate_ops(hs_profile *p, count_state *st) {
  /* per (op, device): a block of n_devs rows per op, made with the op (no lookup per event),
   * the empty rows dropped at the end (what stays is in (op, device) order) */
  uint32_t nd = p->n_devs ? p->n_devs : 1;
  bool ok = true;
  for (uint32_t i = 0; ok && i < st->n_ops; i++) {
    const hs_prof_event *e = &st->ops[i];
    uint64_t key = hs_prof_op_key(e->name, e->prog, e->module);
    int64_t k = hs_u64map_get(&st->opmap, key);
    if (k < 0) {
      hs_prof_op *o = HS_VEC_PUSH(p->ops, p->n_ops, p->cap_ops, ok);
      if (!o) break;
      memset(o, 0, sizeof *o);
      o->name = e->name;
      o->module = e->module;
      o->prog = e->prog;
      if (e->prog != HS_NONE) {
        const hs_prof_program *g = &p->progs[e->prog];
        o->has_pid = g->has_pid;
        o->program_id = g->program_id;
        o->prog_known = 1;
        if (o->module == HS_NONE) o->module = g->name;
      }
      o->name_s = p->strs[e->name].s;
      o->module_s = o->module == HS_NONE ? "" : p->strs[o->module].s;
      o->text = hs_prof_op_text(p, o->has_pid, o->program_id, o->name);
      o->category = HS_NONE;
      k = p->n_ops - 1;
      o->orig = (uint32_t)k;
      if (!hs_u64map_put(&st->opmap, key, (uint32_t)k)) ok = false;
      for (uint32_t d = 0; ok && d < nd; d++) {
        hs_prof_opdev *x = HS_VEC_PUSH(p->opdevs, p->n_opdevs, p->cap_opdevs, ok);
        if (!x) break;
        memset(x, 0, sizeof *x);
        x->op = (uint32_t)k;
        x->dev = d;
      }
      if (!ok) break;
    }
    hs_prof_op *o = &p->ops[k];
    o->occurrences++;
    o->total = hs_sat_add(o->total, e->dur);
    o->self = hs_sat_add(o->self, e->self);
    if (o->category == HS_NONE) o->category = e->category;
    /* by device */
    hs_prof_opdev *x = &p->opdevs[(size_t)k * nd + dev_of(p, e)];
    x->occurrences++;
    x->total = hs_sat_add(x->total, e->dur);
    x->self = hs_sat_add(x->self, e->self);
    if (p->n_steps) {
      hs_prof_step *s = step_at(p, p->lines[e->line].plane, e->start);
      if (s) {
        s->busy = hs_sat_add(s->busy, e->self);
        o->in_steps = hs_sat_add(o->in_steps, e->self);
      }
    }
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; ok && i < p->n_opdevs; i++)
    if (p->opdevs[i].occurrences) p->opdevs[kept++] = p->opdevs[i];
  p->n_opdevs = kept;
  return ok;
}

/* The kernels each op launched (read with their op's name and program): joined to the op. */
static void attach_kernels(hs_profile *p, count_state *st) {
  for (uint32_t i = 0; i < p->n_kerns; i++) {
    hs_prof_kernel *x = &p->kerns[i];
    x->op = HS_NONE;
    if (x->op_name == HS_NONE) continue;
    int64_t g = x->has_pid ? hs_u64map_get(&st->by_pid, x->program_id) : hs_u64map_get(&st->by_name, x->module);
    int64_t k = hs_u64map_get(&st->opmap, hs_prof_op_key(x->op_name, g >= 0 ? (uint32_t)g : HS_NONE, x->module));
    if (k >= 0) x->op = (uint32_t)k;
  }
}

/* The runs of an op of no known program: the runs of every program of its module's name, on
 * every device. */
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
    mr[at] = hs_sat_add(mr[at], p->progs[g].runs * (p->progs[g].devices ? p->progs[g].devices : 1));
  }
  for (uint32_t i = 0; ok && i < p->n_ops; i++) {
    if (p->ops[i].prog_known) continue; /* its program's runs */
    int64_t at = p->ops[i].module == HS_NONE ? -1 : hs_u64map_get(&mod_runs, p->ops[i].module);
    p->ops[i].runs = at >= 0 ? mr[at] : 0;
    p->ops[i].devices = 1;
  }
  free(mr);
  hs_u64map_free(&mod_runs);
  return ok;
}

/* ---- sorting, with every index into programs and ops moved along -------------------------- */
static int cmp_window(const void *a, const void *b) {
  const hs_prof_window *x = a, *y = b;
  if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
  return x->dev < y->dev ? -1 : x->dev > y->dev;
}
static int cmp_pic(const void *a, const void *b) {
  const hs_prof_pic_event *x = a, *y = b;
  if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->dur > y->dur ? -1 : x->dur < y->dur;
}

static bool sort_results(hs_profile *p) {
  for (uint32_t i = 0; i < p->n_progs; i++) p->progs[i].orig = i;
  if (p->n_ops > 1) qsort(p->ops, p->n_ops, sizeof *p->ops, cmp_op);
  if (p->n_progs > 1) qsort(p->progs, p->n_progs, sizeof *p->progs, cmp_prog);
  uint32_t *prog_at = malloc(((size_t)p->n_progs + 1) * sizeof *prog_at);
  uint32_t *op_at = malloc(((size_t)p->n_ops + 1) * sizeof *op_at);
  uint32_t *pr = malloc(((size_t)p->n_progs + 1) * sizeof *pr), *pc = malloc(((size_t)p->n_progs + 1) * sizeof *pc);
  if (!prog_at || !op_at || !pr || !pc) {
    free(prog_at);
    free(op_at);
    free(pr);
    free(pc);
    return false;
  }
  for (uint32_t i = 0; i < p->n_progs; i++) prog_at[p->progs[i].orig] = i;
  for (uint32_t i = 0; i < p->n_ops; i++) op_at[p->ops[i].orig] = i;
#define MOVE(x) ((x) == HS_NONE ? HS_NONE : prog_at[x])
  for (uint32_t i = 0; i < p->n_ops; i++) p->ops[i].prog = MOVE(p->ops[i].prog);
  for (uint32_t i = 0; i < p->n_devruns; i++) p->devruns[i].prog = MOVE(p->devruns[i].prog);
  for (uint32_t i = 0; i < p->n_windows; i++) p->windows[i].prog = MOVE(p->windows[i].prog);
  for (uint32_t i = 0; i < p->n_pics; i++) p->pics[i].prog = MOVE(p->pics[i].prog);
#undef MOVE
  for (uint32_t i = 0; i < p->n_opdevs; i++) p->opdevs[i].op = op_at[p->opdevs[i].op];
  for (uint32_t i = 0; i < p->n_kerns; i++)
    if (p->kerns[i].op != HS_NONE) p->kerns[i].op = op_at[p->kerns[i].op];
  for (uint32_t i = 0; i < p->n_pics; i++) {
    if (p->pics[i].op != HS_NONE) p->pics[i].op = op_at[p->pics[i].op];
    if (p->pics[i].partner != HS_NONE) p->pics[i].partner = op_at[p->pics[i].partner];
  }
  if (p->pic_run && p->pic_cut) {
    for (uint32_t i = 0; i < p->n_progs; i++) pr[prog_at[i]] = p->pic_run[i], pc[prog_at[i]] = p->pic_cut[i];
    memcpy(p->pic_run, pr, (size_t)p->n_progs * sizeof *pr);
    memcpy(p->pic_cut, pc, (size_t)p->n_progs * sizeof *pc);
  }
  free(prog_at);
  free(op_at);
  free(pr);
  free(pc);
  hs_prof_sort_devices(p);
  if (p->n_windows > 1) qsort(p->windows, p->n_windows, sizeof *p->windows, cmp_window);
  if (p->n_pics > 1) qsort(p->pics, p->n_pics, sizeof *p->pics, cmp_pic);
  return true;
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
  /* the phases, told as progress to whoever reads a big profile */
#define PHASE(k) progress(p, (k), 0, 0)
  PHASE(0);
  if (!nest(st.ops, st.n_ops)) goto done;
  name_device(p, &st);
  PHASE(1);
  if (!(st.want == HS_PK_TPU_OPS ? join_tpu_programs(p, &st) : group_runs(p, &st))) goto done;
  PHASE(2);
  if (!aggregate_ops(p, &st)) goto done;
  attach_kernels(p, &st);
  PHASE(3);
  if (!hs_prof_device_figures(p)) goto done;
  if (!hs_timeline_async(p, st.ops, st.n_ops)) goto done;
  PHASE(4);
  if (!attach_module_runs(p)) goto done;
  if (!hs_prof_pictures(p, st.runs, st.n_runs, st.ops, st.n_ops, st.aside, st.n_aside, &st.opmap)) goto done;
  PHASE(5);
  if (!sort_results(p)) goto done;
  PHASE(7); /* done: 700 of 700 */
#undef PHASE
  ok = true;
done:
  hs_u64map_free(&st.by_pid);
  hs_u64map_free(&st.by_name);
  hs_u64map_free(&st.devrun_index);
  hs_u64map_free(&st.opmap);
  free(st.runs);
  return ok;
}

uint64_t hs_prof_op_per_run(const hs_prof_op *op) {
  uint64_t div = op->runs * (op->devices ? op->devices : 1);
  return div ? op->total / div : 0;
}
