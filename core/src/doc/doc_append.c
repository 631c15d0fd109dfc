/* One HLO document after another: B, read from the same text starting at one of its "HloModule"
 * lines (its lines numbered after A's), appended to A, read from the text before that line. What
 * B holds refers to B's own rows by index (its computations, instructions, operands, calls,
 * modules, source files) and to its own made names (d->synth): each index moves by A's count of
 * that row, each made name by A's made bytes, each source file to its row in A (added there the
 * first time, in B's order: the order first named, as one reader of the whole text gives).
 * hlo_split.c reads a long text in two threads so; the document is the one a single reader of
 * the whole text makes, but for the made names' bytes (each part makes "get-tuple-element" and
 * "parameter" once) and the shapes (each part made its own: equal shapes may be two objects). */
#include "doc/doc.h"

#include <stdlib.h>

/* B's rows move to A's end in pieces of this many bytes, each piece's pages given back once moved:
 * the two documents together hold no more than the one a single reader makes, and a piece for
 * each thread moving rows (256 KB held 0.004x more on a 60 MB text; 64 KB was 5% slower). */
#define PIECE_BYTES (128u * 1024u)

static inline int32_t moved(int32_t idx, uint32_t by) { return idx >= 0 ? idx + (int32_t)by : idx; }
static inline hs_slice moved_slice(hs_slice s, uint32_t len, uint32_t synth_by) {
  if (s.off > len) s.off += synth_by;
  return s;
}

/* The arrays B's rows are appended to: X(element type, field, B's first row of its own). The
 * source files are mapped (map_files), the lines' index is made again when asked for, the jaxpr
 * arrays are empty in HLO documents. */
#define APPENDED(X)                 \
  X(hs_line, lines, ap->lines0)     \
  X(hs_comp, comps, 0)              \
  X(hs_instr, instrs, 0)            \
  X(hs_instr_wide, instr_wide, 0)   \
  X(hs_hlo_row, hlo, 0)             \
  X(hs_hlo_rare, hlo_rare, 0)       \
  X(hs_hlo_wide, hlo_wide, 0)       \
  X(hs_frame_row, frames, 0)        \
  X(hs_operand, operands, 0)        \
  X(hs_call, calls, 0)              \
  X(hs_module, modules, 0)          \
  X(char, synth, 0)

/* B's rows [lo, hi) of array `field` (from its row `from` on) copied to A's, after A's own (A's
 * array grown by hs_doc_append_begin), a piece at a time: each piece's pages in A made in one call
 * (4 KB pages, as the readers' of the two parts), its rows fixed by FIX (which reads and writes
 * `e`, the row in A), its whole pages in B given back. */
#define APPEND_ROWS(type, field, from, FIX)                                                                          \
  do {                                                                                                               \
    uint32_t n_ = b->n_##field > (from) ? b->n_##field - (from) : 0, at_ = a->n_##field;                             \
    if (!n_) break;                                                                                                  \
    uint32_t lo_ = (uint32_t)((uint64_t)n_ * part / parts), hi_ = (uint32_t)((uint64_t)n_ * (part + 1) / parts);    \
    uintptr_t released_ = ((uintptr_t)&b->field[(from) + lo_] + 4095) & ~(uintptr_t)4095;                          \
    const uint32_t piece_ = (uint32_t)(PIECE_BYTES / sizeof(type));                                                  \
    for (uint32_t i0_ = lo_; i0_ < hi_; i0_ += piece_) {                                                             \
      uint32_t i1_ = hi_ - i0_ > piece_ ? i0_ + piece_ : hi_;                                                        \
      hs_vec_prefill(a->field, a->cap_##field, at_ + i0_, (uint64_t)at_ + i1_, 0, sizeof(type));                    \
      memcpy(&a->field[at_ + i0_], &b->field[(from) + i0_], (size_t)(i1_ - i0_) * sizeof(type));                     \
      for (uint32_t i_ = i0_; i_ < i1_; i_++) {                                                                      \
        type *e = &a->field[at_ + i_];                                                                               \
        (void)e;                                                                                                     \
        FIX;                                                                                                         \
      }                                                                                                              \
      uintptr_t to_ = (uintptr_t)&b->field[(from) + i1_] & ~(uintptr_t)4095;                                        \
      if (to_ > released_) { /* whole pages, each once: a piece's last page is the next one's first */             \
        hs_mem_release((void *)released_, to_ - released_);                                                         \
        released_ = to_;                                                                                             \
      }                                                                                                              \
    }                                                                                                                \
  } while (0)

/* The slot of table `slots` (A's source files, index + 1) holding the name [s, s+n), or the empty
 * one where it would go. */
static uint32_t file_slot(const hs_doc *a, const uint32_t *slots, uint32_t cap, const char *s, uint32_t n) {
  uint32_t pos = hs_hash_name(s, n) & (cap - 1);
  for (; slots[pos]; pos = (pos + 1) & (cap - 1)) {
    hs_slice o = a->source_files[slots[pos] - 1];
    if (o.len == n && memcmp(hs_sp(a, o), s, n) == 0) break;
  }
  return pos;
}

/* B's source files as A's (map[j]: B's file j's index in A + 1), A's list grown with those it
 * lacks, in B's order. */
static int map_files(hs_doc *a, const hs_doc *b, uint32_t *map) {
  uint32_t cap = 16;
  while (cap < 2 * (a->n_source_files + b->n_source_files)) cap *= 2;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return HS_E_NOMEM;
  for (uint32_t i = 0; i < a->n_source_files; i++) {
    hs_slice f = a->source_files[i];
    uint32_t pos = file_slot(a, slots, cap, hs_sp(a, f), f.len);
    if (!slots[pos]) slots[pos] = i + 1;
  }
  int rc = 0;
  for (uint32_t j = 0; j < b->n_source_files; j++) {
    hs_slice f = b->source_files[j]; /* a file's name is a slice of the text: the same in A */
    uint32_t pos = file_slot(a, slots, cap, hs_sp(b, f), f.len);
    if (!slots[pos]) {
      bool ok;
      hs_slice *to = HS_VEC_PUSH(a->source_files, a->n_source_files, a->cap_source_files, ok);
      if (!ok) {
        rc = HS_E_NOMEM;
        break;
      }
      *to = f;
      slots[pos] = a->n_source_files;
    }
    map[j] = slots[pos];
  }
  free(slots);
  return rc;
}

void hs_doc_seal(hs_doc *d) {
#define HS_SEAL_(type, field) \
  if (d->field) hs_mem_release(&d->field[d->n_##field], (size_t)(d->cap_##field - d->n_##field) * sizeof(type));
  HS_DOC_ARRAYS(HS_SEAL_)
#undef HS_SEAL_
  if (d->arena.free_extra) d->arena.free_extra(&d->arena);
}

static int plan(hs_doc *a, hs_doc *b, hs_append *ap) {
  ap->lines0 = a->n_lines;
  ap->comps = a->n_comps;
  ap->instrs = a->n_instrs;
  ap->operands = a->n_operands;
  ap->calls = a->n_calls;
  ap->modules = a->n_modules;
  ap->synth = a->n_synth;
  /* what the records' fields hold, and the source files' form in doc->hlo */
  if (b->n_lines < ap->lines0 || (uint64_t)ap->comps + b->n_comps > HS_COMP_MAX || (uint64_t)ap->modules + b->n_modules > HS_MODULE_MAX ||
      (uint64_t)ap->instrs + b->n_instrs > HS_LINE_REF_MAX || (uint64_t)ap->synth + b->n_synth + a->len + 1 > UINT32_MAX)
    return HS_E_TOO_LARGE;
  if (b->n_source_files) {
    if (!(ap->files = calloc(b->n_source_files, sizeof *ap->files))) return HS_E_NOMEM;
    int rc = map_files(a, b, ap->files);
    if (rc) return rc;
    for (uint32_t i = 0; i < b->n_hlo; i++) { /* a file past the row's 1023rd: not this way */
      uint32_t src = b->hlo[i].src & ~HS_HLO_RARE;
      if ((src & HS_HLO_SRC_FILE) && ap->files[(src >> 20 & 0x3FFu) - 1] >= 0x400u) return HS_E_TOO_LARGE;
    }
  }
  /* every array of A grown now: the rows are then moved without allocating, by two threads */
#define HS_GROW_(type, field, from)                                                                               \
  if (b->n_##field > (from) && ((uint64_t)a->n_##field + (b->n_##field - (from)) > UINT32_MAX / 2 ||               \
                                !hs_vec_grow((void **)&a->field, &a->cap_##field, a->n_##field + (b->n_##field - (from)), sizeof(type)))) \
    return HS_E_NOMEM;
  APPENDED(HS_GROW_)
#undef HS_GROW_
  return 0;
}

int hs_doc_append_begin(hs_doc *a, hs_doc *b, hs_append *ap) {
  memset(ap, 0, sizeof *ap);
  int rc = plan(a, b, ap);
  if (rc) {
    free(ap->files);
    ap->files = NULL;
  }
  return rc;
}

void hs_doc_append_rows(hs_doc *a, hs_doc *b, const hs_append *ap, uint32_t part, uint32_t parts) {
  const uint32_t len = (uint32_t)a->len, by_comp = ap->comps, by_instr = ap->instrs, by_op = ap->operands, by_call = ap->calls,
                 by_module = ap->modules, by_synth = ap->synth;
  const uint32_t *files = ap->files;
#define FILE_OF(f) ((f) ? files[(f) - 1] : 0)
  APPEND_ROWS(hs_line, lines, ap->lines0, {
    switch (e->kind) {
      case HS_LINE_MODULE: e->ref += by_module; break;
      case HS_LINE_COMP: case HS_LINE_CLOSE: e->ref += by_comp; break;
      case HS_LINE_INSTR: case HS_LINE_CONT: e->ref += by_instr; break;
      default: break;
    }
  });
  APPEND_ROWS(hs_comp, comps, 0, {
    e->name = moved_slice(e->name, len, by_synth);
    e->module += by_module;
    e->first += by_instr;
    e->root = moved(e->root, by_instr);
    e->fused_by = moved(e->fused_by, by_instr);
  });
  APPEND_ROWS(hs_instr, instrs, 0, {
    e->name = moved_slice(e->name, len, by_synth);
    e->comp += by_comp;
    e->op_first += by_op;
  });
  APPEND_ROWS(hs_instr_wide, instr_wide, 0, {
    e->instr += by_instr;
    e->opcode = moved_slice(e->opcode, len, by_synth);
  });
  APPEND_ROWS(hs_hlo_row, hlo, 0, {
    uint32_t src = e->src & ~HS_HLO_RARE;
    if (src & HS_HLO_SRC_FILE) e->src = (e->src & ~(0x3FFu << 20)) | FILE_OF(src >> 20 & 0x3FFu) << 20;
  });
  APPEND_ROWS(hs_hlo_rare, hlo_rare, 0, e->instr += by_instr);
  APPEND_ROWS(hs_hlo_wide, hlo_wide, 0, {
    e->instr += by_instr;
    e->source_file = FILE_OF(e->source_file);
  });
  APPEND_ROWS(hs_frame_row, frames, 0, e->module += by_module);
  APPEND_ROWS(hs_operand, operands, 0, e->target = moved(e->target, by_instr));
  APPEND_ROWS(hs_call, calls, 0, {
    e->name = moved_slice(e->name, len, by_synth);
    e->target = moved(e->target, by_comp);
    e->instr += by_instr;
  });
  APPEND_ROWS(hs_module, modules, 0, {
    e->name = moved_slice(e->name, len, by_synth);
    e->first_comp += by_comp;
    e->first_call += by_call;
    e->entry = moved(e->entry, by_comp);
  });
  APPEND_ROWS(char, synth, 0, (void)0);
#undef FILE_OF
}

int hs_doc_append_end(hs_doc *a, hs_doc *b, hs_append *ap) {
  free(ap->files);
  ap->files = NULL;
#define HS_COUNT_(type, field, from) \
  if (b->n_##field > (from)) a->n_##field += b->n_##field - (from);
  APPENDED(HS_COUNT_) /* b's first lines are a's: a->n_lines becomes b's */
#undef HS_COUNT_
  if (b->n_lines > ap->lines0) a->line_last_off = b->line_last_off;
  a->stack_frames += b->stack_frames;
  a->frame_refs += b->frame_refs;
  if (!a->frame_refs_dangling) a->first_dangling_line = b->first_dangling_line;
  a->frame_refs_dangling += b->frame_refs_dangling;
  hs_unresolved *u = &a->unresolved;
  const hs_unresolved *v = &b->unresolved;
  if (!u->ops) u->first_op_line = v->first_op_line;
  if (!u->calls) u->first_call_line = v->first_call_line;
  u->ops += v->ops;
  u->calls += v->calls;
  hs_arena_adopt(&a->arena, &b->arena); /* B's shapes and warnings' messages */
  return hs_diag_append(&a->diag, &b->diag) ? 0 : HS_E_NOMEM;
}

int hs_doc_append_hlo(hs_doc *a, hs_doc *b) {
  hs_append ap;
  int rc = hs_doc_append_begin(a, b, &ap);
  if (rc) return rc;
  hs_doc_append_rows(a, b, &ap, 0, 1);
  return hs_doc_append_end(a, b, &ap);
}
