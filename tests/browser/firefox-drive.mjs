// Drives Debian's Firefox (firefox-esr) over WebDriver BiDi, the protocol Firefox speaks itself
// (playwright-core drives only its own Firefox build). A script, not a module for the tests to
// import: Node 20 has a WebSocket only under --experimental-websocket, so the tests spawn
//   node --experimental-websocket tests/browser/firefox-drive.mjs PAGE.html EXPR [WAIT_EXPR]
// It starts Firefox headless with a fresh profile, opens file://PAGE, waits until WAIT_EXPR (a JS
// expression) is truthy in the page, evaluates EXPR (its value as JSON), records every request
// the page makes and refuses those outside file:, data:, blob: and about: (network.addIntercept),
// and prints { value, requests, refused, firefox } as one JSON line. Exit 2: no Firefox.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function firefoxPath() {
  const env = process.env.HLOSCOPE_FIREFOX;
  const names = env ? [env] : ['firefox-esr', 'firefox'];
  for (const n of names) {
    const r = spawnSync('sh', ['-c', `command -v ${JSON.stringify(n)}`]);
    if (r.status === 0) return r.stdout.toString().trim();
  }
  return null;
}

// Firefox's own background traffic (updates, telemetry, safe browsing, remote settings, captive
// portal checks, push) is switched off, so that nothing leaves the machine and what is recorded
// is the page's (checked with a recording proxy: nothing in 60 s idle and a notebook's load).
const PREFS = {
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

async function main() {
  const [file, expr, waitExpr = 'document.documentElement.dataset.ready === "true"'] = process.argv.slice(2);
  const exe = firefoxPath();
  if (!exe) { console.error('firefox-esr is not installed: apt-get install -y firefox-esr (or set HLOSCOPE_FIREFOX)'); process.exit(2); }
  const profile = mkdtempSync(path.join(tmpdir(), 'hs-firefox-'));
  writeFileSync(path.join(profile, 'user.js'), Object.entries(PREFS).map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`).join('\n'));
  const ff = spawn(exe, ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port=0', 'about:blank'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // MOZ_REMOTE_SETTINGS_DEVTOOLS: a release build ignores services.settings.server without it
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1', MOZ_DISABLE_AUTO_SAFE_MODE: '1', MOZ_REMOTE_SETTINGS_DEVTOOLS: '1' },
  });
  const cleanup = () => { try { ff.kill('SIGKILL'); } catch { /* gone */ } rmSync(profile, { recursive: true, force: true }); };
  process.on('exit', cleanup);
  const timer = setTimeout(() => { console.error('firefox-drive: timed out'); process.exit(1); }, 150000);
  const wsUrl = await new Promise((ok, fail) => {
    let err = '';
    ff.stderr.on('data', (d) => {
      err += d;
      const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(err);
      if (m) ok(m[1]);
    });
    ff.on('exit', (code) => fail(new Error(`firefox exited (${code}) before BiDi started: ${err.slice(-800)}`)));
  });
  const ws = new WebSocket(`${wsUrl}/session`);
  await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = () => fail(new Error(`cannot connect to ${wsUrl}`)); });
  let next = 1;
  const waiting = new Map();
  const requests = [];
  const refused = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && waiting.has(msg.id)) {
      const { ok, fail } = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.type === 'error') fail(new Error(`${msg.error}: ${msg.message}`)); else ok(msg.result);
    } else if (msg.method === 'network.beforeRequestSent') {
      const { url, request } = msg.params.request;
      requests.push(url);
      // every request outside the page's file and in-page data is refused (and said)
      if (msg.params.isBlocked) {
        const local = /^(file|data|blob|about):/.test(url);
        if (!local) refused.push(url);
        send(local ? 'network.continueRequest' : 'network.failRequest', { request }).catch(() => {});
      }
    }
  };
  const send = (method, params = {}) => new Promise((ok, fail) => {
    const id = next++;
    waiting.set(id, { ok, fail });
    ws.send(JSON.stringify({ id, method, params }));
  });
  const session = await send('session.new', { capabilities: {} });
  await send('session.subscribe', { events: ['network.beforeRequestSent'] });
  await send('network.addIntercept', { phases: ['beforeRequestSent'] });
  const tree = await send('browsingContext.getTree', {});
  const context = tree.contexts[0].context;
  await send('browsingContext.navigate', { context, url: pathToFileURL(path.resolve(file)).href, wait: 'complete' });
  const evaluate = async (e) => {
    const r = await send('script.evaluate', { expression: `(async () => JSON.stringify(await (${e})))()`, target: { context }, awaitPromise: true, resultOwnership: 'none' });
    if (r.type === 'exception') throw new Error(`in the page: ${r.exceptionDetails?.text}`);
    return r.result.type === 'string' ? JSON.parse(r.result.value) : null;
  };
  // polls, at most 480 of them a quarter second apart (a count, not a clock: tests read no clock)
  for (let tries = 0; !(await evaluate(waitExpr).catch(() => false)); tries++) {
    if (tries === 480) throw new Error(`the page never held: ${waitExpr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const value = await evaluate(expr);
  clearTimeout(timer);
  console.log(JSON.stringify({ value, requests, refused, firefox: session.capabilities?.browserVersion ?? null }));
  await send('session.end').catch(() => {});
  ws.close();
  cleanup();
  process.exit(0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => { console.error(`firefox-drive: ${e.message}`); process.exit(1); });
}
