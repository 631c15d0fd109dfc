// The gym page (notebook/gym.html -> dist/gym.html): the xla floor's drills and the path.
// Registers the same elements as the embed script, then fills the page's provenance lines
// from the captures' MANIFEST.json.
import './embed.js';
import { adoptDesign } from './design.js';
import PATH from '../path.json';

adoptDesign(document);

/**
 * The line that says which course chapters the drills serve, by their titles (notebook/path.json).
 * A course page that links here can name itself: gym.html?course=<name>&course-url=<url> (an
 * http(s) or relative link only).
 */
function fillServes() {
  const el = document.querySelector('[data-serves]');
  if (!el) return;
  const q = new URLSearchParams(location.search);
  const course = q.get('course') || PATH.title || 'the course';
  const url = q.get('course-url');
  const chapters = (PATH.chapters || []).map((c) => c.title).join(' · ');
  el.replaceChildren('drills for ');
  if (url && /^(https?:\/\/|\.{0,2}\/|[\w-]+\.html)/.test(url)) {
    const a = document.createElement('a');
    a.href = url;
    a.textContent = course;
    el.append(a);
  } else el.append(course);
  el.append(`, chapters ${chapters} · streaks check themselves off; the same skill counts on every page that drills it`);
}
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

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => { fillProvenance(); fillServes(); });
else { fillProvenance(); fillServes(); }
