/* Private model of a profile, shared by its readers (xplane.c, trace_json.c), the counting
 * (profile_count.c, devices.c), the instructions (hlo_proto.c), the run pictures (picture.c)
 * and the JSON output (profile_json.c, timeline.c); profile.c holds the plumbing and the public
 * entry points. Not installed.
 *
 * One profile = one arena (interned strings) plus flat arrays that refer to each other by
 * index. A profile may be read from several files (one per host or process of a job): each
 * plane names its file. Planes hold lines; events (only those worth counting, and the program
 * runs, async transfers and steps beside them) point at their line, and through it at their
 * plane and device; after counting, programs, ops, their per-device figures, kernels, steps and
 * one picture per program hold everything printed and the events are dropped.
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
enum { HS_PK_OTHER = 0, HS_PK_TPU_OPS, HS_PK_TPU_MODULES, HS_PK_GPU, HS_PK_CPU, HS_PK_TPU_ASYNC, HS_PK_STEPS };
/* which kind of events were counted */
enum { HS_PM_NONE = 0, HS_PM_TPU, HS_PM_GPU, HS_PM_CPU };

typedef struct {
  char *s;
  uint32_t len;
  uint32_t hash;
} hs_prof_str;

/* One input file: its name as the host gave it, the host (the XSpace's hostnames, else the name
 * before ".xplane.pb") and the process id its planes carry (stat process_id). */
typedef struct {
  uint32_t name, host; /* HS_NONE when unknown */
  uint64_t pid;
  uint8_t has_pid;
} hs_prof_file;

typedef struct {
  uint32_t name;
  uint32_t first_line, n_lines;
  uint32_t file;
  uint32_t dev;          /* the device this plane is (index into devs), HS_NONE when none */
  uint8_t xla_ops;       /* a TPU plane with an XLA Ops line: its lines are read */
  uint8_t async_events;  /* its Async XLA Ops line holds events */
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
/* Async XLA Ops events (TPU transfers): `name` is the -start, `module` holds the -done (its
 * hlo_op stat). Steps events: `name` is the step's name (its number). */

/* A program: over the devices that ran it, `runs` is the most common count of runs on one device
 * and `envelope`/`per_run` the mean of the devices' (never summed across devices). */
typedef struct {
  uint32_t name; /* HS_NONE when unknown */
  const char *name_s; /* its text ("" when unknown), for sorting */
  uint8_t has_pid;
  uint64_t program_id;
  uint64_t runs;
  uint64_t envelope;
  double per_run;     /* mean over devices of envelope / runs */
  uint64_t per_run_ps; /* the same in whole picoseconds: the mean of each device's envelope / runs */
  uint32_t devices;   /* how many devices ran it */
  uint8_t runs_guessed;
  uint8_t runs_differ; /* devices ran it different numbers of times */
  uint32_t orig;      /* index before sorting */
} hs_prof_program;

/* An op = an HLO op name within one program (program id; module name when no id is known),
 * summed over devices; `runs` x `devices` is what its per-run time divides by. */
typedef struct {
  uint32_t name, module, category;
  const char *name_s, *module_s; /* their texts ("" when unknown), for sorting */
  uint8_t has_pid, prog_known;
  uint64_t program_id;
  uint64_t occurrences, total, self, runs;
  uint32_t devices;
  uint32_t prog;      /* its program (index into progs), HS_NONE when unknown */
  uint64_t in_steps;  /* self time inside Steps events */
  uint32_t text;      /* the instruction's text from the profile (TPU XLA Ops metadata), HS_NONE */
  uint32_t orig;      /* index before sorting */
} hs_prof_op;

/* One program on one device: runs, envelope (sum over runs of last end - first start), the sum
 * of its ops' total and self time, and the self time of its collectives. */
typedef struct {
  uint32_t prog, dev;
  uint64_t runs, envelope, total, busy, collective;
  uint8_t runs_guessed;
} hs_prof_devrun;

/* One op on one device. */
typedef struct {
  uint32_t op, dev;
  uint64_t occurrences, total, self;
} hs_prof_opdev;

/* Device kernels (GPU): the kernels an op launched (op HS_NONE: kernels with no hlo_op, device
 * time not attributed to any HLO op), by kernel name. Gathered while reading; `op` indexes ops
 * after counting. */
typedef struct {
  uint32_t op_name, module, kernel;
  uint8_t has_pid;
  uint64_t program_id;
  uint64_t count, total;
  uint32_t op; /* after counting: index into ops, HS_NONE when unattributed or not found */
} hs_prof_kernel;

/* A Steps event (XProf's Steps line): its plane, name and times, and the self time of the
 * counted events of that plane that start inside it. */
typedef struct {
  uint32_t plane, name;
  uint64_t start, dur, busy;
} hs_prof_step;

/* The picture of one run of a program: on each device, the window of that run (first start to
 * last end, own times) and every counted event and async transfer that starts inside it. */
typedef struct {
  uint32_t prog, dev;
  uint64_t start, end;
} hs_prof_window;
typedef struct {
  uint32_t prog, line;
  uint32_t op, partner; /* the op (index into ops; a transfer: its -start), a transfer's -done; HS_NONE */
  uint64_t start, dur;  /* the event's own start (the clock of the run windows), its counted duration */
  uint8_t async, depth;
} hs_prof_pic_event;

/* One instruction of an HloModuleProto embedded in /host:metadata (string ids, HS_NONE when
 * absent): who wrote each kernel is read from these. */
typedef struct {
  uint64_t program_id;
  uint32_t module; /* the module's name */
  uint32_t name, opcode, fusion_kind, target, op_name, source_file;
  uint32_t shape; /* the result type in HLO text, layout included (hs_prof_shape_text), HS_NONE */
  uint32_t source_line;
  int64_t id, operand0; /* operand0: the first operand's id, -1 when none */
  int64_t called;       /* the first called computation's id, -1 when none */
  uint32_t comp;        /* its computation (index into hcomps) */
  uint32_t first_operand, n_operands; /* into hlo_operands (instruction ids) */
} hs_prof_hlo;

/* A computation of an embedded HloModuleProto: its instructions are hlos[first, first + n). */
typedef struct {
  uint64_t program_id;
  uint32_t name;
  int64_t id, root;
  uint32_t first, n;
} hs_prof_hcomp;

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
  int format; /* of the first file */
  hs_prof_file *files;
  uint32_t n_files, cap_files;
  uint32_t cur_file; /* the file being read */

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
  hs_prof_hcomp *hcomps;
  uint32_t n_hcomps, cap_hcomps;
  uint64_t *hlo_operands;
  uint32_t n_hlo_operands, cap_hlo_operands;
  /* hlos by (program id, name), (module, name) and (program id, id); built on first use */
  hs_u64map hlo_by_pid, hlo_by_module, hlo_by_id;
  uint8_t hlo_index_built;

  /* devices: the planes whose events are counted, in reading order (index into planes) */
  uint32_t *devs;
  uint32_t n_devs, cap_devs;
  hs_prof_devrun *devruns; /* sorted by (prog, dev) after counting */
  uint32_t n_devruns, cap_devruns;
  hs_prof_opdev *opdevs;   /* sorted by (op, dev) after counting */
  uint32_t n_opdevs, cap_opdevs;
  hs_prof_kernel *kerns;
  uint32_t n_kerns, cap_kerns;
  hs_u64map kern_index;
  hs_prof_step *steps;
  uint32_t n_steps, cap_steps;
  hs_prof_window *windows; /* one per (program, device): the pictured run */
  uint32_t n_windows, cap_windows;
  uint32_t *pic_run;       /* per program: the run pictured (0-based, on its first device) */
  hs_prof_pic_event *pics; /* sorted by program */
  uint32_t n_pics, cap_pics;
  uint32_t *pic_cut;       /* per program: events left out of its picture (over the cap) */
  /* the instruction text of TPU ops (XLA Ops event metadata), by (program id, op name) */
  hs_u64map op_texts;

  /* the distinct program and run ids of the events (events hold their index) */
  uint64_t *ids;
  uint32_t n_ids, cap_ids;
  hs_u64map id_index;

  /* program id -> name, from /host:metadata and XLA Modules event names */
  hs_u64map pid_names;

  int mode;
  uint32_t device_plane, device_line; /* string ids, HS_NONE when no device */

  hs_diag diag; /* warnings, their counts, out of memory */
  /* told how the counting goes (hs_profile_parse_source's progress), NULL when nobody asked */
  void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total);
  void *progress_ctx;
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

/* The file planes are added to from now on (its name: a path keeps its base name). */
bool hs_prof_begin_file(hs_profile *p, const char *name, size_t len);
/* The host of the file being read (the XSpace's hostnames), its process id (stat process_id). */
void hs_prof_set_host(hs_profile *p, const void *host, size_t len);
void hs_prof_set_pid(hs_profile *p, uint64_t pid);
uint32_t hs_prof_add_plane(hs_profile *p, uint32_t name);
/* Lines of a plane are added while that plane is the last one (xplane), or in any order
 * (trace JSON, which then lists each line under its plane when printing). */
uint32_t hs_prof_add_line(hs_profile *p, uint32_t plane, uint32_t name);
hs_prof_event *hs_prof_add_event(hs_profile *p);
/* A transfer (TPU Async XLA Ops: `name` the -start's text, `done` its -done, HS_NONE when
 * unknown) or a step (Steps: `name` the step's), with its own start and its counted times. */
void hs_prof_add_aside(hs_profile *p, int kind, uint32_t line, const char *name, size_t n, uint32_t done, uint64_t raw_start,
                       uint64_t start, uint64_t dur);
/* Room for `n` more events at once (one allocation instead of doubling copies); false when
 * out of memory, which the caller may ignore (the events then grow one by one). */
bool hs_prof_reserve_events(hs_profile *p, uint64_t n);
/* The index of a program or run id in p->ids (HS_NONE, and nomem set, when out of memory). */
uint32_t hs_prof_id_of(hs_profile *p, uint64_t id);
/* A GPU kernel launch: the kernel's name, the op that launched it (HS_NONE: none) and its time. */
void hs_prof_add_kernel(hs_profile *p, bool has_pid, uint64_t pid, uint32_t module, uint32_t op, uint32_t kernel,
                        uint64_t dur);
/* The instruction text of a TPU op, from its XLA Ops event metadata (the first one wins). */
void hs_prof_add_op_text(hs_profile *p, bool has_pid, uint64_t pid, uint32_t op, uint32_t text);
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

/* A sentence or a line of text built in a fixed buffer; `cut` once something did not fit. */
typedef struct {
  char *b;
  size_t n, cap;
  bool cut;
} hs_prof_text;
static inline hs_prof_text hs_prof_text_in(char *buf, size_t cap) {
  hs_prof_text t = {buf, 0, cap, false};
  if (cap) buf[0] = 0;
  return t;
}
void hs_prof_put(hs_prof_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A time as the readings print it: "784.15 ms", "611.0 µs". */
void hs_prof_fmt_time(uint64_t ps, char *buf, size_t cap);
/* The instruction text of an op from the profile (TPU XLA Ops metadata); HS_NONE when none. */
uint32_t hs_prof_op_text(const hs_profile *p, bool has_pid, uint64_t pid, uint32_t op);

/* ---- readers: fill planes, lines and events; 0 or an HS_E_* code with err filled --------- */
int hs_xplane_read(hs_profile *p, const uint8_t *data, size_t len, hs_error *err);  /* xplane.c */
int hs_xplane_read_window(hs_profile *p, hs_window *w, hs_error *err);              /* xplane.c */
int hs_trace_json_read(hs_profile *p, const char *text, size_t len, hs_error *err); /* trace_json.c */

/* An HloProto's module: its name into hlo_modules, its instructions into hlos (hlo_proto.c). */
void hs_prof_read_hlo_proto(hs_profile *p, const uint8_t *b, size_t n, bool has_pid, uint64_t pid);

/* ---- counting (profile_count.c): events -> programs and ops; false when out of memory ---- */
bool hs_profile_count(hs_profile *p);
/* "fusion", "custom", "copy", "collective" or "other", from the opcode (else the name). */
const char *hs_prof_kind_of(const char *opcode, const char *name);
/* The op's kind from its instruction in the embedded protos, else its name. */
const char *hs_prof_op_kind(const hs_profile *p, const hs_prof_op *op);
/* An op's time per run: its total over runs x devices (0 when unknown). */
uint64_t hs_prof_op_per_run(const hs_prof_op *op);

/* ---- devices (devices.c): per device figures, after the events are grouped -------------- */
/* The device of a plane (created on first use); HS_NONE when out of memory. */
uint32_t hs_prof_device_of(hs_profile *p, uint32_t plane);
/* From the per (program, device) runs and the per (op, device) sums: each device's total, busy
 * and collective time, each program's figures over its devices (runs, envelope, per run,
 * device count) and each op's runs and devices. */
bool hs_prof_device_figures(hs_profile *p);
/* The figures of a program on its devices: devruns[*first, *first + return). */
uint32_t hs_prof_devruns_of(const hs_profile *p, uint32_t prog, uint32_t *first);
uint32_t hs_prof_opdevs_of(const hs_profile *p, uint32_t op, uint32_t *first);
/* Sorts devruns by (program, device) and opdevs by (op, device), as the two above need. */
void hs_prof_sort_devices(hs_profile *p);
/* 1 when the async pairs on this device can be told (TPU: it has Async XLA Ops events). */
bool hs_prof_device_async_known(const hs_profile *p, uint32_t dev);

/* ---- pictures (picture.c): one run of each program, every event in it -------------------- */
/* One run of a program on one device: first start to last end (TPU: its XLA Modules event). */
typedef struct {
  uint64_t start, end;
  uint32_t prog, dev;
} hs_prof_run;
/* Picks the run of each program to picture (the median-length run on its first device, the
 * same run by order on the others) and keeps every counted event and transfer (`aside`) that
 * starts inside it. */
bool hs_prof_pictures(hs_profile *p, hs_prof_run *runs, uint32_t n_runs, const hs_prof_event *ops, uint32_t n_ops,
                      const hs_prof_event *aside, uint32_t n_aside, const hs_u64map *opmap);
/* The picture of a program: its run, tracks (one per device line) and events; `row_of_op` maps
 * an op to its row in the timeline's rows (HS_NONE: not listed). */
json_t *hs_prof_picture_json(const hs_profile *p, uint32_t prog, const uint32_t *row_of_op);
/* The op key of profile_count.c: op name << 32 | owner (its program, else 0x80000000 | module). */
static inline uint64_t hs_prof_op_key(uint32_t name, uint32_t prog, uint32_t module) {
  return ((uint64_t)name << 32) | (prog != HS_NONE ? prog : 0x80000000u | (module & 0x7fffffffu));
}

/* ---- instructions (hlo_proto.c) ----------------------------------------------------------- */
/* The HLO instruction of an op: from the embedded protos; NULL when none. */
const hs_prof_hlo *hs_prof_find_hlo(const hs_profile *p, bool has_pid, uint64_t program_id, uint32_t module, uint32_t name);
/* The instruction of a program with this id; NULL when none. */
const hs_prof_hlo *hs_prof_find_hlo_id(const hs_profile *p, uint64_t program_id, int64_t id);
/* The instruction behind an op: its text (the profile's XLA Ops metadata, else rendered from the
 * embedded HloModuleProto), result type and memory spaces in words, and a fusion's body; null
 * when the profile says nothing of it. */
json_t *hs_prof_instruction_json(const hs_profile *p, const hs_prof_op *op);

/* ---- JSON pieces (profile_json.c) ------------------------------------------------------ */
json_t *hs_prof_json_pid(bool has_pid, uint64_t id); /* a decimal string (64-bit ids stay exact), or null */
json_t *hs_prof_json_str(const hs_profile *p, uint32_t id); /* null for HS_NONE */
json_t *hs_prof_json_ps(uint64_t v);
/* The kernels an op launched: [{"name","occurrences","total_ps"}] (GPU), or [] */
json_t *hs_prof_kernels_json(const hs_profile *p, uint32_t op);
/* The devices counted: [{"plane","host","file"}] */
json_t *hs_prof_devices_json(const hs_profile *p);

/* ---- timeline over devices, hosts, steps (timeline_devices.c) ------------------------------ */
/* A program's devices: [{"plane","host","file","runs","envelope_ps","per_run_ps","total_ps",
 * "busy_ps","idle_ps","collective_ps","async"}] (busy, idle and collective per run). */
json_t *hs_prof_program_devices_json(const hs_profile *p, uint32_t prog);
/* " on each of 4 TPUs, 778.24 ms to 785.02 ms per run on one TPU: /device:TPU:2 is the slowest"
 * (nothing with one device); `details` adds busy, collective and idle time per device and run. */
void hs_prof_say_devices(const hs_profile *p, uint32_t prog, bool details, hs_prof_text *t);
/* "; hidden and exposed transfer time is unknown on ..." for the devices that cannot tell it. */
void hs_prof_say_async_unknown(const hs_profile *p, uint32_t prog, hs_prof_text *t);
/* The hosts (input files) of a program: [{"file","host","pid","device_count","runs","per_run_ps",
 * "collective_ps","compute_ps","waited_ps","slowest"}]; `say` gains the slowest with 2+ hosts. */
json_t *hs_prof_hosts_json(const hs_profile *p, uint32_t prog, hs_prof_text *say);
/* The steps: [{"plane","name","start_ps","duration_ps","busy_ps","share"}]; `say` gains a clause. */
json_t *hs_prof_steps_json(const hs_profile *p, hs_prof_text *say);
uint64_t hs_prof_mean_step(const hs_profile *p);

/* ---- timeline (timeline.c) --------------------------------------------------------------- */
/* The async pairs of the counted events (called by hs_profile_count before the events go). */
bool hs_timeline_async(hs_profile *p, hs_prof_event *ops, uint32_t n_ops);


#endif
