/* The XSpace protobuf reader (.xplane.pb, what jax.profiler writes): planes, lines and the
 * events worth counting, with their stats (hlo_op, hlo_module, program_id, run_id, the TPU
 * device_offset_ps/device_duration_ps) resolved through the plane's stat and event metadata.
 * /host:metadata names the programs (event metadata "jit_f(<id>)") and holds their
 * HloModuleProtos (stat "Hlo Proto").
 *
 * TPU planes with an XLA Ops line are read whole: XLA Ops, XLA Modules, Async XLA Ops (the
 * transfers) and Steps; GPU kernels are kept with their kernel's name (those without an hlo_op
 * are device time no HLO op accounts for); the XSpace's hostnames and the planes' process_id
 * stat name the host and process.
 *
 * Field numbers (tsl/profiler/protobuf/xplane.proto): XSpace.planes 1, hostnames 4; XPlane.name
 * 2, lines 3, event_metadata 4, stat_metadata 5, stats 6; XLine.name 2, timestamp_ns 3, events 4,
 * display_name 11;
 * XEvent.metadata_id 1, offset_ps 2, duration_ps 3, stats 4; XStat.metadata_id 1, double 2,
 * uint64 3, int64 4, str 5, bytes 6, ref 7. The maps are read in one pass before the lines,
 * because XPlane writes them after the lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"

enum {
  ST_NONE = 0,
  ST_HLO_OP,
  ST_HLO_MODULE,
  ST_PROGRAM_ID,
  ST_RUN_ID,
  ST_DEV_OFF,
  ST_DEV_DUR,
  ST_CATEGORY,
  ST_HLO_PROTO,
  ST_PROCESS_ID
};

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
  hs_pbw_field *lines;
  uint32_t n_lines, cap_lines;
  hs_arena bytes; /* the metadata's bytes, copied when the input is read by windows */
  uint32_t seen[256]; /* string id + 1 of the stat strings met last, by a cheap key (see cached) */
} plane_tmp;

/* hs_prof_intern for the op, module and category strings of every event: a big profile names
 * the same few ops millions of times, and hashing each (FNV, byte by byte) was the reader's
 * hottest loop. A direct-mapped cache keyed by the length and the first and last 8 bytes
 * finds the string id with one compare; a miss interns as before. */
static uint32_t cached(hs_profile *p, plane_tmp *t, const void *sv, size_t n) {
  const uint8_t *s = sv;
  uint64_t a = 0, b = 0;
  if (n) { /* an empty string may come with no bytes at all (s NULL) */
    memcpy(&a, s, n < 8 ? n : 8);
    memcpy(&b, s + (n > 8 ? n - 8 : 0), n < 8 ? n : 8);
  }
  uint64_t k = (a ^ (b * 0x9e3779b97f4a7c15ULL) ^ n) * 0xff51afd7ed558ccdULL;
  uint32_t slot = (uint32_t)(k >> 56);
  uint32_t id = t->seen[slot];
  if (id && p->strs[id - 1].len == n && (n == 0 || memcmp(p->strs[id - 1].s, s, n) == 0)) return id - 1;
  uint32_t got = hs_prof_intern(p, s, n);
  if (got != HS_NONE) t->seen[slot] = got + 1;
  return got;
}

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
               {"Hlo Proto", ST_HLO_PROTO},
               {"process_id", ST_PROCESS_ID}};
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
  if (v->str && !v->has_num) v->has_num = hs_prof_parse_u64((const char *)v->str, v->str_len, &v->num);
  return true;
}

/* The op name, module, category and program id an event metadata entry carries. */
static void resolve_em(hs_profile *p, plane_tmp *t, emeta *m) {
  if (m->resolved) return;
  m->resolved = 1;
  m->op = m->module = m->category = HS_NONE;
  const char *s = (const char *)(m->display_len ? m->display : m->name);
  size_t n = m->display_len ? m->display_len : m->name_len;
  hs_prof_op_from_hlo_text(&s, &n);
  m->op = hs_prof_intern(p, s, n);
  /* TPU XLA Ops metadata: the name is the instruction's whole text ("%copy-done.4 = f32[...]") */
  bool is_text = m->name_len > 1 && m->name[0] == '%';
  hs_pb r = hs_pb_open(m->stats, m->stats_len);
  hs_pb_field f;
  while (hs_pb_next(&r, &f) > 0) {
    if (f.field != 5 || f.wire != HS_PB_LEN) continue;
    hs_pb sr = hs_pb_sub(&r, &f);
    stat_val v;
    if (!decode_stat(t, &sr, &v)) continue;
    if (v.code == ST_CATEGORY && v.str) m->category = hs_prof_intern(p, v.str, v.str_len);
    else if (v.code == ST_PROGRAM_ID && v.has_num) m->pid = v.num, m->has_pid = 1;
    else if (v.code == ST_HLO_MODULE && v.str) m->module = hs_prof_intern(p, v.str, v.str_len);
    else if (v.code == ST_HLO_OP && v.str) {
      const char *o = (const char *)v.str;
      size_t on = v.str_len;
      hs_prof_op_from_stack(&o, &on);
      m->op = hs_prof_intern(p, o, on);
    }
  }
  if (is_text) hs_prof_add_op_text(p, m->has_pid, m->pid, m->op, hs_prof_intern(p, m->name, m->name_len));
}

/* One map entry (key = 1, value = 2) of event_metadata / stat_metadata. */
static bool map_entry(hs_pb *er, uint64_t *key, hs_pb_field *value) {
  hs_pb_field g;
  int rc;
  *key = 0;
  value->data = NULL;
  value->len = 0;
  while ((rc = hs_pb_next(er, &g)) > 0) {
    if (g.field == 1 && g.wire == HS_PB_VARINT) *key = g.u;
    else if (g.field == 2 && g.wire == HS_PB_LEN) *value = g;
  }
  return rc == 0;
}

/* Bytes that must outlive the window's next read (metadata names and stats): copied into the
 * plane's arena when the input is read by windows, kept in place when it is held whole. */
static const uint8_t *keep(plane_tmp *t, const hs_window *w, const uint8_t *b, size_t n) {
  if (w->whole || !b || !n) return b;
  uint8_t *c = hs_arena_alloc_raw(&t->bytes, n);
  if (c) memcpy(c, b, n);
  return c;
}

static void read_event(hs_profile *p, plane_tmp *t, hs_window *w, const hs_pbw_field *ef, uint32_t line, int kind,
                       uint64_t line_ts_ps) {
  const uint8_t *b = hs_window_get(w, ef->off, (size_t)ef->len);
  if (!b) return;
  hs_pb r = hs_pb_open(b, (size_t)ef->len);
  hs_pb_field f;
  int rc;
  uint64_t mid = 0, off = 0, dur = 0, dev_off = 0, dev_dur = 0, pid = 0, run = 0;
  bool has_dev_off = false, has_dev_dur = false, has_pid = false, has_run = false;
  uint32_t op = HS_NONE, module = HS_NONE, category = HS_NONE;
  while ((rc = hs_pb_next(&r, &f)) > 0) {
    if (f.field == 1 && f.wire == HS_PB_VARINT) mid = f.u;
    else if (f.field == 2 && f.wire == HS_PB_VARINT) off = f.u;
    else if (f.field == 3 && f.wire == HS_PB_VARINT) dur = f.u;
    else if (f.field == 4 && f.wire == HS_PB_LEN && kind != HS_PK_TPU_MODULES) {
      hs_pb sr = hs_pb_sub(&r, &f);
      stat_val v;
      if (!decode_stat(t, &sr, &v)) continue;
      switch (v.code) {
        case ST_HLO_OP:
          if (v.str) {
            const char *o = (const char *)v.str;
            size_t on = v.str_len;
            hs_prof_op_from_stack(&o, &on);
            op = cached(p, t, o, on);
          }
          break;
        case ST_HLO_MODULE:
          if (v.str) module = cached(p, t, v.str, v.str_len);
          break;
        case ST_CATEGORY:
          if (v.str) category = cached(p, t, v.str, v.str_len);
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
    hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed event at byte %llu was skipped",
                 (unsigned long long)(ef->off + hs_pb_offset(&r)));
    return;
  }
  emeta *m = find_em(t, mid);
  if (kind == HS_PK_TPU_ASYNC || kind == HS_PK_STEPS) {
    /* a transfer: the -start's text names it, hlo_op its -done; a step: its name */
    if (!m) return;
    uint64_t raw = hs_sat_add(line_ts_ps, off);
    hs_prof_add_aside(p, kind, line, (const char *)m->name, m->name_len, op, raw,
                      has_dev_off ? hs_sat_add(line_ts_ps, dev_off) : raw, has_dev_dur ? dev_dur : dur);
    return;
  }
  /* a GPU event is a kernel launch: the kernel is the event's name; without an hlo_op no HLO op
   * accounts for its device time */
  uint32_t kernel = HS_NONE;
  if (kind == HS_PK_GPU && m) kernel = cached(p, t, m->display_len ? m->display : m->name, m->display_len ? m->display_len : m->name_len);
  if (kind == HS_PK_GPU && op == HS_NONE) hs_prof_add_kernel(p, has_pid, pid, module, HS_NONE, kernel, dur);
  if (kind == HS_PK_TPU_MODULES) {
    if (!m) return;
    hs_prof_event *e = hs_prof_add_event(p);
    if (!e) return;
    e->kind = (uint8_t)kind;
    e->line = line;
    size_t nl;
    uint64_t id;
    if (hs_prof_split_program((const char *)m->name, m->name_len, &nl, &id)) {
      e->name = hs_prof_intern(p, m->name, nl);
      e->pid = hs_prof_id_of(p, id);
      if (e->name != HS_NONE && !hs_u64map_put(&p->pid_names, id, e->name)) p->diag.nomem = true;
    } else {
      e->name = hs_prof_intern(p, m->name, m->name_len);
    }
    e->start = e->raw_start = hs_sat_add(line_ts_ps, off);
    e->dur = dur;
    return;
  }
  if ((kind == HS_PK_GPU || kind == HS_PK_CPU) && op == HS_NONE) return; /* not an HLO op's event */
  if (m) {
    resolve_em(p, t, m);
    if (op == HS_NONE) op = m->op;
    if (module == HS_NONE) module = m->module;
    if (category == HS_NONE) category = m->category;
    if (!has_pid && m->has_pid) pid = m->pid, has_pid = true;
  }
  if (op == HS_NONE) return;
  if (kind == HS_PK_GPU) hs_prof_add_kernel(p, has_pid, pid, module, op, kernel, dur);
  hs_prof_event *e = hs_prof_add_event(p);
  if (!e) return;
  e->kind = (uint8_t)kind;
  e->line = line;
  e->name = op;
  e->module = module;
  e->category = category;
  if (has_pid) e->pid = hs_prof_id_of(p, pid);
  if (has_run) e->run = hs_prof_id_of(p, run);
  e->raw_start = hs_sat_add(line_ts_ps, off);
  e->start = kind == HS_PK_TPU_OPS && has_dev_off ? hs_sat_add(line_ts_ps, dev_off) : e->raw_start;
  e->dur = kind == HS_PK_TPU_OPS && has_dev_dur ? dev_dur : dur;
}

/* A line's name (else its display name): where its bytes are, and its timestamp and event count. */
typedef struct {
  uint64_t name_off, name_len, ts_ns, events;
  bool named; /* the name is the line's own (field 2), not its display name */
} line_head;

/* Progress: a walk reports the bytes it has come through since `*last`. */
static void walked(hs_window *w, uint64_t *last, uint64_t pos) {
  if (pos > *last) hs_window_advance(w, pos - *last);
  *last = pos;
}

/* Reads a line's own fields (not its events); false with *bad at the field that is not one. */
static bool read_line_head(hs_window *w, const hs_pbw_field *lf, line_head *h, uint64_t *bad) {
  uint64_t pos = lf->off, end = lf->off + lf->len, disp_off = 0, disp_len = 0, last = pos;
  hs_pbw_field f;
  int rc;
  memset(h, 0, sizeof *h);
  while ((rc = hs_pbw_next(w, &pos, end, &f)) > 0) {
    if (f.field == 2 && f.wire == HS_PB_LEN) h->name_off = f.off, h->name_len = f.len;
    else if (f.field == 11 && f.wire == HS_PB_LEN) disp_off = f.off, disp_len = f.len;
    else if (f.field == 3 && f.wire == HS_PB_VARINT) h->ts_ns = f.u;
    else if (f.field == 4 && f.wire == HS_PB_LEN && (++h->events & 1023) == 0) walked(w, &last, pos);
  }
  walked(w, &last, pos);
  h->named = h->name_len > 0;
  if (!h->name_len && disp_len) h->name_off = disp_off, h->name_len = disp_len;
  *bad = pos;
  return rc == 0;
}

static void read_line(hs_profile *p, plane_tmp *t, hs_window *w, uint32_t plane, const hs_pbw_field *lf) {
  line_head h;
  uint64_t bad;
  if (!read_line_head(w, lf, &h, &bad)) {
    if (!w->failed)
      hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed line at byte %llu of plane '%s' was skipped", (unsigned long long)bad,
                   p->strs[p->planes[plane].name].s);
    return;
  }
  const uint8_t *name = h.name_len ? hs_window_get(w, h.name_off, (size_t)h.name_len) : (const uint8_t *)"";
  if (!name) return;
  uint32_t lname = hs_prof_intern(p, name, (size_t)h.name_len);
  if (lname == HS_NONE) return;
  uint32_t li = hs_prof_add_line(p, plane, lname);
  if (li == HS_NONE) return;
  p->lines[li].events = h.events;
  int kind = hs_prof_line_kind(p, plane, p->strs[lname].s, p->strs[lname].len);
  if (kind == HS_PK_TPU_ASYNC && h.events) p->planes[plane].async_events = 1;
  if (kind == HS_PK_OTHER || !h.events) return;
  if ((kind == HS_PK_TPU_OPS || kind == HS_PK_TPU_MODULES || kind == HS_PK_TPU_ASYNC) && !p->planes[plane].xla_ops) return;
  uint64_t ts_ps = h.ts_ns > UINT64_MAX / 1000 ? UINT64_MAX : h.ts_ns * 1000;
  uint64_t pos = lf->off, end = lf->off + lf->len;
  hs_pbw_field f;
  uint32_t k = 0;
  uint64_t last = pos;
  while (hs_pbw_next(w, &pos, end, &f) > 0 && !p->diag.nomem && !w->failed) {
    if (f.field != 4 || f.wire != HS_PB_LEN) continue;
    read_event(p, t, w, &f, li, kind, ts_ps);
    if ((++k & 1023) == 0) walked(w, &last, pos);
  }
  walked(w, &last, pos);
}

/* One event_metadata (4) or stat_metadata (5) entry of a plane, into t->em or t->sm; false when
 * memory ran out. */
static bool read_metadata(hs_profile *p, plane_tmp *t, hs_window *w, const hs_pbw_field *f) {
  const uint8_t *b = hs_window_get(w, f->off, (size_t)f->len);
  if (!b) return true; /* the window failed: the caller stops */
  hs_pb er = hs_pb_open(b, (size_t)f->len);
  uint64_t key;
  hs_pb_field val;
  if (!map_entry(&er, &key, &val)) {
    hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed metadata entry at byte %llu was skipped", (unsigned long long)f->off);
    return true;
  }
  hs_pb vr = hs_pb_open(val.data ? val.data : b, val.data ? val.len : 0);
  vr.base = b; /* offsets from the entry's first byte */
  hs_pb_field g;
  int vrc;
  bool ok = true;
  if (f->field == 4) {
    emeta *m = HS_VEC_PUSH(t->em, t->n_em, t->cap_em, ok);
    (void)ok;
    if (!m) return false;
    memset(m, 0, sizeof *m);
    m->id = key;
    m->stats = keep(t, w, val.data, val.len);
    m->stats_len = val.len;
    while ((vrc = hs_pb_next(&vr, &g)) > 0) {
      if (g.wire != HS_PB_LEN) continue;
      if (g.field == 2) m->name = keep(t, w, g.data, g.len), m->name_len = g.len;
      else if (g.field == 4) m->display = keep(t, w, g.data, g.len), m->display_len = g.len;
    }
    if (vrc < 0) {
      t->n_em--;
      hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed event metadata at byte %llu was skipped",
                   (unsigned long long)(f->off + hs_pb_offset(&vr)));
    } else if ((val.len && !m->stats) || (m->name_len && !m->name) || (m->display_len && !m->display)) {
      return false;
    }
  } else {
    smeta *m = HS_VEC_PUSH(t->sm, t->n_sm, t->cap_sm, ok);
    (void)ok;
    if (!m) return false;
    memset(m, 0, sizeof *m);
    m->id = key;
    while ((vrc = hs_pb_next(&vr, &g)) > 0)
      if (g.field == 2 && g.wire == HS_PB_LEN) m->name = keep(t, w, g.data, g.len), m->name_len = g.len;
    if (vrc < 0) {
      t->n_sm--;
      hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed stat metadata at byte %llu was skipped",
                   (unsigned long long)(f->off + hs_pb_offset(&vr)));
    } else if (m->name_len && !m->name) {
      return false;
    } else {
      m->code = stat_code(m->name, m->name_len);
    }
  }
  return true;
}

/* The first XStat of `f` (a plane's stat), decoded; false when it does not read. */
static bool read_stat_at(plane_tmp *t, hs_window *w, const hs_pbw_field *f, stat_val *v) {
  const uint8_t *b = hs_window_get(w, f->off, (size_t)f->len);
  if (!b) return false;
  hs_pb r = hs_pb_open(b, (size_t)f->len);
  return decode_stat(t, &r, v);
}

static void read_plane(hs_profile *p, hs_window *w, const hs_pbw_field *pf, plane_tmp *t) {
  t->n_sm = t->n_em = t->n_lines = 0;
  hs_arena_free(&t->bytes);
  memset(&t->bytes, 0, sizeof t->bytes);
  uint64_t pos = pf->off, end = pf->off + pf->len, name_off = 0, name_len = 0;
  hs_pbw_field f;
  int rc = 0;
  bool ok = true;
  hs_pbw_field pstats[8];
  uint32_t n_pstats = 0;
  /* pass 1: the name, the line slices and both metadata maps (they follow the lines) */
  while (ok && (rc = hs_pbw_next(w, &pos, end, &f)) > 0) {
    if (f.wire != HS_PB_LEN) continue;
    if (f.field == 6 && n_pstats < 8) {
      pstats[n_pstats++] = f;
    } else if (f.field == 2) {
      name_off = f.off;
      name_len = f.len;
    } else if (f.field == 3) {
      hs_pbw_field *slot = HS_VEC_PUSH(t->lines, t->n_lines, t->cap_lines, ok);
      if (slot) *slot = f;
    } else if (f.field == 4 || f.field == 5) {
      ok = read_metadata(p, t, w, &f);
      if (w->failed) break;
    }
  }
  if (!ok) {
    p->diag.nomem = true;
    return;
  }
  if (w->failed) return;
  if (rc < 0) {
    hs_prof_warn(p, HS_W_TRUNCATED, "plane at byte %llu is malformed from byte %llu on: read what came before",
                 (unsigned long long)pf->off, (unsigned long long)pos);
  }
  if (t->n_sm > 1) qsort(t->sm, t->n_sm, sizeof *t->sm, cmp_sm);
  if (t->n_em > 1) qsort(t->em, t->n_em, sizeof *t->em, cmp_em);
  const uint8_t *name = name_len ? hs_window_get(w, name_off, (size_t)name_len) : (const uint8_t *)"";
  if (!name) return;
  uint32_t pname = hs_prof_intern(p, name, (size_t)name_len);
  if (pname == HS_NONE) return;
  uint32_t pi = hs_prof_add_plane(p, pname);
  if (pi == HS_NONE) return;
  const hs_prof_str *pn = &p->strs[pname];
  /* the process that wrote the file (the plane stat process_id) */
  for (uint32_t i = 0; i < n_pstats; i++) {
    stat_val v;
    if (read_stat_at(t, w, &pstats[i], &v) && v.code == ST_PROCESS_ID && v.has_num) hs_prof_set_pid(p, v.num);
  }
  if (hs_prof_starts_with(pn->s, pn->len, "/device:TPU:")) {
    for (uint32_t i = 0; i < t->n_lines && !p->planes[pi].xla_ops; i++) {
      line_head h;
      uint64_t bad;
      (void)read_line_head(w, &t->lines[i], &h, &bad); /* the name, when it comes before a bad field */
      const uint8_t *ln = h.named && h.name_len == 7 ? hs_window_get(w, h.name_off, 7) : NULL;
      if (ln && memcmp(ln, "XLA Ops", 7) == 0) p->planes[pi].xla_ops = 1;
    }
  }
  if (pn->len == 14 && memcmp(pn->s, "/host:metadata", 14) == 0) {
    /* event metadata id = program id, name "jit_f(<id>)", stat "Hlo Proto" */
    for (uint32_t i = 0; i < t->n_em && !p->diag.nomem; i++) {
      emeta *m = &t->em[i];
      size_t nl;
      uint64_t id = m->id; /* the event metadata id is the program id */
      if (hs_prof_split_program((const char *)m->name, m->name_len, &nl, &id)) {
        uint32_t s = hs_prof_intern(p, m->name, nl);
        if (s != HS_NONE && !hs_u64map_put(&p->pid_names, id, s)) p->diag.nomem = true;
      }
      hs_pb er = hs_pb_open(m->stats, m->stats_len);
      hs_pb_field g;
      while (hs_pb_next(&er, &g) > 0) {
        if (g.field != 5 || g.wire != HS_PB_LEN) continue;
        hs_pb sr2 = hs_pb_sub(&er, &g);
        stat_val v;
        if (decode_stat(t, &sr2, &v) && v.code == ST_HLO_PROTO && v.str) hs_prof_read_hlo_proto(p, v.str, v.str_len, true, id);
      }
    }
  }
  for (uint32_t i = 0; i < t->n_lines && !p->diag.nomem && !w->failed; i++) read_line(p, t, w, pi, &t->lines[i]);
}

/* A copy of a short name read through the window (a plane's or a line's), or NULL. */
static char *name_copy(hs_window *w, uint64_t off, uint64_t len) {
  const uint8_t *b = len ? hs_window_get(w, off, (size_t)len) : (const uint8_t *)"";
  char *c = b ? malloc(len + 1) : NULL;
  if (c) memcpy(c, b, (size_t)len), c[len] = 0;
  return c;
}

/* The ids of a plane's stat metadata named "hlo_op" (usually one), at most `cap`. */
static uint32_t hlo_op_ids(hs_window *w, uint64_t off, uint64_t len, uint64_t *ids, uint32_t cap) {
  uint64_t pos = off, end = off + len;
  uint32_t n = 0;
  hs_pbw_field f;
  while (n < cap && hs_pbw_next(w, &pos, end, &f) > 0) {
    if (f.field != 5 || f.wire != HS_PB_LEN) continue;
    const uint8_t *b = hs_window_get(w, f.off, (size_t)f.len);
    if (!b) break;
    hs_pb er = hs_pb_open(b, (size_t)f.len);
    uint64_t key;
    hs_pb_field val, g;
    if (!map_entry(&er, &key, &val) || !val.data) continue;
    hs_pb vr = hs_pb_open(val.data, val.len);
    while (hs_pb_next(&vr, &g) > 0)
      if (g.field == 2 && g.wire == HS_PB_LEN && stat_code(g.data, g.len) == ST_HLO_OP) ids[n++] = key;
  }
  return n;
}

/* Whether an event carries a stat whose metadata id is one of `ids` (an hlo_op). */
static bool has_stat(const uint8_t *b, size_t len, const uint64_t *ids, uint32_t n_ids) {
  hs_pb r = hs_pb_open(b, len);
  hs_pb_field f, g;
  while (hs_pb_next(&r, &f) > 0) {
    if (f.field != 4 || f.wire != HS_PB_LEN) continue;
    hs_pb sr = hs_pb_sub(&r, &f);
    while (hs_pb_next(&sr, &g) > 0) {
      if (g.field != 1 || g.wire != HS_PB_VARINT) continue;
      for (uint32_t i = 0; i < n_ids; i++)
        if (g.u == ids[i]) return true;
    }
  }
  return false;
}

/* An upper bound on the events kept, close enough to reserve them at once: on XLA:CPU and GPU
 * lines the events that carry an hlo_op stat (the only ones read_event keeps there: a busy
 * host thread has many more), on the other lines counted every event. Reserving spares the
 * doubling copies of the event array (in wasm, a realloc copies: old and new arrays live
 * together), and reserving tightly spares memory a big profile has no room for. */
static uint64_t count_events(hs_window *w) {
  uint64_t pos = 0, n = 0;
  hs_pbw_field f;
  while (!w->failed && hs_pbw_next(w, &pos, w->size, &f) > 0) {
    if (f.field != 1 || f.wire != HS_PB_LEN) continue;
    uint64_t pp = f.off, pend = f.off + f.len, pname_off = 0, pnlen = 0;
    hs_pbw_field g;
    while (hs_pbw_next(w, &pp, pend, &g) > 0)
      if (g.field == 2 && g.wire == HS_PB_LEN) pname_off = g.off, pnlen = g.len;
    char *pname = name_copy(w, pname_off, pnlen);
    if (!pname) break;
    if (hs_prof_line_kind_of(pname, pnlen, "Stream #", 8) == HS_PK_OTHER &&
        hs_prof_line_kind_of(pname, pnlen, "XLA Ops", 7) == HS_PK_OTHER &&
        hs_prof_line_kind_of(pname, pnlen, "Steps", 5) == HS_PK_OTHER) {
      free(pname);
      continue; /* no line of this plane is kept */
    }
    uint64_t ids[8];
    uint32_t n_ids = hlo_op_ids(w, f.off, f.len, ids, 8);
    pp = f.off;
    while (hs_pbw_next(w, &pp, pend, &g) > 0) {
      if (g.field != 3 || g.wire != HS_PB_LEN) continue;
      line_head h;
      uint64_t bad;
      (void)read_line_head(w, &g, &h, &bad);
      char *lname = name_copy(w, h.name_off, h.name_len);
      if (!lname) break;
      int kind = hs_prof_line_kind_of(pname, pnlen, lname, h.name_len);
      free(lname);
      if (kind == HS_PK_OTHER) continue;
      if ((kind != HS_PK_CPU && kind != HS_PK_GPU) || n_ids == 8) {
        n += h.events;
        continue;
      }
      /* the line's events with an hlo_op (none without the stat) */
      uint64_t ep = g.off, eend = g.off + g.len, k = 0, last = ep;
      hs_pbw_field e;
      while (n_ids && hs_pbw_next(w, &ep, eend, &e) > 0) {
        if (e.field != 4 || e.wire != HS_PB_LEN) continue;
        const uint8_t *b = hs_window_get(w, e.off, (size_t)e.len);
        if (!b) break;
        n += has_stat(b, (size_t)e.len, ids, n_ids);
        if ((++k & 1023) == 0) walked(w, &last, ep);
      }
      walked(w, &last, ep);
    }
    free(pname);
  }
  return n;
}

int hs_xplane_read_window(hs_profile *p, hs_window *w, hs_error *err) {
  hs_pbw_field f;
  int rc = 0;
  plane_tmp t = {0};
  /* each stage walks a line's bytes at most twice (its own fields, then its events) */
  hs_window_stage(w, "scanning", 2 * w->size);
  (void)hs_prof_reserve_events(p, count_events(w));
  hs_window_stage(w, "reading", 2 * w->size);
  bool host_named = false;
  uint64_t pos = 0;
  while (!w->failed && (rc = hs_pbw_next(w, &pos, w->size, &f)) > 0 && !p->diag.nomem) {
    if (f.field == 1 && f.wire == HS_PB_LEN) read_plane(p, w, &f, &t);
    else if (f.field == 4 && f.wire == HS_PB_LEN && !host_named) {
      const uint8_t *h = hs_window_get(w, f.off, (size_t)f.len);
      if (h) hs_prof_set_host(p, h, (size_t)f.len); /* hostnames: the first */
      host_named = true;
    }
  }
  free(t.sm);
  free(t.em);
  free(t.lines);
  hs_arena_free(&t.bytes);
  if (p->diag.nomem) {
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory reading the profile");
    return HS_E_NOMEM;
  }
  if (w->failed) {
    hs_set_error(err, HS_E_READ, NULL, 0, pos,
                 "the file could not be read near byte %llu of %llu (was it changed, moved or removed while it was read?)",
                 (unsigned long long)pos, (unsigned long long)w->size);
    return HS_E_READ;
  }
  if (rc < 0) {
    size_t at = (size_t)pos;
    if (!p->n_planes) {
      hs_set_error(err, HS_E_SYNTAX, NULL, 0, at,
                   "not a readable XSpace protobuf: the field at byte %zu is truncated or malformed", at);
      return HS_E_SYNTAX;
    }
    hs_prof_warn(p, HS_W_TRUNCATED, "the file is truncated or malformed at byte %zu of %llu: the planes before it were read", at,
                 (unsigned long long)w->size);
  }
  if (!p->n_planes) {
    hs_set_error(err, HS_E_FORMAT, NULL, 0, 0, "no planes: not an XSpace (.xplane.pb) profile");
    return HS_E_FORMAT;
  }
  return 0;
}

int hs_xplane_read(hs_profile *p, const uint8_t *data, size_t len, hs_error *err) {
  hs_window w = {.whole = data, .size = len};
  return hs_xplane_read_window(p, &w, err);
}
