// How the single-file page is put together from notebook/index.html: one function for the build
// (notebook/build.mjs writes dist/hloscope.html with it) and for the page itself (its "Save as
// page" rebuilds the same file from its own style and script). The report slot comes before the
// script, so the data block a report carries is parsed when the script starts; the core's
// hs_report_page fills the slot (or replaces the data block of a report saved before).
//
// '<' is written LT here: this module is bundled into the page's inline script, where "<!--"
// beside "<script" would change how the HTML parser finds the script's end (and the minifier
// folds string concatenations and String.fromCharCode, not a join).
const LT = ['<'].join('');

/** The slot hs_report_page fills. */
export const REPORT_SLOT = `${LT}!--HS:REPORT-->`;

/** notebook/index.html with its placeholders filled; throws when one is left. */
export function fillPage(template, { csp, head, body }) {
  const marks = ['%%CSP%%', `${LT}!--HS:HEAD-->`, `${LT}!--HS:BODY-->`];
  const missing = marks.filter((m) => !template.includes(m));
  if (missing.length) throw new Error(`the page template lacks ${missing.join(', ')}`);
  let rest = template;
  for (const m of marks) rest = rest.replace(m, '');
  if (rest.includes('%%') || rest.includes(`${LT}!--HS:`)) throw new Error('the page template holds a placeholder this build does not fill');
  return template.replace(marks[0], () => csp).replace(marks[1], () => head).replace(marks[2], () => body);
}

/** The single file: its styles and script inline (ids let the page find them again), the slot. */
export function singleFile(template, { csp, style, script }) {
  return fillPage(template, {
    csp,
    head: `${LT}style id="hs-style">${style.replace(/<\/style/gi, '<\\/style')}${LT}/style>`,
    body: `${REPORT_SLOT}\n${LT}script id="hs-app">${script}${LT}/script>`,
  });
}
