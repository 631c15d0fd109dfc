/* A module's padding table (`hloscope layouts`): every value computed outside fused bodies
 * with its layout's padded and logical bytes, largest padding first (the layout grammar and
 * sizes are types/layout.c). The totals count each buffer once: aliases (bitcast,
 * get-tuple-element, outputs aliasing an operand) are rows with "in_total": false. */
#include <stdlib.h>

#include "analyses/analyses.h"

/* ---- a module's padding table ----------------------------------------------------------- */
typedef struct {
  uint32_t instr;
  uint64_t logical, padded;
  json_t *row;
} pad_row;

static int cmp_rows(const void *x, const void *y) {
  const pad_row *a = x, *b = y;
  uint64_t pa = a->padded - a->logical, pb = b->padded - b->logical;
  if (pa != pb) return pa > pb ? -1 : 1;
  if (a->padded != b->padded) return a->padded > b->padded ? -1 : 1;
  return a->instr < b->instr ? -1 : a->instr > b->instr;
}

char *hs_layouts_json(const hs_doc *d, size_t *len) {
  if (!d) return NULL;
  json_t *o = json_object();
  pad_row *rows = d->n_instrs ? calloc(d->n_instrs, sizeof *rows) : NULL;
  uint32_t n = 0, unread = 0;
  uint64_t tl = 0, tp = 0;
  /* at most HS_MAX_WARNINGS_PER_CODE listed; `unread` counts them all */
  hs_diag diag = {0};
  hs_arena arena = {0};
  if (d->format == HS_FORMAT_HLO && rows) {
    for (uint32_t i = 0; i < d->n_instrs; i++) {
      const hs_instr *in = &d->instrs[i];
      if (hs_comp_in_fused(d, in->comp) || !in->type || !in->line || in->line > d->n_lines) continue;
      /* the result type follows "name = " on the instruction's line */
      size_t p = hs_line_off(d, in->line - 1);
      size_t e = in->line < d->n_lines ? hs_line_off(d, in->line) : d->len;
      size_t q = p;
      while (q + 2 < e && !(d->text[q] == ' ' && d->text[q + 1] == '=' && d->text[q + 2] == ' ')) q++;
      if (q + 2 >= e) continue;
      q += 3;
      size_t bad = 0;
      json_t *s = hs_layout_shape_json(d->text, e, &q, &bad);
      if (!s) {
        uint32_t wl, wc;
        hs_line_col(d->text, d->len, bad, &wl, &wc);
        unread++;
        hs_diag_warn(&diag, &arena, HS_W_UNKNOWN_TYPE, wl, wc, "this result type's layout does not read; the value is left out of the table");
        continue;
      }
      uint64_t lb = (uint64_t)json_integer_value(json_object_get(s, "logical_bytes"));
      uint64_t pb = (uint64_t)json_integer_value(json_object_get(s, "padded_bytes"));
      json_t *row = json_object();
      json_object_set_new(row, "name", hs_json_slice(d, in->name));
      json_object_set_new(row, "opcode", hs_json_slice(d, hs_opcode(d, in)));
      json_object_set_new(row, "line", json_integer(in->line));
      json_object_set_new(row, "type", json_incref(json_object_get(s, "type")));
      json_t *ms = json_object_get(s, "memory_space");
      json_object_set_new(row, "memory_space", ms ? json_incref(ms) : json_integer(0));
      json_object_set_new(row, "logical_bytes", json_integer((json_int_t)lb));
      json_object_set_new(row, "padded_bytes", json_integer((json_int_t)pb));
      json_object_set_new(row, "padding_bytes", json_integer((json_int_t)(pb - lb)));
      json_object_set_new(row, "words", json_incref(json_object_get(s, "words")));
      json_decref(s);
      /* what holds no memory of its own stays a row but out of the totals: a bitcast or a
       * get-tuple-element (another name for its operand's buffer) and an output that aliases an
       * operand (output_to_operand_aliasing: a custom call writing in place) */
      bool alias = hs_slice_is(d, hs_opcode(d, in), "bitcast") || hs_slice_is(d, hs_opcode(d, in), "get-tuple-element") ||
                   hs_contains(d->text + p, e - p, "output_to_operand_aliasing=");
      json_object_set_new(row, "in_total", json_boolean(!alias));
      rows[n].instr = i;
      rows[n].logical = lb;
      rows[n].padded = pb;
      rows[n].row = row;
      n++;
      if (!alias) {
        tl += lb;
        tp += pb;
      }
    }
    qsort(rows, n, sizeof *rows, cmp_rows);
  }
  json_t *arr = json_array();
  for (uint32_t i = 0; i < n; i++) json_array_append_new(arr, rows[i].row);
  free(rows);
  json_object_set_new(o, "values", json_integer(n));
  json_object_set_new(o, "logical_bytes", json_integer((json_int_t)tl));
  json_object_set_new(o, "padded_bytes", json_integer((json_int_t)tp));
  json_object_set_new(o, "padding_bytes", json_integer((json_int_t)(tp - tl)));
  json_object_set_new(o, "unread", json_integer(unread));
  json_object_set_new(o, "rows", arr);
  json_object_set_new(o, "warnings", hs_diag_json(&diag));
  hs_diag_free(&diag);
  hs_arena_free(&arena);
  return hs_json_finish(o, len);
}

