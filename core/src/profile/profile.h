/* Private model of a profile, shared by its readers (xplane.c, trace_json.c), the counting
 * (profile_count.c) and the JSON output (profile_json.c); profile.c holds the plumbing and the
 * public entry points. Not installed.
 *
 * One profile = one arena (interned strings) plus flat arrays that refer to each other by
 * index: planes hold lines; events (only those worth counting) point at their line; after
 * counting, programs and ops hold everything printed and the events are dropped.
 *
 * A new profile format is a reader that fills planes, lines and events with the helpers
 * below (hs_prof_add_plane/line/event, hs_prof_intern), warns through hs_prof_warn, and is
 * dispatched from hs_profile_parse. */
#ifndef HS_PROFILE_H
#define HS_PROFILE_H

#include <jansson.h>

#include "doc/doc.h"

#define HS_NONE UINT32_MAX

enum { HS_PROF_XPLANE = 0, HS_PROF_TRACE_JSON = 1 };
/* what an event is, from its plane and line */
enum { HS_PK_OTHER = 0, HS_PK_TPU_OPS, HS_PK_TPU_MODULES, HS_PK_GPU, HS_PK_CPU };
/* which kind of events were counted */
enum { HS_PM_NONE = 0, HS_PM_TPU, HS_PM_GPU, HS_PM_CPU };

typedef struct {
  char *s;
  uint32_t len;
  uint32_t hash;
} hs_prof_str;

typedef struct {
  uint32_t name;
  uint32_t first_line, n_lines;
} hs_prof_plane;

typedef struct {
  uint32_t name;
  uint32_t plane;
  uint64_t events;
} hs_prof_line;

/* One counted event: 64 bytes (a big profile holds millions of them; the input spends about
 * 32 bytes on each). Program and run ids are indices into the profile's table of ids. */
typedef struct {
  uint64_t start, dur;    /* counted times (device times preferred on TPU) */
  uint64_t raw_start;     /* the event's own start (for XLA Modules containment) */
  uint64_t self;
  uint32_t line;
  uint32_t name;    /* op (or program, for XLA Modules events) */
  uint32_t module;  /* hlo_module, HS_NONE when unknown */
  uint32_t category;
  union {
    uint32_t pid;  /* while reading: the program id (hs_prof_id_of), HS_NONE when unknown */
    uint32_t prog; /* after counting: the program (index into progs before sorting), HS_NONE if unknown */
  };
  uint32_t run; /* the run id (hs_prof_id_of), HS_NONE when unknown */
  uint32_t seq; /* order of reading: ties in sorting keep it */
  uint8_t kind;
  uint8_t depth;    /* 0: no enclosing event on its line; 1: inside another */
} hs_prof_event;

typedef struct {
  uint32_t name; /* HS_NONE when unknown */
  const char *name_s; /* its text ("" when unknown), for sorting */
  uint8_t has_pid;
  uint64_t program_id;
  uint64_t runs;
  uint64_t envelope;
  uint8_t runs_guessed;
} hs_prof_program;

/* An op = an HLO op name within one program (program id; module name when no id is known). */
typedef struct {
  uint32_t name, module, category;
  const char *name_s, *module_s; /* their texts ("" when unknown), for sorting */
  uint8_t has_pid, prog_known;
  uint64_t program_id;
  uint64_t occurrences, total, self, runs;
} hs_prof_op;

/* One instruction of an HloModuleProto embedded in /host:metadata (string ids, HS_NONE when
 * absent): who wrote each kernel is read from these. */
typedef struct {
  uint64_t program_id;
  uint32_t module; /* the module's name */
  uint32_t name, opcode, fusion_kind, target, op_name, source_file;
  uint32_t source_line;
  int64_t id, operand0; /* operand0: the first operand's id, -1 when none */
} hs_prof_hlo;

/* An async pair (copy-start/copy-done, a collective's -start/-done, async-start/-done) in one
 * program, summed over its occurrences: in flight from the start's start to the done's end;
 * exposed = the time the core spent in the -done. */
typedef struct {
  uint32_t start, done; /* op names */
  uint32_t module;
  uint8_t has_pid;
  uint64_t program_id;
  uint64_t runs;
  uint64_t occurrences, in_flight, exposed;
} hs_prof_async;

/* u64 -> u32 open-addressing map (keys are never looked up by content). */
typedef struct {
  uint64_t *keys;
  uint32_t *vals; /* value+1; 0 = empty */
  uint32_t cap, count;
} hs_u64map;

struct hs_profile {
  hs_arena arena;
  int format;

  hs_prof_str *strs;
  uint32_t n_strs, cap_strs;
  uint32_t *slots; /* string index+1 */
  uint32_t slot_cap;

  hs_prof_plane *planes;
  uint32_t n_planes, cap_planes;
  hs_prof_line *lines;
  uint32_t n_lines, cap_lines;
  hs_prof_event *evs;
  uint32_t n_evs, cap_evs;
  uint32_t *hlo_modules;
  uint32_t n_hlo_modules, cap_hlo_modules;
  hs_prof_program *progs;
  uint32_t n_progs, cap_progs;
  hs_prof_op *ops;
  uint32_t n_ops, cap_ops;
  hs_prof_hlo *hlos;
  uint32_t n_hlos, cap_hlos;
  hs_prof_async *asyncs;
  uint32_t n_asyncs, cap_asyncs;
  /* hlos by (program id, name), (module, name) and (program id, id); built on first use */
  hs_u64map hlo_by_pid, hlo_by_module, hlo_by_id;
  uint8_t hlo_index_built;

  /* the distinct program and run ids of the events (events hold their index) */
  uint64_t *ids;
  uint32_t n_ids, cap_ids;
  hs_u64map id_index;

  /* program id -> name, from /host:metadata and XLA Modules event names */
  hs_u64map pid_names;

  int32_t tpu_plane; /* the plane whose XLA Ops line is counted, -1 if none */
  int mode;
  uint32_t device_plane, device_line; /* string ids, HS_NONE when no device */

  hs_diag diag; /* warnings, their counts, out of memory */
};

/* ---- plumbing (profile.c) ------------------------------------------------------------- */
void hs_prof_warn(hs_profile *p, int code, const char *fmt, ...);
/* Interns bytes into the arena; returns the string id, HS_NONE on allocation failure. */
uint32_t hs_prof_intern(hs_profile *p, const void *s, size_t n);
uint32_t hs_prof_intern_z(hs_profile *p, const char *s);
bool hs_prof_starts_with(const void *s, size_t n, const char *lit);

/* u64 -> u32 open-addressing map */
bool hs_u64map_put(hs_u64map *m, uint64_t key, uint32_t val); /* the first value wins */
void hs_u64map_set(hs_u64map *m, uint64_t key, uint32_t val); /* replaces a present key */
int64_t hs_u64map_get(const hs_u64map *m, uint64_t key);       /* -1 when absent */
void hs_u64map_free(hs_u64map *m);

uint32_t hs_prof_add_plane(hs_profile *p, uint32_t name);
/* Lines of a plane are added while that plane is the last one (xplane), or in any order
 * (trace JSON, which then lists each line under its plane when printing). */
uint32_t hs_prof_add_line(hs_profile *p, uint32_t plane, uint32_t name);
hs_prof_event *hs_prof_add_event(hs_profile *p);
/* Room for `n` more events at once (one allocation instead of doubling copies); false when
 * out of memory, which the caller may ignore (the events then grow one by one). */
bool hs_prof_reserve_events(hs_profile *p, uint64_t n);
/* The index of a program or run id in p->ids (HS_NONE, and nomem set, when out of memory). */
uint32_t hs_prof_id_of(hs_profile *p, uint64_t id);
/* A line's kind from its plane's name and its own (HS_PK_*). */
int hs_prof_line_kind_of(const char *pname, size_t pnlen, const char *lname, size_t lnlen);
int hs_prof_line_kind(const hs_profile *p, uint32_t plane, const char *lname, size_t lnlen); /* HS_PK_* */

void hs_prof_op_from_stack(const char **s, size_t *n);    /* "a::b::c" -> "c" */
void hs_prof_op_from_hlo_text(const char **s, size_t *n); /* "%name = f32[] op(...)" -> "name" */
/* Decimal (optionally signed: trace JSON prints some ids as int32) into the 64 bits. */
bool hs_prof_parse_u64(const char *s, size_t n, uint64_t *out);
/* "jit_f(12345)" -> name "jit_f", id 12345 */
bool hs_prof_split_program(const char *s, size_t n, size_t *name_len, uint64_t *id);
static inline uint64_t hs_sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* ---- readers: fill planes, lines and events; 0 or an HS_E_* code with err filled --------- */
int hs_xplane_read(hs_profile *p, const uint8_t *data, size_t len, hs_error *err);  /* xplane.c */
int hs_trace_json_read(hs_profile *p, const char *text, size_t len, hs_error *err); /* trace_json.c */

/* An HloProto's module: its name into hlo_modules, its instructions into hlos (hlo_proto.c). */
void hs_prof_read_hlo_proto(hs_profile *p, const uint8_t *b, size_t n, bool has_pid, uint64_t pid);

/* ---- counting (profile_count.c): events -> programs and ops; false when out of memory ---- */
bool hs_profile_count(hs_profile *p);

/* ---- JSON pieces (profile_json.c) ------------------------------------------------------ */
json_t *hs_prof_json_pid(bool has_pid, uint64_t id); /* a decimal string (64-bit ids stay exact), or null */
json_t *hs_prof_json_str(const hs_profile *p, uint32_t id); /* null for HS_NONE */
json_t *hs_prof_json_ps(uint64_t v);

/* ---- timeline (timeline.c) --------------------------------------------------------------- */
/* The async pairs of the counted events (called by hs_profile_count before the events go). */
bool hs_timeline_async(hs_profile *p, hs_prof_event *ops, uint32_t n_ops);
/* The HLO instruction of an op: from the embedded protos; NULL when none. */
const hs_prof_hlo *hs_prof_find_hlo(const hs_profile *p, bool has_pid, uint64_t program_id, uint32_t module, uint32_t name);

#endif
