// The cases of the wasm-against-native check (tests/jupyter/jupyter.test.mjs runs them through
// tests/jupyter/wasm_parity.py): every row of the command table (`hloscope registry` -> commands)
// on every committed fixture its inputs accept (files from the one walker, tests/fixtures.mjs),
// text and --json, plus inputs the core refuses. Each case is run here by the native CLI: its
// exit status, the sha256 of its stdout and the code, line and column of its error line are what
// the wasm CLI in Python must give.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { diffPairs, fixtureCases, levelsFixtures, passFixtures, fixturesDir } from '../fixtures.mjs';

const WHERE = /^(.*):(\d+):(\d+): (HS_[A-Z0-9_]+): (.*)$/m;
export const DATE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g; // the report page's "written at"

/** The argv lists (with their folder) of every row; throws when a row of the table has none. */
export function caseList(cli, work) {
  const reg = JSON.parse(spawnSync(cli, ['registry'], { encoding: 'utf8' }).stdout);
  const fx = fixtureCases();
  const cases = [];
  const covered = new Set();
  const add = (row, argv, cwd, extra = {}) => {
    covered.add(`${row.name} ${row.mode ?? ''}`);
    cases.push({ argv: [row.name, ...argv], cwd, ...extra });
    if (!extra.out) cases.push({ argv: [row.name, '--json', ...argv], cwd, ...extra });
  };
  const texts = (c) => ['after_optimizations.txt', 'stablehlo.mlir', 'jaxpr.txt'].filter((n) => c.file(n));
  const profiles = (c) => ['profile.xplane.pb', 'profile.trace.json.gz'].filter((n) => c.file(n));
  const multi = join(fixturesDir, 'profiles/multiprocess-cpu-jax-0.10.2');
  const template = join(work, 'template.html');
  writeFileSync(template, '<!doctype html><title>t</title><!--HS:REPORT-->\n');
  for (const row of reg.commands) {
    const accepts = row.inputs.map((i) => i.accepts);
    const one = row.inputs.length === 1 && !row.inputs[0].flag;
    if (one && /^(hlo|hlo,stablehlo,jaxpr)$/.test(accepts[0])) {
      const kinds = accepts[0].split(',');
      for (const c of fx) {
        for (const n of texts(c)) {
          const kind = n === 'after_optimizations.txt' ? 'hlo' : n === 'stablehlo.mlir' ? 'stablehlo' : 'jaxpr';
          if (kinds.includes(kind)) add(row, [n], c.dir);
        }
      }
      continue;
    }
    switch (`${row.name} ${row.mode ?? ''}`) {
      case 'xray ':
        for (const c of fx) if (c.file('after_optimizations.txt') && c.file('stablehlo.mlir')) add(row, ['stablehlo.mlir', 'after_optimizations.txt'], c.dir);
        break;
      case 'profile ':
        for (const c of fx) for (const p of profiles(c)) add(row, [p], c.dir);
        add(row, [basename(multi)], dirname(multi)); // a job's folder: every process
        break;
      case 'timeline ':
        for (const c of fx) {
          for (const p of profiles(c)) add(row, [p, ...(c.file('after_optimizations.txt') ? ['--hlo', 'after_optimizations.txt'] : [])], c.dir);
        }
        add(row, [basename(multi)], dirname(multi));
        break;
      case 'passes ':
        for (const c of passFixtures()) for (const n of ['dump.tar.gz', 'FILES.txt']) if (c.file(n)) add(row, [n], c.dir);
        for (const c of fx) if (c.files(() => true, 'dump').length) add(row, ['dump'], c.dir); // folders
        break;
      case 'passes --compare': {
        const p = passFixtures().filter((c) => c.file('dump.tar.gz'));
        for (let i = 0; i + 1 < p.length; i++) add(row, ['--compare', p[i].file('dump.tar.gz'), p[i + 1].file('dump.tar.gz')], work);
        break;
      }
      case 'layout ':
        for (const t of ['f32[8,128]{1,0:T(8,128)}', 'bf16[3,5,7]{2,1,0:T(8,128)(2,1)}', 'tensor<4x8xf32>', 's8[1024]{0}', '(f32[2], s32[])'])
          add(row, [t], work);
        break;
      case 'memory ':
        for (const c of fx) {
          for (const f of c.files(/-(buffer-assignment|memory-usage-report)\.txt$/, 'dump')) add(row, [join('dump', basename(f))], c.dir);
          const ba = c.files(/-buffer-assignment\.txt$/, 'dump')[0];
          if (ba && c.file('after_optimizations.txt')) add(row, [join('dump', basename(ba)), 'after_optimizations.txt'], c.dir);
        }
        break;
      case 'llvm ':
        for (const c of levelsFixtures()) {
          const hlo = c.files(/after_optimizations\.txt$/)[0];
          for (const ll of c.files(/\.ll$/)) add(row, [basename(ll), ...(hlo ? ['--hlo', basename(hlo)] : [])], c.dir);
        }
        break;
      case 'diff ':
        for (const c of diffPairs()) add(row, ['a.after_optimizations.txt', 'b.after_optimizations.txt'], c.dir);
        for (let i = 0; i + 1 < passFixtures().length; i += 2) {
          const [a, b] = [passFixtures()[i], passFixtures()[i + 1]];
          add(row, [a.file('dump.tar.gz'), b.file('dump.tar.gz')], work);
        }
        break;
      case 'report ':
        for (const c of fx.filter((x) => x.id === 'matmul' || x.id === 'attention')) {
          const out = join(work, `report-${c.set}-${c.id}.html`);
          add(row, ['--template', template, '--out', out, ...texts(c), ...profiles(c), 'dump'], c.dir, { out });
        }
        break;
      case 'version ':
      case 'registry ':
        add(row, [], work);
        break;
      default:
        throw new Error(`wasm-cases.mjs: no cases for the command table's row "${row.usage}": add them here`);
    }
  }
  for (const row of reg.commands) {
    if (!covered.has(`${row.name} ${row.mode ?? ''}`)) throw new Error(`no case for the row "${row.usage}"`);
  }
  // inputs the core refuses: the error's code, line and column must be the native CLI's
  const bad = join(work, 'bad');
  const m = fx.find((c) => c.id === 'matmul' && c.file('after_optimizations.txt'));
  const hlo = readFileSync(m.file('after_optimizations.txt'), 'utf8');
  const lines = hlo.split('\n');
  const files = {
    'cut.txt': lines.slice(0, Math.floor(lines.length / 2)).join('\n'), // ends mid-computation
    'typo.txt': hlo.replace(' dot(', ' dot(,'),
    'garbage.txt': 'this is not a compiler text\n',
    'empty.txt': '',
    'bad.mlir': 'module @m {\n  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.add %arg0 : tensor<4xf32>\n  }\n}\n',
    'bad.xplane.pb': '\x0a\xff\xff\xff\xff\x0f',
    'bad.trace.json.gz': 'not gzip',
  };
  spawnSync('mkdir', ['-p', bad]);
  for (const [n, t] of Object.entries(files)) writeFileSync(join(bad, n), t, 'latin1');
  for (const n of ['cut.txt', 'typo.txt', 'garbage.txt', 'empty.txt', 'bad.mlir', 'missing.txt']) {
    for (const cmd of ['fusions', 'summary']) cases.push({ argv: [cmd, n], cwd: bad }, { argv: [cmd, '--json', n], cwd: bad });
  }
  cases.push({ argv: ['xray', 'bad.mlir', 'cut.txt'], cwd: bad }, { argv: ['diff', 'cut.txt', 'typo.txt'], cwd: bad },
    { argv: ['profile', 'bad.xplane.pb'], cwd: bad }, { argv: ['profile', 'bad.trace.json.gz'], cwd: bad },
    { argv: ['timeline', 'bad.xplane.pb'], cwd: bad }, { argv: ['memory', 'garbage.txt'], cwd: bad },
    { argv: ['layout', 'f32[8,'], cwd: bad }, { argv: ['passes', 'garbage.txt'], cwd: bad },
    { argv: ['nonsense'], cwd: bad }, { argv: ['fusions'], cwd: bad });
  return cases;
}

/** Each case with what the native CLI did: rc, sha256 of stdout (of the written page, its date
 * masked, for a report), the error's code/line/column (null where its stderr has no such line).
 * Two at a time (the machine's cores); a report's case alone (it writes its page). */
export async function nativeResults(cli, cases, jobs = 2) {
  const one = (c) => new Promise((resolve, reject) => {
    const p = spawn(cli, c.argv, { cwd: c.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [], err = [];
    p.stdout.on('data', (d) => out.push(d));
    p.stderr.on('data', (d) => err.push(d));
    p.on('error', reject);
    p.on('close', (rc) => {
      const stdout = Buffer.concat(out);
      const m = WHERE.exec(Buffer.concat(err).toString('utf8'));
      const r = { ...c, rc, sha256: createHash('sha256').update(stdout).digest('hex'), stdout_head: stdout.subarray(0, 200).toString('utf8'),
        error: m ? { code: m[4], line: Number(m[2]), column: Number(m[3]) } : { code: null, line: null, column: null } };
      if (c.out && rc === 0) r.out_sha256 = createHash('sha256').update(readFileSync(c.out, 'utf8').replace(DATE, 'DATE')).digest('hex');
      resolve(r);
    });
  });
  const results = new Array(cases.length);
  let next = 0;
  const worker = async () => { while (next < cases.length) { const i = next++; results[i] = await one(cases[i]); } };
  await Promise.all(Array.from({ length: jobs }, worker));
  return results;
}
