/* The timeline's figures over devices, hosts and steps, and the sentences that say them:
 *   - a program's devices: per device its runs, envelope, time per run, total, busy (self time
 *     of its ops), idle (per run minus busy) and collective time per run, and whether its
 *     transfers' hidden and exposed time can be told (TPU: only chips with Async XLA Ops
 *     events); the sentence names how many devices, how even they were and the slowest;
 *   - hosts (one per input file: several processes of one machine share a host name): per
 *     file its devices of the program, runs, time per run, time in collectives per run, the
 *     time before them (compute) and the time it waited in them for the others (its collective
 *     time per run minus the least any host spent in them, which is the transfer itself: the
 *     last to arrive waits for no one). The slowest is the host whose run took longest before
 *     the collectives all the others waited in (none is named when the program has none);
 *   - steps (XProf's Steps line): each step's time and the share of it the ops account for. */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

static const char *plane_name(const hs_profile *p, uint32_t dev) { return p->strs[p->planes[p->devs[dev]].name].s; }

/* A device as the sentences name it: its plane, and its file when there are several files
 * (every process of a job has a /host:CPU, every host a /device:TPU:0). */
static const char *label(const hs_profile *p, uint32_t dev, char *buf, size_t cap) {
  const hs_prof_plane *pl = &p->planes[p->devs[dev]];
  uint32_t f = p->files[pl->file].name;
  if (p->n_files < 2 || f == HS_NONE) return plane_name(p, dev);
  snprintf(buf, cap, "%.120s of %.160s", plane_name(p, dev), p->strs[f].s);
  return buf;
}

/* "TPU", "GPU", "host CPU": what a device is, from its plane's name */
static const char *device_noun(const hs_profile *p, uint32_t dev) {
  const char *n = plane_name(p, dev);
  if (strncmp(n, "/device:TPU:", 12) == 0) return "TPU";
  if (strncmp(n, "/device:GPU:", 12) == 0) return "GPU";
  if (strcmp(n, "/host:CPU") == 0) return "host CPU";
  return "device";
}

static uint64_t per_run(const hs_prof_devrun *d) { return d->runs ? d->envelope / d->runs : 0; }

static void put_range(hs_prof_text *t, uint64_t lo, uint64_t hi) {
  char a[32], b[32];
  hs_prof_fmt_time(lo, a, sizeof a);
  hs_prof_fmt_time(hi, b, sizeof b);
  if (strcmp(a, b) == 0) hs_prof_put(t, "%s", a);
  else hs_prof_put(t, "%s to %s", a, b);
}

/* 1 when the program has async pairs whose hidden time was told */
static bool has_async(const hs_profile *p, const hs_prof_program *g) {
  for (uint32_t i = 0; i < p->n_asyncs; i++)
    if (p->asyncs[i].has_pid == g->has_pid && (g->has_pid ? p->asyncs[i].program_id == g->program_id : p->asyncs[i].module == g->name))
      return true;
  return false;
}

json_t *hs_prof_program_devices_json(const hs_profile *p, uint32_t prog) {
  json_t *a = json_array();
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  for (uint32_t i = first; i < first + n; i++) {
    const hs_prof_devrun *d = &p->devruns[i];
    const hs_prof_plane *pl = &p->planes[p->devs[d->dev]];
    uint64_t pr = per_run(d), busy = d->runs ? d->busy / d->runs : 0, coll = d->runs ? d->collective / d->runs : 0;
    json_t *x = json_object();
    json_object_set_new(x, "plane", hs_prof_json_str(p, pl->name));
    json_object_set_new(x, "host", hs_prof_json_str(p, p->files[pl->file].host));
    json_object_set_new(x, "file", hs_prof_json_str(p, p->files[pl->file].name));
    json_object_set_new(x, "runs", hs_prof_json_ps(d->runs));
    json_object_set_new(x, "envelope_ps", hs_prof_json_ps(d->envelope));
    json_object_set_new(x, "per_run_ps", hs_prof_json_ps(pr));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(d->total));
    json_object_set_new(x, "busy_ps", hs_prof_json_ps(busy));
    json_object_set_new(x, "idle_ps", hs_prof_json_ps(pr > busy ? pr - busy : 0));
    json_object_set_new(x, "collective_ps", hs_prof_json_ps(coll));
    json_object_set_new(x, "async", json_string(hs_prof_device_async_known(p, d->dev) ? "known" : "unknown"));
    json_array_append_new(a, x);
  }
  return a;
}

void hs_prof_say_devices(const hs_profile *p, uint32_t prog, bool details, hs_prof_text *t) {
  const hs_prof_program *g = &p->progs[prog];
  char lb[300];
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  if (n < 2) return;
  const hs_prof_devrun *d = &p->devruns[first];
  /* the slowest: the longest run outside collectives (in one, the fast wait for the slow) */
  uint64_t lo = UINT64_MAX, hi = 0, most = 0, coll = 0;
  uint32_t slow = first;
  for (uint32_t i = first; i < first + n; i++) {
    const hs_prof_devrun *x = &p->devruns[i];
    uint64_t r = per_run(x), c = x->runs ? x->collective / x->runs : 0, outside = r > c ? r - c : 0;
    if (r < lo) lo = r;
    if (r > hi) hi = r;
    if (outside > most || i == first) most = outside, slow = i;
    coll |= c;
  }
  const char *noun = device_noun(p, d->dev);
  bool same_noun = true;
  for (uint32_t i = first; i < first + n; i++) same_noun &= strcmp(device_noun(p, p->devruns[i].dev), noun) == 0;
  if (!same_noun) noun = "device";
  hs_prof_put(t, " on %s %u %ss", g->runs_differ ? "most of its" : "each of", n, noun);
  if (g->runs_differ) {
    hs_prof_put(t, " (");
    int k = 0;
    for (uint32_t i = first; i < first + n; i++) {
      if (p->devruns[i].runs == g->runs) continue;
      if (k == 3) {
        hs_prof_put(t, ", ...");
        break;
      }
      hs_prof_put(t, "%s%llu on %s", k++ ? ", " : "", (unsigned long long)p->devruns[i].runs, label(p, p->devruns[i].dev, lb, sizeof lb));
    }
    hs_prof_put(t, ")");
  }
  hs_prof_put(t, ", ");
  put_range(t, lo, hi);
  hs_prof_put(t, " per run on one %s", noun);
  /* the slowest, when they differ by more than a thousandth */
  if (hi - lo > hi / 1000)
    hs_prof_put(t, ": %s is the slowest%s", label(p, p->devruns[slow].dev, lb, sizeof lb),
                coll ? " (the longest outside collectives, where the others wait for it)" : "");
  if (details) {
    uint64_t blo = UINT64_MAX, bhi = 0, ilo = UINT64_MAX, ihi = 0, clo = UINT64_MAX, chi = 0;
    for (uint32_t i = first; i < first + n; i++) {
      const hs_prof_devrun *x = &p->devruns[i];
      uint64_t r = per_run(x), b = x->runs ? x->busy / x->runs : 0, c = x->runs ? x->collective / x->runs : 0;
      uint64_t idle = r > b ? r - b : 0;
      if (b < blo) blo = b;
      if (b > bhi) bhi = b;
      if (idle < ilo) ilo = idle;
      if (idle > ihi) ihi = idle;
      if (c < clo) clo = c;
      if (c > chi) chi = c;
    }
    hs_prof_put(t, "; per device and run: busy ");
    put_range(t, blo, bhi);
    if (chi) {
      hs_prof_put(t, " (in collectives ");
      put_range(t, clo, chi);
      hs_prof_put(t, ")");
    }
    hs_prof_put(t, ", idle ");
    put_range(t, ilo, ihi);
  }
}

void hs_prof_say_async_unknown(const hs_profile *p, uint32_t prog, hs_prof_text *t) {
  const hs_prof_program *g = &p->progs[prog];
  char lb[300];
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  /* TPU: only chips with Async XLA Ops events tell hidden from exposed */
  uint32_t unknown = 0;
  for (uint32_t i = first; i < first + n; i++) unknown += !hs_prof_device_async_known(p, p->devruns[i].dev);
  if (unknown && has_async(p, g)) {
    hs_prof_put(t, "; hidden and exposed transfer time is unknown on ");
    int k = 0;
    for (uint32_t i = first; i < first + n; i++) {
      if (hs_prof_device_async_known(p, p->devruns[i].dev)) continue;
      if (k == 4) {
        hs_prof_put(t, ", ...");
        break;
      }
      hs_prof_put(t, "%s%s", k++ ? ", " : "", label(p, p->devruns[i].dev, lb, sizeof lb));
    }
    hs_prof_put(t, " (no Async XLA Ops events there)");
  }
}

/* ---- hosts ------------------------------------------------------------------------------------ */
typedef struct {
  uint32_t file, devices;
  uint64_t runs, per_run, collective;
} host_fig;

json_t *hs_prof_hosts_json(const hs_profile *p, uint32_t prog, hs_prof_text *say) {
  json_t *a = json_array();
  if (prog == HS_NONE) return a;
  host_fig *h = calloc(p->n_files ? p->n_files : 1, sizeof *h);
  if (!h) return a;
  uint32_t first, n = hs_prof_devruns_of(p, prog, &first);
  for (uint32_t i = first; i < first + n; i++) {
    const hs_prof_devrun *d = &p->devruns[i];
    host_fig *x = &h[p->planes[p->devs[d->dev]].file];
    x->devices++;
    if (d->runs > x->runs) x->runs = d->runs;
    x->per_run += per_run(d);
    x->collective += d->runs ? d->collective / d->runs : 0;
  }
  uint32_t hosts = 0, slow = HS_NONE;
  uint64_t least = UINT64_MAX, most_compute = 0;
  for (uint32_t f = 0; f < p->n_files; f++) {
    host_fig *x = &h[f];
    if (!x->devices) continue;
    x->per_run /= x->devices;
    x->collective /= x->devices;
    hosts++;
    if (x->collective < least) least = x->collective;
    uint64_t compute = x->per_run > x->collective ? x->per_run - x->collective : 0;
    if (slow == HS_NONE || compute > most_compute) slow = f, most_compute = compute;
  }
  uint64_t waited_most = 0;
  bool has_coll = false;
  for (uint32_t f = 0; f < p->n_files; f++) has_coll |= h[f].collective > 0;
  for (uint32_t f = 0; f < p->n_files; f++) {
    const host_fig *x = &h[f];
    if (!x->devices) continue;
    const hs_prof_file *pf = &p->files[f];
    uint64_t compute = x->per_run > x->collective ? x->per_run - x->collective : 0, waited = x->collective - least;
    if (f != slow && waited > waited_most) waited_most = waited;
    json_t *o = json_object();
    json_object_set_new(o, "file", hs_prof_json_str(p, pf->name));
    json_object_set_new(o, "host", hs_prof_json_str(p, pf->host));
    json_object_set_new(o, "pid", pf->has_pid ? json_integer((json_int_t)pf->pid) : json_null());
    json_object_set_new(o, "device_count", json_integer(x->devices));
    json_object_set_new(o, "runs", hs_prof_json_ps(x->runs));
    json_object_set_new(o, "per_run_ps", hs_prof_json_ps(x->per_run));
    json_object_set_new(o, "collective_ps", hs_prof_json_ps(x->collective));
    json_object_set_new(o, "compute_ps", hs_prof_json_ps(compute));
    json_object_set_new(o, "waited_ps", hs_prof_json_ps(waited));
    json_object_set_new(o, "slowest", json_boolean(hosts > 1 && f == slow && has_coll));
    json_array_append_new(a, o);
  }
  if (hosts > 1 && say && has_coll) {
    const hs_prof_file *pf = &p->files[slow];
    char c[32], w[32];
    hs_prof_fmt_time(most_compute, c, sizeof c);
    hs_prof_fmt_time(waited_most, w, sizeof w);
    hs_prof_put(say, "; %u hosts (one file each): %s", hosts, pf->name != HS_NONE ? p->strs[pf->name].s : "one file");
    if (pf->host != HS_NONE || pf->has_pid) {
      hs_prof_put(say, " (");
      if (pf->host != HS_NONE) hs_prof_put(say, "host %s%s", p->strs[pf->host].s, pf->has_pid ? ", " : "");
      if (pf->has_pid) hs_prof_put(say, "pid %llu", (unsigned long long)pf->pid);
      hs_prof_put(say, ")");
    }
    hs_prof_put(say, " is the slowest: %s per run before its collectives, while the others waited up to %s per run for it in them",
                c, w);
  }
  free(h);
  return a;
}

/* ---- steps -------------------------------------------------------------------------------------- */
json_t *hs_prof_steps_json(const hs_profile *p, hs_prof_text *say) {
  json_t *a = json_array();
  uint64_t dur = 0, busy = 0;
  for (uint32_t i = 0; i < p->n_steps; i++) {
    const hs_prof_step *s = &p->steps[i];
    json_t *x = json_object();
    json_object_set_new(x, "plane", hs_prof_json_str(p, p->planes[s->plane].name));
    json_object_set_new(x, "name", hs_prof_json_str(p, s->name));
    json_object_set_new(x, "start_ps", hs_prof_json_ps(s->start));
    json_object_set_new(x, "duration_ps", hs_prof_json_ps(s->dur));
    json_object_set_new(x, "busy_ps", hs_prof_json_ps(s->busy));
    json_object_set_new(x, "share", json_real(s->dur ? (double)s->busy / (double)s->dur : 0.0));
    json_array_append_new(a, x);
    dur = hs_sat_add(dur, s->dur);
    busy = hs_sat_add(busy, s->busy);
  }
  if (p->n_steps && say) {
    char m[32];
    hs_prof_fmt_time(dur / p->n_steps, m, sizeof m);
    hs_prof_put(say, "; %u step%s (a Steps line), %s per step on average, %.1f%% of it in HLO ops", p->n_steps,
                p->n_steps == 1 ? "" : "s", m, dur ? 100.0 * (double)busy / (double)dur : 0.0);
  }
  return a;
}

uint64_t hs_prof_mean_step(const hs_profile *p) {
  uint64_t dur = 0;
  for (uint32_t i = 0; i < p->n_steps; i++) dur = hs_sat_add(dur, p->steps[i].dur);
  return p->n_steps ? dur / p->n_steps : 0;
}
