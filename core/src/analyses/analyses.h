/* analyses: what the core concludes over one document: the fusion census, the big intermediate,
 * its carriers and the HBM estimate (analysis.c), the x-ray of a pair (xray.c), the pipeline
 * stage (stage.c), the padding table (layouts.c), the decisions the framework made
 * (decisions.c) and the result JSON of each (results.c and the files
 * themselves). Not installed; only core/src includes it. Uses doc/, types/ and base/ only.
 */
#ifndef HS_ANALYSES_H
#define HS_ANALYSES_H

#include "doc/doc.h"

/* Analysis helpers shared by spills and xray. */
typedef struct {
  int32_t big;          /* instruction index of the big intermediate, -1 if none */
  const hs_type *big_type; /* its (array) type */
  int32_t kept;         /* when big < 0: largest value kept inside fused bodies, -1 if none */
  const hs_type *kept_type;
  int32_t big_elem;     /* big is element big_elem of a tuple-valued result; -1: the result itself */
  uint32_t consumers;   /* kernels consuming big */
  uint64_t hbm_read, hbm_written;
  uint8_t needs;        /* HS_NEEDS_*: what the text lacks for kernel-level claims (0: nothing) */
} hs_spill_info;
enum { HS_NEEDS_NOTHING = 0, HS_NEEDS_OPTIMIZED, HS_NEEDS_ENTRY };
void hs_spill_analyse(const hs_doc *d, hs_spill_info *out);
bool hs_instr_is_alias(const hs_doc *d, const hs_instr *in);
/* The tuple index a get-tuple-element reads (index=N, or the compact "%t#N"); -1 when none. */
int32_t hs_gte_index(const hs_doc *d, const hs_instr *in);
/* The tuple elements of a top-level result no instruction reads (a custom call's workspace, an
 * unused output), in instruction order: {"name","opcode","computation","line","index","type","bytes","workspace"}. */
json_t *hs_unread_json(const hs_doc *d);
bool hs_line_carries(const hs_doc *d, uint32_t line_index, const hs_type *t, int *mem_space);
/* Lines that carry the big intermediate and count (the rule in DESIGN.md): marks[line] = 1 for
 * the instruction computing it, the kernel writing it and each kernel reading it. Returns the count. */
uint32_t hs_big_carriers(const hs_doc *d, const hs_spill_info *si, uint8_t *marks);

/* Pipeline stage of an HLO text, and whether it is whole (stage.c). */
enum { HS_STAGE_NONE = 0, HS_STAGE_BEFORE_OPT, HS_STAGE_AFTER_SPMD, HS_STAGE_PASS_STEP, HS_STAGE_AFTER_OPT };
int hs_doc_stage(const hs_doc *d);
const char *hs_stage_name(int stage); /* "before_optimizations", ...; NULL for HS_STAGE_NONE */
bool hs_doc_has_entry(const hs_doc *d);
bool hs_module_has_entry(const hs_doc *d, uint32_t module);

bool hs_module_scheduled(const hs_doc *d, uint32_t module); /* its header says is_scheduled=true */

/* Async pairs (overlap.c): each *-start with its *-done, one transfer. */
typedef struct {
  int32_t start, done; /* instruction indices; done -1 when the start has none */
  int32_t calls;       /* async-start: the async computation it runs; -1 otherwise */
  char kind[32];       /* "all-gather", "copy", "send", "reduce-scatter" (an async-start's ROOT) */
  uint64_t bytes;      /* what the transfer delivers: the done's result (a send: its operand) */
  uint8_t sync;        /* the start's backend config says is_sync */
  uint8_t scheduled;   /* its module is scheduled: text order is run order */
} hs_async_pair;
/* Every start in text order with its done; malloc'd (NULL when none or on OOM), *n set. */
hs_async_pair *hs_async_pairs(const hs_doc *d, uint32_t *n);
bool hs_instr_is_async(const hs_doc *d, const hs_instr *in); /* a start, update or done, send, recv */
bool hs_instr_is_done(const hs_doc *d, const hs_instr *in);  /* an async done: "<op>-done" */
/* An op that launches work on the device: not parameter, constant, get-tuple-element, bitcast,
 * tuple, the other bookkeeping ops, or an async start/update/done. */
bool hs_instr_launches_work(const hs_doc *d, const hs_instr *in);
/* The kernels between the pair's start and done: names, [] when sync, null when unscheduled. */
json_t *hs_overlapped_json(const hs_doc *d, const hs_async_pair *p);
/* One transfer as `hloscope overlap` lists it; trips: its computation's trip count (0: unknown). */
json_t *hs_async_pair_json(const hs_doc *d, const hs_async_pair *p, uint64_t trips);
/* Per computation: the known_trip_count of the while whose body it is, 0 unknown; malloc'd, NULL on OOM. */
uint64_t *hs_comp_trip_counts(const hs_doc *d);
/* "the all-gather is in flight while X runs" for one pair; 0 when it has no done. */
size_t hs_overlap_sentence(const hs_doc *d, const hs_async_pair *p, char *buf, size_t cap);
/* The transfers in a sentence: how many, paired or not, and the first overlap the data shows. */
void hs_overlap_explain(const hs_doc *d, const hs_async_pair *ps, uint32_t n, char *buf, size_t cap);

/* null, or {"line","inside","entry"} when the text was cut (stage.c) */
json_t *hs_partial_json(const hs_doc *d);
/* Are a and b (either may be NULL) the same program? {"same_program": true|false|null, "evidence":
 * [sentences]} from their module names and entry signatures (pair.c). */
json_t *hs_pair_json(const hs_doc *a, const hs_doc *b);
/* The largest array inside a value (the value itself for arrays; NULL for tokens). */
const hs_type *hs_largest_array(const hs_type *t);
/* The spills sentence of a document (results.c), also the x-ray's explanation. */
void hs_spills_explain(const hs_doc *d, const hs_spill_info *s, char *buf, size_t cap);
/* The compile diff (diff.c) as an object, for what joins it with another model (profile/
 * diff_time.c gives it the time of each side from a profile): the result's keys with "time":
 * null and the verdict, and the matching of instructions. `passes` (may be NULL) is the two
 * dump folders' passes compared. false on allocation failure or a NULL side. */
typedef struct {
  json_t *result;
  int32_t *a_to_b, *b_to_a; /* per instruction of A (B): its partner on the other side, -1 */
} hs_diff_built;
bool hs_diff_build(const hs_doc *a, const hs_doc *b, const hs_diff_extra *extra, hs_diff_built *out);

void hs_diff_built_free(hs_diff_built *x);
#endif
