/* Async pairs: every *-start with its *-done is one transfer (all-gather, all-reduce,
 * reduce-scatter, all-to-all, collective-permute, copy, send/recv, and async-start/async-done
 * around the computation they call), and what a scheduled module runs while it is in flight.
 *
 * A done names its start as operand 0, directly or through async-update ops. In a module XLA
 * has scheduled (is_scheduled=true) the text order of a computation is its schedule, so the
 * kernels between a start and its done run while the transfer is in flight; an unscheduled
 * module says nothing of that (null). A start whose backend config says is_sync ran as a
 * synchronous collective: nothing overlaps it ([]). */
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"

static bool ends_with(const hs_doc *d, hs_slice s, const char *suffix) {
  size_t n = strlen(suffix);
  return s.len > n && memcmp(hs_sp(d, s) + s.len - n, suffix, n) == 0;
}

static bool is_start_op(const hs_doc *d, hs_slice op) {
  return ends_with(d, op, "-start") || hs_slice_is(d, op, "send") || hs_slice_is(d, op, "recv");
}
static bool is_start(const hs_doc *d, const hs_instr *in) { return is_start_op(d, hs_opcode(d, in)); }

bool hs_instr_is_done(const hs_doc *d, const hs_instr *in) { return ends_with(d, hs_opcode(d, in), "-done"); }

bool hs_instr_is_async(const hs_doc *d, const hs_instr *in) {
  hs_slice op = hs_opcode(d, in);
  return is_start_op(d, op) || ends_with(d, op, "-done") || ends_with(d, op, "-update");
}

bool hs_instr_launches_work(const hs_doc *d, const hs_instr *in) {
  static const char *const quiet[] = {"parameter", "constant", "get-tuple-element", "bitcast", "tuple",
                                      "opt-barrier", "after-all", "add-dependency", "domain"};
  hs_slice op = hs_opcode(d, in);
  for (size_t k = 0; k < sizeof quiet / sizeof quiet[0]; k++)
    if (hs_slice_is(d, op, quiet[k])) return false;
  return !hs_instr_is_async(d, in);
}

/* The start a done waits for: operand 0, through async-update ops; -1 when none. */
static int32_t start_of(const hs_doc *d, const hs_instr *done) {
  const hs_instr *x = done;
  for (int guard = 0; guard < 64 && hs_op_count(d, x); guard++) {
    int32_t t = d->operands[x->op_first].target;
    if (t < 0) return -1;
    const hs_instr *s = &d->instrs[t];
    if (is_start(d, s)) return t;
    if (!ends_with(d, hs_opcode(d, s), "-update")) return -1;
    x = s;
  }
  return -1;
}

/* is_sync in the backend config, as JSON ({"collective_backend_config":{"is_sync":true}}) or as
 * the quoted string the text sometimes prints ("{\"collective_backend_config\":...}"). */
static bool says_sync(const hs_doc *d, const hs_instr *in) {
  hs_slice bc = hs_hlo_of(d, in).backend_config;
  const char *s = hs_sp(d, bc);
  for (size_t i = 0; i + 7 <= bc.len; i++) {
    if (memcmp(s + i, "is_sync", 7) != 0) continue;
    size_t j = i + 7;
    while (j < bc.len && (s[j] == '"' || s[j] == '\\' || s[j] == ':' || s[j] == ' ')) j++;
    return j + 4 <= bc.len && memcmp(s + j, "true", 4) == 0;
  }
  return false;
}

static int32_t called(const hs_doc *d, const hs_instr *in) {
  for (uint32_t c0, c = 0, c_end = hs_calls_of(d, in, &c0); c < c_end; c++)
    if (d->calls[c0 + c].attr == HS_CALL_CALLS) return d->calls[c0 + c].target;
  return -1;
}

hs_async_pair *hs_async_pairs(const hs_doc *d, uint32_t *n) {
  *n = 0;
  if (!d || d->format != HS_FORMAT_HLO || !d->n_instrs) return NULL;
  int32_t *done_of = malloc(d->n_instrs * sizeof *done_of);
  if (!done_of) return NULL;
  uint32_t starts = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    done_of[i] = -1;
    if (is_start(d, &d->instrs[i])) starts++;
  }
  hs_async_pair *out = starts ? calloc(starts, sizeof *out) : NULL;
  if (!out) {
    free(done_of);
    return NULL;
  }
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    if (!hs_instr_is_done(d, &d->instrs[i])) continue;
    int32_t s = start_of(d, &d->instrs[i]);
    if (s >= 0 && done_of[s] < 0) done_of[s] = (int32_t)i;
  }
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (!is_start(d, in)) continue;
    hs_async_pair *p = &out[(*n)++];
    p->start = (int32_t)i;
    p->done = done_of[i];
    p->calls = -1;
    const hs_slice op = hs_opcode(d, in);
    size_t kl = op.len;
    const char *k = hs_sp(d, op);
    if (ends_with(d, op, "-start")) kl -= 6;
    if (kl == 5 && memcmp(k, "async", 5) == 0) {
      p->calls = called(d, in);
      /* what the async computation runs: its ROOT (a reduce-scatter, an all-to-all, a fusion) */
      if (p->calls >= 0 && d->comps[p->calls].root >= 0) {
        hs_slice r = hs_opcode(d, &d->instrs[d->comps[p->calls].root]);
        k = hs_sp(d, r);
        kl = r.len;
      }
    }
    if (kl >= sizeof p->kind) kl = sizeof p->kind - 1;
    memcpy(p->kind, k, kl);
    p->kind[kl] = 0;
    /* what moves: the done's result (a send: what it sends) */
    if (hs_slice_is(d, hs_opcode(d, in), "send") && hs_op_count(d, in) && d->operands[in->op_first].target >= 0)
      p->bytes = hs_type_bytes(d->instrs[d->operands[in->op_first].target].type);
    else if (p->done >= 0)
      p->bytes = hs_type_bytes(d->instrs[p->done].type);
    p->sync = says_sync(d, in);
    uint32_t m = in->comp < d->n_comps ? d->comps[in->comp].module : 0;
    p->scheduled = hs_module_scheduled(d, m);
  }
  free(done_of);
  return out;
}

/* Per computation: the known_trip_count of the while whose body it is; 0 unknown. One pass over
 * the calls. Malloc'd; NULL on OOM. */
uint64_t *hs_comp_trip_counts(const hs_doc *d) {
  uint64_t *t = calloc(d->n_comps ? d->n_comps : 1, sizeof *t);
  if (!t) return NULL;
  for (uint32_t k = 0; k < d->n_calls; k++) {
    const hs_call *cl = &d->calls[k];
    if (cl->target < 0 || cl->attr != HS_CALL_BODY || t[cl->target]) continue;
    hs_slice bc = hs_hlo_of(d, &d->instrs[cl->instr]).backend_config;
    const char *s = hs_sp(d, bc);
    for (size_t i = 0; i + 16 <= bc.len; i++) {
      if (memcmp(s + i, "known_trip_count", 16) != 0) continue;
      size_t j = i + 16;
      while (j < bc.len && (s[j] < '0' || s[j] > '9') && s[j] != '}') j++;
      uint64_t v = 0;
      while (j < bc.len && s[j] >= '0' && s[j] <= '9' && v < UINT64_MAX / 10) v = v * 10 + (uint64_t)(s[j++] - '0');
      t[cl->target] = v;
      break;
    }
  }
  return t;
}

/* The kernels between start and done (both in one computation of a scheduled module). */
json_t *hs_overlapped_json(const hs_doc *d, const hs_async_pair *p) {
  if (!p->scheduled || p->done < 0) return json_null();
  if (p->sync) return json_array();
  const hs_instr *s = &d->instrs[p->start];
  if (d->instrs[p->done].comp != s->comp) return json_null();
  json_t *a = json_array();
  for (int32_t i = p->start + 1; i < p->done; i++) {
    const hs_instr *in = &d->instrs[i];
    if (in->comp == s->comp && hs_instr_launches_work(d, in)) json_array_append_new(a, hs_json_slice(d, in->name));
  }
  return a;
}

void hs_overlap_explain(const hs_doc *d, const hs_async_pair *ps, uint32_t n, char *buf, size_t cap) {
  if (d->format != HS_FORMAT_HLO) {
    snprintf(buf, cap, "Async transfers (a *-start with its *-done) are XLA's decisions: paste the optimized HLO "
                       "(compile().as_text()) to see them.");
    return;
  }
  if (!n) {
    snprintf(buf, cap, "No async transfer: the module starts no collective, copy, send or recv asynchronously.");
    return;
  }
  uint32_t lone = 0;
  for (uint32_t k = 0; k < n; k++) lone += ps[k].done < 0;
  int w = snprintf(buf, cap, "%u async transfer%s", n, n == 1 ? "" : "s");
#define MORE(...) do { if (w > 0 && (size_t)w < cap) w += snprintf(buf + w, cap - (size_t)w, __VA_ARGS__); } while (0)
  if (lone) MORE(", %u without its done in the text (is it cut?)", lone);
  else MORE(", each start paired with its done");
  char ov[400] = "";
  for (uint32_t k = 0; k < n; k++) {
    const hs_async_pair *p = &ps[k];
    if (!p->scheduled || p->sync || p->done < 0) continue;
    json_t *o = hs_overlapped_json(d, p);
    bool some = json_array_size(o) > 0;
    json_decref(o);
    if (some && hs_overlap_sentence(d, p, ov, sizeof ov)) break;
  }
  if (ov[0]) MORE(": %s", ov);
  else if (!ps[0].scheduled) MORE("; the module is not scheduled, so what overlaps them is not known");
  MORE(".");
#undef MORE
}

/* One transfer as `hloscope overlap` lists it (trips: its computation's trip count, 0 unknown). */
json_t *hs_async_pair_json(const hs_doc *d, const hs_async_pair *p, uint64_t trips) {
  const hs_instr *s = &d->instrs[p->start];
  json_t *t = json_object();
  json_object_set_new(t, "kind", json_string(p->kind));
  json_object_set_new(t, "start", hs_json_slice(d, s->name));
  json_object_set_new(t, "done", p->done >= 0 ? hs_json_slice(d, d->instrs[p->done].name) : json_null());
  json_object_set_new(t, "computation", s->comp < d->n_comps ? hs_json_slice(d, d->comps[s->comp].name) : json_null());
  json_object_set_new(t, "bytes", json_integer((json_int_t)p->bytes));
  json_object_set_new(t, "sync", json_boolean(p->sync));
  json_object_set_new(t, "overlapped", hs_overlapped_json(d, p));
  json_object_set_new(t, "calls", p->calls >= 0 ? hs_json_slice(d, d->comps[p->calls].name) : json_null());
  json_object_set_new(t, "line", json_integer(s->line));
  json_object_set_new(t, "done_line", p->done >= 0 ? json_integer(d->instrs[p->done].line) : json_null());
  json_object_set_new(t, "trip_count", trips ? json_integer((json_int_t)trips) : json_null());
  json_object_set_new(t, "bytes_per_run", trips ? json_integer((json_int_t)(p->bytes * trips)) : json_null());
  return t;
}

char *hs_overlap_json(const hs_doc *d, size_t *len) {
  if (!d) return NULL;
  uint32_t n = 0;
  hs_async_pair *ps = hs_async_pairs(d, &n);
  json_t *o = json_object();
  json_t *arr = json_array();
  bool scheduled = false;
  for (uint32_t m = 0; m < d->n_modules && d->format == HS_FORMAT_HLO; m++) scheduled |= hs_module_scheduled(d, m);
  uint64_t *trips_of = n ? hs_comp_trip_counts(d) : NULL;
  for (uint32_t k = 0; k < n; k++) {
    const hs_async_pair *p = &ps[k];
    const hs_instr *s = &d->instrs[p->start];
    uint64_t trips = trips_of && s->comp < d->n_comps ? trips_of[s->comp] : 0;
    json_array_append_new(arr, hs_async_pair_json(d, p, trips));
  }
  char ex[600];
  hs_overlap_explain(d, ps, n, ex, sizeof ex);
  free(ps);
  free(trips_of);
  json_object_set_new(o, "scheduled", json_boolean(scheduled));
  json_object_set_new(o, "transfers", arr);
  json_object_set_new(o, "explanation", hs_json_bytes(ex, strlen(ex)));
  return hs_json_finish(o, len);
}

/* "the all-gather is in flight while gemm_fusion.7 and fusion.3 run" for one pair; 0 (nothing
 * written) when it has no done. */
size_t hs_overlap_sentence(const hs_doc *d, const hs_async_pair *p, char *buf, size_t cap) {
  if (!cap) return 0;
  buf[0] = 0;
  if (p->done < 0) return 0;
  size_t w = 0;
#define PUT(...) w += (size_t)snprintf(buf + (w < cap ? w : cap - 1), w < cap ? cap - w : 1, __VA_ARGS__)
  if (!p->scheduled) {
    PUT("the module is not scheduled, so what runs while the %s is in flight is not known", p->kind);
    return w < cap ? w : cap - 1;
  }
  if (p->sync) {
    PUT("the %s runs synchronously (is_sync in its backend config): nothing overlaps it", p->kind);
    return w < cap ? w : cap - 1;
  }
  const hs_instr *s = &d->instrs[p->start];
  uint32_t count = 0, shown = 0;
  for (int32_t j = p->start + 1; j < p->done; j++)
    if (d->instrs[j].comp == s->comp && hs_instr_launches_work(d, &d->instrs[j])) count++;
  if (!count) {
    PUT("nothing is scheduled between %.*s and %.*s: the %s does not overlap any kernel", (int)s->name.len,
        hs_sp(d, s->name), (int)d->instrs[p->done].name.len, hs_sp(d, d->instrs[p->done].name), p->kind);
    return w < cap ? w : cap - 1;
  }
  PUT("the %s is in flight while ", p->kind);
  for (int32_t j = p->start + 1; j < p->done; j++) {
    const hs_instr *u = &d->instrs[j];
    if (u->comp != s->comp || !hs_instr_launches_work(d, u)) continue;
    if (shown == 3) {
      PUT(" and %u more", count - shown);
      break;
    }
    PUT("%s%.*s", shown == 0 ? "" : shown + 1 == count ? " and " : ", ", (int)u->name.len, hs_sp(d, u->name));
    shown++;
  }
  PUT(" run%s", count == 1 ? "s" : "");
#undef PUT
  return w < cap ? w : cap - 1;
}
