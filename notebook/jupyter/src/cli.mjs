// `node cli.mjs <command> FILE...`: the native CLI's human-readable output, from the same core
// compiled to WebAssembly. The Python package runs this (bundled as hloscope/static/cli.mjs with
// the wasm inlined) when the native `hloscope` is not built. The printers below follow
// core/cli/main.c line for line (printf widths count bytes, as C does); the Python tests hold
// the two outputs equal.
//
//   node cli.mjs summary|fusions|spills|computations|decisions [--json] FILE
//   node cli.mjs xray [--json] LEFT RIGHT        (a blank LEFT x-rays RIGHT alone)
//   node cli.mjs profile [--json] PROFILE...     (.xplane.pb, .trace.json, or gzipped: .gz; or folders)
//   node cli.mjs timeline [--json] PROFILE... [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID]
//                                                (several files or folders: one job's, read as one)
//   node cli.mjs memory [--json] FILE [HLO]      (a dump's report joins the HLO beside it)
//   node cli.mjs passes [--json] PATH            (a dump folder, its .tar.gz/.tar/.zip, or an `ls` listing)
//   node cli.mjs diff [--json] [--profiles PA PB] [--environment EA EB] A B   (two optimized HLO files; PA/PB profile files)
// FILE may be - for standard input. Exit status as the CLI: 0, 2 on a parse error, 1 otherwise.
// Imported, it runs nothing: run(argv) -> { code, stdout, stderr } (tests/node/jupyter-text.test.mjs).
import { existsSync, opendirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HloscopeError, gunzip, load, parse, parseProfile, parseProfiles, passesJSON, passesWantsBytes, readArchive, readMemoryJSON, xrayJSON, diffJSON } from '../../../wasm/hloscope.mjs';

let out = [];
let err = [];
const write = (s) => out.push(Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8'));
const stderr = { write: (s) => err.push(String(s)) };
const B = (s) => (Buffer.isBuffer(s) ? s : Buffer.from(String(s), 'utf8'));

/** printf's %-W.Ps / %W.Ps on bytes. */
function pad(s, width = 0, { left = true, prec } = {}) {
  let b = B(s);
  if (prec !== undefined && b.length > prec) b = b.subarray(0, prec);
  if (b.length >= width) return b;
  const sp = Buffer.alloc(width - b.length, 0x20);
  return Buffer.concat(left ? [b, sp] : [sp, b]);
}
const geti = (o, k) => (o && Number.isInteger(o[k]) ? o[k] : 0);
const gets = (o, k) => (o && typeof o[k] === 'string' ? o[k] : '-');
const line = (...parts) => write(Buffer.concat([...parts.map(B), Buffer.from('\n')]));

function printWarnings(w, path) {
  for (const x of w || []) line(`warning: ${path}:${geti(x, 'line')}:${geti(x, 'column')}: ${gets(x, 'message')}`);
}

function humanSummary(j, path) {
  let s = `${path}: ${gets(j, 'format')}`;
  if (typeof j.module === 'string') s += ` module ${gets(j, 'module')}`;
  line(s);
  line(`  ${geti(j, 'lines')} lines, ${geti(j, 'modules')} modules, ${geti(j, 'computations')} computations, ${geti(j, 'instructions')} instructions`);
  printWarnings(j.warnings, path);
}

function humanFusions(j) {
  line(`${geti(j, 'fusion_computations')} fused computations, ${geti(j, 'fusion_ops')} fusion ops (${geti(j, 'fusion_ops_top_level')} top-level, ${geti(j, 'fusion_ops_nested')} nested)`);
  for (const f of j.fusions || []) {
    line('  line ', pad(geti(f, 'line'), 5), ' ', f.nested === true ? '  ' : '', pad(gets(f, 'name'), 24), ' ',
      pad(gets(f, 'kind'), 8), ' -> ', gets(f, 'calls'), `  ${gets(f, 'type')} S(${geti(f, 'memory_space')})`);
    line('             holds:', (f.ops || []).map((op, k) => `${k ? ' ·' : ''} ${op}`).join(''));
  }
}

function humanSpills(j) {
  const b = j.big;
  if (b && typeof b === 'object') {
    line(`big intermediate: ${gets(b, 'type')} (${geti(b, 'bytes')} bytes) in memory space ${geti(b, 'memory_space')}, ${gets(b, 'name')} at line ${geti(b, 'line')}`);
  } else line('big intermediate: none');
  for (const c of j.carriers || []) {
    line('  carried at line ', pad(geti(c, 'line'), 5), ' ', pad(gets(c, 'name'), 24), ` S(${geti(c, 'memory_space')})`, c.spill === true ? '  SPILL' : '');
  }
  const h = j.hbm_bytes;
  line(`spill bytes: ${geti(j, 'spill_bytes')}; estimated HBM traffic: ${geti(h, 'read')} read, ${geti(h, 'written')} written`);
  line(gets(j, 'explanation'));
}

function humanDecisions(j) {
  const ds = j.decisions || [];
  for (const x of ds) {
    line('line ', pad(geti(x, 'line'), 5), ' ', pad(gets(x, 'kind'), 11), ' ', pad(gets(x, 'name'), 16), ` ${gets(x, 'detail')}`);
    const p = gets(x, 'path');
    const hasSrc = typeof x.source === 'string';
    if (hasSrc || p) line(`           ${p ? 'in ' : ''}${p}${hasSrc ? (p ? '  at ' : 'at ') : ''}${hasSrc ? x.source : ''}`);
  }
  if (!ds.length) line('no decisions found');
  for (const w of j.warnings || []) line(`warning: ${geti(w, 'line')}:${geti(w, 'column')}: ${gets(w, 'message')}`);
}

function humanComputations(j) {
  for (const mo of j.modules || []) {
    line(`module ${gets(mo, 'name')}`);
    for (const co of mo.computations || []) {
      const ins = co.instructions || [];
      line('  ', pad(gets(co, 'role'), 8), ` ${gets(co, 'name')} (${ins.length} instructions) -> ${gets(co, 'result')}`);
      for (const i of ins) line('    ', pad(geti(i, 'line'), 5), ' ', pad(gets(i, 'name'), 28), ' ', pad(gets(i, 'opcode'), 20), ' ', gets(i, 'type'));
    }
  }
}

/** printf's %.Nf: toFixed rounds an exact tie (1.0625 to 3 places) up, glibc to even. */
export function fixed(x, d) {
  const s = x.toFixed(d);
  if (!Number.isFinite(x) || x === 0) return s;
  // x = n / 2^k exactly (doubling is exact); a tie when 2·x·10^d is an odd integer.
  let n = Math.abs(x);
  let k = 0n;
  while (!Number.isInteger(n) && k < 1100n) { n *= 2; k++; }
  const twice = BigInt(n) * 10n ** BigInt(d) * 2n;
  const den = 1n << k;
  if (twice % den !== 0n || (twice / den) % 2n === 0n) return s;
  const lo = (twice / den - 1n) / 2n; // the tie lies between lo and lo + 1
  const q = lo % 2n === 0n ? lo : lo + 1n;
  const digits = q.toString().padStart(d + 1, '0');
  const out = d ? `${digits.slice(0, -d)}.${digits.slice(-d)}` : digits;
  return x < 0 ? `-${out}` : out;
}

function fmtPs(ps) {
  if (ps >= 1e12) return `${fixed(ps / 1e12, 3)} s`;
  if (ps >= 1e9) return `${fixed(ps / 1e9, 3)} ms`;
  if (ps >= 1e6) return `${fixed(ps / 1e6, 3)} us`;
  return `${fixed(ps / 1e3, 3)} ns`;
}

function humanTimeline(j, path) {
  for (const x of j.programs || []) {
    line(`program ${gets(x, 'name')} (id ${gets(x, 'program_id')}): ${geti(x, 'runs')} runs, ${fmtPs(geti(x, 'per_run_ps'))} per run`);
    if (typeof x.sentence === 'string') line(`  ${x.sentence}`);
  }
  line('\n  ', pad('per run', 12), ' ', pad('share', 6, { left: false }), ' ', pad('count', 7, { left: false }), ' ',
    pad('kind', 10), ' ', pad('by', 9), ' ', pad('op', 32), ' program');
  for (const x of j.rows || []) {
    const share = typeof x.share === 'number' ? x.share : 0;
    line('  ', pad(fmtPs(geti(x, 'per_run_ps')), 12), ' ', pad(fixed(100 * share, 1), 5, { left: false }), '% ',
      pad(geti(x, 'occurrences'), 7, { left: false }), ' ', pad(gets(x, 'kind'), 10), ' ', pad(gets(x, 'written_by'), 9), ' ',
      pad(gets(x, 'name'), 32), ' ', gets(x, 'module'), ` (${gets(x, 'program_id')})`);
    if (typeof x.per_run_note === 'string') line(`               ${x.per_run_note}`);
    const h = x.hlo;
    if (h && typeof h === 'object' && !Array.isArray(h)) line(`               line ${geti(h, 'line')}: `, pad(gets(h, 'text'), 0, { prec: 100 }));
  }
  const as = j.async || [];
  if (as.length) line('\nasync pairs (per run):');
  for (const x of as) line(`  ${gets(x, 'start')} -> ${gets(x, 'done')}: ${gets(x, 'sentence')} (hidden ${fmtPs(geti(x, 'hidden_ps'))})`);
  const hosts = j.hosts || [];
  if (hosts.length > 1) {
    line('\nhosts (per run):');
    for (const x of hosts) {
      const pid = Number.isInteger(x.pid) ? String(x.pid) : '-';
      line('  ', pad(gets(x, 'file'), 32), ' ', pad(gets(x, 'host'), 12), ' pid ', pad(pid, 8), ' compute ', pad(fmtPs(geti(x, 'compute_ps')), 12),
        ' waited ', pad(fmtPs(geti(x, 'waited_ps')), 12), x.slowest === true ? ' slowest' : '');
    }
  }
  line(`\n${gets(j, 'reading')}`);
  printWarnings(j.warnings, path);
}

/** human_bytes of core/cli/main.c: "12 B", "6.00 MiB". */
function humanBytes(b) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let k = 0;
  while (v >= 1024 && k < 4) { v /= 1024; k++; }
  return k === 0 ? `${b} B` : `${fixed(v, 2)} ${u[k]}`;
}

function humanMemory(j) {
  line(`${gets(j, 'kind')} (${gets(j, 'backend')})`);
  for (const k of ['requested_bytes', 'used_bytes', 'capacity_bytes', 'exceeded_bytes']) {
    if (!Number.isInteger(j[k])) continue;
    line('  ', pad(k, 16), ' ', pad(j[k], 14, { left: false }), `  ${humanBytes(j[k])}`);
  }
  const totals = j.totals && typeof j.totals === 'object' ? j.totals : {};
  for (const [k, v] of Object.entries(totals)) {
    const n = Number.isInteger(v) ? v : 0;
    line('  total ', pad(k, 30), ' ', pad(n, 14, { left: false }), `  ${humanBytes(n)}`);
  }
  const al = j.allocations || [];
  for (let i = 0; i < al.length; i++) {
    if (i === 20) { line(`  ... ${al.length - 20} more`); break; }
    const a = al[i];
    line(pad(geti(a, 'rank'), 4, { left: false }), '. ', pad(humanBytes(geti(a, 'bytes')), 12, { left: false }), '  ',
      pad(gets(a, 'kind'), 12), ` ${gets(a, 'shape')}  ${gets(a, 'label')}  ${gets(a, 'source')}`);
  }
  line(gets(j, 'explanation'));
  for (const w of j.warnings || []) line(`warning: ${geti(w, 'line')}:${geti(w, 'column')}: ${gets(w, 'message')}`);
}

/** sibling_hlo of core/cli/main.c: a dump's report -> the optimized HLO beside it, or null. */
function siblingHlo(path) {
  for (const suffix of ['-buffer-assignment-values.txt', '-buffer-assignment.txt', '-memory-usage-report.txt']) {
    if (path.length > suffix.length && path.endsWith(suffix)) {
      const h = `${path.slice(0, -suffix.length)}.txt`;
      return existsSync(h) ? h : null;
    }
  }
  return null;
}

function humanProfile(j, path) {
  const dev = j.device;
  line(`${path}: ${gets(j, 'format')} profile`, dev && typeof dev === 'object'
    ? `, counting ${gets(dev, 'plane')} / ${gets(dev, 'line')}` : ', no device events to count');
  const ops = j.ops || [];
  if (ops.length) {
    line(`\ntop ops (of ${ops.length}) by self time:`);
    line('  ', pad('name', 40), ' ', pad('count', 8, { left: false }), ' ', pad('total', 13, { left: false }), ' ',
      pad('self', 13, { left: false }), ' ', pad('per run', 13, { left: false }), '  ', pad('program', 30), ' category');
    ops.slice(0, 25).forEach((x) => {
      const prog = `${pad(gets(x, 'module'), 0, { prec: 40 })} (${pad(gets(x, 'program_id'), 0, { prec: 20 })})`;
      line('  ', pad(gets(x, 'name'), 40, { prec: 40 }), ' ', pad(geti(x, 'occurrences'), 8, { left: false }), ' ',
        pad(fmtPs(geti(x, 'total_ps')), 13, { left: false }), ' ', pad(fmtPs(geti(x, 'self_ps')), 13, { left: false }), ' ',
        pad(fmtPs(geti(x, 'per_run_ps')), 13, { left: false }), '  ', pad(prog, 30, { prec: 30 }), ' ', gets(x, 'category'));
    });
    for (const x of j.unattributed || []) {
      line('  ', pad(gets(x, 'name'), 40, { prec: 40 }), ' ', pad(geti(x, 'occurrences'), 8, { left: false }), ' ',
        pad(fmtPs(geti(x, 'total_ps')), 13, { left: false }), '  (no HLO op: the kernel has no hlo_op)');
    }
  }
  const progs = j.programs || [];
  if (progs.length) {
    line('\nprograms:');
    for (const x of progs) {
      line('  ', pad(gets(x, 'name'), 40, { prec: 40 }), ' id ', pad(gets(x, 'program_id'), 21), ' ',
        pad(geti(x, 'runs'), 5, { left: false }), ` runs, envelope ${fmtPs(geti(x, 'envelope_ps'))}, ${geti(x, 'device_count')} device${geti(x, 'device_count') === 1 ? '' : 's'}`);
    }
  }
  line('\nplanes:');
  for (const x of j.planes || []) {
    const ls = x.lines || [];
    line(`  ${gets(x, 'name')} (${ls.length} lines)`);
    for (let k = 0; k < ls.length; k++) {
      if (k >= 12) { line(`    ... ${ls.length - k} more lines`); break; }
      line('    ', pad(gets(ls[k], 'name'), 48, { prec: 48 }), ` ${geti(ls[k], 'events')} events`);
    }
  }
  const mods = j.hlo_modules || [];
  if (mods.length) line('\nHLO modules in /host:metadata:', mods.map((m, i) => `${i ? ',' : ''} ${m}`).join(''));
  printWarnings(j.warnings, path);
}

function humanXray(j, paths, texts) {
  const s = j.summary;
  line(gets(s, 'stat'));
  line(gets(s, 'explanation'));
  ['left', 'right'].forEach((key, side) => {
    line(`\n== ${paths[side]} (${side ? 'what XLA decided' : 'what XLA received'})`);
    const t = texts[side];
    let p = 0;
    for (const l of j[key] || []) {
      const nl = t.indexOf(0x0a, p);
      const n = (nl >= 0 ? nl : t.length) - p;
      line(pad(geti(l, 'line'), 5, { left: false }), ' ', pad(gets(l, 'class'), 6), ' ', l.carries === true ? '_' : ' ', ' ',
        t.subarray(p, p + Math.min(n, 100)), n > 100 ? '...' : '');
      line(`             ${gets(l, 'note')}`);
      p = nl >= 0 ? nl + 1 : p + n;
    }
  });
}

const USAGE = 'usage: node cli.mjs <summary|fusions|spills|computations|decisions|xray|diff|profile|timeline|memory|passes> [--json] FILE...\n';

function readBytes(path) {
  return path === '-' ? readFileSync(0) : readFileSync(path);
}

/** The entries of a folder whose names end with `suf`, or its sub-folders (suf null), in byte
 * order of their paths (list of core/cli/profiles.c). */
function listFolder(dir, suf) {
  const out = [];
  const d = opendirSync(dir);
  try {
    for (let e = d.readSync(); e; e = d.readSync()) {
      if (e.name.startsWith('.')) continue;
      const p = `${dir}/${e.name}`;
      let isDir = false;
      try { isDir = statSync(p).isDirectory(); } catch { /* as stat(2) failing: not a folder */ }
      if (suf ? e.name.endsWith(suf) && !isDir : isDir) out.push(p);
    }
  } finally {
    d.closeSync();
  }
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The profile files of a folder (folder_files of core/cli/profiles.c): its newest
 * plugins/profile/<run>/ when it is a jax.profiler log_dir, else the folder itself; every
 * .xplane.pb in it, else every .trace.json.gz, else every .trace.json. */
function folderProfiles(dir) {
  let from = dir;
  const runsDir = `${dir}/plugins/profile`;
  let isDir = false;
  try { isDir = statSync(runsDir).isDirectory(); } catch { /* no log_dir */ }
  if (isDir) {
    let runs = [];
    try { runs = listFolder(runsDir, null); } catch { /* as the CLI: read the folder itself */ }
    if (runs.length) {
      from = runs[runs.length - 1]; // runs are named by their start time: the newest sorts last
      if (runs.length > 1) stderr.write(`hloscope: ${dir} holds ${runs.length} runs: reading the newest, ${from}\n`);
    }
  }
  for (const suf of ['.xplane.pb', '.trace.json.gz', '.trace.json']) {
    const found = listFolder(from, suf);
    if (found.length) return found;
  }
  return [];
}

/** Reads profile files and folders as one profile (hs_cli_load_profiles of core/cli/profiles.c):
 * { prof } or { rc } after saying why on stderr. A .gz file is gunzipped; several files are
 * named by their paths (the core keeps the base names), one is named by the profile itself. */
async function loadProfiles(paths) {
  const files = [];
  for (const path of paths) {
    let isDir = false;
    try { isDir = path !== '-' && statSync(path).isDirectory(); } catch { /* read below, and fail there */ }
    if (!isDir) { files.push(path); continue; }
    let found;
    try { found = folderProfiles(path); } catch (e) {
      stderr.write(`hloscope: cannot read the folder ${path}: ${e.message}\n`);
      return { rc: 1 };
    }
    if (!found.length) {
      stderr.write(`${path}:0:0: HS_E_EMPTY: no .xplane.pb or .trace.json(.gz) in this folder (jax.profiler.trace writes them under plugins/profile/<run>/)\n`);
      return { rc: 2 };
    }
    files.push(...found);
  }
  const inputs = [];
  for (const f of files) {
    let bytes;
    try { bytes = readBytes(f); } catch (e) {
      stderr.write(`hloscope: cannot read ${f}: ${e.message}\n`);
      return { rc: 1 };
    }
    await load();
    if (f.length > 3 && f.endsWith('.gz')) {
      try { bytes = await gunzip(bytes); } catch {
        stderr.write(`${f}:0:0: HS_E_FORMAT: not a readable gzip stream\n`);
        return { rc: 2 };
      }
    }
    inputs.push({ name: files.length > 1 ? f : null, bytes });
  }
  try {
    return { prof: inputs.length === 1 ? parseProfile(inputs[0].bytes) : parseProfiles(inputs) };
  } catch (e) {
    return { rc: reportError(e, files.length === 1 ? files[0] : paths[0]) }; // several: the message names the file
  }
}

/** A file's text, parsed once to report a parse error with its path ({ rc } on failure). */
function openHlo(path, { quiet = false } = {}) {
  let text;
  try { text = readBytes(path).toString('utf8'); } catch (e) {
    stderr.write(`hloscope: cannot read ${path}: ${e.message}\n`);
    return { rc: 1 };
  }
  try {
    parse(text).free();
  } catch (e) {
    if (!(e instanceof HloscopeError)) throw e;
    if (!quiet) stderr.write(`${path}:${e.line}:${e.column}: ${e.code}: ${e.message}\n`);
    return { rc: e.code === 'HS_E_NOMEM' ? 1 : 2 };
  }
  return { text };
}

function reportError(e, path) {
  if (!(e instanceof HloscopeError)) throw e;
  stderr.write(`${path}:${e.line}:${e.column}: ${e.code}: ${e.message}\n`);
  return e.code === 'HS_E_NOMEM' ? 1 : 2;
}

/** timeline PROFILE... [--hlo DUMP] [--stablehlo DUMP] [--program NAME|ID] [--json] (cmd_timeline;
 * PROFILE: files, or folders). */
async function timelineCmd(argv) {
  const paths = [];
  const opt = {};
  let json = false;
  for (let i = 1; i < argv.length; i++) {
    const key = { '--hlo': 'hlo', '--stablehlo': 'stablehlo', '--program': 'program' }[argv[i]];
    if (key && i + 1 < argv.length) opt[key] = argv[++i];
    else if (argv[i] === '--json') json = true;
    else if (!key && !argv[i].startsWith('-')) paths.push(argv[i]);
    else { stderr.write(USAGE); return 1; }
  }
  if (!paths.length) { stderr.write(USAGE); return 1; }
  const path = paths[0];
  const { prof, rc } = await loadProfiles(paths);
  if (!prof) return rc;
  try {
    const o = { program: opt.program ?? null };
    for (const k of ['hlo', 'stablehlo']) {
      if (opt[k] === undefined) continue;
      const h = openHlo(opt[k]);
      if (h.rc) return h.rc;
      o[k] = h.text;
    }
    const text = prof.timelineJSON(o);
    if (json) line(text); else humanTimeline(JSON.parse(text), path);
    return 0;
  } finally {
    prof.free();
  }
}

/** memory FILE [HLO] [--json] (cmd_memory): a dump's report joins the HLO beside it when that parses. */
async function memoryCmd(args) {
  if (args.length !== 2 && args.length !== 3) { stderr.write(USAGE); return 1; }
  const path = args[1];
  let text;
  try { text = readBytes(path).toString('utf8'); } catch (e) {
    stderr.write(`hloscope: cannot read ${path}: ${e.message}\n`);
    return 1;
  }
  await load();
  let hlo = '';
  const hloPath = args[2] ?? siblingHlo(path);
  if (hloPath) {
    const h = openHlo(hloPath, { quiet: !args[2] });
    if (h.rc && args[2]) return h.rc;
    if (!h.rc) hlo = h.text;
  }
  try {
    return { text: readMemoryJSON(text, hlo, path) };
  } catch (e) {
    return { rc: reportError(e, path) };
  }
}

/** human of core/cli/passes.c. */
function humanPasses(j) {
  for (const m of j.modules || []) {
    const steps = m.steps || [];
    const pipes = m.pipelines || [];
    const target = typeof m.target === 'string';
    let head = `module ${String(geti(m, 'id')).padStart(4, '0')} ${gets(m, 'name')} (${gets(m, 'backend')}${target ? ' ' : ''}${target ? m.target : ''}${m.backend_inferred === true ? ', inferred from the folder' : ''})`;
    if (!steps.length) { line(`${head}: no pass steps`); continue; }
    head += `: ${steps.length} steps over ${pipes.length} pipelines`;
    if (Number.isInteger(m.watershed)) head += `, layout watershed at step ${m.watershed}`;
    if (Number.isInteger(m.first_fusion)) head += `, first fusion at step ${m.first_fusion}`;
    line(head);
    line('  pipelines:');
    for (const x of pipes) {
      line('    ', pad(gets(x, 'name'), 44), ' ', pad(geti(x, 'steps'), 3, { left: false }), ' steps, ', pad(geti(x, 'runs'), 2, { left: false }),
        ` run${geti(x, 'runs') === 1 ? ' ' : 's'}, ${(x.passes || []).length} passes`);
    }
    line('  steps:');
    for (const x of steps) {
      const c = x.counts;
      const parts = ['    ', String(geti(x, 'n')).padStart(4, '0'), ' ', pad(gets(x, 'pipeline'), 40, { prec: 40 }), ' after ',
        pad(gets(x, 'after'), 32, { prec: 32 }), ' before ', pad(gets(x, 'before'), 32, { prec: 32 })];
      if (c && typeof c === 'object' && !Array.isArray(c)) {
        parts.push(' ', pad(geti(c, 'instructions'), 5, { left: false }), ' instr ', pad(geti(c, 'fusion_ops'), 4, { left: false }), ' fusions');
      }
      if (geti(x, 'run') > 1) parts.push(` (run ${geti(x, 'run')})`);
      line(...parts);
      const d = x.diff;
      if (d && typeof d === 'object' && !Array.isArray(d)) line(`         ${gets(d, 'sentence')}`);
    }
  }
  const kinds = new Map();
  for (const x of j.files || []) kinds.set(gets(x, 'kind'), (kinds.get(gets(x, 'kind')) || 0) + 1);
  line(`files: ${(j.files || []).length}`);
  for (const [k, n] of kinds) line('  ', pad(k, 48), ` ${n}`);
  for (const w of j.warnings || []) line(`warning: ${gets(w, 'message')}`);
}

/** add_dir of core/cli/passes.c: every regular file under `dir` (8 levels), by its own name. */
function dirEntries(dir, depth, out) {
  // In byte order, as the CLI's scandir with strcmp gives them (the same on every machine).
  const names = [];
  const d = opendirSync(dir);
  try {
    for (let e = d.readSync(); e; e = d.readSync()) names.push(e.name);
  } finally {
    d.closeSync();
  }
  names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const p = `${dir}/${name}`;
    let st;
    try { st = statSync(p); } catch { continue; }
    if (st.isDirectory()) { if (depth < 8) dirEntries(p, depth + 1, out); } else if (st.isFile()) {
      out.push({ name, data: passesWantsBytes(name) && st.size <= 512 * 1024 * 1024 ? readFileSync(p) : null });
    }
  }
  return out;
}

/** passes [--json] PATH: a folder, an archive of one, or a listing (hs_cli_passes, one path). */
async function passesCmd(args) {
  if (args.length !== 2) { stderr.write(USAGE); return { rc: 1 }; }
  const path = args[1];
  let st;
  try { st = statSync(path); } catch (e) {
    stderr.write(`hloscope: cannot read ${path}: ${e.message}\n`);
    return { rc: 1 };
  }
  await load();
  const label = path.slice(path.lastIndexOf('/') + 1);
  try {
    let input;
    if (st.isDirectory()) {
      input = dirEntries(path, 0, []);
      // gzipped steps (module_x.after_optimizations.txt.gz): their text, as the native CLI reads it
      for (const e of input) {
        if (e.data && e.name.endsWith('.gz') && e.data[0] === 0x1f && e.data[1] === 0x8b) {
          try { e.data = Buffer.from(await gunzip(e.data)); } catch { /* the core says it is gzip */ }
        }
      }
    }
    else {
      const u = readFileSync(path);
      const isArchive = (u.length >= 2 && u[0] === 0x1f && u[1] === 0x8b) || (u.length >= 4 && u.readUInt32LE(0) === 0x04034b50)
        || (u.length >= 512 && u.subarray(257, 262).toString('latin1') === 'ustar');
      if (isArchive) input = await readArchive(new Uint8Array(u.buffer, u.byteOffset, u.length));
      else if (/\.(zip|tar|tgz|gz)$/.test(path)) {
        stderr.write(`${path}:0:0: HS_E_FORMAT: not a readable archive (neither gzip, zip nor tar bytes)\n`);
        return { rc: 2 };
      } else input = u.toString('utf8');
    }
    return { text: passesJSON(input, { label }) };
  } catch (e) {
    if (!(e instanceof HloscopeError)) throw e;
    stderr.write(`${path}:0:0: ${e.code}: ${e.message}\n`);
    return { rc: e.code === 'HS_E_NOMEM' ? 1 : 2 };
  }
}

// `hloscope diff A B` as core/cli/main.c human_diff prints it (two optimized HLO files; dump
// folders and --fail-on need the native CLI).
function humanDiff(j, pa, pb) {
  const names = (a) => (a.length ? a.join(', ') : '-');
  line(j.verdict);
  [['A', j.a, pa], ['B', j.b, pb]].forEach(([s, x, p]) => {
    let t = `\n${s}: ${p}: ${x.instructions} instructions, ${x.fusion_ops} fusion ops, ${x.fusion_computations} fusion computations`;
    if (Number.isInteger(x.hbm_bytes?.read)) t += `, HBM read ${x.hbm_bytes.read} written ${x.hbm_bytes.written} bytes`;
    if (x.partial !== null) t += ' (cut short)';
    write(t);
  });
  const m = j.matched, by = m.by;
  line(`\n\nmatched ${m.instructions} instructions (structure ${by.structure}, op_name ${by.op_name}, source ${by.source}, name ${by.name}); unmatched: A ${m.unmatched_a}, B ${m.unmatched_b}`);
  let same = 0;
  for (const f of j.fusions) {
    if (f.change === 'same') { same++; continue; }
    let t = `  ${f.change.padEnd(8)} A: ${names(f.a)}  B: ${names(f.b)}`;
    if (f.moved.length) t += `\n           moved: ${names(f.moved)}`;
    if (f.source.length) t += `\n           source: ${names(f.source)}`;
    line(t);
  }
  line(`  ${same} fusion groups the same`);
  for (const f of j.materialized) line(`materialized ${f.change} on ${f.side === 'b' ? 'B' : 'A'}: ${f.value} ${f.shape} (${f.bytes} bytes)`);
  for (const f of j.calls) line(`call ${f.target} ${f.change}: A ${f.a}, B ${f.b}`);
  const envWord = (v) => (v == null ? '-' : typeof v === 'string' ? v : JSON.stringify(v));
  for (const f of j.environment || []) {
    if (JSON.stringify(f.a ?? null) === JSON.stringify(f.b ?? null)) continue;
    line(`environment ${f.key}: A ${envWord(f.a)}, B ${envWord(f.b)}`);
  }
  const t = j.time;
  if (t && typeof t === 'object') {
    for (const [s, ps, runs, g] of [['A', t.a_ps, t.a_runs, t.a_program], ['B', t.b_ps, t.b_runs, t.b_program]]) {
      if (Number.isInteger(ps)) line(`time ${s}: ${fmtPs(ps)} per run, ${runs} runs (${gets(g, 'name')}, program ${gets(g, 'program_id')})`);
      else line(`time ${s}: unknown`);
    }
    const ops = t.ops || [];
    for (const [k, f] of ops.entries()) {
      if (k === 10) { line(`  ... ${ops.length - 10} more ops`); break; }
      const x = Number.isInteger(f.a_ps) ? fmtPs(f.a_ps) : '-', y = Number.isInteger(f.b_ps) ? fmtPs(f.b_ps) : '-';
      line(`  A ${x} ${gets(f, 'a')}  B ${y} ${gets(f, 'b')}`);
    }
  }
}

/** profile PROFILE... [--json] (cmd_profile; PROFILE: files, folders, or - for standard input). */
async function profileCmd(argv) {
  let json = false;
  const paths = [];
  let bad = false;
  for (const a of argv.slice(1)) {
    if (a === '--json') json = true;
    else if (!a.startsWith('-') || a === '-') paths.push(a);
    else bad = true; // an unknown option
  }
  if (bad || !paths.length) { stderr.write(USAGE); return 1; }
  const { prof, rc } = await loadProfiles(paths);
  if (!prof) return rc;
  try {
    const text = prof.json();
    if (json) line(text); else humanProfile(JSON.parse(text), paths[0]);
    return 0;
  } finally {
    prof.free();
  }
}

async function main(argv) {
  if (argv[0] === 'timeline') return timelineCmd(argv);
  if (argv[0] === 'profile') return profileCmd(argv);
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const cmd = args[0];
  const human = { summary: humanSummary, fusions: humanFusions, spills: humanSpills, computations: humanComputations, decisions: humanDecisions };
  if (cmd === 'passes') {
    const r = await passesCmd(args);
    if (r.rc !== undefined) return r.rc;
    if (json) line(r.text); else humanPasses(JSON.parse(r.text));
    return 0;
  }
  if (cmd === 'memory') {
    const r = await memoryCmd(args);
    if (typeof r === 'number' || r.rc !== undefined) return typeof r === 'number' ? r : r.rc;
    if (json) line(r.text); else humanMemory(JSON.parse(r.text));
    return 0;
  }
  // diff --profiles PA PB: a profile of each side (files; a log folder needs the native CLI)
  let profPaths = null;
  let envTexts = null;
  if (cmd === 'diff') {
    // --environment EA EB: each side's compile facts (JSON), handed to the core as they are
    const ke = args.indexOf('--environment');
    if (ke > 0) {
      if (ke + 2 >= args.length) { stderr.write(USAGE); return 1; }
      try {
        envTexts = args.slice(ke + 1, ke + 3).map((p) => readBytes(p).toString('utf8'));
      } catch (e) {
        stderr.write(`hloscope: cannot read ${e.path || 'an --environment file'} (--environment: a JSON object of each side's compile facts)\n`);
        return 1;
      }
      args.splice(ke, 3);
    }
    const k = args.indexOf('--profiles');
    if (k > 0) {
      if (k + 2 >= args.length) { stderr.write(USAGE); return 1; }
      profPaths = args.slice(k + 1, k + 3);
      args.splice(k, 3);
      if (profPaths.some((p) => { try { return statSync(p).isDirectory(); } catch { return false; } })) {
        stderr.write('hloscope diff: profile folders need the native CLI (npm run build:native); give the .xplane.pb or .trace.json(.gz) files\n');
        return 1;
      }
    }
  }
  const want = cmd === 'xray' || cmd === 'diff' ? 3 : 2;
  if (!(cmd in human) && cmd !== 'xray' && cmd !== 'diff') { stderr.write(USAGE); return 1; }
  if (cmd === 'diff' && args.slice(1).some((p) => { try { return statSync(p).isDirectory(); } catch { return false; } })) {
    stderr.write('hloscope diff: dump folders need the native CLI (npm run build:native); give two *after_optimizations.txt files\n');
    return 1;
  }
  if (args.length !== want) { stderr.write(USAGE); return 1; }
  const files = [];
  for (const p of args.slice(1)) {
    try {
      files.push(readBytes(p));
    } catch (e) {
      stderr.write(`hloscope: cannot read ${p}: ${e.message}\n`);
      return 1;
    }
  }
  await load();
  let path = args[1];
  try {
    if (cmd === 'diff') {
      const [at, bt] = files.map((b) => b.toString('utf8'));
      const profiles = [];
      for (const p of profPaths || []) {
        const r = await loadProfiles([p]).catch((e) => ({ rc: reportError(e, p) }));
        if (r.rc !== undefined) { for (const x of profiles) x.free(); return r.rc; }
        profiles.push(r.prof);
      }
      let text;
      try {
        text = diffJSON(at, bt, { ...(profiles.length ? { profiles } : {}), ...(envTexts ? { environment: envTexts } : {}) });
      } catch (e) {
        if (e instanceof HloscopeError && e.side) path = e.side === 'a' ? args[1] : args[2];
        throw e;
      } finally {
        for (const x of profiles) x.free();
      }
      if (json) line(text); else humanDiff(JSON.parse(text), args[1], args[2]);
      return 0;
    }
    if (cmd === 'xray') {
      const [lt, rt] = files.map((b) => b.toString('utf8'));
      let text;
      try {
        text = xrayJSON(lt, rt);
      } catch (e) {
        if (e instanceof HloscopeError && e.side) path = e.side === 'left' ? args[1] : args[2];
        throw e;
      }
      if (json) line(text); else humanXray(JSON.parse(text), [args[1], args[2]], files);
      return 0;
    }
    const doc = parse(files[0].toString('utf8'));
    const text = doc.json(cmd);
    doc.free();
    if (json) line(text);
    else if (cmd === 'summary') humanSummary(JSON.parse(text), path);
    else human[cmd](JSON.parse(text));
    return 0;
  } catch (e) {
    if (!(e instanceof HloscopeError)) throw e;
    stderr.write(`${path}:${e.line}:${e.column}: ${e.code}: ${e.message}\n`);
    return e.code === 'HS_E_NOMEM' ? 1 : 2;
  }
}

/** Runs one command in this process: { code, stdout (Buffer), stderr (string) }. */
export async function run(argv) {
  out = [];
  err = [];
  const code = await main(argv);
  const r = { code, stdout: Buffer.concat(out), stderr: err.join('') };
  out = [];
  err = [];
  return r;
}

const entry = process.argv[1] && realpathSync(process.argv[1]);
if (entry && entry === realpathSync(fileURLToPath(import.meta.url))) {
  const r = await run(process.argv.slice(2));
  process.stderr.write(r.stderr);
  process.stdout.write(r.stdout, () => process.exit(r.code));
}
