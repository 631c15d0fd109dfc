/* Result documents as JSON: summary, fusion census, spills, computations.
 * Key names and shapes are an interface (wasm/hloscope.d.ts, README.md): change them only with
 * both. Key order is insertion order, so native and wasm builds print identical bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analyses.h"

char *hs_summary_json(const hs_doc *d, size_t *len) {
  if (!d) return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "format", json_string(hs_format_name(d->format)));
  json_object_set_new(o, "module", d->n_modules && d->modules[0].name.len ? hs_json_slice(d, d->modules[0].name) : json_null());
  json_object_set_new(o, "modules", json_integer(d->n_modules));
  json_object_set_new(o, "lines", json_integer(d->n_lines));
  json_object_set_new(o, "computations", json_integer(d->n_comps));
  json_object_set_new(o, "instructions", json_integer(d->n_instrs));
  json_object_set_new(o, "warnings", hs_warnings_json(d->warnings, d->n_warnings));
  const char *stage = hs_stage_name(hs_doc_stage(d));
  json_object_set_new(o, "stage", stage ? json_string(stage) : json_null());
  json_object_set_new(o, "partial", hs_partial_json(d));
  hs_doc_signature_json(d, o);
  return hs_json_finish(o, len);
}

/* GPU/CPU custom fusions name their backend in backend_config.fusion_backend_config.kind. */
static json_t *backend_kind(const hs_doc *d, const hs_instr *in) {
  const hs_hlo_instr hv = hs_hlo_of(d, in), *h = &hv;
  if (!h->backend_config.len || d->text[h->backend_config.off] != '{') return json_null();
  json_error_t e;
  json_t *cfg = json_loadb(hs_sp(d, h->backend_config), h->backend_config.len, 0, &e);
  json_t *out = NULL;
  if (cfg) {
    json_t *k = json_object_get(json_object_get(cfg, "fusion_backend_config"), "kind");
    if (json_is_string(k)) out = json_string(json_string_value(k));
    json_decref(cfg);
  }
  return out ? out : json_null();
}

char *hs_fusions_json(const hs_doc *d, size_t *len) { return hs_fusions_json_rows(d, SIZE_MAX, len); }

char *hs_fusions_json_rows(const hs_doc *d, size_t rows, size_t *len) {
  if (!d) return NULL;
  size_t total = 0;
  hs_census c;
  hs_fusion_census(d, &c);
  json_t *o = json_object();
  json_object_set_new(o, "fusion_computations", json_integer((json_int_t)c.fusion_computations));
  json_object_set_new(o, "fusion_ops", json_integer((json_int_t)c.fusion_ops));
  json_object_set_new(o, "fusion_ops_top_level", json_integer((json_int_t)(c.fusion_ops - c.fusion_ops_nested)));
  json_object_set_new(o, "fusion_ops_nested", json_integer((json_int_t)c.fusion_ops_nested));
  json_t *arr = json_array();
  if (d->format == HS_FORMAT_HLO) {
    for (uint32_t i = 0; i < d->n_instrs; i++) {
      const hs_instr *in = &d->instrs[i];
      if (!hs_slice_is(d, hs_opcode(d, in), "fusion")) continue;
      if (total++ >= rows) continue; /* counted, not listed */
      json_t *f = json_object();
      json_object_set_new(f, "name", hs_json_slice(d, in->name));
      const hs_slice kind = hs_hlo_of(d, in).kind;
      json_object_set_new(f, "kind", kind.len ? hs_json_slice(d, kind) : json_null());
      int32_t body = -1;
      hs_slice calls = {0, 0};
      for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++) {
        const hs_call *cl = &d->calls[k0 + k];
        if (cl->attr == HS_CALL_CALLS) {
          calls = cl->name;
          body = cl->target;
          break;
        }
      }
      json_object_set_new(f, "calls", calls.len ? hs_json_slice(d, calls) : json_null());
      json_object_set_new(f, "type", hs_json_type(in->type));
      json_object_set_new(f, "bytes", json_integer((json_int_t)hs_type_bytes(in->type)));
      uint32_t m = in->comp < d->n_comps ? d->comps[in->comp].module : 0;
      json_object_set_new(f, "module", m < d->n_modules && d->modules[m].name.len ? hs_json_slice(d, d->modules[m].name) : json_null());
      json_object_set_new(f, "memory_space", json_integer(hs_type_mem_space(in->type)));
      json_object_set_new(f, "line", json_integer(in->line));
      json_object_set_new(f, "nested", json_boolean(in->comp < d->n_comps && d->comps[in->comp].role == HS_ROLE_FUSED));
      json_object_set_new(f, "backend_kind", backend_kind(d, in));
      json_t *ops = json_array();
      if (body >= 0) {
        const hs_comp *b = &d->comps[body];
        for (uint32_t k = b->first; k < b->first + b->count; k++) {
          const hs_slice op = hs_opcode(d, &d->instrs[k]);
          if (hs_slice_is(d, op, "parameter") || hs_slice_is(d, op, "constant")) continue;
          json_array_append_new(ops, hs_json_slice(d, op));
        }
      }
      json_object_set_new(f, "ops", ops);
      json_array_append_new(arr, f);
    }
  }
  json_object_set_new(o, "fusions", arr);
  /* a bounded list says how many rows there were (the full list's JSON stays as it was) */
  if (rows != SIZE_MAX) json_object_set_new(o, "fusions_total", json_integer((json_int_t)total));
  return hs_json_finish(o, len);
}

void hs_spills_explain(const hs_doc *d, const hs_spill_info *s, char *buf, size_t cap) {
  char ty[160], by[40];
  if (d->format != HS_FORMAT_HLO) {
    snprintf(buf, cap, "Kernel boundaries are decided by XLA: paste the optimized HLO (compile().as_text()) to see what crosses them.");
    return;
  }
  if (s->needs == HS_NEEDS_OPTIMIZED) {
    snprintf(buf, cap,
             "This is HLO %s: XLA has not decided its kernels yet (no fusion pass has run, nothing is scheduled), so "
             "nothing can be said about spills or HBM traffic. Paste the HLO after optimizations "
             "(compile().as_text(), or *after_optimizations.txt from a dump folder).",
             hs_doc_stage(d) == HS_STAGE_AFTER_SPMD ? "after SPMD partitioning" : "before optimizations");
    return;
  }
  if (s->needs == HS_NEEDS_ENTRY) {
    snprintf(buf, cap,
             "The dump ends before its entry computation (ENTRY): without it the fused bodies cannot be told from "
             "the kernels, so no big intermediate or HBM traffic is reported. Paste the whole module.");
    return;
  }
  if (s->big >= 0) {
    const hs_instr *in = &d->instrs[s->big];
    hs_type_format(s->big_type, ty, sizeof ty);
    hs_fmt_bytes(hs_type_bytes(s->big_type), by, sizeof by);
    int ms = hs_type_mem_space(s->big_type);
    if (ms == 0)
      snprintf(buf, cap,
               "%s (%s bytes), the result of %.*s, is the largest value that crosses a kernel boundary: "
               "one kernel writes it to HBM and %u consuming kernel%s read it back, so it spills.",
               ty, by, (int)in->name.len, hs_sp(d, in->name), s->consumers, s->consumers == 1 ? "" : "s");
    else
      snprintf(buf, cap,
               "%s (%s bytes), the result of %.*s, is the largest value that crosses a kernel boundary; "
               "it sits in %s at this size, so it does not spill to HBM.",
               ty, by, (int)in->name.len, hs_sp(d, in->name), hs_mem_space_words(ms));
  } else if (s->kept >= 0) {
    const hs_instr *in = &d->instrs[s->kept];
    hs_type_format(s->kept_type, ty, sizeof ty);
    hs_fmt_bytes(hs_type_bytes(s->kept_type), by, sizeof by);
    snprintf(buf, cap,
             "Only inputs and outputs cross kernel boundaries: the fusions keep every intermediate inside their "
             "kernels. The largest value kept off memory is %s (%s bytes, %.*s).",
             ty, by, (int)in->name.len, hs_sp(d, in->name));
  } else {
    snprintf(buf, cap, "Only inputs and outputs cross kernel boundaries, and no fusion holds an intermediate.");
  }
}

char *hs_spills_json(const hs_doc *d, size_t *len) {
  if (!d) return NULL;
  hs_spill_info s;
  hs_spill_analyse(d, &s);
  json_t *o = json_object();
  if (s.big >= 0) {
    const hs_instr *in = &d->instrs[s.big];
    json_t *b = json_object();
    json_object_set_new(b, "type", hs_json_type(s.big_type));
    json_object_set_new(b, "bytes", json_integer((json_int_t)hs_type_bytes(s.big_type)));
    json_object_set_new(b, "memory_space", json_integer(hs_type_mem_space(s.big_type)));
    json_object_set_new(b, "name", hs_json_slice(d, in->name));
    json_object_set_new(b, "line", json_integer(in->line));
    json_object_set_new(b, "consumers", json_integer(s.consumers));
    /* the tuple element of the result that is the big intermediate, or null (an array result) */
    json_object_set_new(b, "element", s.big_elem >= 0 ? json_integer(s.big_elem) : json_null());
    json_object_set_new(o, "big", b);
    json_object_set_new(o, "kept_off_memory", json_null());
  } else {
    json_object_set_new(o, "big", json_null());
    if (s.kept >= 0) {
      const hs_instr *in = &d->instrs[s.kept];
      json_t *k = json_object();
      json_object_set_new(k, "type", hs_json_type(s.kept_type));
      json_object_set_new(k, "bytes", json_integer((json_int_t)hs_type_bytes(s.kept_type)));
      json_object_set_new(k, "name", hs_json_slice(d, in->name));
      json_object_set_new(k, "line", json_integer(in->line));
      json_object_set_new(o, "kept_off_memory", k);
    } else {
      json_object_set_new(o, "kept_off_memory", json_null());
    }
  }
  json_t *carriers = json_array();
  uint64_t spill = 0;
  uint8_t *counted = s.big >= 0 ? calloc(d->n_lines ? d->n_lines : 1, 1) : NULL;
  if (counted) hs_big_carriers(d, &s, counted);
  if (s.big >= 0) {
    for (uint32_t li = 0; li < d->n_lines; li++) {
      int ms = 0;
      if (!hs_line_carries(d, li, s.big_type, &ms)) continue;
      const hs_line *l = &d->lines[li];
      json_t *c = json_object();
      json_object_set_new(c, "line", json_integer(li + 1));
      bool is_spill = false;
      if (l->kind == HS_LINE_INSTR) {
        const hs_instr *in = &d->instrs[l->ref];
        json_object_set_new(c, "name", hs_json_slice(d, in->name));
        is_spill = ms == 0 && !hs_comp_in_fused(d, in->comp) && !hs_instr_is_alias(d, in);
      } else {
        json_object_set_new(c, "name", hs_json_slice(d, d->comps[l->ref].name));
      }
      json_object_set_new(c, "memory_space", json_integer(ms));
      json_object_set_new(c, "spill", json_boolean(is_spill));
      json_object_set_new(c, "counted", json_boolean(counted && counted[li]));
      json_array_append_new(carriers, c);
    }
    if (hs_type_mem_space(s.big_type) == 0) spill = hs_type_bytes(s.big_type) * (1 + (uint64_t)s.consumers);
  }
  free(counted);
  json_object_set_new(o, "carriers", carriers);
  json_object_set_new(o, "spill_bytes", json_integer((json_int_t)spill));
  /* what no instruction reads: not a carrier, not traffic (a custom call's workspace) */
  json_object_set_new(o, "unread", hs_unread_json(d));
  if (s.needs) {
    json_object_set_new(o, "hbm_bytes", json_null());
  } else {
    json_t *h = json_object();
    json_object_set_new(h, "read", json_integer((json_int_t)s.hbm_read));
    json_object_set_new(h, "written", json_integer((json_int_t)s.hbm_written));
    json_object_set_new(o, "hbm_bytes", h);
  }
  json_object_set_new(o, "needs", s.needs == HS_NEEDS_OPTIMIZED ? json_string("optimized")
                                  : s.needs == HS_NEEDS_ENTRY   ? json_string("entry")
                                                                : json_null());
  char ex[600];
  hs_spills_explain(d, &s, ex, sizeof ex);
  json_object_set_new(o, "explanation", hs_json_bytes(ex, strlen(ex)));
  return hs_json_finish(o, len);
}

static const char *role_name(const hs_comp *c) {
  switch (c->role) {
    case HS_ROLE_ENTRY: return "entry";
    case HS_ROLE_FUSED: return "fused";
    case HS_ROLE_FUNCTION: return "function";
    case HS_ROLE_ASYNC: return "async";
    default: return "called";
  }
}

char *hs_computations_json(const hs_doc *d, size_t *len) {
  if (!d) return NULL;
  json_t *o = json_object();
  json_t *mods = json_array();
  for (uint32_t m = 0; m < d->n_modules; m++) {
    const hs_module *mod = &d->modules[m];
    json_t *mo = json_object();
    json_object_set_new(mo, "name", mod->name.len ? hs_json_slice(d, mod->name) : json_null());
    json_t *comps = json_array();
    for (uint32_t c = mod->first_comp; c < mod->first_comp + mod->comp_count && c < d->n_comps; c++) {
      const hs_comp *cp = &d->comps[c];
      json_t *co = json_object();
      json_object_set_new(co, "name", hs_json_slice(d, cp->name));
      json_object_set_new(co, "line", json_integer(cp->line));
      json_object_set_new(co, "role", json_string(role_name(cp)));
      json_object_set_new(co, "result", hs_json_type(cp->result));
      json_t *ins = json_array();
      for (uint32_t i = cp->first; i < cp->first + cp->count && i < d->n_instrs; i++) {
        const hs_instr *in = &d->instrs[i];
        json_t *io = json_object();
        json_object_set_new(io, "name", hs_json_slice(d, in->name));
        json_object_set_new(io, "opcode", hs_json_slice(d, hs_opcode(d, in)));
        json_object_set_new(io, "type", hs_json_type(in->type));
        json_object_set_new(io, "line", json_integer(in->line));
        /* made by the reader, as XLA's parser makes it: not a statement of the text */
        if (in->synth) json_object_set_new(io, "made", json_string(in->synth == HS_SYNTH_GTE ? "compact" : "nested"));
        json_array_append_new(ins, io);
      }
      json_object_set_new(co, "instructions", ins);
      json_array_append_new(comps, co);
    }
    json_object_set_new(mo, "computations", comps);
    json_array_append_new(mods, mo);
  }
  json_object_set_new(o, "modules", mods);
  return hs_json_finish(o, len);
}

