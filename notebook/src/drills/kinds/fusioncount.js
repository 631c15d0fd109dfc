// GYM·13 count the fusions (skill `fusioncount`).
//
// A one-line program; "how many fusion computations does the optimized module hold?";
// buttons 0, 1, 2, "3 or more". The answer is counted by the core at run time from the
// captured optimized module (`parse(text).fusions().fusion_computations`), never stored.
// The reveal says why, in words built from the census, and lists what each fusion holds.
// "drill me on my dump": paste an optimized HLO and get a round on it.
//
// Attributes read: program (pin one capture id), programs (comma-separated ids to draw
// from), xray-href (link template for "see it in the x-ray", `{id}` replaced; default: the
// x-ray drill on this page, `#xray={id}`; on a page without one, the notebook's <xla-xray>
// view of the program opens in place).

import { h, fill, plural } from '../dom.js';
import { explainCensus } from '../words.js';
import { core, errorWords } from '../core.js';
import { FUSIONCOUNT_PROGRAMS, CAPTURE_DIR, optimizedHlo, stablehlo, program, manifest, provenance } from '../corpus.js';

const CHOICES = [
  { value: 0, label: '0' },
  { value: 1, label: '1' },
  { value: 2, label: '2' },
  { value: 3, label: '3 or more' },
];

/** The pool shuffled, with `last` moved to the end so a round rarely repeats the previous one. */
function order(list, last) {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  const k = a.indexOf(last);
  if (k >= 0 && a.length > 1) a.push(a.splice(k, 1)[0]);
  return a;
}

function xrayLink(ctx, id) {
  const tpl = ctx.attr('xray-href');
  if (tpl) return tpl.replaceAll('{id}', encodeURIComponent(id));
  return `#xray=${encodeURIComponent(id)}`;
}

export default {
  skill: 'fusioncount',
  designator: 'GYM·13',
  title: 'count the fusions',

  async mount(ctx) {
    const uid = Math.random().toString(36).slice(2, 8);
    const pinned = (ctx.attr('program') || '').trim();
    const listed = (ctx.attr('programs') || '').split(',').map((s) => s.trim()).filter(Boolean);
    const pool = pinned ? [pinned] : listed.length ? listed : FUSIONCOUNT_PROGRAMS;

    const titleEl = h('span', { class: 'k' });
    const codeEl = h('code', { class: 'code' });
    const argsEl = h('span', { class: 'args' });
    const programEl = h('div', { class: 'prog program' }, titleEl, codeEl, argsEl);
    const promptId = `fc-prompt-${uid}`;
    const prompt = h('p', { class: 'prompt', id: promptId, text: 'how many fusion computations does the optimized module hold?' });
    const buttons = CHOICES.map((c) => h('button', {
      type: 'button', class: 'choice', 'data-value': c.value, 'aria-disabled': 'true',
      onclick: () => answer(c.value),
    }, c.label));
    const choices = h('div', { class: 'choices', role: 'group', 'aria-labelledby': promptId }, buttons);
    const why = h('p', { class: 'why' });
    const holdsHead = h('span', { class: 'k', text: 'what each fusion holds' });
    const bodies = h('ul', { class: 'bodies' });
    const linkP = h('div', { class: 'links' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next program →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, holdsHead, bodies, linkP, h('div', { class: 'actions' }, next));
    const status = h('p', { class: 'k loading', text: 'loading the core…' });

    // Drill me on my dump.
    const ownId = `fc-own-${uid}`;
    const ownText = h('textarea', { id: ownId, spellcheck: 'false', autocomplete: 'off', placeholder: 'HloModule jit_f, entry_computation_layout=…' });
    const ownErr = h('p', { class: 'error', role: 'alert' });
    const ownGo = h('button', { type: 'button', class: 'own-go', onclick: () => ownRound() }, 'drill me on this dump');
    const own = h('details', { class: 'own' },
      h('summary', {}, 'drill me on my dump'),
      h('label', { for: ownId, text: 'paste an optimized HLO module (after_optimizations.txt, or compiled.as_text())' }),
      ownText, h('div', { class: 'actions' }, ownGo), ownErr);

    fill(ctx.body, programEl, status, prompt, choices, reveal, own);

    let round = null; // { id, census, computations, answered }
    let last = null;
    let token = 0;

    function setChoicesEnabled(on) {
      for (const b of buttons) {
        b.setAttribute('aria-disabled', on ? 'false' : 'true');
        b.classList.remove('correct', 'wrong', 'dim');
      }
    }

    async function load(id) {
      const [text, prog] = await Promise.all([optimizedHlo(id), program(id)]);
      const hs = await core();
      const doc = hs.parse(text);
      try {
        return { id, prog, census: doc.fusions(), computations: doc.computations(), module: doc.summary().module };
      } finally {
        doc.free();
      }
    }

    async function nextRound(focus) {
      const my = ++token;
      setChoicesEnabled(false);
      reveal.hidden = true;
      ctx.clearVerdict();
      status.hidden = false;
      status.textContent = 'loading…';
      // Try the pool in random order (the last program last) until one capture loads.
      let r = null;
      let lastErr = null;
      for (const id of order(pool, last)) {
        try { r = await load(id); break; } catch (e) { lastErr = e; }
      }
      if (my !== token) return;
      if (!r) {
        status.textContent = `no round: ${errorWords(lastErr)}`;
        return;
      }
      show(r);
      last = r.id;
      if (focus) buttons[0].focus();
      caption(r.id);
    }

    function show(r) {
      round = { ...r, answered: false };
      titleEl.textContent = r.prog.title || '';
      codeEl.textContent = r.prog.code || '(program text not captured)';
      codeEl.dataset.program = r.id ?? '';
      programEl.dataset.program = r.id ?? '';
      argsEl.textContent = r.prog.args || '';
      argsEl.hidden = !r.prog.args;
      status.hidden = true;
      setChoicesEnabled(true);
      ctx.round({ program: r.id });
    }

    async function caption(id) {
      let prov = null;
      try { prov = provenance(await manifest(id)); } catch { /* no manifest in this build */ }
      ctx.caption(`counted by the hloscope core from ${CAPTURE_DIR}/${id}/after_optimizations.txt at run time`,
        prov ? ` · ${prov}` : '',
        ' · a different backend draws these boundaries differently, which is the point of reading your own dump');
    }

    function answer(value) {
      if (!round || round.answered) return;
      round.answered = true;
      const n = round.census.fusion_computations;
      const truth = Math.min(n, 3);
      const right = value === truth;
      for (const b of buttons) {
        const v = Number(b.dataset.value);
        b.setAttribute('aria-disabled', 'true');
        b.classList.add(v === truth ? 'correct' : v === value ? 'wrong' : 'dim');
      }
      why.textContent = explainCensus(round.census, round.computations);
      const items = round.census.fusions.map((f) => h('li', {},
        h('span', { class: 'fname', text: `${f.name} (${f.kind}${f.nested ? ', nested' : ''}): ` }),
        h('code', { text: f.ops.join(' · ') || '(no ops besides parameters)' })));
      fill(bodies, items);
      holdsHead.hidden = bodies.hidden = items.length === 0;
      fill(linkP, round.id ? xrayLinkOrInline(round.id) : null);
      reveal.hidden = false;
      ctx.verdict(right, `${plural(n, 'fusion computation')} in ${round.id ? round.id : 'your dump'}.`);
    }

    // The page's x-ray drill when there is one (or the host's xray-href); otherwise the
    // notebook's <xla-xray> view, opened in place.
    function xrayLinkOrInline(id) {
      const tpl = ctx.attr('xray-href');
      if (tpl || document.querySelector('xla-drill[skill="xray"]') || !customElements.get('xla-xray')) {
        return h('a', { href: xrayLink(ctx, id), class: 'xray-link' }, `see ${id} in the fusion x-ray`);
      }
      const box = h('div', { class: 'inline-xray' });
      const d = h('details', { class: 'own xray-inline' }, h('summary', {}, `see ${id} in the fusion x-ray`), box);
      d.addEventListener('toggle', async () => {
        if (!d.open || box.firstChild) return;
        box.append(h('p', { class: 'k', text: 'x-raying…' }));
        try {
          const [left, right] = await Promise.all([stablehlo(id), optimizedHlo(id)]);
          const hs = await core();
          const view = document.createElement('xla-xray');
          view.setAttribute('height', '20rem');
          fill(box, view);
          view.data = { xray: hs.xray(left, right), left, right };
        } catch (e) {
          fill(box, h('p', { class: 'error', text: `no x-ray for ${id}: ${errorWords(e)}` }));
        }
      });
      return d;
    }

    async function ownRound() {
      ownErr.textContent = '';
      const text = ownText.value;
      if (!text.trim()) { ownErr.textContent = 'paste a dump first'; return; }
      let r;
      try {
        const hs = await core();
        const doc = hs.parse(text);
        try {
          const s = doc.summary();
          if (s.format !== 'hlo') throw new Error(`this reads as ${s.format}; the count needs the optimized HLO (after_optimizations.txt or compiled.as_text())`);
          r = {
            id: null,
            prog: { title: 'your dump', code: `module ${s.module ?? '(unnamed)'} · ${plural(s.instructions, 'instruction')}`, args: null },
            census: doc.fusions(),
            computations: doc.computations(),
          };
        } finally {
          doc.free();
        }
      } catch (e) {
        ownErr.textContent = errorWords(e);
        return;
      }
      ++token;
      ctx.clearVerdict();
      reveal.hidden = true;
      show(r);
      ctx.caption('your dump, counted by the hloscope core in this page; nothing left the browser');
      buttons[0].focus();
    }

    try {
      await core();
    } catch (e) {
      status.textContent = `the drill needs the hloscope core: ${errorWords(e)}`;
      return { destroy() { token++; } };
    }
    await nextRound(false);
    return { destroy() { token++; } };
  },
};
