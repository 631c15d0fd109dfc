// The gym page (notebook/gym.html -> dist/gym.html): the xla floor's drills and the path.
// Registers the same elements as the embed script, then fills the page's provenance lines
// from the captures' MANIFEST.json.
import './embed.js';
import { adoptDesign } from './design.js';

adoptDesign(document);
import { CAPTURE_DIR, FUSIONCOUNT_PROGRAMS, manifest, provenance } from './drills/corpus.js';

async function fillProvenance() {
  for (const el of document.querySelectorAll('[data-provenance]')) {
    const ids = (el.dataset.provenance || '').split(',').map((s) => s.trim()).filter(Boolean);
    const list = ids.length ? ids : FUSIONCOUNT_PROGRAMS;
    const seen = new Map();
    for (const id of list) {
      try {
        const p = provenance(await manifest(id));
        if (p) seen.set(p, [...(seen.get(p) || []), id]);
      } catch { /* not captured in this build */ }
    }
    if (!seen.size) {
      el.textContent = `captures from fixtures/${CAPTURE_DIR}/ (no MANIFEST.json in this build)`;
      continue;
    }
    el.textContent = [...seen].map(([p, got]) => `${got.length === list.length ? (list.length === 1 ? got[0] : `all ${got.length}`) : got.join(', ')}: ${p}`).join('; ')
      + ` · read from fixtures/${CAPTURE_DIR}/<id>/MANIFEST.json`;
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fillProvenance);
else fillProvenance();
