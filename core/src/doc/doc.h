/* doc: the document model every text reader builds (doc.c: builders, resolution, roles; names.c:
 * name tables) and the readers of the three document formats: HLO (hlo/), StableHLO
 * (stablehlo.c), jaxpr (jaxpr.c). Not installed; only core/src includes it. Uses types/ and
 * base/ only.
 *
 * One document = one arena (types, small strings) plus a few flat, growable arrays
 * (lines, computations, instructions, operands). Names and opcodes are slices: byte offsets
 * into the text the caller keeps alive. Everything refers to everything else by index.
 */
#ifndef HS_DOC_H
#define HS_DOC_H

#include "types/types.h"

/* ---- the document --------------------------------------------------------------------- */
enum {
  HS_LINE_BLANK = 0,
  HS_LINE_MODULE,    /* HloModule / module @x */
  HS_LINE_TABLE,     /* frame tables, #loc lines, attribute aliases */
  HS_LINE_COMP,      /* computation / func header; ref = computation */
  HS_LINE_INSTR,     /* instruction / op; ref = instruction */
  HS_LINE_CLOSE,     /* closing brace of a computation; ref = computation */
  HS_LINE_CONT,      /* continuation of a statement that spans lines; ref = instruction */
  HS_LINE_REGION,    /* region structure (StableHLO: ^bb, cond {, } do {, })...) */
  HS_LINE_COMMENT,
  HS_LINE_OTHER
};

/* 4 bytes: a 100 MB dump has about a million lines. Where a line starts is not kept by the
 * readers: hs_line_off finds it (from an index made the first time one is asked for: 8 bytes a
 * line before, half of them offsets that most uses of a document never read: issue 37's peak). */
#define HS_LINE_REF_MAX ((1u << 28) - 1)
typedef struct {
  uint32_t kind : 4;  /* HS_LINE_* */
  uint32_t ref : 28;  /* computation or instruction index, per kind (at most HS_LINE_REF_MAX) */
} hs_line;

/* HS_ROLE_ASYNC: what an async-start runs (calls=): one transfer with its start and done */
enum { HS_ROLE_ENTRY = 0, HS_ROLE_FUSED, HS_ROLE_CALLED, HS_ROLE_FUNCTION, HS_ROLE_ASYNC };

typedef struct {
  hs_slice name;
  hs_type *result;       /* declared result (header), may be NULL */
  uint32_t line, end_line; /* 1-based; end_line 0 while open */
  uint32_t module : 27;  /* at most HS_MODULE_MAX */
  uint32_t is_entry : 1;
  uint32_t role : 3;     /* HS_ROLE_*, decided after parsing */
  uint32_t inner : 1;    /* HLO: runs inside a kernel, a fused body or a combiner (to_apply) */
  uint32_t first, count; /* instructions [first, first+count) */
  int32_t root;          /* instruction index of ROOT, -1 if none */
  /* HLO only (hs_resolve fills them and inner; other formats keep -1 / 0): */
  int32_t fused_by;      /* a fusion instruction calling this body, -1 if none */
  uint32_t fusions;      /* its instructions whose opcode is fusion (the HLO reader counts them) */
} hs_comp; /* 48 bytes (44 in wasm) */
#define HS_MODULE_MAX ((1u << 27) - 1)

typedef struct {
  hs_slice name;   /* without '%' */
  uint32_t opc;    /* the opcode ("fusion", "stablehlo.add"; read it with hs_opcode): its offset from
                      the name's (bits 8 to 31) and its length (bits 0 to 7), or HS_OPC_WIDE: a row
                      of doc->instr_wide holds it */
  uint32_t line;   /* 1-based */
  uint32_t comp : 28;
  uint32_t synth : 2;   /* HS_SYNTH_*: made by the reader, not written as a statement in the text */
  uint32_t is_root : 1;
  uint32_t has_calls : 1; /* it calls computations (hs_calls_of) */
  uint32_t op_first; /* its operands: doc->operands from here, hs_op_count of them (up to the next
                        instruction's op_first: each instruction's are added as it is made) */
  hs_type *type;   /* result type; may be NULL when unknown (StableHLO region ops) */
} hs_instr; /* 32 bytes (28 in wasm): a 100 MB dump has about 700k instructions. What follows
               from the arrays' order is not kept (its operand and call counts, where its calls
               start), nor what few have (a made get-tuple-element's index): 48 bytes, then 40,
               before (issue 37's peak). */
#define HS_OPC_WIDE 0xFFu
/* The opcode of an instruction whose opcode does not follow its name in the text within 16 MB
 * (the instructions the reader made, whose names are in d->synth; one with a huge type or
 * comment between) or is 255 bytes long or longer: a row in instruction order (hs_opcode finds
 * it by binary search). */
typedef struct {
  uint32_t instr;
  int32_t gte_index; /* HS_SYNTH_GTE: the tuple index it reads (typed from the tuple by hs_resolve) */
  hs_slice opcode;
} hs_instr_wide;
#define HS_CALLS_MAX 65535u
#define HS_COMP_MAX ((1u << 28) - 1)
/* Instructions XLA's parser creates that the text has no statement for: a compact
 * get-tuple-element operand ("%t#1": one per distinct tuple and index path in a computation,
 * named "t_1" as XLA names it) and a nested operand ("f32[4] negate(f32[4] %x)", named
 * "negate.anon"). Their names and opcodes live in d->synth; their line is where they are
 * written. */
enum { HS_SYNTH_NONE = 0, HS_SYNTH_GTE, HS_SYNTH_NESTED };

/* What only HLO instructions carry (HLO documents only; read it through hs_hlo_of, which
 * gathers it from the two arrays below). */
typedef struct {
  hs_slice kind;             /* kind=kLoop (fusion) */
  hs_slice custom_call_target;
  hs_slice op_name;          /* metadata op_name (without quotes) */
  hs_slice backend_config;   /* raw value (JSON object or quoted string) */
  /* where it comes from, as its metadata says: source_file="F" source_line=N (older XLA), or
     stack_frame_id=N (a row of its module's StackFrames table, doc->frames) */
  uint32_t source_file;      /* F: its index in doc->source_files + 1; 0 when none */
  uint32_t source_ref;       /* with a source_file: its source_line (0: none); without: its
                                stack_frame_id (0: none) */
} hs_hlo_instr;

/* How it is kept: doc->hlo, indexed like doc->instrs, holds what most instructions have in 8
 * bytes: the op_name as an offset from the instruction's name (it is on the same line) and a
 * length, and the source packed in 32 bits (HS_HLO_SRC_*). What few have (a fusion's kind, a
 * custom-call's target, a backend_config: under a tenth of the instructions of CPU dumps and a
 * third of TPU ones) is a row of doc->hlo_rare; an op_name or a source that does not fit (an
 * op_name 64 KB from its name or longer, a frame id of 2^30 or more, a file past the 1023rd
 * or a line past 2^20) is a row of doc->hlo_wide. Both are in instruction order, found by
 * binary search (hs_hlo_of). 20 bytes an instruction, then 8: the HLO side was a fifth of the
 * parse's memory on short-line modules (issue 37's peak). */
typedef struct {
  uint16_t op_at;  /* op_name.off - name.off; HS_HLO_WIDE: in doc->hlo_wide */
  uint16_t op_len; /* op_name.len */
  uint32_t src;    /* HS_HLO_RARE | its source: 0 none; a frame id (< 2^30); or HS_HLO_SRC_FILE | file << 20 | line */
} hs_hlo_row;
#define HS_HLO_WIDE 0xFFFFu
#define HS_HLO_RARE 0x80000000u
#define HS_HLO_SRC_FILE 0x40000000u
typedef struct {
  uint32_t instr;
  hs_slice kind, custom_call_target, backend_config;
} hs_hlo_rare;
typedef struct {
  uint32_t instr;
  hs_slice op_name;
  uint32_t source_file, source_ref;
} hs_hlo_wide;

/* HLO only: one row of a module's frame tables (doc->frames, in text order), which the
 * instructions' stack_frame_id refer to. (The files that metadata names with source_file= are
 * doc->source_files, each once, in the order first named.) */
enum { HS_FRAMES_FILE_NAMES = 0, HS_FRAMES_FUNCTION_NAMES, HS_FRAMES_FILE_LOCATIONS, HS_FRAMES_STACK_FRAMES };
typedef struct {
  uint32_t module;
  uint32_t id;   /* the row's number */
  uint8_t table; /* HS_FRAMES_* */
  union {
    hs_slice name; /* FileNames, FunctionNames: the string (without quotes) */
    struct {
      uint32_t file, function, line; /* file_name_id, function_name_id, line (0: none) */
    } loc;                            /* FileLocations */
    struct {
      uint32_t location, parent; /* file_location_id, parent_frame_id (0: none) */
    } frame;                     /* StackFrames */
  };
} hs_frame_row;

/* What only jaxpr equations carry: doc->jaxpr_eqns, indexed like doc->instrs (jaxpr documents
 * only; read it through hs_jaxpr_of). */
typedef struct {
  hs_type *in0; /* the first operand's type (a typed literal's, or its variable's); NULL when unknown */
} hs_jaxpr_eqn;

/* What only jaxpr bodies carry: doc->jaxpr_bodies, indexed like doc->comps (jaxpr documents
 * only). The nesting path of a body: its parent's path, then via ("pjit/remat2"); at the top: ""
 * for the top level jaxpr, a hoisted body's own name when no equation read refers to it. */
typedef struct {
  int32_t holder;   /* the equation whose parameters hold it (the first in jax's print order), -1
                       when none or when that equation was cut off */
  int32_t parent;   /* that equation's body (the computation), -1 at the top */
  hs_slice via;     /* that equation's primitive (len 0 at the top) */
  uint32_t within;  /* equations read inside its braces, those of the bodies written in it included */
  uint8_t hoisted;  /* "let NAME = { lambda ... } in": the computation's name is NAME */
} hs_jaxpr_body;

/* An operand: what it names. Its name stays with the reader (4 bytes, not 12: operands were a
 * seventh of the parse's memory on short-line modules). */
typedef struct {
  int32_t target;   /* resolved instruction index, -1 if unresolved (a compact get-tuple-element
                       operand "%t#1" targets the instruction made for it) */
} hs_operand;

typedef struct {
  hs_slice name;  /* called computation name, without '%' */
  int32_t target; /* resolved computation index, -1 if unresolved */
  uint32_t instr; /* the calling instruction */
  uint8_t attr;   /* HS_CALL_* */
  uint8_t by_fusion, by_call; /* the calling instruction is a fusion, a call (for the roles) */
} hs_call;
enum { HS_CALL_CALLS = 0, HS_CALL_TO_APPLY, HS_CALL_BODY, HS_CALL_CONDITION, HS_CALL_BRANCH, HS_CALL_OTHER };

typedef struct {
  hs_slice name;
  uint32_t line;
  uint32_t off; /* where its line starts */
  uint32_t first_comp, comp_count;
  uint32_t first_call; /* its calls are [first_call, the next module's first_call) */
  int32_t entry;
  uint8_t resolved; /* hs_resolve_module ran (the HLO reader resolves each module as it ends) */
} hs_module;

/* The growable arrays of a document, one line each: X(element type, field). Gives the fields
 * `type *field; uint32_t n_field, cap_field;` of struct hs_doc, and hs_doc_free frees them all.
 * The warnings are in the document's hs_diag (below). */
#define HS_DOC_ARRAYS(X)         \
  X(hs_line, lines)              \
  X(uint32_t, line_offs)         \
  X(hs_comp, comps)              \
  X(hs_instr, instrs)            \
  X(hs_instr_wide, instr_wide)   \
  X(hs_hlo_row, hlo)             \
  X(hs_hlo_rare, hlo_rare)       \
  X(hs_hlo_wide, hlo_wide)       \
  X(hs_frame_row, frames)        \
  X(hs_slice, source_files)      \
  X(hs_jaxpr_eqn, jaxpr_eqns)    \
  X(hs_jaxpr_body, jaxpr_bodies) \
  X(hs_operand, operands)        \
  X(hs_call, calls)              \
  X(hs_module, modules)          \
  X(char, synth)

/* Names that resolve to nothing, counted as they are resolved (operands by the HLO reader as
 * each computation closes, calls by module; hs_resolve warns once for the whole document):
 * the line of the first unresolved operand and call. */
typedef struct {
  uint32_t ops, calls, first_op_line, first_call_line;
} hs_unresolved;

struct hs_doc {
  const char *text;
  size_t len;
  hs_format format;
  hs_arena arena;

#define HS_DA_(type, field) \
  type *field;              \
  uint32_t n_##field, cap_##field;
  HS_DOC_ARRAYS(HS_DA_)
#undef HS_DA_
  /* diagnostics: one hs_diag, also reachable by its field names (d->warnings, ...) */
  union {
    hs_diag diag;
    struct {
      HS_DIAG_FIELDS
    };
  };

  /* where the last line recorded starts (as its reader gave it: hs_doc_add_line) */
  uint32_t line_last_off;
  /* HLO only: frame tables (their rows: doc->frames) */
  uint32_t stack_frames;    /* entries in StackFrames tables */
  uint32_t frame_refs;      /* instructions with stack_frame_id= */
  uint32_t frame_refs_dangling;
  uint32_t first_dangling_line;
  /* hs_resolve counted every instruction's fusions into its computation (hs_comp.fusions) */
  bool fusions_counted;
  hs_unresolved unresolved;
};

/* How many operands instruction in (of d->instrs) has. */
static inline uint32_t hs_op_count(const hs_doc *d, const hs_instr *in) {
  size_t i = (size_t)(in - d->instrs);
  return (i + 1 < d->n_instrs ? d->instrs[i + 1].op_first : d->n_operands) - in->op_first;
}
/* How many computations instruction in (of d->instrs) calls (at most HS_CALLS_MAX): d->calls
 * from *first (calls are added in instruction order: found by binary search). */
uint32_t hs_calls_of_slow(const hs_doc *d, const hs_instr *in, uint32_t *first);
static inline uint32_t hs_calls_of(const hs_doc *d, const hs_instr *in, uint32_t *first) {
  if (!in->has_calls) {
    *first = 0;
    return 0;
  }
  return hs_calls_of_slow(d, in, first);
}
static inline uint32_t hs_call_count(const hs_doc *d, const hs_instr *in) {
  uint32_t first;
  return hs_calls_of(d, in, &first);
}
/* An instruction's opcode (a slice of the text, or of d->synth for one the reader made). */
hs_slice hs_opcode_wide(const hs_doc *d, const hs_instr *in);
static inline hs_slice hs_opcode(const hs_doc *d, const hs_instr *in) {
  if ((in->opc & 0xFFu) != HS_OPC_WIDE) return (hs_slice){in->name.off + (in->opc >> 8), in->opc & 0xFFu};
  return hs_opcode_wide(d, in);
}
/* Where the opcode ends: its operand list's "(" when the text has one there. */
static inline size_t hs_opcode_end(const hs_doc *d, const hs_instr *in) {
  hs_slice o = hs_opcode(d, in);
  return (size_t)o.off + o.len;
}
/* A made get-tuple-element's tuple index (HS_SYNTH_GTE), -1 for any other instruction. */
int32_t hs_synth_gte_index(const hs_doc *d, const hs_instr *in);

/* The HLO-only part of an instruction (all empty for other formats). */
hs_hlo_instr hs_hlo_of(const hs_doc *d, const hs_instr *in);
/* What fits the row (doc.h's hs_hlo_row): an op_name 1 to 65,534 bytes after its instruction's
 * name and under 64 KB long; a source file:line with file 1..1023 and line under 2^20, or a
 * frame id under 2^30 (file 0). The source as the row packs it. */
static inline bool hs_hlo_op_fits(hs_slice op_name, uint32_t name_off) {
  return op_name.off >= name_off && op_name.off - name_off - 1u < HS_HLO_WIDE - 1u && op_name.len < 0x10000u;
}
static inline bool hs_hlo_src_fits(uint32_t file, uint32_t ref) { return file ? file < 0x400u && ref < 0x100000u : ref < HS_HLO_SRC_FILE; }
static inline uint32_t hs_hlo_src(uint32_t file, uint32_t ref) { return file ? HS_HLO_SRC_FILE | file << 20 | ref : ref; }
/* Set instruction idx's op_name, its source (file: source_file's index + 1, or 0 with ref a
 * stack_frame_id), or both: the HLO reader, as it reads them. False when memory ran out. */
bool hs_hlo_set_op_name(hs_doc *d, uint32_t idx, hs_slice op_name);
bool hs_hlo_set_source(hs_doc *d, uint32_t idx, uint32_t file, uint32_t ref);
bool hs_hlo_set_meta_slow(hs_doc *d, uint32_t idx, hs_slice op_name, uint32_t file, uint32_t ref);
/* both: inline where they fit the row (nearly every instruction, once each in the parse) */
static inline bool hs_hlo_set_meta(hs_doc *d, uint32_t idx, hs_slice op_name, uint32_t file, uint32_t ref) {
  uint32_t name_off = d->instrs[idx].name.off;
  if (op_name.off && hs_hlo_op_fits(op_name, name_off) && hs_hlo_src_fits(file, ref)) {
    hs_hlo_row *w = &d->hlo[idx];
    w->op_at = (uint16_t)(op_name.off - name_off);
    w->op_len = (uint16_t)op_name.len;
    w->src = (w->src & HS_HLO_RARE) | hs_hlo_src(file, ref);
    return true;
  }
  return hs_hlo_set_meta_slow(d, idx, op_name, file, ref);
}
/* Instruction idx's row of doc->hlo_rare, made the first time (instructions in order); NULL
 * when memory ran out. */
hs_hlo_rare *hs_hlo_rare_of(hs_doc *d, uint32_t idx);

/* The jaxpr-only part of an equation (NULL for other formats). */
static inline const hs_jaxpr_eqn *hs_jaxpr_of(const hs_doc *d, const hs_instr *in) {
  size_t i = (size_t)(in - d->instrs);
  return i < d->n_jaxpr_eqns ? &d->jaxpr_eqns[i] : NULL;
}

/* The document formats' readers (HS_FORMAT_MAP names them; hloscope.h says what they return):
 * the detector of each and the parser, which fills a fresh document whose text, len and format
 * are set. The other formats' detectors are their own models' (memory.h, dumpset.h, llvm.h). */
int hs_detect_hlo(const char *text, size_t len, size_t first);
int hs_parse_hlo_text(hs_doc *d, hs_error *err);
/* The HLO reader on the text in two parts, the second from offset s (the start of an "HloModule"
 * line), as hs_parse_hlo_text does with a long text (hlo/hlo_split.c): 1 when it cannot be read
 * so (d untouched), else what hs_parse_hlo_text returns. */
int hs_parse_hlo_text_at(hs_doc *d, hs_error *err, size_t s);
int hs_detect_stablehlo(const char *text, size_t len, size_t first);
int hs_parse_stablehlo_text(hs_doc *d, hs_error *err);
int hs_detect_jaxpr(const char *text, size_t len, size_t first);
int hs_parse_jaxpr_text(hs_doc *d, hs_error *err);

/* The document format the text reads as (HLO, StableHLO or jaxpr, as hs_detect_format decides
 * among those three, which come first in HS_FORMAT_MAP), or HS_FORMAT_UNKNOWN; *score (may be
 * NULL) the winner's confidence (0..100). */
hs_format hs_doc_detect(const char *text, size_t len, int *score);
/* Reads the text as format f (a document format), resolves it and finishes its warnings: what
 * hs_parse does once it has detected the format. NULL with err filled (may be NULL). */
hs_doc *hs_parse_as(const char *text, size_t len, hs_format f, hs_error *err);

/* A fresh document of the text, to be read as format f (hs_doc_free frees it); NULL when memory
 * ran out. */
hs_doc *hs_doc_new(const char *text, size_t len, hs_format f);
/* For tests: hs_parse_as on an HLO text read in two parts, the second from offset s; NULL with
 * *split_done false when it cannot be read so (NULL with it true: err says why it failed). */
hs_doc *hs_parse_hlo_split(const char *text, size_t len, size_t s, bool *split_done, hs_error *err);

/* ---- document builders, shared by every text reader (doc.c) -------------------------------
 * Each returns the new index (or the new element), or -1 / NULL when memory runs out. */
/* A module starting at `line` (1-based), whose first byte is at off; name may be empty (an
 * anonymous module). */
int32_t hs_doc_open_module(hs_doc *d, hs_slice name, uint32_t line, uint32_t off);
/* A computation of `module` whose header is at `line`: no instructions yet, no root, the
 * module's comp_count grows by one. */
int32_t hs_doc_open_comp(hs_doc *d, uint32_t module, hs_slice name, uint32_t line, uint8_t role);
/* Ends computation `comp`: it holds the instructions added since it was opened. end_line 0
 * leaves it open-ended (a dump cut inside it). */
void hs_doc_close_comp(hs_doc *d, uint32_t comp, uint32_t end_line);
/* An instruction of computation `comp` (zeroed; operands and calls start at the ends of those
 * arrays). The pointer is valid until the next push. Inline: the readers' hottest builder. */
hs_instr *hs_doc_add_instr_wide(hs_doc *d, hs_instr *in, hs_slice opcode);
static inline hs_instr *hs_doc_add_instr(hs_doc *d, hs_slice name, hs_slice opcode, uint32_t line, uint32_t comp) {
  bool ok;
  hs_instr *in = HS_VEC_PUSH(d->instrs, d->n_instrs, d->cap_instrs, ok);
  if (!ok) return NULL;
  memset(in, 0, sizeof *in);
  in->name = name;
  in->line = line;
  in->comp = comp;
  in->op_first = d->n_operands;
  /* the opcode after its name on the text's line (any but the instructions the reader made) */
  if (opcode.off - name.off < (1u << 24) && opcode.off >= name.off && opcode.len < HS_OPC_WIDE && opcode.off <= d->len) {
    in->opc = (opcode.off - name.off) << 8 | opcode.len;
    return in;
  }
  return hs_doc_add_instr_wide(d, in, opcode);
}
/* A line of the text (its first byte's offset, HS_LINE_* kind, ref); false when memory runs
 * out. Inline: called for every line. Lines are recorded in order, each starting after the
 * previous one's line break. */
static inline bool hs_doc_add_line(hs_doc *d, uint32_t off, uint8_t kind, uint32_t ref) {
  bool ok;
  if (ref > HS_LINE_REF_MAX) return false;
  hs_line *l = HS_VEC_PUSH(d->lines, d->n_lines, d->cap_lines, ok);
  if (!ok) return false;
  l->kind = kind;
  l->ref = ref;
  d->line_last_off = off;
  return true;
}
/* Where line li (0-based, of d->lines) starts: its first byte's offset. The first call indexes
 * every line recorded (d->line_offs, from the line breaks of the text: one memchr pass), later
 * ones read the index (grown when lines were recorded since). */
uint32_t hs_line_off_slow(const hs_doc *d, uint32_t li);
static inline uint32_t hs_line_off(const hs_doc *d, uint32_t li) {
  return li < d->n_line_offs ? d->line_offs[li] : hs_line_off_slow(d, li);
}
/* Where the line of computation c's header starts: found from its name when the name is in the
 * text (without making the index), else hs_line_off. */
uint32_t hs_comp_line_off(const hs_doc *d, const hs_comp *c);
/* Records a warning (past HS_MAX_WARNINGS_PER_CODE per code, only counts it); out of memory
 * sets d->nomem. */
void hs_doc_warn(hs_doc *d, int code, uint32_t line, uint32_t col, const char *fmt, ...);
/* The one wording for "the text ends inside this line, which was skipped". */
void hs_warn_truncated_line(hs_doc *d, uint32_t line);
/* hs_set_error at an offset of the document's text. */
#define hs_doc_error(err, code, d, offset, ...) hs_set_error((err), (code), (d)->text, (d)->len, (offset), __VA_ARGS__)
/* The bytes of a document's slice. A slice points into the text, or (offsets past the text's
 * end) into d->synth: the names and opcodes of instructions the reader made that the text does
 * not spell out (a compact get-tuple-element "%t#1", a nested operand "f32[4] negate(%x)"). */
static inline const char *hs_sp(const hs_doc *d, hs_slice s) {
  return s.off > d->len ? d->synth + (s.off - d->len - 1) : d->text + s.off;
}
static inline bool hs_slice_eq(const hs_doc *d, hs_slice a, hs_slice b) {
  return a.len == b.len && memcmp(hs_sp(d, a), hs_sp(d, b), a.len) == 0;
}
static inline bool hs_slice_is(const hs_doc *d, hs_slice a, const char *lit) {
  size_t n = strlen(lit);
  if (a.len != n) return false;
  /* a loop over a literal's few bytes: unrolled in place (the wasm backend calls memcmp) */
  const char *s = hs_sp(d, a);
  for (size_t i = 0; i < n; i++)
    if (s[i] != lit[i]) return false;
  return true;
}
/* True when the slice is not in the text (made by the reader: see hs_sp). */
static inline bool hs_slice_synth(const hs_doc *d, hs_slice s) { return s.off > d->len; }

/* A document slice as a JSON string (invalid UTF-8 replaced). */
json_t *hs_json_slice(const hs_doc *d, hs_slice s);
/* Sets "params" and "results" on into: the entry computation's parameter and result types in HLO
 * form ("c64[8]"), read from its header line (signature.c); null when not read. */
void hs_doc_signature_json(const hs_doc *d, json_t *into);

/* ---- name tables (names.c): open addressing over slices (a module's computation names: unique per module).
 * Entries are indexes from `base` on; a slot holds the index (low bits) and hash bits (high). */
typedef struct {
  uint32_t *slots; /* (hash & ~(cap-1)) | (index-base+1); 0 = empty */
  uint32_t cap;    /* power of two */
  uint32_t count;
  uint32_t base;   /* the smallest index the table holds */
  uint32_t dup;    /* set by a put whose name was there already: that entry's index + 1 (the caller clears it) */
} hs_names;
/* For `expected` entries with indexes from base on (the table stays small and dense). */
bool hs_names_init_base(hs_names *m, uint32_t expected, uint32_t base);
void hs_names_free(hs_names *m);
/* get_key(ctx, idx) gives the slice of entry idx. Returns idx or -1. */
typedef hs_slice (*hs_key_fn)(const hs_doc *d, uint32_t idx);
/* Adds entry idx (>= base) unless its name is there already (the first definition wins);
 * false when memory runs out. */
bool hs_names_put(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx);
/* Asks the cache for the slot a hash probes first (batched lookups hide the miss). */
static inline void hs_names_prefetch(const hs_names *m, uint32_t hash) {
  if (m->cap) hs_prefetch(&m->slots[hash & (m->cap - 1)]);
}
/* The same with the name's hs_hash_name computed by the caller: inline where the first empty
 * slot comes before any slot with the same hash bits (nearly always); the rest (a table to
 * grow, a possible duplicate) in hs_names_put_slow. */
bool hs_names_put_slow(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx, uint32_t hash);
static inline bool hs_names_put_hashed(hs_names *m, const hs_doc *d, hs_key_fn key, uint32_t idx, uint32_t hash) {
  if (idx < m->base || m->count + 1 > m->cap - m->cap / 4 || idx - m->base + 1 > m->cap - 1)
    return hs_names_put_slow(m, d, key, idx, hash);
  uint32_t mask = m->cap - 1, tag = hash & ~mask, pos = hash & mask;
  for (uint32_t v; (v = m->slots[pos]) != 0; pos = (pos + 1) & mask)
    if ((v & ~mask) == tag) return hs_names_put_slow(m, d, key, idx, hash);
  m->slots[pos] = tag | (idx - m->base + 1);
  m->count++;
  return true;
}
static inline int32_t hs_names_get_hashed(const hs_names *m, const hs_doc *d, hs_key_fn key, const char *s, size_t n, uint32_t hash) {
  if (!m->cap) return -1;
  uint32_t mask = m->cap - 1, tag = hash & ~mask;
  for (uint32_t pos = hash & mask, v; (v = m->slots[pos]) != 0; pos = (pos + 1) & mask) {
    if ((v & ~mask) != tag) continue;
    uint32_t e = (v & mask) - 1 + m->base;
    hs_slice o = key(d, e);
    if (o.len == n && hs_bytes_eq(hs_sp(d, o), s, n)) return (int32_t)e;
  }
  return -1;
}

/* The column of a name on its line (a warning's), 0 when the line is not recorded yet. */
uint32_t hs_doc_name_col(const hs_doc *d, uint32_t line, hs_slice name);
/* True when computation comp runs inside a kernel (a fused body, or a combiner it calls). */
bool hs_comp_in_fused(const hs_doc *d, uint32_t comp);
/* Appends HLO document b to a (doc_append.c): b read from a's text starting at an "HloModule"
 * line, its lines numbered after a's (b's first a->n_lines lines are not its own), a read from
 * the text before it with its modules resolved. b's rows are moved (emptied), its arena taken;
 * the caller frees b. 0, HS_E_NOMEM, or HS_E_TOO_LARGE where the two do not fit one document's
 * records (a read as one is then needed). */
int hs_doc_append_hlo(hs_doc *a, hs_doc *b);
/* The same in three steps, the rows' moves shared by threads: begin (a's arrays grown for b's
 * rows; what b's indexes move by), then hs_doc_append_rows for each part of `parts` (each
 * moves that share of every array's rows; the parts in any order or at once), then end (the
 * counts, the warnings, the arena). A begin that fails leaves a as it was (its arrays' room aside). */
typedef struct {
  uint32_t lines0, comps, instrs, operands, calls, modules, synth;
  uint32_t *files; /* b's source file j is a's files[j] - 1 */
} hs_append;
int hs_doc_append_begin(hs_doc *a, hs_doc *b, hs_append *ap);
void hs_doc_append_rows(hs_doc *a, hs_doc *b, const hs_append *ap, uint32_t part, uint32_t parts);
int hs_doc_append_end(hs_doc *a, hs_doc *b, hs_append *ap);
/* Nothing more will be added to d (b above, read): the pages of its arrays past their rows, made
 * ahead of the reader, and its shapes' lookup table given back. */
void hs_doc_seal(hs_doc *d);
/* Resolves call names within each module and assigns computation roles (the HLO reader has
 * resolved the operands, computation by computation). */
int hs_resolve(hs_doc *d);
/* Resolves module m now, while its text is in the cache (a reader calls it when the module has
 * ended: nothing is added to it after); hs_resolve then leaves it. */
int hs_resolve_module(hs_doc *d, uint32_t m);

#endif
