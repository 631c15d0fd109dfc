// The one design language of the notebook, the views and the gym: colour tokens (light and dark,
// following the user's prefers-color-scheme), type and spacing. Every text colour here reaches
// WCAG AA (4.5:1) on --paper, --surface and --bg in its scheme, dimmed text included
// (tests/browser/design.test.mjs measures it). Copper marks fusions, steel marks copies and
// data movement, accent marks custom calls and focus.
//
//   tokensCss(':root')  for a page (adopted into the document by page.js and gym.js)
//   tokensCss(':host')  for a view's shadow root (views/common.js theme)

const LIGHT = {
  '--ink': '#1d1d1f', '--dim': '#5c5d63', '--line': '#dcd8d0', '--rule': '#dcd8d0',
  '--paper': '#fffdf9', '--surface': '#ffffff', '--surface-2': '#f6f3ee', '--bg': '#f4f1ea',
  '--copper': '#9a4f1c', '--copper-bg': 'rgba(184,104,46,.10)', '--steel': '#3d5a73', '--accent': '#1f5f66',
  '--bad': '#a8231b', '--bad-bg': '#fdf1f0', '--good': '#276b2b', '--focus': '#1f5f66',
};
const DARK = {
  '--ink': '#e6e8ea', '--dim': '#a9afb5', '--line': '#363c43', '--rule': '#363c43',
  '--paper': '#15181b', '--surface': '#1b1f23', '--surface-2': '#22272c', '--bg': '#0f1113',
  '--copper': '#e0a385', '--copper-bg': 'rgba(224,163,133,.13)', '--steel': '#a6c1d8', '--accent': '#86cdd4',
  '--bad': '#f4978e', '--bad-bg': '#2a1614', '--good': '#8fd5a6', '--focus': '#86cdd4',
};
const TYPE = {
  '--mono': 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
  '--sans': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  '--fs-small': '12px', '--fs-body': '14px', '--fs-title': '15px', '--gap': '.5rem',
};

const decl = (o) => Object.entries(o).map(([k, v]) => `${k}: ${v};`).join(' ');

/** The tokens as CSS for `selector`, light by default and dark under prefers-color-scheme: dark. */
export function tokensCss(selector) {
  return `${selector} { color-scheme: light dark; ${decl(TYPE)} ${decl(LIGHT)} }\n` +
    `@media (prefers-color-scheme: dark) { ${selector} { ${decl(DARK)} } }\n`;
}

/** Adopts the tokens into a document (constructable sheets pass a strict style-src CSP). */
export function adoptDesign(doc = document) {
  try {
    const s = new CSSStyleSheet();
    s.replaceSync(tokensCss(':root'));
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, s];
  } catch {
    const st = doc.createElement('style');
    st.textContent = tokensCss(':root');
    doc.head.append(st);
  }
}
