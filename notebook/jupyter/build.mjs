// Builds what the Python package carries (hloscope/static/, git-ignored), with esbuild:
//
//   widget.mjs   the anywidget front end (its `_esm`): the views of notebook/src/views/ and the JS
//                API with the single-file wasm inlined, so a notebook fetches nothing to show a widget
//   hloscope.html the report page (dist/hloscope.html, copied), for hloscope.report
//   hloscope-cli.wasm the CLI itself as a WASI command (wasm/gen/hloscope-cli.wasm, copied): Python's
//                text reprs, .json() and the `hloscope` console script run it in wasmtime (_wasm.py)
//
// Needs the wasm build (npm run build:wasm): wasm/gen/hloscope_core.single.mjs, wasm/gen/hloscope-cli.wasm.
// Usage: node notebook/jupyter/build.mjs [--dev]
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = join(here, 'hloscope/static');
const single = join(root, 'wasm/gen/hloscope_core.single.mjs');
const cliWasm = join(root, 'wasm/gen/hloscope-cli.wasm');
const dev = process.argv.includes('--dev');

for (const f of [single, cliWasm]) {
  if (!existsSync(f)) {
    console.error(`notebook/jupyter/build.mjs: ${f} is missing: run \`npm run build:wasm\` first`);
    process.exit(1);
  }
}

// The API's glue import goes to the single-file build (wasm inlined as base64): one module, no
// second request, no fetch() of a .wasm URL. The views' virtual modules: the API itself, and no
// analysis worker (the widget hands the views finished results, so they never start one).
const plugin = {
  name: 'hloscope-jupyter',
  setup(build) {
    build.onResolve({ filter: /\/gen\/hloscope_core\.mjs$/ }, () => ({ path: single }));
    build.onResolve({ filter: /^hs:(api|worker-source)$/ }, (args) => ({ path: args.path, namespace: 'hs' }));
    build.onLoad({ filter: /.*/, namespace: 'hs' }, (args) => (args.path === 'hs:api'
      ? { contents: `export * from ${JSON.stringify(join(root, 'wasm/hloscope.mjs'))};\nexport const wasmBinary = null;\n`, resolveDir: root, loader: 'js' }
      : { contents: 'export const workerUrl = null;\nexport const workerSource = null;\n', loader: 'js' }));
  },
};

const common = {
  bundle: true,
  format: 'esm',
  minify: !dev,
  legalComments: 'none',
  logLevel: 'warning',
  charset: 'utf8',
  plugins: [plugin],
  // The glue's import.meta.url only locates a .wasm file, which the single-file build never needs.
  logOverride: { 'empty-import-meta': 'silent' },
};

const t0 = Date.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await esbuild.build({
  ...common,
  entryPoints: [join(here, 'src/widget.js')],
  outfile: join(out, 'widget.mjs'),
  target: ['chrome110', 'firefox115', 'safari16'],
});
copyFileSync(cliWasm, join(out, 'hloscope-cli.wasm'));
// The report page (`hloscope.report`, `result.save`): the single-file notebook `npm run build` wrote,
// handed to the CLI's `report --template`, so an installed package fills the page it carries.
const page = join(root, 'dist/hloscope.html');
if (existsSync(page)) copyFileSync(page, join(out, 'hloscope.html'));
else console.warn('jupyter build: dist/hloscope.html missing (npm run build): hloscope.report will use the CLI\'s own page');
const kib = (f) => `${(statSync(join(out, f)).size / 1024).toFixed(1)} KiB`;
console.log(`jupyter build: hloscope/static in ${Date.now() - t0} ms: widget.mjs ${kib('widget.mjs')}, hloscope-cli.wasm ${kib('hloscope-cli.wasm')}`);
