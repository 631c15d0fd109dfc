/* The jaxpr reader (a pasted `jax.make_jaxpr(f)(x)`): lines and equations only. */
#include "internal.h"

/* "{ lambda ...; ... }" (a closed jaxpr) or "let" (its body). */
int hs_detect_jaxpr(const char *text, size_t len, size_t p) {
  if (hs_starts(text, len, p, "{ lambda") || hs_starts(text, len, p, "{lambda") || hs_starts(text, len, p, "let "))
    return 100;
  return 0;
}

/* jaxpr: counted as lines and equations so a pasted jaxpr gets a summary; the decision analysis
 * that reads it lives with the drills that need it. */
int hs_parse_jaxpr_text(hs_doc *d, hs_error *err) {
  (void)err;
  const char *t = d->text;
  size_t len = d->len, p = 0;
  bool ok;
  hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
  if (!ok) return HS_E_NOMEM;
  memset(m, 0, sizeof *m);
  m->line = 1;
  m->entry = 0;
  hs_comp *c = HS_VEC_PUSH(d->comps, d->n_comps, d->cap_comps, ok);
  if (!ok) return HS_E_NOMEM;
  memset(c, 0, sizeof *c);
  c->line = 1;
  c->root = -1;
  c->fused_by = -1;
  c->role = HS_ROLE_FUNCTION;
  c->is_entry = 1;
  m->comp_count = 1;
  while (p < len) {
    const char *nl = memchr(t + p, '\n', len - p);
    size_t le = nl ? (size_t)(nl - t) : len;
    size_t q = hs_skip_sp(t, le, p);
    uint8_t kind = q >= le ? HS_LINE_BLANK : HS_LINE_OTHER;
    uint32_t ref = 0;
    /* an equation: "c:bf16[1,512] = broadcast_in_dim[...] b" */
    const char *eq = q < le ? memchr(t + q, '=', le - q) : NULL;
    if (eq && eq > t + q + 1 && eq[-1] == ' ' && (size_t)(eq - t) + 1 < le && eq[1] == ' ') {
      size_t r = hs_skip_sp(t, le, (size_t)(eq - t) + 1), s = r;
      while (r < le && t[r] != '[' && t[r] != ' ') r++;
      hs_instr *in = HS_VEC_PUSH(d->instrs, d->n_instrs, d->cap_instrs, ok);
      if (!ok) return HS_E_NOMEM;
      memset(in, 0, sizeof *in);
      in->opcode = hs_sl((uint32_t)s, (uint32_t)(r - s));
      in->line = d->n_lines + 1;
      size_t ns = q;
      while (ns < le && t[ns] != ':' && t[ns] != ' ') ns++;
      in->name = hs_sl((uint32_t)q, (uint32_t)(ns - q));
      if (ns < le && t[ns] == ':') {
        size_t tp = ns + 1;
        in->type = hs_parse_hlo_shape(&d->arena, t, le, &tp);
      }
      kind = HS_LINE_INSTR;
      ref = d->n_instrs - 1;
    }
    if (!hs_doc_add_line(d, (uint32_t)p, kind, ref)) return HS_E_NOMEM;
    if (!nl) break;
    p = le + 1;
  }
  c->count = d->n_instrs;
  return 0;
}
