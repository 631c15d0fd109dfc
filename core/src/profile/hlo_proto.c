/* The HloModuleProtos a profile embeds (/host:metadata, stat "Hlo Proto", one per program):
 * each instruction's name, opcode, result type (rendered as HLO text, layout included), fusion
 * kind, custom-call target, metadata op_name and source_file:line, id, operands, the
 * computation it sits in and the one it calls. This is what tells who wrote each kernel, which
 * -start a -done waits for, and what instruction (and fused body) is behind an op, without a
 * separate dump. The instruction behind an op is read first from the profile's own text (TPU
 * XLA Ops metadata names each op by its whole HLO instruction), else rendered from the proto.
 *
 * Field numbers (xla/service/hlo.proto, xla/xla_data.proto): HloProto.hlo_module 1;
 * HloModuleProto.name 1, computations 3; HloComputationProto.name 1, instructions 2, id 5,
 * root_id 6; HloInstructionProto.name 1, opcode 2, shape 3, metadata 7, fusion_kind 11,
 * custom_call_target 28, id 35, operand_ids 36 (packed or not), called_computation_ids 38;
 * OpMetadata.op_name 2, source_file 3, source_line 4; ShapeProto.element_type 2, dimensions 3,
 * tuple_shapes 4, layout 5, is_dynamic_dimension 6; LayoutProto.minor_to_major 1, tiles 6
 * (TileProto.dimensions 1), element_size_in_bits 7, memory_space 8, tail_padding_alignment 16. */
#include <stdio.h>
#include <stdlib.h>

#include "profile/profile.h"
#include "types/types.h"

/* ---- a ShapeProto as HLO text ------------------------------------------------------------ */
/* PrimitiveType numbers (xla_data.proto) to the names HLO prints */
static const char *elem_name(uint64_t t) {
  static const char *const NAMES[] = {
      NULL,        "pred",   "s8",      "s16",   "s32",     "s64",           "u8",         "u16",        "u32",
      "u64",       "f16",    "f32",     "f64",   "tuple",   "opaque",        "c64",        "bf16",       "token",
      "c128",      "f8e5m2", "f8e4m3fn", "s4",   "u4",      "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "s2",
      "u2",        "f8e4m3", "f8e3m4",  "s1",    "u1",      "f4e2m1fn",      "f8e8m0fnu"};
  return t < sizeof NAMES / sizeof NAMES[0] ? NAMES[t] : NULL;
}

/* packed or not: the varints of a repeated integer field, one call per value */
static bool next_int(const hs_pb_field *f, size_t *at, uint64_t *v) {
  if (f->wire == HS_PB_VARINT) {
    if (*at) return false;
    *at = 1;
    *v = f->u;
    return true;
  }
  if (f->wire != HS_PB_LEN || *at >= f->len) return false;
  uint64_t x = 0;
  for (int sh = 0; *at < f->len && sh < 64; sh += 7) {
    uint8_t c = f->data[(*at)++];
    x |= (uint64_t)(c & 0x7f) << sh;
    if (!(c & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

static void layout_text(hs_pb *r, const hs_pb_field *lf, hs_prof_text *o) {
  hs_pb lr = hs_pb_sub(r, lf);
  hs_pb_field g;
  uint64_t ms = 0, ebits = 0, tail = 0;
  int n_m2m = 0;
  hs_prof_put(o, "{");
  /* minor_to_major first, then the parts in XLA's order: T, L, E, S */
  while (hs_pb_next(&lr, &g) > 0) {
    if (g.field == 1) {
      size_t at = 0;
      uint64_t v;
      while (next_int(&g, &at, &v)) hs_prof_put(o, "%s%llu", n_m2m++ ? "," : "", (unsigned long long)v);
    } else if (g.field == 7 && g.wire == HS_PB_VARINT) ebits = g.u;
    else if (g.field == 8 && g.wire == HS_PB_VARINT) ms = g.u;
    else if (g.field == 16 && g.wire == HS_PB_VARINT) tail = g.u;
  }
  bool parts = false;
  lr = hs_pb_sub(r, lf);
  while (hs_pb_next(&lr, &g) > 0) {
    if (g.field != 6 || g.wire != HS_PB_LEN) continue;
    if (!parts) hs_prof_put(o, ":"), parts = true;
    hs_pb tr = hs_pb_sub(&lr, &g);
    hs_pb_field d;
    int k = 0;
    hs_prof_put(o, "T(");
    while (hs_pb_next(&tr, &d) > 0) {
      if (d.field != 1) continue;
      size_t at = 0;
      uint64_t v;
      while (next_int(&d, &at, &v)) {
        if ((int64_t)v == INT64_MIN) hs_prof_put(o, "%s*", k++ ? "," : ""); /* a combined dimension */
        else hs_prof_put(o, "%s%lld", k++ ? "," : "", (long long)(int64_t)v);
      }
    }
    hs_prof_put(o, ")");
  }
  if (tail > 1) hs_prof_put(o, "%sL(%llu)", parts ? "" : ":", (unsigned long long)tail), parts = true;
  if (ebits) hs_prof_put(o, "%sE(%llu)", parts ? "" : ":", (unsigned long long)ebits), parts = true;
  if (ms) hs_prof_put(o, "%sS(%llu)", parts ? "" : ":", (unsigned long long)ms), parts = true;
  hs_prof_put(o, "}");
  /* a scalar whose layout says nothing prints no layout at all */
  if (!n_m2m && !parts && !o->cut && o->n >= 2) {
    o->n -= 2;
    o->b[o->n] = 0;
  }
}

static void shape_text(hs_pb *r, const hs_pb_field *sf, hs_prof_text *o, int depth) {
  hs_pb sr = hs_pb_sub(r, sf);
  hs_pb_field g;
  uint64_t et = 0;
  while (hs_pb_next(&sr, &g) > 0)
    if (g.field == 2 && g.wire == HS_PB_VARINT) et = g.u;
  if (et == 13) { /* a tuple */
    hs_prof_put(o, "(");
    int k = 0;
    sr = hs_pb_sub(r, sf);
    while (hs_pb_next(&sr, &g) > 0 && depth < 16)
      if (g.field == 4 && g.wire == HS_PB_LEN) {
        if (k++) hs_prof_put(o, ", ");
        shape_text(&sr, &g, o, depth + 1);
      }
    hs_prof_put(o, ")");
    return;
  }
  const char *en = elem_name(et);
  if (!en) {
    o->cut = true;
    return;
  }
  hs_prof_put(o, "%s[", en);
  /* dimensions, a dynamic one as <=N */
  uint8_t dyn[64] = {0};
  int n_dyn = 0, k = 0;
  sr = hs_pb_sub(r, sf);
  while (hs_pb_next(&sr, &g) > 0) {
    if (g.field != 6) continue;
    size_t at = 0;
    uint64_t v;
    while (next_int(&g, &at, &v) && n_dyn < 64) dyn[n_dyn++] = v != 0;
  }
  sr = hs_pb_sub(r, sf);
  while (hs_pb_next(&sr, &g) > 0) {
    if (g.field != 3) continue;
    size_t at = 0;
    uint64_t v;
    while (next_int(&g, &at, &v)) {
      hs_prof_put(o, "%s%s%lld", k ? "," : "", k < 64 && dyn[k] ? "<=" : "", (long long)(int64_t)v);
      k++;
    }
  }
  hs_prof_put(o, "]");
  sr = hs_pb_sub(r, sf);
  while (hs_pb_next(&sr, &g) > 0)
    if (g.field == 5 && g.wire == HS_PB_LEN && et != 17 && et != 14) layout_text(&sr, &g, o);
}

static uint32_t intern_field(hs_profile *p, const hs_pb_field *f) {
  return f->wire == HS_PB_LEN && f->len ? hs_prof_intern(p, f->data, f->len) : HS_NONE;
}

static void read_metadata(hs_profile *p, hs_pb *r, const hs_pb_field *f, hs_prof_hlo *h) {
  hs_pb mr = hs_pb_sub(r, f);
  hs_pb_field g;
  while (hs_pb_next(&mr, &g) > 0) {
    if (g.field == 2) h->op_name = intern_field(p, &g);
    else if (g.field == 3) h->source_file = intern_field(p, &g);
    else if (g.field == 4 && g.wire == HS_PB_VARINT) h->source_line = (uint32_t)g.u;
  }
}

/* false when the instruction is malformed */
static bool read_instruction(hs_profile *p, hs_pb *cr, const hs_pb_field *f, hs_prof_hlo *h) {
  hs_pb r = hs_pb_sub(cr, f);
  hs_pb_field g;
  int rc;
  h->first_operand = p->n_hlo_operands;
  while ((rc = hs_pb_next(&r, &g)) > 0) {
    switch (g.field) {
      case 1: h->name = intern_field(p, &g); break;
      case 2: h->opcode = intern_field(p, &g); break;
      case 3:
        if (g.wire == HS_PB_LEN) {
          char buf[2048];
          hs_prof_text o = hs_prof_text_in(buf, sizeof buf);
          shape_text(&r, &g, &o, 0);
          if (!o.cut && o.n) h->shape = hs_prof_intern(p, buf, o.n);
        }
        break;
      case 38:
        if (h->called < 0) {
          size_t at = 0;
          uint64_t v;
          if (next_int(&g, &at, &v)) h->called = (int64_t)v;
        }
        break;
      case 7:
        if (g.wire == HS_PB_LEN) read_metadata(p, &r, &g, h);
        break;
      case 11: h->fusion_kind = intern_field(p, &g); break;
      case 28: h->target = intern_field(p, &g); break;
      case 35:
        if (g.wire == HS_PB_VARINT) h->id = (int64_t)g.u;
        break;
      case 36: {
        size_t at = 0;
        uint64_t v;
        while (next_int(&g, &at, &v)) {
          if (h->operand0 < 0) h->operand0 = (int64_t)v;
          bool ok;
          uint64_t *slot = HS_VEC_PUSH(p->hlo_operands, p->n_hlo_operands, p->cap_hlo_operands, ok);
          (void)ok;
          if (!slot) {
            p->diag.nomem = true;
            break;
          }
          *slot = v;
          h->n_operands++;
        }
        break;
      }
      default: break;
    }
  }
  return rc == 0 && h->name != HS_NONE;
}

void hs_prof_read_hlo_proto(hs_profile *p, const uint8_t *b, size_t n, bool has_pid, uint64_t pid) {
  hs_pb r = hs_pb_open(b, n);
  hs_pb_field f;
  while (hs_pb_next(&r, &f) > 0) {
    if (f.field != 1 || f.wire != HS_PB_LEN) continue;
    hs_pb mr = hs_pb_sub(&r, &f);
    hs_pb_field g;
    uint32_t module = HS_NONE, first = p->n_hlos;
    bool bad = false;
    while (hs_pb_next(&mr, &g) > 0 && !p->diag.nomem) {
      if (g.wire != HS_PB_LEN) continue;
      if (g.field == 1 && module == HS_NONE) {
        module = hs_prof_intern(p, g.data, g.len);
        bool ok;
        uint32_t *slot = module != HS_NONE ? HS_VEC_PUSH(p->hlo_modules, p->n_hlo_modules, p->cap_hlo_modules, ok) : NULL;
        (void)ok;
        if (slot) *slot = module;
        else p->diag.nomem = true;
      } else if (g.field == 3) {
        bool ok;
        hs_prof_hcomp *hc = HS_VEC_PUSH(p->hcomps, p->n_hcomps, p->cap_hcomps, ok);
        (void)ok;
        if (!hc) {
          p->diag.nomem = true;
          break;
        }
        memset(hc, 0, sizeof *hc);
        hc->program_id = has_pid ? pid : 0;
        hc->name = HS_NONE;
        hc->id = hc->root = -1;
        hc->first = p->n_hlos;
        uint32_t ci = p->n_hcomps - 1;
        hs_pb cr = hs_pb_sub(&mr, &g);
        hs_pb_field c;
        while (hs_pb_next(&cr, &c) > 0 && !p->diag.nomem) {
          if (c.field == 1 && p->hcomps[ci].name == HS_NONE) p->hcomps[ci].name = intern_field(p, &c);
          else if (c.field == 5 && c.wire == HS_PB_VARINT) p->hcomps[ci].id = (int64_t)c.u;
          else if (c.field == 6 && c.wire == HS_PB_VARINT) p->hcomps[ci].root = (int64_t)c.u;
          if (c.field != 2 || c.wire != HS_PB_LEN) continue;
          hs_prof_hlo *h = HS_VEC_PUSH(p->hlos, p->n_hlos, p->cap_hlos, ok);
          if (!h) {
            p->diag.nomem = true;
            break;
          }
          memset(h, 0, sizeof *h);
          h->program_id = has_pid ? pid : 0;
          h->module = HS_NONE;
          h->name = h->opcode = h->fusion_kind = h->target = h->op_name = h->source_file = h->shape = HS_NONE;
          h->id = h->operand0 = h->called = -1;
          h->comp = ci;
          if (!read_instruction(p, &cr, &c, h)) {
            p->n_hlos--;
            bad = true;
          }
        }
        p->hcomps[ci].n = p->n_hlos - p->hcomps[ci].first;
      }
    }
    /* the module's name may follow its computations */
    for (uint32_t i = first; i < p->n_hlos; i++) p->hlos[i].module = module;
    if (bad) hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "a malformed instruction in the HloModuleProto of %s was skipped",
                          module == HS_NONE ? "a program" : p->strs[module].s);
    return;
  }
  hs_prof_warn(p, HS_W_PROFILE_SKIPPED, "an 'Hlo Proto' stat in /host:metadata holds no readable HloModuleProto");
}

/* ---- the HLO instruction of an op ---------------------------------------------------------- */
static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t k = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
  return k;
}

/* a linear scan would be quadratic over rows: the lookups go through maps built once */
static void index_hlos(const hs_profile *p) {
  hs_profile *q = (hs_profile *)p; /* the map is a cache: building it does not change the profile */
  if (q->hlo_index_built) return;
  q->hlo_index_built = 1;
  for (uint32_t i = 0; i < p->n_hlos; i++) {
    const hs_prof_hlo *h = &p->hlos[i];
    if (!hs_u64map_put(&q->hlo_by_pid, mix(h->program_id, h->name), i)) break;
    if (h->module != HS_NONE && !hs_u64map_put(&q->hlo_by_module, mix((uint64_t)h->module << 1 | 1, h->name), i)) break;
    if (h->id >= 0 && !hs_u64map_put(&q->hlo_by_id, mix(h->program_id ^ 0x5bd1e995u, (uint64_t)h->id), i)) break;
  }
}

const hs_prof_hlo *hs_prof_find_hlo(const hs_profile *p, bool has_pid, uint64_t program_id, uint32_t module,
                                    uint32_t name) {
  index_hlos(p);
  if (has_pid) {
    int64_t k = hs_u64map_get(&p->hlo_by_pid, mix(program_id, name));
    if (k >= 0 && p->hlos[k].program_id == program_id && p->hlos[k].name == name) return &p->hlos[k];
  }
  if (module != HS_NONE) {
    int64_t k = hs_u64map_get(&p->hlo_by_module, mix((uint64_t)module << 1 | 1, name));
    if (k >= 0 && p->hlos[k].module == module && p->hlos[k].name == name) return &p->hlos[k];
  }
  return NULL;
}

const hs_prof_hlo *hs_prof_find_hlo_id(const hs_profile *p, uint64_t program_id, int64_t id) {
  index_hlos(p);
  int64_t k = hs_u64map_get(&p->hlo_by_id, mix(program_id ^ 0x5bd1e995u, (uint64_t)id));
  return k >= 0 && p->hlos[k].program_id == program_id && p->hlos[k].id == id ? &p->hlos[k] : NULL;
}

static const char *const COLLECTIVES[] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                                          "collective-permute", "collective-broadcast", "ragged-all-to-all",
                                          "send", "recv"};

/* "fusion", "custom", "copy", "collective" or "other", from the opcode (else the name). */
const char *hs_prof_kind_of(const char *opcode, const char *name) {
  const char *s = opcode ? opcode : name;
  if (!opcode && strstr(name, "fusion")) return "fusion";
  if (strcmp(s, "fusion") == 0) return "fusion";
  if (strncmp(s, "custom-call", 11) == 0) return "custom";
  if (strncmp(s, "copy", 4) == 0 && (s[4] == 0 || s[4] == '-' || s[4] == '.')) return "copy";
  for (size_t i = 0; i < sizeof COLLECTIVES / sizeof COLLECTIVES[0]; i++) {
    size_t k = strlen(COLLECTIVES[i]);
    if (strncmp(s, COLLECTIVES[i], k) == 0 && (s[k] == 0 || s[k] == '-' || s[k] == '.')) return "collective";
  }
  return "other";
}

const char *hs_prof_op_kind(const hs_profile *p, const hs_prof_op *op) {
  const hs_prof_hlo *h = hs_prof_find_hlo(p, op->has_pid, op->program_id, op->module, op->name);
  return hs_prof_kind_of(h && h->opcode != HS_NONE ? p->strs[h->opcode].s : NULL, p->strs[op->name].s);
}

/* ---- the instruction behind an op ---------------------------------------------------------- */
/* One instruction rendered from the proto: "%name = TYPE opcode(%a, %b), kind=kLoop,
 * calls=%body, custom_call_target="..."" (other attributes are not rendered). */
static void render_hlo(const hs_profile *p, const hs_prof_hlo *h, bool root, hs_prof_text *o) {
  const char *nm = h->name != HS_NONE ? p->strs[h->name].s : "?";
  hs_prof_put(o, "%s%%%s = %s %s(", root ? "ROOT " : "", nm, h->shape != HS_NONE ? p->strs[h->shape].s : "?",
      h->opcode != HS_NONE ? p->strs[h->opcode].s : "?");
  for (uint32_t k = 0; k < h->n_operands; k++) {
    const hs_prof_hlo *a = hs_prof_find_hlo_id(p, h->program_id, (int64_t)p->hlo_operands[h->first_operand + k]);
    hs_prof_put(o, "%s%%%s", k ? ", " : "", a && a->name != HS_NONE ? p->strs[a->name].s : "?");
  }
  hs_prof_put(o, ")");
  if (h->fusion_kind != HS_NONE) hs_prof_put(o, ", kind=%s", p->strs[h->fusion_kind].s);
  if (h->called >= 0) {
    for (uint32_t c = 0; c < p->n_hcomps; c++)
      if (p->hcomps[c].program_id == h->program_id && p->hcomps[c].id == h->called && p->hcomps[c].name != HS_NONE) {
        hs_prof_put(o, ", calls=%%%s", p->strs[p->hcomps[c].name].s);
        break;
      }
  }
  if (h->target != HS_NONE) hs_prof_put(o, ", custom_call_target=\"%s\"", p->strs[h->target].s);
}

/* Every array in a type, with where it is, as {"where","shape","bytes","memory_space","words"}. */
static void spaces_of(const hs_type *t, const char *where, json_t *out, int depth) {
  if (!t || depth > 8) return;
  if (t->kind == HS_T_TUPLE) {
    for (uint32_t i = 0; i < t->n; i++) {
      char w[200];
      snprintf(w, sizeof w, "%.160s, element %u", where, i);
      spaces_of(t->elems[i], w, out, depth + 1);
    }
    return;
  }
  if (t->kind != HS_T_ARRAY) return;
  char shape[256];
  hs_type_format(t, shape, sizeof shape);
  int ms = t->mem_space < 0 ? 0 : t->mem_space;
  json_t *x = json_object();
  json_object_set_new(x, "where", json_string(where));
  json_object_set_new(x, "shape", json_string(shape));
  json_object_set_new(x, "bytes", hs_prof_json_ps(hs_type_bytes(t)));
  json_object_set_new(x, "memory_space", json_integer(ms));
  json_object_set_new(x, "words", json_string(hs_mem_space_words(ms)));
  json_array_append_new(out, x);
}

/* Reads the result type and the operands of an instruction's text (the long form prints each
 * operand's type before its name) into {"result", "operands": [{"name", "type"}],
 * "memory_spaces": [...]}: the types as the layout reader gives them (layout.c, words included). */
/* The few keys of a type's layout JSON a reader of the instruction needs. */
static json_t *type_brief(json_t *full) {
  if (!full) return json_null();
  json_t *o = json_object();
  static const char *const KEEP[] = {"type", "shape", "memory_space", "logical_bytes", "padded_bytes", "words"};
  for (size_t i = 0; i < sizeof KEEP / sizeof KEEP[0]; i++) {
    json_t *v = json_object_get(full, KEEP[i]);
    if (v) json_object_set(o, KEEP[i], v);
  }
  json_decref(full);
  return o;
}

static void read_text(const char *t, size_t n, json_t *o) {
  size_t pos = 0;
  while (pos + 2 < n && !(t[pos] == ' ' && t[pos + 1] == '=' && t[pos + 2] == ' ')) pos++;
  if (pos + 2 >= n) return;
  pos += 3;
  hs_arena a;
  memset(&a, 0, sizeof a);
  json_t *spaces = json_array(), *operands = json_array();
  size_t at = pos, bad = 0;
  json_t *result = hs_layout_shape_json(t, n, &at, &bad);
  size_t tp = pos;
  spaces_of(hs_parse_hlo_shape(&a, t, n, &tp), "result", spaces, 0);
  if (result) {
    json_object_set_new(o, "result", type_brief(result));
    pos = at;
    while (pos < n && t[pos] == ' ') pos++;
    while (pos < n && t[pos] != '(' && t[pos] != ' ' && t[pos] != ',') pos++; /* the opcode */
    if (pos < n && t[pos] == '(') {
      pos++;
      for (int k = 0; k < 1024 && pos < n; k++) {
        while (pos < n && t[pos] == ' ') pos++;
        if (pos >= n || t[pos] == ')') break;
        json_t *ty = NULL;
        hs_type *parsed = NULL;
        if (t[pos] != '%') {
          size_t q = pos;
          parsed = hs_parse_hlo_shape(&a, t, n, &q);
          if (!parsed) break;
          ty = hs_json_bytes(t + pos, q - pos);
          pos = q;
          while (pos < n && t[pos] == ' ') pos++;
        }
        size_t s0 = pos;
        while (pos < n && t[pos] != ',' && t[pos] != ')' && t[pos] != ' ') pos++;
        json_t *x = json_object();
        json_object_set_new(x, "name", hs_json_bytes(t + s0, pos - s0));
        json_object_set_new(x, "type", ty ? ty : json_null());
        json_array_append_new(operands, x);
        char where[160];
        snprintf(where, sizeof where, "operand %.*s", (int)(pos - s0 > 120 ? 120 : pos - s0), t + s0);
        spaces_of(parsed, where, spaces, 0);
        while (pos < n && t[pos] == ' ') pos++;
        if (pos < n && t[pos] == ',') pos++;
        else break;
      }
    }
  }
  json_object_set_new(o, "operands", operands);
  json_object_set_new(o, "memory_spaces", spaces);
  hs_arena_free(&a);
}

json_t *hs_prof_instruction_json(const hs_profile *p, const hs_prof_op *op) {
  const hs_prof_hlo *h = hs_prof_find_hlo(p, op->has_pid, op->program_id, op->module, op->name);
  char buf[8192];
  hs_prof_text line = hs_prof_text_in(buf, sizeof buf);
  const char *text = NULL, *from = NULL;
  size_t text_len = 0;
  if (op->text != HS_NONE) {
    text = p->strs[op->text].s;
    text_len = p->strs[op->text].len;
    from = "profile";
  } else if (h && h->shape != HS_NONE) {
    render_hlo(p, h, false, &line);
    if (!line.cut) text = buf, text_len = line.n, from = "hlo_proto";
  }
  if (!text) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "text", hs_json_bytes(text, text_len));
  json_object_set_new(o, "from", json_string(from));
  /* the result type as the embedded proto gives it (rendered here), beside the profile's text */
  json_object_set_new(o, "proto_type", h && h->shape != HS_NONE ? hs_prof_json_str(p, h->shape) : json_null());
  read_text(text, text_len, o);
  /* a fusion's body, from the proto */
  json_t *body = json_null();
  const hs_prof_hcomp *hc = NULL;
  for (uint32_t c = 0; h && h->called >= 0 && c < p->n_hcomps; c++)
    if (p->hcomps[c].program_id == h->program_id && p->hcomps[c].id == h->called) hc = &p->hcomps[c];
  if (hc && h->opcode != HS_NONE && strcmp(p->strs[h->opcode].s, "fusion") == 0) {
    body = json_object();
    json_object_set_new(body, "computation", hs_prof_json_str(p, hc->name));
    json_t *lines = json_array();
    for (uint32_t i = hc->first; i < hc->first + hc->n && i < p->n_hlos; i++) {
      char lb[4096];
      hs_prof_text l = hs_prof_text_in(lb, sizeof lb);
      render_hlo(p, &p->hlos[i], p->hlos[i].id == hc->root, &l);
      json_array_append_new(lines, hs_json_bytes(lb, l.n));
    }
    json_object_set_new(body, "lines", lines);
  }
  json_object_set_new(o, "body", body);
  return o;
}
