// The registry crosses the wasm boundary: JS reads formats, result kinds and codes from the
// core (hsw_registry_json), not from tables of its own. The expected lists are the ones in
// core/include/hloscope.h (HS_FORMAT_MAP, HS_KIND_MAP, HS_ERROR_MAP), compared with what the
// native library prints (`hloscope registry --json`) when the CLI is built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmBuilt = existsSync(path.join(root, 'wasm/gen/hloscope_core.wasm'));
const skip = !wasmBuilt && 'wasm not built (npm run build:wasm)';
const api = wasmBuilt ? await import('../../wasm/hloscope.mjs') : null;
if (api) await api.load();

/** The X-macro lines of one list in the public header, parsed from the text. */
function headerList(macro) {
  const h = readFileSync(path.join(root, 'core/include/hloscope.h'), 'utf8');
  const start = h.indexOf(`#define ${macro}(X)`);
  const body = [];
  for (const line of h.slice(start).split('\n').slice(1)) {
    body.push(line);
    if (!line.trimEnd().endsWith('\\')) break;
  }
  return [...body.join('\n').matchAll(/X\(([^)]*)\)/g)].map((m) => m[1].split(',').map((x) => x.trim()));
}

test('JS reads the formats, kinds and codes from the wasm, in the header lists order', { skip }, () => {
  const r = api.registry();
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.formats));
  const formats = headerList('HS_FORMAT_MAP');
  assert.deepEqual(r.formats.map((f) => [f.id, f.name, f.label]), formats.map((x, i) => [i, JSON.parse(x[1]), JSON.parse(x[2])]));
  assert.deepEqual(r.formats.filter((f) => f.document).map((f) => f.name), ['hlo', 'stablehlo', 'jaxpr']);
  assert.deepEqual(r.kinds.map((k) => [k.id, k.name]), headerList('HS_KIND_MAP').map((x, i) => [i, JSON.parse(x[1])]));
  const codes = headerList('HS_ERROR_MAP');
  assert.deepEqual(r.codes.map((c) => [c.name, c.value]), codes.map((x) => [x[0], Number(x[1])]));
  for (const name of ['HS_E_FREED', 'HS_E_NOT_LOADED', 'HS_E_NOTFOUND', 'HS_E_NOWASM', 'HS_E_CANCELLED']) {
    assert.ok(r.codes.some((c) => c.name === name && c.message), `${name} is in the registry`);
  }
  assert.ok(r.warnings.some((w) => w.name === 'HS_W_TRUNCATED' && w.value === 3));
  assert.equal(r.version, api.version());
});

test('every HS_E_* code the JS side raises is in the registry', { skip }, () => {
  const names = new Set(api.registry().codes.map((c) => c.name));
  const files = [path.join(root, 'wasm/hloscope.mjs')];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(m?js)$/.test(e.name)) files.push(p);
    }
  };
  if (existsSync(path.join(root, 'notebook/src'))) walk(path.join(root, 'notebook/src'));
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/'(HS_E_[A-Z_]+)'/g)) {
      assert.ok(names.has(m[1]), `${path.relative(root, f)} raises ${m[1]}, which the C registry does not list`);
    }
  }
});

test('detectFormat and HloDocument.format name the registry formats', { skip }, () => {
  assert.equal(api.detectFormat('HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n'), 'hlo');
  assert.equal(api.detectFormat('// a comment\nmodule @jit_f {\n}\n'), 'stablehlo');
  assert.equal(api.detectFormat('{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }'), 'jaxpr');
  assert.equal(api.detectFormat('%fused (p: f32[]) -> f32[] {'), 'hlo');
  assert.equal(api.detectFormat('hello'), 'unknown');
  assert.equal(api.detectFormat('   \n'), 'unknown');
  const doc = api.parse('HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n');
  assert.equal(doc.format, 'hlo');
  for (const k of api.registry().kinds) assert.equal(typeof JSON.parse(doc.json(k.name)), 'object');
  assert.throws(() => doc.json('toString'), { name: 'HloscopeError', code: 'HS_E_ARG' });
  doc.free();
});

test('the native library prints the same registry', { skip: skip || (!existsSync(path.join(root, 'build/native/hloscope')) && 'native CLI not built') }, () => {
  const r = spawnSync(path.join(root, 'build/native/hloscope'), ['registry', '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), api.registry());
});

test('the Python entries and the widget kinds are rows of the core\'s command table (issue 33 item 2)', { skip }, () => {
  const commands = api.registry().commands;
  const py = readFileSync(path.join(root, 'notebook/jupyter/hloscope/__init__.py'), 'utf8');
  const entries = [...py.matchAll(/^ {4}"(\w+)": Analysis\(cli="(\w+)", widget="(\w+)"/gm)].map((m) => m.slice(1));
  assert.ok(entries.length >= 8, `ANALYSES read from __init__.py: ${entries.length}`);
  const widget = readFileSync(path.join(root, 'notebook/jupyter/src/widget.js'), 'utf8');
  const kinds = new Set([...widget.matchAll(/kind === '(\w+)'/g)].map((m) => m[1]));
  for (const [name, cli, view] of entries) {
    const row = commands.find((c) => c.name === cli && c.mode === null);
    assert.ok(row, `hloscope.${name} runs \`hloscope ${cli}\`, a row of the command table`);
    assert.equal(view, row.kind, `hloscope.${name}'s widget kind is the row's result kind`);
    assert.ok(row.text, `the core renders ${cli}'s text (str() of the result)`);
    assert.ok(kinds.has(view), `widget.js shows the kind ${view}`);
  }
  for (const k of kinds) assert.ok(commands.some((c) => c.kind === k), `widget kind ${k} is a result kind of the command table`);
});
