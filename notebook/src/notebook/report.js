// Report pages: a notebook file that carries its inputs (`hloscope report --out FILE.html`, or the
// notebook's "Save as page"). The page's data block (<script type="application/json"
// id="hs-report">, put in by the core's hs_report_page) holds the cells it opens with and the files
// they read, each gzipped and base64'd; what the cells say is computed here by the same core, on
// open. This module reads the block into a notebook state, and writes the current cells into a
// new page. It decides nothing about the inputs: the overview and the cells come from the core.
import * as engine from '../views/engine.js';
import { pageTemplate } from 'hs:page-template';
import { singleFile } from './page-template.js';

/** The report this page carries, or null (an ordinary notebook page). Throws a plain message when the block is damaged. */
export function reportPayload(doc = document) {
  const node = doc.getElementById('hs-report');
  const text = node?.textContent ?? '';
  if (!text.trim()) return null;
  let data;
  try { data = JSON.parse(text); } catch (e) {
    throw new Error(`its data does not read as JSON (${e.message}): the file was cut short or edited`);
  }
  if (!data || data.format !== 'hloscope-report' || !Array.isArray(data.cells) || !Array.isArray(data.files)) {
    throw new Error('its data block is not an hloscope report (no "format": "hloscope-report")');
  }
  if (data.version !== 1) throw new Error(`report version ${data.version} is newer than this page understands`);
  return data;
}

function fromBase64(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(u8) {
  let s = '';
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

async function through(u8, stream) {
  return new Uint8Array(await new Response(new Blob([u8]).stream().pipeThrough(stream)).arrayBuffer());
}

/** A file of the payload as bytes. */
export async function fileBytes(f) {
  if (typeof f?.data !== 'string') throw new Error(`file ${f?.name ?? '?'}: no data`);
  const raw = fromBase64(f.data);
  if (f.encoding === 'base64') return raw;
  if (f.encoding !== 'gzip+base64') throw new Error(`file ${f.name}: unknown encoding ${JSON.stringify(f.encoding)}`);
  if (typeof DecompressionStream === 'undefined') throw new Error('this browser has no DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later opens reports)');
  return through(raw, new DecompressionStream('gzip'));
}

/**
 * The notebook state a report opens with: { title, cells } for replaceNotebook, and beside it per
 * cell index the anchor the overview links to and a profile cell's files ([{ path, file }]).
 */
export async function reportState(data) {
  const bytes = await Promise.all(data.files.map((f) => fileBytes(f)));
  const dec = new TextDecoder();
  const cells = [];
  const anchors = [];
  const profiles = new Map();
  for (const c of data.cells) {
    const i = cells.length;
    anchors.push(typeof c.anchor === 'string' ? c.anchor : null);
    if (c.kind === 'dump') {
      const b = Number.isInteger(c.file) ? bytes[c.file] : null;
      cells.push({ kind: 'dump', name: c.name || `dump${i + 1}`, text: b ? dec.decode(b) : (c.text ?? '') });
    } else if (c.kind === 'profile') {
      const files = (c.files ?? []).filter((k) => bytes[k]).map((k) => {
        const name = data.files[k].name || `profile${k}.xplane.pb`;
        return { path: name, file: new File([bytes[k]], name) };
      });
      if (files.length) profiles.set(i, files);
      cells.push({ kind: 'profile', name: c.name ?? '', text: '' });
    } else if (c.kind === 'markdown' || c.kind === 'code' || c.kind === 'folder') {
      cells.push({ kind: c.kind, name: c.name ?? '', text: c.text ?? '' });
    }
  }
  return { title: data.title || '', cells, anchors, profiles };
}

/** What this page is built from, to write a new one: the single file's own parts, or the served page's sibling. */
async function ownTemplate(doc = document) {
  const script = doc.getElementById('hs-app');
  const style = doc.getElementById('hs-style');
  const csp = doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content');
  if (script && style && csp) return singleFile(pageTemplate, { csp, style: style.textContent, script: script.textContent });
  // the served notebook (external script): the single file beside it (connect-src 'self')
  const r = await fetch(new URL('hloscope.html', doc.baseURI));
  if (!r.ok) throw new Error(`hloscope.html beside this page did not load (${r.status}): run \`npm run build\``);
  return r.text();
}

/**
 * The current cells as a report page's HTML: dump texts and the profiles shown are carried
 * (gzipped); a profile cell whose file was not opened in this tab is carried by name only.
 */
export async function pageOf(page) {
  if (typeof CompressionStream === 'undefined') throw new Error('this browser has no CompressionStream');
  const enc = new TextEncoder();
  const files = [];
  const cells = [];
  const add = async (name, bytes, format) => {
    const gz = await through(bytes, new CompressionStream('gzip'));
    files.push({ name, bytes: bytes.length, format, encoding: 'gzip+base64', data: toBase64(gz) });
    return files.length - 1;
  };
  for (const c of page.cells) {
    const anchor = c.el?.id || undefined;
    if (c.kind === 'dump') {
      const text = c.text || (c.blob ? await c.blob.text() : '');
      cells.push({ kind: 'dump', name: c.name, file: await add(c.name, enc.encode(text), c.analysis?.format ?? 'unknown'), anchor });
    } else if (c.kind === 'profile') {
      const idx = [];
      for (const e of c.files ?? []) idx.push(await add(e.path.split('/').pop(), new Uint8Array(await e.file.arrayBuffer()), 'profile'));
      cells.push({ kind: 'profile', name: c.name, files: idx, anchor });
    } else {
      cells.push({ kind: c.kind, text: c.text ?? '', anchor });
    }
  }
  const payload = {
    format: 'hloscope-report',
    version: 1,
    title: page.title || 'hloscope notebook',
    core: await engine.version().catch(() => null),
    created: new Date().toISOString(),
    overview: null,
    markdown: null,
    cells,
    files,
  };
  return engine.reportPage(await ownTemplate(), JSON.stringify(payload));
}
