// Builds the browser side into dist/ with esbuild. Everything the pages need is bundled:
// no request leaves a page (see the Content-Security-Policy below).
//
//   dist/index.html, app.js, app.css, worker.js   the notebook, served by notebook/serve.mjs
//   dist/hloscope.html                            the same notebook as ONE self-contained file
//                                                 (script, styles, worker and wasm inlined), for file://
//   dist/gym.html, gym.js                         the drills page (when notebook/gym.html and
//                                                 notebook/src/gym.js exist; the drills helper's)
//   dist/hloscope-drills.js                       one classic script for course pages (IIFE of
//                                                 notebook/src/embed.js, when it exists)
//
// Virtual modules the sources import (resolved here so pages, drills and tests agree):
//   hs:api            the JS API (wasm/hloscope.mjs) whose load() is handed the bundled wasm bytes;
//                     a stub that throws a clear error when the wasm build is missing (npm run build:wasm)
//   hs:worker-source  { workerUrl, workerSource }: how views start the analysis worker
//                     (a URL next to the page, or the bundled worker source for a Blob URL)
//   hs:example        the example notebook's fixture texts, or nulls when they are not captured yet
//   hs:page-template  notebook/index.html's text (the single file's "Save as page" rebuilds the page from it)
//   hs:diff-pairs     GYM·14's real pairs: every fixtures/diff-pairs/<set>/<pair>/ the fixture walker
//                     lists, each file a lazy import (drills/pairs.js), with {a,b}.xplane.pb where captured
//
// .txt and .mlir files import as text. Flags: --dev (no minify, inline source maps).
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { fillPage, singleFile } from './src/notebook/page-template.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nb = join(root, 'notebook');
const dist = join(root, 'dist');
const dev = process.argv.includes('--dev');

// HLOSCOPE_API=/path/to/module.mjs swaps the API for another module (a development aid only).
const apiModule = process.env.HLOSCOPE_API ? resolve(process.env.HLOSCOPE_API) : join(root, 'wasm/hloscope.mjs');
const glue = join(root, 'wasm/gen/hloscope_core.mjs');
const wasmFile = join(root, 'wasm/gen/hloscope_core.wasm');
const apiStub = join(nb, 'src/notebook/api-missing.js');
const haveWasm = existsSync(apiModule) && (!!process.env.HLOSCOPE_API || (existsSync(glue) && existsSync(wasmFile)));
const fixtureDir = join(root, 'fixtures/cpu-jax-0.4.38/naive_attention');
const exampleFiles = {
  stablehlo: join(fixtureDir, 'stablehlo.mlir'),
  hlo: join(fixtureDir, 'after_optimizations.txt'),
};

// Content-Security-Policy of the pages (a meta tag; a file:// page has no headers).
//  - connect-src 'self' (served) / 'none' (single file): no fetch, XHR or WebSocket leaves the page.
//  - script-src 'unsafe-eval': code cells run the user's JavaScript with the AsyncFunction
//    constructor (top-level await); that needs eval permission. The user runs their own code.
//  - 'wasm-unsafe-eval': compiling the core's WebAssembly.
//  - worker-src blob:: the single file (and course pages) start the worker from a Blob URL.
//  - style-src 'unsafe-inline': CodeMirror and the single file's inlined <style>.
function csp({ scriptSrc, connect }) {
  return [
    "default-src 'none'",
    `script-src ${scriptSrc} 'unsafe-eval' 'wasm-unsafe-eval'`,
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}

function virtualPlugin({ worker, inWorker = false }) {
  return {
    name: 'hloscope-virtual',
    setup(build) {
      build.onResolve({ filter: /^hs:(api|worker-source|example|pass-listings|diff-pairs|page-template)$/ }, (args) => ({
        path: args.path,
        namespace: 'hs',
      }));
      build.onLoad({ filter: /.*/, namespace: 'hs' }, (args) => {
        if (args.path === 'hs:api') {
          if (!haveWasm || process.env.HLOSCOPE_API) {
            return { contents: `export * from ${JSON.stringify(haveWasm ? apiModule : apiStub)};`, resolveDir: root, loader: 'js' };
          }
          // The wasm bytes are bundled (esbuild's binary loader) and handed to load(), so every
          // bundle is self-contained (workers, Blob URLs, file:// pages need no second request)
          // and the glue never tries to fetch() its wasm (a page's connect-src would refuse).
          // A local export shadows the `export *` of the same name.
          // The worker bundle carries no wasm: the page that starts it sends its own copy of the
          // bytes first (engine.js, op 'init'), so the single file holds the module once.
          // The bytes are gzipped (a third of the module's size; the page's own DecompressionStream
          // unpacks them once, in load()), so a report page adds under 2 MiB beside its inputs.
          return {
            contents: (inWorker
              ? 'let wasmBinary = null;\nexport function setWasmBinary(bytes) { wasmBinary = bytes; }\n'
              : `import wasmBinary from ${JSON.stringify(wasmGz())};\nexport { wasmBinary };\n`) +
              `import { load as coreLoad } from ${JSON.stringify(apiModule)};\n` +
              `export * from ${JSON.stringify(apiModule)};\n` +
              'let unpacked = null;\n' +
              'async function bytes() {\n' +
              '  const b = wasmBinary;\n' +
              '  if (!(b && b[0] === 0x1f && b[1] === 0x8b)) return b;\n' +
              '  if (typeof DecompressionStream === "undefined") throw new Error("hloscope: this browser has no DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later)");\n' +
              '  return unpacked ??= new Response(new Blob([b]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer().then((a) => new Uint8Array(a));\n' +
              '}\n' +
              // locateFile also keeps the glue from building a URL from import.meta.url (none in an IIFE).
              'export async function load(options = {}) {\n' +
              '  if (!wasmBinary && !options.wasmBinary) throw new Error("hloscope: no wasm bytes were handed to this worker");\n' +
              '  return coreLoad({ wasmBinary: options.wasmBinary ? undefined : await bytes(), locateFile: (p) => p, ...options });\n}\n',
            resolveDir: root,
            loader: 'js',
          };
        }
        if (args.path === 'hs:worker-source') {
          return {
            contents: `export const workerUrl = ${JSON.stringify(worker.url ?? null)};\n` +
              `export const workerSource = ${JSON.stringify(worker.source ?? null)};\n`,
            loader: 'js',
          };
        }
        if (args.path === 'hs:pass-listings') return passListingsModule();
        if (args.path === 'hs:page-template') {
          // base64: the template's "<!--" must not appear in the page's inline script
          const b64 = Buffer.from(readFileSync(join(nb, 'index.html'), 'utf8'), 'utf8').toString('base64');
          return { contents: `export const pageTemplate = new TextDecoder().decode(Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0)));\n`, loader: 'js' };
        }
        if (args.path === 'hs:diff-pairs') return diffPairsModule();
        // hs:example
        const have = existsSync(exampleFiles.stablehlo) && existsSync(exampleFiles.hlo);
        return {
          contents: have
            ? `export { default as stablehlo } from ${JSON.stringify(exampleFiles.stablehlo)};\n` +
              `export { default as hlo } from ${JSON.stringify(exampleFiles.hlo)};\n`
            : 'export const stablehlo = null;\nexport const hlo = null;\n',
          resolveDir: root,
          loader: 'js',
        };
      });
    },
  };
}

// hs:pass-listings: the public GPU dump listing GYM·12 compares our CPU dump with, read in place
// from ../shared/captures/pass-names/ (HS_SHARED_DIR overrides) at build time and credited in
// the drill's caption; null when the shared folder is absent, or HLOSCOPE_NO_SHARED=1 says to
// build as if it were (as the tests' walker, tests/fixtures.mjs, reads it): the drill then uses
// our captures.
function passListingsModule() {
  const dir = process.env.HS_SHARED_DIR ? resolve(process.env.HS_SHARED_DIR) : resolve(root, '../shared');
  const file = join(dir, 'captures/pass-names/gpu_shawnwang18_xla_vit_pjit_train_step.txt');
  const hidden = !!process.env.HLOSCOPE_NO_SHARED && process.env.HLOSCOPE_NO_SHARED !== '0';
  const gpu = !hidden && existsSync(file) ? {
    text: readFileSync(file, 'utf8'),
    what: 'ViT pjit_train_step on an A100 (sm_8.0), 158 pass steps, Aug 2023',
    source: 'shawnwang18/xla (b.sh, commit 4fe5a3476cfe4f51dbc58bba43765eae6a4ee37e)',
  } : null;
  return { contents: `export const gpuListing = ${JSON.stringify(gpu)};\n`, loader: 'js' };
}

// hs:diff-pairs: the pairs of compiles GYM·14 drills on, listed by the fixture walker
// (tests/fixtures.mjs diffPairs: the one place that lists fixtures/), in its order. Each file is a
// lazy import (text, or JSON for MANIFEST.json); a pair without both sides is left out.
async function diffPairsModule() {
  const { diffPairs } = await import('../tests/fixtures.mjs');
  const files = { a: 'a.after_optimizations.txt', b: 'b.after_optimizations.txt', manifest: 'MANIFEST.json', source: 'source.py',
    a_profile: 'a.xplane.pb', b_profile: 'b.xplane.pb' };
  const rows = [];
  for (const c of diffPairs()) {
    if (!c.file(files.a) || !c.file(files.b)) continue;
    // a profile of each side (the "which side is faster?" round): bytes, esbuild's binary loader
    const loaders = Object.entries(files).filter(([, name]) => c.file(name)).map(([k, name]) => (k.endsWith('_profile')
      ? `${k}: () => import(${JSON.stringify(c.file(name))})`
      : `${k}: () => import(${JSON.stringify(c.file(name))}, { with: { type: ${JSON.stringify(k === 'manifest' ? 'json' : 'text')} } })`));
    rows.push(`  { set: ${JSON.stringify(c.set)}, pair: ${JSON.stringify(c.id)}, files: { ${loaders.join(', ')} } },`);
  }
  return { contents: `export const PAIRS = [\n${rows.join('\n')}\n];\n`, resolveDir: root, loader: 'js' };
}

const common = {
  bundle: true,
  format: 'iife',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  legalComments: 'none',
  logLevel: 'warning',
  // The glue's import.meta.url only locates its .wasm file; hs:api hands it the bytes instead.
  logOverride: { 'empty-import-meta': 'silent' },
  loader: { '.txt': 'text', '.mlir': 'text', '.wasm': 'binary', '.gz': 'binary', '.pb': 'binary' },
  charset: 'utf8',
  write: false,
};

async function bundle(entry, { worker = {}, css = false, inWorker = false } = {}) {
  const r = await esbuild.build({
    ...common,
    entryPoints: [entry],
    outdir: dist,
    plugins: [virtualPlugin({ worker, inWorker })],
  });
  const js = r.outputFiles.find((f) => f.path.endsWith('.js'));
  const cssOut = r.outputFiles.find((f) => f.path.endsWith('.css'));
  if (cssOut && !css) throw new Error(`${entry}: unexpected CSS output`);
  return { js: js.text, css: cssOut ? cssOut.text : '' };
}

// Inline a script into HTML safely: esbuild already escapes "</script"; an HTML comment
// opener followed by "<script" would change how the parser finds the end of the element.
function inlineScript(code) {
  if (/<!--/.test(code) && /<script/i.test(code)) throw new Error('inline script holds "<!--" and "<script"');
  if (/<\/script/i.test(code)) throw new Error('inline script holds "</script"');
  return code;
}

function sha256(text) {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

// The module gzipped for the bundles (build/wasm-gz/, rewritten when the module changes).
function wasmGz() {
  const out = join(root, 'build/wasm-gz/hloscope_core.wasm.gz');
  if (!existsSync(out) || statSync(out).mtimeMs < statSync(wasmFile).mtimeMs) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, gzipSync(readFileSync(wasmFile), { level: 9 }));
  }
  return out;
}

function sizeOf(p) {
  return statSync(p).size;
}

/**
 * The glue and the .wasm are separate files: make sure they come from the same link (a build
 * while tools/build-wasm.sh is rewriting them could pair a new glue with an old module).
 */
function checkWasmPair() {
  const m = /var info=\{"([^"]+)":asmLibraryArg\}/.exec(readFileSync(glue, 'utf8'));
  if (!m) return; // another glue shape: nothing to compare
  const wanted = m[1];
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasmFile)));
  const lib = /var asmLibraryArg=\{([^}]*)\}/.exec(readFileSync(glue, 'utf8'));
  const provided = lib ? new Set([...lib[1].matchAll(/"([^"]+)":/g)].map((x) => x[1])) : null;
  const missing = imports.filter((i) => i.module !== wanted || (provided && !provided.has(i.name)));
  if (missing.length) {
    throw new Error(`wasm/gen/hloscope_core.wasm imports ${missing.map((i) => `${i.module}.${i.name}`).join(', ')} ` +
      'that its glue does not provide: the two files come from different builds (rerun `npm run build:wasm`)');
  }
}

async function main() {
  const t0 = Date.now();
  if (haveWasm && !process.env.HLOSCOPE_API) checkWasmPair();
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  if (!haveWasm) console.warn('build: wasm/gen/hloscope_core.{mjs,wasm} or wasm/hloscope.mjs missing: ' +
    'bundling a stub API (run `npm run build:wasm` first for a working core)');

  const worker = await bundle(join(nb, 'src/worker.js'), { inWorker: true });
  writeFileSync(join(dist, 'worker.js'), worker.js);
  const inlineWorker = { source: worker.js };

  const template = readFileSync(join(nb, 'index.html'), 'utf8');
  const appEntry = join(nb, 'src/notebook/main.js');

  // The served notebook: external script, style and worker files.
  const app = await bundle(appEntry, { worker: { url: 'worker.js' }, css: true });
  writeFileSync(join(dist, 'app.js'), app.js);
  writeFileSync(join(dist, 'app.css'), app.css);
  writeFileSync(join(dist, 'index.html'), fillPage(template, {
    csp: csp({ scriptSrc: "'self'", connect: "'self'" }),
    head: '<link rel="stylesheet" href="app.css">',
    body: '<script src="app.js"></script>',
  }));

  // The single file: everything inline; the inline script is allowed by its hash.
  const single = await bundle(appEntry, { worker: inlineWorker, css: true });
  const code = inlineScript(single.js);
  // It is also the report template: `hloscope report` and "Save as page" fill its slot.
  writeFileSync(join(dist, 'hloscope.html'), singleFile(template, {
    csp: csp({ scriptSrc: sha256(code), connect: "'none'" }),
    style: single.css,
    script: code,
  }));

  // The drills pages, when present. Their failure fails the build, but only after the notebook
  // pages above are written (so one broken page does not hide the others).
  const failures = [];
  const gymHtml = join(nb, 'gym.html');
  const gymEntry = join(nb, 'src/gym.js');
  if (existsSync(gymHtml) && existsSync(gymEntry)) {
    try {
      const gym = await bundle(gymEntry, { worker: inlineWorker, css: true });
      writeFileSync(join(dist, 'gym.js'), gym.js);
      if (gym.css) writeFileSync(join(dist, 'gym.css'), gym.css);
      let html = readFileSync(gymHtml, 'utf8');
      html = html.replace('%%CSP%%', () => csp({ scriptSrc: "'self'", connect: "'self'" }));
      writeFileSync(join(dist, 'gym.html'), html);
    } catch (e) {
      failures.push(`gym.html: ${e.message}`);
    }
  }
  const embedEntry = join(nb, 'src/embed.js');
  if (existsSync(embedEntry)) {
    try {
      const embed = await bundle(embedEntry, { worker: inlineWorker });
      writeFileSync(join(dist, 'hloscope-drills.js'), embed.js);
    } catch (e) {
      failures.push(`hloscope-drills.js: ${e.message}`);
    }
  }

  const rows = ['index.html', 'app.js', 'app.css', 'worker.js', 'hloscope.html', 'gym.html', 'gym.js',
    'hloscope-drills.js'].filter((f) => existsSync(join(dist, f)))
    .map((f) => `  ${f.padEnd(20)} ${(sizeOf(join(dist, f)) / 1024).toFixed(1).padStart(8)} KiB`);
  console.log(`build: dist/ in ${Date.now() - t0} ms${haveWasm ? '' : ' (stub API: no wasm)'}\n${rows.join('\n')}`);
  if (failures.length) throw new Error(`build failed:\n${failures.join('\n')}`);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
