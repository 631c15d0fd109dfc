/* The HLO reader's attributes (hlo_reader.h): ", key=value" lists after an instruction, a
 * computation header or the module line. What hloscope uses is read (called computations, fusion
 * kind, custom-call target, metadata's op_name, backend config); what XLA's parser would refuse
 * is warned about at its line and column (the typed values of the attributes only checked, as
 * dimensions={0,1} or window={...}: hlo_values.c); everything else is skipped by its brackets. */
#define HS_HLO_RULES_ATTRS
#include "doc/hlo/hlo_reader.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- attributes ---------------------------------------------------------------------------- */

static bool add_call(reader *r, uint32_t idx, hs_slice name, uint8_t attr) {
  bool ok;
  /* idx is the last instruction made: its calls are the last ones, from r->call_first */
  if (!r->d->instrs[idx].has_calls) r->call_first = r->d->n_calls;
  if (r->d->n_calls - r->call_first == HS_CALLS_MAX) {
    if (r->capped != idx + 1) /* once per instruction */
      hlo_warn_at(r, name.off, "%.*s: an instruction calling more than 65535 computations: hloscope follows the first 65535", r->t + name.off, name.len < 60 ? name.len : 60);
    r->capped = idx + 1;
    return true;
  }
  hs_call *c = HS_VEC_PUSH(r->d->calls, r->d->n_calls, r->d->cap_calls, ok);
  if (!ok) return false;
  hs_instr *in = &r->d->instrs[idx];
  c->name = name;
  c->target = -1;
  c->instr = idx;
  c->attr = attr;
  in->has_calls = 1;
  c->by_fusion = hs_slice_is(r->d, hs_opcode(r->d, in), "fusion");
  c->by_call = hs_slice_is(r->d, hs_opcode(r->d, in), "call");
  return true;
}

/* A value that names one computation (%c) or a list of them ({%a, %b}). */
static bool read_calls(reader *r, uint32_t idx, size_t s, size_t e, uint8_t attr) {
  const char *t = r->t;
  size_t p = s;
  while (p < e) {
    while (p < e && !(t[p] == '%' || is_name_char(t[p]))) p++;
    if (p >= e) break;
    hs_slice n = read_name(t, e, &p);
    if (n.len && !add_call(r, idx, n, attr)) return false;
    if (!n.len) p++;
  }
  return true;
}

/* A bracketed value at p ('{' or '['; brackets of every kind nest, strings are skipped whole):
 * the position after its closing bracket, or NOWHERE when [p, end) ends first. */
static size_t bracketed_end(const char *t, size_t p, size_t end) {
  uint32_t depth = 0;
  while (p < end) {
    char c = t[p];
    if (c == '"') {
      p = skip_string(t, end, p);
      continue;
    }
    if (c == '{' || c == '[' || c == '(') depth++;
    else if ((c == '}' || c == ']' || c == ')') && --depth == 0) return p + 1;
    p++;
  }
  return NOWHERE;
}

/* A {key=value ...} list (metadata, frontend_attributes, window, ...): calls each(key, value)
 * for every pair. False, with *bad set to where, when a key has no '=' or no value. */
typedef void (*pair_fn)(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve);
static bool read_pairs(reader *r, size_t s, size_t e, pair_fn each, void *ctx, size_t *bad) {
  const char *t = r->t;
  size_t p = s + 1; /* after '{' */
  e--;              /* the closing '}' */
  for (;;) {
    while (p < e && (is_space(t[p]) || t[p] == ',')) p++;
    if (p >= e) return true;
    size_t ks = p;
    p = t[p] == '"' ? skip_string(t, e, p) : name_end(t, p, e);
    size_t ke = p;
    /* "key=" is one token to XLA's lexer: "op_name =" is refused ("expects attribute name") */
    if (ke == ks || p >= e || t[p] != '=') {
      *bad = p < e ? p : ks;
      return false;
    }
    p++;
    while (p < e && (t[p] == ' ' || t[p] == '\t')) p++;
    size_t vs = p;
    if (p < e && t[p] == '"') {
      p = skip_string(t, e + 1, p);
      if (p > e) p = e;
    } else if (p < e && (t[p] == '{' || t[p] == '[')) {
      p = bracketed_end(t, p, e);
      if (p == NOWHERE) p = e;
    } else {
      while (p < e && !is_space(t[p]) && t[p] != ',') p++;
    }
    if (p == vs) {
      *bad = vs;
      return false;
    }
    if (each) each(r, ctx, ks, ke, vs, p);
  }
}

/* The same list read from its '{' at s to its '}' in one pass (the value's end is found on the
 * way): the position after '}', or NOWHERE when the list is malformed or the text ends in it
 * (then the caller scans the value and read_pairs says where it went wrong). */
static size_t walk_pairs(reader *r, size_t s, pair_fn each, void *ctx) {
  const char *t = r->t;
  size_t len = r->len;
  size_t p = s + 1;
  for (;;) {
    while (p < len && (is_space(t[p]) || t[p] == ',')) p++;
    if (p >= len) return NOWHERE;
    if (t[p] == '}') return p + 1;
    size_t ks = p;
    p = name_end(t, p, len);
    size_t ke = p;
    if (ke == ks || p >= len || t[p] != '=') return NOWHERE;
    size_t vs = ++p;
    if (p >= len) return NOWHERE;
    if (t[p] == '"') {
      p = skip_string(t, len, p);
      if (p >= len) return NOWHERE;
    } else if (t[p] == '{' || t[p] == '[') {
      p = bracketed_end(t, p, len);
      if (p == NOWHERE) return NOWHERE;
    } else {
      while (p < len && !is_space(t[p]) && t[p] != ',' && t[p] != '}') p++;
    }
    if (p == vs) return NOWHERE;
    each(r, ctx, ks, ke, vs, p);
  }
}

typedef struct {
  uint32_t idx;      /* the instruction */
  bool has_op;       /* an op_name= was read: */
  hs_slice op_name;  /* the last one (kept with the source, in one write: count_frame_ref) */
  bool bad_number;
  size_t bad_at;
  bool frame;        /* a stack_frame_id= was read (counted once the list is read: count_frame_ref) */
  uint64_t frame_id; /* its value */
  uint32_t file, line; /* source_file= (hlo_source_file's index + 1), source_line= */
} meta_ctx;

/* metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N} */
static void metadata_pair(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve) {
  meta_ctx *m = ctx;
  const char *t = r->t;
  size_t kl = ke - ks;
  if (kl == 7 && memcmp(t + ks, "op_name", 7) == 0 && t[vs] == '"' && ve - vs >= 2) {
    /* kept at once, as a dump cut inside the metadata keeps it */
    m->has_op = true;
    m->op_name = hs_sl((uint32_t)(vs + 1), (uint32_t)(ve - vs - 2));
  } else if ((kl >= 6 && memcmp(t + ks, "source", 6) == 0) || (kl == 14 && memcmp(t + ks, "stack_frame_id", 14) == 0)) {
    /* source_line, source_end_line, source_column, ... and stack_frame_id are integers */
    if (kl == 11 && memcmp(t + ks, "source_file", 11) == 0) {
      if (t[vs] == '"' && ve - vs >= 2) m->file = hlo_source_file(r, hs_sl((uint32_t)(vs + 1), (uint32_t)(ve - vs - 2)));
      return;
    }
    uint64_t v = 0;
    size_t q = vs;
    if (q < ve && t[q] == '-') q++;
    if (q >= ve) m->bad_number = true;
    for (; q < ve; q++) {
      if (!is_digit(t[q])) {
        m->bad_number = true;
        break;
      }
      v = v * 10 + (uint64_t)(t[q] - '0');
    }
    if (m->bad_number) {
      if (m->bad_at == NOWHERE) m->bad_at = vs;
      return;
    }
    if (kl == 14) {
      m->frame = true;
      m->frame_id = v;
    } else if (kl == 11 && memcmp(t + ks, "source_line", 11) == 0) {
      m->line = t[vs] != '-' && v <= UINT32_MAX ? (uint32_t)v : 0;
    }
  }
}

/* An instruction's metadata, read once to its end: its source kept, and a reference to a stack
 * frame counted, once per instruction (a list the fast path gave up on is read again from its
 * start). */
static bool count_frame_ref(reader *r, const meta_ctx *m) {
  hs_doc *d = r->d;
  /* the instruction's source: its file and line, else its stack frame (op_name: its op_name
     too, in one write) */
  uint32_t ref = m->file ? m->line : m->frame && m->frame_id <= UINT32_MAX ? (uint32_t)m->frame_id : 0;
  if (!(m->has_op ? hs_hlo_set_meta(d, m->idx, m->op_name, m->file, ref) : hs_hlo_set_source(d, m->idx, m->file, ref))) return false;
  if (!m->frame) return true;
  if (!r->first_ref_line) r->first_ref_line = r->stmt_line;
  d->frame_refs++;
  if (m->frame_id > r->module_frames && r->module_frames > 0) {
    if (!d->frame_refs_dangling) d->first_dangling_line = r->stmt_line;
    d->frame_refs_dangling++;
  }
  return true;
}

/* The shortcut below is built natively only. In wasm, V8's code for the attribute loop moves by
 * several percent with any change to it: with the shortcut the wasm parse was 7-13% faster on
 * short-line modules but 2-4% slower on our optimized fixtures and the bench's text (ab_wasm,
 * 2026-12-07), so the wasm build reads every metadata with walk_pairs, as before. The results
 * are the same either way. */
#ifndef HS_METADATA_SHORTCUT
#if defined(__wasm__)
#define HS_METADATA_SHORTCUT 0
#else
#define HS_METADATA_SHORTCUT 1
#endif
#endif

#if HS_METADATA_SHORTCUT
/* A number of at most 18 digits at q (no sign): its value in *v and the position after it, or q. */
static inline size_t plain_number(const char *t, size_t len, size_t q, uint64_t *v) {
  size_t d0 = q;
  for (*v = 0; q < len && is_digit(t[q]) && q - d0 < 18; q++) *v = *v * 10 + (uint64_t)(t[q] - '0');
  return q;
}

/* The metadata jax prints on nearly every instruction, {op_name="..."}, {op_name="..."
 * stack_frame_id=N} or (jax before 0.5) {op_name="..." source_file="..." source_line=N}, from its
 * '{' at vs: read as walk_pairs and metadata_pair read it, without their per-key and per-byte
 * steps (a sixth of the parse's instructions on short-line modules). The position after its '}',
 * or NOWHERE for any other metadata (the general reader reads it then). */
static size_t metadata_common(reader *r, uint32_t idx, size_t vs) {
  const char *t = r->t;
  size_t len = r->len;
  if (len - vs < 12 || !hs_bytes_eq(t + vs + 1, "op_name=\"", 9)) return NOWHERE;
  size_t e = skip_string(t, len, vs + 9); /* after the closing quote */
  if (e >= len) return NOWHERE;
  meta_ctx m = {.idx = idx, .bad_at = NOWHERE};
  size_t q = e;
  uint64_t v;
  if (t[e] == ' ' && len - e > 17 && hs_bytes_eq(t + e + 1, "stack_frame_id=", 15)) {
    q = plain_number(t, len, e + 16, &v);
    if (q == e + 16 || q >= len) return NOWHERE;
    m.frame = true;
    m.frame_id = v;
  } else if (t[e] == ' ' && len - e > 15 && hs_bytes_eq(t + e + 1, "source_file=\"", 13)) {
    size_t fs = e + 13, fe = skip_string(t, len, fs);
    if (fe >= len || len - fe < 15 || !hs_bytes_eq(t + fe, " source_line=", 13)) return NOWHERE;
    q = plain_number(t, len, fe + 13, &v);
    if (q == fe + 13 || q >= len || t[q] != '}') return NOWHERE;
    m.file = hlo_source_file(r, hs_sl((uint32_t)(fs + 1), (uint32_t)(fe - fs - 2)));
    m.line = v <= UINT32_MAX ? (uint32_t)v : 0;
  }
  if (t[q] != '}') return NOWHERE;
  m.has_op = true;
  m.op_name = hs_sl((uint32_t)(vs + 10), (uint32_t)(e - vs - 11));
  if (!count_frame_ref(r, &m)) return NOWHERE; /* read again, where memory runs out again */
  return q + 1;
}
#endif

static void frontend_pair(reader *r, void *ctx, size_t ks, size_t ke, size_t vs, size_t ve) {
  (void)ks;
  (void)ke;
  (void)ve;
  size_t *bad = ctx; /* a value is a string or a braced text ({n = 1 : i32}, composite attributes) */
  if (r->t[vs] != '"' && r->t[vs] != '{' && *bad == NOWHERE) *bad = vs;
}

/* control-predecessors={%a, %b}: each names an instruction of the computation defined before
 * (XLA's parser: "instruction 'a' is not defined"). Past the small name table (a big computation,
 * hlo_scope.c) names are known only at the close: not checked there. */
static void check_predecessors(reader *r, size_t s, size_t e) {
  const char *t = r->t;
  if (r->big_from || e - s < 2 || t[s] != '{') return;
  for (size_t p = s + 1; p < e;) {
    while (p < e && (t[p] == ' ' || t[p] == ',' || t[p] == '\n' || t[p] == '\t' || t[p] == '\r')) p++;
    if (p >= e || t[p] == '}') return;
    size_t ns = p;
    hs_slice name = read_name(t, e, &p);
    if (!name.len) return;
    uint32_t unresolved = r->unresolved;
    int32_t i = hlo_scope_operand(r, name);
    r->unresolved = unresolved; /* a question, not an operand: nothing to look up at the close */
    if (i < 0) {
      hlo_warn_at(r, ns, "%.*s: control-predecessors names no instruction defined before this one: XLA's parser refuses this one "
                  "(instruction is not defined)", t + name.off, name.len < 60 ? name.len : 60);
      return;
    }
  }
}

/* Attributes hlo_check.c looks at once the instruction is read: noted in the reader (a
 * conditional's branches, an async op's thread, a custom-call's operand layouts), or checked
 * here (control-predecessors). By their keys' lengths first: */
#define NOTED_LENGTHS (1ull << 16 | 1ull << 17 | 1ull << 19 | 1ull << 20 | 1ull << 22 | 1ull << 26)
static void noted_attribute(reader *r, size_t ks, size_t kl, size_t vs, size_t ve, bool only_named) {
  const char *t = r->t + ks;
  switch (kl) {
    case 16: if (hs_bytes_eq(t, "true_computation", 16)) r->attr_branches |= 2; break;
    case 17: if (hs_bytes_eq(t, "false_computation", 17)) r->attr_branches |= 4; break;
    case 19: if (hs_bytes_eq(t, "branch_computations", 19)) r->attr_branches |= 1; break;
    case 20: if (!only_named && hs_bytes_eq(t, "control-predecessors", 20)) check_predecessors(r, vs, ve); break;
    case 22: if (hs_bytes_eq(t, "async_execution_thread", 22)) r->attr_thread = hs_sl((uint32_t)vs, (uint32_t)(ve - vs)); break;
    case 26: if (hs_bytes_eq(t, "operand_layout_constraints", 26)) r->attr_layouts = hs_sl((uint32_t)vs, (uint32_t)(ve - vs)); break;
    default: break;
  }
}

/* (ATTR_METADATA to ATTR_SHARDING, in a row: the attributes every opcode takes) */
enum { ATTR_CALLS, ATTR_KIND, ATTR_TARGET, ATTR_METADATA, ATTR_BACKEND_CONFIG, ATTR_FRONTEND, ATTR_SHARDING };
/* The attributes hloscope reads or checks, the most frequent first: X(key, ATTR_*, HS_CALL_*). */
#define HLO_ATTRS(X)                                                  \
  X("metadata", ATTR_METADATA, 0)                                     \
  X("calls", ATTR_CALLS, HS_CALL_CALLS)                               \
  X("to_apply", ATTR_CALLS, HS_CALL_TO_APPLY)                         \
  X("body", ATTR_CALLS, HS_CALL_BODY)                                 \
  X("condition", ATTR_CALLS, HS_CALL_CONDITION)                       \
  X("branch_computations", ATTR_CALLS, HS_CALL_BRANCH)                \
  X("true_computation", ATTR_CALLS, HS_CALL_BRANCH)                   \
  X("false_computation", ATTR_CALLS, HS_CALL_BRANCH)                  \
  X("called_computations", ATTR_CALLS, HS_CALL_OTHER)                 \
  X("select", ATTR_CALLS, HS_CALL_OTHER)                              \
  X("scatter", ATTR_CALLS, HS_CALL_OTHER)                             \
  X("async_execution_thread_computation", ATTR_CALLS, HS_CALL_OTHER)  \
  X("kind", ATTR_KIND, 0)                                             \
  X("custom_call_target", ATTR_TARGET, 0)                             \
  X("backend_config", ATTR_BACKEND_CONFIG, 0)                         \
  X("frontend_attributes", ATTR_FRONTEND, 0)                          \
  X("sharding", ATTR_SHARDING, 0)

static const struct {
  const char *key;
  uint8_t len;
  uint8_t action; /* ATTR_* */
  uint8_t call;   /* HS_CALL_*, for ATTR_CALLS */
} ATTRS[] = {
#define A_(lit, action, call) {lit, sizeof(lit) - 1, action, call},
    HLO_ATTRS(A_)
#undef A_
};

_Static_assert(sizeof ATTRS / sizeof ATTRS[0] == HLO_ATTRS_COUNT, "hlo_rules.h numbers HLO_ATTRS: run fixtures/capture/parser_rules.py header");

static int attr_index(const char *k, size_t kl) {
  /* the keys' lengths, one bit each: most keys hloscope skips ("dimensions") are not looked for */
#define L_(lit, action, call) | 1ull << (sizeof(lit) - 1) /* every key is shorter than 64 bytes */
  static const uint64_t LENGTHS = 0 HLO_ATTRS(L_);
#undef L_
  if (kl >= 64 || !(LENGTHS >> kl & 1)) return -1;
  for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++)
    if (ATTRS[i].len == kl && ATTRS[i].key[0] == k[0] && memcmp(ATTRS[i].key, k, kl) == 0) return (int)i;
  return -1;
}

/* Words a sharding may start with (hlo_parser.cc ParseSharding). */
static bool sharding_word(const char *s, size_t n) {
  static const char *const W[] = {"replicated", "maximal", "devices", "manual", "unknown", "last_tile_dim_replicate",
                                  "last_tile_dims", "shard_as", "shard_like", "unreduced", "metadata", "iota", "mesh"};
  for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
    if (strlen(W[i]) == n && memcmp(W[i], s, n) == 0) return true;
  return false;
}

/* One attribute value [vs, ve) of instruction idx: read what hloscope uses, check what XLA
 * would refuse (a warning). False when memory ran out. */
static bool read_attribute(reader *r, uint32_t idx, int a, size_t ks, size_t vs, size_t ve) {
  const char *t = r->t;
  hs_hlo_rare *x;
  size_t kl = ATTRS[a].len;
  switch (ATTRS[a].action) {
    case ATTR_CALLS: return read_calls(r, idx, vs, ve, ATTRS[a].call);
    case ATTR_KIND: {
      if (!(x = hs_hlo_rare_of(r->d, idx))) return false;
      x->kind = hs_sl((uint32_t)vs, (uint32_t)(ve - vs));
      size_t n = ve - vs;
      if (!((n == 5 && (memcmp(t + vs, "kLoop", 5) == 0)) || (n == 6 && memcmp(t + vs, "kInput", 6) == 0) ||
            (n == 7 && (memcmp(t + vs, "kOutput", 7) == 0 || memcmp(t + vs, "kCustom", 7) == 0))))
        return hlo_bad_value(r, ks, vs, ve, vs, "a fusion kind is kLoop, kInput, kOutput or kCustom");
      break;
    }
    case ATTR_TARGET: {
      size_t s = vs, e = ve;
      if (e > s && t[s] == '"') s++;
      if (e > s && t[e - 1] == '"') e--;
      if (!(x = hs_hlo_rare_of(r->d, idx))) return false;
      x->custom_call_target = hs_sl((uint32_t)s, (uint32_t)(e - s));
      break;
    }
    case ATTR_METADATA: {
      meta_ctx m = {.idx = idx, .bad_at = NOWHERE};
      size_t bad = NOWHERE;
      bool ok = t[vs] == '{' && t[ve - 1] == '}' && read_pairs(r, vs, ve, metadata_pair, &m, &bad);
      if (!count_frame_ref(r, &m)) return false;
      if (!ok || m.bad_number) {
        size_t at = bad != NOWHERE ? bad : m.bad_at != NOWHERE ? m.bad_at : vs;
        hlo_warn_at(r, at, "%.*s is not a metadata value XLA reads ({key=value ...}, numbers where numbers go): XLA's parser refuses this instruction", t + ks, kl + 1 + (at - vs < 40 ? at - vs + 1 : 40));
      }
      break;
    }
    case ATTR_BACKEND_CONFIG:
      if (!(x = hs_hlo_rare_of(r->d, idx))) return false;
      x->backend_config = hs_sl((uint32_t)vs, (uint32_t)(ve - vs));
      if (t[vs] != '"' && t[vs] != '{')
        hlo_warn_at(r, vs, "%.*s: a backend_config is a quoted string or a {...} object: XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    case ATTR_FRONTEND: {
      size_t bad = NOWHERE, bad_value = NOWHERE;
      if (t[vs] != '{' || t[ve - 1] != '}' || !read_pairs(r, vs, ve, frontend_pair, &bad_value, &bad) || bad_value != NOWHERE)
        hlo_warn_at(r, bad != NOWHERE ? bad : bad_value != NOWHERE ? bad_value : vs, "%.*s: frontend attributes are {key=\"value\", ...}: XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    }
    case ATTR_SHARDING: {
      size_t p = vs;
      while (p < ve && (t[p] == '{' || is_space(t[p]))) p++;
      size_t w = p;
      while (p < ve && ((t[p] >= 'a' && t[p] <= 'z') || t[p] == '_')) p++;
      if (t[vs] != '{' || (p > w && !sharding_word(t + w, p - w)))
        hlo_warn_at(r, vs, "%.*s is not a sharding XLA reads ({replicated}, {maximal device=N}, {devices=[...]...}, {manual}, ...): XLA's parser refuses this instruction", t + ks, ve - ks < 60 ? ve - ks : 60);
      break;
    }
    default: break;
  }
  return true;
}

/* The end of an instruction's attributes at end: the ones its opcode requires are checked */
static size_t attributes_end(reader *r, int64_t idx, int rule, bool required, const uint64_t seen[2], size_t end) {
  if (rule >= 0 && idx >= 0 && required) hlo_check_required(r, rule, hs_opcode(r->d, &r->d->instrs[idx]).off, seen);
  if (idx >= 0) memcpy(r->attr_seen, seen, sizeof r->attr_seen);
  return end;
}

/* An attribute's key [ks, ke): warned about when an earlier key of the list is the same, and kept
 * (the first 16) for the next. Returns how many are kept. */
static inline uint32_t note_key(reader *r, size_t ks, size_t ke, uint32_t *key_at, uint32_t *key_len, uint32_t n_keys) {
  const char *t = r->t;
  for (uint32_t k = 0; k < n_keys; k++)
    if (key_len[k] == ke - ks && memcmp(t + key_at[k], t + ks, ke - ks) == 0) {
      hlo_warn_at(r, ks, "attribute %.*s is given twice: XLA's parser refuses this", t + ks, ke - ks);
      break;
    }
  if (n_keys < 16) {
    key_at[n_keys] = (uint32_t)ks;
    key_len[n_keys++] = (uint32_t)(ke - ks);
  }
  return n_keys;
}

/* ", key=value" attributes from p (at ','); idx: the instruction they belong to, or -1 (module
 * or computation attributes: only their aliasing is checked). only_named: stop before a ',' that is not followed by
 * "key=" (a nested instruction's attributes, inside an operand list). Returns the end of the
 * last value (or p), HLO_FAIL, or sets r->cut when the text ended inside a value. */
size_t hlo_read_attributes(reader *r, int64_t idx, size_t p, bool only_named, int rule, hlo_brief brief) {
  const char *t = r->t;
  size_t len = r->len;
  size_t end = p;
  uint32_t key_at[16], key_len[16], n_keys = 0; /* the first keys, for duplicates */
  uint64_t seen[2] = {0, 0};                    /* the attributes hlo_rules.h numbers */
  if (idx < 0) rule = -1;
  else {
    r->attr_thread = r->attr_layouts = hs_sl(0, 0);
    r->attr_branches = 0;
  }
  for (;;) {
    size_t c = skip_ws(r, p);
    if (c >= len || t[c] != ',') return attributes_end(r, idx, rule, (brief & HLO_BRIEF_REQUIRED), seen, end);
#if HS_METADATA_SHORTCUT
    if (idx >= 0 && len - c > 12 && hs_bytes_eq(t + c, ", metadata={", 12)) {
      /* what jax writes on nearly every instruction: nothing to check but a second one */
      size_t ve = metadata_common(r, (uint32_t)idx, c + 11);
      if (ve != NOWHERE) {
        n_keys = note_key(r, c + 2, c + 10, key_at, key_len, n_keys);
        end = p = ve;
        continue;
      }
    }
#endif
    size_t ks = skip_ws(r, c + 1);
    size_t ke = name_end(t, ks, len);
    size_t eq = skip_ws(r, ke);
    if (eq >= len) {
      if (only_named && ke > ks) return attributes_end(r, idx, rule, (brief & HLO_BRIEF_REQUIRED), seen, end);
      r->cut = true;
      return len;
    }
    if (ke == ks || t[eq] != '=') {
      if (only_named) return attributes_end(r, idx, rule, (brief & HLO_BRIEF_REQUIRED), seen, end);
      return hlo_fail_syntax(r, ks < len ? ks : c, "expected an attribute 'name=value' after ','");
    }
    int a = idx >= 0 ? attr_index(t + ks, ke - ks) : -1;
    /* metadata, backend_config, frontend_attributes, sharding: every opcode takes them, none
       requires them (parser_rules.py header checks it): not looked up in hlo_rules.h */
    if (rule >= 0 && (brief & (HLO_BRIEF_CHECKED | HLO_BRIEF_REQUIRED))) {
      if (a < 0) hlo_check_attribute(r, rule, ks, ke, seen);
      else if (ATTRS[a].action < ATTR_METADATA || ATTRS[a].action > ATTR_SHARDING) hlo_check_attribute_number(r, rule, ks, ke, HLO_ATTRS_NUMBER[a], seen);
    }
    if (eq != ke) /* "key=" is one token to XLA's lexer */
      hlo_warn_at(r, ke, "%.*s: a space between an attribute's name and '=': XLA's parser refuses it (its lexer reads \"name=\" as one "
                  "token: expects attribute name); write the name and '=' together", t + ks, eq + 1 - ks < 60 ? eq + 1 - ks : 60);
    size_t vs = skip_ws(r, eq + 1);
    if (vs >= len) {
      r->cut = true;
      return len;
    }
    bool open = false;
    size_t ve = NOWHERE;
    if (a >= 0 && ATTRS[a].action == ATTR_METADATA && t[vs] == '{') {
      /* the largest attribute of most instructions: read in the pass that finds its end */
      meta_ctx m = {.idx = (uint32_t)idx, .bad_at = NOWHERE};
      ve = walk_pairs(r, vs, metadata_pair, &m);
      if (ve != NOWHERE && m.bad_number) {
        ve = NOWHERE; /* read again below, to say where */
      } else if (ve != NOWHERE) {
        if (count_frame_ref(r, &m)) a = -1; /* done */
        else ve = NOWHERE; /* out of memory: read_attribute says so */
      } else if (m.has_op && !hs_hlo_set_op_name(r->d, m.idx, m.op_name)) {
        return hlo_fail_oom(r);
      } /* the op_name is kept though the list is read again, or cut short with the text */
    }
    if (ve == NOWHERE) {
      /* most values are a name ("kLoop", "%fused_computation.3") or integers in braces
         ("{0,1}") followed by ',' or the line's end: there scan_value would stop too */
      size_t q = name_end(t, t[vs] == '%' ? vs + 1 : vs, len);
      if (q == vs && t[vs] == '{') {
        q = vs + 1;
        while (q < len && (is_digit(t[q]) || t[q] == ',')) q++;
        q = q < len && t[q] == '}' ? q + 1 : vs;
      }
      ve = q > vs && q < len && (t[q] == ',' || t[q] == '\n') ? q : hlo_scan_value(r, vs, &open);
    }
    if (open) {
      r->cut = true;
      end = len;
    } else if (ve == vs) {
      return hlo_fail_syntax(r, vs, "expected a value after '=' (XLA's parser refuses an attribute without one)");
    }
    n_keys = note_key(r, ks, ke, key_at, key_len, n_keys);
    if (!open && ve > vs && t[ve - 1] == '}') { /* no search for a line break: the byte before the brace's spaces says */
      size_t b = ve - 1;
      while (b > vs && (t[b - 1] == ' ' || t[b - 1] == '\t')) b--;
      if (b > vs && t[b - 1] == '\n') {
        r->suspect_line = hlo_line_of(r, ks);
        r->suspect_key = ks;
      }
    }
    if (idx >= 0 && !open && ke - ks < 64 && (NOTED_LENGTHS >> (ke - ks) & 1)) noted_attribute(r, ks, ke - ks, vs, ve, only_named);
    if (a >= 0 && !read_attribute(r, (uint32_t)idx, a, ks, vs, ve)) return hlo_fail_oom(r);
    if (a < 0 && !open && ke - ks < 64 && (HLO_CHECK_LENGTHS >> (ke - ks) & 1)) hlo_check_value(r, idx < 0, ks, ke, vs, ve);
    if (open) return len;
    end = p = ve;
  }
}
