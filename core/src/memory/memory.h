/* The memory readers' shared pieces (memory.c: out-of-memory messages and the entry point;
 * buffers.c: buffer assignments and memory-usage reports). Internal. */
#ifndef HS_MEMORY_H
#define HS_MEMORY_H
#include <jansson.h>

#include "doc/doc.h"

/* A result with every fixed key present (null or empty) in the documented order:
 * kind, backend, memory_space, requested_bytes, used_bytes, capacity_bytes, exceeded_bytes,
 * allocations, totals, explanation, warnings. */
json_t *hs_mem_result(const char *kind);
/* The warnings of one read (no limits), set into the result's "warnings" by hs_mem_finish. */
typedef struct {
  hs_diag diag;
  hs_arena arena;
} hs_mem_diag;
/* A warning at the byte `off` of `t` (its line and column). */
void hs_mem_warn(hs_mem_diag *w, const char *t, size_t len, size_t off, int code, const char *fmt, ...);
/* Sets res["warnings"] from w, frees w, and serialises res (NULL on allocation failure). */
char *hs_mem_finish(json_t *res, hs_mem_diag *w, size_t *out_len);
/* An allocation entry with the fixed keys (rank, bytes, shape, label, op_name, source, kind). */
json_t *hs_mem_alloc(int rank, uint64_t bytes);
/* "2.00 GiB" */
void hs_mem_human(uint64_t b, char *buf, size_t cap);
/* Sorts allocations by bytes (largest first, stable) and numbers them 1..n as "rank". */
void hs_mem_rank(json_t *allocations);

/* hs_memory_file_json with a sentence to add as an HS_W_JOIN_SKIPPED warning (NULL: none): the
 * join the caller could not make (api/memory_join.c, which parses the HLO with hs_parse). */
char *hs_mem_read(const char *text, size_t len, const char *name, const hs_doc *module, const char *join_skipped,
                  hs_error *err, size_t *out_len);

/* The format registry's detect function for memory texts (OOM messages, buffer assignments,
 * usage reports): 0, or a confidence 1..100. */
int hs_detect_memory(const char *text, size_t len, size_t first);

/* 1 buffer assignment (or its -values part), 2 memory-usage report, 0 neither. */
int hs_buffers_detect(const char *t, size_t len);
/* Fills `res` (made by hs_mem_result) from a buffer assignment or usage report, warning into w. */
void hs_buffers_read(const char *t, size_t len, int which, json_t *res, hs_mem_diag *w);
#endif
