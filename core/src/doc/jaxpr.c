/* The jaxpr reader (a pasted `jax.make_jaxpr(f)(x)`): lines and equations only. */
#include "doc/doc.h"

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
  int32_t m = hs_doc_open_module(d, hs_sl(0, 0), 1);
  if (m < 0) return HS_E_NOMEM;
  int32_t c = hs_doc_open_comp(d, (uint32_t)m, hs_sl(0, 0), 1, HS_ROLE_FUNCTION);
  if (c < 0) return HS_E_NOMEM;
  d->comps[c].is_entry = 1;
  d->modules[m].entry = c;
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
      size_t ns = q;
      while (ns < le && t[ns] != ':' && t[ns] != ' ') ns++;
      hs_instr *in = hs_doc_add_instr(d, hs_sl((uint32_t)q, (uint32_t)(ns - q)), hs_sl((uint32_t)s, (uint32_t)(r - s)),
                                      d->n_lines + 1, (uint32_t)c);
      if (!in) return HS_E_NOMEM;
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
  hs_doc_close_comp(d, (uint32_t)c, 0);
  return 0;
}
