/* Profiles: an XSpace protobuf (.xplane.pb) or Chrome trace-event JSON read into one small
 * model (planes, lines, the events worth counting), then per-op device time the way XProf
 * counts it (FORMATS.md section 5):
 *   - TPU: the `XLA Ops` line of the first `/device:TPU:N` plane, with the per-event
 *     `device_offset_ps`/`device_duration_ps` stats preferred over the event's own times;
 *     programs are the `XLA Modules` events `jit_f(<program id>)`;
 *   - GPU: the `Stream #N(...)` lines of `/device:GPU:N` planes, kernel events with `hlo_op`
 *     (the last element of a `::`-joined stack) and `hlo_module`;
 *   - XLA:CPU: `/host:CPU` thread events carrying `hlo_op`.
 * Self time is time minus direct children by time containment on the same line (XLA:CPU's
 * call/while thunks contain their children). The profile copies every string it keeps into its
 * arena: the input may be freed after hs_profile_parse returns.
 *
 * Hostile input: every length is checked against its enclosing message, every array grows with
 * what the input holds (so memory is bounded by a multiple of the input), a malformed plane or
 * line is skipped with a warning, and a truncated file gives what was read before the cut. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonout.h"

#define NONE UINT32_MAX

enum { FMT_XPLANE = 0, FMT_TRACE_JSON = 1 };
enum { K_OTHER = 0, K_TPU_OPS, K_TPU_MODULES, K_GPU, K_CPU };
enum { MODE_NONE = 0, MODE_TPU, MODE_GPU, MODE_CPU };

typedef struct {
  char *s;
  uint32_t len;
  uint32_t hash;
} pstr;

typedef struct {
  uint32_t name;
  uint32_t first_line, n_lines;
} pplane;

typedef struct {
  uint32_t name;
  uint32_t plane;
  uint64_t events;
} pline;

typedef struct {
  uint32_t line;
  uint8_t kind;
  uint8_t has_pid, has_run;
  uint8_t depth;    /* 0: no enclosing event on its line; 1: inside another */
  uint32_t name;    /* op (or program, for XLA Modules events) */
  uint32_t module;  /* hlo_module, NONE when unknown */
  uint32_t category;
  uint64_t program_id, run_id;
  uint64_t start, dur;    /* counted times (device times preferred on TPU) */
  uint64_t raw_start;     /* the event's own start (for XLA Modules containment) */
  uint64_t self;
  uint32_t seq; /* order of reading: ties in sorting keep it */
} pev;

typedef struct {
  uint32_t name; /* NONE when unknown */
  const char *name_s; /* its text ("" when unknown), for sorting */
  uint8_t has_pid;
  uint64_t program_id;
  uint64_t runs;
  uint64_t envelope;
  uint8_t runs_guessed;
} pprog;

typedef struct {
  uint32_t name, module, category;
  const char *name_s, *module_s; /* their texts ("" when unknown), for sorting */
  uint64_t occurrences, total, self, runs;
} pop;

/* u64 -> u32 open-addressing map (keys are never looked up by content). */
typedef struct {
  uint64_t *keys;
  uint32_t *vals; /* value+1; 0 = empty */
  uint32_t cap, count;
} u64map;

struct hs_profile {
  hs_arena arena;
  int format;

  pstr *strs;
  uint32_t n_strs, cap_strs;
  uint32_t *slots; /* string index+1 */
  uint32_t slot_cap;

  pplane *planes;
  uint32_t n_planes, cap_planes;
  pline *lines;
  uint32_t n_lines, cap_lines;
  pev *evs;
  uint32_t n_evs, cap_evs;
  uint32_t *hlo_modules;
  uint32_t n_hlo_modules, cap_hlo_modules;
  pprog *progs;
  uint32_t n_progs, cap_progs;
  pop *ops;
  uint32_t n_ops, cap_ops;

  /* program id -> name, from /host:metadata and XLA Modules event names */
  u64map pid_names;

  int32_t tpu_plane; /* the plane whose XLA Ops line is counted, -1 if none */
  int mode;
  uint32_t device_plane, device_line; /* string ids, NONE when no device */

  hs_warning *warnings;
  uint32_t n_warnings, cap_warnings;
  uint32_t warn_counts[16];
  uint32_t warn_suppressed;
  bool nomem;
};

/* ---- plumbing ------------------------------------------------------------------------------ */
static void warn(hs_profile *p, int code, const char *fmt, ...) {
  if (code >= 0 && code < 16 && p->warn_counts[code]++ >= HS_MAX_WARNINGS_PER_CODE) {
    p->warn_suppressed++;
    return;
  }
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
  char *m = hs_arena_alloc(&p->arena, (size_t)n + 1);
  bool ok;
  hs_warning *w = m ? HS_VEC_PUSH(p->warnings, p->n_warnings, p->cap_warnings, ok) : NULL;
  (void)ok;
  if (!w) {
    p->nomem = true;
    return;
  }
  memcpy(m, buf, (size_t)n + 1);
  w->code = code;
  w->line = 0;
  w->col = 0;
  w->message = m;
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

/* Interns bytes into the arena; returns the string id, NONE on allocation failure. */
static uint32_t intern(hs_profile *p, const void *s, size_t n) {
  if (n > UINT32_MAX / 2) n = UINT32_MAX / 2;
  if ((p->n_strs + 1) * 2 > p->slot_cap && !slots_grow(p)) goto oom;
  uint32_t h = hs_hash(s, n);
  uint32_t i = h & (p->slot_cap - 1);
  while (p->slots[i]) {
    const pstr *o = &p->strs[p->slots[i] - 1];
    if (o->hash == h && o->len == n && (n == 0 || memcmp(o->s, s, n) == 0)) return p->slots[i] - 1;
    i = (i + 1) & (p->slot_cap - 1);
  }
  char *c = hs_arena_alloc_raw(&p->arena, n + 1);
  bool ok;
  pstr *e = c ? HS_VEC_PUSH(p->strs, p->n_strs, p->cap_strs, ok) : NULL;
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
  p->nomem = true;
  return NONE;
}

static uint32_t intern_z(hs_profile *p, const char *s) { return intern(p, s, strlen(s)); }

static bool starts_with(const void *s, size_t n, const char *lit) {
  size_t k = strlen(lit);
  return n >= k && memcmp(s, lit, k) == 0;
}

static uint32_t map_hash(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (uint32_t)k;
}

static bool map_put(u64map *m, uint64_t key, uint32_t val) {
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
static void map_set(u64map *m, uint64_t key, uint32_t val) {
  uint32_t h = map_hash(key) & (m->cap - 1);
  while (m->vals[h]) {
    if (m->keys[h] == key) {
      m->vals[h] = val + 1;
      return;
    }
    h = (h + 1) & (m->cap - 1);
  }
}

static int64_t map_get(const u64map *m, uint64_t key) {
  if (!m->cap) return -1;
  uint32_t h = map_hash(key) & (m->cap - 1);
  while (m->vals[h]) {
    if (m->keys[h] == key) return (int64_t)m->vals[h] - 1;
    h = (h + 1) & (m->cap - 1);
  }
  return -1;
}

static void map_free(u64map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

static uint32_t add_plane(hs_profile *p, uint32_t name) {
  bool ok;
  pplane *pl = HS_VEC_PUSH(p->planes, p->n_planes, p->cap_planes, ok);
  (void)ok;
  if (!pl) {
    p->nomem = true;
    return NONE;
  }
  pl->name = name;
  pl->first_line = p->n_lines;
  pl->n_lines = 0;
  return p->n_planes - 1;
}

/* Lines of a plane are added while that plane is the last one (xplane), or in any order
 * (trace JSON, which then lists each line under its plane when printing). */
static uint32_t add_line(hs_profile *p, uint32_t plane, uint32_t name) {
  bool ok;
  pline *l = HS_VEC_PUSH(p->lines, p->n_lines, p->cap_lines, ok);
  (void)ok;
  if (!l) {
    p->nomem = true;
    return NONE;
  }
  l->name = name;
  l->plane = plane;
  l->events = 0;
  p->planes[plane].n_lines++;
  return p->n_lines - 1;
}

static pev *add_event(hs_profile *p) {
  bool ok;
  pev *e = HS_VEC_PUSH(p->evs, p->n_evs, p->cap_evs, ok);
  (void)ok;
  if (!e) {
    p->nomem = true;
    return NULL;
  }
  memset(e, 0, sizeof *e);
  e->name = e->module = e->category = NONE;
  e->seq = p->n_evs - 1;
  return e;
}

static int line_kind(const hs_profile *p, uint32_t plane, const char *lname, size_t lnlen) {
  const pstr *pn = &p->strs[p->planes[plane].name];
  if (starts_with(pn->s, pn->len, "/device:TPU:")) {
    if (lnlen == 7 && memcmp(lname, "XLA Ops", 7) == 0) return K_TPU_OPS;
    if (lnlen == 11 && memcmp(lname, "XLA Modules", 11) == 0) return K_TPU_MODULES;
    return K_OTHER;
  }
  if (starts_with(pn->s, pn->len, "/device:GPU:")) return starts_with(lname, lnlen, "Stream #") ? K_GPU : K_OTHER;
  if (pn->len == 9 && memcmp(pn->s, "/host:CPU", 9) == 0) return K_CPU;
  return K_OTHER;
}

/* "a::b::c" -> "c" */
static void last_of_stack(const char **s, size_t *n) {
  for (size_t i = *n; i >= 2; i--) {
    if ((*s)[i - 1] == ':' && (*s)[i - 2] == ':') {
      *s += i;
      *n -= i;
      return;
    }
  }
}

/* "%name = f32[...] op(...)" -> "name" (XLA Ops metadata names are the instruction's text). */
static void name_from_hlo_text(const char **s, size_t *n) {
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
static bool parse_u64(const char *s, size_t n, uint64_t *out) {
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
static bool split_program(const char *s, size_t n, size_t *name_len, uint64_t *id) {
  if (n < 3 || s[n - 1] != ')') return false;
  size_t open = n - 1;
  while (open > 0 && s[open - 1] != '(') open--;
  if (open == 0) return false;
  if (!parse_u64(s + open, n - 1 - open, id)) return false;
  *name_len = open - 1;
  return true;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* ---- xplane.pb ------------------------------------------------------------------------- */
enum { ST_NONE = 0, ST_HLO_OP, ST_HLO_MODULE, ST_PROGRAM_ID, ST_RUN_ID, ST_DEV_OFF, ST_DEV_DUR, ST_CATEGORY, ST_HLO_PROTO };

typedef struct {
  uint64_t id;
  const uint8_t *name;
  size_t name_len;
  uint8_t code;
} smeta;

typedef struct {
  uint64_t id;
  const uint8_t *name, *display, *stats; /* stats: the XEventMetadata bytes (stats are field 5) */
  size_t name_len, display_len, stats_len;
  /* resolved on first use */
  uint8_t resolved, has_pid;
  uint32_t op, module, category;
  uint64_t pid;
} emeta;

typedef struct {
  smeta *sm;
  uint32_t n_sm, cap_sm;
  emeta *em;
  uint32_t n_em, cap_em;
  hs_pb_field *lines;
  uint32_t n_lines, cap_lines;
} plane_tmp;

static int cmp_sm(const void *a, const void *b) {
  uint64_t x = ((const smeta *)a)->id, y = ((const smeta *)b)->id;
  return x < y ? -1 : x > y;
}
static int cmp_em(const void *a, const void *b) {
  uint64_t x = ((const emeta *)a)->id, y = ((const emeta *)b)->id;
  return x < y ? -1 : x > y;
}

static const smeta *find_sm(const plane_tmp *t, uint64_t id) {
  uint32_t lo = 0, hi = t->n_sm;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t->sm[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->n_sm && t->sm[lo].id == id ? &t->sm[lo] : NULL;
}

static emeta *find_em(plane_tmp *t, uint64_t id) {
  uint32_t lo = 0, hi = t->n_em;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t->em[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->n_em && t->em[lo].id == id ? &t->em[lo] : NULL;
}

static uint8_t stat_code(const uint8_t *s, size_t n) {
  static const struct {
    const char *name;
    uint8_t code;
  } known[] = {{"hlo_op", ST_HLO_OP},
               {"hlo_module", ST_HLO_MODULE},
               {"program_id", ST_PROGRAM_ID},
               {"run_id", ST_RUN_ID},
               {"device_offset_ps", ST_DEV_OFF},
               {"device_duration_ps", ST_DEV_DUR},
               {"hlo_category", ST_CATEGORY},
               {"Hlo Proto", ST_HLO_PROTO}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i].name) == n && memcmp(known[i].name, s, n) == 0) return known[i].code;
  return ST_NONE;
}

/* One decoded XStat: which known stat it is, and its value as bytes or as a number. */
typedef struct {
  uint8_t code;
  const uint8_t *str;
  size_t str_len;
  bool has_num;
  uint64_t num;
} stat_val;

static bool decode_stat(const plane_tmp *t, hs_pb *r, stat_val *v) {
  hs_pb_field f;
  int rc;
  uint64_t mid = 0;
  memset(v, 0, sizeof *v);
  while ((rc = hs_pb_next(r, &f)) > 0) {
    switch (f.field) {
      case 1: mid = f.u; break;
      case 2: {
        double d = hs_pb_double(f.u);
        if (isfinite(d) && d >= 0 && d < 1.8e19) {
          v->num = (uint64_t)d;
          v->has_num = true;
        }
        break;
      }
      case 3:
      case 4:
        v->num = f.u;
        v->has_num = true;
        break;
      case 5:
      case 6:
        if (f.wire == HS_PB_LEN) {
          v->str = f.data;
          v->str_len = f.len;
        }
        break;
      case 7: {
        const smeta *ref = find_sm(t, f.u);
        if (ref) {
          v->str = ref->name;
          v->str_len = ref->name_len;
        }
        break;
      }
      default: break;
    }
  }
  if (rc < 0) return false;
  const smeta *m = find_sm(t, mid);
  v->code = m ? m->code : ST_NONE;
  if (v->str && !v->has_num) v->has_num = parse_u64((const char *)v->str, v->str_len, &v->num);
  return true;
}

/* The op name, module, category and program id an event metadata entry carries. */
static void resolve_em(hs_profile *p, plane_tmp *t, emeta *m) {
  if (m->resolved) return;
  m->resolved = 1;
  m->op = m->module = m->category = NONE;
  const char *s = (const char *)(m->display_len ? m->display : m->name);
  size_t n = m->display_len ? m->display_len : m->name_len;
  name_from_hlo_text(&s, &n);
  m->op = intern(p, s, n);
  hs_pb r = hs_pb_open(m->stats, m->stats_len);
  hs_pb_field f;
  while (hs_pb_next(&r, &f) > 0) {
    if (f.field != 5 || f.wire != HS_PB_LEN) continue;
    hs_pb sr = hs_pb_sub(&r, &f);
    stat_val v;
    if (!decode_stat(t, &sr, &v)) continue;
    if (v.code == ST_CATEGORY && v.str) m->category = intern(p, v.str, v.str_len);
    else if (v.code == ST_PROGRAM_ID && v.has_num) m->pid = v.num, m->has_pid = 1;
    else if (v.code == ST_HLO_MODULE && v.str) m->module = intern(p, v.str, v.str_len);
    else if (v.code == ST_HLO_OP && v.str) {
      const char *o = (const char *)v.str;
      size_t on = v.str_len;
      last_of_stack(&o, &on);
      m->op = intern(p, o, on);
    }
  }
}

/* HloProto bytes -> the HloModuleProto's name (HloProto.hlo_module = 1, HloModuleProto.name = 1). */
static void note_hlo_proto(hs_profile *p, const uint8_t *b, size_t n) {
  hs_pb r = hs_pb_open(b, n);
  hs_pb_field f;
  while (hs_pb_next(&r, &f) > 0) {
    if (f.field != 1 || f.wire != HS_PB_LEN) continue;
    hs_pb mr = hs_pb_sub(&r, &f);
    hs_pb_field g;
    while (hs_pb_next(&mr, &g) > 0) {
      if (g.field == 1 && g.wire == HS_PB_LEN) {
        uint32_t id = intern(p, g.data, g.len);
        bool ok;
        uint32_t *slot = id != NONE ? HS_VEC_PUSH(p->hlo_modules, p->n_hlo_modules, p->cap_hlo_modules, ok) : NULL;
        (void)ok;
        if (slot) *slot = id;
        else p->nomem = true;
        return;
      }
    }
    return;
  }
  warn(p, HS_W_PROFILE_SKIPPED, "an 'Hlo Proto' stat in /host:metadata holds no readable HloModuleProto");
}

/* One map entry (key = 1, value = 2) of event_metadata / stat_metadata. */
static bool map_entry(hs_pb *r, const hs_pb_field *f, uint64_t *key, hs_pb_field *value) {
  hs_pb er = hs_pb_sub(r, f);
  hs_pb_field g;
  int rc;
  *key = 0;
  value->data = NULL;
  value->len = 0;
  while ((rc = hs_pb_next(&er, &g)) > 0) {
    if (g.field == 1 && g.wire == HS_PB_VARINT) *key = g.u;
    else if (g.field == 2 && g.wire == HS_PB_LEN) *value = g;
  }
  return rc == 0;
}

static void read_event(hs_profile *p, plane_tmp *t, const hs_pb_field *ef, hs_pb *lr, uint32_t line, int kind,
                       uint64_t line_ts_ps) {
  hs_pb r = hs_pb_sub(lr, ef);
  hs_pb_field f;
  int rc;
  uint64_t mid = 0, off = 0, dur = 0, dev_off = 0, dev_dur = 0, pid = 0, run = 0;
  bool has_dev_off = false, has_dev_dur = false, has_pid = false, has_run = false;
  uint32_t op = NONE, module = NONE, category = NONE;
  while ((rc = hs_pb_next(&r, &f)) > 0) {
    if (f.field == 1 && f.wire == HS_PB_VARINT) mid = f.u;
    else if (f.field == 2 && f.wire == HS_PB_VARINT) off = f.u;
    else if (f.field == 3 && f.wire == HS_PB_VARINT) dur = f.u;
    else if (f.field == 4 && f.wire == HS_PB_LEN && kind != K_TPU_MODULES) {
      hs_pb sr = hs_pb_sub(&r, &f);
      stat_val v;
      if (!decode_stat(t, &sr, &v)) continue;
      switch (v.code) {
        case ST_HLO_OP:
          if (v.str) {
            const char *o = (const char *)v.str;
            size_t on = v.str_len;
            last_of_stack(&o, &on);
            op = intern(p, o, on);
          }
          break;
        case ST_HLO_MODULE:
          if (v.str) module = intern(p, v.str, v.str_len);
          break;
        case ST_CATEGORY:
          if (v.str) category = intern(p, v.str, v.str_len);
          break;
        case ST_PROGRAM_ID: pid = v.num, has_pid = v.has_num; break;
        case ST_RUN_ID: run = v.num, has_run = v.has_num; break;
        case ST_DEV_OFF: dev_off = v.num, has_dev_off = v.has_num; break;
        case ST_DEV_DUR: dev_dur = v.num, has_dev_dur = v.has_num; break;
        default: break;
      }
    }
  }
  if (rc < 0) {
    warn(p, HS_W_PROFILE_SKIPPED, "a malformed event at byte %zu was skipped", hs_pb_offset(&r));
    return;
  }
  emeta *m = find_em(t, mid);
  if (kind == K_TPU_MODULES) {
    if (!m) return;
    pev *e = add_event(p);
    if (!e) return;
    e->kind = (uint8_t)kind;
    e->line = line;
    size_t nl;
    uint64_t id;
    if (split_program((const char *)m->name, m->name_len, &nl, &id)) {
      e->name = intern(p, m->name, nl);
      e->program_id = id;
      e->has_pid = 1;
      if (e->name != NONE && !map_put(&p->pid_names, id, e->name)) p->nomem = true;
    } else {
      e->name = intern(p, m->name, m->name_len);
    }
    e->start = e->raw_start = sat_add(line_ts_ps, off);
    e->dur = dur;
    return;
  }
  if ((kind == K_GPU || kind == K_CPU) && op == NONE) return; /* not an HLO op's event */
  if (m) {
    resolve_em(p, t, m);
    if (op == NONE) op = m->op;
    if (module == NONE) module = m->module;
    if (category == NONE) category = m->category;
    if (!has_pid && m->has_pid) pid = m->pid, has_pid = true;
  }
  if (op == NONE) return;
  pev *e = add_event(p);
  if (!e) return;
  e->kind = (uint8_t)kind;
  e->line = line;
  e->name = op;
  e->module = module;
  e->category = category;
  e->program_id = pid;
  e->has_pid = has_pid;
  e->run_id = run;
  e->has_run = has_run;
  e->raw_start = sat_add(line_ts_ps, off);
  e->start = kind == K_TPU_OPS && has_dev_off ? sat_add(line_ts_ps, dev_off) : e->raw_start;
  e->dur = kind == K_TPU_OPS && has_dev_dur ? dev_dur : dur;
}

static void read_line(hs_profile *p, plane_tmp *t, uint32_t plane, hs_pb *pr, const hs_pb_field *lf) {
  hs_pb r = hs_pb_sub(pr, lf);
  hs_pb_field f;
  int rc;
  const uint8_t *name = NULL, *display = NULL;
  size_t name_len = 0, display_len = 0;
  uint64_t ts_ns = 0, events = 0;
  while ((rc = hs_pb_next(&r, &f)) > 0) {
    if (f.field == 2 && f.wire == HS_PB_LEN) name = f.data, name_len = f.len;
    else if (f.field == 11 && f.wire == HS_PB_LEN) display = f.data, display_len = f.len;
    else if (f.field == 3 && f.wire == HS_PB_VARINT) ts_ns = f.u;
    else if (f.field == 4 && f.wire == HS_PB_LEN) events++;
  }
  if (rc < 0) {
    warn(p, HS_W_PROFILE_SKIPPED, "a malformed line at byte %zu of plane '%s' was skipped", hs_pb_offset(&r),
         p->strs[p->planes[plane].name].s);
    return;
  }
  if (!name_len && display_len) name = display, name_len = display_len;
  uint32_t lname = intern(p, name ? (const char *)name : "", name_len);
  if (lname == NONE) return;
  uint32_t li = add_line(p, plane, lname);
  if (li == NONE) return;
  p->lines[li].events = events;
  int kind = line_kind(p, plane, p->strs[lname].s, p->strs[lname].len);
  if (kind == K_OTHER || !events) return;
  if ((kind == K_TPU_OPS || kind == K_TPU_MODULES) && p->tpu_plane != (int32_t)plane) return;
  uint64_t ts_ps = ts_ns > UINT64_MAX / 1000 ? UINT64_MAX : ts_ns * 1000;
  r = hs_pb_sub(pr, lf);
  while (hs_pb_next(&r, &f) > 0 && !p->nomem)
    if (f.field == 4 && f.wire == HS_PB_LEN) read_event(p, t, &f, &r, li, kind, ts_ps);
}

static void read_plane(hs_profile *p, hs_pb *sr, const hs_pb_field *pf, plane_tmp *t) {
  t->n_sm = t->n_em = t->n_lines = 0;
  hs_pb r = hs_pb_sub(sr, pf);
  hs_pb_field f;
  int rc;
  const uint8_t *name = NULL;
  size_t name_len = 0;
  bool ok = true;
  /* pass 1: the name, the line slices and both metadata maps (they follow the lines) */
  while ((rc = hs_pb_next(&r, &f)) > 0 && ok) {
    if (f.wire != HS_PB_LEN) continue;
    if (f.field == 2) {
      name = f.data;
      name_len = f.len;
    } else if (f.field == 3) {
      hs_pb_field *slot = HS_VEC_PUSH(t->lines, t->n_lines, t->cap_lines, ok);
      (void)ok;
      if (slot) *slot = f;
    } else if (f.field == 4 || f.field == 5) {
      uint64_t key;
      hs_pb_field val;
      if (!map_entry(&r, &f, &key, &val)) {
        warn(p, HS_W_PROFILE_SKIPPED, "a malformed metadata entry at byte %zu was skipped", (size_t)(f.data - r.base));
        continue;
      }
      hs_pb vr = hs_pb_open(val.data ? val.data : f.data, val.data ? val.len : 0);
      vr.base = r.base;
      hs_pb_field g;
      int vrc;
      if (f.field == 4) {
        emeta *m = HS_VEC_PUSH(t->em, t->n_em, t->cap_em, ok);
        (void)ok;
        if (!m) break;
        memset(m, 0, sizeof *m);
        m->id = key;
        m->stats = val.data;
        m->stats_len = val.len;
        while ((vrc = hs_pb_next(&vr, &g)) > 0) {
          if (g.wire != HS_PB_LEN) continue;
          if (g.field == 2) m->name = g.data, m->name_len = g.len;
          else if (g.field == 4) m->display = g.data, m->display_len = g.len;
        }
        if (vrc < 0) {
          t->n_em--;
          warn(p, HS_W_PROFILE_SKIPPED, "a malformed event metadata at byte %zu was skipped", hs_pb_offset(&vr));
        }
      } else {
        smeta *m = HS_VEC_PUSH(t->sm, t->n_sm, t->cap_sm, ok);
        (void)ok;
        if (!m) break;
        memset(m, 0, sizeof *m);
        m->id = key;
        while ((vrc = hs_pb_next(&vr, &g)) > 0)
          if (g.field == 2 && g.wire == HS_PB_LEN) m->name = g.data, m->name_len = g.len;
        if (vrc < 0) {
          t->n_sm--;
          warn(p, HS_W_PROFILE_SKIPPED, "a malformed stat metadata at byte %zu was skipped", hs_pb_offset(&vr));
        } else {
          m->code = stat_code(m->name, m->name_len);
        }
      }
    }
  }
  if (!ok) {
    p->nomem = true;
    return;
  }
  if (rc < 0) {
    warn(p, HS_W_TRUNCATED, "plane at byte %zu is malformed from byte %zu on: read what came before",
         (size_t)(pf->data - sr->base), hs_pb_offset(&r));
  }
  if (t->n_sm > 1) qsort(t->sm, t->n_sm, sizeof *t->sm, cmp_sm);
  if (t->n_em > 1) qsort(t->em, t->n_em, sizeof *t->em, cmp_em);
  uint32_t pname = intern(p, name ? (const char *)name : "", name_len);
  if (pname == NONE) return;
  uint32_t pi = add_plane(p, pname);
  if (pi == NONE) return;
  const pstr *pn = &p->strs[pname];
  if (p->tpu_plane < 0 && starts_with(pn->s, pn->len, "/device:TPU:")) {
    for (uint32_t i = 0; i < t->n_lines; i++) {
      hs_pb lr = hs_pb_sub(&r, &t->lines[i]);
      hs_pb_field g;
      while (hs_pb_next(&lr, &g) > 0) {
        if (g.field == 2 && g.wire == HS_PB_LEN && g.len == 7 && memcmp(g.data, "XLA Ops", 7) == 0) {
          p->tpu_plane = (int32_t)pi;
          break;
        }
      }
      if (p->tpu_plane >= 0) break;
    }
  }
  if (pn->len == 14 && memcmp(pn->s, "/host:metadata", 14) == 0) {
    /* event metadata id = program id, name "jit_f(<id>)", stat "Hlo Proto" */
    for (uint32_t i = 0; i < t->n_em && !p->nomem; i++) {
      emeta *m = &t->em[i];
      size_t nl;
      uint64_t id;
      if (split_program((const char *)m->name, m->name_len, &nl, &id)) {
        uint32_t s = intern(p, m->name, nl);
        if (s != NONE && !map_put(&p->pid_names, id, s)) p->nomem = true;
      }
      hs_pb er = hs_pb_open(m->stats, m->stats_len);
      hs_pb_field g;
      while (hs_pb_next(&er, &g) > 0) {
        if (g.field != 5 || g.wire != HS_PB_LEN) continue;
        hs_pb sr2 = hs_pb_sub(&er, &g);
        stat_val v;
        if (decode_stat(t, &sr2, &v) && v.code == ST_HLO_PROTO && v.str) note_hlo_proto(p, v.str, v.str_len);
      }
    }
  }
  for (uint32_t i = 0; i < t->n_lines && !p->nomem; i++) read_line(p, t, pi, &r, &t->lines[i]);
}

static int parse_xplane(hs_profile *p, const uint8_t *data, size_t len, hs_error *err) {
  hs_pb r = hs_pb_open(data, len);
  hs_pb_field f;
  int rc;
  plane_tmp t = {0};
  while ((rc = hs_pb_next(&r, &f)) > 0 && !p->nomem) {
    if (f.field == 1 && f.wire == HS_PB_LEN) read_plane(p, &r, &f, &t);
  }
  free(t.sm);
  free(t.em);
  free(t.lines);
  if (p->nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory reading the profile");
    return HS_E_NOMEM;
  }
  if (rc < 0) {
    size_t at = hs_pb_offset(&r);
    if (!p->n_planes) {
      hs_set_error(err, HS_E_SYNTAX, NULL, at,
                   "not a readable XSpace protobuf: the field at byte %zu is truncated or malformed", at);
      return HS_E_SYNTAX;
    }
    warn(p, HS_W_TRUNCATED, "the file is truncated or malformed at byte %zu of %zu: the planes before it were read", at,
         len);
  }
  if (!p->n_planes) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, "no planes: not an XSpace (.xplane.pb) profile");
    return HS_E_FORMAT;
  }
  return 0;
}

/* ---- trace-event JSON ------------------------------------------------------------------ */
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
  if (json_is_string(x)) return parse_u64(json_string_value(x), json_string_length(x), v);
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
  u64map planes; /* pid -> plane */
  u64map lines;  /* hash(pid, tid) -> first line index of a chain */
  uint64_t *line_pid, *line_tid;
  uint32_t *line_next;
  uint32_t cap;
} jtmp;

static uint32_t j_plane(hs_profile *p, jtmp *t, uint64_t pid, uint32_t name) {
  int64_t pi = map_get(&t->planes, pid);
  if (pi >= 0) {
    if (name != NONE) p->planes[pi].name = name;
    return (uint32_t)pi;
  }
  if (name == NONE) {
    char buf[40];
    snprintf(buf, sizeof buf, "pid %lld", (long long)pid);
    name = intern_z(p, buf);
    if (name == NONE) return NONE;
  }
  uint32_t np = add_plane(p, name);
  if (np == NONE || !map_put(&t->planes, pid, np)) {
    p->nomem = true;
    return NONE;
  }
  return np;
}

static uint32_t j_line(hs_profile *p, jtmp *t, uint64_t pid, uint64_t tid, uint32_t name) {
  uint64_t key = pid * 0x9E3779B97F4A7C15ULL ^ tid;
  int64_t li = map_get(&t->lines, key);
  for (int64_t i = li; i >= 0; i = t->line_next[i] == NONE ? -1 : (int64_t)t->line_next[i]) {
    if (t->line_pid[i] == pid && t->line_tid[i] == tid) {
      if (name != NONE) p->lines[i].name = name;
      return (uint32_t)i;
    }
  }
  uint32_t plane = j_plane(p, t, pid, NONE);
  if (plane == NONE) return NONE;
  if (name == NONE) {
    char buf[40];
    snprintf(buf, sizeof buf, "tid %lld", (long long)tid);
    name = intern_z(p, buf);
    if (name == NONE) return NONE;
  }
  uint32_t nl = add_line(p, plane, name);
  if (nl == NONE) return NONE;
  if (nl >= t->cap) {
    uint32_t nc = t->cap ? t->cap * 2 : 64;
    uint64_t *a = realloc(t->line_pid, (size_t)nc * sizeof *a);
    if (a) t->line_pid = a;
    uint64_t *b = realloc(t->line_tid, (size_t)nc * sizeof *b);
    if (b) t->line_tid = b;
    uint32_t *c = realloc(t->line_next, (size_t)nc * sizeof *c);
    if (c) t->line_next = c;
    if (!a || !b || !c) {
      p->nomem = true;
      return NONE;
    }
    t->cap = nc;
  }
  t->line_pid[nl] = pid;
  t->line_tid[nl] = tid;
  t->line_next[nl] = li >= 0 ? (uint32_t)li : NONE;
  /* the newest line heads the chain of lines whose (pid, tid) share the key */
  if (li < 0) {
    if (!map_put(&t->lines, key, nl)) p->nomem = true;
  } else {
    map_set(&t->lines, key, nl);
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
    uint32_t s = intern(p, v, vn);
    if (s == NONE) return;
    if (strcmp(what, "process_name") == 0) j_plane(p, t, pid, s);
    else if (strcmp(what, "thread_name") == 0) j_line(p, t, pid, tid, s);
    return;
  }
  if (ph[0] != 'X') return;
  uint32_t li = j_line(p, t, pid, tid, NONE);
  if (li == NONE) return;
  p->lines[li].events++;
  const pstr *ln = &p->strs[p->lines[li].name];
  int kind = line_kind(p, p->lines[li].plane, ln->s, ln->len);
  if (kind == K_OTHER) return;
  if (kind == K_TPU_OPS || kind == K_TPU_MODULES) {
    if (p->tpu_plane < 0) {
      /* no thread_name metadata named the XLA Ops line: the first plane with XLA Ops events */
      if (kind != K_TPU_OPS) return;
      p->tpu_plane = (int32_t)p->lines[li].plane;
    } else if (p->tpu_plane != (int32_t)p->lines[li].plane) {
      return;
    }
  }
  uint64_t start, dur = 0;
  if (!us_to_ps(json_object_get(e, "ts"), &start)) {
    warn(p, HS_W_PROFILE_SKIPPED, "an event without a usable \"ts\" was skipped");
    return;
  }
  us_to_ps(json_object_get(e, "dur"), &dur);
  json_t *args = json_object_get(e, "args");
  const char *name = jstr(e, "name", &n);
  size_t on = 0;
  const char *op = jstr(args, "hlo_op", &on);
  if ((kind == K_GPU || kind == K_CPU) && !op) return;
  if (kind == K_TPU_MODULES) {
    if (!name) return;
    pev *ev = add_event(p);
    if (!ev) return;
    ev->kind = (uint8_t)kind;
    ev->line = li;
    size_t nl;
    uint64_t id;
    if (split_program(name, n, &nl, &id)) {
      ev->name = intern(p, name, nl);
      ev->program_id = id;
      ev->has_pid = 1;
      if (ev->name != NONE && !map_put(&p->pid_names, id, ev->name)) p->nomem = true;
    } else {
      ev->name = intern(p, name, n);
    }
    ev->start = ev->raw_start = start;
    ev->dur = dur;
    return;
  }
  if (op) last_of_stack(&op, &on);
  else if (name) {
    op = name;
    on = n;
    name_from_hlo_text(&op, &on);
  } else return;
  pev *ev = add_event(p);
  if (!ev) return;
  ev->kind = (uint8_t)kind;
  ev->line = li;
  ev->name = intern(p, op, on);
  const char *s;
  if ((s = jstr(args, "hlo_module", &n))) ev->module = intern(p, s, n);
  if ((s = jstr(args, "hlo_category", &n))) ev->category = intern(p, s, n);
  ev->has_pid = arg_u64(args, "program_id", &ev->program_id);
  ev->has_run = arg_u64(args, "run_id", &ev->run_id);
  ev->start = ev->raw_start = start;
  ev->dur = dur;
  uint64_t v;
  if (kind == K_TPU_OPS && arg_u64(args, "device_offset_ps", &v)) ev->start = v;
  if (kind == K_TPU_OPS && arg_u64(args, "device_duration_ps", &v)) ev->dur = v;
}

static int parse_trace_json(hs_profile *p, const char *text, size_t len, hs_error *err) {
  json_error_t je;
  json_t *root = json_loadb(text, len, JSON_ALLOW_NUL, &je);
  if (!root) {
    if (err) {
      hs_set_error(err, HS_E_SYNTAX, NULL, (size_t)(je.position > 0 ? je.position : 0), "trace JSON: %s", je.text);
      err->line = je.line > 0 ? (uint32_t)je.line : 0;
      err->col = je.column > 0 ? (uint32_t)je.column : 0;
    }
    return HS_E_SYNTAX;
  }
  json_t *evs = json_is_array(root) ? root : json_object_get(root, "traceEvents");
  if (!json_is_array(evs)) {
    json_decref(root);
    hs_set_error(err, HS_E_FORMAT, NULL, 0, "not a trace-event JSON: no \"traceEvents\" array");
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
    if (p->nomem) break;
  }
  /* the TPU plane counted: the first /device:TPU:N plane with an XLA Ops line */
  for (uint32_t l = 0; l < p->n_lines && p->tpu_plane < 0; l++) {
    const pstr *ln = &p->strs[p->lines[l].name];
    if (line_kind(p, p->lines[l].plane, ln->s, ln->len) == K_TPU_OPS) p->tpu_plane = (int32_t)p->lines[l].plane;
  }
  json_array_foreach(evs, i, e) {
    size_t n;
    const char *ph = jstr(e, "ph", &n);
    if (ph && n == 1 && ph[0] != 'M') j_event(p, &t, e);
    if (p->nomem) break;
  }
  map_free(&t.planes);
  map_free(&t.lines);
  free(t.line_pid);
  free(t.line_tid);
  free(t.line_next);
  json_decref(root);
  if (p->nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory reading the profile");
    return HS_E_NOMEM;
  }
  return 0;
}

/* ---- counting ------------------------------------------------------------------------- */
static int cmp_ev(const void *a, const void *b) {
  const pev *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* the enclosing event first */
  return x->seq < y->seq ? -1 : x->seq > y->seq;
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

static uint64_t ev_end(const pev *e) { return sat_add(e->start, e->dur); }

/* Self time and depth of every counted event, by time containment on its line: an event is
 * a direct child of the innermost open event that encloses it entirely. */
static bool nest(pev *evs, uint32_t n) {
  uint32_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
  if (!stack) return false;
  qsort(evs, n, sizeof *evs, cmp_ev);
  uint32_t top = 0;
  for (uint32_t i = 0; i < n; i++) {
    pev *e = &evs[i];
    e->self = e->dur;
    while (top && (evs[stack[top - 1]].line != e->line || ev_end(&evs[stack[top - 1]]) <= e->start ||
                   ev_end(e) > ev_end(&evs[stack[top - 1]])))
      top--;
    if (top) {
      pev *parent = &evs[stack[top - 1]];
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

static int32_t find_prog(hs_profile *p, u64map *by_pid, u64map *by_name, bool has_pid, uint64_t pid, uint32_t name) {
  int64_t k = has_pid ? map_get(by_pid, pid) : map_get(by_name, name);
  if (k >= 0) return (int32_t)k;
  bool ok;
  pprog *g = HS_VEC_PUSH(p->progs, p->n_progs, p->cap_progs, ok);
  (void)ok;
  if (!g) return -1;
  memset(g, 0, sizeof *g);
  g->name = name;
  g->name_s = name == NONE ? "" : p->strs[name].s;
  g->has_pid = has_pid;
  g->program_id = pid;
  if (!(has_pid ? map_put(by_pid, pid, p->n_progs - 1) : map_put(by_name, name, p->n_progs - 1))) return -1;
  return (int32_t)(p->n_progs - 1);
}

static int cmp_op(const void *a, const void *b) {
  const pop *x = a, *y = b;
  if (x->self != y->self) return x->self > y->self ? -1 : 1;
  int c = strcmp(x->name_s, y->name_s);
  return c ? c : strcmp(x->module_s, y->module_s);
}

static int cmp_prog(const void *a, const void *b) {
  const pprog *x = a, *y = b;
  int c = strcmp(x->name_s, y->name_s);
  if (c) return c;
  if (x->has_pid != y->has_pid) return x->has_pid ? 1 : -1;
  return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

typedef struct {
  uint32_t owner;
  uint8_t has_run;
  uint64_t run;
  uint32_t ev;
} member;

static int cmp_member(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  if (x->has_run != y->has_run) return x->has_run < y->has_run ? -1 : 1;
  if (x->run != y->run) return x->run < y->run ? -1 : 1;
  return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Runs without run ids: each top-level op of a program runs once per run, so the most common
 * occurrence count among its top-level ops (ties: the larger). */
static uint64_t guess_runs(const pev *evs, const uint32_t *members, uint32_t nm) {
  u64map counts = {0};
  uint64_t *cnt = calloc(nm ? nm : 1, sizeof *cnt);
  uint32_t distinct = 0;
  if (!cnt) return 0;
  for (uint32_t i = 0; i < nm; i++) {
    const pev *e = &evs[members[i]];
    if (e->depth) continue;
    int64_t k = map_get(&counts, e->name);
    if (k < 0) {
      if (!map_put(&counts, e->name, distinct)) break;
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
  map_free(&counts);
  return best;
}

static bool count(hs_profile *p) {
  uint32_t n_tpu = 0, n_gpu = 0, n_cpu = 0;
  for (uint32_t i = 0; i < p->n_evs; i++) {
    uint8_t k = p->evs[i].kind;
    n_tpu += k == K_TPU_OPS;
    n_gpu += k == K_GPU;
    n_cpu += k == K_CPU;
  }
  uint8_t want = n_tpu ? K_TPU_OPS : n_gpu ? K_GPU : n_cpu ? K_CPU : 0;
  p->mode = n_tpu ? MODE_TPU : n_gpu ? MODE_GPU : n_cpu ? MODE_CPU : MODE_NONE;
  p->device_plane = p->device_line = NONE;
  if (!want) {
    warn(p, HS_W_PROFILE_NO_DEVICE,
         "no events to count: no XLA Ops line on a /device:TPU plane, no GPU stream kernels with hlo_op, no "
         "/host:CPU events with hlo_op");
    return true;
  }
  /* keep only the events of the chosen kind, then (TPU) the program events */
  pev *kept = malloc((size_t)p->n_evs * sizeof *kept);
  if (!kept) return false;
  uint32_t m = 0, n_mod = 0;
  for (uint32_t i = 0; i < p->n_evs; i++)
    if (p->evs[i].kind == want) kept[m++] = p->evs[i];
  uint32_t n_ops_ev = m;
  for (uint32_t i = 0; want == K_TPU_OPS && i < p->n_evs; i++)
    if (p->evs[i].kind == K_TPU_MODULES) kept[m++] = p->evs[i], n_mod++;
  free(p->evs);
  p->evs = kept;
  p->n_evs = p->cap_evs = m;
  pev *ops = p->evs, *mods = p->evs + n_ops_ev;
  if (!nest(ops, n_ops_ev)) return false;

  /* which plane and line were counted */
  uint32_t first_line = ops[0].line, plane = p->lines[first_line].plane;
  bool one_line = true, one_plane = true;
  for (uint32_t i = 1; i < n_ops_ev; i++) {
    one_line &= ops[i].line == first_line;
    one_plane &= p->lines[ops[i].line].plane == plane;
  }
  p->device_plane = one_plane ? p->planes[plane].name
                              : intern_z(p, want == K_GPU ? "/device:GPU:*" : "/host:CPU");
  p->device_line = one_line ? p->lines[first_line].name : intern_z(p, want == K_GPU ? "Stream #*" : "*");

  u64map by_pid = {0}, by_name = {0}, opmap = {0};
  bool ok = true;
  if (want == K_TPU_OPS) {
    /* programs: the XLA Modules events; ops join them by program id, else by time containment */
    span *ms = malloc((size_t)(n_mod ? n_mod : 1) * sizeof *ms);
    if (!ms) ok = false;
    for (uint32_t i = 0; ok && i < n_mod; i++) {
      pev *e = &mods[i];
      int32_t g = find_prog(p, &by_pid, &by_name, e->has_pid, e->program_id, e->name);
      if (g < 0) {
        ok = false;
        break;
      }
      p->progs[g].runs++;
      p->progs[g].envelope = sat_add(p->progs[g].envelope, e->dur);
      ms[i].start = e->raw_start;
      ms[i].end = ev_end(e);
      ms[i].prog = (uint32_t)g;
    }
    if (ok && n_mod > 1) qsort(ms, n_mod, sizeof *ms, cmp_span);
    for (uint32_t i = 0; ok && i < n_ops_ev; i++) {
      pev *e = &ops[i];
      if (e->module != NONE) continue;
      int64_t nm = e->has_pid ? map_get(&p->pid_names, e->program_id) : -1;
      if (nm >= 0) {
        e->module = (uint32_t)nm;
        continue;
      }
      /* the last module run starting at or before the op's own start */
      uint32_t lo = 0, hi = n_mod;
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ms[mid].start <= e->raw_start) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0 && e->raw_start < ms[lo - 1].end) e->module = p->progs[ms[lo - 1].prog].name;
    }
    free(ms);
  } else {
    /* programs: by program id (else by module name); runs from run ids, else guessed. The
     * events are grouped by sorting (program, run id), so the work stays n log n. */
    member *mb = malloc((size_t)n_ops_ev * sizeof *mb);
    uint32_t *members = malloc((size_t)n_ops_ev * sizeof *members);
    span *spans = malloc((size_t)n_ops_ev * sizeof *spans);
    if (!mb || !members || !spans) ok = false;
    for (uint32_t i = 0; ok && i < n_ops_ev; i++) {
      pev *e = &ops[i];
      int32_t g = find_prog(p, &by_pid, &by_name, e->has_pid, e->program_id, e->module);
      if (g < 0) {
        ok = false;
        break;
      }
      mb[i].owner = (uint32_t)g;
      mb[i].has_run = e->has_run;
      mb[i].run = e->has_run ? e->run_id : 0;
      mb[i].ev = i;
    }
    if (ok && n_ops_ev > 1) qsort(mb, n_ops_ev, sizeof *mb, cmp_member);
    for (uint32_t a = 0, b = 0; ok && a < n_ops_ev; a = b) {
      uint32_t g = mb[a].owner;
      while (b < n_ops_ev && mb[b].owner == g) b++;
      pprog *pg = &p->progs[g];
      /* [a, b): this program's events; those with run ids sort last */
      uint32_t first_run = a;
      while (first_run < b && !mb[first_run].has_run) first_run++;
      if (first_run < b) {
        /* distinct run ids; envelope = sum over runs of last end - first start */
        for (uint32_t r0 = first_run, r1 = first_run; r0 < b; r0 = r1) {
          uint64_t lo = UINT64_MAX, hi = 0;
          while (r1 < b && mb[r1].run == mb[r0].run) {
            const pev *e = &ops[mb[r1].ev];
            if (e->start < lo) lo = e->start;
            if (ev_end(e) > hi) hi = ev_end(e);
            r1++;
          }
          pg->runs++;
          if (hi > lo) pg->envelope = sat_add(pg->envelope, hi - lo);
        }
      } else {
        uint32_t nm = b - a;
        for (uint32_t k = 0; k < nm; k++) members[k] = mb[a + k].ev;
        pg->runs = guess_runs(ops, members, nm);
        pg->runs_guessed = 1;
        /* envelope: the top-level events in time order, cut into `runs` equal groups */
        uint32_t ns = 0;
        for (uint32_t k = 0; k < nm; k++) {
          const pev *e = &ops[members[k]];
          if (e->depth) continue;
          spans[ns].start = e->start;
          spans[ns].end = ev_end(e);
          spans[ns].prog = 0;
          ns++;
        }
        if (ns > 1) qsort(spans, ns, sizeof *spans, cmp_span);
        uint64_t per = pg->runs && ns % pg->runs == 0 ? ns / pg->runs : ns;
        for (uint32_t q = 0; per && q < ns; q += (uint32_t)per) {
          uint64_t lo = spans[q].start, hi = 0;
          for (uint32_t k = q; k < q + per && k < ns; k++)
            if (spans[k].end > hi) hi = spans[k].end;
          if (hi > lo) pg->envelope = sat_add(pg->envelope, hi - lo);
        }
      }
    }
    free(mb);
    free(members);
    free(spans);
    uint32_t guessed = 0;
    for (uint32_t g = 0; g < p->n_progs; g++) guessed += p->progs[g].runs_guessed;
    if (ok && guessed)
      warn(p, HS_W_PROFILE_RUNS_GUESSED,
           "%u program%s without run ids: runs = the most common occurrence count among its top-level ops", guessed,
           guessed == 1 ? "" : "s");
  }

  /* ops: by (name, module) */
  for (uint32_t i = 0; ok && i < n_ops_ev; i++) {
    const pev *e = &ops[i];
    uint64_t key = ((uint64_t)e->name << 32) | e->module;
    int64_t k = map_get(&opmap, key);
    if (k < 0) {
      pop *o = HS_VEC_PUSH(p->ops, p->n_ops, p->cap_ops, ok);
      if (!o) break;
      memset(o, 0, sizeof *o);
      o->name = e->name;
      o->module = e->module;
      o->name_s = p->strs[e->name].s;
      o->module_s = e->module == NONE ? "" : p->strs[e->module].s;
      o->category = NONE;
      k = p->n_ops - 1;
      if (!map_put(&opmap, key, (uint32_t)k)) ok = false;
    }
    pop *o = &p->ops[k];
    o->occurrences++;
    o->total = sat_add(o->total, e->dur);
    o->self = sat_add(o->self, e->self);
    if (o->category == NONE) o->category = e->category;
  }
  /* runs of each op's module: the runs of every program of that name */
  u64map mod_runs = {0};
  uint64_t *mr = calloc(p->n_progs ? p->n_progs : 1, sizeof *mr);
  if (!mr) ok = false;
  for (uint32_t g = 0, k = 0; ok && g < p->n_progs; g++) {
    if (p->progs[g].name == NONE) continue;
    int64_t at = map_get(&mod_runs, p->progs[g].name);
    if (at < 0) {
      if (!map_put(&mod_runs, p->progs[g].name, k)) ok = false;
      at = k++;
    }
    mr[at] = sat_add(mr[at], p->progs[g].runs);
  }
  for (uint32_t i = 0; ok && i < p->n_ops; i++) {
    int64_t at = p->ops[i].module == NONE ? -1 : map_get(&mod_runs, p->ops[i].module);
    p->ops[i].runs = at >= 0 ? mr[at] : 0;
  }
  free(mr);
  map_free(&mod_runs);
  map_free(&by_pid);
  map_free(&by_name);
  map_free(&opmap);
  if (!ok) return false;
  if (p->n_ops > 1) qsort(p->ops, p->n_ops, sizeof *p->ops, cmp_op);
  if (p->n_progs > 1) qsort(p->progs, p->n_progs, sizeof *p->progs, cmp_prog);
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
    hs_set_error(err, HS_E_ARG, NULL, 0, "data is NULL");
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  const uint8_t *b = data;
  size_t i = 0;
  while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
  if (i + 3 <= len && b[i] == 0xEF && b[i + 1] == 0xBB && b[i + 2] == 0xBF) i += 3;
  if (i >= len) {
    hs_set_error(err, HS_E_EMPTY, NULL, 0, "the input is empty: give a .xplane.pb or a (gunzipped) .trace.json");
    return NULL;
  }
  if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, "gzip-compressed: gunzip the .trace.json.gz first");
    return NULL;
  }
  /* An XSpace starts with field 1 (a plane): byte 0x0a, which is also a newline. A text whose
   * top level reads as protobuf fields to the last byte is a protobuf; otherwise a '{' or '['
   * after blank space is JSON. */
  bool is_json = (b[i] == '{' || b[i] == '[') && !(b[0] == 0x0a && pb_walks(b, len));
  if (!is_json && b[0] != 0x0a) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0,
                 "not a profile hloscope can read: expected an XSpace protobuf (.xplane.pb) or trace-event JSON");
    return NULL;
  }
  hs_profile *p = calloc(1, sizeof *p);
  if (!p) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory");
    return NULL;
  }
  p->tpu_plane = -1;
  p->format = is_json ? FMT_TRACE_JSON : FMT_XPLANE;
  int rc = is_json ? parse_trace_json(p, data, len, err) : parse_xplane(p, data, len, err);
  if (rc == 0 && !count(p)) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory counting the profile");
    rc = HS_E_NOMEM;
  }
  if (rc == 0 && p->warn_suppressed)
    warn(p, HS_W_PROFILE_SKIPPED, "%u more warnings like the ones above were not listed", p->warn_suppressed);
  if (rc == 0 && p->nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, "out of memory");
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
  free(p->warnings);
  map_free(&p->pid_names);
  hs_arena_free(&p->arena);
  free(p);
}

static json_t *jstrid(const hs_profile *p, uint32_t id) {
  return id == NONE ? json_null() : hs_json_bytes(p->strs[id].s, p->strs[id].len);
}

static json_t *jps(uint64_t v) { return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v); }

char *hs_profile_json(const hs_profile *p, size_t *len) {
  if (!p) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "format", json_string(p->format == FMT_XPLANE ? "xplane" : "trace_json"));
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
    json_object_set_new(po, "name", jstrid(p, p->planes[i].name));
    json_t *ls = json_array();
    for (uint32_t k = first[i]; k < first[i + 1]; k++) {
      uint32_t l = order[k];
      json_t *lo = json_object();
      json_object_set_new(lo, "name", jstrid(p, p->lines[l].name));
      json_object_set_new(lo, "events", jps(p->lines[l].events));
      json_array_append_new(ls, lo);
    }
    json_object_set_new(po, "lines", ls);
    json_array_append_new(planes, po);
  }
  free(first);
  free(order);
  json_object_set_new(o, "planes", planes);
  if (p->device_plane != NONE) {
    json_t *d = json_object();
    json_object_set_new(d, "plane", jstrid(p, p->device_plane));
    json_object_set_new(d, "line", jstrid(p, p->device_line));
    json_object_set_new(o, "device", d);
  } else {
    json_object_set_new(o, "device", json_null());
  }
  json_t *progs = json_array();
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const pprog *g = &p->progs[i];
    json_t *go = json_object();
    json_object_set_new(go, "name", jstrid(p, g->name));
    if (g->has_pid) {
      char buf[24];
      snprintf(buf, sizeof buf, "%llu", (unsigned long long)g->program_id);
      json_object_set_new(go, "program_id", json_string(buf));
    } else {
      json_object_set_new(go, "program_id", json_null());
    }
    json_object_set_new(go, "runs", jps(g->runs));
    json_object_set_new(go, "envelope_ps", jps(g->envelope));
    json_array_append_new(progs, go);
  }
  json_object_set_new(o, "programs", progs);
  json_t *ops = json_array();
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const pop *op = &p->ops[i];
    uint64_t runs = op->runs;
    json_t *x = json_object();
    json_object_set_new(x, "name", jstrid(p, op->name));
    json_object_set_new(x, "module", jstrid(p, op->module));
    json_object_set_new(x, "category", jstrid(p, op->category));
    json_object_set_new(x, "occurrences", jps(op->occurrences));
    json_object_set_new(x, "total_ps", jps(op->total));
    json_object_set_new(x, "self_ps", jps(op->self));
    json_object_set_new(x, "per_run_ps", jps(runs ? op->total / runs : 0));
    json_array_append_new(ops, x);
  }
  json_object_set_new(o, "ops", ops);
  json_t *mods = json_array();
  for (uint32_t i = 0; i < p->n_hlo_modules; i++) json_array_append_new(mods, jstrid(p, p->hlo_modules[i]));
  json_object_set_new(o, "hlo_modules", mods);
  json_object_set_new(o, "warnings", hs_warnings_json(p->warnings, p->n_warnings));
  return hs_json_finish(o, len);
}
