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

/* Error codes, generated from one list (name, value, default message). HS_E_FREED to
 * HS_E_CANCELLED are raised by the JS side only (wasm/hloscope.mjs, the notebook); they are
 * listed here so that one registry (hs_registry_json) names every code JS can see. */
#define HS_ERROR_MAP(X)                                                          \
  X(HS_OK, 0, "no error")                                                        \
  X(HS_E_NOMEM, -1, "out of memory")                                             \
  X(HS_E_FORMAT, -2, "not a dump hloscope can read")                             \
  X(HS_E_SYNTAX, -3, "syntax error")                                             \
  X(HS_E_EMPTY, -4, "empty input")                                               \
  X(HS_E_TOO_LARGE, -5, "input too large")                                       \
  X(HS_E_ARG, -6, "invalid argument")                                            \
  X(HS_E_UNSUPPORTED, -7, "not supported for this format")                     \
  X(HS_E_READ, -12, "the input could not be read (a file changed or gone)")     \
  X(HS_E_FREED, -8, "this object was freed")                                     \
  X(HS_E_NOT_LOADED, -9, "the WebAssembly core is not loaded: call `await load()` first") \
  X(HS_E_NOTFOUND, -10, "no such item")                                          \
  X(HS_E_NOWASM, -11, "the WebAssembly core is missing from this build")         \
  X(HS_E_CANCELLED, -13, "cancelled: the work was ended before it finished")

typedef enum {
#define HS_X_(name, value, msg) name = value,
  HS_ERROR_MAP(HS_X_)
#undef HS_X_
} hs_code;

/* Warning codes, one list (name, value): every code a result's "warnings" may carry, from every
 * model (documents, profiles, LLVM IR, memory texts, dump folders, decisions). */
#define HS_WARNING_MAP(X)            \
  X(HS_W_FRAME_TABLES_MISSING, 1)    \
  X(HS_W_FRAME_REF_DANGLING, 2)      \
  X(HS_W_TRUNCATED, 3)               \
  X(HS_W_SKIPPED_LINE, 4)            \
  X(HS_W_UNRESOLVED_OPERAND, 5)      \
  X(HS_W_UNRESOLVED_CALL, 6)         \
  X(HS_W_UNKNOWN_TYPE, 7)            \
  X(HS_W_PARTIAL_FORMAT, 8)          \
  X(HS_W_PROFILE_SKIPPED, 9)         \
  X(HS_W_PROFILE_NO_DEVICE, 10)      \
  X(HS_W_PROFILE_RUNS_GUESSED, 11)   \
  X(HS_W_XLA_REFUSES, 12)            \
  X(HS_W_DUMP_JUNK_LINE, 13)         \
  X(HS_W_DUMP_UNKNOWN_NAME, 14)      \
  X(HS_W_DUMP_STEP_UNREADABLE, 15)   \
  X(HS_W_JOIN_SKIPPED, 16)         \
  X(HS_W_ARCHIVE_TRUNCATED, 17)      \
  X(HS_W_ARCHIVE_UNREAD, 18)

enum {
#define HS_WX_(name, value) name = value,
  HS_WARNING_MAP(HS_WX_)
#undef HS_WX_
};

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

/* The formats hloscope recognises, one line each: X(ID, name, label, detect_fn, parse_fn).
 * A new format is one line here plus its reader in core/src (the wasm hands this list to
 * wasm/hloscope.mjs, see hs_registry_json). The public expansion gives hs_format
 * (HS_FORMAT_<ID>), hs_format_name and hs_format_label; each reader's folder header declares its
 * two functions (doc/doc.h for the document formats, which come first):
 *   int detect_fn(const char *text, size_t len, size_t first): 0 = not this format, else a
 *     confidence 1..100 (100 = certain); `first` is the offset of the first byte that is not
 *     blank, a // comment or a byte order mark. hs_detect_format picks the highest (the first
 *     listed on a tie) and stops at the first 100, so a detector that must scan far into the
 *     text (not just its head) runs only when no earlier format is certain; keep it cheap.
 *   int parse_fn(hs_doc *d, hs_error *err): fills a fresh document; 0 or a negative HS_E_*.
 *     A format whose reader builds another model (not lines and computations) names
 *     hs_parse_not_document: hs_parse then fails with HS_E_FORMAT and says so.
 * UNKNOWN must stay first (value 0); its detect_fn, hs_detect_none, never matches. */
#define HS_FORMAT_MAP(X)                                                                          \
  X(UNKNOWN, "unknown", "unknown format", hs_detect_none, hs_parse_not_document)                 \
  X(HLO, "hlo", "HLO", hs_detect_hlo, hs_parse_hlo_text)                                         \
  X(STABLEHLO, "stablehlo", "StableHLO", hs_detect_stablehlo, hs_parse_stablehlo_text)           \
  X(JAXPR, "jaxpr", "jaxpr", hs_detect_jaxpr, hs_parse_jaxpr_text)                               \
  X(MEMORY, "memory", "XLA memory text", hs_detect_memory, hs_parse_not_document)               \
  X(PASS_LISTING, "pass-listing", "dump-folder listing", hs_detect_pass_listing, hs_parse_not_document) \
  X(LLVM, "llvm", "LLVM IR", hs_detect_llvm, hs_parse_not_document)

typedef enum {
#define HS_FX_(id, name, label, detect_fn, parse_fn) HS_FORMAT_##id,
  HS_FORMAT_MAP(HS_FX_)
#undef HS_FX_
  HS_FORMAT_COUNT
} hs_format;

/* The format's name ("hlo", "stablehlo", "jaxpr", "unknown") and label ("StableHLO"); static
 * strings ("unknown" / "unknown format" for a value outside the list). */
const char *hs_format_name(hs_format f);
const char *hs_format_label(hs_format f);

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
/* The same with at most `rows` entries in "fusions" (the first, in printed order) and
 * "fusions_total", how many there are: a page showing a few rows of a huge module skips
 * building the rest. */
char *hs_fusions_json_rows(const hs_doc *doc, size_t rows, size_t *len);
char *hs_spills_json(const hs_doc *doc, size_t *len);
char *hs_computations_json(const hs_doc *doc, size_t *len);
/* Decisions the framework or compiler made, sorted by line: upcast, downcast, broadcast, remat,
 * transpose, layout_copy; over a jaxpr, StableHLO or HLO (keys in README.md "decisions"). */
char *hs_decisions_json(const hs_doc *doc, size_t *len);
/* Async transfers of an HLO module: {"scheduled", "transfers":[{"kind","start","done",
 * "computation","bytes","sync","overlapped": [names] | null,"calls","line","done_line",
 * "trip_count","bytes_per_run"}], "explanation"}: each *-start paired with its *-done, and the kernels scheduled
 * between them (null when the module is not scheduled, [] when the start is is_sync). */
char *hs_overlap_json(const hs_doc *doc, size_t *len);

/* The result kinds over one document, one line each: X(ID, name, json_fn). A new analysis over
 * hs_doc adds one line here (and its json_fn above); the wasm and JS read the list from
 * hs_registry_json. Gives hs_kind (HS_KIND_<ID>). */
#define HS_KIND_MAP(X)                              \
  X(SUMMARY, "summary", hs_summary_json)            \
  X(FUSIONS, "fusions", hs_fusions_json)            \
  X(SPILLS, "spills", hs_spills_json)               \
  X(COMPUTATIONS, "computations", hs_computations_json) \
  X(LAYOUTS, "layouts", hs_layouts_json) \
  X(DECISIONS, "decisions", hs_decisions_json) \
  X(OVERLAP, "overlap", hs_overlap_json)

typedef enum {
#define HS_KX_(id, name, json_fn) HS_KIND_##id,
  HS_KIND_MAP(HS_KX_)
#undef HS_KX_
  HS_KIND_COUNT
} hs_kind;

/* "summary", ...; NULL for a value outside the list. */
const char *hs_kind_name(int kind);
/* The result of that kind (what its json_fn gives); NULL for an unknown kind or on OOM. */
char *hs_kind_json(const hs_doc *doc, int kind, size_t *len);

/* The registry as JSON, for the wasm boundary and tools: {"version", "formats":[{"id","name",
 * "label","document"}], "kinds":[{"id","name"}], "commands":[{"name","mode","kind","usage",
 * "help","inputs":[{"name","flag","accepts","role","optional","repeated","blank_ok"}]}],
 * "codes":[{"name","value","message"}], "warnings":[{"name","value"}]}. Malloc'd: free with hs_free; NULL on allocation failure. */
char *hs_registry_json(size_t *len);

/* The x-ray of a pair: `left` is what XLA received (StableHLO, or any format), `right` what it
 * decided (optimized HLO). Both documents are only read. `left` may be NULL: the x-ray of a lone
 * optimized HLO (an empty "left" array, lines_in 0). NULL when right is NULL or memory runs out. */
char *hs_xray_json(const hs_doc *left, const hs_doc *right, size_t *len);

/* The compile diff of two optimized HLO modules (keys in README.md "diff" and wasm/hloscope.d.ts
 * `Diff`): each side's census, HBM estimate and whether it was cut; how the instructions were
 * matched (by structure, op_name, source line, name: never by order); every fusion op of each
 * side in exactly one `fusions` entry (same, added, removed, merged, split, changed, with the ops
 * that moved and their source lines); big values newly materialized in HBM or gone; custom and
 * library calls whose counts changed; the module config; a verdict. Both documents are only
 * read. NULL on allocation failure or a NULL side. */
char *hs_diff_json(const hs_doc *a, const hs_doc *b, size_t *len);
/* What a diff can say beside the two modules, each part optional (NULL): `passes`, the JSON of
 * the two dump folders' passes compared (hs_dumpset_compare_json's text), becomes the result's
 * `passes`; `profile_a`/`profile_b`, a profile of each side's runs, give its `time`; `env_a`/
 * `env_b`, a JSON object per side of what is known of its compile and the text does not carry,
 * become `environment` entries: hs_dumpset_environment_json's text for a side read from a dump
 * folder (the XLA flags set, num_partitions, ...) and `host_env_a`/`host_env_b`, what a host
 * knows ({"jax": "0.4.38", "cost_analysis.flops": 1.2e6}: strings or numbers). A text that is
 * not such an object is said so in the verdict. */
typedef struct hs_profile hs_profile;
typedef struct hs_dumpset hs_dumpset;
typedef struct hs_diff_extra {
  const char *passes;
  size_t passes_len;
  const hs_profile *profile_a, *profile_b;
  const char *env_a, *env_b, *host_env_a, *host_env_b;
  size_t env_a_len, env_b_len, host_env_a_len, host_env_b_len;
} hs_diff_extra;
char *hs_diff_json_ex(const hs_doc *a, const hs_doc *b, const hs_diff_extra *x, size_t *len);
/* The CI check over a diff result (hs_diff_json's text): `list` is comma-separated conditions,
 * `new-spill` (B materializes a big value in HBM that A keeps on chip or does not have),
 * `fusion-count` (B has more fusion ops than A), `traffic+P%` (B's HBM estimate exceeds A's by
 * more than P percent), `time+P%` (needs profiles). Returns how many hold (0: none), with `why`
 * saying which; -1 for a list it cannot read, -2 for a condition the inputs cannot decide (why
 * says which). */
int hs_diff_fail_on(const char *diff, size_t len, const char *list, char *why, size_t cap);

/* The commands every host offers (the CLI, the JS API, Python, the widget): one row each, the
 * core's one list of its product surface. A row names the command, the mode flag that selects
 * it (`passes --compare`) or NULL, the result kind it prints (the JSON's name: "summary",
 * "xray", "timeline", ...), its usage and help as the CLI prints them (help may hold newlines),
 * and its inputs in order. An input is positional (flag NULL) or given after a flag ("--hlo");
 * `accepts` says what it reads, as format names separated by commas ("hlo,stablehlo,jaxpr",
 * "xplane,trace_json", "memory", "llvm", "dump": a dump folder, its archive or a listing, "type":
 * an HLO type, "text": a word such as a program name); `role` is the input's part in the command
 * ("input", "left", "right", "hlo", "stablehlo", "program", "a", "b"). */
typedef struct hs_command_input {
  const char *name;    /* as the usage prints it: "FILE", "LEFT", "DUMP" */
  const char *flag;    /* NULL: positional */
  const char *accepts; /* formats or kinds of input, comma-separated */
  const char *role;
  uint8_t optional;    /* may be left out */
  uint8_t repeated;    /* may be given more than once (`passes PATH...`) */
  uint8_t blank_ok;    /* a blank text is accepted (the x-ray's missing left side) */
} hs_command_input;

typedef struct hs_command {
  const char *name;
  const char *mode;    /* a flag that selects this row among the command's rows, or NULL */
  const char *kind;    /* the result it prints, or NULL (version) */
  const char *usage;   /* "summary FILE" */
  const char *help;    /* one or more lines, without the usage */
  const hs_command_input *inputs;
  uint8_t n_inputs;
} hs_command;

/* The command table (rows in the order the usage prints them), its size, and the row for a
 * name and mode (mode NULL: the row without one); static data; NULL past the end or when no
 * row matches. */
size_t hs_command_count(void);
const hs_command *hs_command_at(size_t i);
const hs_command *hs_command_find(const char *name, const char *mode);

/* 1 when the text holds nothing but spaces, tabs and newlines (an x-ray's missing left side). */
int hs_is_blank(const char *text, size_t len);

/* ---- profiles (jax.profiler.trace output) ------------------------------------------------ */

/* Reads an XSpace protobuf (.xplane.pb) or a trace-event JSON text (.trace.json, already
 * gunzipped: a gzip stream is refused with HS_E_FORMAT); detects which from the first byte.
 * Returns NULL on error and fills `err` (may be NULL): code and byte offset, and line/col for
 * JSON. A truncated or partly garbled protobuf gives a profile whose warnings say what was
 * skipped. The profile copies what it keeps (it does not borrow `data`, which may be freed at
 * once); free with hs_profile_free. Inputs above 4 GiB are refused (HS_E_TOO_LARGE). */
hs_profile *hs_profile_parse(const void *data, size_t len, hs_error *err);

/* Several profiles read as one: the files a multi-process or multi-host job wrote (one
 * .xplane.pb per process), each given with its name (a path keeps its base name; NULL allowed),
 * which names its host in results (the XSpace's hostnames, else the name before ".xplane.pb")
 * and the file in an error ("name: message" when there are several). Programs are joined across
 * files by their program id; every device plane of every file is a device. Same ownership and
 * errors as hs_profile_parse; all files together must stay under 4 GiB. */
typedef struct hs_profile_input {
  const char *name;
  const void *data;
  size_t len;
} hs_profile_input;
hs_profile *hs_profile_parse_files(const hs_profile_input *inputs, size_t n, hs_error *err);

/* A profile read by range, for files too big to hold whole (the page's worker reads a 500 MB
 * .xplane.pb by slices of its File): an XSpace is walked a window (8 MiB) at a time and only
 * what the profile keeps is held; anything else (trace JSON) is read whole and parsed as
 * hs_profile_parse parses. read(ctx, off, dst, len) copies the bytes [off, off + len) into dst
 * and returns 0, nonzero when it cannot (the parse then fails with HS_E_READ). progress (may
 * be NULL) is told the stage and how far it has come: "scanning" and "reading", the bytes
 * walked of 2 * `size` (a line is walked twice; reported every 1/128 or so), then "counting",
 * of 700 (7 phases). `name` as in hs_profile_input (may be NULL); `window`,
 * the bytes read at a time (0: 8 MiB; a longer field is read whole). */
typedef struct hs_profile_source {
  const char *name;
  uint64_t size;
  size_t window;
  int (*read)(void *ctx, uint64_t off, void *dst, size_t len);
  void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total);
  void *ctx;
} hs_profile_source;
hs_profile *hs_profile_parse_source(const hs_profile_source *src, hs_error *err);

/* Frees the profile and everything it owns. NULL is allowed. */
void hs_profile_free(hs_profile *p);

/* The profile as JSON (keys in README.md and wasm/hloscope.d.ts `Profile`): planes and lines
 * with event counts, which events were counted, programs with runs and envelope, per-op
 * occurrences / total / self / per-run time in picoseconds, the HLO modules the file embeds,
 * warnings. Malloc'd: free with hs_free; NULL on allocation failure. */
char *hs_profile_json(const hs_profile *p, size_t *len);

/* The timeline of a profile (keys in README.md and wasm/hloscope.d.ts `Timeline`): programs
 * keyed by program id with runs and the per-run envelope; per op its time per run, share of
 * the envelope, kind and who wrote it (from the HloModuleProtos the profile embeds, or the
 * dump); async pairs with in-flight, exposed and hidden time; a reading in one sentence.
 * Options (the struct may be NULL): `hlo`, an optimized HLO dump, gives each op its line;
 * `stablehlo`, what the program asked for, tells kernels the compiler substituted; `program`
 * (a name or an id) keeps one program. Malloc'd: free with hs_free; NULL on allocation failure. */
typedef struct hs_timeline_options {
  const hs_doc *hlo;
  const hs_doc *stablehlo;
  const char *program;
} hs_timeline_options;
char *hs_profile_timeline_json(const hs_profile *p, const hs_timeline_options *opt, size_t *len);

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

/* ---- dump folders (--xla_dump_to=DIR, --xla_dump_hlo_pass_re=.*) ---------------------------- */
/* Whether the core reads a dump file's bytes (a host walking a folder or an archive passes the
 * bytes of these names and only the names of the rest): a module's HLO texts (`module_*.txt`,
 * gzipped or not, but for the buffer-assignment, memory-report and live-range texts, which
 * `hloscope memory` reads on its own), its `.debug_options` and `compile_options.textproto`.
 * `name` may be a path. */
int hs_dumpset_wants_bytes(const char *name, size_t len);

/* ---- archives of a dump folder (dumpset/archive.c): .tar, .tar.gz/.tgz, .zip, over bytes ------ */
/* What the bytes are, by their first bytes (never by a name): gzip (1f 8b), zip (a local header
 * or an empty zip's end record), tar (ustar magic at 257), or none. Every host sniffs with this. */
enum { HS_ARCHIVE_NONE = 0, HS_ARCHIVE_GZIP = 1, HS_ARCHIVE_TAR = 2, HS_ARCHIVE_ZIP = 3 };
int hs_archive_kind(const void *bytes, size_t len);
const char *hs_archive_kind_name(int kind); /* "none", "gzip", "tar", "zip" */

/* Inflating is the host's (zlib natively, DecompressionStream in the page). `method`:
 * HS_INFLATE_GZIP, a gzip stream (members concatenated: DecompressionStream 'gzip', zlib window
 * 15 + 32); HS_INFLATE_RAW, zip's method 8 (DecompressionStream 'deflate-raw', zlib -15).
 * `size_hint`: the size the zip says, or 0. Returns 0 with *out (the host's: it must stay valid
 * until the walk returns; the core never frees it), a negative code (HS_E_FORMAT: the stream is
 * damaged; HS_E_NOMEM), or HS_INFLATE_LATER: not now (an async host), ask again later. */
#define HS_INFLATE_GZIP 1
#define HS_INFLATE_RAW 8
#define HS_INFLATE_LATER 1
typedef int (*hs_inflate_fn)(void *ctx, int method, const unsigned char *in, size_t n, size_t size_hint,
                             const unsigned char **out, size_t *out_len);
/* What a walk reports to: each file (folders left out) with its bytes when the core reads them
 * (hs_dumpset_wants_bytes; a gzipped member gunzipped), else data NULL; each warning
 * (HS_W_ARCHIVE_*). A nonzero return from `file` stops the walk with that code. */
typedef struct hs_archive_host {
  hs_inflate_fn inflate;
  int (*file)(void *ctx, const char *name, size_t name_len, const unsigned char *data, size_t len);
  void (*warn)(void *ctx, int code, const char *message);
  void *ctx;
} hs_archive_host;
/* Walks a tar (ustar, GNU, pax), a zip or a gzip of either. 0; HS_INFLATE_LATER when the host put
 * an inflation off (the walk went on to ask for every other one it needs, and what it reported
 * must be discarded: call again once the host has them); or a negative code with `err` saying
 * what is wrong and at which byte (err->offset; HS_E_FORMAT: corrupt, HS_E_UNSUPPORTED: zip64). */
int hs_archive_walk(const void *bytes, size_t len, const hs_archive_host *host, hs_error *err);
/* Adds every file of an archive to a dump set, with the walk's warnings, or nothing: returns 0,
 * HS_INFLATE_LATER (nothing added; call again when the host has the streams it was asked for),
 * or a negative code with `err` filled (nothing added). */
int hs_dumpset_add_archive(hs_dumpset *s, const void *bytes, size_t len, hs_inflate_fn inflate, void *ctx, hs_error *err);

/* An empty set of dump-folder file names. NULL on allocation failure. Free with hs_dumpset_free. */
hs_dumpset *hs_dumpset_new(void);
void hs_dumpset_free(hs_dumpset *s);
/* A label for the set (the folder's or archive's name), shown in results. */
int hs_dumpset_set_label(hs_dumpset *s, const char *label, size_t len);
/* Adds one file: its name (a path keeps only its base name) and, when known, its bytes (NULL:
 * the name only). The bytes are read at once (a pass step's HLO is parsed and counted) and not
 * kept. Returns 0 or HS_E_NOMEM / HS_E_ARG. */
int hs_dumpset_add(hs_dumpset *s, const char *name, size_t name_len, const char *data, size_t len);
/* Adds the names of a pasted `ls` listing (one or more names a line; `ls -l` and `ls -R` lines
 * understood); lines with no name XLA writes are reported as warnings. */
int hs_dumpset_add_listing(hs_dumpset *s, const char *text, size_t len);
uint32_t hs_dumpset_file_count(const hs_dumpset *s);
/* The folder as JSON (keys in README.md and wasm/hloscope.d.ts `Passes`), its files sorted by name
 * (then in the order added), so the JSON is the same whatever order a host walked the folder in;
 * the set's files are left in that order. NULL with `err` filled
 * (HS_E_EMPTY: no names; HS_E_FORMAT: no name XLA writes) or on allocation failure (err->code 0). */
char *hs_dumpset_json(hs_dumpset *s, hs_error *err, size_t *len);
/* Two folders compared pass by pass (`PassesCompare`): each pass's origin (a, b, both) and, per
 * pipeline, the passes only in A, only in B, in both. */
char *hs_dumpset_compare_json(hs_dumpset *a, hs_dumpset *b, hs_error *err, size_t *len);
/* The optimized HLO of the set's modules: each *after_optimizations.txt given with its bytes (that
 * parsed as HLO), in file-name order (by module id), as one text of several modules, the way
 * `hloscope diff` reads a dump folder. Malloc'd (free with hs_free); NULL with *len 0 when the set
 * holds none or memory runs out; *n_modules (may be NULL) says how many files it joined. */
char *hs_dumpset_optimized_hlo(const hs_dumpset *s, size_t *len, uint32_t *n_modules);
/* What the set's modules were compiled with, as a JSON object of strings: the flags each
 * module's <name>.debug_options lists, as "--xla_flag": "value" (xla_dump_* left out: where and
 * what to dump, no change to the compiled code), and compile_options.textproto's
 * executable_build_options scalars as "compile_options.num_partitions": "1"; a key with several
 * values (modules differ, a repeated field) keeps each once, comma-joined. "{}" when the set holds
 * neither file (XLA before 0.5 writes none). Malloc'd; NULL on allocation failure. */
char *hs_dumpset_environment_json(const hs_dumpset *s, size_t *len);

/* ---- which files of a dump folder go together (dumpset/pairs.c), by their names alone ------- */
/* `names`: a folder's file names, one a line (paths allowed: base names are matched). A host
 * lists the folder, asks here, and reads only the file named back. Each returns a line index
 * (0-based, counting blank lines) into `names`, -1 when there is none, or HS_E_NOMEM. */
/* The optimized HLO beside a dump's memory text: for module_X.<...>after_optimizations-buffer-
 * assignment.txt (-buffer-assignment-values.txt, -memory-usage-report.txt), the name
 * module_X.<...>after_optimizations.txt; -1 also when `report` is none of those. */
long hs_dumpset_sibling_hlo(const char *names, size_t len, const char *report, size_t report_len);
/* The optimized HLO of a .ll (`ll`: its name or path): of the names ending in
 * after_optimizations.txt, those holding the "module_NNNN." the .ll's name holds (all of them,
 * when it holds none); the first in byte order. *count (may be NULL): how many matched (a host
 * that must not guess says so when several do). */
long hs_dumpset_hlo_for_ll(const char *names, size_t len, const char *ll, size_t ll_len, uint32_t *count);
/* The three levels of one module for the levels view, as JSON: of the modules with .ll files
 * (*.ir-no-opt.ll, *.ir-with-opt.ll, by their "module_NNNN."), the first by name that has its
 * optimized HLO and both LLVM levels, else its HLO, else both levels, else the first:
 * {"module": "module_0001." | null, "hlo": line | null, "no_opt": [lines], "with_opt": [lines]}
 * (each level's parts in byte order of their names); `null` when no name is a .ll of either
 * level. Malloc'd; NULL on allocation failure. */
char *hs_dumpset_levels_json(const char *names, size_t len, size_t *out_len);

/* ---- layouts and memory (layout.c, memory.c, buffers.c) ----------------------------------- */
/* One HLO type with its layout, e.g. "bf16[1024,1024]{1,0:T(8,128)(2,1)S(1)}", in words and
 * bytes: {"type","shape","element","dims","layout","minor_to_major","tiles","dim_level_types",
 * "tail_padding_alignment","index_type","pointer_type","element_size_bits","memory_space",
 * "split_configs","physical_shape","dynamic_metadata_bytes","logical_bytes","padded_bytes",
 * "padding_bytes","words"} (a tuple: {"type","elements","logical_bytes","padded_bytes",
 * "padding_bytes","words"}). NULL with `err` filled (HS_E_SYNTAX, column) when it does not read. */
char *hs_layout_json(const char *type, size_t len, hs_error *err, size_t *out_len);

/* A module's padding table: every value computed outside fused bodies with its layout's
 * padded and logical bytes, largest padding first: {"values","logical_bytes","padded_bytes",
 * "padding_bytes","rows":[{"name","opcode","line",
 * "type","memory_space","logical_bytes","padded_bytes","padding_bytes","words"}],"unread",
 * "warnings"} ("unread" counts result types whose layout did not read). */
char *hs_layouts_json(const hs_doc *doc, size_t *len);

/* Reads an XLA out-of-memory message, a *-buffer-assignment.txt or a *-memory-usage-report.txt
 * (which one is detected) into numbers: {"kind","backend","memory_space","requested_bytes",
 * "used_bytes","capacity_bytes","exceeded_bytes","allocations":[{"rank","bytes","shape","label",
 * "op_name","source","kind",...}],"totals":{...},"explanation","warnings",...} (README.md).
 * NULL with `err` filled: HS_E_FORMAT ("not an XLA memory message") for other text. */
char *hs_memory_json(const char *text, size_t len, hs_error *err, size_t *out_len);

/* The same, joined to the module's optimized HLO (`module` may be NULL): each allocation and
 * value named after an instruction gains "line" and "opcode" (and the instruction's op_name when
 * the text gave none); totals.values_joined counts the values found. */
char *hs_memory_join_json(const char *text, size_t len, const hs_doc *module, hs_error *err, size_t *out_len);

/* The same, with the file's name (may be NULL): a buffer assignment or usage report whose text
 * does not say its backend takes it from XLA's dump name ("...sm_8.0_gpu_after_optimizations-
 * buffer-assignment.txt" is gpu, "...cpu_after_optimizations-..." cpu); null when neither says. */
char *hs_memory_file_json(const char *text, size_t len, const char *name, const hs_doc *module, hs_error *err,
                          size_t *out_len);

/* The same, with the optimized HLO to join given as text (`hlo` NULL or blank: no join), as every
 * host calls it (the CLI, the page, Python through the CLI): an HLO that does not parse is not
 * joined, and the report is read all the same, with the warning HS_W_JOIN_SKIPPED saying where the
 * HLO failed ("the optimized HLO given to join does not parse at line L, column C (CODE: message):
 * ..."). */
char *hs_memory_read_json(const char *text, size_t len, const char *name, const char *hlo, size_t hlo_len, hs_error *err,
                          size_t *out_len);

/* ---- the report (`hloscope report`: one HTML file with every answer, offline) ------------------ */

/* A report: the inputs given (files, a job's profile files, dump folders), read into an overview
 * (JSON and Markdown), the notebook cells a report page opens with, and the files it carries.
 * Inputs are copied (a dump set is taken). Free with hs_report_free. */
typedef struct hs_report hs_report;
hs_report *hs_report_new(void);
void hs_report_free(hs_report *r);
int hs_report_set_title(hs_report *r, const char *title);
/* One file: a text (HLO, StableHLO, jaxpr, a memory message or report, LLVM IR) or one profile
 * file (.xplane.pb, .trace.json, already gunzipped); `name` may be a path (its base name is kept). */
int hs_report_add_file(hs_report *r, const char *name, const char *data, size_t len);
/* Several files read as one profile (a job's processes, a log folder's newest run). */
int hs_report_add_profile(hs_report *r, const char *label, const hs_profile_input *files, size_t n);
/* A dump folder as read (the report takes `s`, also on failure): its pipelines and flags, and its
 * optimized HLO as an input of its own. */
int hs_report_add_dumpset(hs_report *r, const char *label, hs_dumpset *s);
/* The report: {"format":"hloscope-report","version":1,"title","core","overview":{"title","inputs",
 * "provenance","pairs","redacted"},"open" (the anchor of the cell the page opens on: the first
 * pair's view, else "overview"),"markdown","cells","files":[{"name","bytes","format"}]}. With
 * `redact`, every module name, source file path and op_name prefix in the files' bytes (profiles
 * too) and in the names is replaced in place by a placeholder of the same length, first. The host
 * adds each file's bytes (hs_report_file) to "files" (compressed) and calls hs_report_page. */
char *hs_report_json(hs_report *r, int redact, hs_error *err, size_t *len);
/* The bytes of the report's file i as the page carries them (redacted once hs_report_json redacted). */
const char *hs_report_file(const hs_report *r, size_t i, size_t *len);
/* The page: the template (dist/hloscope.html, which holds a <!--HS:REPORT--> slot, or a report page
 * saved before, whose data block is replaced) with `payload` (JSON) put in as a data block
 * (<script type="application/json" id="hs-report">, '<' written \u003c). Malloc'd; NULL with `err`. */
char *hs_report_page(const char *tmpl, size_t tlen, const char *payload, size_t plen, hs_error *err, size_t *len);

/* ---- text: what a person reads (core/src/text) ------------------------------------------------ */

/* What a renderer needs beside the result: the inputs as the user named them, and for the x-ray the
 * two texts (its lines are printed beside their classes). Any field may be NULL/0. */
typedef struct {
  const char *path;   /* the (first) input: "PATH: ..." headers, warnings (summary, profile, timeline, llvm); diff's A; x-ray's LEFT */
  const char *path_b; /* diff's B; x-ray's RIGHT */
  const char *text, *text_b; /* x-ray: the LEFT and RIGHT texts (borrowed; need not end in NUL) */
  size_t len, len_b;
} hs_text_input;

/* The human text of a result, as `hloscope COMMAND` prints it: `kind` is the command table's result
 * kind (summary, fusions, spills, computations, decisions, overlap, xray, layout, layouts, profile,
 * timeline, memory, llvm, passes, passes_compare, diff), `json` the result as the matching *_json
 * function returned it. Malloc'd (free with hs_free), ending in a newline; NULL for a kind with no
 * text (registry, report), JSON that does not parse, or on allocation failure. */
char *hs_text(const char *kind, const char *json, size_t json_len, const hs_text_input *in, size_t *len);
/* 1 when `kind` has a renderer. */
int hs_text_has(const char *kind);

/* Frees a string returned by this library. */
void hs_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* HLOSCOPE_H */
