/* The HLO reader's frame tables (FileNames, FunctionNames, FileLocations, StackFrames: each row
 * kept in doc->frames, for the module it is in) and the files instructions' metadata names with
 * source_file= (doc->source_files, each once). What an instruction's stack_frame_id refers to is
 * then found without reading the text again. */
#include <stdlib.h>

#include "doc/hlo/hlo_reader.h"

uint32_t hlo_source_file(reader *r, hs_slice name) {
  hs_doc *d = r->d;
  const char *s = r->t + name.off;
  if (r->last_file) {
    hs_slice l = d->source_files[r->last_file - 1];
    if (l.len == name.len && hs_bytes_eq(r->t + l.off, s, name.len)) return r->last_file;
  }
  if (d->n_source_files + 1 > r->file_cap / 2) { /* grow the table (and fill it again) */
    uint32_t cap = r->file_cap ? r->file_cap * 2 : 64;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) goto nomem;
    for (uint32_t i = 0; i < d->n_source_files; i++) {
      hs_slice f = d->source_files[i];
      uint32_t h = hs_hash(r->t + f.off, f.len) & (cap - 1);
      while (slots[h]) h = (h + 1) & (cap - 1);
      slots[h] = i + 1;
    }
    free(r->file_slots);
    r->file_slots = slots;
    r->file_cap = cap;
  }
  uint32_t h = hs_hash(s, name.len) & (r->file_cap - 1);
  for (uint32_t v; (v = r->file_slots[h]) != 0; h = (h + 1) & (r->file_cap - 1)) {
    hs_slice f = d->source_files[v - 1];
    if (f.len == name.len && hs_bytes_eq(r->t + f.off, s, name.len)) return r->last_file = v;
  }
  bool ok;
  hs_slice *slot = HS_VEC_PUSH(d->source_files, d->n_source_files, d->cap_source_files, ok);
  if (!ok) goto nomem;
  *slot = name;
  r->file_slots[h] = d->n_source_files;
  return r->last_file = d->n_source_files;
nomem:
  d->nomem = true;
  return 0;
}

/* The number after `key` ("line=") in [s, e), the key at s or after ' ' or '{'; 0 when absent. */
static uint32_t num_after(const char *t, size_t s, size_t e, const char *key, size_t k) {
  for (size_t i = s; i + k <= e; i++) {
    if (t[i] == key[0] && memcmp(t + i, key, k) == 0 && (i == s || t[i - 1] == ' ' || t[i - 1] == '{')) {
      uint32_t v = 0;
      for (size_t p = i + k; p < e && is_digit(t[p]); p++) v = v * 10 + (uint32_t)(t[p] - '0');
      return v;
    }
  }
  return 0;
}

bool hlo_frame_row(reader *r, size_t p, size_t e) {
  hs_doc *d = r->d;
  const char *t = r->t;
  hs_frame_row row;
  memset(&row, 0, sizeof row);
  row.module = r->module >= 0 ? (uint32_t)r->module : d->n_modules; /* before any HloModule: the first one's */
  row.table = (uint8_t)(r->table - TABLE_FILE_NAMES);
  while (p < e && is_digit(t[p])) row.id = row.id * 10 + (uint32_t)(t[p++] - '0');
  if (r->table == TABLE_FILE_NAMES || r->table == TABLE_FUNCTION_NAMES) {
    const char *q = memchr(t + p, '"', e - p);
    if (!q) return true;
    size_t qs = (size_t)(q - t) + 1, qe = hs_skip_string(t, e, qs - 1);
    row.name = hs_sl((uint32_t)qs, (uint32_t)(qe > qs ? qe - 1 - qs : 0));
  } else {
    /* "{file_name_id=1 function_name_id=2 line=3 end_line=3 ...}", "{file_location_id=1
       parent_frame_id=0}" */
    if (r->table == TABLE_FILE_LOCATIONS) {
      row.loc.file = num_after(t, p, e, "file_name_id=", 13);
      row.loc.function = num_after(t, p, e, "function_name_id=", 17);
      row.loc.line = num_after(t, p, e, "line=", 5);
    } else {
      row.frame.location = num_after(t, p, e, "file_location_id=", 17);
      row.frame.parent = num_after(t, p, e, "parent_frame_id=", 16);
    }
  }
  bool ok;
  hs_frame_row *slot = HS_VEC_PUSH(d->frames, d->n_frames, d->cap_frames, ok);
  if (ok) *slot = row;
  return ok;
}

