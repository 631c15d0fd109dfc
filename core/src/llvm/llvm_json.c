/* The LLVM IR model as JSON (llvm_model.h; keys in README.md and wasm/hloscope.d.ts `Llvm`), each
 * kernel joined to the HLO instruction it is named after, with what the HLO knew that the IR
 * does not. */
#include <stdio.h>
#include <stdlib.h>

#include "llvm/llvm.h"

/* ---- JSON ------------------------------------------------------------------------------ */
static json_t *jslice(const hs_llvm *m, hs_slice s) { return hs_json_bytes(m->text + s.off, s.len); }

static void bump(json_t *obj, const char *key) {
  json_t *v = json_object_get(obj, key);
  json_object_set_new(obj, key, json_integer(v ? json_integer_value(v) + 1 : 1));
}

static void bumpn(json_t *obj, const char *s, size_t n) {
  char k[160];
  if (n >= sizeof k) n = sizeof k - 1;
  memcpy(k, s, n);
  k[n] = 0;
  /* keys must be valid UTF-8 for jansson: keep ASCII only */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)k[i] >= 127 || (unsigned char)k[i] < 32) k[i] = '?';
  bump(obj, k);
}

/* The HLO instructions (outside fused bodies) kernels can be named after, by normalised name. */
typedef struct {
  char *names;      /* normalised names, NUL-separated */
  uint32_t *off;    /* per candidate: offset into names */
  int32_t *instr;   /* per candidate: instruction index */
  uint32_t *slots;  /* candidate + 1, 0 = empty */
  uint32_t cap, n;
} ll_join;

static bool join_candidate(const hs_doc *d, const hs_instr *in) {
  if (hs_comp_in_fused(d, in->comp)) return false;
  hs_slice op = hs_opcode(d, in);
  return !(hs_slice_is(d, op, "parameter") || hs_slice_is(d, op, "constant") || hs_slice_is(d, op, "get-tuple-element") ||
           hs_slice_is(d, op, "tuple") || hs_slice_is(d, op, "bitcast"));
}

static void join_free(ll_join *j) {
  free(j->names);
  free(j->off);
  free(j->instr);
  free(j->slots);
  memset(j, 0, sizeof *j);
}

static bool join_build(ll_join *j, const hs_doc *d) {
  memset(j, 0, sizeof *j);
  if (!d || d->format != HS_FORMAT_HLO) return true; /* kernels are named after HLO instructions only */
  size_t bytes = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++)
    if (join_candidate(d, &d->instrs[i])) bytes += d->instrs[i].name.len + 1, n++;
  j->cap = 16;
  while (j->cap < n * 2u) j->cap <<= 1;
  j->names = malloc(bytes + 1);
  j->off = malloc((n + 1) * sizeof *j->off);
  j->instr = malloc((n + 1) * sizeof *j->instr);
  j->slots = calloc(j->cap, sizeof *j->slots);
  if (!j->names || !j->off || !j->instr || !j->slots) {
    join_free(j);
    return false;
  }
  size_t o = 0;
  for (uint32_t i = 0; i < d->n_instrs; i++) {
    const hs_instr *in = &d->instrs[i];
    if (!join_candidate(d, in)) continue;
    const char *src = hs_sp(d, in->name); /* a made instruction's name is in d->synth */
    char *dst = j->names + o;
    for (uint32_t k = 0; k < in->name.len; k++) dst[k] = (src[k] == '.' || src[k] == '-') ? '_' : src[k];
    dst[in->name.len] = 0;
    uint32_t h = hs_hash(dst, in->name.len) & (j->cap - 1);
    bool dup = false;
    while (j->slots[h]) {
      if (strcmp(j->names + j->off[j->slots[h] - 1], dst) == 0) {
        dup = true; /* the first instruction of a name wins */
        break;
      }
      h = (h + 1) & (j->cap - 1);
    }
    if (dup) continue;
    j->off[j->n] = (uint32_t)o;
    j->instr[j->n] = (int32_t)i;
    j->slots[h] = ++j->n;
    o += in->name.len + 1;
  }
  return true;
}

static int32_t join_get(const ll_join *j, const char *s, size_t n) {
  if (!j->slots) return -1;
  for (uint32_t h = hs_hash(s, n) & (j->cap - 1);; h = (h + 1) & (j->cap - 1)) {
    uint32_t v = j->slots[h];
    if (!v) return -1;
    const char *c = j->names + j->off[v - 1];
    if (strlen(c) == n && memcmp(c, s, n) == 0) return j->instr[v - 1];
  }
}

/* The HLO instruction a kernel function is named after: the longest candidate N with
 * norm(F) == norm(N), or norm(F) beginning with norm(N) + "_" (GPU kernels write '.' as '_';
 * XLA:CPU adds _wrapped, _impl, _kernel). norm: '.' and '-' become '_'. -1 when none. */
static int32_t join_hlo(const ll_join *j, const char *fname, size_t fn) {
  char F[512];
  if (!j->slots || fn >= sizeof F) return -1;
  for (size_t i = 0; i < fn; i++) F[i] = (fname[i] == '.' || fname[i] == '-') ? '_' : fname[i];
  for (size_t n = fn; n > 0; n--) {
    if (n < fn && F[n] != '_') continue;
    int32_t r = join_get(j, F, n);
    if (r >= 0) return r;
  }
  return -1;
}

static bool op_is(const hs_llvm *m, hs_slice op, const char *lit) {
  size_t n = strlen(lit);
  return op.len == n && memcmp(m->text + op.off, lit, n) == 0;
}

static json_t *dropped_for(const hs_llvm *m, const ll_func *f, const hs_doc *d, int32_t hi) {
  const hs_instr *in = &d->instrs[hi];
  json_t *o = json_object();
  json_object_set_new(o, "function", jslice(m, f->name));
  json_object_set_new(o, "hlo", hs_json_slice(d, in->name));
  json_object_set_new(o, "opcode", hs_json_slice(d, hs_opcode(d, in)));
  /* shapes and dtypes -> pointers and index arithmetic */
  json_t *sh = json_object();
  json_t *hs = json_array();
  for (uint32_t k = 0, k_end = hs_op_count(d, in); k < k_end; k++) {
    const hs_operand *op = &d->operands[in->op_first + k];
    json_array_append_new(hs, op->target >= 0 ? hs_json_type(d->instrs[op->target].type) : json_null());
  }
  json_object_set_new(sh, "hlo_operands", hs);
  json_object_set_new(sh, "hlo_result", hs_json_type(in->type));
  uint32_t ptrs = 0, geps = 0, index_ops = 0, ptr_loads = 0;
  for (uint32_t k = 0; k < f->n_params; k++) {
    const ll_param *p = &m->params[f->param_first + k];
    if (p->type.len >= 3 && memcmp(m->text + p->type.off, "ptr", 3) == 0) ptrs++;
  }
  json_t *gep_types = json_array();
  for (uint32_t b = 0; b < f->n_blocks; b++) {
    const ll_block *bl = &m->blocks[f->block_first + b];
    for (uint32_t k = 0; k < bl->count; k++) {
      const ll_instr *ii = &m->instrs[bl->first + k];
      if (ii->kind == LL_I_LOAD && ii->vtype.len == 3 && memcmp(m->text + ii->vtype.off, "ptr", 3) == 0) ptr_loads++;
      if (ii->kind == LL_I_GEP) {
        geps++;
        /* the source element type: "[inbounds] [nuw] <type>," */
        const char *t = m->text;
        size_t p = hs_skip_sp(t, ii->rest.off + ii->rest.len, ii->rest.off), e = ii->rest.off + ii->rest.len;
        while (word_at(t, e, p, "inbounds") || word_at(t, e, p, "nuw") || word_at(t, e, p, "nusw")) {
          while (p < e && t[p] != ' ') p++;
          p = hs_skip_sp(t, e, p);
        }
        size_t te = scan_type(t, e, p);
        if (te > p && (t[p] == '[')) {
          bool dup = false;
          for (size_t g = 0; g < json_array_size(gep_types); g++) {
            const char *s = json_string_value(json_array_get(gep_types, g));
            if (s && strlen(s) == te - p && memcmp(s, t + p, te - p) == 0) dup = true;
          }
          if (!dup && json_array_size(gep_types) < 8) json_array_append_new(gep_types, hs_json_bytes(t + p, te - p));
        }
      } else if (op_is(m, ii->opcode, "mul") || op_is(m, ii->opcode, "udiv") || op_is(m, ii->opcode, "urem") ||
                 op_is(m, ii->opcode, "shl")) {
        index_ops++;
      }
    }
  }
  json_object_set_new(sh, "llvm_pointer_params", json_integer(ptrs));
  json_object_set_new(sh, "llvm_pointer_loads", json_integer(ptr_loads));
  json_object_set_new(sh, "llvm_getelementptr", json_integer(geps));
  json_object_set_new(sh, "llvm_index_ops", json_integer(index_ops));
  json_object_set_new(o, "shapes", sh);
  /* layouts -> strides: the HLO layout as printed, the GEP array types (row-major strides) */
  json_t *lay = json_object();
  {
    /* the layout braces of the instruction's result, from its line */
    const char *t = d->text;
    uint32_t ln = in->line;
    size_t off = ln && ln <= d->n_lines ? hs_line_off(d, ln - 1) : 0;
    size_t e = off;
    while (e < d->len && t[e] != '\n') e++;
    size_t eq = off;
    while (eq < e && t[eq] != '=') eq++;
    json_t *ls = json_array();
    size_t op_at = eq;
    /* up to the opcode: "= f32[64,128]{1,0} fusion(" */
    while (op_at < e && t[op_at] != '(') op_at++;
    for (size_t k = eq; k < op_at; k++)
      if (t[k] == '{') {
        size_t c = k;
        while (c < op_at && t[c] != '}') c++;
        json_array_append_new(ls, hs_json_bytes(t + k, c + 1 - k));
        k = c;
      }
    json_object_set_new(lay, "hlo_layouts", ls);
    json_object_set_new(lay, "llvm_array_types", gep_types);
  }
  json_object_set_new(o, "layouts", lay);
  /* fusion boundaries -> function boundaries */
  json_t *fb = json_object();
  int32_t body_comp = -1;
  for (uint32_t k0, k = 0, k_end = hs_calls_of(d, in, &k0); k < k_end; k++)
    if (d->calls[k0 + k].target >= 0) body_comp = d->calls[k0 + k].target;
  const hs_slice kind = hs_hlo_of(d, in).kind;
  json_object_set_new(fb, "hlo_kind", kind.len ? hs_json_slice(d, kind) : json_null());
  json_object_set_new(fb, "hlo_body", body_comp >= 0 ? hs_json_slice(d, d->comps[body_comp].name) : json_null());
  json_object_set_new(fb, "hlo_body_instructions", json_integer(body_comp >= 0 ? d->comps[body_comp].count : 0));
  json_object_set_new(fb, "llvm_function", jslice(m, f->name));
  json_object_set_new(o, "fusion", fb);
  /* names -> %N */
  json_t *nm = json_object();
  json_t *hn = json_array();
  if (body_comp >= 0) {
    const hs_comp *c = &d->comps[body_comp];
    for (uint32_t k = 0; k < c->count && k < 32; k++) json_array_append_new(hn, hs_json_slice(d, d->instrs[c->first + k].name));
  } else {
    json_array_append_new(hn, hs_json_slice(d, in->name));
  }
  json_object_set_new(nm, "hlo_names", hn);
  json_object_set_new(nm, "llvm_numbered", json_integer(f->numbered));
  json_object_set_new(nm, "llvm_named", json_integer(f->named));
  json_object_set_new(o, "names", nm);
  return o;
}

char *hs_llvm_json(const hs_llvm *m, const hs_doc *hlo, size_t *len) {
  if (!m) return NULL;
  json_t *root = json_object();
  json_object_set_new(root, "module", m->module_id.len ? jslice(m, m->module_id) : json_null());
  json_object_set_new(root, "triple", m->triple.len ? jslice(m, m->triple) : json_null());
  /* after LLVM's optimizer (a define carries local_unnamed_addr), before it (defines, none
     carries it), or unknown (no define) */
  json_object_set_new(root, "optimized", m->n_defines ? json_boolean(m->n_unnamed_defines > 0) : json_null());
  json_t *fa = json_array(), *dropped = json_array(), *declared = json_array();
  ll_join join;
  join_build(&join, hlo);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const ll_func *f = &m->funcs[i];
    if (!f->defined) {
      json_array_append_new(declared, jslice(m, f->name));
      continue;
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", jslice(m, f->name));
    int32_t hi = join_hlo(&join, m->text + f->name.off, f->name.len);
    json_object_set_new(o, "hlo", hi >= 0 ? hs_json_slice(hlo, hlo->instrs[hi].name) : json_null());
    json_object_set_new(o, "kernel", json_boolean(!f->local));
    json_object_set_new(o, "line", json_integer(f->line));
    json_object_set_new(o, "end_line", json_integer(f->end_line));
    json_t *pa = json_array();
    for (uint32_t k = 0; k < f->n_params; k++) {
      const ll_param *p = &m->params[f->param_first + k];
      json_t *po = json_object();
      json_object_set_new(po, "name", p->name.len ? jslice(m, p->name) : json_null());
      json_object_set_new(po, "type", jslice(m, p->type));
      json_object_set_new(po, "noalias", json_boolean(p->noalias));
      json_object_set_new(po, "align", p->align >= 0 ? json_integer(p->align) : json_null());
      json_object_set_new(po, "dereferenceable", p->deref >= 0 ? json_integer(p->deref) : json_null());
      json_object_set_new(po, "text", jslice(m, p->attrs));
      json_array_append_new(pa, po);
    }
    json_object_set_new(o, "params", pa);
    json_object_set_new(o, "blocks", json_integer(f->n_blocks));
    json_t *la = json_array();
    for (uint32_t k = 0; k < f->n_loops; k++) {
      const ll_loop *L = &m->loops[f->loop_first + k];
      json_t *lo = json_object();
      json_object_set_new(lo, "depth", json_integer(L->depth));
      /* times the loop body runs: LLVM's backedge-taken count, plus one when the loop is
       * bottom-tested (the exit test is not in the header) */
      json_object_set_new(lo, "trip_count", L->backedge_taken >= 0 ? json_integer(L->backedge_taken + (L->top_tested ? 0 : 1)) : json_null());
      json_object_set_new(lo, "backedge_taken", L->backedge_taken >= 0 ? json_integer(L->backedge_taken) : json_null());
      json_object_set_new(lo, "header", jslice(m, m->blocks[L->header].name));
      json_object_set_new(lo, "blocks", json_integer(L->n_blocks));
      json_object_set_new(lo, "first_line", json_integer(L->first_line));
      json_object_set_new(lo, "last_line", json_integer(L->last_line));
      json_array_append_new(la, lo);
    }
    json_object_set_new(o, "loops", la);
    json_t *vw = json_array(), *loads = json_object(), *stores = json_object(), *ops = json_object(),
           *calls = json_object(), *op_lines = json_object();
    uint32_t n_loads = 0, n_stores = 0;
    for (uint32_t b = 0; b < f->n_blocks; b++) {
      const ll_block *bl = &m->blocks[f->block_first + b];
      for (uint32_t k = 0; k < bl->count; k++) {
        const ll_instr *in = &m->instrs[bl->first + k];
        const char *t = m->text;
        /* vector types anywhere in the instruction */
        for (size_t q = in->rest.off; q < in->rest.off + in->rest.len; q++) {
          if (t[q] != '<') continue;
          size_t qe = in->rest.off + in->rest.len, s = q + 1;
          if (hs_starts(t, qe, s, "vscale x ")) s += 9;
          bool ok;
          parse_int(t, qe, s, &ok);
          size_t dd = s;
          while (dd < qe && t[dd] >= '0' && t[dd] <= '9') dd++;
          if (dd == s || !hs_starts(t, qe, dd, " x ")) continue;
          size_t te = scan_type(t, qe, q);
          bool dup = false;
          for (size_t g = 0; g < json_array_size(vw); g++) {
            const char *sv = json_string_value(json_array_get(vw, g));
            if (sv && strlen(sv) == te - q && memcmp(sv, t + q, te - q) == 0) dup = true;
          }
          if (!dup && json_array_size(vw) < 64) json_array_append_new(vw, hs_json_bytes(t + q, te - q));
          q = te - 1;
        }
        char key[64];
        size_t kn;
        json_t *lines;
        switch (in->kind) {
          case LL_I_LOAD:
            n_loads++;
            bumpn(loads, t + in->vtype.off, in->vtype.len);
            break;
          case LL_I_STORE:
            n_stores++;
            bumpn(stores, t + in->vtype.off, in->vtype.len);
            break;
          case LL_I_CALL:
            if (in->vtype.len) bumpn(calls, t + in->vtype.off, in->vtype.len);
            else bump(calls, "(indirect)");
            kn = in->vtype.len < sizeof key - 1 ? in->vtype.len : sizeof key - 1;
            memcpy(key, t + in->vtype.off, kn);
            key[kn] = 0;
            for (size_t z = 0; z < kn; z++)
              if ((unsigned char)key[z] >= 127 || (unsigned char)key[z] < 32) key[z] = '?';
            if (kn) {
              lines = json_object_get(op_lines, key);
              if (!lines) json_object_set_new(op_lines, key, lines = json_array());
              json_array_append_new(lines, json_integer(in->line));
            }
            break;
          default:
            if (!in->opcode.len) break;
            bumpn(ops, t + in->opcode.off, in->opcode.len);
            kn = in->opcode.len < sizeof key - 1 ? in->opcode.len : sizeof key - 1;
            memcpy(key, t + in->opcode.off, kn);
            key[kn] = 0;
            lines = json_object_get(op_lines, key);
            if (!lines) json_object_set_new(op_lines, key, lines = json_array());
            json_array_append_new(lines, json_integer(in->line));
        }
      }
    }
    json_object_set_new(o, "vector_widths", vw);
    json_t *lo = json_object();
    json_object_set_new(lo, "count", json_integer(n_loads));
    json_object_set_new(lo, "types", loads);
    json_object_set_new(o, "loads", lo);
    json_t *so = json_object();
    json_object_set_new(so, "count", json_integer(n_stores));
    json_object_set_new(so, "types", stores);
    json_object_set_new(o, "stores", so);
    json_object_set_new(o, "ops", ops);
    json_object_set_new(o, "calls", calls);
    json_object_set_new(o, "op_lines", op_lines);
    json_array_append_new(fa, o);
    if (hi >= 0) json_array_append_new(dropped, dropped_for(m, f, hlo, hi));
  }
  join_free(&join);
  json_object_set_new(root, "functions", fa);
  json_object_set_new(root, "declared", declared);
  json_object_set_new(root, "dropped", dropped);
  json_object_set_new(root, "warnings", hs_diag_json(&m->diag));
  return hs_json_finish(root, len);
}
