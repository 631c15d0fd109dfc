/* The text of one document's analyses (summary, fusions, spills, computations, decisions,
 * overlap, the x-ray) and of the layouts, as `hloscope COMMAND FILE` prints them. */
#include <string.h>

#include "text/text.h"

#define I hs_tx_int
#define S hs_tx_str

void hs_text_summary(hs_out *o, json_t *j, const hs_text_input *in) {
  const char *path = in->path ? in->path : "-";
  hs_outf(o, "%s: %s", path, S(j, "format"));
  if (json_is_string(json_object_get(j, "module"))) hs_outf(o, " module %s", S(j, "module"));
  hs_outf(o, "\n  %lld lines, %lld modules, %lld computations, %lld instructions\n", I(j, "lines"), I(j, "modules"),
          I(j, "computations"), I(j, "instructions"));
  hs_tx_warnings(o, json_object_get(j, "warnings"), path);
}

void hs_text_fusions(hs_out *o, json_t *j, const hs_text_input *in) {
  hs_outf(o, "%lld fused computations, %lld fusion ops (%lld top-level, %lld nested)\n", I(j, "fusion_computations"),
          I(j, "fusion_ops"), I(j, "fusion_ops_top_level"), I(j, "fusion_ops_nested"));
  size_t i, k;
  json_t *f, *op;
  json_array_foreach(json_object_get(j, "fusions"), i, f) {
    hs_outf(o, "  line %-5lld %s%-24s %-8s -> %s", I(f, "line"), json_is_true(json_object_get(f, "nested")) ? "  " : "",
            S(f, "name"), S(f, "kind"), S(f, "calls"));
    hs_outf(o, "  %s S(%lld)\n", S(f, "type"), I(f, "memory_space"));
    hs_outf(o, "             holds:");
    json_array_foreach(json_object_get(f, "ops"), k, op) hs_outf(o, "%s %s", k ? " \xC2\xB7" : "", json_string_value(op));
    hs_outf(o, "\n");
  }
}

void hs_text_spills(hs_out *o, json_t *j, const hs_text_input *in) {
  json_t *b = json_object_get(j, "big");
  if (json_is_object(b))
    hs_outf(o, "big intermediate: %s (%lld bytes) in memory space %lld, %s at line %lld\n", S(b, "type"), I(b, "bytes"),
            I(b, "memory_space"), S(b, "name"), I(b, "line"));
  else
    hs_outf(o, "big intermediate: none\n");
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(j, "carriers"), i, c) {
    hs_outf(o, "  carried at line %-5lld %-24s S(%lld)%s\n", I(c, "line"), S(c, "name"), I(c, "memory_space"),
            json_is_true(json_object_get(c, "spill")) ? "  SPILL" : "");
  }
  json_t *h = json_object_get(j, "hbm_bytes");
  hs_outf(o, "spill bytes: %lld; estimated HBM traffic: %lld read, %lld written\n", I(j, "spill_bytes"), I(h, "read"),
          I(h, "written"));
  hs_outf(o, "%s\n", S(j, "explanation"));
}

void hs_text_computations(hs_out *o, json_t *j, const hs_text_input *in) {
  size_t m, c, i;
  json_t *mo, *co, *x;
  json_array_foreach(json_object_get(j, "modules"), m, mo) {
    hs_outf(o, "module %s\n", S(mo, "name"));
    json_array_foreach(json_object_get(mo, "computations"), c, co) {
      json_t *ins = json_object_get(co, "instructions");
      hs_outf(o, "  %-8s %s (%zu instructions) -> %s\n", S(co, "role"), S(co, "name"), json_array_size(ins), S(co, "result"));
      json_array_foreach(ins, i, x) hs_outf(o, "    %-5lld %-28s %-20s %s\n", I(x, "line"), S(x, "name"), S(x, "opcode"),
                                            S(x, "type"));
    }
  }
}

void hs_text_decisions(hs_out *o, json_t *j, const hs_text_input *in) {
  size_t i;
  json_t *x;
  json_array_foreach(json_object_get(j, "decisions"), i, x) {
    hs_outf(o, "line %-5lld %-11s %-16s %s\n", I(x, "line"), S(x, "kind"), S(x, "name"), S(x, "detail"));
    const char *path = S(x, "path");
    int has_src = json_is_string(json_object_get(x, "source"));
    if (has_src || *path)
      hs_outf(o, "           %s%s%s%s\n", *path ? "in " : "", path, has_src ? (*path ? "  at " : "at ") : "",
              has_src ? S(x, "source") : "");
  }
  if (!json_array_size(json_object_get(j, "decisions"))) hs_outf(o, "no decisions found\n");
  hs_tx_warnings(o, json_object_get(j, "warnings"), NULL);
}

void hs_text_overlap(hs_out *o, json_t *j, const hs_text_input *in) {
  size_t i, k;
  json_t *t, *x;
  hs_outf(o, "%s\n", S(j, "explanation"));
  json_array_foreach(json_object_get(j, "transfers"), i, t) {
    hs_outf(o, "line %-5lld %-18s %s -> %s in %s, %lld bytes", I(t, "line"), S(t, "kind"), S(t, "start"),
            json_is_string(json_object_get(t, "done")) ? S(t, "done") : "(no done)", S(t, "computation"), I(t, "bytes"));
    if (json_is_integer(json_object_get(t, "trip_count"))) hs_outf(o, " per iteration (%lld iterations)", I(t, "trip_count"));
    json_t *ov = json_object_get(t, "overlapped");
    if (json_is_true(json_object_get(t, "sync"))) hs_outf(o, "\n           sync: nothing overlaps it\n");
    else if (!json_is_string(json_object_get(t, "done"))) hs_outf(o, "\n           its done is not in the text\n");
    else if (!json_is_array(ov)) hs_outf(o, "\n           not scheduled: what overlaps it is not known\n");
    else if (!json_array_size(ov)) hs_outf(o, "\n           overlaps no kernel\n");
    else {
      hs_outf(o, "\n           in flight while:");
      json_array_foreach(ov, k, x) hs_outf(o, "%s %s", k ? "," : "", json_string_value(x));
      hs_outf(o, "\n");
    }
  }
}

/* The next line of [*p, end): its length (up to a newline, a NUL or the end); *p moves past the
 * newline, and stays on a NUL (a text is read as a C string: nothing after a NUL is a line). */
static size_t next_line(const char **p, const char *end) {
  const char *s = *p, *q = s;
  while (q < end && *q != '\n' && *q != 0) q++;
  size_t n = (size_t)(q - s);
  *p = q < end && *q == '\n' ? q + 1 : q;
  return n;
}

void hs_text_xray(hs_out *o, json_t *j, const hs_text_input *in) {
  json_t *s = json_object_get(j, "summary");
  hs_outf(o, "%s\n%s\n", S(s, "stat"), S(s, "explanation"));
  const char *paths[2] = {in->path ? in->path : "-", in->path_b ? in->path_b : "-"};
  const char *texts[2] = {in->text ? in->text : "", in->text_b ? in->text_b : ""};
  size_t lens[2] = {in->text ? in->len : 0, in->text_b ? in->len_b : 0};
  const char *keys[2] = {"left", "right"};
  for (int side = 0; side < 2; side++) {
    hs_outf(o, "\n== %s (%s)\n", paths[side], side ? "what XLA decided" : "what XLA received");
    const char *p = texts[side], *end = texts[side] + lens[side];
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(j, keys[side]), i, l) {
      const char *line = p;
      size_t n = next_line(&p, end);
      hs_outf(o, "%5lld %-6s %c %.*s%s\n", I(l, "line"), S(l, "class"), json_is_true(json_object_get(l, "carries")) ? '_' : ' ',
              (int)(n > 100 ? 100 : n), line, n > 100 ? "..." : "");
      hs_outf(o, "             %s\n", S(l, "note"));
    }
  }
}

void hs_text_layout(hs_out *o, json_t *j, const hs_text_input *in) {
  char a[32], b[32], c[32];
  hs_tx_bytes(I(j, "logical_bytes"), a, sizeof a);
  hs_tx_bytes(I(j, "padded_bytes"), b, sizeof b);
  hs_tx_bytes(I(j, "padding_bytes"), c, sizeof c);
  hs_outf(o, "%s\n%s\n", S(j, "type"), S(j, "words"));
  hs_outf(o, "logical %s (%lld bytes), laid out %s (%lld bytes): padding %s (%lld bytes)\n", a, I(j, "logical_bytes"), b,
          I(j, "padded_bytes"), c, I(j, "padding_bytes"));
}

void hs_text_layouts(hs_out *o, json_t *j, const hs_text_input *in) {
  char a[32], b[32], c[32];
  hs_tx_bytes(I(j, "padding_bytes"), c, sizeof c);
  hs_tx_bytes(I(j, "padded_bytes"), b, sizeof b);
  hs_outf(o, "%lld values, laid out %s, of which padding %s\n", I(j, "values"), b, c);
  hs_outf(o, "%12s %12s %6s  %-28s %s\n", "padding", "padded", "line", "value", "type");
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(j, "rows"), i, r) {
    hs_tx_bytes(I(r, "padding_bytes"), a, sizeof a);
    hs_tx_bytes(I(r, "padded_bytes"), b, sizeof b);
    hs_outf(o, "%12s %12s %6lld  %-28s %s\n", a, b, I(r, "line"), S(r, "name"), S(r, "type"));
  }
}
