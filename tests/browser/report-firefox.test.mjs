// A report page in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by firefox-drive.mjs):
// opened from file://, the core loads from the page's own bytes, the overview shows the census, the
// memory sentence and the top op as the CLI's JSON says them, the profile's timeline is drawn, and
// the page makes no request but in-page data (data:, blob:) and its own file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, repoRoot, sharedAbsent, shared } from './harness.mjs';
import { firefoxPath } from './firefox-drive.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const fx = path.join(repoRoot, 'fixtures/cpu-jax-0.4.38/naive_attention');
const real = {
  gpu: shared('captures/gpu-semantics/gpu_a100__lorrax__module_0039.jit_fft.sm_8.0_gpu_after_optimizations.txt'),
  oom: shared('captures/memory/13_gpu_jax_13428_peak_buffers.txt'),
  tpuProfile: shared('captures/profiles/xprof_tpu_inference_2.xplane.pb'),
};
const haveReal = Object.values(real).every(Boolean);
const skip = !firefoxPath() ? 'no Firefox (apt-get install -y firefox-esr, or set HLOSCOPE_FIREFOX)'
  : !existsSync(cli) ? `no native CLI at ${cli} (npm run build:native)` : false;

const cliJson = (...args) => JSON.parse(spawnSync(cli, [args[0], '--json', ...args.slice(1)], { maxBuffer: 1 << 28 }).stdout.toString());

test('a report opens in Firefox from file:// and says what the CLI says, offline', { skip, timeout: 200000 }, (t) => {
  ensureBuilt();
  if (!haveReal) t.diagnostic(`${(sharedAbsent() || sharedAbsent('memory') || sharedAbsent('profiles') || sharedAbsent('gpu-semantics') || 'SKIPPED: a capture this test reads is missing from ../shared/captures')}: our CPU captures only`);
  const hlo = haveReal ? real.gpu : path.join(fx, 'after_optimizations.txt');
  const profile = haveReal ? real.tpuProfile : path.join(fx, 'profile.xplane.pb');
  const inputs = [hlo, ...(haveReal ? [real.oom] : []), profile];
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'hs-report-ff-')), 'report.html');
  const made = spawnSync(cli, ['report', '--out', out, ...inputs]);
  assert.equal(made.status, 0, String(made.stderr));
  const expr = `({ overview: document.getElementById('overview').innerText,
    core: document.querySelector('[data-testid=core-version]').textContent,
    tables: document.querySelectorAll('xla-fusion-table').length,
    memory: document.querySelectorAll('xla-memory').length })`;
  const ready = `document.documentElement.dataset.ready === 'true' && /^core /.test(document.querySelector('[data-testid=core-version]')?.textContent || '')
    && !!document.querySelector('xla-timeline:not([hidden])') && document.querySelectorAll('xla-fusion-table').length >= 1`;
  const r = spawnSync(process.execPath, ['--experimental-websocket', path.join(repoRoot, 'tests/browser/firefox-drive.mjs'), out, expr, ready],
    { maxBuffer: 1 << 26, timeout: 180000 });
  assert.equal(r.status, 0, `firefox-drive: ${r.stderr}`);
  const got = JSON.parse(r.stdout.toString().trim().split('\n').pop());
  t.diagnostic(`Firefox ${got.firefox}`);
  const fu = cliJson('fusions', hlo);
  const tl = cliJson('timeline', profile);
  assert.match(got.value.overview, new RegExp(`${fu.fusion_ops} fusion ops? \\(${fu.fusion_computations} fused computations?\\)`));
  assert.ok(got.value.overview.includes(`Top op by its own time: ${tl.rows[0].name}`));
  if (haveReal) {
    assert.ok(got.value.overview.includes(cliJson('memory', real.oom).explanation));
    assert.ok(got.value.memory >= 1);
  }
  const own = pathToFileURL(out).href;
  const outside = got.requests.filter((u) => u !== own && !/^(data|blob|about):/.test(u));
  assert.deepEqual(outside, [], 'no request left the page');
  assert.deepEqual(got.refused, [], 'none had to be refused');
});
