// A small static server for dist/: binds 127.0.0.1 only (the notebook needs no network,
// and nothing here should be reachable from other machines). Port from PORT, default 8080;
// when that port is taken it falls back to a free one and says so.
//
//   node notebook/serve.mjs [folder]        (default: dist/ at the repository root)
//
// `startServer()` is also imported by the browser tests (tests/browser/harness.mjs).
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.mlir': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

function handler(root) {
  return (req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let st;
    try {
      st = statSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (!st.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file).toLowerCase()] || 'application/octet-stream',
      'content-length': st.size,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  };
}

function listen(server, port) {
  return new Promise((ok, fail) => {
    const onError = (e) => { server.off('listening', onListening); fail(e); };
    const onListening = () => { server.off('error', onError); ok(); };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

/**
 * Serves `root` on 127.0.0.1. `port` 0 picks a free port; a taken port falls back to a free
 * one. Resolves to { server, port, url, close() }.
 */
export async function startServer({ root, port = 0 } = {}) {
  root = resolve(root);
  const server = createServer(handler(root));
  try {
    await listen(server, port);
  } catch (e) {
    if (e.code !== 'EADDRINUSE' || port === 0) throw e;
    await listen(server, 0);
  }
  const actual = server.address().port;
  return {
    server,
    port: actual,
    url: `http://127.0.0.1:${actual}/`,
    close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(() => ok()); }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repoRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const root = resolve(process.argv[2] || join(repoRoot, 'dist'));
  const wanted = Number(process.env.PORT || 8080);
  const { port, url } = await startServer({ root, port: wanted });
  if (port !== wanted) console.log(`port ${wanted} is taken; using ${port}`);
  console.log(`hloscope notebook: ${url}  (serving ${root}; Ctrl+C stops)`);
}
