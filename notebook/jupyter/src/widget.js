// The anywidget front end of the Python package (bundled by ../build.mjs into
// hloscope/static/widget.mjs, the widget's `_esm`). The wasm is inlined in the bundle: the
// numbers are computed here, in the browser, by the same core as the CLI and the page, and
// nothing is fetched. Dump text reaches the page through the views, which set textContent only.
//
// Model (hloscope/_widget.py): kind 'xray' | 'fusions' | 'spills' | 'timeline'; left, right
// (texts: StableHLO and optimized HLO); profile (bytes of an .xplane.pb or trace JSON),
// profile_name (its file name; a .gz is gunzipped here).
import * as bundledApi from 'hs:api';
import '../../src/views/xla-xray.js';
import '../../src/views/xla-fusion-table.js';
import '../../src/views/xla-summary.js';

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'style') e.style.cssText = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

function fmtPs(ps) {
  if (ps >= 1e12) return `${(ps / 1e12).toFixed(3)} s`;
  if (ps >= 1e9) return `${(ps / 1e9).toFixed(3)} ms`;
  if (ps >= 1e6) return `${(ps / 1e6).toFixed(3)} us`;
  return `${(ps / 1e3).toFixed(3)} ns`;
}

/** The profile's top ops as a plain table (the timeline view itself is not in the page yet). */
function profileTable(p) {
  const cell = 'padding:.2rem .6rem;border-bottom:1px solid #e3e1dc;text-align:left;font-family:ui-monospace,monospace;font-size:12px';
  const head = ['op', 'count', 'total', 'self', 'per run', 'category'];
  const rows = (p.ops || []).slice(0, 25).map((o) => el('tr', {},
    el('td', { text: o.name, style: `${cell};color:#b8682e;font-weight:600` }),
    el('td', { text: String(o.occurrences), style: cell }),
    el('td', { text: fmtPs(o.total_ps), style: cell }),
    el('td', { text: fmtPs(o.self_ps), style: cell }),
    el('td', { text: fmtPs(o.per_run_ps), style: cell }),
    el('td', { text: o.category ?? '', style: cell })));
  const dev = p.device ? `counting ${p.device.plane} / ${p.device.line}` : 'no device events to count';
  const progs = (p.programs || []).map((x) => `${x.name}: ${x.runs} runs, ${fmtPs(x.envelope_ps)}`).join('; ');
  return el('div', { 'data-testid': 'hloscope-timeline' },
    el('p', { text: `${p.format} profile, ${dev}${progs ? ` · ${progs}` : ''}`, style: 'margin:0 0 .4rem;font-size:13px' }),
    el('table', { style: 'border-collapse:collapse' },
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h, style: `${cell};font-family:inherit` })))),
      el('tbody', {}, ...rows)));
}

// Every widget's front end is its own copy of this module (anywidget imports each `_esm`
// afresh): the first to load the core shares it with the others, so a notebook compiles and
// instantiates the wasm once.
const SHARED = Symbol.for('hloscope.widget.api/1');
function core() {
  globalThis[SHARED] ??= bundledApi.load().then(() => bundledApi);
  return globalThis[SHARED];
}

async function show(model, box) {
  const { gunzip, parse, parseProfile, xray } = await core();
  const kind = model.get('kind');
  const left = model.get('left') || null;
  const right = model.get('right') || null;
  if (kind === 'xray') {
    const x = el('xla-xray', { height: '24rem' });
    box.replaceChildren(x);
    x.data = { xray: xray(left ?? '', right ?? ''), left: left && left.trim() ? left : null, right };
  } else if (kind === 'fusions' || kind === 'spills') {
    const doc = parse(right ?? '');
    try {
      if (kind === 'fusions') {
        const t = el('xla-fusion-table');
        box.replaceChildren(t);
        t.data = doc.fusions();
      } else {
        const s = el('xla-summary');
        box.replaceChildren(s);
        s.data = { summary: doc.summary(), fusions: doc.fusions(), spills: doc.spills() };
      }
    } finally {
      doc.free();
    }
  } else if (kind === 'timeline') {
    const dv = model.get('profile');
    let bytes = new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
    if (/\.gz$/.test(model.get('profile_name') || '')) bytes = await gunzip(bytes);
    const prof = parseProfile(bytes);
    try {
      box.replaceChildren(profileTable(prof.summary()));
    } finally {
      prof.free();
    }
  } else {
    throw new Error(`unknown kind ${kind}`);
  }
}

function render({ model, el: host }) {
  const box = el('div', { class: 'hloscope-widget', style: 'padding:.25rem 0' }, 'hloscope: loading the core…');
  host.append(box);
  const run = () => show(model, box).catch((e) => {
    const where = e.line ? ` (${e.side ? `${e.side} side, ` : ''}line ${e.line}, column ${e.column})` : '';
    box.replaceChildren(el('pre', { 'data-testid': 'hloscope-error', style: 'color:#b3261e;white-space:pre-wrap', text: `hloscope: ${e.message}${where}` }));
  });
  model.on('change:left change:right change:profile', run);
  run();
  return () => model.off('change:left change:right change:profile', run);
}

export default { render };
