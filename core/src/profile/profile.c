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

uint32_t hs_prof_add_plane(hs_profile *p, uint32_t name) {
  bool ok;
  hs_prof_plane *pl = HS_VEC_PUSH(p->planes, p->n_planes, p->cap_planes, ok);
  (void)ok;
  if (!pl) {
    p->diag.nomem = true;
    return HS_NONE;
  }
  pl->name = name;
  pl->first_line = p->n_lines;
  pl->n_lines = 0;
  return p->n_planes - 1;
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
  if (hs_prof_starts_with(pn->s, pn->len, "/device:TPU:")) {
    if (lnlen == 7 && memcmp(lname, "XLA Ops", 7) == 0) return HS_PK_TPU_OPS;
    if (lnlen == 11 && memcmp(lname, "XLA Modules", 11) == 0) return HS_PK_TPU_MODULES;
    return HS_PK_OTHER;
  }
  if (hs_prof_starts_with(pn->s, pn->len, "/device:GPU:")) return hs_prof_starts_with(lname, lnlen, "Stream #") ? HS_PK_GPU : HS_PK_OTHER;
  if (pn->len == 9 && memcmp(pn->s, "/host:CPU", 9) == 0) return HS_PK_CPU;
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

hs_profile *hs_profile_parse(const void *data, size_t len, hs_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!data && len) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "data is NULL");
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  const uint8_t *b = data;
  size_t i = 0;
  while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
  if (i + 3 <= len && b[i] == 0xEF && b[i + 1] == 0xBB && b[i + 2] == 0xBF) i += 3;
  if (i >= len) {
    hs_set_error(err, HS_E_EMPTY, NULL, 0, 0, "the input is empty: give a .xplane.pb or a (gunzipped) .trace.json");
    return NULL;
  }
  if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0, "gzip-compressed: gunzip the .trace.json.gz first");
    return NULL;
  }
  /* An XSpace starts with field 1 (a plane): byte 0x0a, which is also a newline. A text whose
   * top level reads as protobuf fields to the last byte is a protobuf; otherwise a '{' or '['
   * after blank space is JSON. */
  bool is_json = (b[i] == '{' || b[i] == '[') && !(b[0] == 0x0a && pb_walks(b, len));
  if (!is_json && b[0] != 0x0a) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0,
                 "not a profile hloscope can read: expected an XSpace protobuf (.xplane.pb) or trace-event JSON");
    return NULL;
  }
  hs_profile *p = calloc(1, sizeof *p);
  if (!p) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  p->tpu_plane = -1;
  p->format = is_json ? HS_PROF_TRACE_JSON : HS_PROF_XPLANE;
  int rc = is_json ? hs_trace_json_read(p, data, len, err) : hs_xplane_read(p, data, len, err);
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
    if (err && is_json && err->line == 0 && rc == HS_E_SYNTAX) hs_line_col(data, len, err->offset, &err->line, &err->col);
    hs_profile_free(p);
    return NULL;
  }
  /* the events are no longer needed: the results hold everything printed */
  free(p->evs);
  p->evs = NULL;
  p->n_evs = p->cap_evs = 0;
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
