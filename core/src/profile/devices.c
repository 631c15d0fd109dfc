/* Devices: every plane whose events are counted is a device (a TPU chip, a GPU, or the host
 * CPU of one process for XLA:CPU), in the order of the files and their planes. A program's
 * runs and envelope are found on each device it ran on (profile_count.c); here they become
 * each device's figures (total, busy and collective time) and the program's figures over its
 * devices, never summed across them:
 *   - runs: the most common count of runs on one device (ties: the larger), with runs_differ
 *     set when devices disagree;
 *   - envelope: the mean of the devices' envelopes; per_run: the mean of envelope / runs;
 *   - busy: the self time of the program's ops on the device (XProf's "idle = total minus the
 *     sum of self times"), collective: the self time of its collectives.
 * An op's per-run time divides its total over every device by runs x devices. */
#include <stdlib.h>

#include "profile/profile.h"

uint32_t hs_prof_device_of(hs_profile *p, uint32_t plane) {
  if (p->planes[plane].dev != HS_NONE) return p->planes[plane].dev;
  bool ok;
  uint32_t *d = HS_VEC_PUSH(p->devs, p->n_devs, p->cap_devs, ok);
  (void)ok;
  if (!d) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  *d = plane;
  p->planes[plane].dev = p->n_devs - 1;
  return p->n_devs - 1;
}

bool hs_prof_device_async_known(const hs_profile *p, uint32_t dev) {
  const hs_prof_plane *pl = &p->planes[p->devs[dev]];
  const hs_prof_str *n = &p->strs[pl->name];
  return !hs_prof_starts_with(n->s, n->len, "/device:TPU:") || pl->async_events;
}

/* devruns and opdevs are sorted by (program, device) and (op, device), each keyed by its first
 * field: a binary search finds a program's (an op's) first row. */
static uint32_t rows_of(const void *base, uint32_t n, size_t size, uint32_t key, uint32_t *first) {
  const char *b = base;
#define KEY(i) (*(const uint32_t *)(b + (size_t)(i) * size))
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (KEY(mid) < key) lo = mid + 1;
    else hi = mid;
  }
  uint32_t end = lo;
  while (end < n && KEY(end) == key) end++;
#undef KEY
  *first = lo;
  return end - lo;
}

uint32_t hs_prof_devruns_of(const hs_profile *p, uint32_t prog, uint32_t *first) {
  return rows_of(p->devruns, p->n_devruns, sizeof *p->devruns, prog, first);
}

uint32_t hs_prof_opdevs_of(const hs_profile *p, uint32_t op, uint32_t *first) {
  return rows_of(p->opdevs, p->n_opdevs, sizeof *p->opdevs, op, first);
}

static int cmp_devrun(const void *a, const void *b) {
  const hs_prof_devrun *x = a, *y = b;
  if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
  return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int cmp_opdev(const void *a, const void *b) {
  const hs_prof_opdev *x = a, *y = b;
  if (x->op != y->op) return x->op < y->op ? -1 : 1;
  return x->dev < y->dev ? -1 : x->dev > y->dev;
}

void hs_prof_sort_devices(hs_profile *p) {
  if (p->n_devruns > 1) qsort(p->devruns, p->n_devruns, sizeof *p->devruns, cmp_devrun);
  if (p->n_opdevs > 1) qsort(p->opdevs, p->n_opdevs, sizeof *p->opdevs, cmp_opdev);
}

static hs_prof_devrun *devrun_at(hs_profile *p, uint32_t prog, uint32_t dev) {
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  for (uint32_t i = first; i < first + n; i++)
    if (p->devruns[i].dev == dev) return &p->devruns[i];
  return NULL;
}

bool hs_prof_device_figures(hs_profile *p) {
  hs_prof_sort_devices(p);
  /* each device's total, busy and collective time, from its ops */
  for (uint32_t i = 0; i < p->n_opdevs; i++) {
    const hs_prof_opdev *x = &p->opdevs[i];
    const hs_prof_op *op = &p->ops[x->op];
    hs_prof_devrun *d = op->prog == HS_NONE ? NULL : devrun_at(p, op->prog, x->dev);
    if (!d) continue;
    d->total = hs_sat_add(d->total, x->total);
    d->busy = hs_sat_add(d->busy, x->self);
    if (strcmp(hs_prof_op_kind(p, op), "collective") == 0) d->collective = hs_sat_add(d->collective, x->self);
  }
  /* each program over its devices */
  uint64_t *counts = malloc(((size_t)p->n_devs + 1) * sizeof *counts);
  if (!counts) return false;
  for (uint32_t g = 0; g < p->n_progs; g++) {
    hs_prof_program *pg = &p->progs[g];
    uint32_t first, n = hs_prof_devruns_of(p, g, &first);
    pg->devices = n;
    pg->runs = pg->envelope = 0;
    pg->per_run = 0;
    pg->per_run_ps = 0;
    if (!n) continue;
    uint64_t env = 0, prs = 0;
    uint32_t with_runs = 0;
    for (uint32_t i = 0; i < n; i++) {
      const hs_prof_devrun *d = &p->devruns[first + i];
      counts[i] = d->runs;
      env = hs_sat_add(env, d->envelope);
      pg->runs_guessed |= d->runs_guessed;
      if (d->runs) pg->per_run += (double)d->envelope / (double)d->runs, prs += d->envelope / d->runs, with_runs++;
    }
    pg->envelope = env / n;
    if (with_runs) pg->per_run /= with_runs, pg->per_run_ps = prs / with_runs;
    /* the most common count of runs (ties: the larger) */
    uint64_t best = 0;
    uint32_t best_n = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t same = 0;
      for (uint32_t k = 0; k < n; k++) same += counts[k] == counts[i];
      if (same > best_n || (same == best_n && counts[i] > best)) best = counts[i], best_n = same;
      if (counts[i] != counts[0]) pg->runs_differ = 1;
    }
    pg->runs = best;
  }
  free(counts);
  for (uint32_t i = 0; i < p->n_ops; i++) {
    hs_prof_op *op = &p->ops[i];
    if (op->prog == HS_NONE) continue;
    op->runs = p->progs[op->prog].runs;
    op->devices = p->progs[op->prog].devices;
  }
  return true;
}

json_t *hs_prof_devices_json(const hs_profile *p) {
  json_t *a = json_array();
  for (uint32_t d = 0; d < p->n_devs; d++) {
    const hs_prof_plane *pl = &p->planes[p->devs[d]];
    const hs_prof_file *f = &p->files[pl->file];
    json_t *x = json_object();
    json_object_set_new(x, "plane", hs_prof_json_str(p, pl->name));
    json_object_set_new(x, "host", hs_prof_json_str(p, f->host));
    json_object_set_new(x, "file", hs_prof_json_str(p, f->name));
    json_array_append_new(a, x);
  }
  return a;
}
