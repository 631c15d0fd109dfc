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

/* Which frame table the lines after a table header belong to. */
enum { TABLE_NONE = 0, TABLE_OTHER, TABLE_STACK_FRAMES };

typedef struct {
  hs_doc *d;
  hs_error *err;
  const char *t;
  size_t len;
  int32_t module;          /* current module, -1 before the first */
  int32_t comp;            /* open computation, -1 */
  uint32_t line_no;        /* 1-based number of the line being read */
  uint32_t module_frames;  /* StackFrames entries of the current module */
  uint32_t first_ref_line; /* first instruction with stack_frame_id= */
  uint8_t table;           /* TABLE_*: the frame table being read */
  /* the line being read: [ls, le), first non-blank byte q; last: no '\n' after it */
  size_t ls, le, q;
  bool last;
  /* what the line's handler decided */
  uint8_t kind;     /* HS_LINE_* */
  uint32_t ref;
  size_t stmt_end;  /* past le when the statement continues on the next lines */
} hlo_parser;

/* An instruction reader's failure (err filled). */
#define HLO_FAIL ((size_t)-1)

static int oom(hlo_parser *P) {
  hs_set_error(P->err, HS_E_NOMEM, P->d, 0, "out of memory while parsing");
  return HS_E_NOMEM;
}

static int syntax(hlo_parser *P, size_t at, const char *msg) {
  hs_set_error(P->err, HS_E_SYNTAX, P->d, at, "%s", msg);
  return HS_E_SYNTAX;
}

static size_t fail_syntax(hlo_parser *P, size_t at, const char *msg) {
  syntax(P, at, msg);
  return HLO_FAIL;
}

static size_t fail_oom(hlo_parser *P) {
  oom(P);
  return HLO_FAIL;
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

static bool add_call(hlo_parser *P, uint32_t idx, hs_slice name, uint8_t attr) {
  bool ok;
  hs_call *c = HS_VEC_PUSH(P->d->calls, P->d->n_calls, P->d->cap_calls, ok);
  if (!ok) return false;
  c->name = name;
  c->target = -1;
  c->attr = attr;
  P->d->instrs[idx].call_count++;
  return true;
}

/* A value that names one computation (%c) or a list of them ({%a, %b}). */
static bool read_calls(hlo_parser *P, uint32_t idx, size_t s, size_t e, uint8_t attr) {
  const char *t = P->t;
  size_t p = s;
  while (p < e) {
    while (p < e && !(t[p] == '%' || is_name_char(t[p]))) p++;
    if (p >= e) break;
    hs_slice n = read_name(t, e, &p);
    if (n.len && !add_call(P, idx, n, attr)) return false;
    if (!n.len) p++;
  }
  return true;
}

/* metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N} */
static void read_metadata(hlo_parser *P, hs_hlo_instr *h, size_t s, size_t e) {
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
      h->op_name = hs_sl((uint32_t)(p + 9), (uint32_t)(q > p + 9 ? q - 1 - (p + 9) : 0));
      p = q;
      continue;
    }
    if (hs_starts(t, e, p, "stack_frame_id=")) {
      size_t q = p + 15;
      uint64_t v = 0;
      while (q < e && t[q] >= '0' && t[q] <= '9') v = v * 10 + (uint64_t)(t[q++] - '0');
      if (!P->first_ref_line) P->first_ref_line = P->line_no;
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

/* The attributes hloscope reads; every other key is skipped. */
enum { ATTR_CALLS, ATTR_KIND, ATTR_TARGET, ATTR_METADATA, ATTR_BACKEND_CONFIG };
static const struct {
  const char *key;
  uint8_t len;
  uint8_t action; /* ATTR_* */
  uint8_t call;   /* HS_CALL_*, for ATTR_CALLS */
} ATTRS[] = {
#define A_(lit, action, call) {lit, sizeof(lit) - 1, action, call}
    A_("calls", ATTR_CALLS, HS_CALL_CALLS),
    A_("to_apply", ATTR_CALLS, HS_CALL_TO_APPLY),
    A_("body", ATTR_CALLS, HS_CALL_BODY),
    A_("condition", ATTR_CALLS, HS_CALL_CONDITION),
    A_("branch_computations", ATTR_CALLS, HS_CALL_BRANCH),
    A_("true_computation", ATTR_CALLS, HS_CALL_BRANCH),
    A_("false_computation", ATTR_CALLS, HS_CALL_BRANCH),
    A_("called_computations", ATTR_CALLS, HS_CALL_OTHER),
    A_("select", ATTR_CALLS, HS_CALL_OTHER),
    A_("scatter", ATTR_CALLS, HS_CALL_OTHER),
    A_("async_execution_thread_computation", ATTR_CALLS, HS_CALL_OTHER),
    A_("kind", ATTR_KIND, 0),
    A_("custom_call_target", ATTR_TARGET, 0),
    A_("metadata", ATTR_METADATA, 0),
    A_("backend_config", ATTR_BACKEND_CONFIG, 0),
#undef A_
};

static int attr_index(const char *k, size_t kl) {
  for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++)
    if (ATTRS[i].len == kl && memcmp(ATTRS[i].key, k, kl) == 0) return (int)i;
  return -1;
}

/* One attribute value [vs, ve) of instruction idx; false when memory ran out. */
static bool read_attribute(hlo_parser *P, uint32_t idx, int a, size_t vs, size_t ve) {
  const char *t = P->t;
  hs_hlo_instr *h = &P->d->hlo[idx];
  switch (ATTRS[a].action) {
    case ATTR_CALLS: return read_calls(P, idx, vs, ve, ATTRS[a].call);
    case ATTR_KIND: h->kind = hs_sl((uint32_t)vs, (uint32_t)(ve - vs)); break;
    case ATTR_TARGET: {
      size_t s = vs, e = ve;
      if (e > s && t[s] == '"') s++;
      if (e > s && t[e - 1] == '"') e--;
      h->custom_call_target = hs_sl((uint32_t)s, (uint32_t)(e - s));
      break;
    }
    case ATTR_METADATA: read_metadata(P, h, vs, ve); break;
    case ATTR_BACKEND_CONFIG: h->backend_config = hs_sl((uint32_t)vs, (uint32_t)(ve - vs)); break;
    default: break;
  }
  return true;
}

/* "name = shape opcode(": the head of an instruction at p, up to its operand list. Pushes the
 * instruction (and its HLO attributes); returns the position after '(' or HLO_FAIL. */
static size_t read_instr_head(hlo_parser *P, size_t p, size_t le, bool root) {
  hs_doc *d = P->d;
  const char *t = P->t;
  hs_slice name = read_name(t, le, &p);
  if (!name.len) return fail_syntax(P, p, "expected an instruction name");
  p = hs_skip_sp(t, le, p);
  if (p >= le || t[p] != '=') return fail_syntax(P, p, "expected '=' after the instruction name");
  p = hs_skip_sp(t, le, p + 1);
  size_t shape_at = p;
  hs_type *ty = hs_parse_hlo_shape(&d->arena, t, le, &p);
  if (!ty)
    return fail_syntax(P, p > shape_at ? p : shape_at, "expected a shape such as f32[128]{0} or (f32[], s32[]) after '='");
  p = skip_sp_comments(t, le, p);
  size_t op_s = p;
  while (p < le && ((t[p] >= 'a' && t[p] <= 'z') || (t[p] >= '0' && t[p] <= '9') || t[p] == '-' || t[p] == '_'))
    p++;
  if (p == op_s) return fail_syntax(P, p, "expected an opcode (such as add, fusion, custom-call) after the shape");
  hs_slice opcode = hs_sl((uint32_t)op_s, (uint32_t)(p - op_s));
  if (p >= le || t[p] != '(') return fail_syntax(P, p, "expected '(' and the operands after the opcode");
  hs_instr *in = hs_doc_add_instr(d, name, opcode, P->line_no, (uint32_t)P->comp);
  if (!in) return fail_oom(P);
  in->type = ty;
  in->is_root = root;
  bool ok;
  hs_hlo_instr *h = HS_VEC_PUSH(d->hlo, d->n_hlo, d->cap_hlo, ok);
  if (!ok) return fail_oom(P);
  memset(h, 0, sizeof *h);
  return p + 1;
}

/* The operand list of instruction idx from p (after '(') to its ')'. Returns the position
 * after ')', or where the statement was cut (*partial), or HLO_FAIL. */
static size_t read_operands(hlo_parser *P, uint32_t idx, size_t p, bool *partial) {
  hs_doc *d = P->d;
  const char *t = P->t;
  size_t len = P->len;
  bool literal = hs_slice_is(d, d->instrs[idx].opcode, "constant") || hs_slice_is(d, d->instrs[idx].opcode, "parameter");
  for (;;) {
    p = skip_sp_comments(t, len, p);
    if (p < len && t[p] == ')') return p + 1;
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
        bool ok;
        hs_operand *o = HS_VEC_PUSH(d->operands, d->n_operands, d->cap_operands, ok);
        if (!ok) return fail_oom(P);
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
    if (t[p] == ')') return p + 1;
    /* '}' or ']' at depth 0 inside an operand list: garbled */
    return fail_syntax(P, p, "unbalanced bracket in the operand list");
  }
}

/* ", key=value" attributes of instruction idx from p to the end of the statement. Returns that
 * end (sets *partial when the text ended inside a value), or HLO_FAIL. */
static size_t read_attributes(hlo_parser *P, uint32_t idx, size_t p, bool *partial) {
  const char *t = P->t;
  size_t len = P->len;
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
    int a = attr_index(t + ks, ke - ks);
    if (a >= 0 && !read_attribute(P, idx, a, vs, ve)) return fail_oom(P);
    p = ve;
    if (p >= len) break;
  }
  return p;
}

/* Parses the instruction whose name starts at p (after "ROOT " if any). `le` is the end of the
 * current line. Returns the end of the statement (may be past le for multi-line values), or
 * HLO_FAIL (err filled). */
static size_t parse_instruction(hlo_parser *P, size_t p, size_t le, bool root, bool *partial) {
  *partial = false;
  p = read_instr_head(P, p, le, root);
  if (p == HLO_FAIL) return HLO_FAIL;
  uint32_t idx = P->d->n_instrs - 1;
  p = read_operands(P, idx, p, partial);
  if (p == HLO_FAIL || *partial) return p;
  return read_attributes(P, idx, p, partial);
}

/* Computation header: [ENTRY] %name (params) -> result {   or   name {  */
static int parse_header(hlo_parser *P, size_t p, size_t le, bool entry) {
  hs_doc *d = P->d;
  const char *t = P->t;
  hs_slice name = read_name(t, le, &p);
  if (!name.len) return syntax(P, p, "expected a computation name after ENTRY");
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
    if (e >= le || t[e] != ')') return syntax(P, e, "expected ')' closing the computation's parameter list");
    p = skip_sp_comments(t, le, e + 1);
    if (hs_starts(t, le, p, "->")) {
      p = skip_sp_comments(t, le, p + 2);
      size_t rs = p;
      result = hs_parse_hlo_shape(&d->arena, t, le, &p);
      if (!result) return syntax(P, p > rs ? p : rs, "expected the computation's result shape after '->'");
      p = skip_sp_comments(t, le, p);
    }
  }
  if (p >= le || t[p] != '{') return syntax(P, p, "expected '{' opening the computation");
  if (P->comp >= 0) {
    hs_comp *open = &d->comps[P->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                "computation %.*s (line %u) has no closing '}' before the next computation at line %u",
                (int)open->name.len, t + open->name.off, open->line, P->line_no);
    open->end_line = P->line_no - 1;
  }
  if (P->module < 0) {
    /* computations without an HloModule line: start an anonymous module */
    P->module = hs_doc_open_module(d, hs_sl(0, 0), P->line_no);
    if (P->module < 0) return oom(P);
  }
  int32_t c = hs_doc_open_comp(d, (uint32_t)P->module, name, P->line_no, HS_ROLE_CALLED);
  if (c < 0) return oom(P);
  d->comps[c].result = result;
  d->comps[c].is_entry = entry;
  P->comp = c;
  if (entry) d->modules[P->module].entry = c;
  return 0;
}

/* ---- one handler per kind of line ------------------------------------------------------- */
enum { L_BLANK, L_COMMENT, L_MODULE, L_TABLE_HEAD, L_TABLE_ROW, L_CLOSE, L_STATEMENT };

static int classify_line(const hlo_parser *P) {
  const char *t = P->t;
  size_t q = P->q, le = P->le;
  if (q >= le) return L_BLANK;
  if (t[q] == '/' && q + 1 < le && t[q + 1] == '/') return L_COMMENT;
  if (t[q] == 'H' && (hs_starts(t, le, q, "HloModule ") || hs_starts(t, le, q, "HloModule\t"))) return L_MODULE;
  if (P->comp < 0 && (t[q] == 'F' || t[q] == 'S') &&
      (line_is(t, q, le, "FileNames") || line_is(t, q, le, "FunctionNames") || line_is(t, q, le, "FileLocations") ||
       line_is(t, q, le, "StackFrames")))
    return L_TABLE_HEAD;
  if (P->comp < 0 && P->table && t[q] >= '0' && t[q] <= '9') return L_TABLE_ROW;
  if (t[q] == '}') return L_CLOSE;
  return L_STATEMENT;
}

/* "HloModule name, ...": a new module; a computation left open is cut there. */
static int read_module_line(hlo_parser *P) {
  hs_doc *d = P->d;
  if (P->comp >= 0) {
    hs_comp *open = &d->comps[P->comp];
    hs_doc_warn(d, HS_W_TRUNCATED, open->line, 1,
                "computation %.*s (line %u) has no closing '}' before the next module at line %u",
                (int)open->name.len, P->t + open->name.off, open->line, P->line_no);
    hs_doc_close_comp(d, (uint32_t)P->comp, 0);
    P->comp = -1;
  }
  P->module_frames = 0; /* frame tables belong to one module */
  size_t r = hs_skip_sp(P->t, P->le, P->q + 9);
  P->module = hs_doc_open_module(d, read_name(P->t, P->le, &r), P->line_no);
  if (P->module < 0) return oom(P);
  P->table = TABLE_NONE;
  P->kind = HS_LINE_MODULE;
  P->ref = (uint32_t)P->module;
  return 0;
}

static int read_table_head(hlo_parser *P) {
  P->table = P->t[P->q] == 'S' ? TABLE_STACK_FRAMES : TABLE_OTHER;
  P->kind = HS_LINE_TABLE;
  return 0;
}

static int read_table_row(hlo_parser *P) {
  if (P->table == TABLE_STACK_FRAMES) {
    P->d->stack_frames++;
    P->module_frames++;
  }
  P->kind = HS_LINE_TABLE;
  return 0;
}

static int read_close_brace(hlo_parser *P) {
  if (P->comp >= 0) {
    P->ref = (uint32_t)P->comp;
    hs_doc_close_comp(P->d, (uint32_t)P->comp, P->line_no);
    P->comp = -1;
    P->kind = HS_LINE_CLOSE;
  } else {
    hs_doc_warn(P->d, HS_W_SKIPPED_LINE, P->line_no, (uint32_t)(P->q - P->ls) + 1, "a '}' with no open computation was skipped");
  }
  return 0;
}

/* The last line of the text could not be read: a dump cut there. What the reader said about
 * it is withdrawn in favour of a truncation warning. */
static void skip_cut_last_line(hlo_parser *P) {
  if (P->err) P->err->code = 0;
  hs_warn_truncated_line(P->d, P->line_no);
}

/* "[ROOT] name = shape opcode(operands), attrs" inside a computation. */
static int read_instr_line(hlo_parser *P, size_t r, bool root) {
  hs_doc *d = P->d;
  if (P->comp < 0) {
    hs_doc_warn(d, HS_W_SKIPPED_LINE, P->line_no, (uint32_t)(P->q - P->ls) + 1,
                "an instruction outside any computation was skipped");
    return 0;
  }
  bool partial;
  uint32_t before = d->n_instrs;
  size_t e = parse_instruction(P, r, P->le, root, &partial);
  if (e == HLO_FAIL) {
    if (!P->last || P->err->code != HS_E_SYNTAX) return P->err->code;
    /* the last line, cut mid-instruction: a truncated dump */
    d->n_instrs = before;
    if (d->n_hlo > before) d->n_hlo = before;
    skip_cut_last_line(P);
    return 0;
  }
  P->ref = d->n_instrs - 1;
  P->kind = HS_LINE_INSTR;
  hs_instr *in = &d->instrs[P->ref];
  if (root) d->comps[P->comp].root = (int32_t)P->ref;
  if (partial)
    hs_doc_warn(d, HS_W_TRUNCATED, P->line_no, 1, "instruction %.*s at line %u is cut short (truncated dump?): read what was there",
                (int)in->name.len, P->t + in->name.off, P->line_no);
  if (e > P->le) P->stmt_end = e;
  return 0;
}

/* "[ENTRY] name (params) -> shape {": a computation header. */
static int read_header_line(hlo_parser *P, size_t r, bool entry) {
  int rc = parse_header(P, r, P->le, entry);
  if (rc) {
    if (!P->last || rc != HS_E_SYNTAX) return rc;
    skip_cut_last_line(P);
    return 0;
  }
  P->kind = HS_LINE_COMP;
  P->ref = (uint32_t)P->comp;
  return 0;
}

/* Any other line: an instruction, a computation header, or something to skip or refuse. */
static int read_statement(hlo_parser *P) {
  const char *t = P->t;
  size_t q = P->q, le = P->le;
  P->table = TABLE_NONE;
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
  if (!entry && after < le && t[after] == '=') return read_instr_line(P, r, root);
  if (after < le && (t[after] == '(' || t[after] == '{')) return read_header_line(P, r, entry);
  if (P->last) {
    hs_warn_truncated_line(P->d, P->line_no);
    return 0;
  }
  if (P->comp >= 0)
    return syntax(P, after < le ? after : q, "expected an instruction 'name = shape opcode(operands)' or '}' closing the computation");
  hs_doc_warn(P->d, HS_W_SKIPPED_LINE, P->line_no, (uint32_t)(q - P->ls) + 1,
              "a line that is neither a module, a computation nor a frame table was skipped");
  return 0;
}

/* Records the line, and the continuation lines of a statement printed across lines; sets
 * *next to the start of the next line to read (P->len at the end). */
static int add_lines(hlo_parser *P, size_t *next) {
  hs_doc *d = P->d;
  const char *t = P->t;
  size_t len = P->len;
  if (!hs_doc_add_line(d, (uint32_t)P->ls, P->kind, P->ref)) return oom(P);
  if (P->stmt_end <= P->le) {
    *next = P->last ? len : P->le + 1;
    return 0;
  }
  size_t r = P->le + 1;
  while (r < P->stmt_end && r < len) {
    if (!hs_doc_add_line(d, (uint32_t)r, HS_LINE_CONT, P->ref)) return oom(P);
    const char *n2 = memchr(t + r, '\n', len - r);
    if (!n2) break;
    r = (size_t)(n2 - t) + 1;
  }
  const char *n3 = P->stmt_end < len ? memchr(t + P->stmt_end, '\n', len - P->stmt_end) : NULL;
  *next = n3 ? (size_t)(n3 - t) + 1 : len;
  return 0;
}

/* The warnings that need the whole text: a computation left open, frame references. */
static int finish(hlo_parser *P) {
  hs_doc *d = P->d;
  if (P->comp >= 0) {
    hs_comp *c = &d->comps[P->comp];
    hs_doc_close_comp(d, (uint32_t)P->comp, 0);
    hs_doc_warn(d, HS_W_TRUNCATED, d->n_lines, 1,
                "the dump ends inside computation %.*s (opened at line %u): it looks truncated; the results cover what was read",
                (int)c->name.len, P->t + c->name.off, c->line);
  }
  if (d->frame_refs && !d->stack_frames) {
    hs_doc_warn(d, HS_W_FRAME_TABLES_MISSING, P->first_ref_line, 0,
                "%u instructions refer to stack frames (stack_frame_id=) but the dump has no StackFrames "
                "table (frame tables trimmed?): their source lines are unknown",
                d->frame_refs);
  } else if (d->frame_refs_dangling) {
    hs_doc_warn(d, HS_W_FRAME_REF_DANGLING, d->first_dangling_line, 0,
                "%u stack_frame_id references point past the StackFrames table: their source lines are unknown",
                d->frame_refs_dangling);
  }
  if (!d->n_comps) {
    hs_set_error(P->err, HS_E_FORMAT, d, 0,
                 "no HLO computation found: expected 'HloModule <name>' followed by computations such as "
                 "'ENTRY %%main (p: f32[4]) -> f32[4] {'");
    return HS_E_FORMAT;
  }
  return 0;
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

/* The driver: one line at a time, classified, then handed to its handler. */
int hs_parse_hlo_text(hs_doc *d, hs_error *err) {
  hs_error local;
  if (!err) err = &local;
  hlo_parser P = {.d = d, .err = err, .t = d->text, .len = d->len, .module = -1, .comp = -1};
  /* reserve for typical dumps (a line per ~80 bytes, an instruction per ~160) so the arrays
     are rarely copied while they grow */
  if (!hs_vec_grow((void **)&d->lines, &d->cap_lines, (uint32_t)(d->len / 80) + 64, sizeof *d->lines) ||
      !hs_vec_grow((void **)&d->instrs, &d->cap_instrs, (uint32_t)(d->len / 160) + 64, sizeof *d->instrs) ||
      !hs_vec_grow((void **)&d->hlo, &d->cap_hlo, (uint32_t)(d->len / 160) + 64, sizeof *d->hlo) ||
      !hs_vec_grow((void **)&d->operands, &d->cap_operands, (uint32_t)(d->len / 100) + 64, sizeof *d->operands))
    return oom(&P);
  const char *t = d->text;
  size_t p = 0;
  while (p < P.len) {
    P.line_no = d->n_lines + 1;
    const char *nlp = memchr(t + p, '\n', P.len - p);
    P.ls = p;
    P.le = nlp ? (size_t)(nlp - t) : P.len;
    P.last = !nlp;
    P.q = hs_skip_sp(t, P.le, p);
    P.kind = HS_LINE_OTHER;
    P.ref = 0;
    P.stmt_end = P.le;
    int rc = 0;
    switch (classify_line(&P)) {
      case L_BLANK: P.kind = HS_LINE_BLANK; break;
      case L_COMMENT: P.kind = HS_LINE_COMMENT; break;
      case L_MODULE: rc = read_module_line(&P); break;
      case L_TABLE_HEAD: rc = read_table_head(&P); break;
      case L_TABLE_ROW: rc = read_table_row(&P); break;
      case L_CLOSE: rc = read_close_brace(&P); break;
      default: rc = read_statement(&P); break;
    }
    if (!rc) rc = add_lines(&P, &p);
    if (rc) return rc;
  }
  return finish(&P);
}
