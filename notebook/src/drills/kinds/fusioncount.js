// GYM·13 count the fusions (skill `fusioncount`).
//
// A one-line program; "how many fusion computations does the optimized module hold?"; four
// buttons, adjacent ranges of counts drawn around the answer at random (words.js
// `countChoices`: single counts for small modules, wider ranges for big ones, the right one at
// any place), so that the choices tell counts apart on a real dump of any size. The answer is
// counted by the core at run time from the captured optimized module
// (`parse(text).fusions().fusion_computations`), never stored. The reveal says why, in words
// built from the census, and lists what each fusion holds.
// "drill me on my dump": paste an optimized HLO and get a round on it.
//
// Attributes read: program (pin one capture id), programs (comma-separated ids to draw
// from), xray-href (link template for "see it in the x-ray", `{id}` replaced; default: the
// x-ray drill on this page, `#xray={id}`; on a page without one, the notebook's <xla-xray>
// view of the program opens in place).

import { h, fill, plural } from '../dom.js';
import { explainCensus, countChoices } from '../words.js';
import { core, errorWords } from '../core.js';
import { FUSIONCOUNT_PROGRAMS, CAPTURE_DIR, optimizedHlo, stablehlo, program, manifest, provenance } from '../corpus.js';

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
    const pool = ctx.pool(FUSIONCOUNT_PROGRAMS);

    const titleEl = h('span', { class: 'k' });
    const codeEl = h('code', { class: 'code' });
    const argsEl = h('span', { class: 'args' });
    const programEl = h('div', { class: 'prog program' }, titleEl, codeEl, argsEl);
    const promptId = `${ctx.uid}-prompt`;
    const prompt = h('p', { class: 'prompt', id: promptId, text: 'how many fusion computations does the optimized module hold?' });
    const choices = h('div', { class: 'choices', role: 'group', 'aria-labelledby': promptId });
    let buttons = [];
    const why = h('p', { class: 'why' });
    const holdsHead = h('span', { class: 'k', text: 'what each fusion holds' });
    const bodies = h('ul', { class: 'bodies' });
    const linkP = h('div', { class: 'links' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next program →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, holdsHead, bodies, linkP, h('div', { class: 'actions' }, next));
    const status = ctx.loading();
    const own = ctx.ownInput({
      label: 'paste an optimized HLO module (after_optimizations.txt, or compiled.as_text())',
      placeholder: 'HloModule jit_f, entry_computation_layout=…',
      go: (text) => ownRound(text),
    });

    fill(ctx.body, programEl, status, prompt, choices, reveal, own.el);

    let round = null; // { id, census, computations, answered }
    let last = null;
    let token = 0;

    /** This round's four ranges as buttons (none before the first round). */
    function drawChoices(n) {
      buttons = countChoices(n).map((c) => h('button', {
        type: 'button', class: 'choice', 'data-value': c.value, 'data-lo': c.lo, 'data-hi': c.hi, 'aria-disabled': 'false',
        onclick: () => answer(c),
      }, c.label));
      fill(choices, buttons);
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
      for (const b of buttons) b.setAttribute('aria-disabled', 'true');
      reveal.hidden = true;
      ctx.clearVerdict();
      status.hidden = false;
      status.textContent = 'loading…';
      // Try the pool in random order (the last program last) until one capture loads.
      let r = null;
      let lastErr = null;
      for (const id of ctx.shuffle(pool, last)) {
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
      drawChoices(r.census.fusion_computations);
      ctx.round({ program: r.id });
    }

    async function caption(id) {
      let prov = null;
      try { prov = provenance(await manifest(id)); } catch { /* no manifest in this build */ }
      ctx.caption(`counted by the hloscope core from ${CAPTURE_DIR}/${id}/after_optimizations.txt at run time`,
        prov ? ` · ${prov}` : '',
        ' · a different backend draws these boundaries differently, which is the point of reading your own dump');
    }

    function answer(c) {
      if (!round || round.answered) return;
      round.answered = true;
      const n = round.census.fusion_computations;
      const right = c.lo <= n && n <= c.hi;
      for (const b of buttons) {
        const holds = Number(b.dataset.lo) <= n && n <= Number(b.dataset.hi);
        b.setAttribute('aria-disabled', 'true');
        b.classList.add(holds ? 'correct' : b.dataset.value === c.value ? 'wrong' : 'dim');
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

    async function ownRound(text) {
      own.error('');
      if (!text.trim()) { own.error('paste a dump first'); return; }
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
        own.error(errorWords(e));
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
