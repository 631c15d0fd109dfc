// <xla-levels> on a course page (tests/browser/pages/levels.html, dist/hloscope-drills.js):
// the add of fixtures/levels/cpu-jax-0.4.38/add at three levels, named by URL; then whole dump
// folders (the softmax of jax 0.4.38 in four .ll parts, the add of jax 0.12) handed to the
// element as files. The expected numbers are in the texts themselves: the no-opt loop compares
// its counter with 1024, the optimized one steps by 32 to 1024, the body's add is one fadd
// before and four <8 x float> fadds after. No request leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { addCell, cell, cellIds, launch, openPage, pasteInto, repoRoot, distDir, serveDist, setDumpName, skipWithoutChromium, waitForDump, waitForNotebook } from './harness.mjs';
import { startServer } from '../../notebook/serve.mjs';
import { levelsFixtures, newestFixtureSet, sharedAbsent, sharedCaptures } from '../fixtures.mjs';

const levels = join(repoRoot, 'fixtures/levels');
const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs')) && existsSync(join(repoRoot, 'wasm/hloscope.mjs'));
const skip = skipWithoutChromium
  || (!haveWasm && 'the wasm core is not built (npm run build:wasm)')
  || (!existsSync(join(levels, 'cpu-jax-0.4.38/add')) && 'fixtures/levels is missing (bash fixtures/capture/run-levels.sh)')
  || false;

let server;
let chrome;

before(async () => {
  if (skip) return;
  const bundle = join(distDir, 'hloscope-drills.js');
  if (!existsSync(bundle) || !readFileSync(bundle, 'utf8').includes('xla-levels') || !readFileSync(join(distDir, 'app.js'), 'utf8').includes('show.levels')) {
    execFileSync(process.execPath, [join(repoRoot, 'notebook/build.mjs')], { stdio: 'inherit', cwd: repoRoot });
  }
  server = await startServer({ root: repoRoot, port: 0 });
  chrome = await launch();
});

after(async () => {
  await chrome?.close();
  await server?.close();
});

/** What one <xla-levels> shows: per level, its "decided" line, highlighted lines, loop heads. */
function state(page, id) {
  return page.evaluate((id) => {
    const r = document.getElementById(id).shadowRoot;
    return {
      status: r.querySelector('.status').textContent,
      kernels: [...r.querySelectorAll('select option')].map((o) => o.value),
      ops: [...r.querySelectorAll('button.op')].map((b) => b.dataset.op),
      dropped: r.querySelector('p.dropped')?.textContent ?? null,
      levels: [...r.querySelectorAll('section.level')].map((s) => ({
        kind: s.dataset.level,
        decided: s.querySelector('p.decided').textContent,
        hits: [...s.querySelectorAll('.ln.hit .src')].map((x) => x.textContent.trim()),
        trips: [...s.querySelectorAll('.ln .trip')].map((x) => x.textContent),
        deepest: Math.max(0, ...[...s.querySelectorAll('.ln')].map((x) => +x.dataset.depth)),
      })),
    };
  }, id);
}

const ready = (page, id) => page.waitForFunction((id) => {
  const r = document.getElementById(id)?.shadowRoot;
  return r && (r.querySelectorAll('section.level').length === 3 || /levels:/.test(r.querySelector('.status')?.textContent || ''));
}, id, { timeout: 30000 });

test('the add at three levels: the same add highlighted, loops outlined, one line per level', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    await ready(page, 'add');
    const s = await state(page, 'add');
    assert.equal(s.status, '');
    assert.deepEqual(s.kernels, ['add.3']);
    assert.deepEqual(s.ops, ['add']);
    // what the lowering dropped, from the core's `dropped` (the texts: f32[1024]{0}, [1024 x float])
    assert.match(s.dropped, /^dropped on the way down: shapes f32\[1024\], f32\[1024\], f32\[1024\] → untyped pointers/);
    assert.match(s.dropped, /layout \{0\} → strides over \[1024 x float\];/);
    // the core's dropped list does not say what was folded: unknown, and every op of the body
    // (the add) is still computed in the optimized IR
    assert.match(s.dropped, /folded away: unknown \(the core's dropped list does not say\)$/);
    const [hlo, noopt, opt] = s.levels;
    assert.deepEqual(s.levels.map((l) => l.kind), ['tensors', 'loops', 'vectors']);
    assert.equal(hlo.hits.length, 1);
    assert.match(hlo.hits[0], /= f32\[1024\]\{0\} add\(/);
    assert.deepEqual(noopt.hits, ['%add.3 = fadd float %4, %6']);
    assert.equal(opt.hits.length, 4);
    assert.ok(opt.hits.every((h) => /= fadd <8 x float>/.test(h)), opt.hits.join('\n'));
    assert.deepEqual(noopt.trips, ['loop depth 1, runs 1024×']);
    assert.deepEqual(opt.trips, ['loop depth 1, runs 32×']);
    assert.equal(noopt.deepest, 1);
    assert.match(hlo.decided, /^whole tensors: /);
    assert.match(noopt.decided, /^loops over buffers: 1 loop \(trip counts 1024\)/);
    assert.match(opt.decided, /^vectors: <8 x float>; 1 loop \(trip counts 32\)/);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally { await close(); }
});

/** The files of a levels fixture (its MANIFEST.json aside), as a folder pick gives them. */
async function feedFolder(page, set, id) {
  const c = levelsFixtures().find((x) => x.set === set && x.id === id);
  assert.ok(c, `fixtures/levels/${set}/${id} is missing: an in-repo fixture`);
  const files = c.files((n) => n !== 'MANIFEST.json')
    .map((f) => ({ name: f.slice(c.dir.length + 1), text: readFileSync(f, 'utf8') }));
  await page.evaluate((files) => { document.getElementById('folder').folder = files; }, files);
  await ready(page, 'folder');
}

test('a dump folder feeds it: the softmax of jax 0.4.38 (four .ll parts), kernels and the exp', { skip }, async () => {
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    await feedFolder(page, 'cpu-jax-0.4.38', 'softmax');
    let s = await state(page, 'folder');
    assert.equal(s.status, '');
    // the fusions first: XLA's two loop fusions of the softmax, then the reductions
    assert.deepEqual(s.kernels.slice(0, 2).sort(), ['broadcast_divide_fusion', 'subtract_exponential_fusion']);
    await page.evaluate(() => { const e = document.getElementById('folder'); e.kernel = 'subtract_exponential_fusion'; e.op = 'exponential'; });
    s = await state(page, 'folder');
    const [hlo, noopt, opt] = s.levels;
    assert.equal(hlo.hits.length, 1);
    assert.match(hlo.hits[0], / exponential\(/);
    // before LLVM's optimizer the exp is a call of llvm.exp.f32; after it, it was expanded
    // inline (llvm.floor and a polynomial): no exp call is left to highlight
    assert.ok(noopt.hits.some((h) => /call .*@llvm\.exp\.f32/.test(h)), noopt.hits.join('\n'));
    assert.deepEqual(opt.hits, []);
    assert.equal(noopt.deepest, 2);
    assert.deepEqual(noopt.trips, ['loop depth 1, runs 64×', 'loop depth 2, runs 128×']);
    assert.match(noopt.decided, /^loops over buffers: 1 loop nest, 2 deep \(trip counts 64 × 128\)/);
    // the optimized divide: one 64× loop holding two loops side by side (4×, then 128×), the
    // core's depths: one nest, not "3 loops (64 × 4 × 128)"
    await page.evaluate(() => { document.getElementById('folder').kernel = 'broadcast_divide_fusion'; });
    s = await state(page, 'folder');
    assert.deepEqual(s.levels[2].trips, ['loop depth 1, runs 64×', 'loop depth 2, runs 4×', 'loop depth 2, runs 128×']);
    assert.match(s.levels[2].decided, /^vectors: [^;]*; 1 loop nest, 2 deep \(trip counts 64 × \(4, then 128\)\);/);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally { await close(); }
});

test('a dump folder of the newest jax: the tiled emitter wrote <8 x float> before LLVM ran', { skip }, async () => {
  const dir = newestFixtureSet(levels);
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    await feedFolder(page, dir, 'add');
    const s = await state(page, 'folder');
    assert.equal(s.status, '');
    assert.deepEqual(s.kernels, ['wrapped_add']);
    const [, noopt, opt] = s.levels;
    assert.ok(noopt.hits.length >= 1 && noopt.hits.every((h) => /fadd <8 x float>/.test(h)), noopt.hits.join('\n'));
    assert.match(noopt.decided, /<8 x float>/);
    assert.ok(opt.hits.length >= 1);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('in the notebook: an LLVM IR dump says so and suggests its levels with the HLO it came from', { skip }, async () => {
  const dist = await serveDist();
  const dir = join(levels, 'cpu-jax-0.4.38/add');
  const { page, errors, external, close } = await openPage(chrome.browser, dist.url);
  try {
    await waitForNotebook(page);
    const h = await addCell(page, 'dump');
    await setDumpName(page, h, 'add_hlo');
    await pasteInto(page, h, readFileSync(join(dir, 'module_0001.jit_add.cpu_after_optimizations.txt'), 'utf8'));
    const a = await addCell(page, 'dump');
    await setDumpName(page, a, 'add_noopt');
    await pasteInto(page, a, readFileSync(join(dir, 'module_0001.jit_add.ir-no-opt.ll'), 'utf8'));
    const b = await addCell(page, 'dump');
    await setDumpName(page, b, 'add_opt');
    await pasteInto(page, b, readFileSync(join(dir, 'module_0001.jit_add.ir-with-opt.ll'), 'utf8'));
    assert.match(await waitForDump(page, a), /^LLVM IR · 76 lines/);
    assert.match(await waitForDump(page, b), /^LLVM IR \(optimized\) · 66 lines/);
    // both .ll levels are in the notebook: each suggests the three-level view with both
    const suggestion = page.locator(`${cell(a)} [data-testid=suggest] button.primary`);
    assert.equal(await suggestion.textContent(), 'levels add_hlo → add_noopt + add_opt');
    assert.equal(await page.locator(`${cell(b)} [data-testid=suggest] button.primary`).textContent(), 'levels add_hlo → add_noopt + add_opt');
    assert.equal(await suggestion.getAttribute('data-code'), 'show.levels(add_hlo, add_noopt, add_opt)');
    await suggestion.click();
    const ids = await cellIds(page);
    const x = ids[ids.indexOf(a) + 1];
    const sel = `${cell(x)} xla-levels`;
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot?.querySelectorAll('section.level').length === 3, sel, { timeout: 30000 });
    const got = await page.$eval(sel, (e) => [...e.shadowRoot.querySelectorAll('section.level')].map((s) => ({
      decided: s.querySelector('p.decided').textContent, hits: s.querySelectorAll('.ln.hit').length })));
    assert.match(got[0].decided, /^whole tensors/);
    assert.match(got[1].decided, /^loops over buffers: 1 loop \(trip counts 1024\)/);
    assert.equal(got[1].hits, 1);
    assert.match(got[2].decided, /^vectors: <8 x float>; 1 loop \(trip counts 32\)/);
    assert.equal(got[2].hits, 4);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally { await close(); await dist.close(); }
});

test('the element\'s own folder picker reads a dump folder from disk', { skip }, async () => {
  const dir = join(levels, 'cpu-jax-0.4.38/reduce');
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    const input = page.locator('#folder input[type=file]');
    await input.setInputFiles(dir); // a directory, as a person picks it
    await ready(page, 'folder');
    const s = await state(page, 'folder');
    assert.equal(s.status, '');
    // the fusion with a reduction: XLA:CPU 0.4.38 emits the reduce as its own kernel
    assert.ok(s.kernels.length >= 1, s.kernels.join());
    assert.equal(s.levels.length, 3);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally { await close(); }
});

test('the picker on a shared llvm/ folder: the module with its HLO and both levels, what was folded said as unknown', async (t) => {
  const files = sharedCaptures('llvm', (n) => /\.ll$|after_optimizations\.txt$/.test(n));
  if (!files.length) { t.skip(sharedAbsent('llvm')); return; }
  if (skip) { t.skip(skip); return; }
  const { page, errors, external, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    // the folder holds module 0010 (its HLO, the no-opt .ll only) and module 0028 (its HLO and
    // both levels): the picker takes 0028, whose kernel is named after an HLO fusion there
    await page.locator('#folder input[type=file]').setInputFiles(dirname(files[0]));
    await ready(page, 'folder');
    const s = await state(page, 'folder');
    assert.equal(s.status, '');
    assert.deepEqual(s.kernels, ['bitcast_concatenate_fusion']);
    assert.match(s.levels[0].decided, /^whole tensors: s32\[\] → u32\[2\]/);
    for (const text of [s.dropped, ...s.levels.map((l) => l.decided)]) assert.doesNotMatch(text, /null|undefined/, text);
    // the optimized IR stores a literal 0 where the HLO shifts right by 32: no lshr is left, and
    // the core's dropped list does not say it was folded: the facts, and unknown
    assert.match(s.dropped, /folded away: unknown \(the core's dropped list does not say\); no instruction of the optimized IR computes shift_right_logical\.0 \(shift-right-logical: no lshr\)/);
    // no array type in this kernel's getelementptr (struct fields, i8 offsets): the layout
    // sentence ends on what there is, the core's count of them in the no-opt kernel
    assert.match(s.dropped, /layout \{0\} → index arithmetic in 7 getelementptr \(no array type is left to show the strides\);/);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  } finally { await close(); }
});

test('pasted texts without the HLO: the kernels by their own names, the HLO level says what is missing', { skip }, async () => {
  const dir = join(levels, 'cpu-jax-0.4.38/add');
  const { page, errors, close } = await openPage(chrome.browser, `${server.url}tests/browser/pages/levels.html`);
  try {
    const noopt = readFileSync(join(dir, 'module_0001.jit_add.ir-no-opt.ll'), 'utf8');
    const opt = readFileSync(join(dir, 'module_0001.jit_add.ir-with-opt.ll'), 'utf8');
    await page.evaluate(({ noopt, opt }) => { document.getElementById('folder').texts = { hlo: '', noopt, opt }; }, { noopt, opt });
    await ready(page, 'folder');
    const s = await state(page, 'folder');
    assert.deepEqual(s.kernels, ['add.3']);
    assert.match(s.levels[0].decided, /^not given/);
    assert.deepEqual(s.levels[1].trips, ['loop depth 1, runs 1024×']);
    assert.deepEqual(s.levels[2].trips, ['loop depth 1, runs 32×']);
    // a text that is not LLVM IR: the element says so, with the core's words
    await page.evaluate(() => { document.getElementById('folder').texts = { hlo: '', noopt: 'HloModule m\n', opt: [] }; });
    await page.waitForFunction(() => /levels:/.test(document.getElementById('folder').shadowRoot.querySelector('.status').textContent));
    const status = await page.evaluate(() => document.getElementById('folder').shadowRoot.querySelector('.status').textContent);
    assert.match(status, /not LLVM IR/);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});
