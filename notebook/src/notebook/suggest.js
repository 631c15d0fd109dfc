// Under each analysed dump: the views that fit it (readers.js), one click away. A click inserts
// the view's code cell right after the dump (or re-runs the one already there) and runs it.
import { button } from './cell.js';
import { nameProblem } from './runner.js';
import { dumpFormat } from './readers.js';
import { el } from '../dom.js';

const usable = (c) => c.name && !nameProblem(c.name);

/**
 * The dump of `format` a paired view of `cell` should use, or null: the nearest one, preferring
 * one above `cell`.
 */
export function partnerOf(cell, format, dumps) {
  const at = dumps.indexOf(cell);
  return dumps
    .map((d, k) => ({ d, cost: k < at ? at - k : (k - at) + dumps.length }))
    .filter(({ d }) => d !== cell && d.analysis?.format === format && usable(d))
    .sort((x, y) => x.cost - y.cost)[0]?.d ?? null;
}

/** [{ label, code }] for one dump cell: its format's views, paired views with their partner. */
export function suggestionsFor(cell, dumps) {
  return dumpFormat(cell.analysis.format).views.map((v) => {
    const partner = v.pair ? partnerOf(cell, v.pair.format, dumps)?.name ?? null : null;
    const label = typeof v.label === 'function' ? v.label(cell.name, partner) : v.label;
    return { label, code: v.code(cell.name, partner) };
  });
}

/** Refills every dump cell's suggestions (after an analysis, a rename, a removal). */
export function refreshSuggestions(page) {
  const dumps = page.cells.filter((c) => c.kind === 'dump');
  for (const c of dumps) {
    c.suggest.replaceChildren();
    const a = c.analysis;
    if (!a || a.error || !usable(c)) continue;
    c.suggest.append(el('span', { class: 'hint', text: 'suggested view:' }));
    suggestionsFor(c, dumps).forEach(({ label, code }, k) => {
      c.suggest.append(button(label, 'suggest', {
        class: k === 0 ? 'primary' : null,
        'data-code': code,
        onclick: () => {
          const at = page.cells.indexOf(c) + 1;
          const existing = page.cells[at];
          if (existing && existing.kind === 'code' && existing.text.trim() === code) { existing.run(); return; }
          page.insertCell({ kind: 'code', text: code }, at).run();
        },
      }));
    });
  }
}
