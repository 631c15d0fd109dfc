// The anywidget front end of the Python package (bundled by ../build.mjs into
// hloscope/static/widget.mjs, the widget's `_esm`). The wasm is inlined in the bundle: the
// numbers are computed here, in the browser, by the same core as the CLI and the page, and
// nothing is fetched. Dump text reaches the page through the views, which set textContent only.
//
// Model (hloscope/_widget.py): kind 'xray' | 'fusions' | 'spills' | 'timeline' | 'memory' |
// 'decisions' (left: the jaxpr, StableHLO or HLO) | 'diff' (left, right: A's and B's optimized HLO); left,
// right (texts: StableHLO and optimized HLO; for memory, the message or report and the optimized
// HLO to join it to, `sibling` when that is the dump's own and joined only if it parses); profile
// (bytes of an .xplane.pb or trace JSON), profile_name (its file name; a .gz is gunzipped here),
// profiles (several profiles of one job read as one: [{ name, data }], profile_name their label),
// program (the timeline of one program: its name or id).
import * as bundledApi from 'hs:api';
import { tokensCss } from '../../src/design.js';
import '../../src/views/xla-xray.js';
import '../../src/views/xla-fusion-table.js';
import '../../src/views/xla-summary.js';
import '../../src/views/xla-timeline.js';
import '../../src/views/xla-memory.js';
import '../../src/views/xla-pipeline.js';
import '../../src/views/xla-diff.js';
import { diffTexts } from '../../src/views/diff-core.js';

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

/** `hloscope decisions` as a table: one row per decision, its kind in copper (text set as text;
 * colours from the design tokens, light or dark as the user's scheme). */
function decisionsTable(d) {
  const style = el('style', { text: `${tokensCss('.hloscope-decisions')}
    .hloscope-decisions { color: var(--ink); font-family: var(--sans); }
    .hloscope-decisions p { margin: 0 0 .4rem; font-size: 13px; }
    .hloscope-decisions p.warn { font-size: 12px; color: var(--dim); }
    .hloscope-decisions table { border-collapse: collapse; }
    .hloscope-decisions th, .hloscope-decisions td { padding: .2rem .6rem; border-bottom: 1px solid var(--line);
      text-align: left; vertical-align: top; font-size: 12px; }
    .hloscope-decisions th { color: var(--dim); font-weight: 500; }
    .hloscope-decisions td.mono { font-family: var(--mono); }
    .hloscope-decisions td.num { text-align: right; }
    .hloscope-decisions td.kind { color: var(--copper); font-weight: 600; }` });
  const td = (cls, text) => el('td', { class: cls, text });
  const head = ['line', 'kind', 'op', 'dtype', 'shape', 'detail', 'where'];
  const rows = (d.decisions || []).map((x) => el('tr', { 'data-testid': 'decision' },
    td('mono num', String(x.line)),
    td('mono kind', x.kind),
    td('mono', x.name ?? ''),
    td('mono', x.from && x.to && x.from !== x.to ? `${x.from} → ${x.to}` : (x.to ?? x.from ?? '')),
    td('mono', x.shape ?? ''),
    td('', x.detail ?? ''),
    td('mono', [x.path ? `in ${x.path}` : '', x.source ? `at ${x.source}` : ''].filter(Boolean).join('  '))));
  const counts = {};
  for (const x of d.decisions || []) counts[x.kind] = (counts[x.kind] || 0) + 1;
  const words = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ') || 'no decisions found';
  return el('div', { class: 'hloscope-decisions', 'data-testid': 'hloscope-decisions' }, style,
    el('p', { text: `${d.format}: ${words}` }),
    ...(d.warnings || []).map((w) => el('p', { class: 'warn', text: `warning: line ${w.line}: ${w.message}` })),
    rows.length ? el('table', {},
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))),
      el('tbody', {}, ...rows)) : '');
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
  const { archiveKind, gunzip, parse, parseProfile, parseProfiles, readArchive, readMemory, readPasses, xray } = await core();
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
  } else if (kind === 'passes') {
    // `hloscope passes PATH`: the folder's files (entries), or an archive's or listing's bytes.
    const label = model.get('profile_name');
    let input = model.get('entries');
    if (!input || !input.length) {
      const dv = model.get('profile');
      const u = new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
      // what the bytes are is the core's sniff; an archive is walked by the core, as the CLI walks it
      input = archiveKind(u) !== 'none' || /\.(zip|tar|tgz|gz)$/i.test(label || '') ? await readArchive(u) : new TextDecoder().decode(u);
    }
    const p = el('xla-pipeline', { 'data-testid': 'hloscope-passes' });
    box.replaceChildren(p);
    p.data = readPasses(input, { label });
  } else if (kind === 'decisions') {
    // `hloscope decisions FILE`: a jaxpr, StableHLO or optimized HLO.
    const doc = parse(left ?? '');
    try {
      box.replaceChildren(decisionsTable(doc.decisions()));
    } finally {
      doc.free();
    }
  } else if (kind === 'timeline') {
    // `hloscope timeline PROFILE... [--hlo DUMP] [--program P]`, read here by the same core: one
    // file, or a multi-process job's files (profiles: [{ name, data }]) read as one, as the CLI
    // reads them (gzip bytes are gunzipped; the core tells the hosts apart).
    const u8 = (dv) => new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
    const unzip = async (name, bytes) => (archiveKind(bytes) === 'gzip' ? gunzip(bytes) : bytes); // by its bytes, as the CLI
    const several = model.get('profiles') || [];
    let prof;
    if (several.length) {
      const files = [];
      for (const f of several) files.push({ name: f.name, bytes: await unzip(f.name, u8(f.data)) });
      prof = parseProfiles(files);
    } else prof = parseProfile(await unzip(model.get('profile_name'), u8(model.get('profile'))));
    let timeline;
    try {
      timeline = prof.timeline({ hlo: right, program: model.get('program') || null });
    } finally {
      prof.free();
    }
    const t = el('xla-timeline', { 'data-testid': 'hloscope-timeline' });
    box.replaceChildren(t);
    t.data = { timeline, name: model.get('profile_name') };
  } else if (kind === 'diff') {
    // `hloscope diff A B`: the core's diff and the rows of <xla-diff>, computed here
    const out = diffTexts(await core(), left ?? '', right ?? '');
    const d = el('xla-diff', { height: '24rem', 'data-testid': 'hloscope-diff' });
    box.replaceChildren(d);
    d.data = { ...out, a: left ?? '', b: right ?? '' };
  } else if (kind === 'memory') {
    // `hloscope memory FILE [HLO]`: an HLO that does not parse is not joined; the core says so in
    // a warning (HS_W_JOIN_SKIPPED), as the CLI does.
    const data = readMemory(left ?? '', right ?? '');
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
  model.on('change:left change:right change:profile change:profiles change:program change:entries', run);
  run();
  return () => model.off('change:left change:right change:profile change:profiles change:program change:entries', run);
}

export default { render };
