// The anywidget front end of the Python package (bundled by ../build.mjs into
// hloscope/static/widget.mjs, the widget's `_esm`). The wasm is inlined in the bundle: the
// numbers are computed here, in the browser, by the same core as the CLI and the page, and
// nothing is fetched. Dump text reaches the page through the views, which set textContent only.
//
// Model (hloscope/_widget.py): kind 'xray' | 'fusions' | 'spills' | 'timeline' | 'memory'; left,
// right (texts: StableHLO and optimized HLO; for memory, the message or report and the optimized
// HLO to join it to, `sibling` when that is the dump's own and joined only if it parses); profile
// (bytes of an .xplane.pb or trace JSON), profile_name (its file name; a .gz is gunzipped here),
// program (the timeline of one program: its name or id).
import * as bundledApi from 'hs:api';
import '../../src/views/xla-xray.js';
import '../../src/views/xla-fusion-table.js';
import '../../src/views/xla-summary.js';
import '../../src/views/xla-timeline.js';
import '../../src/views/xla-memory.js';

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

// Every widget's front end is its own copy of this module (anywidget imports each `_esm`
// afresh): the first to load the core shares it with the others, so a notebook compiles and
// instantiates the wasm once.
const SHARED = Symbol.for('hloscope.widget.api/1');
function core() {
  globalThis[SHARED] ??= bundledApi.load().then(() => bundledApi);
  return globalThis[SHARED];
}

async function show(model, box) {
  const { gunzip, parse, parseProfile, readMemory, xray } = await core();
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
    // `hloscope timeline PROFILE [--hlo DUMP] [--program P]`, read here by the same core.
    const dv = model.get('profile');
    let bytes = new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
    if (/\.gz$/.test(model.get('profile_name') || '')) bytes = await gunzip(bytes);
    const prof = parseProfile(bytes);
    let timeline;
    try {
      timeline = prof.timeline({ hlo: right, program: model.get('program') || null });
    } finally {
      prof.free();
    }
    const t = el('xla-timeline', { 'data-testid': 'hloscope-timeline' });
    box.replaceChildren(t);
    t.data = { timeline, name: model.get('profile_name') };
  } else if (kind === 'memory') {
    // `hloscope memory FILE [HLO]`: the dump's own HLO (sibling) is joined only when it parses.
    let data;
    try {
      data = readMemory(left ?? '', right ?? '');
    } catch (e) {
      if (!(right && model.get('sibling'))) throw e;
      data = readMemory(left ?? '', '');
    }
    const m = el('xla-memory', { 'data-testid': 'hloscope-memory' });
    box.replaceChildren(m);
    m.data = data;
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
  model.on('change:left change:right change:profile change:program', run);
  run();
  return () => model.off('change:left change:right change:profile change:program', run);
}

export default { render };
