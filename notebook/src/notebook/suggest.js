// Under each analysed dump: the views that fit it (readers.js), one click away. A click inserts
// the view's code cell right after the dump (or re-runs the one already there) and runs it.
import { button } from './cell.js';
import { nameProblem } from './runner.js';
import { formatViews, VIEWS } from './readers.js';
import { kernelsDecided, pairEvidence } from '../core-words.js';
import { el } from '../dom.js';

const usable = (c) => c.name && !nameProblem(c.name);

/**
 * The dump of `format` a paired view of `cell` should use, by evidence (pairEvidence: module
 * names, entry signatures), then by nearness (one above preferred). Returns { dump, verdict,
 * reasons } or null when there is no dump of that format. A 'different' verdict means the best
 * candidate is another program: the caller does not offer that pair first.
 */
export function partnerOf(cell, format, dumps, { decided = false } = {}) {
  const at = dumps.indexOf(cell);
  const WEIGHT = { same: 0, unknown: 1, different: 2 };
  const best = dumps
    .map((d, k) => ({ d, k }))
    .filter(({ d }) => d !== cell && d.analysis?.format === format && !d.analysis.error && usable(d)
      && (!decided || kernelsDecided(d.analysis.summary?.stage)))
    .map(({ d, k }) => {
      const ev = pairEvidence(cell.analysis.evidence, d.analysis.evidence);
      return { dump: d, ...ev, cost: WEIGHT[ev.verdict] * 1e6 + (k < at ? at - k : (k - at) + dumps.length) };
    })
    .sort((x, y) => x.cost - y.cost)[0];
  return best ?? null;
}

/**
 * For an LLVM IR dump: the dump of the other level (no-opt for an optimized one and back) in the
 * notebook, the nearest of the same LLVM module name (one above preferred); null when none.
 */
export function otherLevelOf(cell, dumps) {
  const s = cell.analysis?.summary;
  if (cell.analysis?.format !== 'llvm' || !s) return null;
  const at = dumps.indexOf(cell);
  return dumps
    .map((d, k) => ({ d, k }))
    .filter(({ d }) => d !== cell && d.analysis?.format === 'llvm' && !d.analysis.error && usable(d)
      && !!d.analysis.summary?.optimized !== !!s.optimized
      && (s.module == null || d.analysis.summary?.module == null || d.analysis.summary.module === s.module))
    .sort((x, y) => (x.k < at ? at - x.k : x.k - at + dumps.length) - (y.k < at ? at - y.k : y.k - at + dumps.length))[0]?.d ?? null;
}

/** [{ label, code, note? }] for one dump cell: its format's views, paired views with their partner. */
export function suggestionsFor(cell, dumps) {
  const out = [];
  const later = [];
  for (const v of formatViews(cell.analysis)) {
    const p = v.pair ? partnerOf(cell, v.pair.format, dumps, v.pair) : null;
    if (v.pair?.required && !p) continue; // a view of two dumps, and no second one
    // an LLVM IR dump whose other level is in the notebook too: all three levels, no-opt first
    const other = v === VIEWS.levels ? otherLevelOf(cell, dumps) : null;
    const make = (partner) => {
      if (other) {
        const [noopt, opt] = cell.analysis.summary.optimized ? [other.name, cell.name] : [cell.name, other.name];
        return { label: `levels ${partner ? `${partner} → ` : 'of '}${noopt} + ${opt}`, code: `show.levels(${partner ?? 'null'}, ${noopt}, ${opt})` };
      }
      return {
        label: typeof v.label === 'function' ? v.label(cell.name, partner) : v.label,
        code: v.code(cell.name, partner, partner != null && dumps.indexOf(p.dump) < dumps.indexOf(cell)),
      };
    };
    if (p && p.verdict === 'different') {
      // Another program: offer this dump's own view first, the pair last and marked.
      if (!v.pair.required) out.push(make(null));
      later.push({ ...make(p.dump.name), note: `looks like a different program: ${p.reasons.join('; ')}` });
    } else out.push(make(p ? p.dump.name : null));
  }
  return [...out, ...later];
}

/** Refills every dump cell's suggestions (after an analysis, a rename, a removal). */
export function refreshSuggestions(page) {
  const dumps = page.cells.filter((c) => c.kind === 'dump');
  for (const c of dumps) {
    c.suggest.replaceChildren();
    const a = c.analysis;
    if (!a || a.error || !usable(c)) continue;
    c.suggest.append(el('span', { class: 'hint', text: 'suggested view:' }));
    suggestionsFor(c, dumps).forEach(({ label, code, note }, k) => {
      c.suggest.append(button(note ? `${label} (different program?)` : label, 'suggest', {
        class: k === 0 ? 'primary' : null,
        title: note ?? null,
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
