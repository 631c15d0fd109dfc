/* The StableHLO (MLIR text) reader: pretty and generic forms, regions, loc tables.
 *
 * One pass over the lines with a stack of open braces (module, function, region). Each op line
 * gets its result type(s) in the canonical array form, so the x-ray can match it against the
 * optimized HLO. Operands are not resolved: nothing downstream needs them yet. */
#include "internal.h"

#include <stdio.h>

enum { SB_MODULE = 1, SB_FUNC, SB_REGION };

/* The end of the line's meaningful part: drops a trailing " loc(...)" and spaces. */
static size_t strip_loc(const char *t, size_t s, size_t e) {
  while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\r' || t[e - 1] == '\t')) e--;
  if (e > s && t[e - 1] == ')') {
    /* find the matching "loc(" */
    int depth = 0;
    size_t k = e;
    while (k > s) {
      k--;
      if (t[k] == ')') depth++;
      else if (t[k] == '(') {
        if (--depth == 0) break;
      }
    }
    if (depth == 0 && k >= s + 3 && memcmp(t + k - 3, "loc", 3) == 0 && (k - 3 == s || t[k - 4] == ' ')) {
      e = k - 3;
      while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t')) e--;
    }
  }
  return e;
}

/* The position after the last " : " at bracket depth 0, or 0 if none. */
static size_t last_colon(const char *t, size_t s, size_t e) {
  int depth = 0;
  size_t found = 0;
  for (size_t p = s; p < e; p++) {
    char c = t[p];
    if (c == '"') {
      p = hs_skip_string(t, e, p) - 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') depth++;
    else if (c == ')' || c == ']' || c == '}' || (c == '>' && !(p > s && t[p - 1] == '-'))) {
      if (depth > 0) depth--; /* a leading "})" closes what an earlier line opened */
    } else if (c == ':' && depth == 0 && p > s && t[p - 1] == ' ' && p + 1 < e && t[p + 1] == ' ') found = p + 2;
  }
  return found;
}

/* Reads "T", "T, U" or "(A, B) -> R" / "(A) -> (R, S)": the results as one type (a tuple when
 * there are several). */
static hs_type *read_result_types(hs_arena *a, const char *t, size_t s, size_t e, bool fn_type) {
  size_t p = hs_skip_sp(t, e, s);
  if (fn_type && p < e && t[p] == '(') {
    /* function type: skip the inputs */
    int depth = 0;
    size_t q = p;
    for (; q < e; q++) {
      if (t[q] == '(' || t[q] == '<') depth++;
      else if (t[q] == ')' || (t[q] == '>' && t[q - 1] != '-')) {
        if (--depth == 0) break;
      }
    }
    q = q < e ? hs_skip_sp(t, e, q + 1) : e;
    if (hs_starts(t, e, q, "->")) p = hs_skip_sp(t, e, q + 2); /* else a parenthesised list of results */
  }
  bool paren = p < e && t[p] == '(';
  if (paren) p++;
  hs_type *el[64];
  size_t n = 0;
  while (p < e) {
    p = hs_skip_sp(t, e, p);
    if (p < e && t[p] == ')') break;
    size_t q = p;
    hs_type *ty = hs_parse_mlir_type(a, t, e, &q);
    if (!ty) break;
    if (n < 64) el[n++] = ty;
    p = hs_skip_sp(t, e, q);
    /* result attributes: tensor<...> {jax.result_info = ""} */
    if (p < e && t[p] == '{') {
      int depth = 0;
      for (; p < e; p++) {
        if (t[p] == '"') {
          p = hs_skip_string(t, e, p) - 1;
          continue;
        }
        if (t[p] == '{') depth++;
        else if (t[p] == '}' && --depth == 0) {
          p++;
          break;
        }
      }
      p = hs_skip_sp(t, e, p);
    }
    if (p < e && t[p] == ',') {
      p++;
      continue;
    }
    break;
  }
  if (n == 0) return NULL;
  if (n == 1) return el[0];
  hs_type *tu = hs_make_tuple(a, el, n);
  return tu;
}

/* MLIR text at the start: a module, a function, a location or attribute alias, the generic form. */
int hs_detect_stablehlo(const char *text, size_t len, size_t p) {
  if (hs_starts(text, len, p, "module") || hs_starts(text, len, p, "func.func") || hs_starts(text, len, p, "#loc") ||
      hs_starts(text, len, p, "\"builtin.module\"") || hs_starts(text, len, p, "#map") || hs_starts(text, len, p, "func @"))
    return 100;
  return 0;
}

int hs_parse_stablehlo_text(hs_doc *d, hs_error *err) {
  const char *t = d->text;
  size_t len = d->len;
  uint8_t stack_kind[256];
  int32_t stack_ref[256];
  int depth = 0, overflow = 0;
  int32_t module = -1, func = -1;
  size_t p = 0;
  bool ok;
  while (p < len) {
    uint32_t line_no = d->n_lines + 1;
    const char *nl = memchr(t + p, '\n', len - p);
    size_t le = nl ? (size_t)(nl - t) : len;
    size_t q = hs_skip_sp(t, le, p);
    size_t e = strip_loc(t, q, le);
    uint8_t kind = HS_LINE_OTHER;
    uint32_t ref = 0;
    bool opens = e > q && t[e - 1] == '{';
    if (q >= le) {
      kind = HS_LINE_BLANK;
    } else if (hs_starts(t, le, q, "//")) {
      kind = HS_LINE_COMMENT;
    } else if (t[q] == '#' || hs_starts(t, le, q, "loc(")) {
      kind = HS_LINE_TABLE;
    } else if (hs_starts(t, le, q, "module") && (q + 6 >= le || t[q + 6] == ' ' || t[q + 6] == '{')) {
      hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
      if (!ok) goto nomem;
      memset(m, 0, sizeof *m);
      size_t r = q + 6;
      r = hs_skip_sp(t, le, r);
      if (r < le && t[r] == '@') {
        size_t s = ++r;
        while (r < le && t[r] != ' ' && t[r] != '{' && t[r] != '(') r++;
        m->name = hs_sl((uint32_t)s, (uint32_t)(r - s));
      }
      m->line = line_no;
      m->first_comp = d->n_comps;
      m->entry = -1;
      module = (int32_t)d->n_modules - 1;
      kind = HS_LINE_MODULE;
      ref = (uint32_t)module;
      if (opens) {
        if (depth < 256) {
          stack_kind[depth] = SB_MODULE;
          stack_ref[depth] = module;
          depth++;
        } else overflow++;
      }
    } else if (hs_starts(t, le, q, "func.func") || hs_starts(t, le, q, "func @")) {
      if (module < 0) {
        hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
        if (!ok) goto nomem;
        memset(m, 0, sizeof *m);
        m->line = line_no;
        m->first_comp = d->n_comps;
        m->entry = -1;
        module = (int32_t)d->n_modules - 1;
      }
      hs_comp *c = HS_VEC_PUSH(d->comps, d->n_comps, d->cap_comps, ok);
      if (!ok) goto nomem;
      memset(c, 0, sizeof *c);
      const char *at = memchr(t + q, '@', le - q);
      if (at) {
        size_t s = (size_t)(at - t) + 1, r = s;
        while (r < le && t[r] != '(' && t[r] != ' ') r++;
        c->name = hs_sl((uint32_t)s, (uint32_t)(r - s));
        /* the result types follow the ")" that closes the arguments */
        int dp = 0;
        size_t k = r;
        for (; k < e; k++) {
          if (t[k] == '"') {
            k = hs_skip_string(t, e, k) - 1;
            continue;
          }
          if (t[k] == '(') dp++;
          else if (t[k] == ')' && --dp == 0) break;
        }
        k = hs_skip_sp(t, e, k + 1);
        if (hs_starts(t, e, k, "->")) {
          size_t re = opens ? e - 1 : e;
          c->result = read_result_types(&d->arena, t, k + 2, re, false);
        }
      }
      c->line = line_no;
      c->module = (uint32_t)module;
      c->first = d->n_instrs;
      c->root = -1;
      c->fused_by = -1;
      c->role = HS_ROLE_FUNCTION;
      func = (int32_t)d->n_comps - 1;
      d->modules[module].comp_count++;
      if (hs_slice_is(d, c->name, "main")) d->modules[module].entry = func;
      kind = HS_LINE_COMP;
      ref = (uint32_t)func;
      if (opens) {
        if (depth < 256) {
          stack_kind[depth] = SB_FUNC;
          stack_ref[depth] = func;
          depth++;
        } else overflow++;
      }
    } else if (t[q] == '}') {
      /* closes one brace; "} do {" or "}, {" opens the next region at once */
      int32_t closed_ref = -1;
      uint8_t closed_kind = 0;
      if (overflow) overflow--;
      else if (depth > 0) {
        depth--;
        closed_kind = stack_kind[depth];
        closed_ref = stack_ref[depth];
      }
      if (closed_kind == SB_FUNC) {
        hs_comp *c = &d->comps[closed_ref];
        c->count = d->n_instrs - c->first;
        c->end_line = line_no;
        kind = HS_LINE_CLOSE;
        ref = (uint32_t)closed_ref;
        func = -1;
      } else if (closed_kind == SB_MODULE) {
        kind = HS_LINE_CLOSE;
        ref = (uint32_t)closed_ref;
        module = -1;
      } else {
        kind = HS_LINE_REGION;
        ref = closed_ref >= 0 ? (uint32_t)closed_ref : 0;
        /* "}) : (...) -> T" gives the type of the op that opened the region */
        if (closed_kind == SB_REGION && closed_ref >= 0 && !d->instrs[closed_ref].type) {
          size_t c = last_colon(t, q, e);
          if (c) d->instrs[closed_ref].type = read_result_types(&d->arena, t, c, e, true);
        }
        if (opens) {
          if (depth < 256) {
            stack_kind[depth] = SB_REGION;
            stack_ref[depth] = closed_ref;
            depth++;
          } else overflow++;
        }
      }
    } else if (t[q] == '%' || t[q] == '"' || hs_starts(t, e, q, "return ") || hs_starts(t, e, q, "return\r") ||
               (q + 6 == e && hs_starts(t, e, q, "return")) ||
               (t[q] >= 'a' && t[q] <= 'z' && memchr(t + q, '.', e - q) &&
                                                !hs_starts(t, le, q, "cond") && !hs_starts(t, le, q, "reducer") &&
                                                !hs_starts(t, le, q, "do "))) {
      /* an op: "%0 = stablehlo.add ...", "%0:2 = ...", "stablehlo.return %1 : ..." */
      size_t r = q;
      hs_slice name = {0, 0};
      if (t[q] == '%') {
        size_t s = q + 1;
        r = s;
        while (r < e && t[r] != ' ' && t[r] != ':' && t[r] != ',' && t[r] != '=') r++;
        name = hs_sl((uint32_t)s, (uint32_t)(r - s));
        /* skip to '=' (several results: "%0, %1 = ...", "%0:2 = ...") */
        while (r < e && t[r] != '=') r++;
        if (r >= e) {
          if (!nl) {
            hs_doc_warn(d, HS_W_TRUNCATED, line_no, 1, "the dump ends in the middle of line %u (truncated?): that line was skipped", line_no);
            if (!hs_doc_add_line(d, (uint32_t)p, HS_LINE_OTHER, 0)) goto nomem;
            break;
          }
          hs_set_error(err, HS_E_SYNTAX, d, q, "expected '=' after the result name of an op");
          return HS_E_SYNTAX;
        }
        r = hs_skip_sp(t, e, r + 1);
      }
      size_t os = r, oe;
      if (r < e && t[r] == '"') {
        oe = hs_skip_string(t, e, r);
        os++;
        oe = oe > os ? oe - 1 : os;
        r = oe + 1;
      } else {
        while (r < e && t[r] != ' ' && t[r] != '(' && t[r] != '<') r++;
        oe = r;
      }
      hs_instr *in = HS_VEC_PUSH(d->instrs, d->n_instrs, d->cap_instrs, ok);
      if (!ok) goto nomem;
      memset(in, 0, sizeof *in);
      in->name = name;
      in->opcode = hs_sl((uint32_t)os, (uint32_t)(oe - os));
      in->line = line_no;
      in->comp = func >= 0 ? (uint32_t)func : 0;
      in->op_first = d->n_operands;
      in->call_first = d->n_calls;
      bool is_return = hs_slice_is(d, in->opcode, "return") || hs_slice_is(d, in->opcode, "func.return") ||
                       hs_slice_is(d, in->opcode, "stablehlo.return");
      if (is_return && func >= 0 && depth > 0 && stack_kind[depth - 1] == SB_FUNC) {
        in->is_root = 1;
        d->comps[func].root = (int32_t)(d->n_instrs - 1);
      }
      if (name.len) {
        size_t c = last_colon(t, r, opens ? e - 1 : e);
        if (c) in->type = read_result_types(&d->arena, t, c, opens ? e - 1 : e, true);
      }
      kind = HS_LINE_INSTR;
      ref = d->n_instrs - 1;
      if (func < 0 && d->n_comps == 0) {
        /* ops outside any function: still counted, in no computation */
        in->comp = 0;
      }
      if (opens) {
        if (depth < 256) {
          stack_kind[depth] = SB_REGION;
          stack_ref[depth] = (int32_t)ref;
          depth++;
        } else overflow++;
      }
    } else {
      /* region structure: "^bb0(...):", "cond {", "reducer(...) {", ... */
      kind = HS_LINE_REGION;
      if (opens) {
        if (depth < 256) {
          stack_kind[depth] = SB_REGION;
          stack_ref[depth] = -1;
          depth++;
        } else overflow++;
      }
    }
    if (!hs_doc_add_line(d, (uint32_t)p, kind, ref)) goto nomem;
    if (!nl) break;
    p = le + 1;
  }
  if (func >= 0) {
    hs_comp *c = &d->comps[func];
    c->count = d->n_instrs - c->first;
  }
  if (depth > 0 || overflow) {
    hs_doc_warn(d, HS_W_TRUNCATED, d->n_lines, 1,
                "the text ends with %d braces still open: it looks truncated; the results cover what was read",
                depth + overflow);
  }
  if (!d->n_comps && !d->n_instrs) {
    hs_set_error(err, HS_E_FORMAT, d, 0, "no StableHLO function found: expected 'func.func public @main(...)' inside 'module @name {'");
    return HS_E_FORMAT;
  }
  return 0;
nomem:
  hs_set_error(err, HS_E_NOMEM, d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}
