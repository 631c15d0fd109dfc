// Shared helpers of the view components. Dump text is only ever put into the page with
// textContent (never innerHTML): el() has no way to set HTML.

// el: the one DOM helper (../dom.js); memory-space and error words: ../core-words.js.
import { el } from '../dom.js';
import { tokensCss } from '../design.js';
export { el };
export { memorySpaceLabel, memorySpaceWords, errorWhere, partialWords, dumpLabel, stageWords, backendOf } from '../core-words.js';

const sheets = new Map();
/**
 * Adopts `css` into a shadow root. Constructable style sheets are not subject to a page's
 * style-src policy, so the components work on course pages with a strict CSP.
 */
export function adoptStyles(shadow, css) {
  try {
    let s = sheets.get(css);
    if (!s) { s = new CSSStyleSheet(); s.replaceSync(css); sheets.set(css, s); }
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, s];
  } catch {
    shadow.append(el('style', { text: css }));
  }
}

export function defineOnce(name, cls) {
  if (!customElements.get(name)) customElements.define(name, cls);
}

/** One formatter for every integer: toLocaleString makes a new one each call (a 400-op timeline
 * spent 45-60 ms in it). */
const INT = new Intl.NumberFormat('en-US');

/** "2.00 GiB" for 2,147,483,648 bytes: binary units labelled KiB/MiB/GiB/TiB everywhere (XLA's
 *  K/M/G are binary too), two decimals, as the core's own texts print them. */
export function formatBytes(n) {
  if (n == null) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  do { v /= 1024; u++; } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(2)} ${units[u]}`;
}

export function formatInt(n) {
  return n == null ? '' : INT.format(Number(n));
}

/**
 * `text` as text nodes with a line-break opportunity (<wbr>) between its parts, so that a
 * narrow column wraps an op name (broadcast_add_fusion.1) or a shape
 * (f32[32,4096,4096]{1,2,0:T(8,128)}) between parts, never inside one: after `_ - / , :` and
 * before `{ (` and a `.` that starts a word (`.clone`, not `.1`). Put it into an element whose
 * `overflow-wrap` is not `anywhere`.
 */
export function breakable(text) {
  const parts = String(text ?? '').split(/(?<=[_\-/,:])|(?=[{(])|(?=\.[A-Za-z])/);
  return parts.flatMap((t, k) => (k ? [el('wbr'), t] : [t])).filter((x) => x !== '');
}

/** Reads a URL attribute's text (same-origin pages only; the notebook's CSP allows 'self'). */
export async function fetchText(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return await r.text();
}

export const theme = tokensCss(':host') + `
  :host { color: var(--ink); font-family: var(--sans); }
`;
