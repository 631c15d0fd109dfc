/* The HLO text parser: every printer era of FORMATS.md section 1 in one pass over the bytes.
 *
 * The text is read line by line (memchr); a statement whose brackets are still open at the end
 * of a line (a large literal, a value printed across lines) continues on the next lines. Names,
 * opcodes and attribute values are kept as slices into the text. What cannot be read is either
 * a hard error (a garbled line inside a computation) or, when it looks like truncation or a
 * trimmed dump, a warning and a partial result. */
#include "internal.h"

#include <stdio.h>

/* [A-Za-z0-9_.-]: the bytes of an HLO name (a table: this is the parser's hottest test). */
static const uint8_t NAME_CHAR[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1,
    ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1, ['_'] = 1, ['.'] = 1, ['-'] = 1};

static inline bool is_name_char(char c) { return NAME_CHAR[(uint8_t)c]; }

/* Spaces and comments, within [p, end). Comments may hide anywhere in XLA's text. */
static size_t skip_sp_comments(const char *t, size_t end, size_t p) {
  for (;;) {
    p = hs_skip_sp(t, end, p);
    if (p + 1 < end && t[p] == '/' && t[p + 1] == '*') {
      size_t q = p + 2;
      while (q + 1 < end && !(t[q] == '*' && t[q + 1] == '/')) q++;
      p = q + 1 < end ? q + 2 : end;
      continue;
    }
    return p;
  }
}

/* The line (from q to le) is exactly the keyword, trailing spaces aside. */
static bool line_is(const char *t, size_t q, size_t le, const char *kw) {
  return hs_starts(t, le, q, kw) && hs_skip_sp(t, le, q + strlen(kw)) >= le;
}

/* Bytes scan_value must look at; everything else is skipped in a tight loop. */
static const uint8_t SPECIAL[256] = {['"'] = 1, ['('] = 1, ['{'] = 1, ['['] = 1, [')'] = 1,
                                     ['}'] = 1, [']'] = 1, [','] = 1, ['\n'] = 1};

/* Scans one attribute or operand value starting at p: stops at depth 0 on ',', on a closing
 * bracket that this value did not open, or on a newline. Crosses newlines inside brackets.
 * Returns the end; sets *open when the text ended with brackets still open. */
static size_t scan_value(const char *t, size_t len, size_t p, bool *open) {
  int depth = 0;
  *open = false;
  while (p < len) {
    while (p < len && !SPECIAL[(uint8_t)t[p]]) p++;
    if (p >= len) break;
    char c = t[p];
    switch (c) {
      case '"':
        p = hs_skip_string(t, len, p);
        continue;
      case '(':
      case '{':
      case '[':
        depth++;
        break;
      case ')':
        if (depth == 0) return p;
        depth--;
        break;
      case '}':
      case ']':
        if (depth == 0) return p;
        depth--;
        break;
      case ',':
        if (depth == 0) return p;
        break;
      case '\n':
        if (depth == 0) return p;
        break;
      default:
        break;
    }
    p++;
  }
  *open = depth > 0;
  return p;
}

typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  int32_t module;
  int32_t comp;       /* open computation, -1 */
  uint32_t line_no;   /* 1-based number of the line being read */
  uint32_t module_frames;
  uint8_t table;      /* 0 none, 1 FileNames, 2 FunctionNames, 3 FileLocations, 4 StackFrames */
  bool truncated;
} hlo_parser;

static int oom(hlo_parser *P) {
  hs_set_error(P->err, HS_E_NOMEM, P->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

static int syntax(hlo_parser *P, size_t at, const char *fmt, const char *what) {
  char msg[200];
  snprintf(msg, sizeof msg, fmt, what);
  hs_set_error(P->err, HS_E_SYNTAX, P->d, at, "%s", msg);
  return HS_E_SYNTAX;
}

/* Reads a name at p (optional leading '%'); returns its slice (len 0 if none). */
static hs_slice read_name(const char *t, size_t end, size_t *pp) {
  size_t p = *pp;
  if (p < end && t[p] == '%') p++;
  size_t s = p;
  while (p < end && is_name_char(t[p])) p++;
  *pp = p;
  return hs_sl((uint32_t)s, (uint32_t)(p - s));
}

static bool add_call(hlo_parser *P, hs_instr *in, hs_slice name, uint8_t attr) {
  bool ok;
  hs_call *c = HS_VEC_PUSH(P->d->calls, P->d->n_calls, P->d->cap_calls, ok);
  if (!ok) return false;
  c->name = name;
  c->target = -1;
  c->attr = attr;
  in->call_count++;
  return true;
}

/* A value that names one computation (%c) or a list of them ({%a, %b}). */
static bool read_calls(hlo_parser *P, hs_instr *in, size_t s, size_t e, uint8_t attr) {
  const char *t = P->t;
  size_t p = s;
  while (p < e) {
    while (p < e && !(t[p] == '%' || is_name_char(t[p]))) p++;
    if (p >= e) break;
    hs_slice n = read_name(t, e, &p);
    if (n.len && !add_call(P, in, n, attr)) return false;
    if (!n.len) p++;
  }
  return true;
}

/* metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N} */
static void read_metadata(hlo_parser *P, hs_instr *in, size_t s, size_t e) {
  const char *t = P->t;
  size_t p = s;
  while (p < e) {
    if (t[p] == '"') {
      p = hs_skip_string(t, e, p);
      continue;
    }
    if (t[p] != 'o' && t[p] != 's') {
      p++;
      continue;
    }
    if (hs_starts(t, e, p, "op_name=\"") && (p == s || t[p - 1] == ' ' || t[p - 1] == '{')) {
      size_t q = hs_skip_string(t, e, p + 8);
      in->op_name = hs_sl((uint32_t)(p + 9), (uint32_t)(q > p + 9 ? q - 1 - (p + 9) : 0));
      p = q;
      continue;
    }
    if (hs_starts(t, e, p, "stack_frame_id=")) {
      size_t q = p + 15;
      uint64_t v = 0;
      while (q < e && t[q] >= '0' && t[q] <= '9') v = v * 10 + (uint64_t)(t[q++] - '0');
      in->has_frame_ref = 1;
      P->d->frame_refs++;
      if (v > P->module_frames && P->module_frames > 0) {
        if (!P->d->frame_refs_dangling) P->d->first_dangling_line = P->line_no;
        P->d->frame_refs_dangling++;
      }
      p = q;
      continue;
    }
    p++;
  }
}

/* Parses the instruction whose name starts at p (after "ROOT " if any). `le` is the end of the
 * current line. Returns the end of the statement (may be past le for multi-line values), or
 * (size_t)-1 on error (err filled). */
static size_t parse_instruction(hlo_parser *P, size_t p, size_t le, bool root, bool *partial) {
  hs_doc *d = P->d;
  const char *t = P->t;
  size_t len = P->len;
  *partial = false;
  hs_slice name = read_name(t, le, &p);
  if (!name.len) return syntax(P, p, "%s", "expected an instruction name"), (size_t)-1;
  p = hs_skip_sp(t, le, p);
  if (p >= le || t[p] != '=') return syntax(P, p, "expected '=' after the instruction name %s", "") , (size_t)-1;
  p = hs_skip_sp(t, le, p + 1);
  size_t shape_at = p;
  hs_type *ty = hs_parse_hlo_shape(&d->arena, t, le, &p);
  if (!ty) {
    return syntax(P, p > shape_at ? p : shape_at, "%s",
                  "expected a shape such as f32[128]{0} or (f32[], s32[]) after '='"),
           (size_t)-1;
  }
  p = skip_sp_comments(t, le, p);
  size_t op_s = p;
  while (p < le && ((t[p] >= 'a' && t[p] <= 'z') || (t[p] >= '0' && t[p] <= '9') || t[p] == '-' || t[p] == '_'))
    p++;
  if (p == op_s) return syntax(P, p, "%s", "expected an opcode (such as add, fusion, custom-call) after the shape"), (size_t)-1;
  hs_slice opcode = hs_sl((uint32_t)op_s, (uint32_t)(p - op_s));
  if (p >= le || t[p] != '(') return syntax(P, p, "%s", "expected '(' and the operands after the opcode"), (size_t)-1;
  p++;

  bool ok;
  hs_instr *in = HS_VEC_PUSH(d->instrs, d->n_instrs, d->cap_instrs, ok);
  if (!ok) return oom(P), (size_t)-1;
  memset(in, 0, sizeof *in);
  uint32_t idx = d->n_instrs - 1;
  in->name = name;
  in->opcode = opcode;
  in->line = P->line_no;
  in->comp = (uint32_t)P->comp;
  in->type = ty;
  in->is_root = root;
  in->op_first = d->n_operands;
  in->call_first = d->n_calls;

  bool literal = hs_slice_is(d, opcode, "constant") || hs_slice_is(d, opcode, "parameter");
  /* operands */
  for (;;) {
    p = skip_sp_comments(t, len, p);
    if (p < len && t[p] == ')') {
      p++;
      break;
    }
    bool open;
    size_t s = p;
    size_t e = scan_value(t, len, p, &open);
    if (e >= len) {
      *partial = true;
      return len;
    }
    if (t[e] == '\n' && !open) {
      /* a line ended inside the operand list: the statement is cut */
      *partial = true;
      return e;
    }
    if (!literal && e > s) {
      /* the operand's name is its last token: "f32[128]{0} %param_3.3", "%p0#0#1", "x" */
      size_t k = e;
      while (k > s && (t[k - 1] == ' ' || t[k - 1] == '\t' || t[k - 1] == '\r')) k--;
      size_t ne = k;
      while (k > s && (is_name_char(t[k - 1]) || t[k - 1] == '#')) k--;
      size_t ns = k;
      if (ns < ne) {
        size_t hash = ns;
        while (hash < ne && t[hash] != '#') hash++;
        hs_operand *o = HS_VEC_PUSH(d->operands, d->n_operands, d->cap_operands, ok);
        if (!ok) return oom(P), (size_t)-1;
        d->instrs[idx].op_count++;
        o->name = hs_sl((uint32_t)ns, (uint32_t)(hash - ns));
        o->target = -1;
        o->gte = -1;
        if (hash < ne) {
          int v = 0;
          size_t q = hash + 1;
          while (q < ne && t[q] >= '0' && t[q] <= '9') v = v * 10 + (t[q++] - '0');
          o->gte = (int16_t)(v > 32767 ? 32767 : v);
        }
      }
    }
    p = e;
    if (t[p] == ',') {
      p++;
      continue;
    }
    if (t[p] == ')') {
      p++;
      break;
    }
    /* '}' or ']' at depth 0 inside an operand list: garbled */
    return syntax(P, p, "%s", "unbalanced bracket in the operand list"), (size_t)-1;
  }
  in = &d->instrs[idx];

  /* attributes: , key=value */
  for (;;) {
    p = skip_sp_comments(t, len, p);
    if (p >= len || t[p] == '\n') break;
    if (t[p] != ',') {
      /* something after the operands that is not an attribute: tolerate and stop */
      size_t nl = p;
      while (nl < len && t[nl] != '\n') nl++;
      p = nl;
      break;
    }
    p = skip_sp_comments(t, len, p + 1);
    size_t ks = p;
    while (p < len && (is_name_char(t[p]))) p++;
    size_t ke = p;
    if (p >= len || t[p] != '=') {
      /* e.g. a bare flag; skip to next comma */
      bool open;
      p = scan_value(t, len, p, &open);
      if (open || p >= len) {
        *partial = open;
        break;
      }
      continue;
    }
    p++;
    size_t vs = p;
    bool open;
    size_t ve = scan_value(t, len, p, &open);
    if (open || (ve >= len && vs < len && (t[vs] == '{' || t[vs] == '"') && !(ve > vs && (t[ve - 1] == '}' || t[ve - 1] == '"')))) {
      *partial = true;
    }
    in = &d->instrs[idx];
    size_t kl = ke - ks;
    const char *k = t + ks;
#define KEY(lit) (kl == sizeof(lit) - 1 && memcmp(k, lit, kl) == 0)
    if (KEY("calls")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_CALLS)) return oom(P), (size_t)-1;
    } else if (KEY("to_apply")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_TO_APPLY)) return oom(P), (size_t)-1;
    } else if (KEY("body")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_BODY)) return oom(P), (size_t)-1;
    } else if (KEY("condition")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_CONDITION)) return oom(P), (size_t)-1;
    } else if (KEY("branch_computations") || KEY("true_computation") || KEY("false_computation")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_BRANCH)) return oom(P), (size_t)-1;
    } else if (KEY("called_computations") || KEY("select") || KEY("scatter") || KEY("async_execution_thread_computation")) {
      if (!read_calls(P, in, vs, ve, HS_CALL_OTHER)) return oom(P), (size_t)-1;
    } else if (KEY("kind")) {
      in->kind = hs_sl((uint32_t)vs, (uint32_t)(ve - vs));
    } else if (KEY("custom_call_target")) {
      size_t a = vs, b = ve;
      if (b > a && t[a] == '"') a++;
      if (b > a && t[b - 1] == '"') b--;
      in->custom_call_target = hs_sl((uint32_t)a, (uint32_t)(b - a));
    } else if (KEY("metadata")) {
      read_metadata(P, in, vs, ve);
    } else if (KEY("backend_config")) {
      in->backend_config = hs_sl((uint32_t)vs, (uint32_t)(ve - vs));
    }
#undef KEY
    p = ve;
    if (p >= len) break;
  }
  return p;
}

/* Computation header: [ENTRY] %name (params) -> result {   or   name {  */
static int parse_header(hlo_parser *P, size_t p, size_t le, bool entry) {
  hs_doc *d = P->d;
  const char *t = P->t;
  hs_slice name = read_name(t, le, &p);
  if (!name.len) return syntax(P, p, "%s", "expected a computation name after ENTRY");
  p = skip_sp_comments(t, le, p);
  hs_type *result = NULL;
  if (p < le && t[p] == '(') {
    size_t e = p + 1;
    int depth = 1;
    while (e < le) {
      char c = t[e];
      if (c == '"') {
        e = hs_skip_string(t, le, e);
        continue;
      }
      if (c == '(' || c == '{' || c == '[') depth++;
      else if ((c == ')' || c == '}' || c == ']') && --depth == 0) break;
      e++;
    }
    if (e >= le || t[e] != ')') {
      if (e >= P->len) P->truncated = true;
      return syntax(P, e, "%s", "expected ')' closing the computation's parameter list");
    }
    p = skip_sp_comments(t, le, e + 1);
    if (hs_starts(t, le, p, "->")) {
      p = skip_sp_comments(t, le, p + 2);
      size_t rs = p;
      result = hs_parse_hlo_shape(&d->arena, t, le, &p);
      if (!result) return syntax(P, p > rs ? p : rs, "%s", "expected the computation's result shape after '->'");
      p = skip_sp_comments(t, le, p);
    }
  }
  if (p >= le || t[p] != '{') return syntax(P, p, "%s", "expected '{' opening the computation");
  if (P->comp >= 0) {
    hs_comp *open = &d->comps[P->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                "computation %.*s (line %u) has no closing '}' before the next computation at line %u",
                (int)open->name.len, t + open->name.off, open->line, P->line_no);
    open->end_line = P->line_no - 1;
  }
  if (P->module < 0) {
    /* computations without an HloModule line: start an anonymous module */
    bool ok;
    hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
    if (!ok) return oom(P);
    memset(m, 0, sizeof *m);
    m->line = P->line_no;
    m->first_comp = d->n_comps;
    m->entry = -1;
    P->module = (int32_t)d->n_modules - 1;
  }
  bool ok;
  hs_comp *c = HS_VEC_PUSH(d->comps, d->n_comps, d->cap_comps, ok);
  if (!ok) return oom(P);
  memset(c, 0, sizeof *c);
  c->name = name;
  c->line = P->line_no;
  c->module = (uint32_t)P->module;
  c->first = d->n_instrs;
  c->result = result;
  c->root = -1;
  c->is_entry = entry;
  c->fused_by = -1;
  c->role = HS_ROLE_CALLED;
  P->comp = (int32_t)d->n_comps - 1;
  d->modules[P->module].comp_count++;
  if (entry) d->modules[P->module].entry = P->comp;
  return 0;
}

static void close_comp(hlo_parser *P) {
  hs_doc *d = P->d;
  hs_comp *c = &d->comps[P->comp];
  c->count = d->n_instrs - c->first;
  c->end_line = P->line_no;
  P->comp = -1;
}

/* "HloModule", "ENTRY " or a frame table at the start: certain. A bare computation header
 * ("%name (" or "name {", a module without its HloModule line): likely. */
int hs_detect_hlo(const char *text, size_t len, size_t p) {
  if (hs_starts(text, len, p, "HloModule") || hs_starts(text, len, p, "ENTRY ") || hs_starts(text, len, p, "FileNames"))
    return 100;
  size_t q = p;
  if (q < len && text[q] == '%') q++;
  size_t s = q;
  while (q < len && is_name_char(text[q])) q++;
  if (q > s) {
    while (q < len && text[q] == ' ') q++;
    if (q < len && (text[q] == '(' || text[q] == '{')) return 50;
  }
  return 0;
}

int hs_parse_hlo_text(hs_doc *d, hs_error *err) {
  hlo_parser P = {d, err, d->text, d->len, -1, -1, 0, 0, 0, false};
  /* reserve for typical dumps (a line per ~80 bytes, an instruction per ~160) so the arrays
     are rarely copied while they grow */
  if (!hs_vec_grow((void **)&d->lines, &d->cap_lines, (uint32_t)(d->len / 80) + 64, sizeof *d->lines) ||
      !hs_vec_grow((void **)&d->instrs, &d->cap_instrs, (uint32_t)(d->len / 160) + 64, sizeof *d->instrs) ||
      !hs_vec_grow((void **)&d->operands, &d->cap_operands, (uint32_t)(d->len / 100) + 64, sizeof *d->operands))
    return oom(&P);
  const char *t = d->text;
  size_t len = d->len;
  size_t p = 0;
  uint32_t first_ref_line = 0;
  while (p < len) {
    P.line_no = d->n_lines + 1;
    const char *nlp = memchr(t + p, '\n', len - p);
    size_t le = nlp ? (size_t)(nlp - t) : len;
    size_t q = hs_skip_sp(t, le, p);
    uint8_t kind = HS_LINE_OTHER;
    uint32_t ref = 0;
    size_t stmt_end = le;
    if (q >= le) {
      kind = HS_LINE_BLANK;
    } else if (t[q] == '/' && q + 1 < le && t[q + 1] == '/') {
      kind = HS_LINE_COMMENT;
    } else if (t[q] == 'H' && (hs_starts(t, le, q, "HloModule ") || hs_starts(t, le, q, "HloModule\t"))) {
      if (P.comp >= 0) {
        hs_comp *open = &d->comps[P.comp];
        hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                    "computation %.*s (line %u) has no closing '}' before the next module at line %u",
                    (int)open->name.len, t + open->name.off, open->line, P.line_no);
        open->count = d->n_instrs - open->first;
        P.comp = -1;
      }
      P.module_frames = 0; /* frame tables belong to one module */
      bool ok;
      hs_module *m = HS_VEC_PUSH(d->modules, d->n_modules, d->cap_modules, ok);
      if (!ok) return oom(&P);
      memset(m, 0, sizeof *m);
      size_t r = hs_skip_sp(t, le, q + 9);
      m->name = read_name(t, le, &r);
      m->line = P.line_no;
      m->first_comp = d->n_comps;
      m->entry = -1;
      P.module = (int32_t)d->n_modules - 1;
      P.table = 0;
      kind = HS_LINE_MODULE;
      ref = (uint32_t)P.module;
    } else if (P.comp < 0 && (t[q] == 'F' || t[q] == 'S') && (line_is(t, q, le, "FileNames") || line_is(t, q, le, "FunctionNames") ||
                              line_is(t, q, le, "FileLocations") || line_is(t, q, le, "StackFrames"))) {
      P.table = t[q] == 'S' ? 4 : 1;
      kind = HS_LINE_TABLE;
    } else if (P.comp < 0 && P.table && t[q] >= '0' && t[q] <= '9') {
      if (P.table == 4) {
        d->stack_frames++;
        P.module_frames++;
      }
      kind = HS_LINE_TABLE;
    } else if (t[q] == '}') {
      if (P.comp >= 0) {
        ref = (uint32_t)P.comp;
        close_comp(&P);
        kind = HS_LINE_CLOSE;
      } else {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, P.line_no, (uint32_t)(q - p) + 1,
                    "a '}' with no open computation was skipped");
        kind = HS_LINE_OTHER;
      }
    } else {
      P.table = 0;
      bool entry = false, root = false;
      size_t r = q;
      if (t[r] == 'E' && hs_starts(t, le, r, "ENTRY ")) {
        entry = true;
        r = hs_skip_sp(t, le, r + 6);
      } else if (t[r] == 'R' && hs_starts(t, le, r, "ROOT ")) {
        root = true;
        r = hs_skip_sp(t, le, r + 5);
      }
      /* name, then '=' (instruction) or '(' / '{' (computation header) */
      size_t s = r;
      read_name(t, le, &s);
      size_t after = hs_skip_sp(t, le, s);
      bool is_instr = !entry && after < le && t[after] == '=';
      if (is_instr) {
        if (P.comp < 0) {
          hs_doc_warn(d, HS_W_SKIPPED_LINE, P.line_no, (uint32_t)(q - p) + 1,
                      "an instruction outside any computation was skipped");
          kind = HS_LINE_OTHER;
        } else {
          bool partial;
          size_t before_err = d->n_instrs;
          size_t e = parse_instruction(&P, r, le, root, &partial);
          if (e == (size_t)-1) {
            if (!nlp) {
              /* the last line, cut mid-instruction: a truncated dump */
              if (err) err->code = 0;
              d->n_instrs = (uint32_t)before_err;
              hs_doc_warn(d, HS_W_TRUNCATED, P.line_no, 1,
                          "the dump ends in the middle of line %u (truncated?): that line was skipped",
                          P.line_no);
              P.truncated = true;
              kind = HS_LINE_OTHER;
            } else {
              return HS_E_SYNTAX;
            }
          } else {
            ref = d->n_instrs - 1;
            kind = HS_LINE_INSTR;
            hs_instr *in = &d->instrs[ref];
            if (root) d->comps[P.comp].root = (int32_t)ref;
            if (in->has_frame_ref && !first_ref_line) first_ref_line = P.line_no;
            if (partial) {
              hs_doc_warn(d, HS_W_TRUNCATED, P.line_no, 1,
                          "instruction %.*s at line %u is cut short (truncated dump?): read what was there",
                          (int)in->name.len, t + in->name.off, P.line_no);
              P.truncated = true;
            }
            if (e > le) stmt_end = e;
          }
        }
      } else if (after < le && (t[after] == '(' || t[after] == '{')) {
        int rc = parse_header(&P, r, le, entry);
        if (rc) {
          if (!nlp && rc == HS_E_SYNTAX) {
            if (err) err->code = 0;
            hs_doc_warn(d, HS_W_TRUNCATED, P.line_no, 1,
                        "the dump ends in the middle of line %u (truncated?): that line was skipped",
                        P.line_no);
            kind = HS_LINE_OTHER;
          } else {
            return rc;
          }
        } else {
          kind = HS_LINE_COMP;
          ref = (uint32_t)P.comp;
        }
      } else if (!nlp) {
        hs_doc_warn(d, HS_W_TRUNCATED, P.line_no, 1,
                    "the dump ends in the middle of line %u (truncated?): that line was skipped",
                    P.line_no);
        kind = HS_LINE_OTHER;
      } else if (P.comp >= 0) {
        return syntax(&P, after < le ? after : q,
                      "%s", "expected an instruction 'name = shape opcode(operands)' or '}' closing the computation");
      } else {
        hs_doc_warn(d, HS_W_SKIPPED_LINE, P.line_no, (uint32_t)(q - p) + 1,
                    "a line that is neither a module, a computation nor a frame table was skipped");
        kind = HS_LINE_OTHER;
      }
    }
    if (!hs_doc_add_line(d, (uint32_t)p, kind, ref)) return oom(&P);
    if (stmt_end > le) {
      /* continuation lines of a statement printed across lines */
      size_t r = le + 1;
      while (r < stmt_end && r < len) {
        if (!hs_doc_add_line(d, (uint32_t)r, HS_LINE_CONT, ref)) return oom(&P);
        const char *n2 = memchr(t + r, '\n', len - r);
        if (!n2) {
          r = len;
          break;
        }
        r = (size_t)(n2 - t) + 1;
      }
      if (stmt_end >= len) break;
      const char *n3 = memchr(t + stmt_end, '\n', len - stmt_end);
      if (!n3) break;
      p = (size_t)(n3 - t) + 1;
      continue;
    }
    if (!nlp) break;
    p = le + 1;
  }
  if (P.comp >= 0) {
    hs_comp *c = &d->comps[P.comp];
    c->count = d->n_instrs - c->first;
    hs_doc_warn(d, HS_W_TRUNCATED, d->n_lines, 1,
                "the dump ends inside computation %.*s (opened at line %u): it looks truncated; the results cover what was read",
                (int)c->name.len, t + c->name.off, c->line);
  }
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
    hs_set_error(err, HS_E_FORMAT, d, 0,
                 "no HLO computation found: expected 'HloModule <name>' followed by computations such as "
                 "'ENTRY %%main (p: f32[4]) -> f32[4] {'");
    return HS_E_FORMAT;
  }
  return 0;
}
