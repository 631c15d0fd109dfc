/* Analyses over a parsed HLO document: the fusion census and the big intermediate.
 * Definitions: ../shared/DESIGN.md "The analyses"; they are restated where they are applied. */
#include "analyses/analyses.h"

#include <limits.h>
#include <stdlib.h>

static bool op_is(const hs_doc *d, const hs_instr *in, const char *lit) { return hs_slice_is(d, hs_opcode(d, in), lit); }

int hs_fusion_census(const hs_doc *d, hs_census *out) {
  if (!d || !out) return HS_E_ARG;
  memset(out, 0, sizeof *out);
  if (d->format != HS_FORMAT_HLO) return HS_E_UNSUPPORTED;
  if (d->fusions_counted) {
    /* hs_resolve counted each computation's fusions: no pass over the instructions and their text */
    for (uint32_t c = 0; c < d->n_comps; c++) {
      const hs_comp *cp = &d->comps[c];
      out->fusion_ops += cp->fusions;
      if (cp->role == HS_ROLE_FUSED) {
        out->fusion_computations++;
        out->fusion_ops_nested += cp->fusions;
      }
    }
    return 0;
  }
  for (uint32_t c = 0; c < d->n_comps; c++)
    if (d->comps[c].role == HS_ROLE_FUSED) out->fusion_computations++;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (!op_is(d, in, "fusion")) continue;
    out->fusion_ops++;
    if (in->comp < d->n_comps && d->comps[in->comp].role == HS_ROLE_FUSED) out->fusion_ops_nested++;
  }
  return 0;
}

/* Aliases and data movement are not intermediates: they name memory another op wrote. */
bool hs_instr_is_alias(const hs_doc *d, const hs_instr *in) {
  static const char *const names[] = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast",
                                      "copy-start", "copy-done", "opt-barrier", "after-all",
                                      "add-dependency", "domain"};
  hs_slice op = hs_opcode(d, in);
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (hs_slice_is(d, op, names[k])) return true;
  return false;
}

/* Ops that pass a value through to their users (their users consume the value itself). */
static bool forwards(const hs_doc *d, const hs_instr *in) {
  return op_is(d, in, "bitcast") || op_is(d, in, "get-tuple-element") || op_is(d, in, "copy-start") ||
         op_is(d, in, "copy-done") || op_is(d, in, "opt-barrier") || op_is(d, in, "reshape");
}

static bool is_parameter_copy(const hs_doc *d, const hs_instr *in) {
  if (!op_is(d, in, "copy") || hs_op_count(d, in) != 1) return false;
  int32_t t = d->operands[in->op_first].target;
  return t >= 0 && op_is(d, &d->instrs[t], "parameter");
}

int32_t hs_gte_index(const hs_doc *d, const hs_instr *in) {
  if (!op_is(d, in, "get-tuple-element")) return -1;
  if (in->synth == HS_SYNTH_GTE) return hs_synth_gte_index(d, in);
  if (hs_slice_synth(d, hs_opcode(d, in))) return -1;
  for (size_t p = hs_opcode_end(d, in); p + 6 < d->len && d->text[p] != '\n'; p++) {
    if (memcmp(d->text + p, "index=", 6) != 0 || (d->text[p - 1] != ' ' && d->text[p - 1] != ',')) continue;
    int32_t v = 0;
    size_t q = p + 6;
    if (q >= d->len || d->text[q] < '0' || d->text[q] > '9') return -1;
    for (; q < d->len && d->text[q] >= '0' && d->text[q] <= '9' && v < 100000000; q++) v = v * 10 + (d->text[q] - '0');
    return v;
  }
  return -1;
}

/* Per tuple element of each tuple-valued result: a slot. base[i] is instruction i's first slot
 * (UINT32_MAX when its result is no tuple); returns the slot count (0 on OOM: *base NULL). */
static uint32_t element_slots(const hs_doc *d, uint32_t **base) {
  *base = malloc(d->n_instrs * sizeof **base);
  if (!*base) return 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_type *t = d->instrs[i].type;
    (*base)[i] = t && t->kind == HS_T_TUPLE && t->n ? n : UINT32_MAX;
    if ((*base)[i] != UINT32_MAX) n += t->n;
  }
  return n;
}

/* used[slot]: some instruction reads that element: a get-tuple-element of its index, or an
 * instruction taking the whole tuple (a tuple, a while, a kernel), or the value is its
 * computation's ROOT (an output). The rule of a carrier, per element: nothing reads a
 * workspace. */
static void elements_used(const hs_doc *d, const uint32_t *base, uint8_t *used) {
  for (uint32_t j = 0; j < d->n_instrs; j++) {
    const hs_instr *in = &d->instrs[j];
    if (in->is_root && base[j] != UINT32_MAX) memset(used + base[j], 1, in->type->n);
    int32_t gi = hs_gte_index(d, in);
    for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
      int32_t t = d->operands[in->op_first + k].target;
      if (t < 0 || base[t] == UINT32_MAX) continue;
      uint32_t n = d->instrs[t].type->n;
      if (gi >= 0 && k == 0) {
        if ((uint32_t)gi < n) used[base[t] + (uint32_t)gi] = 1;
      } else {
        memset(used + base[t], 1, n);
      }
    }
  }
}

static bool unread_is_workspace(const hs_doc *d, const hs_instr *in, uint32_t k) {
  const hs_type *e = in->type->elems[k];
  if (!op_is(d, in, "custom-call") || k + 1 != in->type->n || k == 0 || !e || e->kind != HS_T_ARRAY || e->n != 1)
    return false;
  const char *nm = hs_elem_types[e->elem].hlo;
  return strcmp(nm, "u8") == 0 || strcmp(nm, "s8") == 0;
}

json_t *hs_unread_json(const hs_doc *d) {
  json_t *a = json_array();
  if (!d || d->format != HS_FORMAT_HLO || !d->n_instrs) return a;
  uint32_t *base;
  uint32_t n = element_slots(d, &base);
  uint8_t *used = n ? calloc(n, 1) : NULL;
  if (!used) {
    free(base);
    return a;
  }
  elements_used(d, base, used);
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (base[i] == UINT32_MAX || hs_comp_in_fused(d, in->comp) || hs_instr_is_alias(d, in) || hs_instr_is_async(d, in))
      continue;
    if (!hs_module_has_entry(d, d->comps[in->comp].module)) continue;
    /* a loop's or a branch's state is no kernel's output */
    if (op_is(d, in, "while") || op_is(d, in, "conditional") || op_is(d, in, "call")) continue;
    for (uint32_t k = 0; k < in->type->n; k++) {
      if (used[base[i] + k]) continue;
      json_t *o = json_object();
      json_object_set_new(o, "name", hs_json_slice(d, in->name));
      json_object_set_new(o, "opcode", hs_json_slice(d, hs_opcode(d, in)));
      json_object_set_new(o, "computation", hs_json_slice(d, d->comps[in->comp].name));
      json_object_set_new(o, "line", json_integer(in->line));
      json_object_set_new(o, "index", json_integer(k));
      json_object_set_new(o, "type", hs_json_type(in->type->elems[k]));
      json_object_set_new(o, "bytes", json_integer((json_int_t)hs_type_bytes(in->type->elems[k])));
      json_object_set_new(o, "workspace", json_boolean(unread_is_workspace(d, in, k)));
      json_array_append_new(a, o);
    }
  }
  free(used);
  free(base);
  return a;
}

/* The largest array inside a value (the value itself for arrays). */
const hs_type *hs_largest_array(const hs_type *t) {
  if (!t) return NULL;
  if (t->kind == HS_T_ARRAY) return t;
  if (t->kind != HS_T_TUPLE) return NULL;
  const hs_type *best = NULL;
  for (uint32_t i = 0; i < t->n; i++) {
    const hs_type *e = hs_largest_array(t->elems[i]);
    if (e && (!best || hs_type_bytes(e) > hs_type_bytes(best))) best = e;
  }
  return best;
}

/* The element of tuple t that hs_largest_array(t) picks, when that is an element itself (not
 * inside a nested tuple); -1 otherwise. By position: equal shapes are one object (types.c), so
 * the pick cannot be told by its address. */
static int32_t largest_top_element(const hs_type *t) {
  const hs_type *best = NULL;
  int32_t at = -1;
  for (uint32_t i = 0; i < t->n; i++) {
    const hs_type *e = hs_largest_array(t->elems[i]);
    if (e && (!best || hs_type_bytes(e) > hs_type_bytes(best))) {
      best = e;
      at = t->elems[i] == e ? (int32_t)i : -1;
    }
  }
  return at;
}

/* Bytes of a value that live in the default memory space (HBM). */
static uint64_t hbm_bytes_of(const hs_type *t) {
  if (!t) return 0;
  if (t->kind == HS_T_TUPLE) {
    uint64_t s = 0;
    for (uint32_t i = 0; i < t->n; i++) s += hbm_bytes_of(t->elems[i]);
    return s;
  }
  return t->mem_space <= 0 ? hs_type_bytes(t) : 0;
}

static const hs_type *operand_type(const hs_doc *d, const hs_operand *o) {
  if (o->target < 0) return NULL;
  return d->instrs[o->target].type;
}

/* The number N of "parameter(N)", read from the text after the opcode. */
static int param_number(const hs_doc *d, const hs_instr *in) {
  size_t p = hs_opcode_end(d, in);
  if (p >= d->len || d->text[p] != '(') return -1;
  int v = 0;
  for (p++; p < d->len && d->text[p] >= '0' && d->text[p] <= '9'; p++) {
    if (v > (INT_MAX - 9) / 10) return -1; /* no parameter has that number: a cut or garbled text */
    v = v * 10 + (d->text[p] - '0');
  }
  return v;
}

/* Per operand of a fusion, what kernel_read_bytes learns from its body; arrays of at least the
 * largest operand count of any instruction (hs_spill_analyse sizes them once). */
typedef struct {
  int32_t *param;   /* the body's first parameter of that number, or -1 */
  uint8_t *whole;   /* some use reads it whole */
  uint64_t *sliced; /* bytes its dynamic-slice uses read */
} read_scratch;

/* Bytes a kernel reads from its operands, memory-space aware. As XLA's cost analysis does, a
 * slice reads only what it slices, and the buffer an in-place dynamic-update-slice writes into is
 * not read at all; inside a fusion that is decided by how the body uses each parameter (the body
 * is read once for all of them). */
static uint64_t kernel_read_bytes(const hs_doc *d, const hs_instr *in, const read_scratch *s) {
  int32_t body = -1;
  if (op_is(d, in, "fusion"))
    for (uint32_t c0, c = 0, c_end = hs_calls_of(d, in, &c0); c < c_end; c++)
      if (d->calls[c0 + c].attr == HS_CALL_CALLS) body = d->calls[c0 + c].target;
  const hs_comp *b = body >= 0 ? &d->comps[body] : NULL;
  if (b) {
    for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) s->param[k] = -1, s->whole[k] = 0, s->sliced[k] = 0;
    for (uint32_t i = b->first; i < b->first + b->count; i++) {
      int n = op_is(d, &d->instrs[i], "parameter") ? param_number(d, &d->instrs[i]) : -1;
      if (n >= 0 && (uint32_t)n < hs_op_count(d, in) && s->param[n] < 0) s->param[n] = (int32_t)i;
    }
    for (uint32_t i = b->first; i < b->first + b->count; i++) {
      const hs_instr *u = &d->instrs[i];
      for (uint32_t j = 0, j_end = hs_op_count(d, u); j < j_end; j++) {
        int32_t t = d->operands[u->op_first + j].target;
        if (t < (int32_t)b->first || t >= (int32_t)(b->first + b->count) || !op_is(d, &d->instrs[t], "parameter")) continue;
        int n = param_number(d, &d->instrs[t]);
        if (n < 0 || (uint32_t)n >= hs_op_count(d, in) || s->param[n] != t) continue;
        if (j == 0 && op_is(d, u, "dynamic-slice")) s->sliced[n] += hs_type_bytes(u->type);
        else if (!(j == 0 && op_is(d, u, "dynamic-update-slice"))) s->whole[n] = 1;
      }
    }
  }
  uint64_t sum = 0;
  for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
    uint64_t full = hbm_bytes_of(operand_type(d, &d->operands[in->op_first + k]));
    if (!full) continue;
    if (b) sum += s->param[k] < 0 || s->whole[k] || s->sliced[k] > full ? full : s->sliced[k];
    else if (k == 0 && op_is(d, in, "dynamic-slice")) sum += hbm_bytes_of(in->type);
    else if (!(k == 0 && op_is(d, in, "dynamic-update-slice"))) sum += full;
  }
  return sum;
}

/* Bytes a kernel writes: an in-place dynamic-update-slice (alone or as a fusion's root, maybe
 * behind a bitcast) writes only its update. */
static uint64_t result_write_bytes(const hs_doc *d, const hs_instr *in) {
  const hs_instr *r = in;
  if (op_is(d, in, "fusion")) {
    for (uint32_t c0, c = 0, c_end = hs_calls_of(d, in, &c0); c < c_end; c++) {
      const hs_call *cl = &d->calls[c0 + c];
      if (cl->attr == HS_CALL_CALLS && cl->target >= 0 && d->comps[cl->target].root >= 0)
        r = &d->instrs[d->comps[cl->target].root];
    }
    while (op_is(d, r, "bitcast") && hs_op_count(d, r) == 1 && d->operands[r->op_first].target >= 0)
      r = &d->instrs[d->operands[r->op_first].target];
  }
  if (op_is(d, r, "dynamic-update-slice") && hs_op_count(d, r) >= 2 && in->type && in->type->kind == HS_T_ARRAY &&
      in->type->mem_space <= 0)
    return hs_type_bytes(operand_type(d, &d->operands[r->op_first + 1]));
  return hbm_bytes_of(in->type);
}

static bool in_async_comp(const hs_doc *d, uint32_t comp) { return comp < d->n_comps && d->comps[comp].role == HS_ROLE_ASYNC; }

/* What hs_spill_analyse asks of each instruction, decided once per instruction (each question is
 * a few string compares of the opcode, and the loops below ask them per operand). */
enum {
  IF_FORWARDS = 1,  /* forwards(): its users consume the value it passes through */
  IF_ALIAS = 2,     /* hs_instr_is_alias() */
  IF_ASYNC = 4,     /* hs_instr_is_async() */
  IF_DONE = 8,      /* hs_instr_is_done() */
  IF_CONTROL = 16,  /* while, call, conditional */
  IF_ENTRY = 32,    /* its module's entry computation was read (hs_module_has_entry) */
  IF_PARAM_COPY = 64 /* is_parameter_copy() */
};

static uint8_t *instr_flags(const hs_doc *d) {
  uint8_t *f = malloc(d->n_instrs ? d->n_instrs : 1);
  uint8_t *entry = calloc(d->n_modules ? d->n_modules : 1, 1);
  if (!f || !entry) {
    free(f);
    free(entry);
    return NULL;
  }
  for (uint32_t m = 0; m < d->n_modules; m++) entry[m] = hs_module_has_entry(d, m);
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    uint32_t m = d->comps[in->comp].module;
    f[i] = (uint8_t)((forwards(d, in) ? IF_FORWARDS : 0) | (hs_instr_is_alias(d, in) ? IF_ALIAS : 0) |
                     (hs_instr_is_async(d, in) ? IF_ASYNC : 0) | (hs_instr_is_done(d, in) ? IF_DONE : 0) |
                     (op_is(d, in, "while") || op_is(d, in, "call") || op_is(d, in, "conditional") ? IF_CONTROL : 0) |
                     (m < d->n_modules && entry[m] ? IF_ENTRY : 0) | (is_parameter_copy(d, in) ? IF_PARAM_COPY : 0));
  }
  free(entry);
  return f;
}

void hs_spill_analyse(const hs_doc *d, hs_spill_info *out) {
  memset(out, 0, sizeof *out);
  out->big = out->kept = out->big_elem = -1;
  if (d->format != HS_FORMAT_HLO || !d->n_instrs) return;
  /* Kernel-level claims need kernels: a module XLA has not fused and scheduled has none yet. */
  int stage = hs_doc_stage(d);
  if (stage == HS_STAGE_BEFORE_OPT || stage == HS_STAGE_AFTER_SPMD) {
    out->needs = HS_NEEDS_OPTIMIZED;
    return;
  }
  /* Without its entry computation a module's fused bodies cannot be told from top-level code:
   * a value inside a fusion would pass for one written to memory. */
  if (!hs_doc_has_entry(d)) {
    out->needs = HS_NEEDS_ENTRY;
    return;
  }
  uint32_t *eff = calloc(d->n_instrs, sizeof *eff);
  uint32_t *stamp = calloc(d->n_instrs, sizeof *stamp);
  uint32_t *base = NULL;
  uint32_t n_slots = element_slots(d, &base);
  /* per tuple element: the kernels reading it (each once), the last kernel counted, whether
     anything uses it at all */
  uint32_t *elem_reads = calloc(n_slots ? n_slots : 1, sizeof *elem_reads);
  uint32_t *elem_stamp = calloc(n_slots ? n_slots : 1, sizeof *elem_stamp);
  uint8_t *used = calloc(n_slots ? n_slots : 1, 1);
  uint8_t *fl = instr_flags(d);
  uint32_t max_ops = 1;
  for (uint32_t i = 0; i < d->n_instrs; i++)
    if (hs_op_count(d, &d->instrs[i]) > max_ops) max_ops = hs_op_count(d, &d->instrs[i]);
  read_scratch rs = {malloc(max_ops * sizeof *rs.param), malloc(max_ops), malloc(max_ops * sizeof *rs.sliced)};
  if (!eff || !stamp || !base || !elem_reads || !elem_stamp || !used || !fl || !rs.param || !rs.whole || !rs.sliced) {
    free(rs.param);
    free(rs.whole);
    free(rs.sliced);
    free(fl);
    free(eff);
    free(stamp);
    free(base);
    free(elem_reads);
    free(elem_stamp);
    free(used);
    return;
  }
  elements_used(d, base, used);
#define READ_ELEM(t_, k_)                                                        \
  do {                                                                           \
    uint32_t s_ = base[(t_)] + (k_);                                             \
    if (elem_stamp[s_] != j + 1) elem_stamp[s_] = j + 1, elem_reads[s_]++;       \
  } while (0)
  /* consumers: each kernel counts once for every value it reads, also through pass-through ops
     (x * x reads x once; a kernel reading two elements of one tuple reads the tuple once), and
     once for each tuple element it reads (through get-tuple-element, or all of them when it
     takes the tuple whole); operands come before their users in HLO text */
  for (uint32_t j = 0; j < d->n_instrs; j++) {
    const hs_instr *in = &d->instrs[j];
    if (fl[j] & (IF_FORWARDS | IF_ALIAS)) continue;
    for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
      int32_t t = d->operands[in->op_first + k].target;
      if (t >= 0 && (uint32_t)t < j && base[t] != UINT32_MAX && !(fl[t] & IF_FORWARDS))
        for (uint32_t e = 0; e < d->instrs[t].type->n; e++) READ_ELEM(t, e);
      while (t >= 0 && (uint32_t)t < j && stamp[t] != j + 1) {
        stamp[t] = j + 1;
        eff[t]++;
        const hs_instr *ti = &d->instrs[t];
        if (!(fl[t] & IF_FORWARDS) || !hs_op_count(d, ti)) break;
        int32_t next = d->operands[ti->op_first].target;
        if (next >= t) break;
        int32_t gi = hs_gte_index(d, ti);
        if (gi >= 0 && next >= 0 && base[next] != UINT32_MAX && (uint32_t)gi < d->instrs[next].type->n)
          READ_ELEM(next, (uint32_t)gi);
        t = next;
      }
    }
  }
#undef READ_ELEM
  free(stamp);
  free(elem_stamp);
  /* each async transfer once: what its done delivers is written, what its start reads is read */
  uint32_t n_pairs = 0;
  hs_async_pair *pairs = hs_async_pairs(d, &n_pairs);
  for (uint32_t k = 0; k < n_pairs; k++) {
    const hs_instr *st = &d->instrs[pairs[k].start];
    if (hs_comp_in_fused(d, st->comp) || !(fl[pairs[k].start] & IF_ENTRY)) continue;
    if (pairs[k].done >= 0) out->hbm_written += hbm_bytes_of(d->instrs[pairs[k].done].type);
    out->hbm_read += kernel_read_bytes(d, st, &rs);
  }
  free(pairs);
  uint64_t best = 0, kept_best = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (!(fl[i] & IF_ENTRY)) continue; /* a module cut before its entry */
    bool inner = hs_comp_in_fused(d, in->comp);
    if (inner) {
      /* values the fusions kept off memory */
      if (op_is(d, in, "parameter") || op_is(d, in, "constant") || op_is(d, in, "bitcast") ||
          op_is(d, in, "tuple") || op_is(d, in, "get-tuple-element") || op_is(d, in, "fusion"))
        continue;
      const hs_type *a = hs_largest_array(in->type);
      uint64_t b = hs_type_bytes(a);
      if (a && b > kept_best) {
        kept_best = b;
        out->kept = (int32_t)i;
        out->kept_type = a;
      }
      continue;
    }
    bool async = fl[i] & IF_ASYNC;
    /* HBM traffic of the top-level kernels (the transfers were counted above; what an async
       computation runs is that transfer); a tuple element nothing reads is no traffic */
    if (!(fl[i] & IF_ALIAS) && !async && !in_async_comp(d, in->comp)) {
      if (!(fl[i] & IF_CONTROL)) {
        uint64_t w = result_write_bytes(d, in);
        if (base[i] != UINT32_MAX)
          for (uint32_t e = 0; e < in->type->n; e++)
            if (!used[base[i] + e]) {
              uint64_t u = hbm_bytes_of(in->type->elems[e]);
              w = w > u ? w - u : 0;
            }
        out->hbm_written += w;
        out->hbm_read += kernel_read_bytes(d, in, &rs);
      }
    }
    /* a start's value is the transfer in flight: its done is the value kernels read */
    if ((fl[i] & (IF_ALIAS | IF_PARAM_COPY)) || !eff[i] || (async && !(fl[i] & IF_DONE))) continue;
    const hs_type *a = NULL;
    int32_t elem = -1;
    uint32_t readers = eff[i];
    if (base[i] != UINT32_MAX) {
      /* per element: the largest one a kernel reads */
      for (uint32_t e = 0; e < in->type->n; e++) {
        if (!elem_reads[base[i] + e]) continue;
        const hs_type *x = hs_largest_array(in->type->elems[e]);
        if (x && (!a || hs_type_bytes(x) > hs_type_bytes(a))) {
          a = x;
          elem = (int32_t)e;
          readers = elem_reads[base[i] + e];
        }
      }
    } else {
      a = hs_largest_array(in->type);
    }
    uint64_t b = hs_type_bytes(a);
    if (a && b > best) {
      best = b;
      out->big = (int32_t)i;
      out->big_type = a;
      out->big_elem = elem;
      out->consumers = readers;
    }
  }
  if (out->big >= 0) {
    out->kept = -1;
    out->kept_type = NULL;
  }
  free(eff);
  free(base);
  free(elem_reads);
  free(used);
  free(fl);
  free(rs.param);
  free(rs.whole);
  free(rs.sliced);
}

/* Does line `li` define a value of type t (an instruction's result or a computation's declared
 * result), layout aside? Fills the memory space of that value. */
bool hs_line_carries(const hs_doc *d, uint32_t li, const hs_type *t, int *mem_space) {
  if (!t || li >= d->n_lines) return false;
  const hs_line *l = &d->lines[li];
  const hs_type *v = NULL;
  int ms = 0;
  if (l->kind == HS_LINE_INSTR) {
    v = d->instrs[l->ref].type;
    if (!hs_type_contains(v, t)) return false;
    if (v->kind == HS_T_TUPLE) {
      for (uint32_t k = 0; k < v->n; k++)
        if (hs_type_equal(v->elems[k], t)) {
          ms = hs_type_mem_space(v->elems[k]);
          break;
        }
    } else {
      ms = hs_type_mem_space(v);
    }
  } else if (l->kind == HS_LINE_COMP) {
    const hs_comp *c = &d->comps[l->ref];
    v = c->result;
    if (!hs_type_contains(v, t)) return false;
    /* the header prints no layout: the value is the ROOT's */
    if (c->root >= 0) ms = hs_type_mem_space(d->instrs[c->root].type);
  } else {
    return false;
  }
  if (mem_space) *mem_space = ms;
  return true;
}

/* The lines that carry the big intermediate and count (DESIGN.md): the instruction that computes
 * it (inside a fused body, the one that produces it), the kernel that writes it (the fusion op or
 * the top-level op), and each kernel that reads it (through pass-through ops such as bitcast and
 * get-tuple-element). Other lines of that type are context, not counted. */
uint32_t hs_big_carriers(const hs_doc *d, const hs_spill_info *si, uint8_t *marks) {
  if (si->big < 0 || !marks) return 0;
  uint32_t n = 0;
#define MARK(ix)                                                      \
  do {                                                                \
    uint32_t l_ = d->instrs[(ix)].line;                               \
    if (l_ >= 1 && l_ <= d->n_lines && !marks[l_ - 1]) marks[l_ - 1] = 1, n++; \
  } while (0)
  const hs_instr *w = &d->instrs[si->big];
  MARK(si->big);
  /* the producer inside the fused body: its root, or the root tuple's element of that type */
  if (op_is(d, w, "fusion")) {
    for (uint32_t c0, c = 0, c_end = hs_calls_of(d, w, &c0); c < c_end; c++) {
      const hs_call *cl = &d->calls[c0 + c];
      if (cl->attr != HS_CALL_CALLS || cl->target < 0 || d->comps[cl->target].root < 0) continue;
      int32_t p = d->comps[cl->target].root;
      const hs_instr *r = &d->instrs[p];
      if (op_is(d, r, "tuple") && w->type && w->type->kind == HS_T_TUPLE) {
        int32_t k = si->big_elem >= 0 ? si->big_elem : largest_top_element(w->type);
        if (k >= 0 && (uint32_t)k < hs_op_count(d, r)) p = d->operands[r->op_first + (uint32_t)k].target;
      }
      while (p >= 0 && op_is(d, &d->instrs[p], "bitcast") && hs_op_count(d, &d->instrs[p]) == 1)
        p = d->operands[d->instrs[p].op_first].target;
      if (p >= 0) MARK(p);
    }
  }
  /* the kernels reading it: users come after their operands in HLO text */
  uint8_t *via = calloc(d->n_instrs, 1); /* W and the pass-through ops that forward it */
  if (!via) return n;
  via[si->big] = 1;
  for (uint32_t j = (uint32_t)si->big + 1; j < d->n_instrs; j++) {
    const hs_instr *u = &d->instrs[j];
    if (u->comp != w->comp) continue;
    bool reads = false;
    for (uint32_t k = 0; k < hs_op_count(d, u) && !reads; k++) {
      int32_t t = d->operands[u->op_first + k].target;
      reads = t >= 0 && via[t];
    }
    if (!reads) continue;
    /* of W's tuple, only the element that is the big intermediate: a workspace beside it is
       read by no one, and another element's readers do not read this one */
    if (si->big_elem >= 0 && op_is(d, u, "get-tuple-element") && hs_op_count(d, u) &&
        d->operands[u->op_first].target == si->big && hs_gte_index(d, u) != si->big_elem)
      continue;
    if (forwards(d, u)) via[j] = 1;
    else if (!hs_instr_is_alias(d, u)) MARK(j);
  }
  free(via);
#undef MARK
  return n;
}
