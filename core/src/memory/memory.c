/* Out-of-memory messages read into numbers, and the one entry point for every memory text
 * (`hloscope memory`, readMemory()): an XLA out-of-memory message (TPU compile time, HBM and
 * VMEM, scoped VMEM, TPU run time, GPU with its BufferAssignment stats and peak buffers, the
 * allocator's "Failed to allocate request"), a *-buffer-assignment.txt, or a
 * *-memory-usage-report.txt (buffers.c).
 *
 * Messages come as people paste them: after "XlaRuntimeError:" or a log header, wrapped by a
 * terminal (a word or number cut at the margin) or a web page (a space turned into a line
 * break), cut short. So the sentences are matched on a flat copy with the line breaks removed
 * and `\s*` wherever a space may be; the list entries are split on their field names. XLA's
 * K, M, G are KiB, MiB, GiB; bytes are integers rounded from the printed figure, or the exact
 * count where the text gives one. */
#include "memory/memory.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>


/* ---- shared result helpers ---------------------------------------------------------------- */
/* The named figures of issue 35, beside requested/used/capacity/exceeded. */
static const char *const HS_MEM_NAMED[] = {"allocated_bytes", "reserved_bytes", "free_bytes", "largest_free_bytes",
                                           "program_bytes", "arguments_bytes", "output_bytes", "tensorcore_bytes",
                                           "sparsecore_bytes"};

json_t *hs_mem_result(const char *kind) {
  json_t *o = json_object();
  json_object_set_new(o, "kind", json_string(kind));
  json_object_set_new(o, "backend", json_null());
  json_object_set_new(o, "memory_space", json_null());
  json_object_set_new(o, "requested_bytes", json_null());
  json_object_set_new(o, "used_bytes", json_null());
  json_object_set_new(o, "capacity_bytes", json_null());
  json_object_set_new(o, "exceeded_bytes", json_null());
  json_object_set_new(o, "allocations", json_array());
  json_object_set_new(o, "totals", json_object());
  json_object_set_new(o, "explanation", json_null());
  json_object_set_new(o, "warnings", json_array());
  /* every figure a message prints has its key (null when it prints none) and is in figures */
  for (size_t i = 0; i < sizeof HS_MEM_NAMED / sizeof HS_MEM_NAMED[0]; i++) json_object_set_new(o, HS_MEM_NAMED[i], json_null());
  json_object_set_new(o, "figures", json_array());
  json_object_set_new(o, "device_ordinal", json_null()); /* the device's number where printed: not bytes */
  json_object_set_new(o, "cause", json_null());
  json_object_set_new(o, "lacks", json_null());
  return o;
}

void hs_mem_warn(hs_mem_diag *w, const char *t, size_t len, size_t off, int code, const char *fmt, ...) {
  uint32_t line = 0, col = 0;
  if (t) hs_line_col(t, len, off > len ? len : off, &line, &col);
  va_list ap;
  va_start(ap, fmt);
  hs_diag_vwarn(&w->diag, &w->arena, code, line, col, fmt, ap);
  va_end(ap);
}

char *hs_mem_finish(json_t *res, hs_mem_diag *w, size_t *out_len) {
  json_object_set_new(res, "warnings", hs_diag_json(&w->diag));
  hs_diag_free(&w->diag);
  hs_arena_free(&w->arena);
  return hs_json_finish(res, out_len);
}

json_t *hs_mem_alloc(int rank, uint64_t bytes) {
  json_t *a = json_object();
  json_object_set_new(a, "rank", json_integer(rank));
  json_object_set_new(a, "bytes", json_integer((json_int_t)bytes));
  json_object_set_new(a, "shape", json_null());
  json_object_set_new(a, "label", json_null());
  json_object_set_new(a, "op_name", json_null());
  json_object_set_new(a, "source", json_null());
  json_object_set_new(a, "kind", json_null());
  return a;
}

void hs_mem_human(uint64_t b, char *buf, size_t cap) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (b < 1024) {
    snprintf(buf, cap, "%llu B", (unsigned long long)b);
    return;
  }
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  snprintf(buf, cap, "%.2f %s", v, units[u]);
}

typedef struct {
  json_t *a;
  json_int_t bytes;
  size_t pos;
} ranked;

/* Largest first; equal sizes keep the text's order (a stable sort, the same on every libc). */
static int by_bytes(const void *x, const void *y) {
  const ranked *a = x, *b = y;
  if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void hs_mem_rank(json_t *arr) {
  size_t n = json_array_size(arr);
  if (!n) return;
  ranked *v = malloc(n * sizeof *v);
  if (!v) return;
  for (size_t i = 0; i < n; i++) {
    v[i].a = json_incref(json_array_get(arr, i));
    v[i].bytes = json_integer_value(json_object_get(v[i].a, "bytes"));
    v[i].pos = i;
  }
  qsort(v, n, sizeof *v, by_bytes);
  json_array_clear(arr);
  for (size_t i = 0; i < n; i++) {
    json_object_set_new(v[i].a, "rank", json_integer((json_int_t)i + 1));
    json_array_append_new(arr, v[i].a);
  }
  free(v);
}

/* ---- the flat copy and its matcher --------------------------------------------------------- */
typedef struct {
  const char *t; /* original */
  size_t len;
  char *f; /* flat: the original without \r and \n */
  size_t n;
  uint32_t *map; /* flat offset -> original offset */
  uint8_t *brk;  /* brk[i]: a line break was removed just before flat offset i */
  pcre2_match_data *md;
  json_t *res;
  hs_mem_diag w;
  uint8_t *cov; /* cov[i]: flat byte i is part of a figure recorded (a general scan adds the rest) */
  size_t *starts, n_starts; /* the original text's line starts (the figures' lines) */
} mctx;

#define SZ "([0-9][0-9.,]*\\s*(?:[KMGTP]i?B?|B|\\s?bytes)?)"

/* Matches `pat` in the flat text from `from`; fills ov[0..2*k) with offsets; returns the
 * number of captures + 1, or 0 when it does not match. */
static int rx(mctx *m, const char *pat, size_t from, size_t to, PCRE2_SIZE *ov, int k) {
  int code;
  PCRE2_SIZE at;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &code, &at, NULL);
  if (!re || from > to || to > m->n) {
    pcre2_code_free(re);
    return 0;
  }
  int rc = pcre2_match(re, (PCRE2_SPTR)m->f, to, from, 0, m->md, NULL);
  pcre2_code_free(re);
  if (rc <= 0) return 0;
  PCRE2_SIZE *o = pcre2_get_ovector_pointer(m->md);
  for (int i = 0; i < 2 * k; i++) ov[i] = i < 2 * rc ? o[i] : PCRE2_UNSET;
  return rc;
}

static bool cap_ok(const PCRE2_SIZE *ov, int i) { return ov[2 * i] != PCRE2_UNSET; }

static uint64_t cap_size(mctx *m, const PCRE2_SIZE *ov, int i) {
  uint64_t b = 0;
  if (!cap_ok(ov, i)) return 0;
  /* a size the wrap split keeps its spaces out: "63.8" "0G" joined already; drop inner spaces */
  char tmp[64];
  size_t k = 0;
  for (size_t p = ov[2 * i]; p < ov[2 * i + 1] && k + 1 < sizeof tmp; p++)
    if (m->f[p] != ' ' && m->f[p] != '\t') tmp[k++] = m->f[p];
  tmp[k] = 0;
  hs_parse_size(tmp, k, 0, &b);
  return b;
}

static size_t orig(mctx *m, size_t flat);

/* One figure as printed: its name, bytes, the printed text (flat [a, b)) and its line; once per span. */
static void figure(mctx *m, const char *name, size_t a, size_t b, uint64_t bytes) {
  /* once per span: the flat bytes a figure covers are marked (linear in the text, however many) */
  if (!m->cov && !(m->cov = calloc(m->n + 1, 1))) return;
  if (b > m->n) b = m->n;
  if (a >= b) return;
  for (size_t i = a; i < b; i++)
    if (m->cov[i]) return; /* already there (a wider span holds it) */
  memset(m->cov + a, 1, b - a);
  while (a < b && isspace((unsigned char)m->f[a])) a++;
  while (b > a && isspace((unsigned char)m->f[b - 1])) b--;
  /* the line: line starts of the original text, found once, then a binary search */
  if (!m->starts) {
    size_t k = 1;
    for (size_t i = 0; i < m->len; i++) k += m->t[i] == '\n';
    if (!(m->starts = malloc(k * sizeof *m->starts))) return;
    m->n_starts = 0;
    m->starts[m->n_starts++] = 0;
    for (size_t i = 0; i < m->len; i++)
      if (m->t[i] == '\n') m->starts[m->n_starts++] = i + 1;
  }
  size_t at = orig(m, a), lo = 0, hi = m->n_starts;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (m->starts[mid] <= at) lo = mid;
    else hi = mid;
  }
  size_t line = lo + 1;
  json_t *f = json_object();
  json_object_set_new(f, "name", json_string(name));
  json_object_set_new(f, "bytes", json_integer((json_int_t)bytes));
  json_object_set_new(f, "printed", hs_json_bytes(m->f + a, b - a));
  json_object_set_new(f, "line", json_integer(line));
  json_array_append_new(json_object_get(m->res, "figures"), f);
}

/* The figure's name: the key without "_bytes" */
static void figure_cap(mctx *m, const char *key, const PCRE2_SIZE *ov, int i, uint64_t v) {
  char name[64];
  size_t n = strlen(key);
  if (n > 6 && strcmp(key + n - 6, "_bytes") == 0) n -= 6;
  snprintf(name, sizeof name, "%.*s", (int)n, key);
  figure(m, name, ov[2 * i], ov[2 * i + 1], v);
}

static void set_size(mctx *m, const char *key, const PCRE2_SIZE *ov, int i) {
  if (!cap_ok(ov, i)) return;
  uint64_t v = cap_size(m, ov, i);
  json_object_set_new(m->res, key, json_integer((json_int_t)v));
  figure_cap(m, key, ov, i, v);
}

/* A figure printed rounded and then exact, "3.95G (4,237,689,856 bytes)": the exact bytes (capture
 * j) under one figure spanning both. */
static void set_size_exact(mctx *m, const char *key, const PCRE2_SIZE *ov, int i, int j) {
  if (!cap_ok(ov, i)) return;
  if (!cap_ok(ov, j)) {
    set_size(m, key, ov, i);
    return;
  }
  uint64_t v = cap_size(m, ov, j);
  json_object_set_new(m->res, key, json_integer((json_int_t)v));
  char name[64];
  size_t n = strlen(key);
  if (n > 6 && strcmp(key + n - 6, "_bytes") == 0) n -= 6;
  snprintf(name, sizeof name, "%.*s", (int)n, key);
  size_t b = ov[2 * j + 1], q = b;
  while (q < m->n && q - b < 8 && m->f[q] != ')') q++; /* "(337385120B)", "(4,237,689,856 bytes)" */
  if (q < m->n && m->f[q] == ')') b = q + 1;
  figure(m, name, ov[2 * i], b, v);
}

static void total_cap(mctx *m, const char *key, const PCRE2_SIZE *ov, int i) {
  uint64_t v = cap_size(m, ov, i);
  json_object_set_new(json_object_get(m->res, "totals"), key, json_integer((json_int_t)v));
  figure_cap(m, key, ov, i, v);
}

static json_t *cap_str(mctx *m, const PCRE2_SIZE *ov, int i) {
  if (!cap_ok(ov, i)) return json_null();
  size_t a = ov[2 * i], b = ov[2 * i + 1];
  while (a < b && isspace((unsigned char)m->f[a])) a++;
  while (b > a && isspace((unsigned char)m->f[b - 1])) b--;
  return hs_json_bytes(m->f + a, b - a);
}

/* A name cannot continue over a line break: "...residuals.1" + "Scoped allocation" */
static void cut_at_break(mctx *m, PCRE2_SIZE *ov, int i) {
  if (!cap_ok(ov, i)) return;
  for (size_t p = ov[2 * i] + 1; p < ov[2 * i + 1]; p++)
    if (m->brk[p]) {
      ov[2 * i + 1] = p;
      return;
    }
}

static json_t *lower_str(mctx *m, PCRE2_SIZE *ov, int i) {
  char tmp[32];
  size_t k = 0;
  cut_at_break(m, ov, i);
  for (size_t p = ov[2 * i]; p < ov[2 * i + 1] && k + 1 < sizeof tmp; p++) tmp[k++] = (char)tolower((unsigned char)m->f[p]);
  tmp[k] = 0;
  return json_string(tmp);
}

static size_t orig(mctx *m, size_t flat) { return flat < m->n ? m->map[flat] : m->len; }


/* ---- list entries ---------------------------------------------------------------------------- */
static const char *const FIELDS[] = {"Size:", "Operator:", "Shape:", "Unpadded size:", "Extra memory due to padding:",
                                     "XLA label:", "XLA Label:", "Allocation type:", "Entry Parameter Subshape:",
                                     "=========="};
enum { F_SIZE, F_OP, F_SHAPE, F_UNPADDED, F_PADDING, F_LABEL, F_LABEL2, F_TYPE, F_PARAM, F_RULE, F_COUNT };

typedef struct {
  size_t at[F_COUNT], vs[F_COUNT], ve[F_COUNT]; /* keyword offset, value start/end; at = SIZE_MAX if absent */
} fields;

static void find_fields(mctx *m, size_t a, size_t b, fields *fl) {
  for (int k = 0; k < F_COUNT; k++) fl->at[k] = SIZE_MAX;
  for (size_t p = a; p < b; p++) {
    for (int k = 0; k < F_COUNT; k++) {
      size_t n = strlen(FIELDS[k]);
      if (fl->at[k] == SIZE_MAX && b - p >= n && memcmp(m->f + p, FIELDS[k], n) == 0) {
        /* "Size:" inside "Unpadded size:" is lower case; a field name starts after a space */
        if (k == F_SIZE && p > a && m->f[p - 1] != ' ' && m->f[p - 1] != '\t' && m->f[p - 1] != ':') continue;
        fl->at[k] = p;
        fl->vs[k] = p + n;
      }
    }
  }
  for (int k = 0; k < F_COUNT; k++) {
    if (fl->at[k] == SIZE_MAX) continue;
    size_t e = b;
    for (int j = 0; j < F_COUNT; j++)
      if (fl->at[j] != SIZE_MAX && fl->at[j] >= fl->vs[k] && fl->at[j] < e) e = fl->at[j];
    fl->ve[k] = e;
  }
}

static json_t *field_str(mctx *m, const fields *fl, int k) {
  if (fl->at[k] == SIZE_MAX) return json_null();
  size_t a = fl->vs[k], b = fl->ve[k];
  while (a < b && isspace((unsigned char)m->f[a])) a++;
  while (b > a && isspace((unsigned char)m->f[b - 1])) b--;
  return a < b ? hs_json_bytes(m->f + a, b - a) : json_null();
}

static void figure(mctx *m, const char *name, size_t a, size_t b, uint64_t bytes);

static uint64_t field_size(mctx *m, const fields *fl, int k, bool *ok, const char *name) {
  uint64_t v = 0;
  *ok = false;
  if (fl->at[k] == SIZE_MAX) return 0;
  size_t p = fl->vs[k];
  while (p < fl->ve[k] && isspace((unsigned char)m->f[p])) p++;
  size_t q = hs_parse_size(m->f, fl->ve[k], p, &v);
  if (q) {
    *ok = true;
    figure(m, name, p, q, v);
  }
  return v;
}

/* op_name="..." and source_file="..." source_line=N inside an Operator: or metadata text. */
static void operator_fields(mctx *m, size_t a, size_t b, json_t *alloc) {
  PCRE2_SIZE ov[8];
  if (a >= b) return;
  if (rx(m, "op_name=\"((?:[^\"\\\\]|\\\\.)*)\"?", a, b, ov, 2)) json_object_set_new(alloc, "op_name", cap_str(m, ov, 1));
  else if (rx(m, "op_type=\"((?:[^\"\\\\]|\\\\.)*)\"", a, b, ov, 2)) json_object_set_new(alloc, "op_name", cap_str(m, ov, 1));
  if (rx(m, "source_file=\"([^\"]*)\"\\s*source_line=(\\d+)", a, b, ov, 3)) {
    size_t fa = ov[2], fb = ov[3], la = ov[4], lb = ov[5];
    /* the file's last path component keeps the source short: model.py:3 */
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s:%.*s", (int)(fb - fa), m->f + fa, (int)(lb - la), m->f + la);
    json_object_set_new(alloc, "source", hs_json_bytes(buf, strlen(buf)));
  }
}

/* Entries start at `re` (capture 1 = the printed number); each runs to the next. */
static int read_entries(mctx *m, const char *re, size_t from, const char *what) {
  json_t *arr = json_object_get(m->res, "allocations");
  PCRE2_SIZE ov[6];
  size_t cap = 64, *nums = malloc(cap * sizeof *nums), *heads = malloc(cap * sizeof *heads);
  int n = 0;
  size_t p = from;
  while (nums && heads && rx(m, re, p, m->n, ov, 2)) {
    if ((size_t)n == cap) {
      size_t *a = realloc(nums, cap * 2 * sizeof *nums), *b = a ? realloc(heads, cap * 2 * sizeof *heads) : NULL;
      if (a) nums = a;
      if (!a || !b) break;
      heads = b;
      cap *= 2;
    }
    heads[n] = ov[0];
    nums[n] = (size_t)strtoul(m->f + ov[2], NULL, 10);
    n++;
    p = ov[1];
  }
  if (n && nums[0] > 1)
    hs_mem_warn(&m->w, m->t, m->len, orig(m, heads[0]), HS_W_PARTIAL_FORMAT,
                "the %s list begins at entry %zu: the entries before it were not pasted", what, nums[0]);
  if (n && heads[0] > from) {
    /* text before the first entry that holds entry fields: the paste began mid-list */
    fields pre;
    find_fields(m, from, heads[0], &pre);
    if (pre.at[F_LABEL] != SIZE_MAX || pre.at[F_TYPE] != SIZE_MAX || pre.at[F_SIZE] != SIZE_MAX || pre.at[F_PARAM] != SIZE_MAX)
      hs_mem_warn(&m->w, m->t, m->len, orig(m, from), HS_W_PARTIAL_FORMAT,
                  "the %s list begins mid-entry: the fields before entry %zu belong to an earlier entry and are left out", what,
                  nums[0]);
  }
  for (int i = 0; i < n; i++) {
    size_t a = heads[i], b = i + 1 < n ? heads[i + 1] : m->n;
    fields fl;
    find_fields(m, a, b, &fl);
    bool ok;
    uint64_t bytes = field_size(m, &fl, F_SIZE, &ok, "allocation");
    json_t *al = hs_mem_alloc((int)nums[i], bytes);
    json_object_set_new(al, "shape", field_str(m, &fl, fl.at[F_SHAPE] != SIZE_MAX ? F_SHAPE : F_PARAM));
    json_t *lab = field_str(m, &fl, fl.at[F_LABEL] != SIZE_MAX ? F_LABEL : F_LABEL2);
    json_object_set_new(al, "label", lab);
    if (fl.at[F_OP] != SIZE_MAX) operator_fields(m, fl.vs[F_OP], fl.ve[F_OP], al);
    json_t *kind = field_str(m, &fl, F_TYPE);
    if (json_is_null(kind) && fl.at[F_PARAM] != SIZE_MAX) {
      json_decref(kind);
      kind = json_string("parameter");
    }
    json_object_set_new(al, "kind", kind);
    bool uok, pok;
    uint64_t unp = field_size(m, &fl, F_UNPADDED, &uok, "allocation_unpadded"),
             pad = field_size(m, &fl, F_PADDING, &pok, "allocation_padding");
    if (uok) json_object_set_new(al, "unpadded_bytes", json_integer((json_int_t)unp));
    if (pok) json_object_set_new(al, "padding_bytes", json_integer((json_int_t)pad));
    json_array_append_new(arr, al);
    if (!ok || (i + 1 == n && fl.at[F_RULE] == SIZE_MAX)) {
      /* the last entry has no closing rule: the paste was cut inside it */
      hs_mem_warn(&m->w, m->t, m->len, orig(m, a), HS_W_TRUNCATED,
                  "the %s list was cut short inside entry %zu: its size%s may be incomplete; %d entr%s read", what, nums[i],
                  ok ? " and fields" : "", n, n == 1 ? "y" : "ies");
    }
  }
  free(nums);
  free(heads);
  return n;
}

/* ---- the message kinds ---------------------------------------------------------------------- */
static bool tpu_compile(mctx *m) {
  PCRE2_SIZE ov[16];
  bool any = false;
  if (rx(m, "Ran\\s*out\\s*of\\s*memory\\s*in\\s*memory\\s*space\\s*([A-Za-z0-9_]+)", 0, m->n, ov, 2)) {
    json_object_set_new(m->res, "memory_space", lower_str(m, ov, 1));
    any = true;
    size_t after = ov[1];
    if (rx(m, "Used\\s*" SZ "\\s*of\\s*" SZ, after, m->n, ov, 3)) {
      set_size(m, "used_bytes", ov, 1);
      set_size(m, "capacity_bytes", ov, 2);
    }
    if (rx(m, "Exceeded\\s*[A-Za-z0-9_]+\\s*capacity\\s*by\\s*" SZ, after, m->n, ov, 2)) set_size(m, "exceeded_bytes", ov, 1);
  }
  if (rx(m, "Scoped\\s*allocation\\s*with\\s*size\\s*" SZ "\\s*and\\s*limit\\s*" SZ "\\s*exceeded\\s*scoped\\s*([A-Za-z]+)\\s*limit\\s*by\\s*" SZ,
         0, m->n, ov, 5)) {
    any = true;
    set_size(m, "requested_bytes", ov, 1);
    set_size(m, "capacity_bytes", ov, 2);
    set_size(m, "exceeded_bytes", ov, 4);
    if (json_is_null(json_object_get(m->res, "memory_space"))) json_object_set_new(m->res, "memory_space", lower_str(m, ov, 3));
    total_cap(m, "scoped_limit", ov, 2);
    json_t *al = hs_mem_alloc(1, cap_size(m, ov, 1));
    json_object_set_new(al, "kind", json_string("scoped"));
    PCRE2_SIZE o2[8];
    if (rx(m, "for\\s*%([A-Za-z0-9_.\\-]+)(?:\\s*=\\s*([a-z0-9]+\\[[0-9,<=?]*\\](?:\\{[^}]*\\})?))?", 0, m->n, o2, 3)) {
      cut_at_break(m, o2, 1);
      json_object_set_new(al, "label", cap_str(m, o2, 1));
      json_object_set_new(al, "shape", cap_str(m, o2, 2));
    }
    json_array_append_new(json_object_get(m->res, "allocations"), al);
  }
  if (rx(m, "Ran\\s*out\\s*of\\s*memory\\s*on\\s*([A-Za-z]+),\\s*the\\s*total\\s*memory\\s*required\\s*for\\s*HLO\\s*temporaries\\s*\\(" SZ
            "\\)\\s*exceeds\\s*available\\s*[A-Za-z]+\\s*\\(" SZ "\\)",
         0, m->n, ov, 4)) {
    any = true;
    json_object_set_new(m->res, "memory_space", lower_str(m, ov, 1));
    set_size(m, "requested_bytes", ov, 2);
    set_size(m, "capacity_bytes", ov, 3);
    total_cap(m, "hlo_temp", ov, 2);
  }
  /* XLA's E1000/E1002 form: "TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G,
   * exceeding available bytes: 95.74G" */
  if (rx(m, "TensorCore\\s*Hbm\\s*usage:?\\s*" SZ ",?\\s*SparseCore\\s*Hbm\\s*usage:?\\s*" SZ
            "(?:,?\\s*exceeding\\s*available\\s*bytes:?\\s*" SZ ")?",
         0, m->n, ov, 4)) {
    any = true;
    json_object_set_new(m->res, "memory_space", json_string("hbm"));
    set_size(m, "tensorcore_bytes", ov, 1);
    set_size(m, "sparsecore_bytes", ov, 2);
    uint64_t used = cap_size(m, ov, 1) + cap_size(m, ov, 2);
    json_object_set_new(m->res, "used_bytes", json_integer((json_int_t)used));
    if (cap_ok(ov, 3)) {
      set_size(m, "capacity_bytes", ov, 3);
      uint64_t c = cap_size(m, ov, 3);
      json_object_set_new(m->res, "exceeded_bytes", json_integer((json_int_t)(used > c ? used - c : 0)));
    } else {
      hs_mem_warn(&m->w, m->t, m->len, orig(m, ov[1]), HS_W_TRUNCATED,
                  "the SparseCore message was cut before \"exceeding available bytes\": the capacity is not known");
    }
  }
  if (!any) {
    /* a paste of the allocation list alone */
    if (!rx(m, "(?<![0-9.])[0-9]+\\.\\s*Size:", 0, m->n, ov, 1) || !rx(m, "XLA label:|Allocation type:", 0, m->n, ov, 1)) return false;
    hs_mem_warn(&m->w, m->t, m->len, 0, HS_W_PARTIAL_FORMAT,
                "no headline: the paste holds part of XLA:TPU's \"Largest program allocations\" list without the sentence "
                "that says how much memory there is");
  }
  json_object_set_new(m->res, "backend", json_string("tpu"));
  if (rx(m, "Total\\s*[A-Za-z]+\\s*usage\\s*>=\\s*" SZ ":", 0, m->n, ov, 2)) {
    total_cap(m, "total_usage", ov, 1);
    size_t a = ov[1];
    size_t lim = m->n;
    PCRE2_SIZE o2[4];
    if (rx(m, "Output\\s*size|Program\\s*[A-Za-z]+\\s*requirement", a, m->n, o2, 1)) lim = o2[0];
    if (rx(m, "reserved\\s*" SZ, a, lim, ov, 2)) total_cap(m, "reserved", ov, 1);
    if (rx(m, "program\\s*" SZ, a, lim, ov, 2)) total_cap(m, "program", ov, 1);
    if (rx(m, "arguments\\s*" SZ, a, lim, ov, 2)) total_cap(m, "arguments", ov, 1);
  }
  if (rx(m, "Output\\s*size\\s*" SZ ";\\s*shares\\s*" SZ "\\s*with\\s*arguments", 0, m->n, ov, 3)) {
    total_cap(m, "output", ov, 1);
    total_cap(m, "output_shared_with_arguments", ov, 2);
  }
  if (rx(m, "Program\\s*[A-Za-z]+\\s*requirement\\s*" SZ ":", 0, m->n, ov, 2)) {
    total_cap(m, "program_requirement", ov, 1);
    size_t a = ov[1], lim = m->n;
    PCRE2_SIZE o2[4];
    if (rx(m, "Largest\\s*program\\s*allocations", a, m->n, o2, 1)) lim = o2[0];
    if (rx(m, "global\\s*" SZ, a, lim, ov, 2)) total_cap(m, "global", ov, 1);
    if (rx(m, "scoped\\s*" SZ, a, lim, ov, 2)) total_cap(m, "scoped", ov, 1);
    if (rx(m, "HLO\\s*temp\\s*" SZ, a, lim, ov, 2)) total_cap(m, "hlo_temp", ov, 1);
    if (rx(m, "Unpadded\\s*\\(" SZ "\\)\\s*Padded\\s*\\(" SZ "\\)", a, lim, ov, 3)) {
      total_cap(m, "hlo_temp_unpadded", ov, 1);
      total_cap(m, "hlo_temp_padded", ov, 2);
    }
    if (rx(m, "fragmentation\\s*\\(" SZ "\\)", a, lim, ov, 2)) total_cap(m, "fragmentation", ov, 1);
  }
  size_t from = 0;
  if (rx(m, "Largest\\s*program\\s*allocations\\s*in\\s*[A-Za-z0-9_]+:", 0, m->n, ov, 1)) from = ov[1];
  read_entries(m, "(?<![0-9.])([0-9]+)\\.\\s*Size:", from, "largest program allocations");
  return true;
}

static bool tpu_runtime(mctx *m) {
  PCRE2_SIZE ov[12];
  if (rx(m, "Allocation\\s*\\(size=([0-9]+)\\)\\s*would\\s*exceed\\s*memory\\s*\\(size=([0-9]+)\\)", 0, m->n, ov, 3)) {
    set_size(m, "requested_bytes", ov, 1);
    set_size(m, "capacity_bytes", ov, 2);
    json_object_set_new(m->res, "backend", json_string("tpu"));
    json_t *al = hs_mem_alloc(1, cap_size(m, ov, 1));
    size_t after = ov[1];
    if (rx(m, "#allocation([0-9]+)\\s*\\[\\s*shape\\s*=\\s*'([^']*)',\\s*space\\s*=\\s*([A-Za-z0-9_]+),\\s*size\\s*=\\s*([0-9a-fA-Fx]+)"
              "(?:,\\s*tag\\s*=\\s*'([^']*)')?",
           after, m->n, ov, 6)) {
      json_object_set_new(al, "shape", cap_str(m, ov, 2));
      json_object_set_new(m->res, "memory_space", lower_str(m, ov, 3));
      json_object_set_new(al, "label", cap_ok(ov, 5) ? cap_str(m, ov, 5) : json_null());
      char num[32];
      size_t k = ov[9] - ov[8] < sizeof num - 1 ? ov[9] - ov[8] : sizeof num - 1;
      memcpy(num, m->f + ov[8], k);
      num[k] = 0;
      unsigned long long sz = strtoull(num, NULL, 0);
      json_object_set_new(al, "kind", json_string("runtime"));
      json_object_set_new(al, "allocation_size", sz == ~0ull ? json_null() : json_integer((json_int_t)sz));
      if (!cap_ok(ov, 5))
        hs_mem_warn(&m->w, m->t, m->len, orig(m, ov[1]), HS_W_TRUNCATED, "the allocation's description was cut short");
    }
    json_array_append_new(json_object_get(m->res, "allocations"), al);
    return true;
  }
  if (rx(m, "Currently\\s*allocated:?\\s*" SZ, 0, m->n, ov, 2)) {
    /* the runtime's table (PyTorch/XLA on TPU): "HBM capacity 8.00G", "Currently allocated:
     * 6.08G", "Program requirement: 3.95G (4,237,689,856 bytes)" */
    set_size(m, "allocated_bytes", ov, 1);
    json_object_set_new(m->res, "backend", json_string("tpu"));
    if (rx(m, "(HBM|hbm)\\s*capacity:?\\s*" SZ, 0, m->n, ov, 3)) {
      set_size(m, "capacity_bytes", ov, 2);
      json_object_set_new(m->res, "memory_space", json_string("hbm"));
    }
    if (rx(m, "Program\\s*requirement:?\\s*" SZ "(?:\\s*\\(\\s*([0-9][0-9,]*)\\s*bytes\\s*\\))?", 0, m->n, ov, 3)) {
      set_size_exact(m, "program_bytes", ov, 1, 2);
      json_object_set_new(m->res, "requested_bytes", json_incref(json_object_get(m->res, "program_bytes")));
    }
    if (rx(m, "(?:Largest|largest)\\s*free\\s*block:?\\s*" SZ, 0, m->n, ov, 2)) set_size(m, "largest_free_bytes", ov, 1);
    return true;
  }
  if (rx(m, "Attempting\\s*to\\s*allocate\\s*" SZ "\\.?\\s*That\\s*was\\s*not\\s*possible", 0, m->n, ov, 2)) {
    /* "Attempting to allocate 31.06M. That was not possible. There are 58.64M free. Due to
     * fragmentation, the largest contiguous region of free memory is 30.56M." */
    set_size(m, "requested_bytes", ov, 1);
    json_object_set_new(m->res, "backend", json_string("tpu"));
    size_t after = ov[1];
    if (rx(m, "There\\s*(?:are|is)\\s*" SZ "\\s*free", after, m->n, ov, 2)) set_size(m, "free_bytes", ov, 1);
    if (rx(m, "largest\\s*contiguous\\s*region\\s*of\\s*free\\s*memory\\s*is\\s*" SZ, after, m->n, ov, 2))
      set_size(m, "largest_free_bytes", ov, 1);
    if (rx(m, "_(HBM)[0-9]*\\)|\\b(HBM|hbm)\\b", 0, m->n, ov, 1)) json_object_set_new(m->res, "memory_space", json_string("hbm"));
    return true;
  }
  if (rx(m, "Attempting\\s*to\\s*reserve\\s*" SZ "\\s*at\\s*the\\s*bottom\\s*of\\s*memory", 0, m->n, ov, 2)) {
    set_size(m, "requested_bytes", ov, 1);
    json_object_set_new(m->res, "backend", json_string("tpu"));
    if (rx(m, "There\\s*are\\s*" SZ "\\s*free,\\s*" SZ "\\s*reserved,\\s*and\\s*" SZ "\\s*reservable", 0, m->n, ov, 4)) {
      total_cap(m, "free", ov, 1);
      total_cap(m, "reserved", ov, 2);
      total_cap(m, "reservable", ov, 3);
    }
    if (rx(m, "(HBM|hbm)\\s*capacity", 0, m->n, ov, 2)) json_object_set_new(m->res, "memory_space", json_string("hbm"));
    /* the program being loaded is what asked for the memory (XLA error E0101) */
    PCRE2_SIZE o2[4];
    if (rx(m, "Error\\s*loading\\s*program\\s*'([^']*)'", 0, m->n, o2, 2)) {
      json_t *al = hs_mem_alloc(1, (uint64_t)json_integer_value(json_object_get(m->res, "requested_bytes")));
      json_object_set_new(al, "label", cap_str(m, o2, 1));
      json_object_set_new(al, "kind", json_string("program"));
      json_array_append_new(json_object_get(m->res, "allocations"), al);
    }
    return true;
  }
  return false;
}

static bool gpu(mctx *m) {
  PCRE2_SIZE ov[8];
  bool any = false;
  if (rx(m, "Out\\s*of\\s*memory\\s*while\\s*trying\\s*to\\s*allocate\\s*" SZ, 0, m->n, ov, 2)) {
    set_size(m, "requested_bytes", ov, 1);
    any = true;
  } else if (rx(m, "Allocator\\s*\\(GPU_[0-9]+_bfc\\)\\s*ran\\s*out\\s*of\\s*memory\\s*trying\\s*to\\s*allocate\\s*" SZ
                   "(?:\\s*\\(\\s*rounded\\s*to\\s*([0-9]+)\\s*\\))?",
                0, m->n, ov, 3)) {
    /* the BFC allocator's log line: "... trying to allocate 1.25TiB (rounded to 1374521760000)" */
    set_size_exact(m, "requested_bytes", ov, 1, 2);
    any = true;
  }
  if (rx(m, "BufferAssignment\\s*stats:", 0, m->n, ov, 1)) {
    any = true;
    static const char *const names[][2] = {{"parameter\\s*allocation:\\s*" SZ, "parameter"},
                                           {"constant\\s*allocation:\\s*" SZ, "constant"},
                                           {"maybe_live_out\\s*allocation:\\s*" SZ, "maybe_live_out"},
                                           {"preallocated\\s*temp\\s*allocation:\\s*" SZ, "preallocated_temp"},
                                           {"preallocated\\s*temp\\s*fragmentation:\\s*" SZ, "preallocated_temp_fragmentation"},
                                           {"total\\s*allocation:\\s*" SZ, "total"},
                                           {"total\\s*fragmentation:\\s*" SZ, "fragmentation"}};
    size_t a = ov[1];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      PCRE2_SIZE o2[4];
      if (rx(m, names[i][0], a, m->n, o2, 2)) total_cap(m, names[i][1], o2, 1);
    }
    json_t *t = json_object_get(json_object_get(m->res, "totals"), "total");
    if (t) json_object_set_new(m->res, "used_bytes", json_incref(t));
  }
  /* XLA:GPU's scheduler: "The byte size of input/output arguments (N) exceeds the base limit (M)":
   * M is the memory XLA may use, what jax's preallocation left it */
  if (any && rx(m, "arguments\\s*\\(([0-9]+)\\)\\s*exceeds\\s*the\\s*base\\s*limit\\s*\\(([0-9]+)\\)", 0, m->n, ov, 3)) {
    total_cap(m, "arguments", ov, 1);
    total_cap(m, "base_limit", ov, 2);
  }
  size_t from = 0;
  if (rx(m, "Peak\\s*buffers:", 0, m->n, ov, 1)) {
    from = ov[1];
    any = true;
  }
  bool headline = any;
  int n = read_entries(m, "Buffer\\s*([0-9]+):(?=\\s*Size:)", from, "peak buffers");
  if (n) any = true;
  if (n && !headline)
    hs_mem_warn(&m->w, m->t, m->len, 0, HS_W_PARTIAL_FORMAT,
                "no headline: the paste holds part of XLA:GPU's \"Peak buffers\" list without the \"Out of memory while "
                "trying to allocate\" sentence");
  if (any) json_object_set_new(m->res, "backend", json_string("gpu"));
  return any;
}

static bool allocator(mctx *m) {
  PCRE2_SIZE ov[8];
  if (rx(m, "Failed\\s*to\\s*allocate\\s*request\\s*for\\s*" SZ "\\s*(?:\\(\\s*([0-9]+)\\s*B\\s*\\))?\\s*on\\s*device\\s*ordinal\\s*([0-9]+)", 0,
         m->n, ov, 4)) {
    set_size_exact(m, "requested_bytes", ov, 1, 2);
    /* the device's number, not a size */
    json_object_set_new(m->res, "device_ordinal", json_integer(strtol(m->f + ov[6], NULL, 10)));
    return true;
  }
  if (rx(m, "Out\\s*of\\s*memory\\s*allocating\\s*" SZ, 0, m->n, ov, 2)) {
    set_size(m, "requested_bytes", ov, 1);
    return true;
  }
  return false;
}

/* ---- every figure, the named keys ---------------------------------------------------------- */
/* A size as XLA and the runtimes print them: "41.74G", "528.00M", "4.0K", "0B", "3.37GiB",
 * "3199993600 bytes", "1.25TiB" (a number glued to a word or a version is none). */
#define ANY_SIZE "(?<![A-Za-z0-9_.,:])([0-9][0-9,]*(?:\\.[0-9]+)?(?:[KMGTP]i?B?|B|\\s?bytes))(?![A-Za-z0-9_])"

/* The figures the message kinds did not name (list entries aside, already there): each gets the
 * word before it as its name ("allocate 3.37GiB" -> "allocate"). */
static void scan_figures(mctx *m) {
  int code;
  PCRE2_SIZE erroff;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)ANY_SIZE, PCRE2_ZERO_TERMINATED, 0, &code, &erroff, NULL);
  if (!re) return;
  size_t p = 0;
  while (p < m->n && pcre2_match(re, (PCRE2_SPTR)m->f, m->n, p, 0, m->md, NULL) > 1) {
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    size_t a = ov[2], b = ov[3];
    p = ov[1] > p ? ov[1] : p + 1;
    uint64_t v = 0;
    char tmp[64];
    size_t k = 0;
    for (size_t q = a; q < b && k + 1 < sizeof tmp; q++) tmp[k++] = m->f[q];
    tmp[k] = 0;
    if (!hs_parse_size(tmp, k, 0, &v)) continue;
    char name[40] = "figure";
    size_t e = a;
    while (e > 0 && !isalpha((unsigned char)m->f[e - 1])) e--;
    size_t w = e;
    while (w > 0 && (isalpha((unsigned char)m->f[w - 1]) || m->f[w - 1] == '_')) w--;
    if (e > w && e - w < sizeof name && a - e < 8) {
      for (size_t q = w; q < e; q++) name[q - w] = (char)tolower((unsigned char)m->f[q]);
      name[e - w] = 0;
    }
    figure(m, name, a, b, v);
  }
  pcre2_code_free(re);
}

/* The named keys a message's totals hold, where the kind did not set them. */
static void named_from_totals(mctx *m) {
  static const char *const map[][2] = {{"reserved_bytes", "reserved"},       {"free_bytes", "free"},
                                       {"program_bytes", "program_requirement"}, {"program_bytes", "program"},
                                       {"arguments_bytes", "arguments"},     {"output_bytes", "output"}};
  json_t *t = json_object_get(m->res, "totals");
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    json_t *v = json_object_get(t, map[i][1]);
    if (v && json_is_null(json_object_get(m->res, map[i][0]))) json_object_set_new(m->res, map[i][0], json_incref(v));
  }
}

/* ---- explanation ---------------------------------------------------------------------------- */
static uint64_t geti(json_t *o, const char *k) { return (uint64_t)json_integer_value(json_object_get(o, k)); }

static void explain(mctx *m, const char *code) {
  json_t *r = m->res;
  char out[2048], a[32], b[32], c[32];
  size_t o = 0;
#define OUT(...) (o += (size_t)snprintf(out + o, o < sizeof out ? sizeof out - o : 0, __VA_ARGS__), o = o < sizeof out ? o : sizeof out - 1)
  const char *ms = json_string_value(json_object_get(r, "memory_space"));
  const char *be = json_string_value(json_object_get(r, "backend"));
  json_t *used = json_object_get(r, "used_bytes"), *cap = json_object_get(r, "capacity_bytes");
  json_t *req = json_object_get(r, "requested_bytes"), *exc = json_object_get(r, "exceeded_bytes");
  if (code) OUT("XLA error %s. ", code);
  if (json_is_integer(cap) && (json_is_integer(used) || json_is_integer(req))) {
    uint64_t need = json_is_integer(used) ? geti(r, "used_bytes") : geti(r, "requested_bytes");
    hs_mem_human(need, a, sizeof a);
    hs_mem_human(geti(r, "capacity_bytes"), b, sizeof b);
    uint64_t over = json_is_integer(exc) ? geti(r, "exceeded_bytes") : (need > geti(r, "capacity_bytes") ? need - geti(r, "capacity_bytes") : 0);
    hs_mem_human(over, c, sizeof c);
    char where[64];
    snprintf(where, sizeof where, "%s%s%s", be ? be : "", be ? " " : "", ms ? ms : "memory");
    for (char *w = where; be && *w && *w != ' '; w++) *w = (char)toupper((unsigned char)*w);
    OUT("The program needs %s but %s has %s%s: %s too much.", a, where, b,
        json_object_get(json_object_get(r, "totals"), "scoped_limit") ? " (the scoped limit)" : "", c);
  } else if (json_is_integer(req) && json_object_get(json_object_get(r, "totals"), "reservable")) {
    hs_mem_human(geti(r, "requested_bytes"), a, sizeof a);
    hs_mem_human((uint64_t)json_integer_value(json_object_get(json_object_get(r, "totals"), "reservable")), b, sizeof b);
    uint64_t need = geti(r, "requested_bytes"), room = (uint64_t)json_integer_value(json_object_get(json_object_get(r, "totals"), "reservable"));
    hs_mem_human(need > room ? need - room : 0, c, sizeof c);
    const char *prog = json_string_value(json_object_get(json_array_get(json_object_get(r, "allocations"), 0), "label"));
    OUT("Loading %s%s needs %s at the bottom of device memory, but only %s can be reserved: %s short.", prog ? "the program " : "the program",
        prog ? prog : "", a, b, c);
  } else if (json_is_integer(req)) {
    hs_mem_human(geti(r, "requested_bytes"), a, sizeof a);
    OUT("An allocation of %s failed.", a);
    json_t *tot = json_object_get(json_object_get(r, "totals"), "total");
    if (tot) {
      hs_mem_human((uint64_t)json_integer_value(tot), b, sizeof b);
      OUT(" The program's buffers total %s.", b);
    }
  } else if (json_is_integer(used)) {
    hs_mem_human(geti(r, "used_bytes"), a, sizeof a);
    OUT("The program's buffers total %s.", a);
  }
  json_t *arr = json_object_get(r, "allocations");
  json_t *big = json_array_get(arr, 0);
  const char *bigkind = big ? json_string_value(json_object_get(big, "kind")) : NULL;
  if (big && !(bigkind && strcmp(bigkind, "program") == 0)) {
    hs_mem_human(geti(big, "bytes"), a, sizeof a);
    const char *shape = json_string_value(json_object_get(big, "shape"));
    const char *op = json_string_value(json_object_get(big, "op_name"));
    const char *src = json_string_value(json_object_get(big, "source"));
    OUT("%sThe largest allocation listed is %s%s%s", o ? " " : "", a, shape ? ", " : "", shape ? shape : "");
    if (op) {
      const char *last = strrchr(op, '/');
      last = last ? last + 1 : op;
      const char *br = strchr(last, '[');
      OUT(" (%.*s", (int)(br ? (size_t)(br - last) : strlen(last)), last);
      if (src) {
        const char *base = strrchr(src, '/');
        OUT(" at %s", base ? base + 1 : src);
      }
      OUT(")");
    }
    OUT(".");
    /* advice only from evidence in the text: an f32 convert of a bf16 value */
    const char *label = json_string_value(json_object_get(big, "label"));
    if (shape && strncmp(shape, "f32[", 4) == 0 &&
        ((op && strstr(op, "convert_element_type")) || (label && strstr(label, "convert("))) && label && strstr(label, "bf16[")) {
      hs_mem_human(geti(big, "bytes") / 2, b, sizeof b);
      OUT(" It is an f32 upcast of a bf16 value: keeping it in bf16 saves %s.", b);
    }
    json_t *pad = json_object_get(big, "padding_bytes"), *unp = json_object_get(big, "unpadded_bytes");
    uint64_t padb = json_is_integer(pad) ? (uint64_t)json_integer_value(pad)
                    : json_is_integer(unp) && (uint64_t)json_integer_value(unp) < geti(big, "bytes") ? geti(big, "bytes") - (uint64_t)json_integer_value(unp)
                                                                                                : 0;
    if (padb > 0) {
      hs_mem_human(padb, b, sizeof b);
      OUT(" Its tiled layout adds %s of padding: a dimension is not a multiple of the tile.", b);
    }
  }
  json_t *frag = json_object_get(json_object_get(r, "totals"), "fragmentation");
  if (json_is_integer(frag) && json_integer_value(frag) > 0) {
    hs_mem_human((uint64_t)json_integer_value(frag), a, sizeof a);
    OUT(" Fragmentation: %s.", a);
  }
  /* the cause, in a sentence, where the figures show it */
  char cause[512] = "";
  json_t *alloc = json_object_get(r, "allocated_bytes"), *prog = json_object_get(r, "program_bytes");
  json_t *fr = json_object_get(r, "free_bytes"), *lf = json_object_get(r, "largest_free_bytes");
  json_t *tc = json_object_get(r, "tensorcore_bytes"), *sc = json_object_get(r, "sparsecore_bytes");
  if (json_is_integer(alloc) && json_is_integer(cap) && json_is_integer(prog)) {
    uint64_t al = geti(r, "allocated_bytes"), cp = geti(r, "capacity_bytes");
    char left[32];
    hs_mem_human(al, a, sizeof a);
    hs_mem_human(geti(r, "program_bytes"), b, sizeof b);
    hs_mem_human(cp > al ? cp - al : 0, left, sizeof left);
    hs_mem_human(cp, c, sizeof c);
    snprintf(cause, sizeof cause,
             "%s were already allocated by earlier programs and arrays: the %s program could not fit in the %s left of %s.", a,
             b, left, c);
  } else if (json_is_integer(req) && json_is_integer(fr) && json_is_integer(lf)) {
    char piece[32];
    hs_mem_human(geti(r, "requested_bytes"), a, sizeof a);
    hs_mem_human(geti(r, "free_bytes"), b, sizeof b);
    hs_mem_human(geti(r, "largest_free_bytes"), piece, sizeof piece);
    snprintf(cause, sizeof cause,
             "%s %s free in all, more than the %s asked for, but fragmentation leaves at most %s in one piece.", b,
             geti(r, "free_bytes") == 1 ? "is" : "are", a, piece);
  } else if (json_is_integer(tc) && json_is_integer(sc)) {
    char sum[32];
    uint64_t t = geti(r, "tensorcore_bytes"), v = geti(r, "sparsecore_bytes");
    hs_mem_human(t, a, sizeof a);
    hs_mem_human(v, b, sizeof b);
    hs_mem_human(t + v, sum, sizeof sum);
    if (json_is_integer(cap)) hs_mem_human(geti(r, "capacity_bytes"), c, sizeof c);
    snprintf(cause, sizeof cause, "The TensorCore's programs use %s and the SparseCore's %s of HBM: %s together%s%s%s; the %s is the larger.",
             a, b, sum, json_is_integer(cap) ? ", more than the " : "", json_is_integer(cap) ? c : "",
             json_is_integer(cap) ? " available" : "", t >= v ? "TensorCore" : "SparseCore");
  }
  json_t *base = json_object_get(json_object_get(r, "totals"), "base_limit");
  if (!cause[0] && be && strcmp(be, "gpu") == 0 && json_is_integer(base)) {
    /* jax preallocates 75% of a GPU's memory by default (XLA_PYTHON_CLIENT_MEM_FRACTION=.75) */
    uint64_t lim = (uint64_t)json_integer_value(base);
    hs_mem_human(lim, a, sizeof a);
    hs_mem_human(lim / 3 * 4, b, sizeof b);
    snprintf(cause, sizeof cause,
             "XLA's memory limit on this GPU is %s: jax preallocates 75%% of the device's memory by default "
             "(XLA_PYTHON_CLIENT_MEM_FRACTION), so the device has about %s.",
             a, b);
  }
  if (cause[0]) {
    OUT("%s%s", o ? " " : "", cause);
    json_object_set_new(r, "cause", json_string(cause));
  }
  /* what the message does not say */
  json_t *lacks = json_array();
  if (!json_is_integer(req) && !json_is_integer(used) && !json_is_integer(alloc) && !json_is_integer(tc))
    json_array_append_new(lacks, json_string("how much memory was needed"));
  if (!json_is_integer(cap) && !json_object_get(json_object_get(r, "totals"), "reservable") && !json_is_integer(fr) &&
      !json_is_integer(base))
    json_array_append_new(lacks, json_string(ms ? "the capacity of the memory space" : "the device's capacity"));
  PCRE2_SIZE ov[4];
  if (rx(m, "arguments\\s*unknown\\s*size", 0, m->n, ov, 1)) json_array_append_new(lacks, json_string("the arguments' size"));
  if (rx(m, "Output\\s*size\\s*unknown", 0, m->n, ov, 1)) json_array_append_new(lacks, json_string("the output's size"));
  if (json_array_size(lacks)) {
    bool none = !json_array_size(json_object_get(r, "figures"));
    if (none)
      OUT("%sXLA ran out of %s, but the message prints no sizes: it does not say", o ? " " : "", ms ? ms : "memory");
    else
      OUT("%sThe message does not print", o ? " " : "");
    size_t i;
    json_t *x;
    json_array_foreach(lacks, i, x)
      OUT("%s%s", i == 0 ? (none ? " " : ": ") : i + 1 == json_array_size(lacks) ? " or " : ", ", json_string_value(x));
    OUT(".");
    json_object_set_new(r, "lacks", lacks);
  } else {
    json_decref(lacks);
  }
  json_object_set_new(r, "explanation", o ? json_string(out) : json_null());
#undef OUT
}

/* ---- detection (the format registry's detect function) -------------------------------------- */
/* 0 = not an XLA memory text; else a confidence 1..100. Reads at most the first 256 KiB. */
int hs_detect_memory(const char *text, size_t len, size_t first) {
  (void)first;
  if (!text) return 0;
  size_t n = len < (256u << 10) ? len : (256u << 10);
  if (hs_buffers_detect(text, n)) return 95;
  static const char *const sentences[] = {"Ran out of memory", "Out of memory while trying to allocate", "would exceed memory",
                                          "Failed to allocate request for", "Attempting to reserve", "BufferAssignment stats:",
                                          "Peak buffers:", "Largest program allocations", "Scoped allocation with size",
                                          "Out of memory allocating", "Attempting to allocate", "Currently allocated",
                                          "SparseCore Hbm usage", "ran out of memory trying to allocate"};
  for (size_t i = 0; i < sizeof sentences / sizeof sentences[0]; i++)
    if (hs_contains(text, n, sentences[i])) return 90;
  /* a pasted piece of a list: "Size:" entries with XLA's field names */
  if (hs_contains(text, n, "Size:") && (hs_contains(text, n, "XLA label:") || hs_contains(text, n, "XLA Label:") ||
                                     hs_contains(text, n, "Entry Parameter Subshape:") || hs_contains(text, n, "Allocation type:")))
    return 60;
  return 0;
}

/* ---- joining to the optimized HLO ----------------------------------------------------------- */
static void join_module(json_t *res, const hs_doc *d) {
  if (!d || d->format != HS_FORMAT_HLO) return;
  json_t *names = json_object(); /* instruction name -> index (the last module wins on a clash) */
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    char nm[512];
    if (in->name.len >= sizeof nm) continue;
    memcpy(nm, hs_sp(d, in->name), in->name.len);
    nm[in->name.len] = 0;
    json_object_set_new(names, nm, json_integer(i));
  }
  size_t i, k;
  json_t *a, *v;
  uint32_t joined = 0;
  json_array_foreach(json_object_get(res, "allocations"), i, a) {
    json_t *vals = json_object_get(a, "values");
    json_array_foreach(vals, k, v) {
      const char *nm = json_string_value(json_object_get(v, "name"));
      if (!nm) continue;
      char key[512];
      size_t n = strcspn(nm, "{");
      if (n >= sizeof key) continue;
      memcpy(key, nm, n);
      key[n] = 0;
      json_t *ix = json_object_get(names, key);
      if (!ix) continue;
      const hs_instr *in = &d->instrs[json_integer_value(ix)];
      json_object_set_new(v, "line", json_integer(in->line));
      json_object_set_new(v, "opcode", hs_json_slice(d, hs_opcode(d, in)));
      joined++;
    }
    const char *label = json_string_value(json_object_get(a, "label"));
    if (label) {
      char key[512];
      size_t n = strcspn(label, "{ ");
      if (n < sizeof key) {
        memcpy(key, label, n);
        key[n] = 0;
        json_t *ix = json_object_get(names, key);
        if (ix) {
          const hs_instr *in = &d->instrs[json_integer_value(ix)];
          json_object_set_new(a, "line", json_integer(in->line));
          json_object_set_new(a, "opcode", hs_json_slice(d, hs_opcode(d, in)));
          hs_slice op_name = hs_hlo_of(d, in).op_name;
          if (op_name.len && json_is_null(json_object_get(a, "op_name"))) json_object_set_new(a, "op_name", hs_json_slice(d, op_name));
        }
      }
    }
  }
  json_object_set_new(json_object_get(res, "totals"), "values_joined", json_integer(joined));
  json_decref(names);
}

/* ---- the entry point ------------------------------------------------------------------------ */
char *hs_memory_json(const char *text, size_t len, hs_error *err, size_t *out_len) {
  return hs_memory_join_json(text, len, NULL, err, out_len);
}

/* The backend XLA's dump file name says: "<module>.sm_8.0_gpu_after_optimizations-...",
 * "<module>.cpu_after_optimizations-..."; NULL when it says none. */
static const char *backend_of_name(const char *name) {
  if (!name) return NULL;
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strstr(base, "_gpu_after_optimizations") || strstr(base, "_gpu_before_optimizations") || strstr(base, ".sm_")) return "gpu";
  if (strstr(base, ".cpu_after_optimizations") || strstr(base, ".cpu_before_optimizations")) return "cpu";
  if (strstr(base, ".tpu_after_optimizations") || strstr(base, "_tpu_after_optimizations")) return "tpu";
  return NULL;
}

char *hs_memory_join_json(const char *text, size_t len, const hs_doc *module, hs_error *err, size_t *out_len) {
  return hs_memory_file_json(text, len, NULL, module, err, out_len);
}

char *hs_memory_file_json(const char *text, size_t len, const char *name, const hs_doc *module, hs_error *err,
                          size_t *out_len) {
  return hs_mem_read(text, len, name, module, NULL, err, out_len);
}

char *hs_mem_read(const char *text, size_t len, const char *name, const hs_doc *module, const char *join_skipped,
                  hs_error *err, size_t *out_len) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  if (!text) {
    hs_set_error(err, HS_E_ARG, NULL, 0, 0, "text is NULL");
    return NULL;
  }
  if (len > UINT32_MAX) {
    hs_set_error(err, HS_E_TOO_LARGE, NULL, 0, 0, "input of %zu bytes is larger than the 4 GiB hloscope reads", len);
    return NULL;
  }
  if (hs_is_blank(text, len)) {
    hs_set_error(err, HS_E_EMPTY, text, len, 0, "the input is empty: paste an XLA out-of-memory message, a *-buffer-assignment.txt or a *-memory-usage-report.txt");
    return NULL;
  }
  int which = hs_buffers_detect(text, len);
  if (which) {
    json_t *res = hs_mem_result(which == 1 ? "buffer_assignment" : "memory_usage_report");
    hs_mem_diag w = {.diag = {.per_code = HS_DIAG_NO_LIMIT}};
    hs_buffers_read(text, len, which, res, &w);
    if (json_is_null(json_object_get(res, "backend")) && backend_of_name(name))
      json_object_set_new(res, "backend", json_string(backend_of_name(name)));
    join_module(res, module);
    if (join_skipped) hs_mem_warn(&w, NULL, 0, 0, HS_W_JOIN_SKIPPED, "%s", join_skipped);
    return hs_mem_finish(res, &w, out_len);
  }
  mctx m;
  memset(&m, 0, sizeof m);
  m.t = text;
  m.len = len;
  m.f = malloc(len + 1);
  m.map = malloc((len + 1) * sizeof *m.map);
  m.brk = calloc(len + 1, 1);
  m.md = pcre2_match_data_create(16, NULL);
  if (!m.f || !m.map || !m.md || !m.brk) {
    free(m.brk);
    free(m.f);
    free(m.map);
    pcre2_match_data_free(m.md);
    hs_set_error(err, HS_E_NOMEM, NULL, 0, 0, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n' || text[i] == '\r') {
      m.brk[m.n] = 1;
      continue;
    }
    m.map[m.n] = (uint32_t)i;
    m.f[m.n++] = text[i] ? text[i] : ' ';
  }
  m.f[m.n] = 0;
  m.res = hs_mem_result("oom");
  m.w.diag.per_code = HS_DIAG_NO_LIMIT;
  bool ok = tpu_compile(&m) || tpu_runtime(&m) || gpu(&m) || allocator(&m);
  char *out = NULL;
  if (ok) {
    PCRE2_SIZE ov[6];
    char code[64] = {0};
    if (rx(&m, "\\b(E[0-9]{4}):\\s*([A-Za-z]+)", 0, m.n, ov, 3)) {
      snprintf(code, sizeof code, "%.*s %.*s", (int)(ov[3] - ov[2]), m.f + ov[2], (int)(ov[5] - ov[4]), m.f + ov[4]);
      json_object_set_new(m.res, "code", cap_str(&m, ov, 1));
    } else if (rx(&m, "\\b(CompileTime[A-Za-z]*Oom)\\b", 0, m.n, ov, 2)) {
      snprintf(code, sizeof code, "%.*s", (int)(ov[3] - ov[2]), m.f + ov[2]);
      json_object_set_new(m.res, "code", json_null());
    } else {
      json_object_set_new(m.res, "code", json_null());
    }
    named_from_totals(&m);
    scan_figures(&m);
    explain(&m, code[0] ? code : NULL);
    join_module(m.res, module);
    if (join_skipped) hs_mem_warn(&m.w, NULL, 0, 0, HS_W_JOIN_SKIPPED, "%s", join_skipped);
    out = hs_mem_finish(m.res, &m.w, out_len);
  } else {
    json_decref(m.res);
    hs_diag_free(&m.w.diag);
    hs_arena_free(&m.w.arena);
    size_t p = 0;
    while (p < len && isspace((unsigned char)text[p])) p++;
    hs_set_error(err, HS_E_FORMAT, text, len, p,
                 "not an XLA memory message: no out-of-memory sentence XLA prints (\"Ran out of memory in memory space\", "
                 "\"Out of memory while trying to allocate\", \"Allocation (size=...) would exceed memory\", \"Failed to "
                 "allocate request for\"), and not a buffer assignment or memory-usage report");
  }
  free(m.cov);
  free(m.starts);
  free(m.f);
  free(m.map);
  free(m.brk);
  pcre2_match_data_free(m.md);
  return out;
}
