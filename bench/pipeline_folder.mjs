// A 5,000-file dump folder read and shown by <xla-pipeline> in Chromium (issue 12): 1,000 pass
// steps with real HLO (one module, steps 0000-0999), the names of a public A100 dump
// (../shared/captures/pass-names, when there) and filler, as a folder pick gives them. Prints
// the time beside its goal, 2 s on a quiet machine (the README's "Speed and memory"); the test
// that once bounded it (15 s, tests/browser/pipeline.test.mjs) now asserts only what was read.
//   node notebook/build.mjs && node bench/pipeline_folder.mjs      (npm run bench:browser runs it too)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer } from '../notebook/serve.mjs';
import { ensureBuilt, launch, openPage, repoRoot, shared } from '../tests/browser/harness.mjs';
import { printFigures } from './goal.mjs';

export const GOAL_MS = 2000;

/** What the folder is made of: a real step's HLO text and up to 4,000 names of a real dump. */
export function folderInputs() {
  const folder = join(repoRoot, 'fixtures/cpu-jax-0.4.38/attention/passes');
  const step = readFileSync(join(folder, 'FILES.txt'), 'utf8').split('\n').find((n) => n.includes('.0024.'));
  const names = shared('captures/pass-names/gpu_silencelamb_vllm_torchxla_a100_dump_debug.txt');
  return {
    stepText: readFileSync(join(folder, step), 'utf8'),
    listed: names ? readFileSync(names, 'utf8').split('\n').filter(Boolean).slice(0, 4000) : [],
  };
}

/**
 * Loads the folder into the page's <xla-pipeline id="p"> (tests/browser/pages/pipeline.html):
 * { ms (the load, in the page), coreMs (the core and its JSON), files, steps (of the first module with steps) }.
 */
export async function readBigFolder(page, { listed, stepText } = folderInputs()) {
  return page.evaluate(async ({ listed, stepText }) => {
    const files = [];
    for (let i = 0; i < 1000; i++) {
      const n = `module_0001.jit_attention.${String(i).padStart(4, '0')}.simplification.after_algsimp.before_dce.txt`;
      files.push({ name: `dump/${n}`, file: new File([stepText], n) });
    }
    for (const n of listed) files.push({ name: `dump/${n}`, file: new File([''], n) });
    for (let i = files.length; i < 5000; i++) files.push({ name: `dump/module_${String(i).padStart(4, '0')}.jit_f.cpu_after_optimizations-buffer-assignment.txt`, file: new File(['x'], 'x') });
    const el = document.querySelector('#p');
    await el.load([]); // loads the core (page start-up, not reading): an empty folder is refused
    const t0 = performance.now();
    await el.load(files);
    const ms = performance.now() - t0;
    if (!el.data) throw new Error(el.shadowRoot.querySelector('[data-testid="pipeline-status"]').textContent);
    return { ms, coreMs: el.lastReadMs, files: el.data.files.length, steps: el.data.modules.find((m) => m.steps.length)?.steps.length };
  }, { listed, stepText });
}

/** The figures, in a fresh Chromium on the repository's pages. */
export async function measureFolder() {
  ensureBuilt();
  const server = await startServer({ root: repoRoot, port: 0 });
  const chrome = await launch();
  try {
    const p = await openPage(chrome.browser, `${server.url}tests/browser/pages/pipeline.html`);
    try {
      await p.page.waitForFunction(() => customElements.get('xla-pipeline'));
      return await readBigFolder(p.page);
    } finally {
      await p.close();
    }
  } finally {
    await chrome.close();
    await server.close();
  }
}

export function printFolder(r) {
  printFigures(`<xla-pipeline>, a ${r.files.toLocaleString('en-US')}-file dump folder (${r.steps} steps with HLO; ${Math.round(r.coreMs)} ms in the core and its JSON)`, [
    ['read and shown', r.ms, 'ms', GOAL_MS],
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) printFolder(await measureFolder());
