/* The Chrome trace-event JSON reader (.trace.json; the CLI gunzips .trace.json.gz): process
 * and thread names ("M" events) become planes and lines, complete events ("X") the events
 * worth counting, with hlo_op/hlo_module/program_id/run_id and the TPU device times from
 * "args". Timestamps are microseconds and become picoseconds. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

static const char *jstr(json_t *o, const char *k, size_t *n) {
  json_t *v = json_object_get(o, k);
  if (!json_is_string(v)) return NULL;
  *n = json_string_length(v);
  return json_string_value(v);
}

/* Microseconds (a JSON number, or a string holding one) to picoseconds; false when unusable. */
static bool us_to_ps(json_t *v, uint64_t *ps) {
  double d;
  if (json_is_number(v)) d = json_number_value(v);
  else if (json_is_string(v)) {
    char *end;
    d = strtod(json_string_value(v), &end);
    if (end == json_string_value(v)) return false;
  } else return false;
  if (!isfinite(d) || d < 0 || d > 1.8e13) return false;
  *ps = (uint64_t)(d * 1e6 + 0.5);
  return true;
}

static bool arg_u64(json_t *args, const char *k, uint64_t *v) {
  json_t *x = json_object_get(args, k);
  if (json_is_string(x)) return hs_prof_parse_u64(json_string_value(x), json_string_length(x), v);
  if (json_is_integer(x)) {
    *v = (uint64_t)json_integer_value(x);
    return true;
  }
  return false;
}

static uint64_t pid_key(json_t *e, const char *k) {
  json_t *v = json_object_get(e, k);
  if (json_is_integer(v)) return (uint64_t)json_integer_value(v);
  if (json_is_string(v)) return hs_hash(json_string_value(v), json_string_length(v)) | (1ULL << 63);
  return 0;
}

typedef struct {
  hs_u64map planes; /* pid -> plane */
  hs_u64map lines;  /* hash(pid, tid) -> first line index of a chain */
  uint64_t *line_pid, *line_tid;
  uint32_t *line_next;
  uint32_t cap;
} jtmp;

static uint32_t j_plane(hs_profile *p, jtmp *t, uint64_t pid, uint32_t name) {
  int64_t pi = hs_u64map_get(&t->planes, pid);
  if (pi >= 0) {
    if (name != HS_NONE) p->planes[pi].name = name;
    return (uint32_t)pi;
  }
  if (name == HS_NONE) {
    char buf[40];
    snprintf(buf, sizeof buf, "pid %lld", (long long)pid);
    name = hs_prof_intern_z(p, buf);
    if (name == HS_NONE) return HS_NONE;
  }
  uint32_t np = hs_prof_add_plane(p, name);
  if (np == HS_NONE || !hs_u64map_put(&t->planes, pid, np)) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  return np;
}

static uint32_t j_line(hs_profile *p, jtmp *t, uint64_t pid, uint64_t tid, uint32_t name) {
  uint64_t key = pid * 0x9E3779B97F4A7C15ULL ^ tid;
  int64_t li = hs_u64map_get(&t->lines, key);
  for (int64_t i = li; i >= 0; i = t->line_next[i] == HS_NONE ? -1 : (int64_t)t->line_next[i]) {
    if (t->line_pid[i] == pid && t->line_tid[i] == tid) {
      if (name != HS_NONE) p->lines[i].name = name;
      return (uint32_t)i;
    }
  }
  uint32_t plane = j_plane(p, t, pid, HS_NONE);
  if (plane == HS_NONE) return HS_NONE;
  if (name == HS_NONE) {
    char buf[40];
    snprintf(buf, sizeof buf, "tid %lld", (long long)tid);
    name = hs_prof_intern_z(p, buf);
    if (name == HS_NONE) return HS_NONE;
  }
  uint32_t nl = hs_prof_add_line(p, plane, name);
  if (nl == HS_NONE) return HS_NONE;
  if (nl >= t->cap) {
    uint32_t nc = t->cap ? t->cap * 2 : 64;
    uint64_t *a = realloc(t->line_pid, (size_t)nc * sizeof *a);
    if (a) t->line_pid = a;
    uint64_t *b = realloc(t->line_tid, (size_t)nc * sizeof *b);
    if (b) t->line_tid = b;
    uint32_t *c = realloc(t->line_next, (size_t)nc * sizeof *c);
    if (c) t->line_next = c;
    if (!a || !b || !c) {
      p->diag.nomem = true;
      return HS_NONE;
    }
    t->cap = nc;
  }
  t->line_pid[nl] = pid;
  t->line_tid[nl] = tid;
  t->line_next[nl] = li >= 0 ? (uint32_t)li : HS_NONE;
  /* the newest line heads the chain of lines whose (pid, tid) share the key */
  if (li < 0) {
    if (!hs_u64map_put(&t->lines, key, nl)) p->diag.nomem = true;
  } else {
    hs_u64map_set(&t->lines, key, nl);
  }
  return nl;
}

static void j_event(hs_profile *p, jtmp *t, json_t *e) {
  size_t n;
  const char *ph = jstr(e, "ph", &n);
  if (!ph || n != 1) return;
  uint64_t pid = pid_key(e, "pid"), tid = pid_key(e, "tid");
  if (ph[0] == 'M') {
    const char *what = jstr(e, "name", &n);
    size_t vn;
    const char *v = jstr(json_object_get(e, "args"), "name", &vn);
    if (!what || !v) return;
    uint32_t s = hs_prof_intern(p, v, vn);
    if (s == HS_NONE) return;
    if (strcmp(what, "process_name") == 0) j_plane(p, t, pid, s);
    else if (strcmp(what, "thread_name") == 0) j_line(p, t, pid, tid, s);
    return;
  }
  if (ph[0] != 'X') return;
  uint32_t li = j_line(p, t, pid, tid, HS_NONE);
  if (li == HS_NONE) return;
  p->lines[li].events++;
  const hs_prof_str *ln = &p->strs[p->lines[li].name];
  int kind = hs_prof_line_kind(p, p->lines[li].plane, ln->s, ln->len);
  if (kind == HS_PK_OTHER) return;
  if (kind == HS_PK_TPU_OPS) p->planes[p->lines[li].plane].xla_ops = 1; /* a line no thread_name named */
  if ((kind == HS_PK_TPU_MODULES || kind == HS_PK_TPU_ASYNC) && !p->planes[p->lines[li].plane].xla_ops) return;
  uint64_t start, dur = 0;
  if (!us_to_ps(json_object_get(e, "ts"), &start)) {
    hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "an event without a usable \"ts\" was skipped");
    return;
  }
  us_to_ps(json_object_get(e, "dur"), &dur);
  json_t *args = json_object_get(e, "args");
  const char *name = jstr(e, "name", &n);
  size_t on = 0;
  const char *op = jstr(args, "hlo_op", &on);
  if (kind == HS_PK_GPU && !op && name) /* a kernel no HLO op accounts for */
    hs_prof_add_kernel(p, false, 0, HS_NONE, HS_NONE, hs_prof_intern(p, name, n), dur);
  if ((kind == HS_PK_GPU || kind == HS_PK_CPU) && !op) return;
  if (kind == HS_PK_TPU_ASYNC || kind == HS_PK_STEPS) {
    if (!name) return;
    uint32_t done = HS_NONE;
    if (op) {
      hs_prof_op_from_stack(&op, &on);
      done = hs_prof_intern(p, op, on);
    }
    uint64_t dstart = start, ddur = dur;
    arg_u64(args, "device_offset_ps", &dstart);
    arg_u64(args, "device_duration_ps", &ddur);
    hs_prof_add_aside(p, kind, li, name, n, done, start, dstart, ddur);
    return;
  }
  if (kind == HS_PK_TPU_MODULES) {
    if (!name) return;
    hs_prof_event *ev = hs_prof_add_event(p);
    if (!ev) return;
    ev->kind = (uint8_t)kind;
    ev->line = li;
    size_t nl;
    uint64_t id;
    if (hs_prof_split_program(name, n, &nl, &id)) {
      ev->name = hs_prof_intern(p, name, nl);
      ev->pid = hs_prof_id_of(p, id);
      if (ev->name != HS_NONE && !hs_u64map_put(&p->pid_names, id, ev->name)) p->diag.nomem = true;
    } else {
      ev->name = hs_prof_intern(p, name, n);
    }
    ev->start = ev->raw_start = start;
    ev->dur = dur;
    return;
  }
  if (op) hs_prof_op_from_stack(&op, &on);
  else if (name) {
    op = name;
    on = n;
    hs_prof_op_from_hlo_text(&op, &on);
  } else return;
  hs_prof_event *ev = hs_prof_add_event(p);
  if (!ev) return;
  ev->kind = (uint8_t)kind;
  ev->line = li;
  ev->name = hs_prof_intern(p, op, on);
  const char *s;
  if ((s = jstr(args, "hlo_module", &n))) ev->module = hs_prof_intern(p, s, n);
  if ((s = jstr(args, "hlo_category", &n))) ev->category = hs_prof_intern(p, s, n);
  uint64_t idv;
  if (arg_u64(args, "program_id", &idv)) ev->pid = hs_prof_id_of(p, idv);
  if (arg_u64(args, "run_id", &idv)) ev->run = hs_prof_id_of(p, idv);
  ev->start = ev->raw_start = start;
  ev->dur = dur;
  uint64_t v;
  if (kind == HS_PK_TPU_OPS && arg_u64(args, "device_offset_ps", &v)) ev->start = v;
  if (kind == HS_PK_TPU_OPS && arg_u64(args, "device_duration_ps", &v)) ev->dur = v;
  if (kind == HS_PK_GPU && name)
    hs_prof_add_kernel(p, ev->pid != HS_NONE, ev->pid != HS_NONE ? p->ids[ev->pid] : 0, ev->module, ev->name,
                       hs_prof_intern(p, name, strlen(name)), ev->dur);
  if (kind == HS_PK_TPU_OPS && name && name[0] == '%')
    hs_prof_add_op_text(p, ev->pid != HS_NONE, ev->pid != HS_NONE ? p->ids[ev->pid] : 0, ev->name, hs_prof_intern(p, name, strlen(name)));
}

int hs_trace_json_read(hs_profile *p, const char *text, size_t len, hs_error *err) {
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_ALLOW_NUL, &je);
  if (!root) {
    if (err) {
      hs_set_error(err, HS_E_SYNTAX, NULL, 0, (size_t)(je.position > 0 ? je.position : 0), "trace JSON: %s", je.text);
      err->line = je.line > 0 ? (uint32_t)je.line : 0;
      err->col = je.column > 0 ? (uint32_t)je.column : 0;
    }
    return HS_E_SYNTAX;
  }
  json_t *evs = json_is_array(root) ? root : json_object_get(root, "traceEvents");
  if (!json_is_array(evs)) {
    json_decref(root);
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0, "not a trace-event JSON: no \"traceEvents\" array");
    if (err) err->line = err->col = 1;
    return HS_E_FORMAT;
  }
  jtmp t = {0};
  size_t i;
  json_t *e;
  /* names first (metadata events usually lead, but need not), then the timed events */
  json_array_foreach(evs, i, e) {
    size_t n;
    const char *ph = jstr(e, "ph", &n);
    if (ph && n == 1 && ph[0] == 'M') j_event(p, &t, e);
    if (p->diag.nomem) break;
  }
  /* the TPU planes read: those with an XLA Ops line */
  for (uint32_t l = 0; l < p->n_lines; l++) {
    const hs_prof_str *ln = &p->strs[p->lines[l].name];
    if (hs_prof_line_kind(p, p->lines[l].plane, ln->s, ln->len) == HS_PK_TPU_OPS) p->planes[p->lines[l].plane].xla_ops = 1;
  }
  json_array_foreach(evs, i, e) {
    size_t n;
    const char *ph = jstr(e, "ph", &n);
    if (ph && n == 1 && ph[0] != 'M') j_event(p, &t, e);
    if (p->diag.nomem) break;
  }
  hs_u64map_free(&t.planes);
  hs_u64map_free(&t.lines);
  free(t.line_pid);
  free(t.line_tid);
  free(t.line_next);
  json_decref(root);
  if (p->diag.nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory reading the profile");
    return HS_E_NOMEM;
  }
  return 0;
}
