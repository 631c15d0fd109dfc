// `node cli.mjs <command> FILE...`: the native CLI's human-readable output, from the same core
// compiled to WebAssembly. The Python package runs this (bundled as hloscope/static/cli.mjs with
// the wasm inlined) when the native `hloscope` is not built. The printers below follow
// core/cli/main.c line for line (printf widths count bytes, as C does); the Python tests hold
// the two outputs equal.
//
//   node cli.mjs summary|fusions|spills|computations [--json] FILE
//   node cli.mjs xray [--json] LEFT RIGHT        (a blank LEFT x-rays RIGHT alone)
//   node cli.mjs profile [--json] FILE           (.xplane.pb, .trace.json, or gzipped: .gz)
// FILE may be - for standard input. Exit status as the CLI: 0, 2 on a parse error, 1 otherwise.
// Imported, it runs nothing: run(argv) -> { code, stdout, stderr } (tests/node/jupyter-text.test.mjs).
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HloscopeError, gunzip, load, parse, parseProfile, xrayJSON } from '../../../wasm/hloscope.mjs';

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

function fmtPs(ps) {
  if (ps >= 1e12) return `${(ps / 1e12).toFixed(3)} s`;
  if (ps >= 1e9) return `${(ps / 1e9).toFixed(3)} ms`;
  if (ps >= 1e6) return `${(ps / 1e6).toFixed(3)} us`;
  return `${(ps / 1e3).toFixed(3)} ns`;
}

function humanProfile(j, path) {
  const dev = j.device;
  line(`${path}: ${gets(j, 'format')} profile`, dev && typeof dev === 'object'
    ? `, counting ${gets(dev, 'plane')} / ${gets(dev, 'line')}` : ', no device events to count');
  const ops = j.ops || [];
  if (ops.length) {
    line(`\ntop ops (of ${ops.length}) by self time:`);
    line('  ', pad('name', 40), ' ', pad('count', 8, { left: false }), ' ', pad('total', 13, { left: false }), ' ',
      pad('self', 13, { left: false }), ' ', pad('per run', 13, { left: false }), '  category');
    ops.slice(0, 25).forEach((x) => {
      line('  ', pad(gets(x, 'name'), 40, { prec: 40 }), ' ', pad(geti(x, 'occurrences'), 8, { left: false }), ' ',
        pad(fmtPs(geti(x, 'total_ps')), 13, { left: false }), ' ', pad(fmtPs(geti(x, 'self_ps')), 13, { left: false }), ' ',
        pad(fmtPs(geti(x, 'per_run_ps')), 13, { left: false }), '  ', gets(x, 'category'));
    });
  }
  const progs = j.programs || [];
  if (progs.length) {
    line('\nprograms:');
    for (const x of progs) {
      line('  ', pad(gets(x, 'name'), 40, { prec: 40 }), ' id ', pad(gets(x, 'program_id'), 21), ' ',
        pad(geti(x, 'runs'), 5, { left: false }), ` runs, envelope ${fmtPs(geti(x, 'envelope_ps'))}`);
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

const USAGE = 'usage: node cli.mjs <summary|fusions|spills|computations|xray|profile> [--json] FILE...\n';

function readBytes(path) {
  return path === '-' ? readFileSync(0) : readFileSync(path);
}

async function main(argv) {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const cmd = args[0];
  const human = { summary: humanSummary, fusions: humanFusions, spills: humanSpills, computations: humanComputations };
  const want = cmd === 'xray' ? 3 : 2;
  if (!(cmd in human) && cmd !== 'xray' && cmd !== 'profile') { stderr.write(USAGE); return 1; }
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
    if (cmd === 'profile') {
      let bytes = files[0];
      if (path.length > 3 && path.endsWith('.gz')) {
        try { bytes = await gunzip(bytes); } catch {
          stderr.write(`${path}:0:0: HS_E_FORMAT: not a readable gzip stream\n`);
          return 2;
        }
      }
      const prof = parseProfile(bytes);
      const text = prof.json();
      prof.free();
      if (json) line(text); else humanProfile(JSON.parse(text), path);
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
