/* hloscope: read what the XLA compiler did.
 *
 * The only public header of the core library. Everything the CLI, the wasm boundary and the
 * tests use is declared here. Conventions:
 *   - input is always (data, len); text need not be NUL-terminated and may hold any bytes;
 *   - constructors return NULL on failure and fill an `hs_error` the caller may pass as NULL;
 *   - other calls return 0 or a negative HS_E* code;
 *   - a document borrows the text it was parsed from: the text must outlive the document;
 *   - results are JSON text (UTF-8, no trailing newline) allocated with malloc: free with hs_free.
 *     The native CLI and the wasm build print the same bytes for the same input.
 *   - no global state: documents are independent and may be used from different threads.
 */
#ifndef HLOSCOPE_H
#define HLOSCOPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_VERSION "0.1.0"

/* Error codes, generated from one list (name, value, default message). */
#define HS_ERROR_MAP(X)                                                          \
  X(HS_OK, 0, "no error")                                                        \
  X(HS_E_NOMEM, -1, "out of memory")                                             \
  X(HS_E_FORMAT, -2, "not a dump hloscope can read")                             \
  X(HS_E_SYNTAX, -3, "syntax error")                                             \
  X(HS_E_EMPTY, -4, "empty input")                                               \
  X(HS_E_TOO_LARGE, -5, "input too large")                                       \
  X(HS_E_ARG, -6, "invalid argument")                                            \
  X(HS_E_UNSUPPORTED, -7, "not supported for this format")

typedef enum {
#define HS_X_(name, value, msg) name = value,
  HS_ERROR_MAP(HS_X_)
#undef HS_X_
} hs_code;

/* The name of a code ("HS_E_SYNTAX") and its default message; static strings. */
const char *hs_code_name(int code);
const char *hs_code_message(int code);

/* Filled by constructors on failure. line and col are 1-based (0 when unknown); offset is the
 * byte offset into the text; message says what was expected. */
typedef struct hs_error {
  int code;
  uint32_t line;
  uint32_t col;
  size_t offset;
  char message[256];
} hs_error;

typedef enum { HS_FORMAT_UNKNOWN = 0, HS_FORMAT_HLO, HS_FORMAT_STABLEHLO, HS_FORMAT_JAXPR } hs_format;

/* "hlo", "stablehlo", "jaxpr" or "unknown"; static strings. */
const char *hs_format_name(hs_format f);

/* Guesses the format from the first meaningful line of the text. */
hs_format hs_detect_format(const char *text, size_t len);

typedef struct hs_doc hs_doc;

/* Parses a dump in one pass over the bytes (format auto-detected). Returns NULL on error and
 * fills `err` (may be NULL). A truncated or partly garbled dump gives a document whose
 * warnings say what was skipped. The document borrows `text`, which must outlive it; free
 * with hs_doc_free. Inputs above 4 GiB are refused (HS_E_TOO_LARGE). */
hs_doc *hs_parse(const char *text, size_t len, hs_error *err);

/* Frees the document and everything it owns (one arena). NULL is allowed. */
void hs_doc_free(hs_doc *doc);

hs_format hs_doc_format(const hs_doc *doc);
size_t hs_doc_line_count(const hs_doc *doc);
size_t hs_doc_instruction_count(const hs_doc *doc);
size_t hs_doc_computation_count(const hs_doc *doc);
size_t hs_doc_warning_count(const hs_doc *doc);

/* The fusion census in numbers (what the JSON's top-level keys hold). */
typedef struct hs_census {
  size_t fusion_computations; /* distinct fused bodies named by calls= of fusion instructions */
  size_t fusion_ops;          /* fusion instructions, top-level and nested */
  size_t fusion_ops_nested;   /* fusion instructions that sit inside fused computations */
} hs_census;

/* Fills `out`; returns 0, or HS_E_UNSUPPORTED for formats without fusions (StableHLO). */
int hs_fusion_census(const hs_doc *doc, hs_census *out);

/* Result documents as JSON text; NULL on allocation failure. `len` (may be NULL) receives the
 * length in bytes. The keys are documented in wasm/hloscope.d.ts and README.md. */
char *hs_summary_json(const hs_doc *doc, size_t *len);
char *hs_fusions_json(const hs_doc *doc, size_t *len);
char *hs_spills_json(const hs_doc *doc, size_t *len);
char *hs_computations_json(const hs_doc *doc, size_t *len);

/* The x-ray of a pair: `left` is what XLA received (StableHLO, or any format), `right` what it
 * decided (optimized HLO). Both documents are only read. `left` may be NULL: the x-ray of a lone
 * optimized HLO (an empty "left" array, lines_in 0). NULL when right is NULL or memory runs out. */
char *hs_xray_json(const hs_doc *left, const hs_doc *right, size_t *len);

/* 1 when the text holds nothing but spaces, tabs and newlines (an x-ray's missing left side). */
int hs_is_blank(const char *text, size_t len);

/* ---- profiles (jax.profiler.trace output) ------------------------------------------------ */
typedef struct hs_profile hs_profile;

/* Reads an XSpace protobuf (.xplane.pb) or a trace-event JSON text (.trace.json, already
 * gunzipped: a gzip stream is refused with HS_E_FORMAT); detects which from the first byte.
 * Returns NULL on error and fills `err` (may be NULL): code and byte offset, and line/col for
 * JSON. A truncated or partly garbled protobuf gives a profile whose warnings say what was
 * skipped. The profile copies what it keeps (it does not borrow `data`, which may be freed at
 * once); free with hs_profile_free. Inputs above 4 GiB are refused (HS_E_TOO_LARGE). */
hs_profile *hs_profile_parse(const void *data, size_t len, hs_error *err);

/* Frees the profile and everything it owns. NULL is allowed. */
void hs_profile_free(hs_profile *p);

/* The profile as JSON (keys in README.md and wasm/hloscope.d.ts `Profile`): planes and lines
 * with event counts, which events were counted, programs with runs and envelope, per-op
 * occurrences / total / self / per-run time in picoseconds, the HLO modules the file embeds,
 * warnings. Malloc'd: free with hs_free; NULL on allocation failure. */
char *hs_profile_json(const hs_profile *p, size_t *len);

/* ---- LLVM IR (what XLA writes: *.ir-no-opt.ll, *.ir-with-opt.ll, GPU *.ll) -------------- */
typedef struct hs_llvm hs_llvm;

/* Reads textual LLVM IR: functions, parameters and their facts, blocks, loops with constant
 * trip counts, loads, stores, vector types, opcodes, calls. Not a full LLVM parser. Returns
 * NULL and fills `err` for text that is not LLVM IR (HS_E_FORMAT, saying what it saw) or empty
 * (HS_E_EMPTY). A text cut inside a function gives the functions before the cut plus an
 * HS_W_TRUNCATED warning. Borrows `text` (it must outlive the model); free with hs_llvm_free. */
hs_llvm *hs_llvm_parse(const char *text, size_t len, hs_error *err);
void hs_llvm_free(hs_llvm *m);
size_t hs_llvm_function_count(const hs_llvm *m); /* defined functions */

/* The model as JSON (keys in README.md and wasm/hloscope.d.ts `Llvm`). `hlo` (may be NULL) is
 * the optimized HLO of the same module: each kernel is joined to the HLO instruction it is
 * named after, and "dropped" says per kernel what the HLO knew that the LLVM IR does not. */
char *hs_llvm_json(const hs_llvm *m, const hs_doc *hlo, size_t *len);

/* An error as JSON: {"code","line","column","offset","message"}. */
char *hs_error_json(const hs_error *err, size_t *len);

/* Frees a string returned by this library. */
void hs_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* HLOSCOPE_H */
