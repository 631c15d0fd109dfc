/* Dump folders (dumpset.c reads the names and the steps' HLO, dumpset_json.c writes the modules,
 * pipelines, steps and a compare of two sets, archive.c walks the archives a folder travels in):
 * the file kinds, the set's structs, what the three use. Private to the folder. */
#ifndef HS_DUMPSET_H
#define HS_DUMPSET_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>

#include "analyses/analyses.h"

/* The backend before after_optimizations: "cpu", "sm_8.0_gpu", "gfx90a_gpu", "gpu". */
#define BACKEND_PRE "(cpu|gpu|(?:sm_\\d+\\.\\d+[a-z]?|gfx[0-9a-z]+|[a-z0-9]+)_gpu)"

/* ---- file kinds ---------------------------------------------------------------------------- */
/* X(ID, json name, tail pattern (anchored at the end of the name after the module prefix), backend hint) */
#define DS_KIND_MAP(X)                                                                                      \
  X(STEP, "step", NULL, NULL)                                                                               \
  X(BEFORE_OPT, "before_optimizations", "^before_optimizations\\.txt$", NULL)                               \
  X(BUFFER_ASSIGNMENT, "buffer_assignment", "^(?:" BACKEND_PRE "_)?after_optimizations-buffer-assignment\\.txt$", NULL) \
  X(BUFFER_VALUES, "buffer_assignment_values", "^(?:" BACKEND_PRE "_)?after_optimizations-buffer-assignment-values\\.txt$", NULL) \
  X(LIVE_RANGE, "live_range", "^(?:" BACKEND_PRE "_)?after_optimizations-live-range\\.txt$", NULL) \
  X(MEMORY_REPORT, "memory_usage_report", "^(?:" BACKEND_PRE "_)?after_optimizations-memory-usage-report\\.txt$", NULL) \
  X(AFTER_OPT_BEFORE_BA, "after_optimizations_before_buffer_assignment",                                   \
    "^after_optimizations_before_buffer_assignment\\.txt$", "tpu")                                         \
  X(AFTER_OPT_AFTER_BA, "after_optimizations_after_buffer_assignment",                                     \
    "^after_optimizations_after_buffer_assignment\\.txt$", "tpu")                                          \
  X(AFTER_OPT, "after_optimizations", "^(?:" BACKEND_PRE "_)?after_optimizations\\.txt$", NULL)                       \
  X(AFTER_CODEGEN, "after_codegen", "^after_codegen\\.txt$", "tpu")                                         \
  X(EXECUTION_OPTIONS, "execution_options", "^execution_options\\.txt$", NULL)                              \
  X(MODULE_CONFIG, "hlo_module_config", "^hlo_module_config\\.txt$", NULL)                                  \
  X(TPU_COMP_ENV, "tpu_comp_env", "^tpu_comp_env\\.txt$", "tpu")                                            \
  X(FLAGFILE, "flagfile", "^flagfile$", NULL)                                                               \
  X(DEBUG_OPTIONS, "debug_options", "^debug_options$", NULL)                                                \
  X(TARGET_ARGUMENTS, "target_arguments", "^target_arguments\\.txt$", "tpu")                                \
  X(SDC_METADATA, "sdc_metadata", "^sdc_metadata\\.txt$", "tpu")                                            \
  X(TRANSFER_STATS, "transfer_stats", "^transfer_stats\\.txt$", "tpu")                                      \
  X(AUTOTUNE, "autotune_results", "^autotune_results\\.pbtxt$", "gpu")                                      \
  X(TARGET_CONFIG, "target_config", "^(?:gpu_)?target_config\\.pbtxt$", "gpu")                             \
  X(THUNK_SEQUENCE, "thunk_sequence", "^thunk_sequence\\.txt$", "gpu")                                      \
  X(PTX, "ptx", "(?:^|\\.)ptx$", "gpu")                                                                     \
  X(LLVM_IR_NO_OPT, "llvm_ir_no_opt", "(?:^|\\.)ir-no-opt(?:-noconst)?(?:\\.part_\\d+)?\\.ll$", NULL)                        \
  X(LLVM_IR_WITH_OPT, "llvm_ir_with_opt", "(?:^|\\.)ir-with-opt(?:-noconst)?(?:\\.part_\\d+)?\\.ll$", NULL)                  \
  X(KERNEL_MLIR, "kernel_mlir", "_kernel_module-(?:pre-optimization|post-optimization|post-lowering)\\.mlir$", "cpu") \
  X(OBJECT_FILE, "object_file", "(?:^|\\.)obj-file\\..+\\.o$", NULL)                                                \
  X(TRITON_IR, "triton_ir", "\\.ttir$", "gpu")                                                              \
  X(KERNEL_HLO, "kernel_hlo", "\\.hlo$", NULL)                                                              \
  X(HLO_PROTO, "hlo_proto", "\\.(?:hlo\\.pb|pb)$", NULL)                                                    \
  X(PROTO_TEXT, "proto_text", "\\.pbtxt$", NULL)                                                            \
  X(GRAPH, "graph", "\\.(?:dot|html|svg|url)$", NULL)                                                       \
  X(MLIR, "mlir", "\\.mlir$", NULL)                                                                         \
  X(TEXT, "text", "\\.txt$", NULL)                                                                          \
  X(MODULE_FOLDER, "module_folder", NULL, NULL)                                                             \
  X(MODULE_MLIR, "module_mlir", NULL, NULL)                                                                 \
  X(COMPILE_OPTIONS, "compile_options", NULL, NULL)                                                         \
  X(TOPOLOGY, "topology", NULL, NULL)                                                                       \
  X(UNKNOWN, "unknown", NULL, NULL)

enum {
#define DS_X_(id, name, pat, hint) DS_##id,
  DS_KIND_MAP(DS_X_)
#undef DS_X_
      DS_NKINDS
};
static const char *const kind_names[] = {
#define DS_X_(id, name, pat, hint) name,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};
static const char *const kind_hints[] = {
#define DS_X_(id, name, pat, hint) hint,
    DS_KIND_MAP(DS_X_)
#undef DS_X_
};

/* A debug_options or compile_options file larger than this is named, not read. */
#define ENV_FILE_MAX (4u << 20)

/* ---- the set ---------------------------------------------------------------------------- */
typedef struct {
  char *op;
  uint32_t n;
} ds_opcount;

typedef struct {
  bool has;
  uint32_t computations, instructions, fusion_ops, fusion_computations;
  ds_opcount *ops; /* sorted by op */
  uint32_t n_ops;
  char **fusions; /* names of top-level fusion instructions, sorted */
  uint32_t n_fusions;
  char *error; /* the file was given but did not parse */
} ds_counts;

typedef struct {
  char *name;
  int kind;
  long module_id;      /* -1 when the name has no module_NNNN prefix */
  char *rest;          /* the name after "module_NNNN." */
  char *name_guess;    /* module name read off a fixed suffix (or a step), else NULL */
  char *segment;       /* "cl_804429027", or NULL */
  char *backend_pre;   /* "cpu", "sm_8.0_gpu" before after_optimizations, or NULL */
  long step;           /* step number, -1 */
  char *pipeline, *after, *before;
  ds_counts counts;
  uint32_t line;       /* listing line, 0 for files */
  uint32_t seq;        /* the order it was added in: ties of the name sort (hs_dumpset_json) */
  bool gzipped;        /* its bytes were given gzip-compressed: named, not counted */
  char *text;          /* an after_optimizations file's bytes, kept for hs_dumpset_optimized_hlo;
                          a debug_options or compile_options file's, for hs_dumpset_environment_json */
  size_t text_len;
} ds_file;

struct hs_dumpset {
  ds_file *files;
  uint32_t n, cap;
  char *label;
  hs_diag diag; /* at most 200 warnings, none summarised; messages in arena */
  hs_arena arena;
  pcre2_code *re_module, *re_step, *re_kind[DS_NKINDS];
  char ending[DS_NKINDS][64]; /* the literal every match of a kind's pattern ends with */
  uint8_t ending_len[DS_NKINDS];
  pcre2_match_data *md;
  int junk_lines, listing_lines;
};

static inline char *dup_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* The format registry's detect function for a pasted listing of dump-folder names (dumpset.c). */
int hs_detect_pass_listing(const char *text, size_t len, size_t first);
#endif
