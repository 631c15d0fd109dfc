// The Python package in its three places (issue 16):
//   1. the folder notebook/jupyter, and the wheel `npm run build` makes (tools/build-wheel.sh ->
//      dist/hloscope-*.whl), install with the network off (pip --no-index, proxies pointing nowhere)
//      from a folder holding that wheel and wasmtime's (downloaded once into build/wheelhouse);
//   2. the text reprs in plain Python (tests/jupyter/test_text.py, against the installed wheel),
//      and, in a fresh venv with the two wheels and a PATH with neither node nor hloscope, the
//      wasm CLI in wasmtime against the native CLI on every row of the command table and every
//      fixture its inputs accept (tests/jupyter/wasm-cases.mjs, wasm_parity.py), and the
//      `hloscope` console script;
//   3. a real JupyterLab from PyPI, driven by headless Chromium, runs a notebook that compiles a
//      fixture program with real jax on the CPU and calls hloscope.xray: the widget shows the stat
//      line (its figures from the texts and XLA's own module), fusion ops in copper, and no
//      request leaves the page but to the Jupyter server.
// What it needs goes into build/jupyter-venv (tools/python-env.sh jupyter, from PyPI the first
// time, then cached). Without PyPI and without that venv the suite skips LOUDLY; on CI (CI set)
// it fails instead.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, repoRoot, sharedAbsent, skipWithoutChromium } from '../browser/harness.mjs';
import { diffPairs } from '../fixtures.mjs';
import { caseList, nativeResults } from './wasm-cases.mjs';

const CLI = join(repoRoot, 'build/native/hloscope');
const MATMUL = join(repoRoot, 'fixtures/cpu-jax-0.4.38/matmul');
const MULTI = join(repoRoot, 'fixtures/profiles/multiprocess-cpu-jax-0.10.2'); // three processes' profiles
const BUFFERS = 'module_0001.jit_matmul.cpu_after_optimizations-buffer-assignment.txt';
// hloscope.diff's widget: an MLP's gradient without and with jax.checkpoint (a real pair)
const REMAT = diffPairs().find((c) => c.label === 'cpu-jax-0.12.0.1/mlp_grad-remat');
import { tokensCss } from '../../notebook/src/design.js';

// --copper of the design tokens (notebook/src/design.js), light scheme, as getComputedStyle gives it.
const COPPER = (() => {
  const hex = tokensCss(':root').match(/--copper: #([0-9a-f]{6});/i)[1];
  return `rgb(${[0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
})();

function loud(msg) {
  const bar = '!'.repeat(100);
  console.error(`\n${bar}\n!!!! ${msg}\n${bar}\n`);
}

/** Runs a script; returns its stdout; status 77 -> { skip: reason }. */
function script(args, what) {
  const r = spawnSync('bash', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status === 77) return { skip: `${what}: PyPI is unreachable and nothing is cached under build/` };
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed with status ${r.status}`);
  return { out: r.stdout.trim() };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

let setup = null;
function prepare() {
  if (setup) return setup;
  const env = script(['tools/python-env.sh', 'jupyter'], 'the Jupyter venv');
  if (env.skip) return (setup = env);
  const wheel = script(['tools/build-wheel.sh'], 'the wheel');
  if (wheel.skip) return (setup = wheel);
  const whl = readdirSync(join(repoRoot, 'dist')).filter((f) => /^hloscope-.*\.whl$/.test(f));
  assert.equal(whl.length, 1, `one wheel in dist/: ${whl}`);
  const venv = join(repoRoot, env.out.split('\n').pop());
  // wasmtime's wheel for this machine, the version requirements-jupyter.txt pins, fetched once
  const pin = readFileSync(join(repoRoot, 'notebook/jupyter/requirements-jupyter.txt'), 'utf8').match(/^wasmtime==(\S+)$/m)[1];
  const house = join(repoRoot, 'build/wheelhouse');
  const has = () => existsSync(house) && readdirSync(house).some((f) => f.startsWith(`wasmtime-${pin}-`) && f.endsWith('.whl'));
  if (!has()) {
    const r = spawnSync(join(venv, 'bin/python'), ['-m', 'pip', 'download', '-q', '--disable-pip-version-check', '--no-deps',
      '--only-binary=:all:', '-d', house, `wasmtime==${pin}`], { encoding: 'utf8' });
    if (r.status !== 0 || !has()) return (setup = { skip: `wasmtime ${pin}'s wheel: PyPI is unreachable and build/wheelhouse lacks it\n${r.stderr}` });
  }
  const wasmtimeWheel = join(house, readdirSync(house).find((f) => f.startsWith(`wasmtime-${pin}-`) && f.endsWith('.whl')));
  return (setup = { venv, wheel: join(repoRoot, 'dist', whl[0]), wasmtimeWheel });
}

describe('hloscope in Python and Jupyter', { timeout: 600000 }, () => {
  let s;
  before(() => {
    s = prepare();
    if (s.skip) {
      if (process.env.CI) throw new Error(`${s.skip}: on CI PyPI must be reachable`);
      loud(`SKIPPING the Jupyter tests: ${s.skip}`);
    }
  });
  const py = () => join(s.venv, 'bin/python');
  const skipped = (t) => { if (s.skip) { t.skip(s.skip); return true; } return false; };

  const dead = 'http://127.0.0.1:9';
  const offline = { ...process.env, PIP_FIND_LINKS: '', PIP_INDEX_URL: dead, http_proxy: dead, https_proxy: dead,
    HTTP_PROXY: dead, HTTPS_PROXY: dead, no_proxy: '', NO_PROXY: '' };

  test('the folder installs with the network off (setuptools already there)', (t) => {
    if (skipped(t)) return;
    const r = spawnSync(py(), ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--disable-pip-version-check',
      '--force-reinstall', '--no-deps', join(repoRoot, 'notebook/jupyter')], { encoding: 'utf8', env: offline });
    rmSync(join(repoRoot, 'notebook/jupyter/build'), { recursive: true, force: true });
    for (const f of readdirSync(join(repoRoot, 'notebook/jupyter'))) if (f.endsWith('.egg-info')) rmSync(join(repoRoot, 'notebook/jupyter', f), { recursive: true, force: true });
    assert.equal(r.status, 0, `pip install --no-index notebook/jupyter failed:\n${r.stdout}\n${r.stderr}`);
  });

  test('the wheel from npm run build installs with the network off, from a folder holding it and wasmtime\'s', (t) => {
    if (skipped(t)) return;
    // The widget's bundle carries the reactor wasm: the wheel must hold something of its size; and the CLI's wasm itself.
    const wasm = statSync(join(repoRoot, 'wasm/gen/hloscope_core.wasm')).size;
    const cliWasm = readFileSync(join(repoRoot, 'wasm/gen/hloscope-cli.wasm'));
    assert.match(s.wheel, /-py3-none-any\.whl$/, 'a pure wheel');
    const house = mkdtempSync(join(tmpdir(), 'hloscope-wheels-'));
    t.after(() => rmSync(house, { recursive: true, force: true }));
    for (const w of [s.wheel, s.wasmtimeWheel]) writeFileSync(join(house, w.split('/').pop()), readFileSync(w));
    spawnSync(py(), ['-m', 'pip', 'uninstall', '-y', '-q', 'hloscope', 'wasmtime'], { stdio: 'inherit' });
    const r = spawnSync(py(), ['-m', 'pip', 'install', '--no-index', '--find-links', house, '--disable-pip-version-check', 'hloscope'], {
      encoding: 'utf8',
      env: offline,
    });
    assert.equal(r.status, 0, `pip install --no-index --find-links failed:\n${r.stdout}\n${r.stderr}`);
    const where = spawnSync(py(), ['-c', 'import hloscope, pathlib, wasmtime; p = pathlib.Path(hloscope.__file__).parent; '
      + 'print(p); print((p / "static/widget.mjs").stat().st_size); print((p / "static/hloscope-cli.wasm").stat().st_size); '
      + 'print(pathlib.Path(wasmtime.__file__).parent); print(int((p / "static/cli.mjs").exists()))'],
    { encoding: 'utf8', cwd: tmpdir() });
    assert.equal(where.status, 0, where.stderr);
    const [dir, widget, cliSize, wt, nodeCli] = where.stdout.trim().split('\n');
    assert.ok(dir.startsWith(s.venv) && wt.startsWith(s.venv), `hloscope and wasmtime imported from the venv, not from ${dir}, ${wt}`);
    assert.ok(Number(widget) > wasm, `widget.mjs ${widget} B carries the ${wasm} B wasm`);
    assert.equal(Number(cliSize), cliWasm.length, 'static/hloscope-cli.wasm is wasm/gen/hloscope-cli.wasm');
    assert.equal(nodeCli, '0', 'no Node CLI in the package');
  });

  test('in a fresh venv with neither node nor hloscope on PATH, the wasm CLI prints what the native CLI prints', { skip: existsSync(CLI) ? false : `no native CLI at ${CLI} (npm run build:native)` }, async (t) => {
    if (skipped(t)) return;
    const work = mkdtempSync(join(tmpdir(), 'hloscope-wasm-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    // the venv: Python's own, pip from ensurepip, and the two wheels only (--no-deps: the text needs no anywidget)
    const base = spawnSync(py(), ['-c', 'import sys; print(sys._base_executable)'], { encoding: 'utf8' }).stdout.trim();
    let r = spawnSync(base, ['-m', 'venv', join(work, 'venv')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const vpy = join(work, 'venv/bin/python');
    r = spawnSync(vpy, ['-m', 'pip', 'install', '-q', '--no-index', '--no-deps', '--disable-pip-version-check', s.wheel, s.wasmtimeWheel],
      { encoding: 'utf8', env: offline });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const cases = await nativeResults(CLI, caseList(CLI, work));
    writeFileSync(join(work, 'cases.json'), JSON.stringify(cases));
    const bare = join(work, 'empty-path'); // PATH: a folder holding nothing
    spawnSync('mkdir', [bare]);
    const env = { HOME: work, PATH: bare, XDG_CACHE_HOME: join(work, 'cache'), LANG: 'C.UTF-8' };
    r = spawnSync(vpy, [join(repoRoot, 'tests/jupyter/wasm_parity.py'), join(work, 'cases.json')], { encoding: 'utf8', env, cwd: work, maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout.trim().split('\n').pop());
    const refused = cases.filter((c) => c.rc !== 0).length;
    const rows = new Set(cases.map((c) => c.argv[0] + (c.argv.includes('--compare') ? ' --compare' : '')));
    console.log(`wasm against native: ${got.cases} runs (${refused} refused inputs), commands ${[...rows].join(', ')}`);
    assert.equal(got.cases, cases.length);
    assert.ok(refused >= 20, `inputs the core refuses are among the cases (${refused})`);
    assert.deepEqual(got.mismatches.slice(0, 5), [], `${got.mismatches.length} of ${got.cases} runs differ from the native CLI`);
    // the console script: the CLI with this process's argv and streams, stdin `-` included
    const hlo = readFileSync(join(MATMUL, 'after_optimizations.txt'));
    for (const argv of [['fusions', 'after_optimizations.txt'], ['summary', '--json', '-'], ['xray', 'stablehlo.mlir', 'after_optimizations.txt'], ['fusions', 'nope.txt']]) {
      const w = spawnSync(join(work, 'venv/bin/hloscope'), argv, { cwd: MATMUL, env, input: hlo });
      const n = spawnSync(CLI, argv, { cwd: MATMUL, input: hlo });
      assert.equal(w.status, n.status, `hloscope ${argv.join(' ')}: exit status (${w.stderr})`);
      assert.equal(w.stdout.toString('utf8'), n.stdout.toString('utf8'), `hloscope ${argv.join(' ')}`);
    }
    // the cache: a compiled module written on first use, keyed by the wasm's sha256 and wasmtime's version;
    // a damaged entry is compiled again, never loaded
    const cacheDir = join(work, 'cache/hloscope');
    const entries = readdirSync(cacheDir).filter((f) => f.endsWith('.cwasm'));
    assert.equal(entries.length, 1, `one compiled module in ${cacheDir}: ${entries}`);
    const sha = createHash('sha256').update(readFileSync(join(repoRoot, 'wasm/gen/hloscope-cli.wasm'))).digest('hex');
    assert.ok(entries[0].includes(sha.slice(0, 32)) && entries[0].includes('wasmtime-'), entries[0]);
    const entry = join(cacheDir, entries[0]);
    const bytes = readFileSync(entry);
    bytes.fill(0x5a, bytes.length >> 1, (bytes.length >> 1) + 4096);
    writeFileSync(entry, bytes);
    const again = spawnSync(join(work, 'venv/bin/hloscope'), ['fusions', 'after_optimizations.txt'], { cwd: MATMUL, env });
    assert.equal(again.status, 0, again.stderr.toString());
    assert.equal(again.stdout.toString(), spawnSync(CLI, ['fusions', 'after_optimizations.txt'], { cwd: MATMUL }).stdout.toString());
    assert.notDeepEqual(readFileSync(entry), bytes, 'the damaged entry was written again');
  });

  test('text reprs in plain Python equal the CLI (native, and the wasm CLI in wasmtime)', { skip: existsSync(CLI) ? false : `no native CLI at ${CLI} (npm run build:native)` }, (t) => {
    if (skipped(t)) return;
    const r = spawnSync(py(), [join(repoRoot, 'tests/jupyter/test_text.py')], {
      encoding: 'utf8',
      cwd: tmpdir(),
      env: { ...process.env, HLOSCOPE_TEST_CLI: CLI, JAX_PLATFORMS: 'cpu', PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    });
    console.log(r.stderr);
    assert.equal(r.status, 0, 'python tests/jupyter/test_text.py');
    // Nothing skipped but for lack of ../shared, and only when the walker finds it absent (or
    // HLOSCOPE_NO_SHARED=1 hides it): each such skip names the shared folder it lacks.
    const skips = [...r.stderr.matchAll(/^(\S+) \(.*\) \.\.\. skipped (['"])(.*)\2$/gm)].map(([, name, , why]) => ({ name, why }));
    assert.equal(skips.length, (r.stderr.match(/\.\.\. skipped/g) || []).length, `every skip is read:\n${r.stderr}`);
    // each skip names its own shared folder (memory, profiles-multidevice, ...): the walker's word for it
    const lacks = (x) => { const m = /^SKIPPED: \.\.\/shared\/captures\/(\S+) is/.exec(x.why); return m && x.why === sharedAbsent(m[1]); };
    assert.deepEqual(skips.filter((x) => !lacks(x)), [], `nothing skipped but for lack of ../shared (${sharedAbsent() || 'present here'})`);
    if (skips.length) t.diagnostic(`skipped for lack of ../shared: ${skips.map((x) => x.name).join(', ')}`);
  });

  test('JupyterLab in Chromium: the x-ray of a fresh jax compile, offline', { skip: skipWithoutChromium ?? false }, async (t) => {
    if (skipped(t)) return;
    const work = mkdtempSync(join(tmpdir(), 'hloscope-jupyter-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
      cells: [
        [
          'import sys',
          `sys.path[:0] = [${JSON.stringify(join(repoRoot, 'fixtures/capture/programs'))}, ${JSON.stringify(join(repoRoot, 'fixtures/capture'))}]`,
          'import jax, hloscope',
          'import naive_attention as prog  # the fixture program of the page tests',
          'lowered = jax.jit(prog.FUNCTION).lower(*prog.example_args())',
          'hloscope.xray(lowered)',
        ],
        [
          '# The figures the stat line must show, from outside hloscope: the texts, and XLA\'s own module',
          'import json, hlo_proto',
          'compiled = lowered.compile()',
          'lines = lambda t: t.count("\\n") + (0 if t.endswith("\\n") else 1)',
          'ops = [i for hm in compiled.runtime_executable().hlo_modules()',
          '       for c in hlo_proto.decode_module(hm.as_serialized_hlo_module_proto())["computations"] for i in c["instructions"]]',
          'facts = {"lines_in": lines(lowered.as_text()), "lines_out": lines(compiled.as_text()),',
          '         "fusion_ops": sum(i["opcode"] == "fusion" for i in ops)}',
          'open("facts.json.tmp", "w").write(json.dumps(facts))',
          'import os; os.replace("facts.json.tmp", "facts.json")',
        ],
        ['hloscope.fusions(compiled)'],
        ['hloscope.spills(jax.jit(prog.FUNCTION), *prog.example_args())'],
        ['from pathlib import Path', `hloscope.timeline(Path(${JSON.stringify(MATMUL)}) / "profile.xplane.pb", hlo=Path(${JSON.stringify(MATMUL)}) / "after_optimizations.txt")`],
        ['hloscope.xray(compiled)  # a Compiled alone: the optimized side only'],
        [`hloscope.memory(${JSON.stringify(join(MATMUL, 'dump', BUFFERS))})  # a dump's buffer assignment`],
        [
          'closed = jax.make_jaxpr(prog.FUNCTION)(*prog.example_args())',
          '# jax\'s own equations: how many broadcasts the decisions table must list',
          'n = sum(e.primitive.name == "broadcast_in_dim" for e in closed.jaxpr.eqns)',
          'open("bcast.json.tmp", "w").write(json.dumps(n)); os.replace("bcast.json.tmp", "bcast.json")',
          'hloscope.decisions(closed)',
        ],
        [`hloscope.passes(Path(${JSON.stringify(join(repoRoot, 'fixtures/passes/cpu-jax-0.4.38/mlp/dump.tar.gz'))}))`],
        [`hloscope.timeline(${JSON.stringify(MULTI)})  # a multi-process job's folder: one profile per process, read as one`],
        [`hloscope.diff(Path(${JSON.stringify(REMAT.file('a.after_optimizations.txt'))}), Path(${JSON.stringify(REMAT.file('b.after_optimizations.txt'))}))`],
      ].map((lines, i) => ({ cell_type: 'code', id: `c${i}`, metadata: {}, execution_count: null, outputs: [], source: lines.join('\n') })),
    };
    writeFileSync(join(work, 'xray.ipynb'), JSON.stringify(nb));

    const port = await freePort();
    const token = randomBytes(16).toString('hex');
    const dirs = Object.fromEntries(['JUPYTER_CONFIG_DIR', 'JUPYTER_RUNTIME_DIR', 'IPYTHONDIR', 'JUPYTERLAB_SETTINGS_DIR',
      'JUPYTERLAB_WORKSPACES_DIR'].map((k) => [k, join(work, `.${k.toLowerCase()}`)]));
    let log = '';
    const server = spawn(join(s.venv, 'bin/jupyter-lab'), ['--no-browser', '--ServerApp.ip=127.0.0.1', `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0', `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${work}`,
      '--LabApp.expose_app_in_browser=True', '--LabApp.news_url=None', '--LabApp.extension_manager=readonly', '--allow-root',
      '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'], {
      cwd: work,
      env: { ...process.env, ...dirs, JAX_PLATFORMS: 'cpu', PATH: `${join(s.venv, 'bin')}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout.on('data', (d) => { log += d; });
    server.stderr.on('data', (d) => { log += d; });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    t.after(async () => { server.kill('SIGTERM'); await exited; });
    const origin = `http://127.0.0.1:${port}`;
    // Up to 480 tries 250 ms apart (about 2 minutes): a count of tries, not a clock.
    for (let tries = 1; ; tries++) {
      if (server.exitCode !== null) throw new Error(`jupyter lab exited:\n${log}`);
      try {
        if ((await fetch(`${origin}/api/status?token=${token}`)).ok) { console.log(`jupyter lab up after ${tries} tries`); break; }
      } catch { /* not listening yet */ }
      if (tries >= 480) throw new Error(`jupyter lab did not start after ${tries} tries, 250 ms apart:\n${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
    t.after(() => browser.close().catch(() => {}));
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const seen = [];
    const outside = [];
    const mine = (u) => /^(data|blob|about):/.test(u) || u.startsWith(`${origin}/`) || u.startsWith(`ws://127.0.0.1:${port}/`);
    await context.route('**/*', (route) => {
      const u = route.request().url();
      if (mine(u)) return route.continue();
      outside.push(u);
      return route.abort('blockedbyclient');
    });
    context.on('request', (r) => { seen.push(r.url()); if (!mine(r.url()) && !outside.includes(r.url())) outside.push(r.url()); });
    const page = await context.newPage();
    page.on('websocket', (ws) => { seen.push(ws.url()); if (!mine(ws.url())) outside.push(ws.url()); });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error' && /hloscope|anywidget|xla-/i.test(m.text())) errors.push(m.text()); });
    await page.goto(`${origin}/lab/tree/xray.ipynb?token=${token}`, { waitUntil: 'load' });
    await page.waitForFunction((n) => {
      const w = window.jupyterapp?.shell?.currentWidget;
      const k = w?.sessionContext?.session?.kernel;
      return w?.content?.widgets?.length === n && k?.connectionStatus === 'connected' && k?.status === 'idle';
    }, nb.cells.length, { timeout: 120000 });
    await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells'));
    const stat = await page.waitForFunction(() => {
      const err = document.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"], [data-testid=hloscope-error]');
      if (err) throw new Error(`notebook error: ${err.textContent.slice(0, 2000)}`);
      const x = document.querySelector('.jp-OutputArea xla-xray');
      return x?.summary && x.shadowRoot.querySelector('.row') ? x.shadowRoot.querySelector('.stat').textContent : null;
    }, null, { timeout: 180000, polling: 200 }).then((h) => h.jsonValue());
    console.log(`x-ray shown after run-all: ${stat}`);
    await page.waitForFunction(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'
      && [...document.querySelectorAll('.jp-InputArea-prompt')].every((p) => /\[\d+\]/.test(p.textContent)), null, { timeout: 120000 });
    const facts = JSON.parse(readFileSync(join(work, 'facts.json'), 'utf8'));
    assert.ok(stat.startsWith(`${facts.lines_in} lines in -> ${facts.lines_out} lines decided · ${facts.fusion_ops} fusion ops`),
      `stat line "${stat}" against ${JSON.stringify(facts)}`);
    const copper = await page.evaluate(() => {
      const x = document.querySelector('.jp-OutputArea xla-xray');
      return [...x.shadowRoot.querySelectorAll('.right .row.c-fusion .tx')].map((e) => getComputedStyle(e).color);
    });
    assert.ok(copper.length >= 1, 'fusion op lines are drawn');
    assert.deepEqual([...new Set(copper)], [COPPER], 'fusion ops in copper');
    // The other views of the same core: the census table, the summary card, the timeline, the memory report.
    const others = await page.waitForFunction(() => {
      const t = document.querySelector('.jp-OutputArea xla-fusion-table');
      const s = document.querySelector('.jp-OutputArea xla-summary');
      const tl = document.querySelector('.jp-OutputArea xla-timeline');
      const m = document.querySelector('.jp-OutputArea xla-memory');
      const rows = t?.shadowRoot?.querySelectorAll('tbody tr').length;
      const card = s?.shadowRoot?.textContent ?? '';
      const ops = [...(tl?.shadowRoot?.querySelectorAll('tr.op') ?? [])].map((r) => r.dataset.op);
      const allocs = [...(m?.shadowRoot?.querySelectorAll('tr[data-testid=allocation]') ?? [])]
        .map((r) => [...r.querySelectorAll('td')].map((d) => d.textContent));
      return rows && /big intermediate|spill|HBM/i.test(card) && ops.length && allocs.length
        ? { rows, copperNames: [...t.shadowRoot.querySelectorAll('td.name')].map((e) => getComputedStyle(e).color),
          card, ops, timeline: tl.shadowRoot.textContent, allocs, memory: m.shadowRoot.textContent }
        : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    console.log(`fusion table: ${others.rows} rows; timeline: ops ${others.ops.join(', ')}; memory: ${others.allocs.length} allocations`);
    assert.equal(others.rows, facts.fusion_ops, 'one census row per fusion op of XLA\'s module');
    assert.deepEqual([...new Set(others.copperNames)], [COPPER], 'fusion names in copper');
    // The timeline's ops are instructions of the optimized module the profile ran (its text).
    const hloText = readFileSync(join(MATMUL, 'after_optimizations.txt'), 'utf8');
    const names = new Set([...hloText.matchAll(/%([\w.-]+) = /g)].map((m) => m[1]));
    assert.ok(others.ops.every((o) => names.has(o)), `timeline ops ${others.ops} are instructions of the module`);
    assert.match(others.timeline, /jit_matmul/);
    // The memory view: the buffer assignment's largest allocation, as its text gives it.
    const ba = readFileSync(join(MATMUL, 'dump', BUFFERS), 'utf8');
    const [, size, shape] = ba.match(/^allocation \d+: size (\d+), output shape is \|([^|]+)\|/m);
    assert.equal(Number(size), 262144, 'the fixture\'s output allocation');
    assert.deepEqual(others.allocs[0].slice(1, 3), ['256.00 KiB', shape], `first allocation ${others.allocs[0]}`);
    const oneSided = await page.waitForFunction(() => {
      const x = document.querySelectorAll('.jp-OutputArea xla-xray')[1];
      return x?.summary && x.shadowRoot.querySelector('.row')
        ? { stat: x.shadowRoot.querySelector('.stat').textContent, left: !x.shadowRoot.querySelector('.col.left').hidden,
          right: !x.shadowRoot.querySelector('.col.right').hidden }
        : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    assert.deepEqual([oneSided.left, oneSided.right], [false, true], 'a Compiled shows the optimized side alone');
    assert.match(oneSided.stat, new RegExp(`${facts.lines_out} lines decided · ${facts.fusion_ops} fusion ops`));
    const dec = await page.waitForFunction(() => {
      const d = document.querySelector('.jp-OutputArea [data-testid=hloscope-decisions]');
      const rows = [...(d?.querySelectorAll('tr[data-testid=decision]') ?? [])];
      return rows.length ? { head: d.querySelector('p').textContent, kinds: rows.map((r) => r.children[1].textContent),
        kindColors: rows.map((r) => getComputedStyle(r.children[1]).color) } : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    console.log(`decisions: ${dec.head}`);
    const bcast = JSON.parse(readFileSync(join(work, 'bcast.json'), 'utf8'));
    assert.ok(bcast > 0 && dec.head.startsWith('jaxpr: '), dec.head);
    assert.equal(dec.kinds.filter((k) => k === 'broadcast').length, bcast, 'one broadcast row per broadcast_in_dim of jax\'s jaxpr');
    assert.deepEqual([...new Set(dec.kindColors)], [COPPER], 'kinds in copper');
    const pipe = await page.waitForFunction(() => {
      const p = document.querySelector('.jp-OutputArea xla-pipeline');
      const t = p?.shadowRoot?.textContent ?? '';
      return /jit_mlp/.test(t) ? t.slice(0, 300) : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    console.log(`passes: ${pipe.replace(/\s+/g, ' ').slice(0, 120)}`);
    // The multi-process job: one row per process (the MANIFEST's files and pids, written by the
    // capture), and the process it slowed on purpose named slowest.
    const hosts = await page.waitForFunction(() => {
      const tl = document.querySelectorAll('.jp-OutputArea xla-timeline')[1];
      const rows = [...(tl?.shadowRoot?.querySelectorAll('table.hosts tbody tr') ?? [])];
      return rows.length ? { status: tl.shadowRoot.querySelector('.status')?.textContent ?? '',
        rows: rows.map((r) => ({ file: r.dataset.file, slowest: r.dataset.slowest === 'true', pid: r.children[2].textContent })) } : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    const manifest = JSON.parse(readFileSync(join(MULTI, 'MANIFEST.json'), 'utf8'));
    console.log(`hosts: ${hosts.rows.map((h) => `${h.file} pid ${h.pid}${h.slowest ? ' slowest' : ''}`).join('; ')}`);
    assert.deepEqual(hosts.rows.map((h) => [h.file, h.pid]), manifest.processes.map((p) => [p.file, String(p.pid)]), 'one row per process');
    assert.deepEqual(hosts.rows.map((h) => h.slowest), manifest.processes.map((p) => p.index === manifest.slow_process), 'the slowed process is slowest');
    assert.match(hosts.status, /^timeline of 3 files: /);
    // hloscope.diff: the same <xla-diff> as the notebook, with the core's verdict (the JS API in Node)
    const shownDiff = await page.waitForFunction(() => {
      const d = document.querySelector('.jp-OutputArea xla-diff');
      return d?.diff ? { verdict: d.shadowRoot.querySelector('[data-testid=verdict]').textContent, rows: d.shadowRoot.querySelectorAll('.col.b .row').length } : null;
    }, null, { timeout: 60000, polling: 200 }).then((h) => h.jsonValue());
    const hs = await import(join(repoRoot, 'wasm/hloscope.mjs'));
    await hs.load();
    const remat = hs.diff(readFileSync(REMAT.file('a.after_optimizations.txt'), 'utf8'), readFileSync(REMAT.file('b.after_optimizations.txt'), 'utf8'));
    assert.equal(shownDiff.verdict, remat.verdict, 'the diff widget shows the core\'s verdict');
    assert.ok(shownDiff.rows > 10, `the diff widget draws its rows (${shownDiff.rows})`);
    // For a person to look at (build/ is git-ignored).
    await page.evaluate(() => document.querySelector('.jp-OutputArea xla-xray').scrollIntoView());
    await page.screenshot({ path: join(repoRoot, 'build/jupyter-xray.png') });
    await page.evaluate(() => document.querySelector('.jp-OutputArea xla-timeline').scrollIntoView());
    await page.screenshot({ path: join(repoRoot, 'build/jupyter-timeline-memory.png') });
    console.log(`requests: ${seen.length}, all to ${origin} or in-page; screenshots: build/jupyter-xray.png, build/jupyter-timeline-memory.png`);
    assert.deepEqual(outside, [], 'no request left the page but to the Jupyter server');
    assert.ok(seen.some((u) => u.startsWith(`ws://127.0.0.1:${port}/`)), 'the kernel spoke over the server\'s websocket');
    // anywidget logs this when a widget's module takes over 2 s to import (a loaded machine); the
    // widget still renders (checked above), so it is reported, not failed.
    const slow = errors.filter((e) => e === '[anywidget] Failed to initialize model.');
    if (slow.length) t.diagnostic(`anywidget: ${slow.length} widget module(s) took over 2 s to initialize`);
    assert.deepEqual(errors.filter((e) => !slow.includes(e)), [], 'no page errors');
  });
});
