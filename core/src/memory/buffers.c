/* Buffer assignments (*-buffer-assignment.txt, and the -values part newer XLA splits off) and
 * memory-usage reports (*-memory-usage-report.txt), CPU, GPU and TPU, read line by line.
 *
 * BufferAssignment::ToString prints `allocation N: size S, <attributes>:` then one
 * ` value: <id name @color> (size=N,offset=M): shape` per value it holds, `Total bytes used: N`,
 * the `Used values:` (each with ` from instruction: %name = ...` and its metadata) and the live
 * ranges. The usage report prints the allocations sorted by size with rounded sizes (16.5KiB)
 * and per-allocation tables of `cumulative; size; offset; used_by_n_values; shapes`; newer XLA
 * prints it per memory space (`Memory Space: default (color=0)`, `Total bytes: N`) with the
 * tables alone. Every value's size is XLA's own account of its layout (a TPU scalar with T(128)
 * takes 512 bytes), which is what tests hold our layout sizes against. */
#include <stdio.h>
#include <stdlib.h>

#include "memory/memory.h"

static bool starts(const char *t, size_t e, size_t p, const char *lit) { return hs_starts(t, e, p, lit); }

int hs_buffers_detect(const char *t, size_t len) {
  size_t p = 0;
  bool ba = false, values = false, total_used = false, report = false, space = false;
  while (p < len) {
    size_t e = p;
    while (e < len && t[e] != '\n') e++;
    size_t q = hs_skip_sp(t, e, p);
    if (q == p && starts(t, e, p, "BufferAssignment:")) ba = true;
    else if (q == p && starts(t, e, p, "Used values:")) values = true;
    else if (q == p && starts(t, e, p, "Total bytes used:")) total_used = true;
    else if (q == p && starts(t, e, p, "Allocations sorted by size")) report = true;
    else if (q == p && starts(t, e, p, "Memory Space:")) space = true;
    else if (starts(t, e, q, "cumulative_size;") && space) report = true;
    p = e + 1;
  }
  if (ba || (values && total_used)) return 1;
  if (report || (space && total_used)) return 2;
  if (space) return 2;
  return 0;
}

static uint64_t read_u64(const char *t, size_t e, size_t *p) {
  uint64_t v = 0;
  while (*p < e && t[*p] >= '0' && t[*p] <= '9') v = v * 10 + (uint64_t)(t[(*p)++] - '0');
  return v;
}

/* The kind XLA's attributes name: parameter, output, constant, thread-local, temp. */
static const char *alloc_kind(const char *t, size_t a, size_t b) {
  if (hs_find(t, a, b, "parameter") != SIZE_MAX) return "parameter";
  if (hs_find(t, a, b, "output shape is") != SIZE_MAX) return "output";
  if (hs_find(t, a, b, "constant") != SIZE_MAX) return "constant";
  if (hs_find(t, a, b, "thread-local") != SIZE_MAX) return "thread-local";
  if (hs_find(t, a, b, "preallocated-temp") != SIZE_MAX) return "temp";
  if (hs_find(t, a, b, "maybe-live-out") != SIZE_MAX) return "output";
  return "temp";
}

/* "allocation N: size S, attrs:" at t[p]; `exact` sizes are integers, else printed (16.5KiB). */
static json_t *alloc_line(const char *t, size_t e, size_t p, bool exact, long *index) {
  p += strlen("allocation ");
  *index = (long)read_u64(t, e, &p);
  if (!starts(t, e, p, ": size ")) return NULL;
  p += 7;
  uint64_t bytes = 0;
  size_t q = hs_parse_size(t, e, p, &bytes);
  if (!q) return NULL;
  (void)exact;
  json_t *al = hs_mem_alloc(0, bytes);
  size_t attrs = q;
  json_object_set_new(al, "kind", json_string(alloc_kind(t, attrs, e)));
  json_object_set_new(al, "index", json_integer(*index));
  size_t c = hs_find(t, attrs, e, "color ");
  uint64_t color = 0;
  if (c != SIZE_MAX) {
    c += 6;
    color = read_u64(t, e, &c);
  }
  json_object_set_new(al, "color", json_integer((json_int_t)color));
  size_t bar = hs_find(t, attrs, e, "|");
  if (bar != SIZE_MAX) {
    size_t bar2 = hs_find(t, bar + 1, e, "|");
    if (bar2 != SIZE_MAX) json_object_set_new(al, "shape", hs_json_bytes(t + bar + 1, bar2 - bar - 1));
  }
  size_t pi = hs_find(t, attrs, e, "parameter ");
  if (pi != SIZE_MAX) {
    pi += 10;
    json_object_set_new(al, "parameter", json_integer((json_int_t)read_u64(t, e, &pi)));
  }
  json_object_set_new(al, "values", json_array());
  return al;
}

/* metadata={op_name="..." source_file="..." source_line=N} of a "from instruction:" line */
static void metadata(const char *t, size_t a, size_t e, json_t *into) {
  size_t p = hs_find(t, a, e, "op_name=\"");
  if (p != SIZE_MAX) {
    p += 9;
    size_t q = hs_skip_string(t, e, p - 1);
    if (q > p) json_object_set_new(into, "op_name", hs_json_bytes(t + p, q - 1 - p));
  }
  p = hs_find(t, a, e, "source_file=\"");
  if (p != SIZE_MAX) {
    p += 13;
    size_t q = hs_skip_string(t, e, p - 1);
    size_t l = hs_find(t, q, e, "source_line=");
    if (q > p && l != SIZE_MAX) {
      size_t k = l + 12;
      uint64_t line = read_u64(t, e, &k);
      char buf[1100];
      snprintf(buf, sizeof buf, "%.*s:%llu", (int)(q - 1 - p > 1000 ? 1000 : q - 1 - p), t + p, (unsigned long long)line);
      json_object_set_new(into, "source", hs_json_bytes(buf, strlen(buf)));
    }
  }
}

static void add_total(json_t *totals, const char *key, uint64_t v) {
  json_t *o = json_object_get(totals, key);
  json_object_set_new(totals, key, json_integer((json_int_t)((o ? (uint64_t)json_integer_value(o) : 0) + v)));
}

static json_t *by_index(json_t *allocs, long index) {
  size_t i;
  json_t *a;
  json_array_foreach(allocs, i, a) {
    json_t *x = json_object_get(a, "index");
    if (json_is_integer(x) && json_integer_value(x) == index) return a;
  }
  return NULL;
}

/* One row of a usage-report table: "  512B( 50%);  512B;  0;  1; u32[]". */
static json_t *table_row(const char *t, size_t e, size_t p, uint64_t *cumulative) {
  uint64_t cum = 0, size = 0, off = 0, count = 0;
  size_t q = hs_parse_size(t, e, p, &cum);
  if (!q) return NULL;
  size_t s1 = hs_find(t, q, e, ";");
  if (s1 == SIZE_MAX) return NULL;
  q = hs_skip_sp(t, e, s1 + 1);
  q = hs_parse_size(t, e, q, &size);
  if (!q) return NULL;
  size_t s2 = hs_find(t, q, e, ";");
  if (s2 == SIZE_MAX) return NULL;
  q = hs_skip_sp(t, e, s2 + 1);
  off = read_u64(t, e, &q);
  size_t s3 = hs_find(t, q, e, ";");
  if (s3 == SIZE_MAX) return NULL;
  q = hs_skip_sp(t, e, s3 + 1);
  count = read_u64(t, e, &q);
  size_t s4 = hs_find(t, q, e, ";");
  json_t *v = json_object();
  json_object_set_new(v, "offset", json_integer((json_int_t)off));
  json_object_set_new(v, "bytes", json_integer((json_int_t)size));
  json_object_set_new(v, "values", json_integer((json_int_t)count));
  if (s4 != SIZE_MAX) {
    size_t a = hs_skip_sp(t, e, s4 + 1), b = e;
    while (b > a && (t[b - 1] == ' ' || t[b - 1] == '\r')) b--;
    json_object_set_new(v, "shapes", hs_json_bytes(t + a, b - a));
  }
  *cumulative = cum;
  return v;
}

void hs_buffers_read(const char *t, size_t len, int which, json_t *res, hs_mem_diag *w) {
  json_t *allocs = json_object_get(res, "allocations");
  json_t *totals = json_object_get(res, "totals");
  json_t *meta = json_object(); /* value name -> {op_name, source} */
  bool tiled = false, thread_local = false;
  int section = 0; /* 0 allocations, 1 used values, 2 live ranges, 3 peak live ranges, 4 report values */
  json_t *cur = NULL;            /* the allocation the next value/table row belongs to */
  const char *cur_value = NULL;  /* Used values: the value whose lines follow */
  char cur_value_buf[512];
  long color = 0;
  bool space_tables = false;
  uint64_t peak = 0, printed_total = 0;
  bool have_total = false, have_space_total = false;
  uint64_t space_total_sum = 0;
  uint64_t table_cum = 0;
  json_t *table = NULL;
  size_t p = 0;
  while (p < len) {
    size_t e = p;
    while (e < len && t[e] != '\n') e++;
    size_t le = e;
    if (le > p && t[le - 1] == '\r') le--;
    size_t q = hs_skip_sp(t, le, p);
    if (starts(t, le, p, "Total bytes used: ")) {
      size_t k = p + 18;
      printed_total = read_u64(t, le, &k);
      have_total = true;
    } else if (starts(t, le, p, "Memory Space: ")) {
      size_t c = hs_find(t, p, le, "(color=");
      color = 0;
      if (c != SIZE_MAX) {
        c += 7;
        color = (long)read_u64(t, le, &c);
      }
      size_t ne = hs_find(t, p + 14, le, " (");
      if (json_is_null(json_object_get(res, "memory_space")) && ne != SIZE_MAX) {
        char nm[64];
        size_t k = ne - (p + 14) < sizeof nm - 1 ? ne - (p + 14) : sizeof nm - 1;
        for (size_t i = 0; i < k; i++) nm[i] = (char)((t[p + 14 + i] >= 'A' && t[p + 14 + i] <= 'Z') ? t[p + 14 + i] + 32 : t[p + 14 + i]);
        nm[k] = 0;
        json_object_set_new(res, "memory_space", json_string(nm));
      }
      space_tables = true;
      cur = NULL;
    } else if (starts(t, le, p, "Total bytes: ")) {
      size_t k = p + 13;
      uint64_t v = read_u64(t, le, &k);
      char key[32];
      snprintf(key, sizeof key, "color_%ld", color);
      add_total(totals, key, v);
      space_total_sum += v;
      have_space_total = true;
    } else if (starts(t, le, p, "Used values:")) {
      section = 1;
    } else if (starts(t, le, p, "HloLiveRange")) {
      section = 2;
    } else if (section >= 2 && starts(t, le, q, "Live ranges at ")) {
      section = 3;
    } else if (section == 3 && q > p && hs_find(t, q, le, ": ") != SIZE_MAX && t[q] != '\xe2' && !starts(t, le, q, "Stack trace")) {
      /* "    name{}: 4194304 bytes (cumulative: ...)" */
      size_t c = hs_find(t, q, le, ": ");
      size_t k = c + 2;
      uint64_t v = read_u64(t, le, &k);
      if (k > c + 2 && starts(t, le, k, " bytes")) peak += v;
      else section = 2;
    } else if (section == 3) {
      section = 2;
    } else if (starts(t, le, p, "Allocations sorted by size with their values")) {
      section = 4;
    } else if (section == 1 && starts(t, le, p, "<")) {
      size_t sp = hs_find(t, p, le, " ");
      size_t at = hs_find(t, p, le, " @");
      if (sp != SIZE_MAX && at != SIZE_MAX && at > sp) {
        size_t k = at - sp - 1 < sizeof cur_value_buf - 1 ? at - sp - 1 : sizeof cur_value_buf - 1;
        memcpy(cur_value_buf, t + sp + 1, k);
        cur_value_buf[k] = 0;
        cur_value = cur_value_buf;
      }
    } else if (section == 1 && cur_value && starts(t, le, q, "from instruction: ")) {
      json_t *mo = json_object();
      metadata(t, q, le, mo);
      json_object_set_new(meta, cur_value, mo);
    } else if (section != 1 && section != 2 && section != 3) {
      size_t ap = starts(t, le, q, "allocation ") ? q : hs_find(t, q, le, "; allocation ");
      if (ap != SIZE_MAX && ap != q) ap += 2;
      if (ap != SIZE_MAX) {
        long index;
        json_t *al = alloc_line(t, le, ap, which == 1, &index);
        if (al) {
          json_t *old = by_index(allocs, index);
          if (old) {
            json_decref(al);
            cur = old;
          } else {
            json_array_append_new(allocs, al);
            cur = al;
          }
          if (strcmp(json_string_value(json_object_get(cur, "kind")), "thread-local") == 0) thread_local = true;
        } else {
          hs_mem_warn(w, t, len, ap, HS_W_SKIPPED_LINE, "an allocation line without its size was skipped");
        }
      } else if (cur && starts(t, le, q, "value: <")) {
        /* value: <9 constant.2 @0> (size=512,offset=0): s32[]{:T(128)} */
        size_t sp = hs_find(t, q + 8, le, " "), at = hs_find(t, q, le, " @");
        size_t sz = hs_find(t, q, le, "(size="), of = hs_find(t, q, le, ",offset="), colon = hs_find(t, q, le, "): ");
        if (sp != SIZE_MAX && at != SIZE_MAX && sz != SIZE_MAX && of != SIZE_MAX && colon != SIZE_MAX) {
          json_t *v = json_object();
          json_object_set_new(v, "name", hs_json_bytes(t + sp + 1, at > sp ? at - sp - 1 : 0));
          size_t k = sz + 6;
          uint64_t bytes = read_u64(t, le, &k);
          k = of + 8;
          uint64_t off = read_u64(t, le, &k);
          json_object_set_new(v, "offset", json_integer((json_int_t)off));
          json_object_set_new(v, "bytes", json_integer((json_int_t)bytes));
          size_t s = colon + 3, se = le;
          json_object_set_new(v, "shape", hs_json_bytes(t + s, se - s));
          if (hs_find(t, s, se, ":T(") != SIZE_MAX || hs_find(t, s, se, ")T(") != SIZE_MAX) tiled = true;
          size_t pos = s, bad = 0;
          json_t *lj = (s >= se || t[s] != '(') ? hs_layout_shape_json(t, se, &pos, &bad) : NULL;
          json_object_set_new(v, "layout_bytes", lj ? json_incref(json_object_get(lj, "padded_bytes")) : json_null());
          json_object_set_new(v, "logical_bytes", lj ? json_incref(json_object_get(lj, "logical_bytes")) : json_null());
          json_decref(lj);
          json_array_append_new(json_object_get(cur, "values"), v);
        } else {
          hs_mem_warn(w, t, len, q, HS_W_SKIPPED_LINE, "a value line that does not read as <id name @color> (size=N,offset=M): shape");
        }
      } else if (starts(t, le, q, "cumulative_size;")) {
        if (space_tables && section != 4) {
          /* newer report: a table per allocation, without its header */
          cur = hs_mem_alloc(0, 0);
          json_object_set_new(cur, "color", json_integer(color));
          json_object_set_new(cur, "values", json_array());
          json_array_append_new(allocs, cur);
          table = cur;
          table_cum = 0;
        } else {
          table = cur;
        }
      } else if (table && q > p && q < le && t[q] >= '0' && t[q] <= '9' && hs_find(t, q, le, "%);") != SIZE_MAX) {
        uint64_t cum = 0;
        json_t *row = table_row(t, le, q, &cum);
        if (row) {
          json_t *vals = json_object_get(table, "values");
          if (!vals) {
            vals = json_array();
            json_object_set_new(table, "values", vals);
          }
          json_array_append_new(vals, row);
          (void)cum;
          /* newer report: the allocation ends where its furthest value ends (the cumulative
           * column counts against the memory space's total) */
          uint64_t end_off = (uint64_t)json_integer_value(json_object_get(row, "offset")) + (uint64_t)json_integer_value(json_object_get(row, "bytes"));
          if (end_off > table_cum) table_cum = end_off;
          if (space_tables && section != 4) json_object_set_new(table, "bytes", json_integer((json_int_t)table_cum));
        }
      } else if (q == le) {
        if (table && section == 4) table = NULL;
      }
    }
    p = e + 1;
  }
  /* join values to what produced them (the Used values' metadata) */
  size_t i;
  json_t *al;
  uint64_t sum = 0;
  json_array_foreach(allocs, i, al) {
    uint64_t b = (uint64_t)json_integer_value(json_object_get(al, "bytes"));
    sum += b;
    if (which == 1) { /* exact sizes only: a report's are rounded */
      char ck[32];
      snprintf(ck, sizeof ck, "color_%lld", (long long)json_integer_value(json_object_get(al, "color")));
      add_total(totals, ck, b);
    }
    const char *k = json_string_value(json_object_get(al, "kind"));
    if (k) {
      char key[40];
      snprintf(key, sizeof key, "%s", strcmp(k, "thread-local") == 0 ? "thread_local" : k);
      add_total(totals, key, b);
    }
    json_t *vals = json_object_get(al, "values");
    json_t *best = NULL;
    size_t j;
    json_t *v;
    json_array_foreach(vals, j, v) {
      if (json_object_get(v, "name") && (!best || json_integer_value(json_object_get(v, "bytes")) > json_integer_value(json_object_get(best, "bytes"))))
        best = v;
    }
    if (best) {
      const char *nm = json_string_value(json_object_get(best, "name"));
      json_object_set_new(al, "label", json_string(nm ? nm : ""));
      if (json_is_null(json_object_get(al, "shape"))) json_object_set_new(al, "shape", json_incref(json_object_get(best, "shape")));
      json_t *mo = nm ? json_object_get(meta, nm) : NULL;
      if (mo) {
        json_t *x;
        if ((x = json_object_get(mo, "op_name"))) json_object_set(al, "op_name", x);
        if ((x = json_object_get(mo, "source"))) json_object_set(al, "source", x);
      }
    }
  }
  json_decref(meta);
  if (have_total) json_object_set_new(totals, "total_bytes_used", json_integer((json_int_t)printed_total));
  else if (have_space_total) json_object_set_new(totals, "total_bytes_used", json_integer((json_int_t)space_total_sum));
  json_object_set_new(totals, "allocated", json_integer((json_int_t)sum));
  if (peak) json_object_set_new(totals, "peak_live_bytes", json_integer((json_int_t)peak));
  if (have_total || have_space_total) {
    uint64_t tot = have_total ? printed_total : space_total_sum;
    json_object_set_new(res, "used_bytes", json_integer((json_int_t)tot));
    if (which == 1 && json_array_size(allocs) && sum != tot)
      hs_mem_warn(w, t, len, 0, HS_W_PARTIAL_FORMAT,
                  "the allocations read sum to %llu bytes but the text says %llu: the file may be cut short",
                  (unsigned long long)sum, (unsigned long long)tot);
  } else if (which == 1 && json_array_size(allocs)) {
    hs_mem_warn(w, t, len, len, HS_W_PARTIAL_FORMAT,
                "no \"Total bytes used\" line: newer XLA prints it in the -buffer-assignment-values part (or the file was cut short)");
  } else {
    hs_mem_warn(w, t, len, len, HS_W_TRUNCATED, "no \"Total bytes used\" line: the file may be cut short");
  }
  if (which == 1 && !json_array_size(allocs))
    hs_mem_warn(w, t, len, 0, HS_W_PARTIAL_FORMAT,
                "no allocations: this is the -values part of a buffer assignment (newer XLA writes the allocations to "
                "*-buffer-assignment.txt)");
  json_object_set_new(res, "backend", tiled ? json_string("tpu") : thread_local ? json_string("cpu") : json_null());
  hs_mem_rank(allocs);
  /* explanation */
  char out[1024], a[32], b[32];
  size_t o = 0;
  uint64_t tot = have_total ? printed_total : space_total_sum;
  hs_mem_human(tot, a, sizeof a);
  o += (size_t)snprintf(out + o, sizeof out - o, "%zu allocation%s, %s in all", json_array_size(allocs),
                        json_array_size(allocs) == 1 ? "" : "s", a);
  const char *kinds[][2] = {{"parameter", "parameters"}, {"output", "outputs"}, {"temp", "temporaries"},
                            {"constant", "constants"}, {"thread_local", "thread-local"}};
  bool first = true;
  for (size_t k = 0; k < 5 && o < sizeof out; k++) {
    json_t *x = json_object_get(totals, kinds[k][0]);
    if (!x) continue;
    hs_mem_human((uint64_t)json_integer_value(x), b, sizeof b);
    o += (size_t)snprintf(out + o, sizeof out - o, "%s%s %s", first ? ": " : ", ", kinds[k][1], b);
    first = false;
  }
  json_t *big = json_array_get(allocs, 0);
  if (big && o < sizeof out) {
    hs_mem_human((uint64_t)json_integer_value(json_object_get(big, "bytes")), a, sizeof a);
    const char *sh = json_string_value(json_object_get(big, "shape"));
    const char *lb = json_string_value(json_object_get(big, "label"));
    const char *src = json_string_value(json_object_get(big, "source"));
    o += (size_t)snprintf(out + o, sizeof out - o, ". The largest is %s (%s%s%s%s%s)", a, json_string_value(json_object_get(big, "kind")),
                          sh ? ", " : "", sh ? sh : "", lb ? ", " : "", lb ? lb : "");
    if (src && o < sizeof out) {
      const char *base = strrchr(src, '/');
      o += (size_t)snprintf(out + o, sizeof out - o, " from %s", base ? base + 1 : src);
    }
  }
  if (o < sizeof out) snprintf(out + o, sizeof out - o, ".");
  json_object_set_new(res, "explanation", json_string(out));
}
