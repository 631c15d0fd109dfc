// Profiles from many devices and hosts in the notebook's profile cell, in Chromium:
//   - the shared four-chip TPU v6e profile (../shared/captures/profiles-multidevice/): a click on
//     an op shows its instruction, its shape and its memory spaces in words (copy-done.4: 5 GiB
//     between HBM and pinned host memory, S(5)); the picture of one run of jit_f draws every
//     event of that run, counted from the protobuf by tests/oracle/profile/devices/count_run_events.py
//     (our own script over the raw events, not the timeline's JSON); a click on a box opens its
//     op; the device selector shows one chip's figures;
//   - our multi-process capture (fixtures/profiles/multiprocess-cpu-jax-0.10.2/) dropped as a
//     folder: its three files read together, one row per host, the slowed process named slowest
//     (the capture's MANIFEST.json says which process was given more work).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, openPage, serveDist, skipWithoutChromium, repoRoot, shared, waitForNotebook, addCell, cell } from './harness.mjs';

const haveWasm = existsSync(join(repoRoot, 'wasm/gen/hloscope_core.single.mjs'));
const skip = skipWithoutChromium || (!haveWasm && 'the wasm core is not built (npm run build:wasm)') || false;
const x4 = shared('captures/profiles-multidevice/xprof_tpu_v6e_x4_inference_2.xplane.pb');
const multi = join(repoRoot, 'fixtures/profiles/multiprocess-cpu-jax-0.10.2');

let server;
let chrome;

before(async () => {
  if (skip) return;
  server = await serveDist();
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  await server?.close();
});

async function timelineShown(page, id) {
  await page.waitForFunction((sel) => {
    const v = document.querySelector(`${sel} xla-timeline`);
    return v && !v.hidden && v.shadowRoot.querySelectorAll('tr.op').length > 0;
  }, cell(id), { timeout: 90000 }).catch(async () => {
    assert.fail(`no timeline; the cell says: ${await page.textContent(cell(id)).catch(() => '?')}`);
  });
}

test('the four-chip TPU profile: the instruction behind a click, every event of one run drawn, a chip selected', { skip: skip || (!x4 && 'SKIPPED: ../shared/captures is absent') }, async () => {
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-file]`, x4);
    await timelineShown(page, prof);
    const sel = `${cell(prof)} xla-timeline`;
    // several programs: it opens on all of them, with a program column
    assert.equal(await page.locator(`${sel} select.program-select`).inputValue(), '*');
    assert.ok(await page.locator(`${sel} td.prog`).count() > 0);
    // a click on copy-done.4: its instruction, shape and memory spaces in words
    await page.locator(`${sel} tr.op[data-op="copy-done.4"] td.name button`).click();
    const detail = await page.locator(`${sel} tr.detail`).textContent();
    assert.ok(detail.includes('%copy-done.4 = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} copy-done('), detail);
    assert.match(detail, /f32\[5,1024,1024,256\] \(5,368,709,120 bytes\) in pinned host memory \(S\(5\)\)/);
    assert.match(detail, /result: f32\[5,1024,1024,256\] \(5,368,709,120 bytes\) in the default memory \(HBM\)/);
    // the picture: every raw event of the run it shows
    const shown = await page.evaluate((s) => {
      const v = document.querySelector(s);
      const g = v.timeline.programs.find((x) => x.name === 'jit_f');
      const tracks = [...v.shadowRoot.querySelectorAll('svg.run g.track')].map((t) => ({
        plane: t.dataset.plane, line: t.dataset.line, drawn: t.querySelectorAll('.ev').length,
      }));
      return { run: g.picture.run, tracks, label: v.shadowRoot.querySelector('svg.run').getAttribute('aria-label') };
    }, sel);
    assert.equal(shown.label, 'one run of jit_f');
    const raw = JSON.parse(execFileSync('python3', [join(repoRoot, 'tests/oracle/profile/devices/count_run_events.py'), x4, 'jit_f', String(shown.run)]).toString());
    let total = 0;
    for (const [plane, want] of Object.entries(raw.planes)) {
      for (const line of ['XLA Ops', 'Async XLA Ops']) {
        const t = shown.tracks.find((k) => k.plane === plane && k.line === line);
        assert.equal(t?.drawn ?? 0, want[line], `${plane} ${line}: ${t?.drawn ?? 0} drawn, the run holds ${want[line]}`);
        total += t?.drawn ?? 0;
      }
    }
    assert.equal(total, raw.total);
    assert.ok(raw.total > 60, `only ${raw.total} events`);
    // a click on a box opens its op
    const boxRow = await page.locator(`${sel} svg.run rect.box`).first().getAttribute('data-row');
    const boxName = await page.evaluate(([s, i]) => document.querySelector(s).timeline.rows[Number(i)].name, [sel, boxRow]);
    await page.locator(`${sel} svg.run rect.box`).first().dispatchEvent('click');
    await page.waitForFunction(([s, n]) => document.querySelector(s).shadowRoot.querySelector('tr.detail')?.textContent.includes(n), [sel, boxName]);
    // one chip of jit_f
    const jitF = await page.evaluate((s) => document.querySelector(s).timeline.programs.find((x) => x.name === 'jit_f').program_id, sel);
    await page.locator(`${sel} select.program-select`).selectOption(jitF);
    assert.match(await page.locator(`${sel} .devsentence`).textContent(), /on each of 4 TPUs/);
    await page.locator(`${sel} select.device-select`).selectOption('/device:TPU:2');
    assert.match(await page.locator(`${sel} .devfacts`).textContent(), /^\/device:TPU:2: 100 runs, .* hidden and exposed transfer time unknown$/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  } finally {
    await p.close();
  }
});

test('a multi-process job dropped as a folder: its files read together, one row per host, the slowed one named', { skip: skip || (!existsSync(multi) && 'the multi-process fixture is missing') }, async () => {
  const man = JSON.parse(readFileSync(join(multi, 'MANIFEST.json'), 'utf8'));
  const slow = man.processes.find((x) => x.slow).file;
  const p = await openPage(chrome.browser, `${server.url}index.html`);
  try {
    const { page } = p;
    await waitForNotebook(page);
    const prof = await addCell(page, 'profile');
    await page.setInputFiles(`${cell(prof)} [data-testid=profile-folder]`, multi);
    await timelineShown(page, prof);
    assert.match(await page.textContent(`${cell(prof)} [data-testid=profile-note]`), /read 3 files together/);
    const sel = `${cell(prof)} xla-timeline`;
    const hosts = await page.locator(`${sel} table.hosts tbody tr`).evaluateAll((rs) => rs.map((r) => ({ file: r.dataset.file, slowest: r.dataset.slowest })));
    assert.equal(hosts.length, man.processes.length);
    assert.deepEqual(hosts.filter((h) => h.slowest === 'true').map((h) => h.file), [slow]);
    assert.ok((await page.locator(`${sel} .reading`).textContent()).includes(`${slow} (host vm, pid `));
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});
