/* Where an HLO text sits in XLA's pipeline, and whether the text is whole: the evidence a
 * reader needs before trusting a kernel-level claim (a spill, HBM traffic, a carry count).
 *
 * Stages, from the text alone (a dump folder's file name says more; the notebook adds it):
 *  - after optimizations: the module header says `is_scheduled=true` (XLA schedules a module at
 *    the very end of its pipeline; `compile().as_text()` and *after_optimizations.txt are);
 *  - a pass step: fusion ops are there (kernels are decided) but the module is not scheduled;
 *  - after SPMD partitioning: no fusion, not scheduled, and the module reads its partition
 *    (`partition-id`) or talks across devices (collectives) while carrying `sharding=` without
 *    the `Sharding` custom calls the partitioner consumes;
 *  - before optimizations: none of that (no fusion pass has run, nothing is scheduled).
 * A partial text is one a reader warned was cut (HS_W_TRUNCATED) or one whose last computation
 * never closed. */
#include <string.h>

#include "analyses/analyses.h"

static const char *const STAGE_NAMES[] = {NULL, "before_optimizations", "after_spmd_partitioning", "pass_step",
                                          "after_optimizations"};

const char *hs_stage_name(int stage) {
  return stage > 0 && stage < (int)(sizeof STAGE_NAMES / sizeof STAGE_NAMES[0]) ? STAGE_NAMES[stage] : NULL;
}

static bool text_has(const hs_doc *d, size_t from, size_t to, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = from; i + n <= to; i++)
    if (d->text[i] == needle[0] && memcmp(d->text + i, needle, n) == 0) return true;
  return false;
}

/* The bytes of the line starting at a: [*from, *to). */
static void line_around(const hs_doc *d, size_t a, size_t *from, size_t *to) {
  if (a > d->len) a = d->len;
  const char *nl = memchr(d->text + a, '\n', d->len - a);
  *from = a;
  *to = nl ? (size_t)(nl - d->text) : d->len;
}

/* The bytes of module m's first line: [*from, *to). */
static void line_span(const hs_doc *d, uint32_t m, size_t *from, size_t *to) {
  *from = *to = 0;
  if (!d->modules[m].line || d->modules[m].line > d->n_lines) return;
  line_around(d, d->modules[m].off, from, to);
}

/* A name with its length, so that a list is matched without a strlen per name per instruction
 * (the stage is asked of every instruction of an unscheduled module: that was 8% of its read). */
typedef struct {
  const char *s;
  size_t n;
} name_len;
#define NAME_LEN(x) {x, sizeof x - 1}

static bool op_is_any(const hs_doc *d, const hs_instr *in, const name_len *names, size_t count) {
  for (size_t k = 0; k < count; k++)
    if (hs_opcode(d, in).len == names[k].n && memcmp(hs_sp(d, hs_opcode(d, in)), names[k].s, names[k].n) == 0) return true;
  return false;
}

bool hs_module_scheduled(const hs_doc *d, uint32_t m) {
  if (!d || d->format != HS_FORMAT_HLO || m >= d->n_modules) return false;
  size_t a, b;
  line_span(d, m, &a, &b);
  return b > a && text_has(d, a, b, "is_scheduled=true");
}

int hs_doc_stage(const hs_doc *d) {
  if (!d || d->format != HS_FORMAT_HLO) return HS_STAGE_NONE;
  for (uint32_t m = 0; m < d->n_modules; m++) {
    size_t a, b;
    line_span(d, m, &a, &b);
    if (b > a && text_has(d, a, b, "is_scheduled=true")) return HS_STAGE_AFTER_OPT;
  }
  static const name_len collectives[] = {NAME_LEN("partition-id"), NAME_LEN("all-reduce"), NAME_LEN("all-gather"),
                                         NAME_LEN("reduce-scatter"), NAME_LEN("all-to-all"), NAME_LEN("collective-permute"),
                                         NAME_LEN("all-reduce-start"), NAME_LEN("all-gather-start"),
                                         NAME_LEN("collective-permute-start")};
  bool spmd = false;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (hs_slice_is(d, hs_opcode(d, in), "fusion")) return HS_STAGE_PASS_STEP;
    if (op_is_any(d, in, collectives, sizeof collectives / sizeof collectives[0])) spmd = true;
  }
  if (spmd && text_has(d, 0, d->len, "sharding=") && !text_has(d, 0, d->len, "custom_call_target=\"Sharding\""))
    return HS_STAGE_AFTER_SPMD;
  return HS_STAGE_BEFORE_OPT;
}

/* Was module m's entry computation read? In HLO the entry is the one printed `ENTRY`: hs_resolve
 * names the last computation the entry when the text has none (a dump cut before it). */
bool hs_module_has_entry(const hs_doc *d, uint32_t m) {
  if (m >= d->n_modules || d->modules[m].entry < 0 || (uint32_t)d->modules[m].entry >= d->n_comps) return false;
  if (d->format != HS_FORMAT_HLO) return true;
  /* its header's line: the one its name is on */
  const hs_comp *c = &d->comps[d->modules[m].entry];
  if (!c->line || c->line > d->n_lines) return false;
  size_t a, b;
  line_around(d, hs_comp_line_off(d, c), &a, &b);
  while (a < b && (d->text[a] == ' ' || d->text[a] == '\t')) a++;
  return b - a >= 5 && memcmp(d->text + a, "ENTRY", 5) == 0;
}

bool hs_doc_has_entry(const hs_doc *d) {
  for (uint32_t m = 0; m < d->n_modules; m++)
    if (hs_module_has_entry(d, m)) return true;
  return false;
}

json_t *hs_partial_json(const hs_doc *d) {
  bool cut = false;
  for (uint32_t w = 0; w < d->n_warnings && !cut; w++) cut = d->warnings[w].code == HS_W_TRUNCATED;
  int32_t open = -1; /* the jaxpr reader keeps no end lines: only its warnings tell */
  for (uint32_t c = 0; c < d->n_comps && d->format != HS_FORMAT_JAXPR; c++)
    if (d->comps[c].end_line == 0) open = (int32_t)c;
  if (!cut && open < 0) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "line", json_integer(d->n_lines));
  json_object_set_new(o, "inside", open >= 0 ? hs_json_slice(d, d->comps[open].name) : json_null());
  json_object_set_new(o, "entry", json_boolean(hs_doc_has_entry(d)));
  return o;
}
