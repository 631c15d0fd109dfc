// hloscope JS API: the ES module `wasm/hloscope.mjs` over the WebAssembly build of the C core.
// Hand-written: notebook cells and course pages are this API's users.
//
// Every result is a plain JS object decoded from the JSON the C core writes; the native CLI
// (`hloscope <command> --json`) writes the same bytes for the same input.

/** Options for `load()`. In Node, the module reads `gen/hloscope_core.wasm` itself. */
export interface LoadOptions {
  /** The .wasm bytes, when the caller already has them (bundles, workers, file:// pages). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to find `hloscope_core.wasm` (Emscripten's hook); default: next to the glue. */
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads the wasm once. Every call returns the same promise (the options of the first call win). */
export function load(options?: LoadOptions): Promise<void>;

/** True once `load()` has resolved. */
export function isLoaded(): boolean;

/** The core's version string, e.g. "0.1.0". Needs `load()`. */
export function version(): string;

// The unions below are the core's registry (`registry()`, `hloscope registry`) written out for
// the type checker; tests/node/types.test.mjs fails when they and the registry differ.
/** Every format the core's detector names (HS_FORMAT_MAP). */
export type Format = "unknown" | "hlo" | "stablehlo" | "jaxpr" | "memory" | "pass-listing" | "llvm";
/** The formats `parse()` reads into an HloDocument (registry formats with `document: true`). */
export type DocumentFormat = "hlo" | "stablehlo" | "jaxpr";
/** The result kinds of `HloDocument.json(kind)` (HS_KIND_MAP). */
export type ResultKind = "summary" | "fusions" | "spills" | "computations" | "layouts" | "decisions" | "overlap";
/** The result kinds `text(kind, json)` renders: the command table's kinds whose `text` is true. */
export type TextKind = "summary" | "fusions" | "spills" | "computations" | "xray" | "profile" | "passes" | "passes_compare" | "layout" | "layouts" | "memory" | "timeline" | "decisions" | "overlap" | "llvm" | "diff";
/** Every error code (HS_ERROR_MAP, with the JS-only HS_E_FREED, HS_E_NOT_LOADED, HS_E_NOTFOUND, HS_E_NOWASM, HS_E_CANCELLED). */
export type ErrorCode = "HS_OK" | "HS_E_NOMEM" | "HS_E_FORMAT" | "HS_E_SYNTAX" | "HS_E_EMPTY" | "HS_E_TOO_LARGE" | "HS_E_ARG" | "HS_E_UNSUPPORTED" | "HS_E_READ" | "HS_E_FREED" | "HS_E_NOT_LOADED" | "HS_E_NOTFOUND" | "HS_E_NOWASM" | "HS_E_CANCELLED";
/** Every warning code (HS_WARNING_MAP). */
export type WarningCode = "HS_W_FRAME_TABLES_MISSING" | "HS_W_FRAME_REF_DANGLING" | "HS_W_TRUNCATED" | "HS_W_SKIPPED_LINE" | "HS_W_UNRESOLVED_OPERAND" | "HS_W_UNRESOLVED_CALL" | "HS_W_UNKNOWN_TYPE" | "HS_W_PARTIAL_FORMAT" | "HS_W_PROFILE_SKIPPED" | "HS_W_PROFILE_NO_DEVICE" | "HS_W_PROFILE_RUNS_GUESSED" | "HS_W_XLA_REFUSES" | "HS_W_DUMP_JUNK_LINE" | "HS_W_DUMP_UNKNOWN_NAME" | "HS_W_DUMP_STEP_UNREADABLE" | "HS_W_JOIN_SKIPPED" | "HS_W_ARCHIVE_TRUNCATED" | "HS_W_ARCHIVE_UNREAD";

/** One issue the parser met but could read past (a dangling frame reference, a truncated tail). */
export interface Warning {
  code: WarningCode;  // e.g. "HS_W_FRAME_TABLES_MISSING"
  line: number;       // 1-based; 0 when it concerns the whole document
  column: number;     // 1-based; 0 when it concerns the whole document
  message: string;
}

export interface Summary {
  format: DocumentFormat;
  module: string | null;      // first module's name
  modules: number;            // modules in the text (several HloModule blocks are valid input)
  lines: number;              // lines in the text (a last line without "\n" counts)
  computations: number;       // HLO computations / StableHLO functions
  instructions: number;       // HLO instructions / StableHLO ops (module and func headers excluded)
  warnings: Warning[];
  /** HLO: where in XLA's pipeline the text is, from the text (null for other formats). */
  stage: Stage | null;
  /** The text was cut: it ends at `line`, inside computation `inside` (null when none was open);
   *  `entry`: whether an entry computation was read. null when the text is whole. */
  partial: Partial | null;
  /** HLO and StableHLO: the entry computation's parameter and result types in HLO form
   *  ("c64[8,64]"; tensor<8x64xcomplex<f32>> reads as c64), from its header line; null when
   *  not read (jaxpr, no entry). What says a StableHLO text and an HLO text are one program. */
  params: string[] | null;
  results: string[] | null;
}

/** after_optimizations: the header says is_scheduled=true; pass_step: fused, not scheduled;
 *  after_spmd_partitioning: unfused, unscheduled, partitioned; before_optimizations: none of that. */
export type Stage = "before_optimizations" | "after_spmd_partitioning" | "pass_step" | "after_optimizations";

export interface Partial { line: number; inside: string | null; entry: boolean; }

export interface Fusion {
  name: string;               // the fusion instruction, e.g. "fusion.1" (no "%")
  kind: string;               // "kLoop" | "kInput" | "kOutput" | "kCustom" | ...
  calls: string;              // the fused computation it calls
  type: string;               // result type in HLO form, layout aside: "bf16[1024,1024]", "(f32[], s32[4])"
  bytes: number;              // the result's logical bytes (a tuple's elements summed)
  module: string | null;      // the module the fusion is in
  memory_space: number;       // S(n) of the result's layout; 0 (HBM / default) when none is printed
  line: number;               // 1-based line of the fusion instruction
  nested: boolean;            // true when the instruction sits inside another fused computation
  backend_kind: string | null;// GPU/CPU kCustom: backend_config.fusion_backend_config.kind, else null
  ops: string[];              // the body's opcodes in printed order, without parameter and constant
}

export interface FusionCensus {
  fusion_computations: number; // distinct fused bodies (named by calls= of fusion instructions)
  fusion_ops: number;          // all fusion instructions, top-level and nested
  fusion_ops_top_level: number;
  fusion_ops_nested: number;   // fusion instructions inside fused computations
  fusions: Fusion[];           // in printed order
  fusions_total?: number;      // fusions({ rows }) only: how many there are (the list holds at most rows)
}

export interface TypeSize { type: string; bytes: number; }

export interface Carrier {
  line: number;
  name: string;               // instruction name, or the computation's name for a header line
  memory_space: number;
  spill: boolean;             // materialized in memory space 0 (HBM)
  counted: boolean;           // one of the lines that count (computes, writes or reads it); the others are context
}

export interface Spills {
  /** The largest materialized value another instruction consumes; null when none crosses a kernel boundary. */
  big: (TypeSize & { memory_space: number; name: string; line: number; consumers: number;
    /** the tuple element of the result that it is (the carrier rule holds per element), or null */
    element: number | null }) | null;
  /** When big is null: the largest value the fusions kept off memory. */
  kept_off_memory: (TypeSize & { name: string; line: number }) | null;
  carriers: Carrier[];
  /** Tuple elements of top-level results that no instruction reads (at every stage): never a
   *  carrier, the big intermediate or traffic. workspace: the last s8/u8 element of a custom call
   *  (cuBLAS, cuDNN, CUB scratch). */
  unread: { name: string; opcode: string; computation: string; line: number; index: number; type: string;
            bytes: number; workspace: boolean }[];
  /** bytes written to HBM once plus read by each consuming kernel; 0 when big is on chip. */
  spill_bytes: number;
  /** Estimated HBM traffic of the top-level kernels (memory-space aware); null when `needs` is set. */
  hbm_bytes: { read: number; written: number } | null;
  /** What the text lacks for kernel-level claims: "optimized" (HLO before optimizations or after
   *  SPMD partitioning: no kernels yet), "entry" (cut before its entry computation); else null.
   *  When set, big is null and the explanation says what to paste instead. */
  needs: "optimized" | "entry" | null;
  explanation: string;        // one or two plain sentences
}

/** One async transfer (`hloscope overlap --json`): a *-start with its *-done. */
export interface Transfer {
  kind: string;               // "all-gather", "all-reduce", "copy", "send", an async-start's ROOT opcode ("reduce-scatter")
  start: string;
  done: string | null;        // null: the start has no done in the text
  computation: string;        // the computation holding the pair
  bytes: number;              // what the done delivers (a send: its operand)
  sync: boolean;              // the start's backend config says is_sync
  /** kernels scheduled between start and done (not parameters, constants, get-tuple-element,
   *  bitcast, tuple, other async ops); [] when sync; null when the module is not scheduled */
  overlapped: string[] | null;
  calls: string | null;       // async-start: the async computation it runs
  line: number;
  done_line: number | null;
  trip_count: number | null;  // inside a while body with a known_trip_count: the iterations
  bytes_per_run: number | null; // bytes * trip_count
}

export interface Overlap {
  scheduled: boolean;         // a module of the text says is_scheduled=true
  transfers: Transfer[];      // in text order of the starts
  /** "7 async transfers, each start paired with its done: the all-reduce is in flight while
   *  add0 runs."; for a text that is not HLO, what to paste instead */
  explanation: string;
}

export interface ComputationInfo {
  name: string;
  line: number;
  role: "entry" | "fused" | "called" | "function" | "async";
  result: string | null;      // declared result type, HLO form
  /** made: an instruction XLA's parser makes that the text has no statement for, named as XLA
   * names it: "compact" (a get-tuple-element written "%t#1" as an operand: "t_1") or "nested"
   * (an operand written as an instruction, "f32[4] negate(%x)": "negate.anon"). */
  instructions: { name: string; opcode: string; type: string | null; line: number; made?: 'compact' | 'nested' }[]; // type null: an op with no result (return)
}

export interface Computations { modules: { name: string | null; computations: ComputationInfo[] }[] }

export type LineClass = "fusion" | "carry" | "hot" | "dim" | "plain";

export interface XrayLine {
  line: number;               // 1-based
  class: LineClass;           // precedence: fusion > carry > hot > dim > plain
  carries: boolean;           // the value this line defines has the big intermediate's type (underline)
  carrier: boolean;           // counted: computes the big intermediate (inside a fused body), the kernel writing it, or a kernel reading it
  memory_space: number | null;// S(n) of the value this line defines, when it has a layout
  note: string;               // one sentence explaining the line
}

export interface Xray {
  summary: {
    lines_in: number;         // lines of the left text (StableHLO)
    lines_out: number;        // lines of the right text (optimized HLO)
    fusion_ops: number;
    carry: number;            // lines on the right that carry the big intermediate and count (XrayLine.carrier)
    big: (TypeSize & { memory_space: number }) | null;
    stat: string;             // "21 lines in -> 31 lines decided · 3 fusion ops · 3 carry bf16[1024,1024]"
    explanation: string;
    stage: Stage | null;      // the right side's stage
    partial: { left: Partial | null; right: Partial | null };
    /** null without async transfers; else "2 async transfers, each start paired with its done:
     *  the all-reduce is in flight while add0 runs" (where the schedule shows it) */
    overlap: string | null;
    /** The line each side opens on: its first computation when frame tables (or other tables)
     * come before it, else 1; null for a missing side. */
    open_at: { left: number | null; right: number | null };
    /** each side's entry signature, as Summary.params / Summary.results */
    signature: { left: { params: string[] | null; results: string[] | null }; right: { params: string[] | null; results: string[] | null } };
  };
  /** Are the two texts the same program? From their module names and entry signatures, read with
   * the core's type readers (MLIR's signless i8 is s8; layouts and comments aside). null: a side
   * has nothing to compare (a blank left side). evidence: the sentences that decided it (the
   * differences when false). */
  pair: { same_program: boolean | null; evidence: string[] };
  left: XrayLine[];
  right: XrayLine[];
}

/** One decision the framework (jaxpr, StableHLO) or the compiler (optimized HLO) made. */
export interface Decision {
  kind: "upcast" | "downcast" | "broadcast" | "remat" | "transpose" | "layout_copy";
  line: number;               // 1-based: where the equation or op begins (also when its parameters wrap)
  name: string;               // jaxpr: first output variable; StableHLO: "%3"; HLO: instruction name
  from: string | null;        // element type before, HLO spelling ("bf16", "s8", "pred"); null for remat
  to: string | null;          // element type after
  shape: string | null;       // the result type, HLO form without layout: "f32[64,512]", "(f32[2], f32[3])"
  detail: string;             // one sentence: "convert_element_type carries the value from bf16 to f32: ..."
  source: string | null;      // "file.py:13" from StableHLO loc(...) or HLO metadata / stack frames; null when none
  path: string;               // jaxpr: enclosing primitives, "pjit/scan" ("" at top level);
                              // StableHLO: the function; HLO: the computation
}

export interface Decisions {
  format: DocumentFormat;
  decisions: Decision[];      // sorted by line
  warnings: Warning[];        // the document's, then the analysis's (a jaxpr cut mid-equation: HS_W_TRUNCATED)
}

export interface HloDocument {
  readonly format: DocumentFormat;
  summary(): Summary;
  /** `rows`: list at most that many fusions, with fusions_total set. */
  fusions(options?: { rows?: number }): FusionCensus;
  spills(): Spills;
  computations(): Computations;
  /** Upcasts, downcasts, broadcasts, remat marks, transposes and layout copies, by line. */
  decisions(): Decisions;
  /** Async transfers: each start with its done, and what runs while it is in flight. */
  overlap(): Overlap;
  /** The module's padding table (`layouts(text)` without parsing the text again). */
  layouts(): Layouts;
  /** Frees the wasm memory now (a FinalizationRegistry frees it later otherwise). Idempotent. */
  free(): void;
}

/**
 * Parses a dump (format detected from the text). Throws HloscopeError on a parse error;
 * a truncated dump gives a document with warnings instead.
 */
export function parse(text: string): HloDocument;
/**
 * Parses a dump given as UTF-8 bytes (one Uint8Array or ArrayBuffer, or an array of chunks), copied
 * into the core's memory without decoding: files past the browser's string limit (about 512 MB)
 * are read too, up to the core's 4 GB of memory.
 */
export function parseBytes(bytes: Uint8Array | ArrayBuffer | Uint8Array[]): HloDocument;

/** The x-ray of a StableHLO (left) / optimized HLO (right) pair. A blank `left` x-rays the optimized
 *  HLO alone (`left: []`, stat "31 lines decided · ..."). Throws HloscopeError. */
export function xray(left: string, right: string): Xray;

/** Every failure of the core, with the C error's code and position (1-based; 0 when unknown). */
export class HloscopeError extends Error {
  readonly name: "HloscopeError";
  readonly code: ErrorCode;   // e.g. "HS_E_SYNTAX", "HS_E_FORMAT", "HS_E_NOMEM", "HS_E_FREED"
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  readonly side?: "left" | "right" | "a" | "b"; // for xray(): left/right; for diff(): a/b
}

export interface HloDocument {
  /** The census counts alone, without the per-fusion list: cheap on huge modules. */
  census(): { fusion_computations: number; fusion_ops: number; fusion_ops_nested: number };
  /** The raw JSON text of a result: byte for byte what `hloscope <kind> --json FILE` prints. */
  json(kind: ResultKind): string;
  /** The human text of a result: byte for byte what `hloscope <kind> FILE` prints (the core's
   *  renderer); `name` is FILE as the text's header and warnings say it (default "-"). */
  text(kind: ResultKind, name?: string): string;
}

/**
 * The human text of any result, byte for byte what `hloscope COMMAND` prints: `kind` is the
 * command's result kind, `json` the result (its JSON text or the parsed object). `names.name` /
 * `names.nameB`: the inputs as the text names them (diff A and B, x-ray LEFT and RIGHT); for the
 * x-ray, `names.left` / `names.right`: the two texts its lines are printed from.
 */
export function text(kind: TextKind, json: string | object,
                     names?: { name?: string; nameB?: string; left?: string; right?: string }): string;

/** The raw JSON text of `xray(left, right)`: what `hloscope xray --json LEFT RIGHT` prints. */
export function xrayJSON(left: string, right: string): string;

/** What changed between two compiles (optimized HLO texts), by meaning: what `hloscope diff --json A B`
 *  prints. `profiles`: a profile of each side's runs (the bytes of a .xplane.pb or of trace JSON
 *  already gunzipped, or a ProfileHandle from parseProfile), as `--profiles PA PB`: the result's `time`. Throws
 *  HloscopeError (side "a" or "b") when a side or its profile does not parse. */
export interface DiffOptions {
  profiles?: [Uint8Array | ArrayBuffer | ProfileHandle, Uint8Array | ArrayBuffer | ProfileHandle];
  /** What is known of each side's compile that its text does not carry (jax versions, XLA's
   * cost_analysis()): environment entries, compared in the verdict (`--environment EA EB`). */
  environment?: [Record<string, string | number> | string | null, Record<string, string | number> | string | null];
}
export function diff(a: string, b: string, options?: DiffOptions): Diff;
export function diffJSON(a: string, b: string, options?: DiffOptions): string;

// ---- profiles (jax.profiler.trace output) ----------------------------------------------------

/**
 * What `parseProfile(bytes).summary()` returns (and `hloscope profile --json FILE` prints).
 * Times are integer picoseconds. Counting follows XProf (FORMATS.md section 5): TPU counts only
 * the `XLA Ops` line of the first `/device:TPU:N` plane with the `device_offset_ps` /
 * `device_duration_ps` stats preferred; GPU counts the kernels with `hlo_op` on the
 * `Stream #N(...)` lines of `/device:GPU:N` planes; XLA:CPU counts the `/host:CPU` thread events
 * with `hlo_op`. Self time = time minus direct children (time containment on the same line).
 */
export interface Profile {
  format: "xplane" | "trace_json";
  /** Every plane and line in file order, with the number of events on each line. */
  planes: { name: string; lines: { name: string; events: number }[] }[];
  /** Which events were counted: one plane and line, or "/device:TPU:*" / "XLA Ops",
   * "/device:GPU:*" / "Stream #*" and "/host:CPU" / "*" when several were; null when the profile holds nothing to count. */
  device: { plane: string; line: string } | null;
  /** Programs (sorted by name, then id). TPU: the `XLA Modules` events `jit_f(<id>)`; elsewhere
   * grouped by `program_id` (else `hlo_module`). runs: occurrences of the program (TPU), distinct
   * `run_id`s, or, without run ids, the most common count among its top-level ops (a warning
   * says so). envelope_ps: the sum over runs of last end minus first start. */
  programs: {
    name: string | null;
    /** A decimal string: program ids exceed 2^53 (and 2^63). null when the file drops them (trace JSON). */
    program_id: string | null;
    /** over its devices: the most common count on one device, the mean envelope */
    runs: number;
    envelope_ps: number;
    device_count: number;
  }[];
  /** Per op (HLO instruction name within one program: two programs that share a name, one
   * function compiled for two shapes, stay apart as in XProf), sorted by self_ps descending,
   * then name, module and program id. */
  ops: {
    name: string;             // instruction name, e.g. "broadcast_add_fusion", "copy-done.2"
    module: string | null;    // its program's name, e.g. "jit_f"
    program_id: string | null; // its program's id (decimal string); null when unknown
    category: string | null;  // TPU `hlo_category` ("loop fusion", "copy-done", ...), else null
    occurrences: number;
    total_ps: number;
    self_ps: number;
    per_run_ps: number;       // total_ps / (runs x devices) of its program (else of its module; 0 if unknown)
    devices: number;          // how many devices ran its program (summed over in the figures)
    kernels: { name: string; occurrences: number; total_ps: number }[]; // GPU: the kernels it launched
  }[];
  /** GPU kernels with no hlo_op (device time no HLO op accounts for), by kernel name */
  unattributed: { name: string; occurrences: number; total_ps: number }[];
  /** every device counted, and every input file */
  devices: { plane: string; host: string | null; file: string | null }[];
  files: { file: string | null; host: string | null; pid: number | null }[];
  /** Names of the HloModuleProtos embedded in `/host:metadata` (one per program, file order). */
  hlo_modules: string[];
  /** line and column are 0 (a protobuf has no lines); codes HS_W_TRUNCATED, HS_W_PROFILE_SKIPPED,
   * HS_W_PROFILE_NO_DEVICE, HS_W_PROFILE_RUNS_GUESSED. */
  warnings: Warning[];
}

/**
 * What `parseProfile(bytes).timeline(options)` returns (and `hloscope timeline --json PROFILE
 * [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID]` prints). Times are integer picoseconds.
 */
/** One device (a plane whose events are counted: a TPU chip, a GPU, a process's host CPU) of a
 * program. busy (its ops' self time), idle (per run minus busy) and collective time are per run. */
export interface TimelineDevice {
  plane: string;
  host: string | null;
  file: string | null;
  runs: number;
  envelope_ps: number;
  per_run_ps: number;
  /** the sum of its ops' total time (over all its runs) */
  total_ps: number;
  busy_ps: number;
  idle_ps: number;
  collective_ps: number;
  /** "unknown" on a TPU chip without Async XLA Ops events: hidden and exposed transfer time cannot be told */
  async: "known" | "unknown";
}

/** The picture of one run: every event that starts inside the run's window on each device. */
export interface TimelinePicture {
  /** the run shown (1-based, on the program's first device) of `runs` there; `why` says how it was chosen */
  run: number;
  runs: number;
  why: string;
  /** the picture's span on the profile's clock (the events' own times); events are relative to start_ps */
  start_ps: number;
  end_ps: number;
  duration_ps: number;
  /** each device's window of the run */
  windows: { plane: string; start_ps: number; end_ps: number }[];
  /** one track per device line; an op event is [start_ps, dur_ps, row, depth]; a transfer (an
   * Async XLA Ops event, transfers: true) is [start_ps, dur_ps, start_row, done_row,
   * exposed_start_ps, exposed_ps]: the part the core spent blocked in its -done. row indexes
   * Timeline.rows (-1: none). */
  tracks: { plane: string; line: string; transfers: boolean; events: number[][] }[];
  events: number;
  /** events of the run over the 20,000 kept */
  left_out: number;
}

/** The instruction behind an op: the profile's own text (TPU XLA Ops metadata) or one rendered
 * from the embedded HloModuleProto (name, type, opcode, operands, kind, calls, target only). */
export interface TimelineInstruction {
  text: string;
  from: "profile" | "hlo_proto";
  /** the result type rendered from the proto (null without one) */
  proto_type: string | null;
  result?: { type: string; shape?: string; memory_space?: number; logical_bytes: number; padded_bytes: number; words: string };
  /** the operands as the text names them, with their types when the text prints them (long form) */
  operands: { name: string; type: string | null }[];
  /** every array of the result and the operands, its memory space in words */
  memory_spaces: { where: string; shape: string; bytes: number; memory_space: number; words: string }[];
  /** a fusion's body, from the proto */
  body: { computation: string | null; lines: string[] } | null;
}

export interface Timeline {
  /** Programs keyed by program id (the selected one with `program`). Over the devices that ran
   * it: runs is the most common count on one device, envelope_ps and per_run_ps the means of the
   * devices' (never summed across devices). */
  programs: {
    name: string | null; program_id: string | null; runs: number; envelope_ps: number; per_run_ps: number;
    device_count: number;
    runs_differ: boolean;
    /** its ops' self time over all devices and runs */
    busy_ps: number;
    devices: TimelineDevice[];
    /** how many devices, how even, the slowest; busy, collective and idle per device (null: one device) */
    sentence: string | null;
    picture: TimelinePicture | null;
  }[];
  /** One row per op and program, in the order of Profile.ops (self time, descending). */
  rows: {
    name: string;
    program_id: string | null;
    module: string | null;
    /** unattributed: the one row of device time no HLO op accounts for (GPU kernels with no hlo_op) */
    kind: "fusion" | "custom" | "copy" | "collective" | "other" | "unattributed";
    /** program: traced from the user's op (its metadata names an op_name); library: a custom call
     * to a BLAS/DNN/FFT library (e.g. `__cublas$gemm`, hipBLASLt, cuDNN, MIOpen); compiler: a
     * custom call the given StableHLO does not ask for (XLA:TPU's `tpu_custom_call`); unknown:
     * nothing tells (a custom call without a StableHLO, an op without metadata). */
    written_by: "program" | "library" | "compiler" | "unknown";
    occurrences: number;
    total_ps: number;
    self_ps: number;
    /** total_ps / (runs x device_count) */
    per_run_ps: number;
    /** per_run_ps over its program's per_run_ps: its share of the program's time. */
    share: number;
    /** The line of the optimized HLO dump given as `hlo` that defines the op; null without one. */
    hlo: { line: number; text: string } | null;
    /** From the HloModuleProto the profile embeds (else the dump): opcode, custom-call target,
     * metadata op_name and "source_file:line"; null when unknown. */
    opcode: string | null;
    target: string | null;
    op_name: string | null;
    source: string | null;
    device_count: number | null;
    /** GPU: the kernels it launched, by name (most time first) */
    kernels: { name: string; occurrences: number; total_ps: number }[];
    /** occurrences per run and device, and why there are several ("2 kernel launches per run: ...") */
    per_run_count: number | null;
    per_run_note: string | null;
    instruction: TimelineInstruction | null;
    /** per device when there are several */
    devices: { plane: string; occurrences: number; total_ps: number; self_ps: number; per_run_ps: number; share: number }[];
    /** with a Steps line: its self time per step and share of the mean step */
    per_step_ps?: number;
    step_share?: number;
  }[];
  /** Async pairs (copy-start/copy-done, a collective's -start/-done), per run of the program:
   * in flight from the start's start to the done's end, exposed = time the core spent in the
   * -done (its self time), hidden = in_flight - exposed. */
  async: {
    start: string;
    done: string;
    /** what `hloscope overlap` calls it ("copy", "all-gather", an async-start's ROOT opcode), from
     *  the profile's embedded HLO; null when the profile carries none for it */
    kind: string | null;
    /** what the done delivers (its result's bytes, from the embedded HLO); null when unknown */
    bytes: number | null;
    program_id: string | null;
    module: string | null;
    occurrences: number;
    in_flight_ps: number;
    exposed_ps: number;
    hidden_ps: number;
    /** exposed time over all occurrences: the -done's self_ps. */
    exposed_total_ps: number;
    /** e.g. "89.6 µs of copy, 0.1 µs exposed: it hid behind compute" */
    sentence: string;
  }[];
  /** One sentence: the longest program, its heaviest op, the async pairs; for a profile with no
   * HLO ops (a TensorFlow-only trace) what it holds and what it lacks. */
  reading: string;
  warnings: Warning[];
  /** the program a page opens on: the only one, else null (all programs) */
  open: { name: string | null; program_id: string | null } | null;
  /** every device of the profile */
  devices: { plane: string; host: string | null; file: string | null }[];
  /** per input file (one per process or host) for the program with the most device time: compute
   * before collectives and time waited in them for the others, per run; the slowest marked */
  hosts: { file: string | null; host: string | null; pid: number | null; device_count: number; runs: number; per_run_ps: number;
    collective_ps: number; compute_ps: number; waited_ps: number; slowest: boolean }[];
  /** XProf's Steps line: each step's time and the share of it in HLO ops */
  steps: { plane: string; name: string | null; start_ps: number; duration_ps: number; busy_ps: number; share: number }[];
}

export interface TimelineOptions {
  /** An optimized HLO dump (after_optimizations.txt): each op gets its line. */
  hlo?: string;
  /** The program's StableHLO: tells custom calls the compiler substituted from those asked for. */
  stablehlo?: string;
  /** Keep one program: its name (all programs of that name) or its id. */
  program?: string | number;
}

export interface ProfileHandle {
  /** The raw JSON text: byte for byte what `hloscope profile --json FILE` prints. */
  json(): string;
  summary(): Profile;
  /** The raw timeline JSON: byte for byte what `hloscope timeline --json` prints. Throws
   * HloscopeError when a dump given in options does not parse (the message names which). */
  timelineJSON(options?: TimelineOptions): string;
  timeline(options?: TimelineOptions): Timeline;
  /** Frees the wasm memory now (a FinalizationRegistry frees it later otherwise). Idempotent. */
  free(): void;
}

/**
 * Reads a profile from the bytes of a `.xplane.pb` or a trace-event JSON (`.trace.json`).
 * Gunzip a `.trace.json.gz` first (`await gunzip(bytes)`). The bytes are copied: the caller
 * keeps them. Throws HloscopeError (HS_E_SYNTAX with line/column for bad JSON, HS_E_FORMAT for
 * neither format or a gzip stream); a truncated protobuf gives a profile with warnings.
 */
export function parseProfile(bytes: Uint8Array | ArrayBuffer): ProfileHandle;
/** Several files as one profile (a multi-process job writes one .xplane.pb per process): each
 * file's name names its host and the file in results and errors. */
export function parseProfiles(files: { name?: string; bytes: Uint8Array | ArrayBuffer }[]): ProfileHandle;
/** A profile written chunk by chunk into the core's memory (one copy of a big file, not two). */
export interface ProfileSink {
  readonly written: number;
  write(chunk: Uint8Array): void;
  parse(): ProfileHandle;
  abort(): void;
}
export function profileSink(size: number): ProfileSink;
/** Where a profile's bytes come from when the file is not held whole: `read` returns exactly
 * `length` bytes at `offset`, synchronously (FileReaderSync in a worker, fs.readSync in Node). */
export interface ProfileSource {
  size: number;
  read(offset: number, length: number): Uint8Array;
  name?: string;
}
/** How far a parse has come: stage "scanning", "reading" or "counting"; bytes of the file. */
export interface ProfileProgress {
  stage: string;
  done: number;
  total: number;
}
/** Reads a profile by range: an `.xplane.pb` a window at a time (the core's memory holds what
 * the profile keeps, not the file); anything else whole. Progress comes from inside the parse. A
 * failing `read` throws HloscopeError HS_E_READ (with the read's error as `cause`). */
export function parseProfileSource(source: ProfileSource, options?: { window?: number; onProgress?: (p: ProfileProgress) => void }): ProfileHandle;
/** Bytes of memory the core holds now (its WebAssembly memory grows and never shrinks). */
export function memoryBytes(): number;

/** Gunzips bytes with DecompressionStream('gzip') (Node 18+, Chromium, Firefox, Safari 16.4+). */
export function gunzip(bytes: Uint8Array | ArrayBuffer): Promise<Uint8Array>;

// ---- dump folders (XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_pass_re=.*) --------------------

/** What a file of a dump folder is, from its name. "unknown" names are kept and reported. */
export type DumpFileKind =
  | "step"                      // module_NNNN.<m>.NNNN.<pipeline>.after_<pass>[.before_<pass>].txt
  | "before_optimizations" | "after_optimizations" | "buffer_assignment" | "buffer_assignment_values"
  | "live_range" | "memory_usage_report" | "after_optimizations_before_buffer_assignment"
  | "after_optimizations_after_buffer_assignment" | "after_codegen" | "execution_options"
  | "hlo_module_config" | "tpu_comp_env" | "flagfile" | "debug_options" | "target_arguments"
  | "sdc_metadata" | "transfer_stats" | "autotune_results" | "target_config" | "thunk_sequence"
  | "ptx" | "llvm_ir_no_opt" | "llvm_ir_with_opt" | "kernel_mlir" | "object_file" | "triton_ir"
  | "kernel_hlo" | "hlo_proto" | "proto_text" | "graph" | "mlir" | "text" | "module_folder"
  | "module_mlir" | "compile_options" | "topology" | "unknown";

/** Counts of one step's HLO (null when the folder gave names only, or the file is not HLO). */
export interface StepCounts {
  computations: number;
  instructions: number;         // in all computations, fused bodies included
  fusion_ops: number;           // instructions with opcode fusion
  fusion_computations: number;  // distinct fused bodies
  opcodes: Record<string, number>;
}

export interface PassStep {
  n: number;                    // the step number XLA printed (0000 -> 0)
  pipeline: string;             // the pipeline that ran the pass
  after: string | null;         // the pass just finished ("pipeline-start" on entry)
  before: string | null;        // the pass about to run; null when the name has no before_ part
  file: string;
  run: number;                  // 1 on the pipeline's first entry, 2.. on reruns (fixed-point loops)
  counts: StepCounts | null;
  /** The change from the previous step that has counts (the first step: from before_optimizations). */
  diff: {
    instructions: number;       // signed change
    added: Record<string, number>;
    removed: Record<string, number>;
    fusions_formed: string[];   // top-level fusion instructions not in the previous step
    sentence: string;           // what the pass changed, in one sentence
  } | null;
}

export interface PassModule {
  id: number;                   // NNNN of module_NNNN
  name: string | null;          // "jit_attention", "SyncTensorsGraph.636"
  backend: "cpu" | "gpu" | "tpu" | null;
  backend_inferred: boolean;    // true when taken from the folder's other modules
  target: string | null;        // "sm_8.0" (GPU), "cl_804429027" (TPU build id), else null
  steps: PassStep[];            // sorted by n
  /** In order of first entry; runs counts entries (after_pipeline-start steps, at least 1). */
  pipelines: { name: string; passes: string[]; runs: number; steps: number; first_step: number }[];
  /** The first step about to run layout-assignment; when XLA wrote none, the first step after it
   * (watershed_from says which); null when the dump has neither. */
  watershed: number | null;
  watershed_from: "before_layout-assignment" | "after_layout-assignment" | null;
  first_fusion: number | null;  // the first step with counts whose HLO holds a fusion
  kinds: { [K in DumpFileKind]?: number }; // the kinds present, with their file counts
}

/** What `readPasses(...)` returns (and `hloscope passes --json PATH` prints). */
export interface Passes {
  label: string | null;
  modules: PassModule[];        // by id
  files: { name: string; kind: DumpFileKind; module: number | null }[];
  unknown: number;              // files of kind "unknown"
  /** HS_W_DUMP_UNKNOWN_NAME, HS_W_DUMP_JUNK_LINE (line = the listing's line), HS_W_DUMP_STEP_UNREADABLE. */
  warnings: Warning[];
}

/** What `comparePasses(a, b)` returns (and `hloscope passes --compare --json A B` prints). */
export interface PassesCompare {
  a: { label: string | null; modules: string[]; backends: string[]; steps: number; passes: number };
  b: { label: string | null; modules: string[]; backends: string[]; steps: number; passes: number };
  /** Every pass (A's order, then B's) with where it ran: "a", "b" or "both". */
  passes: { pass: string; origin: "a" | "b" | "both"; pipelines_a: string[]; pipelines_b: string[] }[];
  /** Per pipeline name: its passes only in A, only in B, in both. */
  pipelines: { name: string; only_a: string[]; only_b: string[]; both: string[] }[];
  /** Sentences to read first: a side with no pass steps (every pass then shows as only in the other). */
  notes: string[];
  warnings: Warning[];
}

/** What `hloscope diff --json A B` prints (hs_diff_json): two optimized HLO modules compared by meaning. */
export interface DiffSide {
  module: string | null;
  fusion_ops: number;           // fusion instructions, nested included
  fusion_computations: number;  // distinct fused bodies
  instructions: number;
  partial: Partial | null;      // the text was cut
  /** The HBM traffic estimate (Spills); null when the text is not a whole optimized module. */
  hbm_bytes: { read: number | null; written: number | null };
}
export type DiffChange = "same" | "added" | "removed" | "merged" | "split" | "changed";
export interface Diff {
  a: DiffSide;
  b: DiffSide;
  /** A's matched instructions (`by`: the round that matched each), and those left on each side. */
  matched: { instructions: number; unmatched_a: number; unmatched_b: number; by: { op_name: number; source: number; structure: number; name: number } };
  /** Every fusion op of each side in exactly one entry; `moved`: op_names (else instruction names). */
  /** The matched instructions as [A's line, B's line] pairs (1-based), in A's order: what a
   * side-by-side view aligns. */
  pairs: [number, number][];
  /** The lines of the instructions of each side left unmatched (what a side-by-side view colours). */
  unmatched: { a: number[]; b: number[] };
  /** Every fusion op of each side in exactly one entry; `moved`: op_names (else instruction names);
   * `a_lines`/`b_lines`: the lines of the fusion ops named in `a`/`b`, in the same order;
   * `a_moved_lines`/`b_moved_lines`: the lines of each side's ops that moved (inside its fused bodies). */
  fusions: { change: DiffChange; a: string[]; b: string[]; moved: string[]; source: string[]; a_lines: number[]; b_lines: number[]; a_moved_lines: number[]; b_moved_lines: number[] }[];
  /** Big values in HBM on one side (`side`) that the other keeps in a fusion, off HBM, or lacks. */
  materialized: { change: "added" | "removed"; value: string; shape: string; bytes: number; side: "a" | "b"; line: number }[]; // line: where `side` defines it
  /** Custom-call targets and fusion backend kinds whose counts differ; `a_lines`/`b_lines`: the
   * lines of the instructions calling it on each side. */
  calls: { change: "added" | "removed" | "changed"; target: string; a: number; b: number; a_lines: number[]; b_lines: number[] }[];
  /** Every async transfer of each side in one entry, each side as `hloscope overlap` lists it:
   * "changed" when its kind, bytes, sync or the number of kernels it overlaps differ. */
  transfers: { change: "same" | "added" | "removed" | "changed"; a: Transfer | null; b: Transfer | null }[];
  /** The HloModule line's attributes of each side. */
  environment: { key: string; a: string | null; b: string | null }[];
  passes: PassesCompare | null; // two dump folders (CLI): their passes compared, as passes --compare gives them; else null
  /** With a profile of each side (--profiles PA PB), else null. */
  time: DiffTime | null;
  verdict: string;
}

/** The time of each side from its profile: the program whose HLO module is the side's module (by
 * name, every profiled op an instruction of it), as `hloscope timeline` counts it. */
export interface DiffTime {
  a_ps: number | null;          // per run of A's program, per device (the timeline's per_run_ps); null: unknown
  b_ps: number | null;
  a_runs: number | null;        // runs counted (per device)
  b_runs: number | null;
  a_program: { name: string | null; program_id: string | null } | null; // the program chosen; null: none is the side's module
  b_program: { name: string | null; program_id: string | null } | null;
  unknown: string | null;       // why a side's time is unknown ("A: its profile holds no run of jit_f (it ran jit_g)")
  /** Per op per run: a profile row of A joined through A's instruction, its match in B and B's row;
   * rows of one side only have null for the other (a/a_line: A's instruction, null when A has none;
   * a_ps: A's row, null when A's profile has none). Largest change first; changes under
   * noise.op_pct of the slower side's time per run count as none (then the slower op first). */
  ops: { a: string | null; b: string | null; a_ps: number | null; b_ps: number | null; a_line: number | null; b_line: number | null }[];
  /** B's time per run differs from A's by more than noise.total_pct of A's; null when a side is unknown. */
  differs: boolean | null;
  /** The thresholds: totals within total_pct of A's are "the same" (no verdict sentence). */
  noise: { total_pct: number; op_pct: number };
}

/** A folder's entries (a string entry is a name alone), or a pasted `ls` listing. */
export type PassesInput = string | (string | { name: string; data?: string | Uint8Array | ArrayBuffer | null })[];

/** Reads a dump folder. Throws HloscopeError HS_E_EMPTY (no names) or HS_E_FORMAT (no XLA name). */
export function readPasses(input: PassesInput, options?: { label?: string }): Passes;
export function passesJSON(input: PassesInput, options?: { label?: string }): string;
export function comparePasses(a: PassesInput, b: PassesInput, options?: { labels?: [string, string] }): PassesCompare;
export function comparePassesJSON(a: PassesInput, b: PassesInput, options?: { labels?: [string, string] }): string;
/** The entries of an archive as the core walks it: with the walk's warnings (HS_W_ARCHIVE_*);
 * given to readPasses / comparePasses, the core reads the archive itself, warnings included. */
export type ArchiveEntries = { name: string; data: Uint8Array | null }[] & { warnings: Warning[] };
/** The entries of a .tar.gz/.tgz, .tar or .zip (by content), walked by the core (the CLI's walker),
 * inflated by the platform's DecompressionStream; HloscopeError HS_E_FORMAT (naming the byte) when
 * corrupt, HS_E_UNSUPPORTED for zip64. */
export function readArchive(bytes: Uint8Array | ArrayBuffer): Promise<ArchiveEntries>;
/** What bytes are by their first bytes (the core's sniff): "gzip", "tar", "zip" or "none". */
export function archiveKind(bytes: Uint8Array | ArrayBuffer): "none" | "gzip" | "tar" | "zip";
/** Of a folder's file names, the optimized HLO beside a memory text (…-buffer-assignment.txt,
 * …-buffer-assignment-values.txt, …-memory-usage-report.txt), as `hloscope memory` finds it; or null. */
export function dumpSiblingHlo(names: string[], report: string): string | null;
/** Of a folder's file names, the *after_optimizations.txt of a .ll's module (the first by name), as
 * `hloscope llvm --hlo DIR` finds it; or null. */
export function dumpHloForLl(names: string[], ll: string): string | null;
/** Of a folder's file names, one module's three levels (its HLO, its .ll parts before and after
 * LLVM's optimizer, each in name order), as <xla-levels> shows them; null when no .ll is there. */
export function dumpLevels(names: string[]): { module: string | null; hlo: string | null; noopt: string[]; opt: string[] } | null;
/** True for names whose bytes readPasses reads (module_*.txt HLO dumps). */
export function passesWantsBytes(name: string): boolean;

// ---- memory texts and layouts (`hloscope memory`, `hloscope layout`, `hloscope layouts`) ----

/** One allocation: a listed "Largest program allocations" / "Peak buffers" entry, or a buffer
 * assignment's allocation. Extra keys appear where the text gives them. */
export interface MemoryAllocation {
  rank: number;             // 1 = largest; a pasted list keeps the number XLA printed
  bytes: number;            // integer bytes (XLA's K, M, G are KiB, MiB, GiB)
  shape: string | null;     // as printed, layout included: "f32[32,4096,4096]{1,2,0:T(8,128)}"
  label: string | null;     // XLA label / instruction name / allocation tag
  op_name: string | null;   // metadata op_name (or op_type)
  source: string | null;    // "file.py:123"
  kind: string | null;      // "HLO temp", "parameter", "output", "temp", "constant", "thread-local", "scoped", "runtime"
  unpadded_bytes?: number;  // TPU lists
  padding_bytes?: number;   // TPU lists: "Extra memory due to padding"
  index?: number;           // buffer assignment / usage report: allocation N
  color?: number;           // memory space color of the allocation
  parameter?: number;
  values?: Array<{ name?: string; offset: number; bytes: number; shape?: string; shapes?: string;
    values?: number; layout_bytes?: number | null; logical_bytes?: number | null;
    line?: number; opcode?: string }>; // line, opcode: joined to the optimized HLO
  allocation_size?: number | null; // TPU run time: the #allocation's own size (null for 0xffff...)
  line?: number; opcode?: string;  // joined to the optimized HLO (readMemory(text, hlo)); values too
}

/** What `readMemory(text)` and `hloscope memory --json` return. Any key is null where the text
 * does not say. */
export interface Memory {
  kind: "oom" | "buffer_assignment" | "memory_usage_report";
  backend: "tpu" | "gpu" | "cpu" | null;
  memory_space: string | null;   // as XLA prints it, lower case: "hbm", "vmem", "default"
  requested_bytes: number | null;
  used_bytes: number | null;
  capacity_bytes: number | null;
  exceeded_bytes: number | null;
  allocations: MemoryAllocation[];  // largest first
  /** Named byte counts the text prints: TPU total_usage, reserved, program, arguments, output,
   * program_requirement, global, scoped, hlo_temp, hlo_temp_unpadded, hlo_temp_padded,
   * fragmentation, scoped_limit; GPU parameter, constant, maybe_live_out, preallocated_temp,
   * total, fragmentation, base_limit and arguments (the GPU scheduler's line); buffer assignment total_bytes_used,
   * allocated, per kind (parameter, output, temp, constant, thread_local), color_N,
   * peak_live_bytes (the live-range report's logical peak); values_joined when joined to an HLO. */
  totals: Record<string, number>;
  explanation: string | null;
  warnings: Warning[];
  /** Issue 35: each figure the message prints has a named key (integer bytes: exact where the
   *  message prints them, else the printed figure in binary units; null when it prints none). */
  allocated_bytes: number | null;   // "Currently allocated: 6.08G"
  reserved_bytes: number | null;
  free_bytes: number | null;
  largest_free_bytes: number | null; // "the largest contiguous region of free memory is 30.56M"
  program_bytes: number | null;     // "Program requirement: 3.95G (4,237,689,856 bytes)" (exact)
  arguments_bytes: number | null;
  output_bytes: number | null;
  tensorcore_bytes: number | null;  // E1000/E1002: "TPU TensorCore Hbm usage: ..."
  sparsecore_bytes: number | null;  // "SparseCore Hbm usage ..."
  /** Every size the message prints, in text order of reading: name (the key without _bytes, a
   *  list field such as allocation, or the word before it), bytes, the text as printed (show
   *  this, not digits derived from a two-decimal figure) and its 1-based line. */
  figures: { name: string; bytes: number; printed: string; line: number }[];
  device_ordinal: number | null;    // the allocator's device number (not bytes)
  cause: string | null;             // the cause in a sentence, where the figures show it
  lacks: string[] | null;           // what the message does not print ("the device's capacity")
  code?: string | null;          // "E1000" when the message carries an error code
}

/** Reads an XLA out-of-memory message, a *-buffer-assignment.txt or a *-memory-usage-report.txt;
 * throws HloscopeError (HS_E_FORMAT, "not an XLA memory message") for other text. */
/** `hlo`: the module's optimized HLO (its text, or an HloDocument already parsed) joins allocations
 * and values to its instructions. `name`: the file's name (XLA's dump name says a buffer
 * assignment's backend: ...sm_8.0_gpu_...). */
export function readMemory(text: string, hlo?: string | HloDocument, name?: string): Memory;

/** A report page's payload (README: `hloscope report`): the cells it opens with and the files they read. */
export interface ReportPayload {
  format: 'hloscope-report';
  version: 1;
  title?: string;
  core?: string;
  created?: string;
  overview?: unknown;
  /** the anchor of the cell the page opens on */
  open?: string;
  markdown?: string | null;
  cells: Array<{ kind: 'markdown' | 'dump' | 'code' | 'folder' | 'profile'; name?: string; text?: string; anchor?: string;
    file?: number; files?: number[] }>;
  files: Array<{ name: string; bytes: number; format: string; encoding: 'gzip+base64' | 'base64'; data: string }>;
}
/** The HTML of a report page: `template` (dist/hloscope.html, or a report page) with `payload` put in. */
export function reportPage(template: string, payload: ReportPayload | string): string;
export function readMemoryJSON(text: string, hlo?: string | HloDocument, name?: string): string;

/** One type's layout in words with its padding. */
export interface Layout {
  type: string; shape?: string; element?: string; dims?: number[]; layout?: boolean;
  minor_to_major?: number[] | null; tiles?: Array<Array<number | "*">>;
  dim_level_types?: string | null; tail_padding_alignment?: number; index_type?: string | null;
  pointer_type?: string | null; element_size_bits?: number | null; memory_space?: number;
  split_configs?: string | null; physical_shape?: string | null; dynamic_metadata_bytes?: number;
  elements?: Layout[];          // tuples
  logical_bytes: number; padded_bytes: number; padding_bytes: number;
  words: string;                // "row-major; tiled 8x128, then bf16 pairs packed 2x1; lives in memory space 1 (VMEM on TPU)"
}
export function layout(type: string): Layout;

/** A module's padding table, largest padding first. The totals count each buffer once: a row
 *  with in_total false is an alias (bitcast, get-tuple-element, an output aliasing an operand). */
export interface Layouts {
  values: number; logical_bytes: number; padded_bytes: number; padding_bytes: number; unread: number;
  rows: Array<{ name: string; opcode: string; line: number; type: string; memory_space: number;
    logical_bytes: number; padded_bytes: number; padding_bytes: number; words: string; in_total: boolean }>;
  warnings: Warning[];
}
export function layouts(text: string): Layouts;
/** The core's registry, read from the wasm at `load()` (C: HS_FORMAT_MAP, HS_KIND_MAP,
 * HS_ERROR_MAP, HS_WARNING_MAP). Every format, result kind and code JS knows comes from here. */
export interface Registry {
  version: string;
  /** id = the C hs_format value; document: read by `parse()` (false: a reader of its own). */
  formats: { id: number; name: string; label: string; document: boolean }[];
  /** The result kinds of `HloDocument.json(kind)`. */
  kinds: { id: number; name: string }[];
  /** The command table: every command the hosts offer (CLI, JS, Python, widget), its inputs
   * and their roles, the result kind it prints. `passes --compare` is the row with mode "--compare". */
  commands: RegistryCommand[];
  /** Error codes, the JS-only ones (HS_E_FREED, HS_E_NOT_LOADED, HS_E_NOTFOUND, HS_E_NOWASM, HS_E_CANCELLED) included. */
  codes: { name: string; value: number; message: string }[];
  /** Warning codes (Warning.code). */
  warnings: { name: string; value: number }[];
}

/** One row of the core's command table (hs_command in hloscope.h). */
export interface RegistryCommand {
  name: string;
  mode: string | null;
  kind: string | null;
  /** true when the core renders this command's result as text (`text(kind, json)`). */
  text: boolean;
  usage: string;
  help: string;
  inputs: {
    name: string;
    flag: string | null;
    /** formats or kinds of input, comma-separated: "hlo,stablehlo,jaxpr", "xplane,trace_json", "memory", "llvm", "dump", "type", "text" */
    accepts: string;
    role: string;
    optional: boolean;
    repeated: boolean;
    blank_ok: boolean;
  }[];
}

/** The registry (frozen). Needs `load()`. */
export function registry(): Registry;

/** The format the core detects for a text, as `parse()` would: a registry format name, "unknown" when none. Needs `load()`. */
export function detectFormat(text: string): Format;

// ---- LLVM IR ---------------------------------------------------------------------------------

/** A loop as LLVM's LoopInfo finds it. */
export interface LlvmLoop {
  depth: number;                 // 1 = outermost
  trip_count: number | null;     // times the body runs (constant exit tests only)
  backedge_taken: number | null; // scalar evolution's backedge-taken count
  header: string;                // the header block's name, without '%'
  blocks: number;
  first_line: number;            // lines of its first and last block (for outlining)
  last_line: number;
}

export interface LlvmParam {
  name: string | null;           // without '%'
  type: string;                  // "ptr", "i64"
  noalias: boolean;
  align: number | null;
  dereferenceable: number | null;
  text: string;                  // the whole parameter as written
}

export interface LlvmFunction {
  name: string;                  // without '@'
  hlo: string | null;            // the HLO instruction it is named after (with an HLO given)
  kernel: boolean;               // not internal/private: called by the runtime
  line: number;
  end_line: number;
  params: LlvmParam[];
  blocks: number;
  loops: LlvmLoop[];
  vector_widths: string[];       // distinct vector types: "<8 x float>"
  loads: { count: number; types: Record<string, number> };
  stores: { count: number; types: Record<string, number> };
  ops: Record<string, number>;   // every other instruction by opcode
  calls: Record<string, number>; // by callee ("llvm.exp.f32")
  op_lines: Record<string, number[]>; // opcode or callee -> line numbers
}

/** What the lowering dropped, per kernel joined to its HLO instruction. */
export interface LlvmDropped {
  function: string;
  hlo: string;
  opcode: string;
  shapes: { hlo_operands: (string | null)[]; hlo_result: string | null; llvm_pointer_params: number; llvm_pointer_loads: number; llvm_getelementptr: number; llvm_index_ops: number };
  layouts: { hlo_layouts: string[]; llvm_array_types: string[] };
  fusion: { hlo_kind: string | null; hlo_body: string | null; hlo_body_instructions: number; llvm_function: string };
  names: { hlo_names: string[]; llvm_numbered: number; llvm_named: number };
}

/** What `readLlvm` returns and `hloscope llvm FILE --json` prints. */
export interface Llvm {
  module: string | null;         // source_filename
  triple: string | null;
  /** after LLVM's optimizer (a define carries local_unnamed_addr, which XLA's emitter never
   * writes), before it (false), or unknown (null: no define) */
  optimized: boolean | null;
  functions: LlvmFunction[];
  declared: string[];
  dropped: LlvmDropped[];
  warnings: Warning[];
}

/** Reads XLA's LLVM IR (`hlo`: the optimized HLO of the same module, optional). Throws
 * HloscopeError (`side` "left" = the LLVM IR, "right" = the HLO). */
/** `hlo`: the optimized HLO's text, or an HloDocument already parsed (several .ll texts join to
 *  one parse; the document is borrowed, not freed). */
export function readLlvm(text: string, hlo?: string | HloDocument): Llvm;
/** The raw JSON of `readLlvm`, byte for byte what the CLI prints. */
export function llvmJSON(text: string, hlo?: string | HloDocument): string;
