/* The HloModuleProtos a profile embeds (/host:metadata, stat "Hlo Proto", one per program):
 * each instruction's name, opcode, fusion kind, custom-call target, metadata op_name and
 * source_file:line, id and first operand. This is what tells who wrote each kernel, and which
 * -start a -done waits for, without a separate dump.
 *
 * Field numbers (xla/service/hlo.proto, xla/xla_data.proto): HloProto.hlo_module 1;
 * HloModuleProto.name 1, computations 3; HloComputationProto.instructions 2;
 * HloInstructionProto.name 1, opcode 2, metadata 7, fusion_kind 11, custom_call_target 28,
 * id 35, operand_ids 36 (packed or not); OpMetadata.op_name 2, source_file 3, source_line 4. */
#include "profile/profile.h"

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
  while ((rc = hs_pb_next(&r, &g)) > 0) {
    switch (g.field) {
      case 1: h->name = intern_field(p, &g); break;
      case 2: h->opcode = intern_field(p, &g); break;
      case 7:
        if (g.wire == HS_PB_LEN) read_metadata(p, &r, &g, h);
        break;
      case 11: h->fusion_kind = intern_field(p, &g); break;
      case 28: h->target = intern_field(p, &g); break;
      case 35:
        if (g.wire == HS_PB_VARINT) h->id = (int64_t)g.u;
        break;
      case 36:
        if (h->operand0 >= 0) break;
        if (g.wire == HS_PB_VARINT) h->operand0 = (int64_t)g.u;
        else if (g.wire == HS_PB_LEN && g.len) {
          /* packed: the first varint */
          uint64_t v = 0;
          for (size_t i = 0; i < g.len && i < 10; i++) {
            v |= (uint64_t)(g.data[i] & 0x7f) << (7 * i);
            if (!(g.data[i] & 0x80)) {
              h->operand0 = (int64_t)v;
              break;
            }
          }
        }
        break;
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
        hs_pb cr = hs_pb_sub(&mr, &g);
        hs_pb_field c;
        while (hs_pb_next(&cr, &c) > 0 && !p->diag.nomem) {
          if (c.field != 2 || c.wire != HS_PB_LEN) continue;
          bool ok;
          (void)ok;
          hs_prof_hlo *h = HS_VEC_PUSH(p->hlos, p->n_hlos, p->cap_hlos, ok);
          if (!h) {
            p->diag.nomem = true;
            break;
          }
          memset(h, 0, sizeof *h);
          h->program_id = has_pid ? pid : 0;
          h->module = HS_NONE;
          h->name = h->opcode = h->fusion_kind = h->target = h->op_name = h->source_file = HS_NONE;
          h->id = h->operand0 = -1;
          if (!read_instruction(p, &cr, &c, h)) {
            p->n_hlos--;
            bad = true;
          }
        }
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
