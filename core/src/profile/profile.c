/* Profiles: an XSpace protobuf (.xplane.pb) or Chrome trace-event JSON read into one small
 * model (profile.h), then per-op device time the way XProf counts it (FORMATS.md section 5;
 * the rules are in profile_count.c). This file holds the model's plumbing (interning, maps,
 * adding planes, lines and events) and the public entry points; the readers are xplane.c and
 * trace_json.c, the JSON is profile_json.c. The profile copies every string it keeps into its
 * arena: the input may be freed after hs_profile_parse returns.
 *
 * Hostile input: every length is checked against its enclosing message, every array grows with
 * what the input holds (so memory is bounded by a multiple of the input), a malformed plane or
 * line is skipped with a warning, and a truncated file gives what was read before the cut. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

void hs_prof_warn(hs_profile *p, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_diag_vwarn(&p->diag, &p->arena, code, 0, 0, fmt, ap);
  va_end(ap);
}

static bool slots_grow(hs_profile *p) {
  uint32_t nc = p->slot_cap ? p->slot_cap * 2 : 256;
  if (nc < p->slot_cap) return false;
  uint32_t *ns = calloc(nc, sizeof *ns);
  if (!ns) return false;
  for (uint32_t i = 0; i < p->slot_cap; i++) {
    if (!p->slots[i]) continue;
    uint32_t h = p->strs[p->slots[i] - 1].hash & (nc - 1);
    while (ns[h]) h = (h + 1) & (nc - 1);
    ns[h] = p->slots[i];
  }
  free(p->slots);
  p->slots = ns;
  p->slot_cap = nc;
  return true;
}

/* Interns bytes into the arena; returns the string id, HS_NONE on allocation failure. */
uint32_t hs_prof_intern(hs_profile *p, const void *s, size_t n) {
  if (n > UINT32_MAX / 2) n = UINT32_MAX / 2;
  if ((p->n_strs + 1) * 2 > p->slot_cap && !slots_grow(p)) goto oom;
  uint32_t h = hs_hash(s, n);
  uint32_t i = h & (p->slot_cap - 1);
  while (p->slots[i]) {
    const hs_prof_str *o = &p->strs[p->slots[i] - 1];
    if (o->hash == h && o->len == n && (n == 0 || memcmp(o->s, s, n) == 0)) return p->slots[i] - 1;
    i = (i + 1) & (p->slot_cap - 1);
  }
  char *c = hs_arena_alloc_raw(&p->arena, n + 1);
  bool ok;
  hs_prof_str *e = c ? HS_VEC_PUSH(p->strs, p->n_strs, p->cap_strs, ok) : NULL;
  (void)ok;
  if (!e) goto oom;
  if (n) memcpy(c, s, n); /* an empty string may come with s NULL: memcpy's arguments must not be */
  c[n] = 0;
  e->s = c;
  e->len = (uint32_t)n;
  e->hash = h;
  p->slots[i] = p->n_strs;
  return p->n_strs - 1;
oom:
  p->diag.nomem = true;
  return HS_NONE;
}

uint32_t hs_prof_intern_z(hs_profile *p, const char *s) { return hs_prof_intern(p, s, strlen(s)); }

bool hs_prof_starts_with(const void *s, size_t n, const char *lit) {
  size_t k = strlen(lit);
  return n >= k && memcmp(s, lit, k) == 0;
}

static uint32_t map_hash(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (uint32_t)k;
}

bool hs_u64map_put(hs_u64map *m, uint64_t key, uint32_t val) {
  if ((m->count + 1) * 2 > m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 64;
    if (nc < m->cap) return false;
    uint64_t *nk = malloc((size_t)nc * sizeof *nk);
    uint32_t *nv = calloc(nc, sizeof *nv);
    if (!nk || !nv) {
      free(nk);
      free(nv);
      return false;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
      if (!m->vals[i]) continue;
      uint32_t h = map_hash(m->keys[i]) & (nc - 1);
      while (nv[h]) h = (h + 1) & (nc - 1);
      nk[h] = m->keys[i];
      nv[h] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = nc;
  }
  uint32_t h = map_hash(key) & (m->cap - 1);
  while (m->vals[h]) {
    if (m->keys[h] == key) return true; /* the first value wins */
    h = (h + 1) & (m->cap - 1);
  }
  m->keys[h] = key;
  m->vals[h] = val + 1;
  m->count++;
  return true;
}

/* Replaces the value of a key already present (map_put adds). */
void hs_u64map_set(hs_u64map *m, uint64_t key, uint32_t val) {
  uint32_t h = map_hash(key) & (m->cap - 1);
  while (m->vals[h]) {
    if (m->keys[h] == key) {
      m->vals[h] = val + 1;
      return;
    }
    h = (h + 1) & (m->cap - 1);
  }
}

int64_t hs_u64map_get(const hs_u64map *m, uint64_t key) {
  if (!m->cap) return -1;
  uint32_t h = map_hash(key) & (m->cap - 1);
  while (m->vals[h]) {
    if (m->keys[h] == key) return (int64_t)m->vals[h] - 1;
    h = (h + 1) & (m->cap - 1);
  }
  return -1;
}

void hs_u64map_free(hs_u64map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

bool hs_prof_begin_file(hs_profile *p, const char *name, size_t len) {
  bool ok;
  hs_prof_file *f = HS_VEC_PUSH(p->files, p->n_files, p->cap_files, ok);
  (void)ok;
  if (!f) {
    p->diag.nomem = true;
    return false;
  }
  memset(f, 0, sizeof *f);
  f->name = f->host = HS_NONE;
  if (name) {
    for (size_t i = len; i > 0; i--)
      if (name[i - 1] == '/' || name[i - 1] == '\\') {
        name += i;
        len -= i;
        break;
      }
    f->name = hs_prof_intern(p, name, len);
    /* the host jax.profiler names the file after: <host>.xplane.pb, <host>.trace.json(.gz) */
    static const char *const SUFFIX[] = {".xplane.pb", ".trace.json.gz", ".trace.json"};
    for (size_t k = 0; k < sizeof SUFFIX / sizeof SUFFIX[0]; k++) {
      size_t sl = strlen(SUFFIX[k]);
      if (len > sl && memcmp(name + len - sl, SUFFIX[k], sl) == 0) {
        f->host = hs_prof_intern(p, name, len - sl);
        break;
      }
    }
  }
  p->cur_file = p->n_files - 1;
  return !p->diag.nomem;
}

void hs_prof_set_host(hs_profile *p, const void *host, size_t len) {
  if (!p->n_files || !len) return;
  p->files[p->cur_file].host = hs_prof_intern(p, host, len);
}

void hs_prof_set_pid(hs_profile *p, uint64_t pid) {
  if (!p->n_files || p->files[p->cur_file].has_pid) return;
  p->files[p->cur_file].pid = pid;
  p->files[p->cur_file].has_pid = 1;
}

uint32_t hs_prof_add_plane(hs_profile *p, uint32_t name) {
  bool ok;
  hs_prof_plane *pl = HS_VEC_PUSH(p->planes, p->n_planes, p->cap_planes, ok);
  (void)ok;
  if (!pl) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  memset(pl, 0, sizeof *pl);
  pl->name = name;
  pl->first_line = p->n_lines;
  pl->n_lines = 0;
  pl->file = p->cur_file;
  pl->dev = HS_NONE;
  return p->n_planes - 1;
}

static uint64_t key_mix(uint64_t a, uint64_t b) {
  uint64_t k = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
  return k;
}

void hs_prof_add_kernel(hs_profile *p, bool has_pid, uint64_t pid, uint32_t module, uint32_t op, uint32_t kernel,
                        uint64_t dur) {
  if (kernel == HS_NONE) return;
  uint64_t key = key_mix(key_mix(has_pid ? pid : UINT64_MAX, ((uint64_t)module << 32) | op), kernel);
  int64_t k = hs_u64map_get(&p->kern_index, key);
  /* the key is a hash: a match must be the same kernel of the same op */
  while (k >= 0) {
    const hs_prof_kernel *x = &p->kerns[k];
    if (x->kernel == kernel && x->op_name == op && x->module == module && x->has_pid == has_pid &&
        (!has_pid || x->program_id == pid))
      break;
    key = key_mix(key, 1);
    k = hs_u64map_get(&p->kern_index, key);
  }
  if (k < 0) {
    bool ok;
    hs_prof_kernel *x = HS_VEC_PUSH(p->kerns, p->n_kerns, p->cap_kerns, ok);
    (void)ok;
    if (!x || !hs_u64map_put(&p->kern_index, key, p->n_kerns - 1)) {
      p->diag.nomem = true;
      return;
    }
    memset(x, 0, sizeof *x);
    x->op_name = op;
    x->module = module;
    x->kernel = kernel;
    x->has_pid = has_pid;
    x->program_id = has_pid ? pid : 0;
    x->op = HS_NONE;
    k = p->n_kerns - 1;
  }
  p->kerns[k].count++;
  p->kerns[k].total = hs_sat_add(p->kerns[k].total, dur);
}

void hs_prof_add_op_text(hs_profile *p, bool has_pid, uint64_t pid, uint32_t op, uint32_t text) {
  if (op == HS_NONE || text == HS_NONE) return;
  if (!hs_u64map_put(&p->op_texts, key_mix(has_pid ? pid : UINT64_MAX, op), text)) p->diag.nomem = true;
}

uint32_t hs_prof_op_text(const hs_profile *p, bool has_pid, uint64_t pid, uint32_t op) {
  int64_t k = hs_u64map_get(&p->op_texts, key_mix(has_pid ? pid : UINT64_MAX, op));
  /* the key is a hash: the text must name this op */
  if (k < 0) return HS_NONE;
  const char *s = p->strs[k].s;
  size_t n = p->strs[k].len;
  hs_prof_op_from_hlo_text(&s, &n);
  return n == p->strs[op].len && memcmp(s, p->strs[op].s, n) == 0 ? (uint32_t)k : HS_NONE;
}

void hs_prof_put(hs_prof_text *t, const char *fmt, ...) {
  if (t->cut || t->n >= t->cap) {
    t->cut = true;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->b + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
  if (k < 0 || t->n + (size_t)k >= t->cap) {
    t->cut = true;
    t->b[t->n] = 0; /* what fitted before this piece */
  } else {
    t->n += (size_t)k;
  }
}

void hs_prof_fmt_time(uint64_t ps, char *buf, size_t cap) {
  double us = (double)ps / 1e6;
  if (us >= 1e4) snprintf(buf, cap, "%.2f ms", us / 1e3);
  else snprintf(buf, cap, "%.1f \xc2\xb5s", us);
}

/* Lines of a plane are added while that plane is the last one (xplane), or in any order
 * (trace JSON, which then lists each line under its plane when printing). */
uint32_t hs_prof_add_line(hs_profile *p, uint32_t plane, uint32_t name) {
  bool ok;
  hs_prof_line *l = HS_VEC_PUSH(p->lines, p->n_lines, p->cap_lines, ok);
  (void)ok;
  if (!l) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  l->name = name;
  l->plane = plane;
  l->events = 0;
  p->planes[plane].n_lines++;
  return p->n_lines - 1;
}

hs_prof_event *hs_prof_add_event(hs_profile *p) {
  bool ok;
  hs_prof_event *e = HS_VEC_PUSH(p->evs, p->n_evs, p->cap_evs, ok);
  (void)ok;
  if (!e) {
    p->diag.nomem = true;
    return NULL;
  }
  memset(e, 0, sizeof *e);
  e->name = e->module = e->category = HS_NONE;
  e->seq = p->n_evs - 1;
  e->pid = e->run = HS_NONE;
  return e;
}

void hs_prof_add_aside(hs_profile *p, int kind, uint32_t line, const char *name, size_t n, uint32_t done, uint64_t raw_start,
                       uint64_t start, uint64_t dur) {
  hs_prof_event *e = hs_prof_add_event(p);
  if (!e) return;
  e->kind = (uint8_t)kind;
  e->line = line;
  if (kind == HS_PK_TPU_ASYNC) hs_prof_op_from_hlo_text(&name, &n);
  e->name = hs_prof_intern(p, name, n);
  e->module = done;
  e->raw_start = raw_start;
  e->start = start;
  e->dur = dur;
}

bool hs_prof_reserve_events(hs_profile *p, uint64_t n) {
  uint64_t need = (uint64_t)p->n_evs + n;
  if (need <= p->cap_evs) return true;
  if (need > UINT32_MAX || need > SIZE_MAX / sizeof *p->evs) return false;
  hs_prof_event *ne = realloc(p->evs, (size_t)need * sizeof *ne);
  if (!ne) return false;
  p->evs = ne;
  p->cap_evs = (uint32_t)need;
  return true;
}

uint32_t hs_prof_id_of(hs_profile *p, uint64_t id) {
  int64_t k = hs_u64map_get(&p->id_index, id);
  if (k >= 0) return (uint32_t)k;
  bool ok;
  uint64_t *slot = HS_VEC_PUSH(p->ids, p->n_ids, p->cap_ids, ok);
  (void)ok;
  if (!slot || !hs_u64map_put(&p->id_index, id, p->n_ids - 1)) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  *slot = id;
  return p->n_ids - 1;
}

int hs_prof_line_kind(const hs_profile *p, uint32_t plane, const char *lname, size_t lnlen) {
  const hs_prof_str *pn = &p->strs[p->planes[plane].name];
  return hs_prof_line_kind_of(pn->s, pn->len, lname, lnlen);
}

int hs_prof_line_kind_of(const char *pname, size_t pnlen, const char *lname, size_t lnlen) {
  const struct {
    const char *s;
    size_t len;
  } pn0 = {pname, pnlen}, *pn = &pn0;
  bool steps = lnlen == 5 && memcmp(lname, "Steps", 5) == 0;
  if (hs_prof_starts_with(pn->s, pn->len, "/device:TPU:")) {
    if (lnlen == 7 && memcmp(lname, "XLA Ops", 7) == 0) return HS_PK_TPU_OPS;
    if (lnlen == 11 && memcmp(lname, "XLA Modules", 11) == 0) return HS_PK_TPU_MODULES;
    if (lnlen == 13 && memcmp(lname, "Async XLA Ops", 13) == 0) return HS_PK_TPU_ASYNC;
    return steps ? HS_PK_STEPS : HS_PK_OTHER;
  }
  if (hs_prof_starts_with(pn->s, pn->len, "/device:GPU:"))
    return steps ? HS_PK_STEPS : hs_prof_starts_with(lname, lnlen, "Stream #") ? HS_PK_GPU : HS_PK_OTHER;
  if (pn->len == 9 && memcmp(pn->s, "/host:CPU", 9) == 0) return steps ? HS_PK_STEPS : HS_PK_CPU;
  return HS_PK_OTHER;
}

/* "a::b::c" -> "c" */
void hs_prof_op_from_stack(const char **s, size_t *n) {
  for (size_t i = *n; i >= 2; i--) {
    if ((*s)[i - 1] == ':' && (*s)[i - 2] == ':') {
      *s += i;
      *n -= i;
      return;
    }
  }
}

/* "%name = f32[...] op(...)" -> "name" (XLA Ops metadata names are the instruction's text). */
void hs_prof_op_from_hlo_text(const char **s, size_t *n) {
  if (!*n || (*s)[0] != '%') return;
  const char *eq = NULL;
  for (size_t i = 1; i + 2 < *n; i++) {
    if ((*s)[i] == ' ' && (*s)[i + 1] == '=' && (*s)[i + 2] == ' ') {
      eq = *s + i;
      break;
    }
  }
  if (!eq) return;
  *n = (size_t)(eq - *s) - 1;
  *s += 1;
}

/* Decimal (optionally signed: trace JSON prints some ids as int32) into the 64 bits. */
bool hs_prof_parse_u64(const char *s, size_t n, uint64_t *out) {
  if (!n || n > 21) return false;
  bool neg = s[0] == '-';
  size_t i = neg ? 1 : 0;
  if (i == n) return false;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (uint64_t)0 - v : v;
  return true;
}

/* "jit_f(12345)" -> name "jit_f", id 12345 */
bool hs_prof_split_program(const char *s, size_t n, size_t *name_len, uint64_t *id) {
  if (n < 3 || s[n - 1] != ')') return false;
  size_t open = n - 1;
  while (open > 0 && s[open - 1] != '(') open--;
  if (open == 0) return false;
  if (!hs_prof_parse_u64(s + open, n - 1 - open, id)) return false;
  *name_len = open - 1;
  return true;
}

/* ---- public API ------------------------------------------------------------------------ */
static bool pb_walks(const uint8_t *b, size_t len) {
  hs_pb r = hs_pb_open(b, len);
  hs_pb_field f;
  int rc;
  while ((rc = hs_pb_next(&r, &f)) > 0) {
  }
  return rc == 0;
}

/* The first byte of `b` that is not blank space (len when none). */
static size_t skip_blank(const uint8_t *b, size_t len) {
  size_t i = 0;
  while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
  return i;
}

/* Which format the bytes are (HS_PROF_*), or -1 with err filled. */
static int sniff(const void *data, size_t len, hs_error *err) {
  if (!data && len) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "data is NULL");
    return -1;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return -1;
  }
  const uint8_t *b = data;
  size_t i = skip_blank(b, len);
  if (i + 3 <= len && b[i] == 0xEF && b[i + 1] == 0xBB && b[i + 2] == 0xBF) i += 3;
  if (i >= len) {
    hs_set_error(err, HS_E_EMPTY, NULL, 0, 0, "the input is empty: give a .xplane.pb or a (gunzipped) .trace.json");
    return -1;
  }
  if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0, "gzip-compressed: gunzip the .trace.json.gz first");
    return -1;
  }
  /* An XSpace starts with field 1 (a plane): byte 0x0a, which is also a newline. A text whose
   * top level reads as protobuf fields to the last byte is a protobuf; otherwise a '{' or '['
   * after blank space is JSON. */
  bool is_json = (b[i] == '{' || b[i] == '[') && !(b[0] == 0x0a && pb_walks(b, len));
  if (!is_json && b[0] != 0x0a) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0,
                 "not a profile hloscope can read: expected an XSpace protobuf (.xplane.pb) or trace-event JSON");
    return -1;
  }
  return is_json ? HS_PROF_TRACE_JSON : HS_PROF_XPLANE;
}

/* With several files, an error names the one it is in. */
static void name_file(hs_error *err, const hs_profile_input *in, size_t n) {
  if (!err || n < 2 || !in->name) return;
  char m[sizeof err->message];
  snprintf(m, sizeof m, "%.120s: %.130s", in->name, err->message);
  memcpy(err->message, m, sizeof m);
}

static hs_profile *finish(hs_profile *p, int rc, hs_error *err);

hs_profile *hs_profile_parse(const void *data, size_t len, hs_error *err) {
  hs_profile_input in = {NULL, data, len};
  return hs_profile_parse_files(&in, 1, err);
}

hs_profile *hs_profile_parse_files(const hs_profile_input *in, size_t n, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!in || !n) {
    hs_set_error(err, HS_E_EMPTY, NULL, 0, 0, "no profile given: give one or more .xplane.pb or .trace.json files");
    return NULL;
  }
  /* every file is checked before any is read: a bad one is named at once */
  uint64_t total = 0;
  int first = -1;
  for (size_t k = 0; k < n; k++) {
    int f = sniff(in[k].data, in[k].len, err);
    if (f < 0) {
      name_file(err, &in[k], n);
      return NULL;
    }
    if (first < 0) first = f;
    total += in[k].len;
  }
  if (total > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "%zu files of %llu bytes in all: more than the 4 GiB hloscope reads", n,
                 (unsigned long long)total);
    return NULL;
  }
  hs_profile *p = calloc(1, sizeof *p);
  if (!p) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  p->format = first;
  int rc = 0;
  size_t failed = 0;
  for (size_t k = 0; k < n && rc == 0; k++) {
    int f = sniff(in[k].data, in[k].len, err);
    if (!hs_prof_begin_file(p, in[k].name, in[k].name ? strlen(in[k].name) : 0)) rc = HS_E_NOMEM;
    else rc = f == HS_PROF_TRACE_JSON ? hs_trace_json_read(p, in[k].data, in[k].len, err) : hs_xplane_read(p, in[k].data, in[k].len, err);
    if (rc != 0) {
      failed = k;
      if (err && f == HS_PROF_TRACE_JSON && err->line == 0 && rc == HS_E_SYNTAX)
        hs_line_col(in[k].data, in[k].len, err->offset, &err->line, &err->col);
    }
  }
  if (rc != 0) name_file(err, &in[failed], n);
  return finish(p, rc, err);
}

/* After the reading: the counting, the warnings, and the events dropped; NULL (p freed) on error. */
static hs_profile *finish(hs_profile *p, int rc, hs_error *err) {
  /* the events were reserved by an upper bound: give the rest back before counting needs room */
  if (rc == 0 && p->cap_evs > p->n_evs && p->n_evs) {
    hs_prof_event *e = realloc(p->evs, (size_t)p->n_evs * sizeof *e);
    if (e) p->evs = e, p->cap_evs = p->n_evs;
  }
  if (rc == 0 && !hs_profile_count(p)) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory counting the profile");
    rc = HS_E_NOMEM;
  }
  if (rc == 0) hs_diag_finish(&p->diag, &p->arena, HS_W_PROFILE_SKIPPED);
  if (rc == 0 && p->diag.nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    rc = HS_E_NOMEM;
  }
  if (rc != 0) {
    hs_profile_free(p);
    return NULL;
  }
  /* the events are no longer needed: the results hold everything printed */
  free(p->evs);
  p->evs = NULL;
  p->n_evs = p->cap_evs = 0;
  return p;
}

static hs_profile *read_failed(hs_error *err) {
  hs_set_error(err, HS_E_READ, NULL, 0, 0, "the file could not be read (was it changed, moved or removed?)");
  return NULL;
}

hs_profile *hs_profile_parse_source(const hs_profile_source *src, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!src || !src->read) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "no profile source given");
    return NULL;
  }
  if (src->size > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %llu bytes is larger than the 4 GiB hloscope reads",
                 (unsigned long long)src->size);
    return NULL;
  }
  uint8_t head[64];
  size_t hn = src->size < sizeof head ? (size_t)src->size : sizeof head;
  if (hn && src->read(src->ctx, 0, head, hn) != 0) return read_failed(err);
  /* An XSpace starts with byte 0x0a (a plane). Anything else, or 0x0a before a '{' or '[' (a
   * JSON text may start with a newline: sniff decides), is read whole, as hs_profile_parse reads. */
  size_t i = skip_blank(head, hn);
  bool xplane = hn && head[0] == 0x0a && !(i < hn && (head[i] == '{' || head[i] == '['));
  if (!xplane) {
    uint8_t *all = malloc(src->size ? (size_t)src->size : 1);
    if (!all) {
      hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "cannot allocate %llu bytes for the profile", (unsigned long long)src->size);
      return NULL;
    }
    if (src->size && src->read(src->ctx, 0, all, (size_t)src->size) != 0) {
      free(all);
      return read_failed(err);
    }
    hs_profile_input in = {src->name, all, (size_t)src->size};
    hs_profile *p = hs_profile_parse_files(&in, 1, err);
    free(all);
    return p;
  }
  hs_profile *p = calloc(1, sizeof *p);
  if (!p) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  p->format = HS_PROF_XPLANE;
  hs_window w = {.size = src->size, .read = src->read, .progress = src->progress, .ctx = src->ctx,
                 .chunk = src->window};
  int rc = HS_E_NOMEM;
  if (hs_prof_begin_file(p, src->name, src->name ? strlen(src->name) : 0)) rc = hs_xplane_read_window(p, &w, err);
  else hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
  hs_window_free(&w);
  p->progress = src->progress;
  p->progress_ctx = src->ctx;
  p = finish(p, rc, err);
  if (p) p->progress = NULL;
  return p;
}

void hs_profile_free(hs_profile *p) {
  if (!p) return;
  free(p->strs);
  free(p->slots);
  free(p->planes);
  free(p->lines);
  free(p->evs);
  free(p->hlo_modules);
  free(p->progs);
  free(p->ops);
  free(p->hlos);
  free(p->asyncs);
  free(p->files);
  free(p->hcomps);
  free(p->hlo_operands);
  free(p->devs);
  free(p->devruns);
  free(p->opdevs);
  free(p->kerns);
  hs_u64map_free(&p->kern_index);
  free(p->steps);
  free(p->windows);
  free(p->pic_run);
  free(p->pics);
  free(p->pic_cut);
  hs_u64map_free(&p->op_texts);
  hs_u64map_free(&p->hlo_by_pid);
  hs_u64map_free(&p->hlo_by_module);
  hs_u64map_free(&p->hlo_by_id);
  hs_diag_free(&p->diag);
  hs_u64map_free(&p->pid_names);
  free(p->ids);
  hs_u64map_free(&p->id_index);
  hs_arena_free(&p->arena);
  free(p);
}
