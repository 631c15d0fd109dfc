// The case folders (tests/cases/<case>/{input.*, expect}; tests/cases/README.md) over the wasm:
// the same checks the native driver (tests/native/test_cases.c) makes, one test per case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { caseFolders, caseSharedInput, repoRoot as root } from '../fixtures.mjs';

const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();
/** The input text, or a skip reason when it lives in an absent (or hidden) ../shared. */
function readInput(c) {
  assert.ok(c.input, `${c.dir}: no input.* file`);
  if (!c.input.endsWith('/input.shared')) return { text: readFileSync(c.input, 'utf8') };
  const s = caseSharedInput(readFileSync(c.input, 'utf8').split(/\r?\n/)[0]);
  return s.path ? { text: readFileSync(s.path, 'utf8') } : s;
}

function walk(value, steps) {
  let v = value;
  for (const s of steps) {
    if (v === undefined || v === null) return undefined;
    v = Array.isArray(v) ? (/^\d+$/.test(s) ? v[Number(s)] : undefined) : v[s];
  }
  return v;
}

for (const c of caseFolders()) {
  test(`case ${c.name}`, { skip: !wasmBuilt && 'wasm not built (npm run build:wasm)' }, (t) => {
    const input = readInput(c);
    if (input.skip) return t.skip(input.skip);
    const lines = readFileSync(path.join(c.dir, 'expect'), 'utf8').split('\n');
    let doc = null;
    let error = null;
    try {
      doc = api.parse(input.text);
    } catch (e) {
      if (!(e instanceof api.HloscopeError)) throw e;
      error = e;
    }
    const results = {};
    let checks = 0;
    try {
      lines.forEach((raw, i) => {
        const line = raw.trimEnd();
        if (!line || line.startsWith('#')) return;
        checks++;
        const where = `${c.name}/expect:${i + 1}`;
        const e = /^error (\S+) (\S+) (\S+) ?(.*)$/.exec(line);
        if (e) {
          assert.ok(error, `${where}: the input parsed, expected the error ${e[3]}`);
          assert.equal(error.code, e[3], where);
          if (e[1] !== '*') assert.equal(String(error.line), e[1], `${where}: line`);
          if (e[2] !== '*') assert.equal(String(error.column), e[2], `${where}: column`);
          if (e[4]) assert.ok(error.message.includes(e[4]), `${where}: "${error.message}" lacks "${e[4]}"`);
          return;
        }
        const m = /^(\S+) (\S+) (=|>=) (.*)$/.exec(line);
        assert.ok(m, `${where}: cannot read this line`);
        const [, kind, p, op, wantText] = m;
        assert.ok(api.registry().kinds.some((k) => k.name === kind), `${where}: unknown result kind ${kind}`);
        assert.ok(doc, `${where}: the input did not parse: ${error && error.message}`);
        results[kind] ??= JSON.parse(doc.json(kind));
        const steps = p.split('/');
        const length = steps.at(-1) === '#';
        if (length) steps.pop();
        let got = walk(results[kind], steps);
        if (length) got = Array.isArray(got) ? got.length : undefined;
        assert.notEqual(got, undefined, `${where}: ${p}: no such value in the result`);
        const want = JSON.parse(wantText);
        if (op === '=') assert.deepEqual(got, want, where);
        else assert.ok(typeof got === 'number' && got >= want, `${where}: got ${got}, expected at least ${want}`);
      });
    } finally {
      doc?.free();
    }
    assert.ok(checks > 0, `${c.name}: no checks`);
  });
}
