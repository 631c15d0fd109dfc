// The compile environment in `hloscope diff` (issue 38): what each side was compiled with, where
// the inputs carry it. On the real folder pairs (fixtures/diff-pairs/<set>/<pair>/{a,b}.dump.tar.gz,
// fixtures/capture/diff_pairs.py --folders: each side dumped by XLA under its own XLA_FLAGS), every
// flag the capture gave a side (oracle.json "folders", the flags the process was started with, not
// our reading) is an `environment` entry with that value on that side and null on the other, the
// verdict names it, and every other flag entry is equal on both sides (what jax sets itself). The
// host's facts (--environment EA EB, JS `environment`) become entries and verdict words, numbers
// written as the core writes them; a file that is not a JSON object is said so, never guessed at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffPairs, repoRoot, sharedAbsent, sharedPath } from '../fixtures.mjs';

const cli = path.join(repoRoot, 'build/native/hloscope');
const skip = existsSync(cli) ? false : `SKIPPED: no native CLI at ${cli} (npm run build:native)`;
const wasmBuilt = existsSync(path.join(repoRoot, 'wasm/gen/hloscope_core.mjs'));
const folderPairs = diffPairs().filter((c) => c.file('a.dump.tar.gz') && c.file('b.dump.tar.gz'));

function diffJson(...args) {
  const r = spawnSync(cli, ['diff', '--json', ...args], { maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `hloscope diff ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

test('the 0.12.0.1 flag pairs carry a dump folder of each side', () => {
  const ids = folderPairs.filter((c) => c.set === 'cpu-jax-0.12.0.1').map((c) => c.id);
  assert.deepEqual(ids, ['mlp_softmax-nofusion', 'mlp_softmax-opt0']);
});

test('a folder pair: the flags XLA was given are the environment entries that differ, and the verdict says them', { skip }, () => {
  for (const c of folderPairs) {
    const o = JSON.parse(readFileSync(c.oracle, 'utf8')).folders;
    assert.ok(o?.a && o?.b, `${c.label}: oracle.json has no "folders"`);
    const d = diffJson(c.file('a.dump.tar.gz'), c.file('b.dump.tar.gz'));
    const env = new Map(d.environment.map((e) => [e.key, e]));
    const given = new Set([...Object.keys(o.a.xla_flags), ...Object.keys(o.b.xla_flags)]);
    assert.ok(given.size > 0, `${c.label}: the capture gave a flag`);
    for (const k of given) {
      const e = env.get(k);
      assert.ok(e, `${c.label}: no environment entry ${k} (${d.environment.map((x) => x.key).join(', ')})`);
      assert.equal(e.a, o.a.xla_flags[k] ?? null, `${c.label} ${k} on A`);
      assert.equal(e.b, o.b.xla_flags[k] ?? null, `${c.label} ${k} on B`);
      assert.match(d.verdict, new RegExp(`Compile environment: .*${k.replace(/[-]/g, '\\-')}`), `${c.label}: the verdict names ${k}`);
      // the human text lists it with each side's value
      const text = spawnSync(cli, ['diff', c.file('a.dump.tar.gz'), c.file('b.dump.tar.gz')]).stdout.toString();
      assert.ok(text.includes(`environment ${k}: A ${o.a.xla_flags[k] ?? '-'}, B ${o.b.xla_flags[k] ?? '-'}\n`), `${c.label}: the text names ${k}`);
    }
    for (const e of d.environment) {
      if (e.key.startsWith('--') && !given.has(e.key)) assert.equal(e.a, e.b, `${c.label}: ${e.key} differs though the capture set it on neither side`);
      assert.ok(!e.key.startsWith('--xla_dump_'), `${c.label}: ${e.key}: where to dump is not the compile's environment`);
    }
    assert.ok(env.get('compile_options.num_partitions'), `${c.label}: compile_options.textproto's num_partitions`);
    assert.equal(env.get('compile_options.num_partitions').a, env.get('compile_options.num_partitions').b);
  }
});

test('real GPU and TPU texts carry no flags or versions: the environment is the module line\'s, nothing said of a compile', { skip: skip || sharedAbsent('gpu-semantics') || sharedAbsent('tpu-v6e') }, () => {
  for (const rel of ['captures/tpu-v6e/jit_naive_attention.after_optimizations.with_frame_tables.txt',
    'captures/gpu-semantics/gpu_a100__lorrax__module_0039.jit_fft.sm_8.0_gpu_after_optimizations.txt']) {
    const f = sharedPath(rel);
    assert.ok(f, `${rel} is in ../shared`);
    const d = diffJson(f, f);
    assert.ok(d.environment.length > 0, `${rel}: the module line's attributes`);
    for (const e of d.environment) {
      assert.ok(!/^(--|compile_options\.|jax|cost_analysis\.)/.test(e.key), `${rel}: ${e.key} is not in a bare text`);
      assert.equal(e.a, e.b);
    }
    assert.doesNotMatch(d.verdict, /Compile environment|Module config/, `${rel}: ${d.verdict}`);
  }
});

test('the host\'s facts of each side (--environment EA EB): entries, the verdict, and what is not an object', { skip }, () => {
  const c = diffPairs().find((x) => x.id === 'mlp_softmax-opt0');
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-env-'));
  const ea = path.join(dir, 'a.json');
  const eb = path.join(dir, 'b.json');
  const bad = path.join(dir, 'bad.json');
  writeFileSync(ea, JSON.stringify({ jax: '0.4.38', 'cost_analysis.flops': 1048576.0, 'cost_analysis.bytes accessed': 0.5 }));
  writeFileSync(eb, JSON.stringify({ jax: '0.12.0.1', 'cost_analysis.flops': 2097152 }));
  writeFileSync(bad, '[1, 2]');
  const text = c.file('a.after_optimizations.txt');
  const d = diffJson('--environment', ea, eb, text, text);
  const env = new Map(d.environment.map((e) => [e.key, e]));
  assert.deepEqual(env.get('jax'), { key: 'jax', a: '0.4.38', b: '0.12.0.1' });
  assert.deepEqual(env.get('cost_analysis.flops'), { key: 'cost_analysis.flops', a: '1048576', b: '2097152' });
  assert.deepEqual(env.get('cost_analysis.bytes accessed'), { key: 'cost_analysis.bytes accessed', a: '0.5', b: null });
  assert.match(d.verdict, /^Same by meaning: .* Compile environment: jax 0\.4\.38 -> 0\.12\.0\.1, cost_analysis\.flops 1048576 -> 2097152/);
  const same = diffJson('--environment', ea, ea, text, text);
  assert.doesNotMatch(same.verdict, /Compile environment/, 'equal facts are not said');
  const b2 = diffJson('--environment', bad, eb, text, text);
  assert.match(b2.verdict, /A's environment is not a JSON object of strings and numbers: not read/);
  const r = spawnSync(cli, ['diff', '--environment', path.join(dir, 'none.json'), eb, text, text]);
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /cannot read .*none\.json/);
});

test('JS diff(a, b, {environment}) gives the CLI\'s bytes', { skip: skip || (!wasmBuilt && 'SKIPPED: the wasm core is not built') }, async () => {
  const api = await import('../../wasm/hloscope.mjs');
  await api.load();
  const c = diffPairs().find((x) => x.id === 'mlp_softmax-opt0');
  const dir = mkdtempSync(path.join(tmpdir(), 'hloscope-env-'));
  const facts = [{ jax: '0.4.38', 'cost_analysis.flops': 3.0 }, { jax: '0.4.38', 'cost_analysis.flops': 4.5 }];
  facts.forEach((f, i) => writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(f)));
  const [a, b] = ['a', 'b'].map((s) => readFileSync(c.file(`${s}.after_optimizations.txt`), 'utf8'));
  const r = spawnSync(cli, ['diff', '--json', '--environment', path.join(dir, '0.json'), path.join(dir, '1.json'),
    c.file('a.after_optimizations.txt'), c.file('b.after_optimizations.txt')], { maxBuffer: 1 << 28 });
  assert.equal(api.diffJSON(a, b, { environment: facts }) + '\n', r.stdout.toString());
  assert.equal(api.diffJSON(a, b, { environment: facts.map((f) => JSON.stringify(f)) }) + '\n', r.stdout.toString());
  assert.throws(() => api.diffJSON(a, b, { environment: [facts[0]] }), /expected environment/);
  // which dump files' bytes the core reads: the page and the CLI ask the core
  assert.equal(api.passesWantsBytes('module_0008.jit_f.debug_options'), true);
  assert.equal(api.passesWantsBytes('dump/module_0008.jit_f/compile_options.textproto'), true);
  assert.equal(api.passesWantsBytes('module_0008.jit_f/topology.textproto'), false);
  assert.equal(api.passesWantsBytes('module_0001.jit_f.cpu_after_optimizations.txt.gz'), true);
});
