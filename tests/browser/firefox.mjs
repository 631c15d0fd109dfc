// Drives Debian's Firefox (apt-get install -y firefox-esr) over WebDriver BiDi, the protocol Firefox
// speaks itself: playwright-core drives only its own patched Firefox build, which cannot be
// fetched here. Plain Node, no dependency: Node 20 has no WebSocket without a flag, so the few
// lines of the WebSocket client (RFC 6455: the handshake, masked text frames, fragments, 16- and
// 64-bit lengths, ping/pong, close) are below.
//
//   firefoxPath()                   the executable: $HLOSCOPE_FIREFOX (a path or a name on PATH),
//                                   else firefox-esr, else firefox; null when there is none
//   launchFirefox({ headless = true, offline = true, allow, prefs }) -> session
//     Firefox with a fresh temporary profile (PREFS below, and `prefs` over them), one BiDi
//     session, its first tab.
//     offline: every request whose URL `allow(url)` refuses (default: all but file:, data:,
//     blob:, about:) is failed before it is sent (network.addIntercept) and recorded in
//     session.refused.
//   session.goto(url, { wait = 'complete' })       browsingContext.navigate ('none'|'interactive'|'complete')
//   session.evaluate(expression)                   its value (a promise is awaited); throws the page's error
//   session.waitFor(expression, { timeout = 30000, interval = 100 })  polls until truthy; returns the value
//   session.requests   every request URL reported (network.beforeRequestSent), in order
//   session.refused    the URLs failed by `offline`
//   session.logs       console and error entries ({ level, type, text }) (log.entryAdded)
//   session.send(method, params)                   any other BiDi command
//   session.version, session.context, session.close()
// close() ends the session, closes the browser, kills what is left of its process group and
// removes the profile; a process that exits without close() kills its Firefoxes on the way out.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { accessSync, constants, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

const INSTALL = 'apt-get install -y firefox-esr (Debian\'s package), or set HLOSCOPE_FIREFOX to a Firefox executable';

function executable(p) {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

/** The Firefox to run, or null: $HLOSCOPE_FIREFOX (which must exist), else firefox-esr, else firefox. */
export function firefoxPath() {
  const env = process.env.HLOSCOPE_FIREFOX;
  if (env) return env.includes('/') ? (executable(env) ? path.resolve(env) : null) : onPath(env);
  return onPath('firefox-esr') || onPath('firefox');
}

/** Why Firefox tests cannot run here, or null. */
export function skipWithoutFirefox() {
  if (firefoxPath()) return null;
  const env = process.env.HLOSCOPE_FIREFOX;
  return env ? `HLOSCOPE_FIREFOX=${env} is not an executable: point it at a Firefox, or unset it to use firefox-esr (apt-get install -y firefox-esr)`
    : `firefox-esr is not installed: ${INSTALL}`;
}

// ---------------------------------------------------------------- WebSocket client (RFC 6455)
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_MESSAGE = 512 * 1024 * 1024;

class WebSocketClient extends EventEmitter {
  constructor(socket, head) {
    super();
    this.socket = socket;
    this.chunks = [];
    this.buffered = 0;
    this.fragments = null; // the parts of a fragmented message, while one is coming
    this.closed = false;
    this.closeSent = false;
    socket.setNoDelay(true);
    socket.on('data', (d) => this._data(d));
    socket.on('error', (e) => this._gone(e));
    socket.on('close', () => this._gone());
    if (head && head.length) this._data(head);
  }

  send(text) {
    if (this.closed || this.closeSent) throw new Error('the WebSocket is closed');
    this._frame(0x1, Buffer.from(text, 'utf8'));
  }

  close(code = 1000) {
    if (this.closed) return;
    if (!this.closeSent) {
      const p = Buffer.alloc(2);
      p.writeUInt16BE(code);
      this._frame(0x8, p);
      this.closeSent = true;
    }
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  destroy() { this.socket.destroy(); }

  _frame(opcode, payload) {
    const n = payload.length;
    const head = Buffer.alloc(n < 126 ? 2 : n < 65536 ? 4 : 10);
    head[0] = 0x80 | opcode; // FIN: we never fragment
    if (n < 126) head[1] = 0x80 | n;
    else if (n < 65536) { head[1] = 0x80 | 126; head.writeUInt16BE(n, 2); }
    else { head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(n), 2); }
    const mask = randomBytes(4); // a client masks every frame
    const body = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) body[i] = payload[i] ^ mask[i & 3];
    this.socket.write(Buffer.concat([head, mask, body]));
  }

  // The first n buffered bytes (joining chunks only as far as needed), or null.
  _peek(n) {
    if (this.buffered < n) return null;
    while (this.chunks[0].length < n) this.chunks.splice(0, 2, Buffer.concat([this.chunks[0], this.chunks[1]]));
    return this.chunks[0];
  }

  _take(n) {
    this.buffered -= n;
    const first = this.chunks[0];
    if (first.length === n) return this.chunks.shift();
    if (first.length > n) { this.chunks[0] = first.subarray(n); return first.subarray(0, n); }
    const out = Buffer.allocUnsafe(n);
    for (let off = 0; off < n;) {
      const c = this.chunks[0];
      const k = Math.min(c.length, n - off);
      c.copy(out, off, 0, k);
      off += k;
      if (k === c.length) this.chunks.shift(); else this.chunks[0] = c.subarray(k);
    }
    return out;
  }

  _data(d) {
    this.chunks.push(d);
    this.buffered += d.length;
    try {
      for (;;) {
        const h = this._peek(2);
        if (!h) return;
        const fin = (h[0] & 0x80) !== 0;
        const opcode = h[0] & 0x0f;
        const masked = (h[1] & 0x80) !== 0;
        let len = h[1] & 0x7f;
        const headLen = (len === 126 ? 4 : len === 127 ? 10 : 2) + (masked ? 4 : 0);
        const hh = this._peek(headLen);
        if (!hh) return;
        if (h[0] & 0x70) throw new Error('WebSocket: a frame with RSV bits set (no extension was agreed)');
        if (len === 126) len = hh.readUInt16BE(2);
        else if (len === 127) {
          const big = hh.readBigUInt64BE(2);
          if (big > BigInt(MAX_MESSAGE)) throw new Error(`WebSocket: a frame of ${big} bytes`);
          len = Number(big);
        }
        if (this.buffered < headLen + len) return;
        const mask = masked ? Buffer.from(hh.subarray(headLen - 4, headLen)) : null;
        this._take(headLen);
        const payload = len ? this._take(len) : Buffer.alloc(0);
        if (mask) for (let i = 0; i < len; i++) payload[i] ^= mask[i & 3]; // servers should not mask; accept it
        this._handle(fin, opcode, payload);
      }
    } catch (e) {
      this._gone(e);
      this.socket.destroy();
    }
  }

  _handle(fin, opcode, payload) {
    if (opcode === 0x8) { // close: answer it, then the server ends the connection
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      this.closeCode = code;
      if (!this.closeSent) { this.closeSent = true; this._frame(0x8, payload.subarray(0, 2)); }
      this.socket.end();
      return;
    }
    if (opcode === 0x9) { if (!this.closeSent) this._frame(0xA, payload); return; } // ping -> pong
    if (opcode === 0xA) return; // pong
    if (opcode === 0x1 || opcode === 0x2) {
      if (this.fragments) throw new Error('WebSocket: a new message inside a fragmented one');
      this.fragments = { parts: [], size: 0, binary: opcode === 0x2 };
    } else if (opcode !== 0x0 || !this.fragments) {
      throw new Error(`WebSocket: unexpected opcode ${opcode}`);
    }
    this.fragments.parts.push(payload);
    this.fragments.size += payload.length;
    if (this.fragments.size > MAX_MESSAGE) throw new Error('WebSocket: message too large');
    if (!fin) return;
    const { parts, binary } = this.fragments;
    this.fragments = null;
    const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.emit('message', binary ? whole : whole.toString('utf8'));
  }

  _gone(err) {
    if (this.closed) return;
    this.closed = true;
    this.emit('close', err, this.closeCode);
  }
}

/** Opens ws://host:port/path; resolves to a WebSocketClient. */
export function connectWebSocket(url, { timeout = 10000 } = {}) {
  const u = new URL(url);
  if (u.protocol !== 'ws:') throw new Error(`only ws:// is supported, not ${url}`);
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port || 80,
      path: u.pathname + u.search,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key },
      timeout,
    });
    req.on('upgrade', (res, socket, head) => {
      if (res.headers['sec-websocket-accept'] !== accept) {
        socket.destroy();
        reject(new Error(`${url}: the server's Sec-WebSocket-Accept is wrong`));
        return;
      }
      socket.setTimeout(0);
      resolve(new WebSocketClient(socket, head));
    });
    req.on('response', (res) => {
      res.resume();
      reject(new Error(`${url}: HTTP ${res.statusCode} instead of a WebSocket upgrade`));
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no WebSocket upgrade within ${timeout} ms`)));
    req.on('error', (e) => reject(new Error(`cannot connect to ${url}: ${e.message}`)));
    req.end();
  });
}

// ---------------------------------------------------------------- BiDi values
/** A BiDi RemoteValue as a JS value: primitives, arrays, plain objects, Map, Set, Date, RegExp;
 * anything else (a node, a window, a function...) as { type, sharedId? }. */
export function fromRemote(v, seen = new Map()) {
  if (v.value === undefined && v.internalId && seen.has(v.internalId)) return seen.get(v.internalId); // a cycle
  const keep = (x) => { if (v.internalId) seen.set(v.internalId, x); return x; };
  switch (v.type) {
    case 'undefined': return undefined;
    case 'null': return null;
    case 'string': case 'boolean': return v.value;
    case 'number': return typeof v.value === 'number' ? v.value : { NaN: NaN, '-0': -0, Infinity: Infinity, '-Infinity': -Infinity }[v.value];
    case 'bigint': return BigInt(v.value);
    case 'array': {
      const a = keep([]);
      for (const x of v.value || []) a.push(fromRemote(x, seen));
      return a;
    }
    case 'object': {
      const o = keep({});
      for (const [k, x] of v.value || []) o[typeof k === 'string' ? k : String(fromRemote(k, seen))] = fromRemote(x, seen);
      return o;
    }
    case 'map': {
      const m = keep(new Map());
      for (const [k, x] of v.value || []) m.set(typeof k === 'string' ? k : fromRemote(k, seen), fromRemote(x, seen));
      return m;
    }
    case 'set': {
      const s = keep(new Set());
      for (const x of v.value || []) s.add(fromRemote(x, seen));
      return s;
    }
    case 'date': return new Date(v.value);
    case 'regexp': return new RegExp(v.value.pattern, v.value.flags || '');
    default: return v.sharedId ? { type: v.type, sharedId: v.sharedId } : { type: v.type };
  }
}

// ---------------------------------------------------------------- the profile
// Prefs of the fresh profile. The ones that stop traffic stop Firefox's OWN background requests
// (updates, telemetry, safe-browsing lists, captive-portal and connectivity probes, remote
// settings, add-on metadata, region lookups, new-tab content, DNS-over-HTTPS, push, experiments):
// none of them is the page's, and with them off nothing Firefox does by itself goes out while a
// test records what the page asks for. The rest keep a fresh profile quiet (no first-run pages,
// no default-browser question, no session restore).
export const PREFS = {
  // Firefox's own traffic
  'app.update.enabled': false,
  'app.update.auto': false,
  'app.update.checkInstallTime': false,
  'app.update.disabledForTesting': true,
  'app.normandy.enabled': false,
  'app.normandy.api_url': '',
  'app.shield.optoutstudies.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.passwords.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'datareporting.usage.uploadEnabled': false,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'browser.ping-centre.telemetry': false,
  'network.captive-portal-service.enabled': false,
  'captivedetect.canonicalURL': '',
  'network.connectivity-service.enabled': false,
  'network.trr.mode': 5, // DNS over HTTPS off
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.http.speculative-parallel-limit': 0,
  'browser.newtabpage.enabled': false,
  'browser.newtabpage.activity-stream.feeds.system.topstories': false,
  'browser.newtabpage.activity-stream.feeds.snippets': false,
  'browser.topsites.contile.enabled': false,
  'extensions.getAddons.cache.enabled': false,
  'extensions.update.enabled': false,
  'extensions.blocklist.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.search.update': false,
  'browser.search.geoip.url': '',
  'geo.provider.network.url': '',
  'services.settings.server': 'data:,#remote-settings-dummy/v1', // no remote-settings sync (with MOZ_REMOTE_SETTINGS_DEVTOOLS=1 below)
  'media.gmp-manager.updateEnabled': false,
  'media.gmp-gmpopenh264.enabled': false,
  'dom.push.connection.enabled': false,
  'dom.push.serverURL': '',
  'identity.fxaccounts.enabled': false,
  'browser.discovery.enabled': false,
  'browser.contentblocking.report.lockwise.enabled': false,
  // a quiet fresh profile
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.startup.page': 0,
  'browser.startup.homepage': 'about:blank',
  'startup.homepage_welcome_url': 'about:blank',
  'startup.homepage_welcome_url.additional': '',
  'browser.aboutwelcome.enabled': false,
  'trailhead.firstrun.branches': 'nofirstrun-empty',
  'browser.sessionstore.resume_from_crash': false,
  'browser.tabs.warnOnClose': false,
  'toolkit.startup.max_resumed_crashes': -1,
  'datareporting.policy.firstRunURL': '',
  'remote.prefs.recommended': true,
};

// ---------------------------------------------------------------- processes left behind
const live = new Set(); // { proc, profile }

function killGroup(proc, signal = 'SIGKILL') {
  try { process.kill(-proc.pid, signal); } catch { /* gone */ }
  try { proc.kill(signal); } catch { /* gone */ }
}

function removeProfile(profile) {
  try { rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); } catch { /* best effort */ }
}

let exitHooked = false;
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const l of live) { killGroup(l.proc); removeProfile(l.profile); }
    live.clear();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const onSignal = () => {
      for (const l of live) { killGroup(l.proc); removeProfile(l.profile); }
      live.clear();
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig); // as if we had not caught it
    };
    process.on(sig, onSignal);
  }
}

const inPage = (url) => /^(file|data|blob|about):/i.test(url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Waits for `p`, or `ms` at most (and leaves no timer behind to hold the process open). */
const within = (p, ms) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  p.then(() => { clearTimeout(timer); resolve(); });
});

// ---------------------------------------------------------------- launch
export async function launchFirefox({ headless = true, offline = true, allow = inPage, prefs = {}, startTimeout = 45000, commandTimeout = 60000 } = {}) {
  const exe = firefoxPath();
  if (!exe) throw new Error(skipWithoutFirefox());
  hookExit();
  const profile = mkdtempSync(path.join(tmpdir(), 'hloscope-firefox-'));
  writeFileSync(path.join(profile, 'user.js'), Object.entries({ ...PREFS, ...prefs }).map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`).join(''));
  const args = ['--no-remote', '-profile', profile, '--remote-debugging-port=0', ...(headless ? ['--headless'] : []), 'about:blank'];
  const proc = spawn(exe, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: close() and the exit hook kill the content processes too
    // MOZ_REMOTE_SETTINGS_DEVTOOLS: a release build ignores services.settings.server (PREFS)
    // without it, and keeps polling firefox.settings.services.mozilla.com (its own traffic again).
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1', MOZ_DISABLE_AUTO_SAFE_MODE: '1', MOZ_REMOTE_SETTINGS_DEVTOOLS: '1' },
  });
  const me = { proc, profile };
  live.add(me);
  let stderr = '';
  let exited = null;
  const exitedP = new Promise((r) => proc.on('exit', (code, signal) => { exited = { code, signal }; r(); }));
  proc.stdout.on('data', () => {});
  const tail = () => stderr.slice(-1500).trim() || '(nothing on stderr)';
  const fail = async (msg) => {
    killGroup(proc);
    await within(exitedP, 3000);
    live.delete(me);
    removeProfile(profile);
    return new Error(msg);
  };

  let wsUrl;
  try {
    wsUrl = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Firefox (${exe}) did not start WebDriver BiDi within ${startTimeout} ms; its stderr:\n${tail()}`)), startTimeout);
      proc.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.length > 100000) stderr = stderr.slice(-50000);
        const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(stderr);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
      proc.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot run ${exe}: ${e.message} (${INSTALL})`)); });
      proc.on('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`Firefox (${exe}) exited (${signal || code}) before WebDriver BiDi started; its stderr:\n${tail()}`)); });
    });
  } catch (e) {
    throw await fail(e.message);
  }

  let ws;
  try {
    ws = await connectWebSocket(`${wsUrl.replace(/\/$/, '')}/session`);
  } catch (e) {
    throw await fail(`${e.message} (Firefox said BiDi listens on ${wsUrl})`);
  }

  // ---- the BiDi connection
  let nextId = 1;
  const pending = new Map();
  const handlers = new Map();
  let lost = null;
  ws.on('message', (text) => {
    let msg;
    try { msg = JSON.parse(text); } catch { return; }
    if (msg.id != null && pending.has(msg.id)) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.type === 'error') p.reject(new Error(`${p.method}: ${msg.error}: ${msg.message}`));
      else p.resolve(msg.result);
    } else if (msg.type === 'event' || msg.method) {
      for (const h of handlers.get(msg.method) || []) {
        try { h(msg.params); } catch { /* a handler's own failure */ }
      }
    }
  });
  ws.on('close', (err) => {
    lost = `the BiDi connection to Firefox closed${err ? `: ${err.message}` : ''}${exited ? ` (Firefox exited: ${exited.signal || exited.code})` : ''}`;
    for (const p of pending.values()) { clearTimeout(p.timer); p.reject(new Error(`${p.method}: ${lost}`)); }
    pending.clear();
  });
  const send = (method, params = {}, { timeout = commandTimeout } = {}) => new Promise((resolve, reject) => {
    if (lost) { reject(new Error(`${method}: ${lost}`)); return; }
    const id = nextId++;
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`${method}: no answer from Firefox within ${timeout} ms`));
    }, timeout);
    pending.set(id, { resolve, reject, timer, method });
    try { ws.send(JSON.stringify({ id, method, params })); } catch (e) { pending.delete(id); clearTimeout(timer); reject(e); }
  });
  const on = (event, h) => { if (!handlers.has(event)) handlers.set(event, []); handlers.get(event).push(h); };

  const requests = [];
  const refused = [];
  const logs = [];
  let context;
  let closed = false;
  let sessionStarted = false;

  const close = async () => {
    if (closed) return;
    closed = true;
    // browser.close ends the session and quits Firefox; when it cannot (no session yet, a hung
    // browser), SIGTERM, then SIGKILL to the whole process group.
    if (!lost && sessionStarted) await send('browser.close', {}, { timeout: 5000 }).catch(() => {});
    await within(exitedP, sessionStarted ? 5000 : 0);
    ws.close();
    if (!exited) {
      killGroup(proc, 'SIGTERM');
      await within(exitedP, 3000);
    }
    killGroup(proc, 'SIGKILL'); // content processes still in the group
    await within(exitedP, 2000);
    live.delete(me);
    removeProfile(profile);
  };

  try {
    const s = await send('session.new', { capabilities: { alwaysMatch: { acceptInsecureCerts: false } } });
    sessionStarted = true;
    const version = `${s.capabilities?.browserName || 'firefox'} ${s.capabilities?.browserVersion || '?'}`;

    on('network.beforeRequestSent', (p) => {
      const url = p.request?.url;
      if (!p.isBlocked) { requests.push(url); return; }
      requests.push(url);
      const id = p.request.request;
      if (allow(url)) send('network.continueRequest', { request: id }).catch(() => {});
      else { refused.push(url); send('network.failRequest', { request: id }).catch(() => {}); }
    });
    on('log.entryAdded', (p) => logs.push({ level: p.level, type: p.type, text: p.text }));
    await send('session.subscribe', { events: ['network.beforeRequestSent', 'log.entryAdded'] });
    if (offline) await send('network.addIntercept', { phases: ['beforeRequestSent'] });

    const tree = await send('browsingContext.getTree', { maxDepth: 0 });
    context = tree.contexts?.[0]?.context || (await send('browsingContext.create', { type: 'tab' })).context;

    const evaluate = async (expression) => {
      const r = await send('script.evaluate', {
        expression: String(expression),
        target: { context },
        awaitPromise: true,
        resultOwnership: 'none',
        serializationOptions: { maxObjectDepth: 100, maxDomDepth: 0 },
      });
      if (r.type === 'exception') {
        const d = r.exceptionDetails || {};
        const ex = d.exception ? fromRemote(d.exception) : undefined;
        throw new Error(`in the page: ${d.text || (ex && ex.message) || 'an exception'}${d.lineNumber != null ? ` (line ${d.lineNumber + 1})` : ''}`);
      }
      return fromRemote(r.result);
    };

    const session = {
      version,
      path: exe,
      context,
      requests,
      refused,
      logs,
      send,
      on,
      close,
      async goto(url, { wait = 'complete' } = {}) {
        return send('browsingContext.navigate', { context, url, wait });
      },
      evaluate,
      async waitFor(expression, { timeout = 30000, interval = 100 } = {}) {
        const t0 = Date.now();
        let last = 'it stayed falsy';
        for (;;) {
          try {
            const v = await evaluate(expression);
            if (v) return v;
            last = `last value: ${JSON.stringify(v) ?? String(v)}`;
          } catch (e) {
            if (lost) throw e;
            last = `last error: ${e.message}`; // a page between documents, say: try again
          }
          if (Date.now() - t0 > timeout) throw new Error(`waited ${timeout} ms for ${expression} (${last})`);
          await sleep(interval);
        }
      },
    };
    return session;
  } catch (e) {
    await close();
    throw new Error(`Firefox's WebDriver BiDi session could not start: ${e.message}`);
  }
}
