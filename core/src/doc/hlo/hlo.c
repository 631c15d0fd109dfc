/* The HLO text reader: XLA's lexical grammar, every printer era of FORMATS.md section 1, in one
 * pass over the bytes.
 *
 * The text is read as XLA's parser reads it (xla/hlo/parser/hlo_lexer.cc, hlo_parser.cc), token
 * by token: spaces, line breaks and comments (block comments and line comments) may stand
 * between any two tokens, so an instruction's shape, operands and attributes may continue on
 * the next lines, and module attributes may span lines. Statements:
 *
 *   module       HloModule name (, key=value)*
 *   table        FileNames | FunctionNames | FileLocations | StackFrames, then "N ..." rows
 *   computation  [ENTRY] name [(params) -> shape] (, key=value)* {  instruction*  }
 *   instruction  [ROOT] name = shape opcode(operand, ...) (, key=value)*
 *   operand      [shape] name(#index)*           a compact get-tuple-element: "%t#1"
 *              | shape opcode(operands) (, key=value)*   a nested instruction
 *
 * Every line is recorded with what it holds (hs_line: the x-ray and the views use it); a
 * statement that spans lines records its first line and continuation lines, so line numbers
 * stay exact. Names, opcodes and attribute values are slices into the text; the instructions
 * the text does not spell out (compact get-tuple-elements and nested operands, which XLA's
 * parser makes instructions of) get their names and opcodes in d->synth (hs_sp).
 *
 * What cannot be read is a hard error at its line and column (a broken statement inside a
 * computation, an unclosed comment), a warning (an opcode or attribute value XLA would refuse,
 * a line skipped outside computations), or, when the text ends inside a statement (a dump cut
 * short), a truncation warning and what was read.
 *
 * This file holds the statements, instructions and operands, and the driver; hlo_lex.c the
 * spaces and comments, values, shapes, lines and errors; hlo_attr.c the attributes (hlo_values.c
 * the typed values of those only checked); hlo_reader.h the reader's state and the inline byte
 * classes and tokens they share. */
#include "doc/hlo/hlo_reader.h"

#include <stdio.h>
#include <stdlib.h>

/* known_opcode and literal_opcode for the opcode at [os, oe): its LIT_* kind, or -1 when XLA
 * does not list it. The opcodes found are remembered (a module uses a few dozen): the first
 * look, at the slot's opcode met last, is inline; its other one and the search when neither is
 * it are not (opcode_kind_new). Two to a slot: with one, pairs such as add and and, or fusion
 * and custom-call, took each other's place, and one instruction in thirty went to the search. */
static int opcode_kind_new(reader *r, size_t os, size_t oe, uint32_t k) {
  const char *t = r->t;
  size_t n = oe - os;
  if (r->opcodes[k][1].len == n && hs_bytes_eq(t + r->opcodes[k][1].off, t + os, n)) {
    /* the slot's other opcode: first from now on */
    struct opcode_slot hit = r->opcodes[k][1];
    r->opcodes[k][1] = r->opcodes[k][0];
    r->opcodes[k][0] = hit;
    r->last_rule = hit.rule;
    r->last_brief = hit.brief;
    return hit.lit;
  }
  int known = hlo_known_opcode(t + os, n);
  r->last_rule = known - 1;
  r->last_brief = hlo_rule_brief(known - 1);
  if (!known) return -1;
  int lit = hlo_literal_opcode(t + os, n);
  r->opcodes[k][1] = r->opcodes[k][0];
  r->opcodes[k][0].off = (uint32_t)os;
  r->opcodes[k][0].len = (uint32_t)n;
  r->opcodes[k][0].lit = (uint8_t)lit;
  r->opcodes[k][0].rule = (uint8_t)(known - 1);
  r->opcodes[k][0].brief = r->last_brief;
  return lit;
}

static inline int opcode_kind(reader *r, size_t os, size_t oe) {
  const char *t = r->t;
  size_t n = oe - os;
  uint32_t k = (uint32_t)(n * 31 + (uint8_t)t[os] * 7 + (uint8_t)t[oe - 1] * 3 + (n > 2 ? (uint8_t)t[os + 2] : 0)) & 63;
  if (r->opcodes[k][0].len == n && hs_bytes_eq(t + r->opcodes[k][0].off, t + os, n)) {
    r->last_rule = r->opcodes[k][0].rule;
    r->last_brief = r->opcodes[k][0].brief;
    return r->opcodes[k][0].lit;
  }
  return opcode_kind_new(r, os, oe, k);
}

/* ---- instructions ------------------------------------------------------------------------- */

static bool push_operand(reader *r, hs_slice name, int32_t target) {
  bool ok;
  hlo_op *o = HS_VEC_PUSH(r->ops, r->n_ops, r->cap_ops, ok);
  if (!ok) return false;
  o->name = name;
  o->target = target;
  return true;
}

/* Appends bytes to d->synth; their slice (offsets past the text: see hs_sp). */
static bool synth_str(reader *r, const char *a, size_t an, const char *b, size_t bn, hs_slice *out) {
  hs_doc *d = r->d;
  size_t need = (size_t)d->n_synth + an + bn;
  if (need > (1u << 30) || (uint64_t)d->len + 1 + need > UINT32_MAX) return false;
  if (!hs_vec_grow((void **)&d->synth, &d->cap_synth, (uint32_t)need, 1)) return false;
  memcpy(d->synth + d->n_synth, a, an);
  if (bn) memcpy(d->synth + d->n_synth + an, b, bn);
  *out = hs_sl((uint32_t)(d->len + 1 + d->n_synth), (uint32_t)(an + bn));
  d->n_synth += (uint32_t)(an + bn);
  return true;
}

/* Pushes an instruction (and its HLO side) of the open computation. */
static int32_t push_instr(reader *r, hs_slice name, hs_slice opcode, hs_type *ty, uint32_t line, uint32_t op_base, uint8_t synth) {
  hs_doc *d = r->d;
  hs_instr *in = hs_doc_add_instr(d, name, opcode, line, (uint32_t)r->comp);
  if (!in) return -1;
  in->type = ty;
  in->synth = synth;
  bool ok;
  hs_hlo_row *h = HS_VEC_PUSH(d->hlo, d->n_hlo, d->cap_hlo, ok);
  if (!ok) return -1;
  memset(h, 0, sizeof *h);
  /* its operands: from the reader's stack into the document, their names beside it */
  uint32_t n = r->n_ops - op_base;
  if (n) {
    uint32_t at = d->n_operands - r->op_names_first;
    if ((d->n_operands + n > d->cap_operands && !hs_vec_grow((void **)&d->operands, &d->cap_operands, d->n_operands + n, sizeof *d->operands)) ||
        (at + n > r->cap_op_names && !hs_vec_grow((void **)&r->op_names, &r->cap_op_names, at + n, sizeof *r->op_names)))
      return -1;
    hs_operand *to = d->operands + d->n_operands;
    hs_slice *names = r->op_names + at;
    const hlo_op *from = r->ops + op_base;
    for (uint32_t k = 0; k < n; k++) {
      to[k].target = from[k].target;
      names[k] = from[k].name;
    }
    d->n_operands += n;
    r->n_ops = op_base;
  }
  in = &d->instrs[d->n_instrs - 1];
  if (hs_slice_is(d, opcode, "fusion")) d->comps[r->comp].fusions++;
  return (int32_t)d->n_instrs - 1;
}

/* The compact get-tuple-element "base#i#j..." (the text from s to e; base is its name part):
 * the instruction XLA's parser makes for it, one per distinct name in the computation ("base_i",
 * then "base_i_j"). Returns its index, or -1 when memory ran out. */
static int32_t compact_gte(reader *r, hs_slice base, size_t s, size_t e, uint32_t line) {
  hs_doc *d = r->d;
  const char *t = r->t;
  if (!r->gte_opcode.len && !synth_str(r, "get-tuple-element", 17, NULL, 0, &r->gte_opcode)) return -1;
  int32_t prev = -1;
  hs_slice prev_name = base;
  size_t p = base.off + base.len;
  while (p < e && t[p] == '#') {
    size_t q = p + 1;
    int64_t index = 0;
    while (q < e && is_digit(t[q])) index = index < 100000000 ? index * 10 + (t[q++] - '0') : (q++, index);
    /* the name XLA gives it: the previous name, '_', the index */
    char buf[24];
    int bn = snprintf(buf, sizeof buf, "_%lld", (long long)index);
    uint32_t h = hs_hash(hs_sp(d, prev_name), prev_name.len);
    for (int k = 0; k < bn; k++) h = (h ^ (uint8_t)buf[k]) * 16777619u;
    /* looked up among the computation's get-tuple-elements made so far */
    int32_t found = -1;
    uint32_t slot = 0;
    if (r->cap_gtes) {
      slot = h & (r->cap_gtes - 1);
      while (r->gtes[slot].instr) {
        if (r->gtes[slot].hash == h) {
          hs_slice n = d->instrs[r->gtes[slot].instr - 1].name;
          if (n.len == prev_name.len + (uint32_t)bn && memcmp(hs_sp(d, n), hs_sp(d, prev_name), prev_name.len) == 0 &&
              memcmp(hs_sp(d, n) + prev_name.len, buf, (size_t)bn) == 0) {
            found = (int32_t)r->gtes[slot].instr - 1;
            break;
          }
        }
        slot = (slot + 1) & (r->cap_gtes - 1);
      }
    }
    if (found < 0) {
      hs_slice name;
      /* prev_name may itself be in d->synth, which synth_str may move: copy it first */
      char small[256];
      size_t pn = prev_name.len < sizeof small ? prev_name.len : sizeof small;
      memcpy(small, hs_sp(d, prev_name), pn);
      if (!synth_str(r, small, pn, buf, (size_t)bn, &name)) return -1;
      uint32_t op_base = r->n_ops;
      if (!push_operand(r, prev < 0 ? base : prev_name, prev < 0 ? hlo_scope_operand(r, base) : prev)) return -1;
      found = push_instr(r, name, r->gte_opcode, NULL, line, op_base, HS_SYNTH_GTE);
      if (found < 0) return -1;
      /* its opcode is in d->synth: its row of d->instr_wide is the last */
      d->instr_wide[d->n_instr_wide - 1].gte_index = (int32_t)(index > INT32_MAX ? INT32_MAX : index);
      /* the table: grown to stay at most half full */
      if ((r->n_gtes + 1) * 2 > r->cap_gtes) {
        uint32_t cap = r->cap_gtes ? r->cap_gtes * 2 : 64;
        gte_slot *ns = calloc(cap, sizeof *ns);
        if (!ns) return -1;
        for (uint32_t i = 0; i < r->cap_gtes; i++) {
          if (!r->gtes[i].instr) continue;
          uint32_t k = r->gtes[i].hash & (cap - 1);
          while (ns[k].instr) k = (k + 1) & (cap - 1);
          ns[k] = r->gtes[i];
        }
        free(r->gtes);
        r->gtes = ns;
        r->cap_gtes = cap;
      }
      slot = h & (r->cap_gtes - 1);
      while (r->gtes[slot].instr) slot = (slot + 1) & (r->cap_gtes - 1);
      r->gtes[slot] = (gte_slot){h, (uint32_t)found + 1};
      r->n_gtes++;
    }
    prev = found;
    prev_name = d->instrs[found].name;
    p = q;
  }
  (void)s;
  return prev;
}

static size_t read_operands(reader *r, size_t p, int literal, int depth);

/* A nested instruction "shape opcode(operands), key=value" with its shape read (ty; NULL when
 * none is written: XLA infers it), opcode at [os, oe). Pushes it; returns the end of its text and
 * sets *idx, or HLO_FAIL. */
static size_t nested_instr(reader *r, hs_type *ty, size_t os, size_t oe, size_t open, int depth, int32_t *idx) {
  const char *t = r->t;
  if (depth >= MAX_NESTING) return hlo_fail_syntax(r, os, "operands nested more than 200 deep");
  int kind = opcode_kind(r, os, oe);
  int rule = r->last_rule;
  hlo_brief brief = r->last_brief;
  if (kind < 0)
    hlo_warn_at(r, os, "unknown opcode '%.*s': XLA's parser refuses it (a typo, or an opcode newer than hloscope knows?)", t + os, oe - os);
  uint32_t op_base = r->n_ops;
  r->lit_type = brief & HLO_SPECIAL_CONSTANT ? ty : NULL;
  size_t e = read_operands(r, open + 1, kind < 0 ? LIT_NONE : kind, depth + 1);
  if (e == HLO_FAIL) return HLO_FAIL;
  if (kind == LIT_NONE && !r->cut) hlo_check_operands(r, rule, brief, open, r->n_ops - op_base);
  hs_slice name;
  if (!synth_str(r, t + os, oe - os, ".anon", 5, &name)) return hlo_fail_oom(r);
  *idx = push_instr(r, name, hs_sl((uint32_t)os, (uint32_t)(oe - os)), ty, hlo_line_of(r, os), op_base, HS_SYNTH_NESTED);
  if (*idx < 0) return hlo_fail_oom(r);
  if (r->cut) return e;
  size_t after = hlo_read_attributes(r, *idx, e, true, rule, brief);
  if (after != HLO_FAIL && after > e && !r->cut) { /* "negate(f32[8] %x), metadata={...}" inside the operands */
    size_t k = skip_ws(r, skip_ws(r, e) + 1);
    hlo_warn_at(r, k, "%.*s: an attribute of a nested instruction: XLA's parser takes none there (cannot parse as an instruction name or "
                "as a nested instruction); write the instruction on its own line", t + os, oe - os);
  } else if (after != HLO_FAIL && !r->cut && kind >= 0) {
    hlo_check_instr(r, *idx, rule, brief);
  }
  return after;
}

/* From p, inside `depth` open brackets: the position after the bracket that closes them all
 * (strings and comments skipped), or len when the text ends first. */
static const uint8_t BRACKETS[256] = {['"'] = 1, ['('] = 1, ['{'] = 1, ['['] = 1, [')'] = 1,
                                      ['}'] = 1, [']'] = 1, ['/'] = 1};
#ifdef HS_V16
static inline uint32_t bracket_stop16(const char *s) {
  v16 c = v16_load(s);
  return v16_mask(v16_or(v16_or(v16_or(v16_eq(c, '"'), v16_eq(c, '/')), v16_or(v16_eq(c, '('), v16_eq(c, ')'))),
                         v16_or(v16_or(v16_eq(c, '['), v16_eq(c, ']')), v16_or(v16_eq(c, '{'), v16_eq(c, '}')))));
}
#endif
static size_t skip_balanced(reader *r, size_t p, uint32_t depth) {
  const char *t = r->t;
  size_t len = r->len;
  while (p < len) {
#ifdef HS_V16
    /* a block's brackets counted from its mask, not found one by one (a header's parameter
       list has two or four in every 16 bytes); a string or a '/' is left to the loop below */
    while (len - p >= 16) {
      uint32_t m = bracket_stop16(t + p);
      for (; m; m &= m - 1) {
        size_t q = p + (size_t)__builtin_ctz(m);
        char b = t[q];
        if (b == '"' || b == '/') {
          p = q;
          goto special;
        }
        if (b == '(' || b == '{' || b == '[') depth++;
        else if (--depth == 0) return q + 1;
      }
      p += 16;
    }
#endif
    while (p < len && !BRACKETS[(uint8_t)t[p]]) p++;
    if (p >= len) break;
#ifdef HS_V16
  special:;
#endif
    char c = t[p];
    if (c == '"') {
      p = skip_string(t, len, p);
      continue;
    }
    if (c == '/' && p + 1 < len && (t[p + 1] == '*' || t[p + 1] == '/')) {
      p = skip_ws(r, p);
      continue;
    }
    if (c == '(' || c == '{' || c == '[') depth++;
    else if ((c == ')' || c == '}' || c == ']') && --depth == 0) return p + 1;
    p++;
  }
  return len;
}

/* The shape an operand may start with at p ("f32[8]{0} %x", "(s32[], f32[8]{0}) %t", the shape of
 * a nested instruction): its end and *ty, p and NULL when there is none, or HLO_FAIL. Read as XLA
 * reads it, so that an element type, dimensions or a layout XLA refuses is an error here as in
 * the instruction's own shape; one seen before (the shape cache) is only compared. */
static size_t operand_shape(reader *r, size_t p, hs_type **ty) {
  const shape_slot *seen = hlo_shape_seen(r, p);
  if (seen) {
    *ty = seen->type;
    return p + seen->len;
  }
  *ty = NULL;
  size_t q = hlo_skip_shape(r, p);
  if (q == p) return p;
  size_t e = p;
  if ((*ty = hlo_read_new_shape(r, &e, q))) return e;
  return hlo_fail_shape(r, p, e, "an operand's shape");
}

/* The operand list from p (after '(') to its ')': each operand pushed on r->ops (nested
 * instructions and compact get-tuple-elements pushed into the document on the way). Returns
 * the position after ')', HLO_FAIL, or len with r->cut set when the text ended inside it. */
static size_t read_operands(reader *r, size_t p, int literal, int depth) {
  const char *t = r->t;
  size_t len = r->len;
  if (literal == LIT_NUMBER) { /* parameter(N) */
    size_t q = skip_ws(r, p);
    size_t ds = q;
    while (q < len && is_digit(t[q])) q++;
    size_t e = skip_ws(r, q);
    if (e >= len) {
      r->cut = true;
      return len;
    }
    if (q == ds || t[e] != ')') return hlo_fail_syntax(r, e, "expected the parameter's number and ')', as in parameter(0)");
    if (depth == 0 && q - ds <= 3) { /* XLA: "Duplicate parameter number" */
      unsigned v = 0;
      for (size_t k = ds; k < q; k++) v = v * 10 + (unsigned)(t[k] - '0');
      if (v < 256 && (r->params_seen[v >> 6] >> (v & 63) & 1))
        hlo_warn_at(r, ds, "parameter(%.*s): this computation has that parameter number already: XLA's parser refuses this (Duplicate parameter number)", t + ds, q - ds);
      if (v < 256) r->params_seen[v >> 6] |= 1ull << (v & 63);
    }
    return e + 1;
  }
  if (literal) { /* constant(1.5), constant({...}), iota(): a literal, not operands */
    size_t lit_start = skip_ws(r, p);
    bool lit_shape = false; /* an older printer's shape first ("f32[2] {1, 2}"): not checked */
    for (int k = 0;; k++) {
      size_t q = skip_ws(r, p);
      if (q >= len) break;
      if (t[q] == ')') {
        size_t bad = lit_shape ? NOWHERE : hlo_literal_bad(r, lit_start, q);
        if (bad != NOWHERE) {
          size_t be = bad;
          while (be < q && be - bad < 40 && !is_space(t[be]) && t[be] != ',' && t[be] != '}' && t[be] != ')') be++;
          hlo_warn_at(r, bad, "%.*s: not a literal XLA reads (numbers such as 1, -1.5 or 1e-08; inf, -inf, nan; true, false): "
                      "XLA's parser refuses this constant", t + bad, be - bad);
        } else if (!lit_shape && r->lit_type) {
          hlo_check_literal(r, r->lit_type, lit_start, q);
        }
        return q + 1;
      }
      /* a literal value: bracketed (may span lines), or a word ("-inf", "1e-08", "true"); an
         older printer put the shape first ("f32[2] {1, 2}") */
      if (k == 2) return hlo_fail_syntax(r, q, "expected ')' after the constant's literal");
      if (t[q] == '{' || t[q] == '(') {
        p = skip_balanced(r, q + 1, 1);
      } else {
        p = q;
        while (p < len && !is_space(t[p]) && t[p] != ')' && t[p] != ',' && t[p] != '{' && t[p] != '(') {
          if (t[p] == '[') { /* a shape's dimensions (an older printer's "f32[2] {1, 2}": not checked) */
            lit_shape = true;
            while (p < len && t[p] != ']') p++;
            if (p < len) p++;
            continue;
          }
          p++;
        }
        if (p == q) return hlo_fail_syntax(r, q, "expected ')' after the constant's literal");
      }
    }
    r->cut = true;
    return len;
  }
  for (;;) {
    p = skip_ws(r, p);
    if (p >= len) break;
    if (t[p] == ')') return p + 1;
    hs_type *ty = NULL;
    size_t shape_at = p;
    size_t q = t[p] == '%' ? p : operand_shape(r, p, &ty); /* "%name": no shape before it */
    if (q == HLO_FAIL) return HLO_FAIL;
    bool has_shape = q > p;
    if (has_shape) p = skip_ws(r, q);
    if (p >= len) break;
    size_t ns = p;
    hs_slice name = read_name(t, len, &p);
    if (!name.len) return hlo_fail_syntax(r, ns, "expected an operand: an instruction's name (%x) or a nested instruction (f32[4] negate(%x))");
    size_t ne = p;
    while (p < len && t[p] == '#') {
      p++;
      while (p < len && is_digit(t[p])) p++;
    }
    size_t after = skip_ws(r, p);
    if (after < len && t[after] == '(' && t[ns] != '%' && p == ne) {
      /* a nested instruction, its shape written or (XLA infers it) not */
      int32_t idx = -1;
      size_t e = nested_instr(r, ty, ns, ne, after, depth, &idx);
      if (e == HLO_FAIL) return HLO_FAIL;
      if (!push_operand(r, hs_sl((uint32_t)ns, 0), idx)) return hlo_fail_oom(r);
      if (r->cut) return len;
      p = skip_ws(r, e);
    } else if (p > ne) {
      int32_t g = compact_gte(r, name, ns, p, hlo_line_of(r, ns));
      if (g < 0) return hlo_fail_oom(r);
      if (!push_operand(r, hs_sl(name.off, (uint32_t)(p - name.off)), g)) return hlo_fail_oom(r);
      p = after;
    } else {
      int32_t target = hlo_scope_operand(r, name);
      if (ty) hlo_check_operand_shape(r, shape_at, name, ty, target);
      if (!push_operand(r, name, target)) return hlo_fail_oom(r);
      p = after;
    }
    if (p >= len) break;
    if (t[p] == ',') {
      p++;
      continue;
    }
    if (t[p] == ')') return p + 1;
    return hlo_fail_syntax(r, p, "expected ',' or ')' after an operand");
  }
  r->cut = true;
  return len;
}

static bool async_sugar(reader *r, size_t os, size_t oe, uint32_t idx);

/* An opcode and '(' at p, with no shape before it: XLA infers the shape ("ROOT v = abs(a)"). */
static bool shapeless_at(reader *r, size_t p) {
  const char *t = r->t;
  size_t q = opcode_end(t, p, r->len);
  if (q == p || (q < r->len && t[q] == '[')) return false;
  q = skip_ws(r, q);
  return q < r->len && t[q] == '(';
}

/* "[ROOT] name = shape opcode(operands), key=value ..." with its name read (statement found it)
 * and its '=' at eq. Returns the end of its last token, or HLO_FAIL; r->cut when the text ended
 * inside it; *out: the instruction. */
static size_t instruction(reader *r, hs_slice name, size_t eq, bool root, int32_t *out) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  *out = -1;
  if (!name.len) return hlo_fail_syntax(r, name.off, "expected an instruction name");
  hlo_check_name(r, name);
  hlo_check_type_name(r, name);
  uint32_t h = hs_hash_name(t + name.off, name.len);
  size_t p = skip_ws(r, eq + 1);
  size_t shape_at = p;
  hs_type *ty = NULL;
  const shape_slot *seen = hlo_shape_seen(r, p);
  if (seen) {
    ty = seen->type;
    p = skip_ws(r, p + seen->len);
  } else {
    size_t se = hlo_skip_shape(r, p); /* where a shape is, it ends there */
    if (se > p || !shapeless_at(r, p)) {
      ty = hlo_read_new_shape(r, &p, se);
      if (!ty) return hlo_fail_shape(r, shape_at, p, "a shape after '='");
      p = skip_ws(r, p);
    }
  }
  size_t os = p;
  p = opcode_end(t, p, len);
  if (p == os) return hlo_fail_syntax(r, p, "expected an opcode (such as add, fusion, custom-call) after the shape");
  size_t oe = p;
  p = skip_ws(r, p);
  if (p >= len || t[p] != '(') return hlo_fail_syntax(r, p, "expected '(' and the operands after the opcode");
  int kind = opcode_kind(r, os, oe);
  int rule = r->last_rule;
  hlo_brief brief = r->last_brief;
  bool known = kind >= 0;
  uint32_t op_base = r->n_ops;
  r->lit_type = brief & HLO_SPECIAL_CONSTANT ? ty : NULL;
  size_t e = read_operands(r, p + 1, known ? kind : LIT_NONE, 0);
  if (e == HLO_FAIL) return HLO_FAIL;
  if (kind == LIT_NONE && !r->cut) hlo_check_operands(r, rule, brief, p, r->n_ops - op_base); /* not parameter, constant, iota */
  int32_t idx = push_instr(r, name, hs_sl((uint32_t)os, (uint32_t)(oe - os)), ty, r->stmt_line, op_base, HS_SYNTH_NONE);
  if (idx < 0) return hlo_fail_oom(r);
  if (!hlo_scope_put(r, (uint32_t)idx, h)) return hlo_fail_oom(r);
  bool async = known ? brief & HLO_SPECIAL_ASYNC : async_sugar(r, os, oe, (uint32_t)idx);
  if (!known && !async)
    hlo_warn_at(r, os, "unknown opcode '%.*s': XLA's parser refuses it (a typo, or an opcode newer than hloscope knows?)", t + os, oe - os);
  d->instrs[idx].is_root = root;
  *out = idx;
  if (r->cut) return len;
  e = hlo_read_attributes(r, idx, e, false, rule, brief);
  if (e == HLO_FAIL || r->cut) return e;
  if (async) hlo_check_async(r, idx);
  else hlo_check_instr(r, idx, rule, brief);
  /* what may follow: the next statement (a name or keyword), '}', or the end */
  size_t q = skip_ws(r, e);
  if (q < len && t[q] != '}' && t[q] != '%' && !is_name_char(t[q])) {
    char msg[160];
    snprintf(msg, sizeof msg, "unexpected '%c' after instruction %.*s: expected ', name=value' or the next instruction", t[q],
             (int)(name.len < 60 ? name.len : 60), t + name.off);
    return hlo_fail_syntax(r, q, msg);
  }
  return e;
}

/* Closes the open computation (end_line 0: cut), then makes the computations XLA wraps each
 * "<op>-start" of it in: a parameter per operand and the op, at the start's line. */
static bool close_comp(reader *r, uint32_t end_line) {
  hs_doc *d = r->d;
  if (!hlo_scope_close(r)) return false;
  hs_doc_close_comp(d, (uint32_t)r->comp, end_line);
  if (end_line) hlo_check_root(r, r->comp);
  r->comp = -1;
  uint32_t n = r->n_wraps;
  r->n_wraps = 0;
  for (uint32_t k = 0; k < n; k++) {
    struct wrap w = r->wraps[k];
    hs_slice name, pname;
    char suffix[24]; /* "custom-call.wrapped", then "custom-call.wrapped.1": one name per computation in the module */
    int sn = r->n_wrapped ? snprintf(suffix, sizeof suffix, ".wrapped.%u", r->n_wrapped) : snprintf(suffix, sizeof suffix, ".wrapped");
    r->n_wrapped++;
    if (!synth_str(r, r->t + w.op_off, w.op_len, suffix, (size_t)sn, &name)) return false;
    int32_t c = hs_doc_open_comp(d, (uint32_t)r->module, name, w.line, HS_ROLE_CALLED);
    if (c < 0) return false;
    d->comps[c].end_line = w.line;
    r->comp = c;
    if (!r->param_opcode.len && !synth_str(r, "parameter", 9, NULL, 0, &r->param_opcode)) return false;
    uint32_t op_base = r->n_ops;
    for (uint32_t i = 0; i < w.operands; i++) {
      char buf[24];
      int bn = snprintf(buf, sizeof buf, ".param_%u", i);
      if (!synth_str(r, r->t + w.op_off, w.op_len, buf, (size_t)bn, &pname)) return false;
      int32_t pi = push_instr(r, pname, r->param_opcode, NULL, w.line, r->n_ops, HS_SYNTH_NESTED);
      if (pi < 0 || !push_operand(r, hs_sl(0, 0), pi)) return false;
    }
    int32_t root = push_instr(r, name, hs_sl(w.op_off, w.op_len), NULL, w.line, op_base, HS_SYNTH_NESTED);
    if (root < 0) return false;
    d->instrs[root].is_root = 1;
    d->comps[c].root = root;
    hs_doc_close_comp(d, (uint32_t)c, w.line);
    r->comp = -1;
  }
  return true;
}

/* An opcode XLA does not list may be its async syntax sugar: "<op>-start", "-update", "-done"
 * of an op it lists ("custom-call-start"). Records a start's wrapped computation. */
static bool async_sugar(reader *r, size_t os, size_t oe, uint32_t idx) {
  const char *t = r->t;
  size_t n = oe - os, cut = 0;
  if (n > 6 && memcmp(t + oe - 6, "-start", 6) == 0) cut = 6;
  else if (n > 7 && memcmp(t + oe - 7, "-update", 7) == 0) cut = 7;
  else if (n > 5 && memcmp(t + oe - 5, "-done", 5) == 0) cut = 5;
  if (!cut || !hlo_known_opcode(t + os, n - cut)) return false;
  if (cut == 6) {
    bool ok;
    struct wrap *w = HS_VEC_PUSH(r->wraps, r->n_wraps, r->cap_wraps, ok);
    if (ok) *w = (struct wrap){(uint32_t)os, (uint32_t)(n - cut), r->d->instrs[idx].line, hs_op_count(r->d, &r->d->instrs[idx])};
  }
  return true;
}

/* A new module at the statement's line; its wrapped computations' names are counted anew. */
static bool open_module(reader *r, hs_slice name) {
  r->module = hs_doc_open_module(r->d, name, r->stmt_line, (uint32_t)r->stmt_ls);
  r->n_wrapped = 0;
  return r->module >= 0;
}

/* "[ENTRY] name [(params) -> shape] (, key=value)* {" at p. Returns the position after '{' (the
 * computation is open), HLO_FAIL, or len with r->cut. */
static size_t header(reader *r, size_t p, bool entry) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  if (entry) p = skip_ws(r, p + 5);
  size_t ns = p;
  hs_slice name = read_name(t, len, &p);
  if (!name.len) return hlo_fail_syntax(r, ns, "expected a computation name after ENTRY");
  hlo_check_name(r, name);
  p = skip_ws(r, p);
  hs_type *result = NULL;
  if (p < len && t[p] == '(') {
    size_t e = skip_balanced(r, p + 1, 1);
    if (e >= len && t[len - 1] != ')') {
      r->cut = true;
      return len;
    }
    p = skip_ws(r, e);
    if (p + 1 < len && t[p] == '-' && t[p + 1] == '>') {
      p = skip_ws(r, p + 2);
      size_t rs = p;
      size_t se = hlo_skip_shape(r, p); /* "-> f32[8]{" : the '{' opens the computation */
      result = hlo_result_shape(r, &p, se > p ? se : len);
      if (!result) return hlo_fail_syntax(r, p > rs ? p : rs, "expected the computation's result shape after '->'");
    }
  }
  p = hlo_read_attributes(r, -1, p, false, -1, hlo_rule_brief(-1)); /* execution_thread="..." */
  if (p == HLO_FAIL) return HLO_FAIL;
  if (r->cut) return len;
  p = skip_ws(r, p);
  if (p >= len) {
    r->cut = true;
    return len;
  }
  if (t[p] != '{') return hlo_fail_syntax(r, p, "expected '{' opening the computation");
  if (r->comp >= 0) {
    hs_comp *open = &d->comps[r->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, r->stmt_line, 1,
                "computation %.*s (line %u) has no closing '}' before the next computation at line %u",
                (int)open->name.len, t + open->name.off, open->line, r->stmt_line);
    uint32_t oc = (uint32_t)r->comp;
    if (!close_comp(r, 0)) return hlo_fail_oom(r);
    d->comps[oc].end_line = r->stmt_line - 1;
  }
  if (r->module < 0) {
    /* computations without an HloModule line: an anonymous module */
    if (!open_module(r, hs_sl(0, 0))) return hlo_fail_oom(r);
  }
  int32_t c = hs_doc_open_comp(d, (uint32_t)r->module, name, r->stmt_line, HS_ROLE_CALLED);
  memset(r->params_seen, 0, sizeof r->params_seen);
  if (c < 0) return hlo_fail_oom(r);
  d->comps[c].result = result;
  d->comps[c].is_entry = entry;
  r->comp = c;
  hlo_scope_open(r);
  if (entry && d->modules[r->module].entry >= 0)
    hlo_warn_at(r, ns, "a second ENTRY computation in module %.*s: XLA's parser refuses this", t + d->modules[r->module].name.off,
            d->modules[r->module].name.len);
  if (entry) d->modules[r->module].entry = c;
  if (r->n_gtes) { /* compact get-tuple-element names are per computation */
    memset(r->gtes, 0, r->cap_gtes * sizeof *r->gtes);
    r->n_gtes = 0;
  }
  return p + 1;
}

/* "HloModule name, key=value, ...": a new module; a computation left open is cut there. */
static size_t module_stmt(reader *r, size_t p) {
  hs_doc *d = r->d;
  if (r->comp >= 0) {
    hs_comp *open = &d->comps[r->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                "computation %.*s (line %u) has no closing '}' before the next module at line %u",
                (int)open->name.len, r->t + open->name.off, open->line, r->stmt_line);
    if (!close_comp(r, 0)) return hlo_fail_oom(r);
  }
  /* the module before is complete: its calls resolved now, while its text is in the cache (after the
     whole text it would be read from memory again) */
  if (r->module >= 0 && hs_resolve_module(d, (uint32_t)r->module) != 0) return hlo_fail_oom(r);
  r->module_frames = 0; /* frame tables belong to one module */
  size_t kw_end = p + 9;
  p = skip_ws(r, kw_end);
  if (keyword_at(r->t, r->len, p, "ENTRY", 5)) { /* "HloModule" and no name: ENTRY is a keyword, not the name */
    hlo_warn_at(r, p, "%.*s: the module has no name after HloModule: XLA's parser refuses this (expects name)", r->t + p, 5);
    return open_module(r, hs_sl((uint32_t)kw_end, 0)) ? kw_end : hlo_fail_oom(r); /* the statement ends with its keyword */
  }
  hs_slice name = read_name(r->t, r->len, &p);
  while (p < r->len && (r->t[p] == ':' || is_name_char(r->t[p]))) p++; /* XLA takes "name:" too */
  name.len = (uint32_t)(p - name.off);
  if (name.len) hlo_check_name(r, name);
  if (!open_module(r, name)) return hlo_fail_oom(r);
  return hlo_read_attributes(r, -1, p, false, -1, hlo_rule_brief(-1));
}

/* The end of the line holding p (its '\n', or len). */
static size_t line_end(reader *r, size_t p) {
  const char *nl = memchr(r->t + p, '\n', r->len - p);
  return nl ? (size_t)(nl - r->t) : r->len;
}

/* The line from p is exactly the keyword (trailing spaces and comments aside). */
static bool line_is(reader *r, size_t p, const char *kw, size_t n) {
  const char *t = r->t;
  if (r->len - p < n || memcmp(t + p, kw, n) != 0) return false;
  size_t q = p + n;
  while (q < r->len && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r')) q++;
  return q >= r->len || t[q] == '\n' || (t[q] == '/' && q + 1 < r->len && (t[q + 1] == '/' || t[q + 1] == '*'));
}

/* A statement that broke off where the text ends (a dump cut short): undo what it added and
 * say so, or (the text goes on) keep the error. */
typedef struct {
  uint32_t instrs, instr_wide, hlo, hlo_rare, hlo_wide, operands, calls;
} mark;

static int broken(reader *r, const mark *m, int rc) {
  hs_doc *d = r->d;
  if (rc != HS_E_SYNTAX || !hlo_on_last_line(r, r->err->offset)) return rc;
  for (uint32_t i = m->instrs; i < d->n_instrs; i++) { /* the fusions it counted */
    const hs_instr *in = &d->instrs[i];
    if (in->comp < d->n_comps && hs_slice_is(d, hs_opcode(d, in), "fusion")) d->comps[in->comp].fusions--;
  }
  d->n_instrs = m->instrs;
  d->n_instr_wide = m->instr_wide;
  d->n_hlo = m->hlo;
  d->n_hlo_rare = m->hlo_rare;
  d->n_hlo_wide = m->hlo_wide;
  d->n_operands = m->operands;
  d->n_calls = m->calls;
  r->n_ops = 0;
  r->err->code = 0;
  r->cut = true;
  hs_warn_truncated_line(d, r->stmt_line);
  return 0;
}

/* One statement at p (its first token): read, its lines recorded; *next: where the next may
 * start. */
static int statement(reader *r, size_t p, size_t *next) {
  hs_doc *d = r->d;
  const char *t = r->t;
  size_t len = r->len;
  mark m = {d->n_instrs, d->n_instr_wide, d->n_hlo, d->n_hlo_rare, d->n_hlo_wide, d->n_operands, d->n_calls};
  char c = t[p];
  uint8_t kind = HS_LINE_OTHER;
  uint32_t ref = 0;
  size_t e;
  if (c == 'H' && keyword_at(t, len, p, "HloModule", 9)) {
    r->table = TABLE_NONE;
    e = module_stmt(r, p);
    if (e == HLO_FAIL) return broken(r, &m, r->err->code);
    kind = HS_LINE_MODULE;
    ref = (uint32_t)r->module;
  } else if (r->comp < 0 && (c == 'F' || c == 'S') &&
             (line_is(r, p, "FileNames", 9) || line_is(r, p, "FunctionNames", 13) || line_is(r, p, "FileLocations", 13) ||
              line_is(r, p, "StackFrames", 11))) {
    r->table = c == 'S' ? TABLE_STACK_FRAMES : t[p + 1] == 'u' ? TABLE_FUNCTION_NAMES : t[p + 4] == 'N' ? TABLE_FILE_NAMES : TABLE_FILE_LOCATIONS;
    e = p;
    while (e < len && is_name_char(t[e])) e++;
    kind = HS_LINE_TABLE;
  } else if (r->comp < 0 && r->table && is_digit(c)) {
    if (r->table == TABLE_STACK_FRAMES) {
      d->stack_frames++;
      r->module_frames++;
    }
    e = line_end(r, p);
    if (!hlo_frame_row(r, p, e)) {
      hlo_fail_oom(r);
      return r->err->code;
    }
    kind = HS_LINE_TABLE;
  } else {
    r->table = TABLE_NONE;
    bool entry = c == 'E' && keyword_at(t, len, p, "ENTRY", 5);
    bool root = c == 'R' && keyword_at(t, len, p, "ROOT", 4);
    size_t q = root ? skip_ws(r, p + 4) : p;
    size_t after = q;
    hs_slice name = {0, 0};
    if (!entry) {
      name = read_name(t, len, &after);
      after = skip_ws(r, after);
    }
    if (c == '}') {
      e = hlo_read_attributes(r, -1, p + 1, false, -1, hlo_rule_brief(-1)); /* "}, execution_thread=..." */
      if (e == HLO_FAIL) return broken(r, &m, r->err->code);
      if (r->comp >= 0) {
        kind = HS_LINE_CLOSE;
        ref = (uint32_t)r->comp;
        if (!close_comp(r, r->stmt_line)) return hlo_oom(r);
        r->suspect_line = 0;
      } else {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1, "a '}' with no open computation was skipped");
      }
    } else if (!entry && after < len && t[after] == '=' && after > q) {
      if (r->comp < 0) {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1,
                    "an instruction outside any computation was skipped");
        e = line_end(r, p);
      } else {
        int32_t idx;
        e = instruction(r, name, after, root, &idx);
        if (e == HLO_FAIL) return broken(r, &m, r->err->code);
        if (idx < 0) { /* cut before it was made */
          kind = HS_LINE_OTHER;
        } else {
          kind = HS_LINE_INSTR;
          ref = (uint32_t)idx;
          if (root && d->comps[r->comp].root >= 0)
            hlo_warn_at(r, p, "a second ROOT in computation %.*s: XLA's parser refuses this", t + d->comps[r->comp].name.off,
                    d->comps[r->comp].name.len);
          if (root) d->comps[r->comp].root = idx;
          if (r->cut) {
            hs_instr *in = &d->instrs[idx];
            hs_doc_warn(d, HS_W_TRUNCATED, r->stmt_line, 1,
                        "instruction %.*s at line %u is cut short (truncated dump?): read what was there", (int)in->name.len,
                        t + in->name.off, r->stmt_line);
          }
        }
      }
    } else if (!root && (entry || (after < len && after > q && (t[after] == '(' || t[after] == '{')))) {
      e = header(r, p, entry);
      if (e == HLO_FAIL) return broken(r, &m, r->err->code);
      if (r->cut) {
        hs_warn_truncated_line(d, r->stmt_line);
      } else {
        kind = HS_LINE_COMP;
        ref = (uint32_t)r->comp;
      }
    } else if (hlo_on_last_line(r, p)) {
      hs_warn_truncated_line(d, r->stmt_line);
      e = len;
      r->cut = true;
    } else if (r->comp >= 0) {
      /* where the statement goes wrong: the token after its name, or (that token is on a later
         line) the end of the name, so that the error names the line the user wrote */
      size_t at = p;
      if (after < len && after > q) {
        size_t ne = q;
        read_name(t, len, &ne);
        at = memchr(t + ne, '\n', after - ne) ? ne : after;
      }
      return hlo_syntax(r, at, "expected an instruction 'name = shape opcode(operands)' or '}' closing the computation");
    } else {
      hs_doc_warn(d, HS_W_SKIPPED_LINE, r->stmt_line, (uint32_t)(p - r->stmt_ls) + 1,
                  "a line that is neither a module, a computation nor a frame table was skipped");
      e = line_end(r, p);
    }
  }
  if (r->cut) e = len;
  if (!hlo_end_stmt(r, e, kind, ref)) return hlo_oom(r);
  *next = e;
  return 0;
}

/* The end of the text: a computation left open there is closed (and said to be cut). */
int hlo_finish_text(reader *r) {
  hs_doc *d = r->d;
  if (r->comp < 0) return 0;
  hs_comp copy = d->comps[r->comp];
  const hs_comp *c = &copy; /* close_comp may move d->comps */
  if (!close_comp(r, 0)) return hlo_oom(r);
  if (r->suspect_line) {
    size_t ke = r->suspect_key;
    while (ke < r->len && is_name_char(r->t[ke])) ke++;
    hs_doc_warn(d, HS_W_XLA_REFUSES, r->suspect_line, 0,
                "the value of %.*s (line %u) took the '}' that closes computation %.*s: is its own '}' missing?",
                (int)(ke - r->suspect_key), r->t + r->suspect_key, r->suspect_line, (int)c->name.len, r->t + c->name.off);
  }
  /* at the end of the text: the line after the last line break */
  uint32_t eof_line = d->n_lines + (r->len && r->t[r->len - 1] == '\n' ? 1 : 0);
  hs_doc_warn(d, HS_W_TRUNCATED, eof_line, 1,
              "the dump ends inside computation %.*s (opened at line %u): it looks truncated; the results cover what was read",
              (int)c->name.len, r->t + c->name.off, c->line);
  return 0;
}

/* The warnings that need the whole document: frame references; no computation at all. */
int hlo_finish_doc(hs_doc *d, uint32_t first_ref_line, hs_error *err) {
  if (d->frame_refs && !d->stack_frames) {
    hs_doc_warn(d, HS_W_FRAME_TABLES_MISSING, first_ref_line, 0,
                "%u instructions refer to stack frames (stack_frame_id=) but the dump has no StackFrames "
                "table (frame tables trimmed?): their source lines are unknown",
                d->frame_refs);
  } else if (d->frame_refs_dangling) {
    hs_doc_warn(d, HS_W_FRAME_REF_DANGLING, d->first_dangling_line, 0,
                "%u stack_frame_id references point past the StackFrames table: their source lines are unknown",
                d->frame_refs_dangling);
  }
  if (!d->n_comps) {
    hs_doc_error(err, HS_E_FORMAT, d, 0,
                 "no HLO computation found: expected 'HloModule <name>' followed by computations such as "
                 "'ENTRY %%main (p: f32[4]) -> f32[4] {'");
    return HS_E_FORMAT;
  }
  return 0;
}

/* Every so often (r->hint_at, from the first megabyte on), each array's fill so far projected
 * to the next checkpoint and to the end of the reader's part of the text: its pages made up to
 * the next (one call, where a page fault each took a tenth of the parse) and 2 MB pages asked
 * for up to 15/16 of the end (util.c: hs_vec_prefill). Made where the array will be filled, they
 * hold no memory it does not use: 2 MB pages asked for at its reservation, under its first
 * half, held 0.04-0.09x of a 60 MB input it never used (issue 37's peak). A reader of the
 * text's second part (hlo_split.c) projects what it added: its lines after those before it. The
 * two parts' readers take 4 KB pages only (r->small_pages): each array's last 2 MB page, rounded
 * up in both documents and then in the appended one, held 0.02-0.05x more than one reader. */
static void hint_arrays(reader *r, size_t p) {
  hs_doc *d = r->d;
  size_t span = r->len - r->start, done = p - r->start;
  size_t step = span / 32 > (1u << 20) ? span / 32 : (1u << 20), next = r->len - p > step ? p + step : r->len;
  uint64_t den = done ? done : 1, to_next = next - r->start;
#define HLO_HINT_(field, base)                                                                              \
  hs_vec_prefill(d->field, d->cap_##field, d->n_##field, (base) + (uint64_t)(d->n_##field - (base)) * to_next / den, \
                 r->small_pages ? 0 : (base) + (uint64_t)(d->n_##field - (base)) * span / den * 15 / 16, sizeof *d->field)
  HLO_HINT_(lines, r->lines0);
  HLO_HINT_(instrs, 0);
  HLO_HINT_(hlo, 0);
  HLO_HINT_(operands, 0);
  HLO_HINT_(comps, 0);
  HLO_HINT_(calls, 0);
#undef HLO_HINT_
  r->hint_at = next < r->len ? next : NOWHERE;
}

reader *hlo_reader_new(hs_doc *d, hs_error *err, size_t start, size_t end) {
  reader *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t span = end - start;
  *r = (reader){.d = d, .err = err, .t = d->text, .len = end, .start = start, .lnext = start, .lines0 = d->n_lines, .module = -1,
                .comp = -1, .open_comment = NOWHERE, .ws_from = NOWHERE,
                .hint_at = start + (span / 8 < (1u << 20) ? span / 8 : (1u << 20))};
  return r;
}

void hlo_reader_free(reader *r) {
  if (!r) return;
  free(r->file_slots);
  free(r->ops);
  free(r->op_names);
  free(r->names);
  free(r->name_hashes);
  free(r->gtes);
  free(r->wraps);
  free(r);
}

/* Reserved from the line count of [from, to), estimated from its first megabyte (a full
 * counting pass would read the text twice): the arrays are then rarely copied while they grow
 * (a copy holds both in memory at once), and what is reserved but never written is never
 * touched, so it costs no memory. The lines after those already there (d->n_lines). */
bool hlo_reserve(reader *r, size_t from, size_t to) {
  hs_doc *d = r->d;
  size_t span = to - from, sample = span < (1u << 20) ? span : (1u << 20);
  /* its line breaks + 1, + 1 more for a line the sample cuts */
  uint64_t n_nl = hs_count_byte(d->text + from, sample, '\n') + 1 + (sample && d->text[from + sample - 1] != '\n');
  uint64_t est = sample ? n_nl * (uint64_t)span / sample + n_nl / 4 + 64 : 64;
  uint32_t n_lines = (uint32_t)(est < UINT32_MAX / 4 ? est : UINT32_MAX / 4);
  uint32_t n_stmts = (uint32_t)(n_lines < span / 24 ? n_lines : span / 24) + 64;
  return hs_vec_grow((void **)&d->lines, &d->cap_lines, d->n_lines + n_lines + 1, sizeof *d->lines) &&
         hs_vec_grow((void **)&d->instrs, &d->cap_instrs, n_stmts, sizeof *d->instrs) &&
         hs_vec_grow((void **)&d->hlo, &d->cap_hlo, n_stmts, sizeof *d->hlo) &&
         hs_vec_grow((void **)&d->operands, &d->cap_operands, n_stmts < UINT32_MAX / 2 ? n_stmts + n_stmts / 2 : n_stmts, sizeof *d->operands) &&
         /* a computation and a call to every eleven instructions on the bench's text: in wasm,
            where realloc copies, the two grown from 64 were two thirds of the parse's copying */
         hs_vec_grow((void **)&d->comps, &d->cap_comps, n_stmts / 8 + 64, sizeof *d->comps) &&
         hs_vec_grow((void **)&d->calls, &d->cap_calls, n_stmts / 8 + 64, sizeof *d->calls);
}

/* The driver: statement after statement from r->start, each recorded with its lines, to r->len;
 * then the lines after the last statement. */
int hlo_read(reader *r) {
  hs_doc *d = r->d;
  int rc = 0;
  size_t p = r->start;
  for (;;) {
    p = skip_ws(r, p);
    if (p >= r->len) break;
    if (!hlo_lines_upto(r, p)) return hlo_oom(r);
    rc = statement(r, p, &p);
    if (rc || r->cut) break;
    if (p >= r->hint_at) hint_arrays(r, p);
  }
  if (rc) return rc;
  /* the lines after the last statement: blank or comments */
  if (r->lnext < r->len) {
    if (!hlo_lines_upto(r, r->len)) return hlo_oom(r);
    if (r->lnext < r->len && r->stmt_ls < r->len && !r->stmt_recorded) {
      size_t q = r->stmt_ls;
      while (q < r->len && (r->t[q] == ' ' || r->t[q] == '\t' || r->t[q] == '\r')) q++;
      if (!hs_doc_add_line(d, (uint32_t)r->stmt_ls, q < r->len ? HS_LINE_COMMENT : HS_LINE_BLANK, 0)) return hlo_oom(r);
    }
  }
  if (r->open_comment != NOWHERE && !hlo_on_last_line(r, r->open_comment))
    return hlo_syntax(r, r->open_comment, "this /* comment is never closed: everything after it is hidden (close it with */)");
  return 0;
}

/* The part of the text before start is read: the module open there is complete (module_stmt does
 * the same when the next HloModule line is read). */
int hlo_end_part(reader *r) {
  if (r->module >= 0 && hs_resolve_module(r->d, (uint32_t)r->module) != 0) return hlo_oom(r);
  return 0;
}
