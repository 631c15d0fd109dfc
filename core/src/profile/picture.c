/* The picture of one run of each program: on every device that ran it, the window of that run
 * and every event that starts inside it, for a time axis with one track per device line.
 *
 * Which run: the median-length run on the program's first device (the lower median, so a
 * warm-up or a straggler is not what is shown), and the run of the same order on each other
 * device. A TPU run's window is its XLA Modules event; elsewhere, first start to last end of
 * the run's kernels. Every counted event (the ops of XLA Ops lines, GPU kernels, XLA:CPU
 * thunks) and every async transfer (TPU Async XLA Ops events) whose own start falls in a
 * window is kept, at its own start (the clock of the windows) with its counted duration; a
 * transfer is drawn with the part of it the core spent blocked in its -done (exposed) and the
 * rest (hidden). At most PIC_CAP events are kept per program, and the picture says how many it
 * left out. */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

#define PIC_CAP 20000

static int cmp_run(const void *a, const void *b) {
  const hs_prof_run *x = a, *y = b;
  if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

typedef struct {
  uint64_t len;
  uint32_t k;
} run_len;

static int cmp_len(const void *a, const void *b) {
  const run_len *x = a, *y = b;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

static uint32_t dev_of_line(const hs_profile *p, uint32_t line) { return p->planes[p->lines[line].plane].dev; }

static bool keep(hs_profile *p, const hs_prof_pic_event *e) {
  bool ok;
  hs_prof_pic_event *x = HS_VEC_PUSH(p->pics, p->n_pics, p->cap_pics, ok);
  (void)ok;
  if (!x) return false;
  *x = *e;
  return true;
}

bool hs_prof_pictures(hs_profile *p, hs_prof_run *runs, uint32_t n_runs, const hs_prof_event *ops, uint32_t n_ops,
                      const hs_prof_event *aside, uint32_t n_aside, const hs_u64map *opmap) {
  if (!p->n_progs) return true;
  p->pic_run = calloc(p->n_progs, sizeof *p->pic_run);
  p->pic_cut = calloc(p->n_progs, sizeof *p->pic_cut);
  uint32_t *kept = calloc(p->n_progs, sizeof *kept);
  run_len *lens = malloc((size_t)(n_runs ? n_runs : 1) * sizeof *lens);
  hs_u64map wmap = {0};
  bool ok = p->pic_run && p->pic_cut && kept && lens;
  if (ok && n_runs > 1) qsort(runs, n_runs, sizeof *runs, cmp_run);
  /* the run of each program, and its window on each device */
  for (uint32_t a = 0, b = 0; ok && a < n_runs; a = b) {
    uint32_t g = runs[a].prog;
    while (b < n_runs && runs[b].prog == g) b++;
    uint32_t a1 = a;
    while (a1 < b && runs[a1].dev == runs[a].dev) a1++;
    uint32_t n = a1 - a;
    for (uint32_t i = 0; i < n; i++) lens[i].len = runs[a + i].end - runs[a + i].start, lens[i].k = i;
    qsort(lens, n, sizeof *lens, cmp_len);
    uint32_t k = lens[(n - 1) / 2].k;
    p->pic_run[g] = k;
    for (uint32_t c = a, c1 = a; ok && c < b; c = c1) {
      while (c1 < b && runs[c1].dev == runs[c].dev) c1++;
      if (k >= c1 - c) continue; /* this device ran it fewer times */
      hs_prof_window *w = HS_VEC_PUSH(p->windows, p->n_windows, p->cap_windows, ok);
      if (!w) break;
      w->prog = g;
      w->dev = runs[c].dev;
      w->start = runs[c + k].start;
      w->end = runs[c + k].end;
      ok = hs_u64map_put(&wmap, ((uint64_t)g << 32) | w->dev, p->n_windows - 1);
    }
  }
  /* the counted events in their program's window on their device */
  uint64_t last_key = UINT64_MAX;
  int64_t last_wi = -1;
  for (uint32_t i = 0; ok && i < n_ops; i++) {
    const hs_prof_event *e = &ops[i];
    if (e->prog == HS_NONE) continue;
    uint64_t key = ((uint64_t)e->prog << 32) | dev_of_line(p, e->line);
    int64_t wi = key == last_key ? last_wi : hs_u64map_get(&wmap, key);
    last_key = key, last_wi = wi;
    if (wi < 0 || e->raw_start < p->windows[wi].start || e->raw_start >= p->windows[wi].end) continue;
    if (kept[e->prog] >= PIC_CAP) {
      p->pic_cut[e->prog]++;
      continue;
    }
    int64_t op = hs_u64map_get(opmap, hs_prof_op_key(e->name, e->prog, e->module));
    hs_prof_pic_event x = {e->prog, e->line, op >= 0 ? (uint32_t)op : HS_NONE, HS_NONE, e->raw_start, e->dur, 0, e->depth};
    ok = keep(p, &x);
    kept[e->prog]++;
  }
  /* the transfers, in whichever window of their device holds their start */
  for (uint32_t i = 0; ok && i < n_aside; i++) {
    const hs_prof_event *e = &aside[i];
    if (e->kind != HS_PK_TPU_ASYNC) continue;
    uint32_t dev = dev_of_line(p, e->line);
    for (uint32_t w = 0; ok && w < p->n_windows; w++) {
      const hs_prof_window *win = &p->windows[w];
      if (win->dev != dev || e->raw_start < win->start || e->raw_start >= win->end) continue;
      if (kept[win->prog] >= PIC_CAP) {
        p->pic_cut[win->prog]++;
        break;
      }
      int64_t s = hs_u64map_get(opmap, hs_prof_op_key(e->name, win->prog, HS_NONE));
      int64_t d = e->module == HS_NONE ? -1 : hs_u64map_get(opmap, hs_prof_op_key(e->module, win->prog, HS_NONE));
      hs_prof_pic_event x = {win->prog, e->line, s >= 0 ? (uint32_t)s : HS_NONE, d >= 0 ? (uint32_t)d : HS_NONE,
                             e->raw_start, e->dur, 1, 0};
      ok = keep(p, &x);
      kept[win->prog]++;
      break;
    }
  }
  free(kept);
  free(lens);
  hs_u64map_free(&wmap);
  if (!ok) p->diag.nomem = true;
  return ok;
}

/* ---- JSON ------------------------------------------------------------------------------------ */
static json_t *row_json(const uint32_t *row_of_op, uint32_t op) {
  return op == HS_NONE || row_of_op[op] == HS_NONE ? json_integer(-1) : json_integer(row_of_op[op]);
}

json_t *hs_prof_picture_json(const hs_profile *p, uint32_t prog, const uint32_t *row_of_op) {
  uint32_t w0 = 0;
  while (w0 < p->n_windows && p->windows[w0].prog != prog) w0++;
  if (w0 == p->n_windows) return json_null();
  uint32_t w1 = w0;
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (; w1 < p->n_windows && p->windows[w1].prog == prog; w1++) {
    if (p->windows[w1].start < t0) t0 = p->windows[w1].start;
    if (p->windows[w1].end > t1) t1 = p->windows[w1].end;
  }
  uint32_t first_dev = p->windows[w0].dev;
  uint64_t runs = 0;
  uint32_t df, nd = hs_prof_devruns_of(p, prog, &df);
  for (uint32_t i = df; i < df + nd; i++)
    if (p->devruns[i].dev == first_dev) runs = p->devruns[i].runs;
  const char *plane0 = p->strs[p->planes[p->devs[first_dev]].name].s;
  json_t *o = json_object();
  json_object_set_new(o, "run", json_integer((json_int_t)p->pic_run[prog] + 1));
  json_object_set_new(o, "runs", hs_prof_json_ps(runs));
  char why[512];
  uint32_t others = w1 - w0 - 1;
  snprintf(why, sizeof why, "run %u of %llu on %s, the median length%s", p->pic_run[prog] + 1, (unsigned long long)runs,
           plane0, others ? "; the same run on the other devices" : "");
  json_object_set_new(o, "why", json_string(why));
  json_object_set_new(o, "start_ps", hs_prof_json_ps(t0));
  json_object_set_new(o, "end_ps", hs_prof_json_ps(t1));
  json_object_set_new(o, "duration_ps", hs_prof_json_ps(t1 - t0));
  json_t *wins = json_array();
  for (uint32_t w = w0; w < w1; w++) {
    json_t *x = json_object();
    json_object_set_new(x, "plane", hs_prof_json_str(p, p->planes[p->devs[p->windows[w].dev]].name));
    json_object_set_new(x, "start_ps", hs_prof_json_ps(p->windows[w].start - t0));
    json_object_set_new(x, "end_ps", hs_prof_json_ps(p->windows[w].end - t0));
    json_array_append_new(wins, x);
  }
  json_object_set_new(o, "windows", wins);
  /* the events of this program, sorted by line then start: one track per line */
  uint32_t e0 = 0, e1;
  while (e0 < p->n_pics && p->pics[e0].prog != prog) e0++;
  for (e1 = e0; e1 < p->n_pics && p->pics[e1].prog == prog; e1++) {
  }
  json_t *tracks = json_array(), *track = NULL, *evs = NULL;
  uint32_t cur_line = HS_NONE;
  for (uint32_t i = e0; i < e1; i++) {
    const hs_prof_pic_event *e = &p->pics[i];
    if (e->line != cur_line) {
      cur_line = e->line;
      track = json_object();
      json_object_set_new(track, "plane", hs_prof_json_str(p, p->planes[p->lines[e->line].plane].name));
      json_object_set_new(track, "line", hs_prof_json_str(p, p->lines[e->line].name));
      json_object_set_new(track, "transfers", json_boolean(e->async));
      evs = json_array();
      json_object_set_new(track, "events", evs);
      json_array_append_new(tracks, track);
    }
    json_t *x = json_array();
    json_array_append_new(x, hs_prof_json_ps(e->start - t0));
    json_array_append_new(x, hs_prof_json_ps(e->dur));
    json_array_append_new(x, row_json(row_of_op, e->op));
    if (!e->async) {
      json_array_append_new(x, json_integer(e->depth));
    } else {
      /* the part of the transfer the core spent blocked in its -done on the same device */
      uint64_t xs = 0, xd = 0, end = hs_sat_add(e->start, e->dur);
      uint32_t dev = p->planes[p->lines[e->line].plane].dev;
      for (uint32_t k = e0; e->partner != HS_NONE && k < e1; k++) {
        const hs_prof_pic_event *d = &p->pics[k];
        if (d->async || d->op != e->partner || p->planes[p->lines[d->line].plane].dev != dev || d->start < e->start) continue;
        uint64_t a = d->start, b = hs_sat_add(d->start, d->dur);
        if (b > end) b = end;
        if (a < end && b > a) xs = a, xd = b - a;
        break;
      }
      json_array_append_new(x, row_json(row_of_op, e->partner));
      json_array_append_new(x, hs_prof_json_ps(xd ? xs - t0 : 0));
      json_array_append_new(x, hs_prof_json_ps(xd));
    }
    json_array_append_new(evs, x);
  }
  json_object_set_new(o, "tracks", tracks);
  json_object_set_new(o, "events", json_integer(e1 - e0));
  json_object_set_new(o, "left_out", json_integer(p->pic_cut[prog]));
  return o;
}
