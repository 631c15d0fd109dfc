/* A profile as JSON (keys in README.md and wasm/hloscope.d.ts `Profile`). */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

/* Program ids are 64-bit: a decimal string keeps them exact in JS. */
json_t *hs_prof_json_pid(bool has_pid, uint64_t id) {
  if (!has_pid) return json_null();
  char buf[24];
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)id);
  return json_string(buf);
}

json_t *hs_prof_json_str(const hs_profile *p, uint32_t id) {
  return id == HS_NONE ? json_null() : hs_json_bytes(p->strs[id].s, p->strs[id].len);
}

json_t *hs_prof_json_ps(uint64_t v) { return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v); }

static int cmp_kern_total(const void *a, const void *b) {
  const hs_prof_kernel *x = *(const hs_prof_kernel *const *)a, *y = *(const hs_prof_kernel *const *)b;
  if (x->total != y->total) return x->total > y->total ? -1 : 1;
  return x->kernel < y->kernel ? -1 : x->kernel > y->kernel;
}

json_t *hs_prof_kernels_json(const hs_profile *p, uint32_t op) {
  json_t *a = json_array();
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n_kerns; i++) n += p->kerns[i].op == op && (op != HS_NONE || p->kerns[i].op_name == HS_NONE);
  const hs_prof_kernel **k = n ? malloc(n * sizeof *k) : NULL;
  if (n && !k) return a;
  n = 0;
  for (uint32_t i = 0; i < p->n_kerns; i++)
    if (p->kerns[i].op == op && (op != HS_NONE || p->kerns[i].op_name == HS_NONE)) k[n++] = &p->kerns[i];
  if (n > 1) qsort(k, n, sizeof *k, cmp_kern_total);
  /* the unattributed kernels are recorded per program: merge them by kernel name */
  for (uint32_t i = 0; i < n; i++) {
    if (!k[i]) continue;
    uint64_t count = k[i]->count, total = k[i]->total;
    for (uint32_t j = i + 1; op == HS_NONE && j < n; j++)
      if (k[j] && k[j]->kernel == k[i]->kernel) count += k[j]->count, total = hs_sat_add(total, k[j]->total), k[j] = NULL;
    json_t *x = json_object();
    json_object_set_new(x, "name", hs_prof_json_str(p, k[i]->kernel));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(count));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(total));
    json_array_append_new(a, x);
  }
  free(k);
  return a;
}

char *hs_profile_json(const hs_profile *p, size_t *len) {
  if (!p) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "format", json_string(p->format == HS_PROF_XPLANE ? "xplane" : "trace_json"));
  /* each plane's lines in the order they were read (a counting sort: trace JSON interleaves them) */
  uint32_t *first = calloc((size_t)p->n_planes + 1, sizeof *first);
  uint32_t *order = malloc(((size_t)p->n_lines + 1) * sizeof *order);
  if (!first || !order) {
    free(first);
    free(order);
    json_decref(o);
    return NULL;
  }
  for (uint32_t l = 0; l < p->n_lines; l++) first[p->lines[l].plane + 1]++;
  for (uint32_t i = 0; i < p->n_planes; i++) first[i + 1] += first[i];
  for (uint32_t l = 0; l < p->n_lines; l++) order[first[p->lines[l].plane]++] = l;
  for (uint32_t i = p->n_planes; i > 0; i--) first[i] = first[i - 1];
  first[0] = 0;
  json_t *planes = json_array();
  for (uint32_t i = 0; i < p->n_planes; i++) {
    json_t *po = json_object();
    json_object_set_new(po, "name", hs_prof_json_str(p, p->planes[i].name));
    json_t *ls = json_array();
    for (uint32_t k = first[i]; k < first[i + 1]; k++) {
      uint32_t l = order[k];
      json_t *lo = json_object();
      json_object_set_new(lo, "name", hs_prof_json_str(p, p->lines[l].name));
      json_object_set_new(lo, "events", hs_prof_json_ps(p->lines[l].events));
      json_array_append_new(ls, lo);
    }
    json_object_set_new(po, "lines", ls);
    json_array_append_new(planes, po);
  }
  free(first);
  free(order);
  json_object_set_new(o, "planes", planes);
  if (p->device_plane != HS_NONE) {
    json_t *d = json_object();
    json_object_set_new(d, "plane", hs_prof_json_str(p, p->device_plane));
    json_object_set_new(d, "line", hs_prof_json_str(p, p->device_line));
    json_object_set_new(o, "device", d);
  } else {
    json_object_set_new(o, "device", json_null());
  }
  json_t *progs = json_array();
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const hs_prof_program *g = &p->progs[i];
    json_t *go = json_object();
    json_object_set_new(go, "name", hs_prof_json_str(p, g->name));
    json_object_set_new(go, "program_id", hs_prof_json_pid(g->has_pid, g->program_id));
    json_object_set_new(go, "runs", hs_prof_json_ps(g->runs));
    json_object_set_new(go, "envelope_ps", hs_prof_json_ps(g->envelope));
    json_object_set_new(go, "device_count", json_integer(g->devices));
    json_array_append_new(progs, go);
  }
  json_object_set_new(o, "programs", progs);
  json_t *ops = json_array();
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const hs_prof_op *op = &p->ops[i];
    json_t *x = json_object();
    json_object_set_new(x, "name", hs_prof_json_str(p, op->name));
    json_object_set_new(x, "module", hs_prof_json_str(p, op->module));
    json_object_set_new(x, "program_id", hs_prof_json_pid(op->has_pid, op->program_id));
    json_object_set_new(x, "category", hs_prof_json_str(p, op->category));
    json_object_set_new(x, "occurrences", hs_prof_json_ps(op->occurrences));
    json_object_set_new(x, "total_ps", hs_prof_json_ps(op->total));
    json_object_set_new(x, "self_ps", hs_prof_json_ps(op->self));
    json_object_set_new(x, "per_run_ps", hs_prof_json_ps(hs_prof_op_per_run(op)));
    json_object_set_new(x, "devices", json_integer(op->devices));
    json_object_set_new(x, "kernels", hs_prof_kernels_json(p, i));
    json_array_append_new(ops, x);
  }
  json_object_set_new(o, "ops", ops);
  json_object_set_new(o, "unattributed", hs_prof_kernels_json(p, HS_NONE));
  json_object_set_new(o, "devices", hs_prof_devices_json(p));
  json_t *files = json_array();
  for (uint32_t f = 0; f < p->n_files; f++) {
    json_t *x = json_object();
    json_object_set_new(x, "file", hs_prof_json_str(p, p->files[f].name));
    json_object_set_new(x, "host", hs_prof_json_str(p, p->files[f].host));
    json_object_set_new(x, "pid", p->files[f].has_pid ? json_integer((json_int_t)p->files[f].pid) : json_null());
    json_array_append_new(files, x);
  }
  json_object_set_new(o, "files", files);
  json_t *mods = json_array();
  for (uint32_t i = 0; i < p->n_hlo_modules; i++) json_array_append_new(mods, hs_prof_json_str(p, p->hlo_modules[i]));
  json_object_set_new(o, "hlo_modules", mods);
  json_object_set_new(o, "warnings", hs_warnings_json(p->diag.warnings, p->diag.n_warnings));
  return hs_json_finish(o, len);
}
