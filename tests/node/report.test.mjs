// `hloscope report` (issue 39): one HTML file with every answer. Checked here without a browser:
// the overview's figures equal what the CLI's own commands print for the same inputs (fusions,
// spills, memory, timeline --json); the page carries every input, byte for byte, gzipped; the page
// beside the inputs stays under 2 MiB; --redact leaves no module name, source path, op_name prefix
// or file name of the inputs in the files carried or in what the page says (the names found by
// plain patterns over the inputs here, and by the CLI's timeline of a profile, not by the
// redaction's own code); --markdown and --zip; a missing page says what to do. On our CPU
// captures, and on real GPU and TPU texts, an out-of-memory message and a TPU profile from
// ../shared/captures where it is beside the clone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { repoRoot, sharedAbsent, sharedCaptures, sharedPath } from '../fixtures.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const page = path.join(repoRoot, 'dist/hloscope.html');
const skip = !existsSync(cli) ? `SKIPPED: no native CLI at ${cli} (npm run build:native)`
  : !existsSync(page) ? `SKIPPED: no ${page} (npm run build)` : false;
const work = mkdtempSync(path.join(tmpdir(), 'hs-report-'));
const fx = path.join(repoRoot, 'fixtures/cpu-jax-0.4.38/naive_attention');
const ours = [path.join(fx, 'stablehlo.mlir'), path.join(fx, 'after_optimizations.txt'), path.join(fx, 'profile.xplane.pb')];
const sharedFiles = {
  gpu: sharedPath('captures/gpu-semantics/gpu_a100__lorrax__module_0039.jit_fft.sm_8.0_gpu_after_optimizations.txt'),
  oom: sharedPath('captures/memory/13_gpu_jax_13428_peak_buffers.txt'),
  tpuProfile: sharedPath('captures/profiles/xprof_tpu_inference_2.xplane.pb'),
  gpuProfile: sharedPath('captures/profiles/tracelens_mi300_jax08_attention.xplane.pb'),
  gpuBuffers: sharedPath('captures/buffers/gpu_a100__module_0003.SyncTensorsGraph.5.sm_8.0_gpu_after_optimizations-buffer-assignment.txt'),
  tpuStablehlo: sharedPath('captures/tpu-v6e/jit_gelu_mlp.stablehlo.mlir'),
  tpuHlo: sharedPath('captures/tpu-v6e/jit_gelu_mlp.after_optimizations.with_frame_tables.txt'),
};
const noShared = Object.values(sharedFiles).some((f) => !f) ? (sharedAbsent() || sharedAbsent('memory') || sharedAbsent('profiles') || sharedAbsent('gpu-semantics') || 'SKIPPED: a capture this test reads is missing from ../shared/captures') : false;

function run(args, { ok = true } = {}) {
  const r = spawnSync(cli, args, { maxBuffer: 1 << 29 });
  if (ok) assert.equal(r.status, 0, `hloscope ${args.join(' ')}: ${r.stderr}`);
  return r;
}
const json = (...args) => JSON.parse(run([...args.slice(0, 1), '--json', ...args.slice(1)]).stdout.toString());

/** The payload of a report page (the data block the core wrote), and the page's bytes. */
function payloadOf(file) {
  const html = readFileSync(file, 'utf8');
  const m = /<script type="application\/json" id="hs-report">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, `${file}: no data block`);
  assert.ok(!m[1].includes('<'), 'the data block holds no "<" (written \\u003c)');
  return { html, payload: JSON.parse(m[1]) };
}
const filesOf = (payload) => payload.files.map((f) => gunzipSync(Buffer.from(f.data, 'base64')));

function report(name, inputs, extra = []) {
  const out = path.join(work, `${name}.html`);
  const r = run(['report', '--out', out, ...extra, ...inputs]);
  return { out, stderr: r.stderr.toString(), ...payloadOf(out) };
}

const headline = (item, kind) => item.headlines.find((h) => h.kind === kind);

test('the overview says what the CLI says of each input', { skip }, () => {
  const levels = path.join(repoRoot, 'fixtures/levels/cpu-jax-0.4.38/add');
  const ll = path.join(levels, 'module_0001.jit_add.ir-with-opt.ll');
  const inputs = [...ours, ll, ...(noShared ? [] : [sharedFiles.gpu, sharedFiles.oom, sharedFiles.tpuProfile, sharedFiles.gpuBuffers])];
  const ov = json('report', ...inputs);
  assert.equal(ov.inputs.length, inputs.length);
  ov.inputs.forEach((item, i) => {
    const file = inputs[i];
    assert.equal(item.error, undefined, `${file}: ${JSON.stringify(item.error)}`);
    if (/after_optimizations\.txt$/.test(file)) {
      const fu = json('fusions', file);
      const sp = json('spills', file);
      const c = headline(item, 'census').figures;
      assert.equal(c.fusion_ops, fu.fusion_ops, file);
      assert.equal(c.fusion_computations, fu.fusion_computations, file);
      const t = headline(item, 'traffic');
      assert.equal(t.sentence, sp.explanation, file);
      assert.equal(t.figures.spill_bytes, sp.spill_bytes, file);
      assert.equal(t.figures.hbm_read_bytes, sp.hbm_bytes.read, file);
      assert.equal(t.figures.hbm_written_bytes, sp.hbm_bytes.written, file);
    } else if (/\.xplane\.pb$/.test(file)) {
      const tl = json('timeline', file);
      const h = headline(item, 'time');
      assert.equal(h.sentence, tl.reading, file);
      assert.equal(h.figures.top_op.name, tl.rows[0].name, file);
      assert.equal(h.figures.top_op.share, tl.rows[0].share, file);
      assert.deepEqual(h.figures.programs.map((p) => [p.name, p.runs, p.per_run_ps]), tl.programs.map((p) => [p.name, p.runs, p.per_run_ps]), file);
    } else if (/\.ll$/.test(file)) {
      // joined to the report's last optimized HLO, as `hloscope llvm --hlo` joins it
      const hlo = inputs.filter((f) => /after_optimizations\.txt$/.test(f)).pop();
      const l = json('llvm', file, '--hlo', hlo);
      const h = headline(item, 'llvm').figures;
      assert.equal(h.functions, l.functions.length);
      assert.equal(h.kernels, l.functions.filter((f) => f.kernel).length);
      assert.equal(h.joined, l.functions.filter((f) => f.hlo).length);
      assert.equal(h.triple, l.triple);
    } else if (/peak_buffers|buffer-assignment/.test(file)) {
      const m = json('memory', file);
      const h = headline(item, 'memory');
      assert.equal(h.sentence, m.explanation);
      for (const k of ['requested_bytes', 'used_bytes', 'capacity_bytes', 'backend']) assert.equal(h.figures[k], m[k], k);
    }
  });
  // the StableHLO and the HLO it became open on the x-ray, with the core's evidence
  assert.deepEqual(ov.pairs.map((p) => [p.view, p.a, p.b]), [['xray', 1, 2]]);
  assert.equal(ov.pairs[0].evidence[0], 'both are module jit_naive_attention');
  if (!noShared) {
    assert.ok(ov.provenance.backend.some((b) => b.value === 'TPU'), 'the TPU profile says TPU');
    assert.ok(ov.provenance.backend.some((b) => b.value === 'gpu'), 'the GPU memory texts say gpu');
    // texts and profiles carry no XLA flags: said as none, never guessed
    assert.deepEqual(ov.provenance.xla_flags, []);
    const md = report('prov', inputs).payload.markdown;
    assert.match(md, /- XLA flags: none in the inputs/);
    assert.match(md, /- Versions: unknown/);
  }
});

test('two compiles of one program open on their diff; the diff is the first view after the overview', { skip }, () => {
  const pair = path.join(repoRoot, 'fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_softmax-nofusion');
  const a = path.join(pair, 'a.after_optimizations.txt');
  const b = path.join(pair, 'b.after_optimizations.txt');
  const r = report('pair', [a, b]);
  const d = json('diff', a, b);
  assert.deepEqual(r.payload.overview.pairs.map((p) => [p.view, p.a, p.b]), [['diff', 1, 2]]);
  assert.equal(r.payload.overview.pairs[0].sentence, d.verdict);
  assert.equal(r.payload.cells[0].kind, 'markdown');
  assert.deepEqual(r.payload.cells[1], { kind: 'code', text: 'show.diff(dump1, dump2)', anchor: 'pair-1' });
  assert.equal(r.payload.open, 'pair-1', 'the page opens on the diff');
  assert.equal(report('one', [a]).payload.open, 'overview');
});

test('the page carries every input byte for byte, and adds under 2 MiB beside them', { skip }, () => {
  const folder = path.join(repoRoot, 'fixtures/diff-pairs/cpu-jax-0.12.0.1/mlp_softmax-nofusion/b.dump.tar.gz');
  const r = report('carry', [...ours, folder]);
  const files = filesOf(r.payload);
  for (const f of ours) {
    const i = r.payload.files.findIndex((x) => x.name === path.basename(f));
    assert.ok(i >= 0, `${f} carried`);
    assert.ok(files[i].equals(readFileSync(f)), `${f}: the same bytes`);
  }
  // a dump folder: its pipelines and flags (the folder cell) and its optimized HLO (a dump cell)
  const folderCell = r.payload.cells.find((c) => c.kind === 'folder');
  assert.deepEqual(JSON.parse(folderCell.text).modules.map((m) => m.name), json('passes', folder).modules.map((m) => m.name));
  const flags = r.payload.overview.provenance.xla_flags.map((f) => f.flag);
  assert.ok(flags.includes('--xla_disable_hlo_passes'), `the folder's flags: ${flags}`);
  const carried = r.payload.files.reduce((n, f) => n + f.data.length, 0);
  const overhead = statSync(r.out).size - carried;
  assert.ok(overhead < 2 * 1048576, `the page beside the inputs: ${overhead} bytes`);
  assert.match(r.stderr, /MiB of page/);
});

/** Names a redacted report must not hold, found by plain patterns over the inputs. */
function secrets(files) {
  const out = new Set();
  for (const f of files) {
    out.add(path.basename(f));
    const t = readFileSync(f, 'latin1');
    for (const m of t.matchAll(/^HloModule ([\w.-]+)/gm)) out.add(m[1]);
    for (const m of t.matchAll(/^module @"?([\w.-]+)/gm)) out.add(m[1]);
    for (const m of t.matchAll(/source_file="([^"]+)"/g)) out.add(m[1]);
    for (const m of t.matchAll(/op_name="([^"]*)\/[^"/]*"/g)) out.add(`${m[1]}/`);
    for (const m of t.matchAll(/loc\("([^"]+)":\d/g)) out.add(m[1]);
    for (const m of t.matchAll(/^FileNames\n((?:\s+\d+ "[^"]*"\n)+)/gm)) for (const q of m[1].matchAll(/"([^"]*)"/g)) out.add(q[1]);
  }
  return [...out].filter((s) => s.length >= 4);
}

test('--redact: no module name, source path, op_name prefix or file name of the inputs is left', { skip: skip || noShared }, () => {
  const texts = [sharedFiles.tpuStablehlo, sharedFiles.tpuHlo, sharedFiles.gpu, path.join(fx, 'after_optimizations.txt')];
  const inputs = [...texts, sharedFiles.tpuProfile, sharedFiles.gpuProfile, path.join(fx, 'profile.trace.json.gz')];
  const names = secrets(texts);
  // the profiles' programs and op_name prefixes, as the CLI's timeline reads them
  const tl = json('timeline', sharedFiles.tpuProfile);
  for (const prof of [sharedFiles.tpuProfile, sharedFiles.gpuProfile]) {
    const t = json('timeline', prof);
    for (const p of t.programs) if (p.name.length >= 4) names.push(p.name);
    for (const row of t.rows) if (row.op_name?.includes('/')) names.push(row.op_name.slice(0, row.op_name.lastIndexOf('/') + 1));
    names.push(path.basename(prof));
  }
  assert.ok(names.length > 10, `found ${names.length} names to hide`);
  const r = report('redacted', inputs, ['--redact']);
  const carried = filesOf(r.payload).map((b) => b.toString('latin1'));
  const said = JSON.stringify({ ...r.payload, files: r.payload.files.map((f) => f.name) });
  for (const n of names) {
    for (const [i, c] of carried.entries()) assert.ok(!c.includes(n), `${JSON.stringify(n)} left in ${r.payload.files[i].name}`);
    assert.ok(!said.includes(n), `${JSON.stringify(n)} left in the overview or the cells`);
  }
  // every source path a profile's protobuf still holds is a placeholder (the stack frames of its
  // HloModuleProtos included), and no jit(...) op name or module name is left in it
  for (const [i, c] of carried.entries()) {
    if (r.payload.files[i].format !== 'profile') continue;
    for (const m of c.matchAll(/([\x21-\x7e]+)\.py\b/g)) assert.match(m[1], /(src|f)\d+_*$/, `${m[0]} left in ${r.payload.files[i].name}`);
    assert.doesNotMatch(c, /jit\(|jit_[a-z]|PjitFunction\(/, `a jit name left in ${r.payload.files[i].name}`);
  }
  assert.match(r.payload.markdown, /\*\*Redacted\*\*/);
  // the pairing still holds: the StableHLO and its HLO are still one program
  assert.deepEqual(r.payload.overview.pairs.map((p) => [p.view, p.a, p.b]), [['xray', 1, 2]]);
  // a redacted trace JSON is still JSON, and reads
  assert.equal(r.payload.overview.inputs[6].error, undefined, JSON.stringify(r.payload.overview.inputs[6].error));
  assert.doesNotMatch(carried[6], /naive_attention|PjitFunction\(jit/);
  // a redacted profile still reads, with the same figures
  const ov = r.payload.overview.inputs[4];
  assert.equal(ov.error, undefined);
  assert.equal(headline(ov, 'time').figures.top_op.per_run_ps, tl.rows[0].per_run_ps);
});

test('--markdown writes the overview; --zip the page inside a .zip', { skip }, () => {
  const md = path.join(work, 'o.md');
  const out = path.join(work, 'z.html');
  run(['report', '--out', out, '--zip', '--markdown', md, '--title', 'naive attention', ...ours]);
  const zip = readFileSync(path.join(work, 'z.zip'));
  assert.equal(zip.readUInt32LE(0), 0x04034b50);
  const nameLen = zip.readUInt16LE(26);
  assert.equal(zip.subarray(30, 30 + nameLen).toString(), 'z.html');
  const size = zip.readUInt32LE(18);
  const html = inflateRawSync(zip.subarray(30 + nameLen, 30 + nameLen + size)).toString('utf8');
  assert.ok(html.includes('id="hs-report"'));
  const mdText = readFileSync(md, 'utf8');
  assert.match(mdText, /^# hloscope report: naive attention\n/);
  assert.ok(mdText.includes('(#input-2)'));
  const py = spawnSync('python3', ['-c', 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); z.testzip() is None or sys.exit(1); print(z.namelist())', path.join(work, 'z.zip')]);
  if (py.status !== null && !py.error) assert.equal(py.status, 0, `python's zipfile reads it: ${py.stderr}`);
});

test('a page over 25 MiB is said with how to cut it down; a missing page says how to build it', { skip }, () => {
  const big = path.join(work, 'noise.bin');
  writeFileSync(big, randomBytes(20 << 20));
  const r = run(['report', '--out', path.join(work, 'big.html'), big, path.join(fx, 'after_optimizations.txt')]);
  assert.match(r.stderr.toString(), /over 25 MiB.*--only after_optimizations/s);
  const small = run(['report', '--out', path.join(work, 'small.html'), '--only', 'after_optimizations', big, path.join(fx, 'after_optimizations.txt')]);
  assert.doesNotMatch(small.stderr.toString(), /over 25 MiB/);
  assert.equal(payloadOf(path.join(work, 'small.html')).payload.files.length, 1);
  const none = run(['report', '--out', path.join(work, 'x.html'), '--template', path.join(work, 'nope.html'), ours[1]], { ok: false });
  assert.equal(none.status, 1);
  assert.match(none.stderr.toString(), /cannot read the page/);
  const notPage = run(['report', '--out', path.join(work, 'x.html'), '--template', ours[1], ours[1]], { ok: false });
  assert.match(notPage.stderr.toString(), /no <!--HS:REPORT--> slot.*npm run build/);
});

test('bad inputs: said per input, never a crash', { skip }, () => {
  const cut = path.join(work, 'cut.txt');
  writeFileSync(cut, 'HloModule broken\n\nENTRY %main () -> f32[] {\n  ROOT %c = f32[ constant(1)\n}\n');
  const said = spawnSync(cli, ['summary', cut]).stderr.toString();
  const ov = json('report', cut, ours[0]);
  assert.equal(ov.inputs.length, 2);
  const e = ov.inputs[0].error;
  assert.equal(`${cut}:${e.line}:${e.column}: ${e.code}: ${e.message}\n`, said, 'the error `hloscope summary` gives, with its line and column');
  assert.equal(ov.inputs[1].error, undefined);
  const missing = run(['report', '--json', path.join(work, 'absent.txt')], { ok: false });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr.toString(), /cannot read/);
});

test('--redact leaves every real profile reading the same: runs, time per run, the top op, the devices', { skip: skip || sharedAbsent('profiles') }, () => {
  const profiles = ['profiles', 'profiles-multidevice'].flatMap((d) => sharedCaptures(d, (f) => f.endsWith('.xplane.pb')));
  assert.ok(profiles.length >= 4, `${profiles.length} profiles`);
  for (const f of profiles) {
    const plain = headline(json('report', f).inputs[0], 'time').figures;
    const red = headline(json('report', '--redact', f).inputs[0], 'time').figures;
    // programs in any order (they sort by name, and the names are placeholders)
    const shape = (x) => ({ programs: x.programs.map((p) => [p.runs, p.per_run_ps]).sort((a, b) => a[0] - b[0] || a[1] - b[1]), top: x.top_op && [x.top_op.per_run_ps, x.top_op.share],
      devices: x.device_count, kinds: x.device_kinds });
    assert.deepEqual(shape(red), shape(plain), path.basename(f));
  }
});

test('an `ls` listing of a real GPU or TPU dump folder is read as that folder: its pipelines and backend, as `hloscope passes` says', { skip: skip || sharedAbsent('pass-names') }, () => {
  const listings = sharedCaptures('pass-names', (f) => f.endsWith('.txt'));
  assert.ok(listings.some((f) => /\/gpu_/.test(f)) && listings.some((f) => /\/tpu_/.test(f)), 'GPU and TPU listings');
  for (const f of listings) {
    const item = json('report', f).inputs[0];
    assert.equal(item.error, undefined, `${f}: ${JSON.stringify(item.error)}`);
    assert.equal(item.what, 'dump folder');
    const ps = json('passes', f);
    const h = headline(item, 'pipelines').figures;
    assert.equal(h.steps, ps.modules.reduce((n, m) => n + m.steps.length, 0), path.basename(f));
    assert.deepEqual(h.modules.map((m) => [m.name, m.backend]), ps.modules.map((m) => [m.name, m.backend]), path.basename(f));
  }
  const ov = json('report', ...listings);
  const backends = new Set(ov.provenance.backend.map((b) => b.value));
  assert.ok(backends.has('gpu') && backends.has('tpu'), `backends said: ${[...backends]}`);
});
