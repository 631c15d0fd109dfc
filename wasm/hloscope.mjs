// hloscope JS API over the WebAssembly build of the C core. Types: hloscope.d.ts beside this file.
//
//   import { load, parse, xray } from './hloscope.mjs';
//   await load();
//   const doc = parse(text);            // throws HloscopeError with code, line, column
//   doc.fusions(); doc.spills(); doc.summary(); doc.decisions(); doc.free();
//   xray(stablehloText, optimizedHloText);
//   const prof = parseProfile(bytes);   // .xplane.pb or trace JSON bytes (gunzip .gz first)
//   prof.timeline({ hlo, stablehlo, program });   // per-run envelope, per-op share, async pairs
//   prof.summary(); prof.free();
//
// Results are plain objects decoded from the JSON the core writes (the CLI's --json prints the
// same bytes). No view into wasm memory is kept across calls: memory growth replaces it.
import createHloscopeCore from './gen/hloscope_core.mjs';

let loading = null;
let M = null;
// The core's registry (formats, result kinds, codes), read from the wasm once at load(): no
// format, kind or code table is copied into JS. KINDS: name -> id; FORMATS: id -> name.
let REGISTRY = null;
let KINDS = null;
let FORMATS = null;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** Every failure of the core, with the C error's code and position. */
export class HloscopeError extends Error {
  constructor(info, side) {
    super(info.message || info.code);
    this.name = 'HloscopeError';
    this.code = info.code;
    this.line = info.line | 0;
    this.column = info.column | 0;
    this.offset = info.offset | 0;
    if (side) this.side = side;
  }
}

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);

/** Loads the wasm once; every call returns the same promise. */
export function load(options = {}) {
  if (!loading) {
    loading = (async () => {
      const opts = { ...options };
      if (!opts.wasmBinary && !opts.locateFile && isNode) {
        // Emscripten 3.1.6's web build cannot fetch file:// URLs in Node: hand it the bytes.
        try {
          const { readFileSync } = await import('node:fs');
          opts.wasmBinary = readFileSync(new URL('./gen/hloscope_core.wasm', import.meta.url));
        } catch {
          // a single-file build (wasm inlined) needs nothing
        }
      }
      const m = await createHloscopeCore(opts);
      M = m;
      try {
        readRegistry();
      } catch (e) {
        M = null;
        throw e;
      }
    })();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

export function isLoaded() { return M !== null; }

function core() {
  if (!M) throw new HloscopeError({ code: 'HS_E_NOT_LOADED', message: 'call `await load()` before using hloscope' });
  return M;
}

export function version() { return core().UTF8ToString(core()._hsw_version()); }

function readRegistry() {
  const p = M._hsw_registry_json() >>> 0;
  if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory reading the registry' });
  REGISTRY = deepFreeze(JSON.parse(takeString(p)));
  KINDS = Object.fromEntries(REGISTRY.kinds.map((k) => [k.name, k.id]));
  FORMATS = [];
  for (const f of REGISTRY.formats) FORMATS[f.id] = f.name;
}

function deepFreeze(o) {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * The core's registry, as the wasm hands it over: { version, formats: [{id, name, label,
 * document}], kinds: [{id, name}], codes: [{name, value, message}], warnings: [{name, value}] }.
 * Frozen; every format, result kind and error code JS knows comes from here.
 */
export function registry() {
  core();
  return REGISTRY;
}

/** The format of a text as the core detects it: a registry format name ('hlo', 'stablehlo', 'jaxpr', 'unknown', ...). */
export function detectFormat(text) {
  const m = core();
  const [ptr, len] = writeText(text);
  try {
    return FORMATS[m._hsw_detect(ptr, len)] || 'unknown';
  } finally {
    m._free(ptr);
  }
}

/** Copies a JS string into wasm memory as UTF-8 without quadratic copies; returns [ptr, len]. */
function writeText(text) {
  const m = core();
  if (typeof text !== 'string') throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the dump as a string' });
  let cap = Math.ceil(text.length * 1.07) + 16;
  let ptr = m._malloc(cap) >>> 0;
  if (!ptr) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${cap} bytes for the text` });
  let read = 0;
  let written = 0;
  for (;;) {
    const rest = read ? text.slice(read) : text;
    const r = encoder.encodeInto(rest, m.HEAPU8.subarray(ptr + written, ptr + cap));
    read += r.read;
    written += r.written;
    if (read >= text.length) break;
    const ncap = written + (text.length - read) * 3 + 16;
    const np = m._realloc(ptr, ncap) >>> 0;
    if (!np) {
      m._free(ptr);
      throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${ncap} bytes for the text` });
    }
    ptr = np;
    cap = ncap;
  }
  return [ptr, written];
}

/** Reads a malloc'd result string and frees it. */
function takeString(p) {
  const m = core();
  p >>>= 0;
  const n = m._hsw_result_len() >>> 0;
  const s = decoder.decode(m.HEAPU8.subarray(p, p + n));
  m._hsw_free(p);
  return s;
}

function lastError() {
  const m = core();
  const p = m._hsw_error_json() >>> 0;
  if (!p) return new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory' });
  const info = JSON.parse(takeString(p));
  const side = info.side === 1 ? 'left' : info.side === 2 ? 'right' : undefined;
  return new HloscopeError(info, side);
}

const docFinalizer = typeof FinalizationRegistry !== 'undefined'
  ? new FinalizationRegistry(({ doc, text }) => { if (M) { M._hsw_doc_free(doc); M._free(text); } })
  : null;

class HloDocument {
  #doc;
  #text;
  #format;
  constructor(doc, text) {
    this.#doc = doc;
    this.#text = text;
    this.#format = FORMATS[core()._hsw_doc_format(doc)] || 'unknown';
    docFinalizer?.register(this, { doc, text }, this);
  }
  get format() { return this.#format; }
  /** The raw JSON text of a result, byte for byte what `hloscope <kind> --json` prints. */
  json(kind) {
    if (!this.#doc) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this document was freed' });
    if (!Object.hasOwn(KINDS, kind)) throw new HloscopeError({ code: 'HS_E_ARG', message: `unknown result kind ${kind}` });
    const p = core()._hsw_result(this.#doc, KINDS[kind]) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the result' });
    return takeString(p);
  }
  /** The census counts alone (no per-fusion list): cheap on huge modules. */
  census() {
    if (!this.#doc) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this document was freed' });
    const p = core()._hsw_census(this.#doc) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the result' });
    return JSON.parse(takeString(p));
  }
  /** The wasm handle, for module-internal calls (layouts). */
  _handle() {
    if (!this.#doc) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this document was freed' });
    return this.#doc;
  }
  /** The human text of a result, byte for byte what `hloscope <kind> FILE` prints (the core's
   * renderer); `name`, the file's name as the text's header and warnings say it. */
  text(kind, name = '-') { return text(kind, this.json(kind), { name }); }
  summary() { return JSON.parse(this.json('summary')); }
  /** The fusion census; `{ rows }`: list at most that many fusions (the first), and say how
   * many there are in `fusions_total` (a page showing a few rows of a huge module). */
  fusions({ rows } = {}) {
    if (rows == null) return JSON.parse(this.json('fusions'));
    const p = core()._hsw_fusions_rows(this._handle(), Math.max(0, Math.min(rows, 0xfffffffe))) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the result' });
    return JSON.parse(takeString(p));
  }
  spills() { return JSON.parse(this.json('spills')); }
  computations() { return JSON.parse(this.json('computations')); }
  decisions() { return JSON.parse(this.json('decisions')); }
  overlap() { return JSON.parse(this.json('overlap')); }
  /** The module's padding table (what `hloscope layouts --json FILE` prints), from this document:
   * no second parse. */
  layouts() {
    const p = core()._hsw_layouts(this._handle()) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the result' });
    return JSON.parse(takeString(p));
  }
  free() {
    if (!this.#doc) return;
    docFinalizer?.unregister(this);
    core()._hsw_doc_free(this.#doc);
    core()._free(this.#text);
    this.#doc = 0;
    this.#text = 0;
  }
}

/** Parses a dump; throws HloscopeError on a parse error. */
export function parse(text) {
  const m = core();
  const [ptr, len] = writeText(text);
  const doc = m._hsw_parse(ptr, len) >>> 0;
  if (!doc) {
    m._free(ptr);
    throw lastError();
  }
  return new HloDocument(doc, ptr);
}

/**
 * Parses a dump given as UTF-8 bytes: a Uint8Array, an ArrayBuffer, or an array of Uint8Array
 * chunks (a file's stream, read in parts). The bytes are copied into the core's memory as they
 * are, never decoded into one JS string, so a file past the browser's string limit (about
 * 512 MB) is read too; the limit is the core's 4 GB of memory. Throws HloscopeError like parse().
 */
export function parseBytes(bytes) {
  const m = core();
  const parts = Array.isArray(bytes) ? bytes : [bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes];
  if (!parts.every((u) => u instanceof Uint8Array)) {
    throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the dump as a Uint8Array, an ArrayBuffer or an array of Uint8Array' });
  }
  const len = parts.reduce((n, u) => n + u.length, 0);
  const ptr = m._malloc(Math.max(1, len)) >>> 0;
  if (!ptr) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${len} bytes for the dump` });
  let at = ptr;
  for (const u of parts) { m.HEAPU8.set(u, at); at += u.length; }
  const doc = m._hsw_parse(ptr, len) >>> 0;
  if (!doc) {
    m._free(ptr);
    throw lastError();
  }
  return new HloDocument(doc, ptr);
}

/** The raw JSON of the x-ray of a pair (what `hloscope xray --json LEFT RIGHT` prints). */
export function xrayJSON(left, right) { return textCall('_hsw_xray', left, right); }

/** The x-ray of a StableHLO (left) / optimized HLO (right) pair. */
export function xray(left, right) { return JSON.parse(xrayJSON(left, right)); }

/**
 * The raw JSON of what changed between two compiles (what `hloscope diff --json A B` prints):
 * a and b are optimized HLO texts (compile().as_text() or a dump's *after_optimizations.txt).
 * options.profiles: [A's, B's], each the bytes of a profile of that side's runs (.xplane.pb, or
 * trace JSON already gunzipped), or a Profile from parseProfile/parseProfiles: the result's
 * `time` (what `--profiles PA PB` gives). options.environment: [A's, B's], each an object of
 * strings and numbers (or its JSON) of what is known of that side's compile and its text does
 * not carry (jax versions, cost_analysis()): `environment` entries, compared in the verdict (what
 * `--environment EA EB` gives). A parse error carries side 'a' or 'b'.
 */
export function diffJSON(a, b, options = {}) {
  const m = core();
  const docs = [];
  const profs = [];
  const own = [];
  const envPtrs = [];
  try {
    for (const [text, side] of [[a, 'a'], [b, 'b']]) {
      try {
        docs.push(parse(text));
      } catch (e) {
        if (e instanceof HloscopeError) e.side = side;
        throw e;
      }
    }
    const given = options.profiles;
    if (given != null) {
      if (!Array.isArray(given) || given.length !== 2) {
        throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected profiles: [A\'s profile, B\'s profile]' });
      }
      given.forEach((x, i) => {
        if (x instanceof Profile) { profs.push(x); return; }
        try {
          const p = parseProfile(x);
          own.push(p);
          profs.push(p);
        } catch (e) {
          if (e instanceof HloscopeError) e.side = i ? 'b' : 'a';
          throw e;
        }
      });
    }
    const envs = options.environment;
    if (envs != null && (!Array.isArray(envs) || envs.length !== 2)) {
      throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected environment: [A\'s, B\'s] (objects of strings and numbers)' });
    }
    // Each side's facts as JSON bytes, copied in; the core reads them (and says so when they are not an object).
    const envArgs = [];
    for (const e of envs ?? [null, null]) {
      if (e == null) { envArgs.push(0, 0); continue; }
      const [ptr, len] = writeBytes(new TextEncoder().encode(typeof e === 'string' ? e : JSON.stringify(e)));
      envPtrs.push(ptr);
      envArgs.push(ptr, len);
    }
    const p = (profs.length || envs != null
      ? m._hsw_diff_ex(docs[0]._handle(), docs[1]._handle(), profs[0]?._handle() ?? 0, profs[1]?._handle() ?? 0, ...envArgs)
      : m._hsw_diff(docs[0]._handle(), docs[1]._handle())) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the diff' });
    return takeString(p);
  } finally {
    for (const d of docs) d.free();
    for (const p of own) p.free();
    for (const ptr of envPtrs) m._free(ptr);
  }
}

/** What changed between two compiles, by meaning (keys: README "What changed between two compiles"). */
export function diff(a, b, options = {}) { return JSON.parse(diffJSON(a, b, options)); }

// ---- profiles ------------------------------------------------------------------------------

const profileRegistry = typeof FinalizationRegistry !== 'undefined'
  ? new FinalizationRegistry((prof) => { if (M) M._hsw_profile_free(prof); })
  : null;

class Profile {
  #p;
  constructor(p) {
    this.#p = p;
    profileRegistry?.register(this, p, this);
  }
  /** The raw JSON text: byte for byte what `hloscope profile --json FILE` prints. */
  json() {
    if (!this.#p) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this profile was freed' });
    const p = core()._hsw_profile_json(this.#p) >>> 0;
    if (!p) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory building the result' });
    return takeString(p);
  }
  summary() { return JSON.parse(this.json()); }
  /**
   * The raw timeline JSON: byte for byte what `hloscope timeline --json PROFILE [...]` prints.
   * options: { hlo?: string (an optimized HLO dump), stablehlo?: string, program?: string | number }.
   */
  timelineJSON(options = {}) {
    if (!this.#p) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this profile was freed' });
    const m = core();
    const ptrs = [];
    try {
      const text = (t) => {
        if (t == null || t === '') return [0, 0];
        const r = writeText(t);
        ptrs.push(r[0]);
        return r;
      };
      const [hp, hl] = text(options.hlo);
      const [sp, sl] = text(options.stablehlo);
      const [pp] = options.program == null || options.program === '' ? [0] : text(`${options.program}\0`);
      const p = m._hsw_profile_timeline(this.#p, hp, hl, sp, sl, pp) >>> 0;
      if (!p) throw lastError();
      return takeString(p);
    } finally {
      for (const p of ptrs) m._free(p);
    }
  }
  /** The timeline: programs, rows per op, async pairs, the reading (see `Timeline` in hloscope.d.ts). */
  timeline(options = {}) { return JSON.parse(this.timelineJSON(options)); }
  /** The wasm handle, for module-internal calls (diff with profiles). */
  _handle() {
    if (!this.#p) throw new HloscopeError({ code: 'HS_E_FREED', message: 'this profile was freed' });
    return this.#p;
  }
  free() {
    if (!this.#p) return;
    profileRegistry?.unregister(this);
    core()._hsw_profile_free(this.#p);
    this.#p = 0;
  }
}

/**
 * Reads a profile: the bytes of a `.xplane.pb`, or of a trace-event JSON (`.trace.json`).
 * A `.gz` file must be gunzipped first (see `gunzip`). Throws HloscopeError on a parse error.
 */
export function parseProfile(bytes) {
  const m = core();
  let u8;
  if (bytes instanceof Uint8Array) u8 = bytes;
  else if (bytes instanceof ArrayBuffer) u8 = new Uint8Array(bytes);
  else if (ArrayBuffer.isView(bytes)) u8 = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  else throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the profile as a Uint8Array or an ArrayBuffer' });
  const ptr = m._malloc(Math.max(1, u8.length)) >>> 0;
  if (!ptr) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${u8.length} bytes for the profile` });
  m.HEAPU8.set(u8, ptr);
  try {
    const p = m._hsw_profile_parse(ptr, u8.length) >>> 0;
    if (!p) throw lastError();
    return new Profile(p);
  } finally {
    m._free(ptr); // the profile copies what it keeps
  }
}

/**
 * Reads several profiles as one: the files a multi-process or multi-host job wrote (one
 * `.xplane.pb` per process), as `[{ name, bytes }]`. Programs are joined across files by their
 * program id; every device plane of every file is a device; `name` names the file's host and
 * the file in results and in an error. Throws HloscopeError (naming the file) on a parse error.
 */
export function parseProfiles(files) {
  const m = core();
  if (!Array.isArray(files) || !files.length) throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected [{ name, bytes }] with one file or more' });
  const ptrs = [];
  try {
    const rec = m._malloc(12 * files.length) >>> 0;
    if (!rec) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory' });
    ptrs.push(rec);
    files.forEach((f, i) => {
      const b = f.bytes;
      const u8 = b instanceof Uint8Array ? b : b instanceof ArrayBuffer ? new Uint8Array(b)
        : ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : null;
      if (!u8) throw new HloscopeError({ code: 'HS_E_ARG', message: `file ${i}: expected its bytes as a Uint8Array or an ArrayBuffer` });
      const data = m._malloc(Math.max(1, u8.length)) >>> 0;
      if (!data) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${u8.length} bytes for ${f.name ?? `file ${i}`}` });
      ptrs.push(data);
      m.HEAPU8.set(u8, data);
      const name = f.name == null ? 0 : writeText(`${f.name}\0`)[0];
      if (name) ptrs.push(name);
      const w = (rec >>> 2) + 3 * i; // {name, data, len}: three 32-bit words (wasm32)
      m.HEAPU32[w] = name;
      m.HEAPU32[w + 1] = data;
      m.HEAPU32[w + 2] = u8.length;
    });
    const p = m._hsw_profile_parse_files(rec, files.length) >>> 0;
    if (!p) throw lastError();
    return new Profile(p);
  } finally {
    for (const p of ptrs) m._free(p); // the profile copies what it keeps
  }
}

/**
 * Reads a profile that is not held whole: `source` is `{ size, read(offset, length), name? }`,
 * where `read` returns exactly `length` bytes at `offset` (a Uint8Array), synchronously: in a
 * worker, `new FileReaderSync().readAsArrayBuffer(file.slice(offset, offset + length))`; in
 * Node, `fs.readSync`. An `.xplane.pb` is walked a window (8 MiB, `options.window`) at a time,
 * so the core's memory holds what the profile keeps, not the file; anything else is read whole.
 * `options.onProgress({ stage, done, total })` is called as the parse moves on (stages
 * "scanning", "reading", "counting"; done and total in bytes), from inside the parse. A `read`
 * that throws or returns the wrong length fails the parse with HS_E_READ (its error is the
 * cause).
 */
export function parseProfileSource(source, options = {}) {
  const m = core();
  const size = source?.size;
  if (!Number.isSafeInteger(size) || size < 0 || typeof source.read !== 'function') {
    throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected { size, read(offset, length) }' });
  }
  let cause = null;
  m.hsRead = (off, dst, len) => {
    try {
      const b = source.read(off, len);
      if (!b || b.length !== len) {
        cause = new Error(`read(${off}, ${len}) gave ${b ? b.length : 'no'} bytes`);
        return 1;
      }
      core().HEAPU8.set(b, dst); // a fresh view: the memory may have grown since the last read
      return 0;
    } catch (e) {
      cause = e;
      return 1;
    }
  };
  const onProgress = options.onProgress;
  m.hsProgress = onProgress ? (stage, done, total) => onProgress({ stage, done, total }) : null;
  const name = source.name == null ? 0 : writeText(`${source.name}\0`)[0];
  try {
    const p = m._hsw_profile_parse_source(size, options.window ?? 0, name) >>> 0;
    if (!p) {
      const e = lastError();
      if (cause) e.cause = cause;
      throw e;
    }
    return new Profile(p);
  } finally {
    m.hsRead = null;
    m.hsProgress = null;
    if (name) m._free(name);
  }
}

/** Bytes of memory the core holds now (its WebAssembly memory: it grows and never shrinks). */
export function memoryBytes() {
  return core().HEAPU8.buffer.byteLength;
}

/**
 * A profile written straight into the core's memory, chunk by chunk, so that a big file is held
 * once, not twice (a JS copy and the core's): `const s = profileSink(size); s.write(chunk)...;
 * const prof = s.parse();` (or `s.abort()`). A chunk past `size` throws. Each write takes the
 * memory view afresh (another call may have grown the memory in between).
 */
export function profileSink(size) {
  const m = core();
  if (!Number.isSafeInteger(size) || size < 0) throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the profile size in bytes' });
  let ptr = m._malloc(Math.max(1, size)) >>> 0;
  if (!ptr) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${size} bytes for the profile` });
  let done = 0;
  const gone = () => new HloscopeError({ code: 'HS_E_FREED', message: 'this profile sink was parsed or aborted' });
  return {
    get written() { return done; },
    write(chunk) {
      if (!ptr) throw gone();
      if (done + chunk.length > size) throw new HloscopeError({ code: 'HS_E_ARG', message: `more than the ${size} bytes announced` });
      core().HEAPU8.set(chunk, ptr + done);
      done += chunk.length;
    },
    parse() {
      if (!ptr) throw gone();
      try {
        const p = core()._hsw_profile_parse(ptr, done) >>> 0;
        if (!p) throw lastError();
        return new Profile(p);
      } finally {
        core()._free(ptr);
        ptr = 0;
      }
    },
    abort() { if (ptr) core()._free(ptr); ptr = 0; },
  };
}

/** Gunzips bytes (a `.trace.json.gz`) with the platform's DecompressionStream (Node 18+, browsers). */
export async function gunzip(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const stream = new Blob([u8]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// ---- dump folders (--xla_dump_to) -----------------------------------------------------------

/** Names whose bytes the core reads (its rule, hs_dumpset_wants_bytes: HLO steps and module dumps,
 * debug and compile options); the rest go by name alone. Needs `await load()`. */
export function passesWantsBytes(name) {
  const m = core();
  const [ptr, len] = writeBytes(new TextEncoder().encode(name));
  try {
    return m._hsw_dumpset_wants_bytes(ptr, len) !== 0;
  } finally {
    m._free(ptr);
  }
}

const ARCHIVE_KINDS = ['none', 'gzip', 'tar', 'zip'];
const asBytes = (b) => (b instanceof Uint8Array ? b : b instanceof ArrayBuffer ? new Uint8Array(b)
  : ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : null);

/** What bytes are, by their first bytes (the core's sniff, hs_archive_kind): 'gzip', 'tar', 'zip'
 * or 'none'. Every host asks this rather than testing magic bytes or file names itself. */
export function archiveKind(bytes) {
  const u8 = asBytes(bytes);
  if (!u8) return 'none';
  const head = u8.subarray(0, 512); // the sniff reads at most 512 bytes
  const [ptr, len] = writeBytes(head);
  try {
    return ARCHIVE_KINDS[core()._hsw_archive_kind(ptr, len)] ?? 'none';
  } finally {
    core()._free(ptr);
  }
}

const ARCHIVE = Symbol('hloscope.archive');

/** One walk of an archive by the core over a stash of the streams inflated so far (written into
 * wasm memory afresh, freed after): `fn(m, stash, ptr, len)`'s result. */
function withStash(u8, inflated, fn) {
  const m = core();
  const st = m._hsw_stash_new() >>> 0;
  if (!st) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory' });
  let ptr = 0;
  try {
    for (const s of inflated) {
      let out = 0;
      if (s.data) {
        out = m._malloc(Math.max(1, s.data.length)) >>> 0;
        if (!out) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${s.data.length} bytes` });
        m.HEAPU8.set(s.data, out);
      }
      if (m._hsw_stash_add(st, s.buf, s.off, s.n, s.method, out, s.data ? s.data.length : 0, s.data ? 0 : 1) < 0) {
        if (out) m._free(out);
        throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory' });
      }
    }
    [ptr] = writeBytes(u8);
    return fn(m, st, ptr, u8.length);
  } finally {
    if (ptr) m._free(ptr);
    m._hsw_stash_free(st);
  }
}

async function inflateStream(bytes, method) {
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(method === 8 ? 'deflate-raw' : 'gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    return null; // the core says it does not inflate
  }
}

/**
 * The entries of a .tar.gz/.tgz, .tar or .zip of a dump folder (what the bytes are, not their
 * name), walked by the core (the CLI's walker); the platform's DecompressionStream inflates what
 * the core asks for. Returns [{ name, data }] in the archive's order (data null for files whose
 * bytes the core does not read), with `warnings` (the core's HS_W_ARCHIVE_*); readPasses and
 * comparePasses given this array read the archive as `hloscope passes` does, warnings included.
 * Throws HloscopeError (HS_E_FORMAT, HS_E_UNSUPPORTED) naming the byte where it is corrupt.
 */
export async function readArchive(bytes) {
  const u8 = asBytes(bytes);
  if (!u8) throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the archive as a Uint8Array or an ArrayBuffer' });
  const inflated = []; // { buf, off, n, method, data }: buf 0 the archive, k the k-th stream inflated
  for (;;) {
    let pending = [];
    const r = withStash(u8, inflated, (m, st, ptr, len) => {
      const p = m._hsw_archive_list(st, ptr, len) >>> 0;
      if (!p) throw lastError();
      const res = JSON.parse(takeString(p));
      const count = m._hsw_stash_count(st);
      for (let i = inflated.length; i < count; i++) {
        const w = (k) => m._hsw_stash_word(st, i, k) >>> 0;
        pending.push({ buf: w(0), off: w(1), n: w(2), method: w(3) });
      }
      return res;
    });
    if (!r.later) {
      const src = (buf) => (buf === 0 ? u8 : inflated[buf - 1].data);
      const entries = r.files.map(([name, buf, off, len]) => ({ name, data: buf == null ? null : src(buf).subarray(off, off + len) }));
      entries.warnings = r.warnings;
      Object.defineProperty(entries, ARCHIVE, { value: { bytes: u8, inflated } });
      return entries;
    }
    if (!pending.length) throw new HloscopeError({ code: 'HS_E_FORMAT', message: 'the archive asked for a stream it was given' });
    for (const p of pending) {
      const from = p.buf === 0 ? u8 : inflated[p.buf - 1].data;
      inflated.push({ ...p, data: await inflateStream(from.subarray(p.off, p.off + p.n), p.method) });
    }
  }
}

/** Names, one a line, for the core's dump-folder queries; [] when names is not a list of strings. */
function namesText(names) {
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected the folder\'s file names as an array of strings' });
  }
  return names.map((n) => n.replace(/\n/g, ' ')).join('\n');
}

/** The optimized HLO a dump's memory text goes with (the core's rule, as `hloscope memory` finds
 * it): of `names` (a folder's files), the name module_X.<...>after_optimizations.txt beside
 * `report` (…-buffer-assignment.txt, …-buffer-assignment-values.txt, …-memory-usage-report.txt),
 * or null. */
export function dumpSiblingHlo(names, report) {
  const i = textCallNumber('_hsw_dumpset_sibling_hlo', namesText(names), String(report));
  return i >= 0 ? names[i] : null;
}

/** The optimized HLO of a .ll file among `names` (the core's rule, as `hloscope llvm --hlo DIR`
 * finds it): the *after_optimizations.txt of the .ll's module_NNNN. (the first by name), or null. */
export function dumpHloForLl(names, ll) {
  const i = textCallNumber('_hsw_dumpset_hlo_for_ll', namesText(names), String(ll));
  return i >= 0 ? names[i] : null;
}

/** The files of one module's three levels among `names` (the core's choice, for <xla-levels>):
 * { module, hlo: name | null, noopt: [names], opt: [names] }, or null when no .ll is there. */
export function dumpLevels(names) {
  const r = JSON.parse(textCall('_hsw_dumpset_levels', namesText(names)));
  if (!r) return null;
  return { module: r.module, hlo: r.hlo == null ? null : names[r.hlo], noopt: r.no_opt.map((i) => names[i]), opt: r.with_opt.map((i) => names[i]) };
}

/** m[fn](ptr1, len1, ...) over texts written into wasm memory: its number. */
function textCallNumber(fn, ...texts) {
  const m = core();
  const args = [];
  try {
    for (const t of texts) args.push(...writeText(t));
    return Number(m[fn](...args));
  } finally {
    for (let i = 0; i < args.length; i += 2) if (args[i]) m._free(args[i]);
  }
}

function writeBytes(u8) {
  const m = core();
  const ptr = m._malloc(Math.max(1, u8.length)) >>> 0;
  if (!ptr) throw new HloscopeError({ code: 'HS_E_NOMEM', message: `cannot allocate ${u8.length} bytes` });
  m.HEAPU8.set(u8, ptr);
  return [ptr, u8.length];
}

function buildDumpset(input, label) {
  const m = core();
  const s = m._hsw_dumpset_new() >>> 0;
  if (!s) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory' });
  const call = (fn, text) => {
    const [p, n] = typeof text === 'string' ? writeText(text) : writeBytes(text);
    try {
      return fn(p, n);
    } finally {
      m._free(p);
    }
  };
  try {
    if (label) call((p, n) => m._hsw_dumpset_set_label(s, p, n), String(label));
    let rc = 0;
    if (typeof input === 'string') rc = call((p, n) => m._hsw_dumpset_add_listing(s, p, n), input);
    else if (Array.isArray(input) && input[ARCHIVE]) {
      // readArchive's: the core walks the archive again, every stream it needs at hand
      const { bytes, inflated } = input[ARCHIVE];
      const r = withStash(bytes, inflated, (mm, st, ptr, len) => mm._hsw_dumpset_add_archive(s, st, ptr, len));
      if (r < 0) throw lastError();
      if (r > 0) throw new HloscopeError({ code: 'HS_E_FORMAT', message: 'the archive needs a stream readArchive did not inflate' });
    } else if (Array.isArray(input)) {
      for (const e of input) {
        const name = typeof e === 'string' ? e : e && e.name;
        if (typeof name !== 'string') throw new HloscopeError({ code: 'HS_E_ARG', message: 'each entry needs a name' });
        let data = typeof e === 'string' ? null : e.data;
        if (data != null && !passesWantsBytes(name)) data = null;
        if (data instanceof ArrayBuffer) data = new Uint8Array(data);
        rc = call((np, nn) => {
          if (data == null) return m._hsw_dumpset_add(s, np, nn, 0, 0);
          return call((dp, dn) => m._hsw_dumpset_add(s, np, nn, dp, dn), data);
        }, name);
        if (rc) break;
      }
    } else throw new HloscopeError({ code: 'HS_E_ARG', message: 'expected a listing (string) or an array of { name, data }' });
    if (rc) throw new HloscopeError({ code: 'HS_E_NOMEM', message: 'out of memory reading the folder' });
  } catch (err) {
    m._hsw_dumpset_free(s);
    throw err;
  }
  return s;
}

/** The raw JSON of a dump folder: byte for byte what `hloscope passes --json` prints. */
export function passesJSON(input, options = {}) {
  const m = core();
  const s = buildDumpset(input, options.label);
  try {
    const p = m._hsw_dumpset_json(s) >>> 0;
    if (!p) throw lastError();
    return takeString(p);
  } finally {
    m._hsw_dumpset_free(s);
  }
}

/**
 * A dump folder read: modules, steps, pipelines, watershed, files, warnings. `input` is a pasted
 * `ls` listing (a string) or the folder's entries [{ name, data? }] (data: string or bytes; only
 * HLO text files' bytes are read). Throws HloscopeError HS_E_EMPTY / HS_E_FORMAT.
 */
export function readPasses(input, options = {}) { return JSON.parse(passesJSON(input, options)); }

/** The raw JSON of two folders compared: what `hloscope passes --compare --json A B` prints. */
export function comparePassesJSON(a, b, options = {}) {
  const m = core();
  const labels = options.labels || [];
  const sa = buildDumpset(a, labels[0]);
  let sb = 0;
  try {
    sb = buildDumpset(b, labels[1]);
    const p = m._hsw_dumpset_compare(sa, sb) >>> 0;
    if (!p) throw lastError();
    return takeString(p);
  } finally {
    m._hsw_dumpset_free(sa);
    if (sb) m._hsw_dumpset_free(sb);
  }
}

/** Two dump folders compared pass by pass: each pass's origin (a, b, both), per pipeline. */
export function comparePasses(a, b, options = {}) { return JSON.parse(comparePassesJSON(a, b, options)); }

// ---- memory texts and layouts (issue 14) ------------------------------------------------------

/** A text not given to textCall: the call gets a null pointer and length 0. */
const NO_TEXT = Symbol('no text');

/** m[fn](ptr1, len1, ptr2, len2, ...) over the texts written into wasm memory (NO_TEXT: 0, 0), its
 * string result. An HloDocument among them is passed as its handle (one argument, borrowed). */
function textCall(fn, ...texts) {
  const m = core();
  const args = [];
  const owned = [];
  try {
    for (const t of texts) {
      if (t instanceof HloDocument) { args.push(t._handle()); continue; }
      const r = t === NO_TEXT ? [0, 0] : writeText(t);
      if (r[0]) owned.push(r[0]);
      args.push(...r);
    }
    const p = m[fn](...args) >>> 0;
    if (!p) throw lastError();
    return takeString(p);
  } finally {
    for (const p of owned) m._free(p);
  }
}

/**
 * The human text of a result, byte for byte what `hloscope COMMAND` prints: `kind` is the command
 * table's result kind (registry().commands[i].kind), `json` the result's JSON (a string, or the
 * object it parses to). `names`: { name, nameB } the inputs as the text names them (diff: A and B;
 * x-ray: LEFT and RIGHT), and for the x-ray { left, right }, the two texts its lines are printed from.
 */
export function text(kind, json, names = {}) {
  const j = typeof json === 'string' ? json : JSON.stringify(json);
  const opt = (s) => (s == null ? NO_TEXT : String(s));
  return textCall('_hsw_text', String(kind), j, opt(names.name), opt(names.nameB), opt(names.left), opt(names.right));
}

/**
 * A report page (what `hloscope report --out` writes): `template`, the text of a page `npm run
 * build` wrote (dist/hloscope.html) or of a report saved before, with `payload` (an object or its
 * JSON: { format: 'hloscope-report', version: 1, title, cells, files }) put in by the core. Returns
 * the page's HTML; throws HloscopeError (HS_E_FORMAT) when the template has no slot.
 */
export function reportPage(template, payload) {
  return textCall('_hsw_report_page', template, typeof payload === 'string' ? payload : JSON.stringify(payload));
}

/** The raw JSON of an XLA out-of-memory message, buffer assignment or memory-usage report
 * (what `hloscope memory --json FILE [HLO]` prints); `hlo`, the module's optimized HLO (its text,
 * or an HloDocument already parsed: not parsed again), joins allocations and values to its
 * instructions. */
export function readMemoryJSON(text, hlo = '', name = '') {
  if (hlo instanceof HloDocument) return textCall('_hsw_memory_doc', text, hlo, name ?? '');
  return textCall('_hsw_memory', text, hlo ?? '', name ?? '');
}

/** Reads an XLA out-of-memory message, a *-buffer-assignment.txt or a *-memory-usage-report.txt
 * into numbers (joined to the optimized HLO `hlo` when given; `name`, the file's name, gives a
 * buffer assignment its backend when its text does not); throws HloscopeError (HS_E_FORMAT)
 * for any other text. */
export function readMemory(text, hlo = '', name = '') { return JSON.parse(readMemoryJSON(text, hlo, name)); }

/** One HLO type's layout in words with its padding (what `hloscope layout --json TYPE` prints). */
export function layout(type) { return JSON.parse(textCall('_hsw_layout', type)); }

/** A module's padding table (what `hloscope layouts --json FILE` prints). A document already
 * parsed has its own: `doc.layouts()`. */
export function layouts(text) {
  const doc = parse(text);
  try {
    return doc.layouts();
  } finally {
    doc.free();
  }
}

// ---- LLVM IR (what XLA writes: *.ir-no-opt.ll, *.ir-with-opt.ll) ----------------------------

/**
 * The raw JSON of an LLVM IR text (what `hloscope llvm FILE [--hlo HLO] --json` prints). `hlo`,
 * the optimized HLO of the same module, is optional: with it each kernel is joined to its fusion
 * and `dropped` is filled. Throws HloscopeError (side 'left' = the LLVM IR, 'right' = the HLO).
 * `hlo` may be an HloDocument already parsed: several .ll texts (the parts and levels of one
 * module) join to one parse of their HLO.
 */
export function llvmJSON(text, hlo = '') {
  if (hlo instanceof HloDocument) return textCall('_hsw_llvm_doc', text, hlo);
  return textCall('_hsw_llvm', text, hlo || NO_TEXT);
}

/** Reads an LLVM IR text (see llvmJSON); returns the `Llvm` object of hloscope.d.ts. */
export function readLlvm(text, hlo = '') { return JSON.parse(llvmJSON(text, hlo)); }
