// GYM·12 which pipeline filed this pass? (skill `pass`).
//
// One pass name; "which dump ran it: A, B, or both?". The two dumps are dump-folder listings;
// the answer of every round comes from comparing them with the core at run time
// (`comparePasses(a, b).passes[i].origin`), never stored. The reveal names the pipelines of each
// dump that ran the pass.
//
// Built-in rounds: our own CPU pass dump (fixtures/passes/cpu-jax-0.4.38/attention, the names
// XLA wrote) against a public GPU listing (../shared/captures/pass-names/, read in place at build
// time by notebook/build.mjs as `hs:pass-listings`, and credited in the caption). Without the GPU
// listing in the build, our jax 0.12 CPU dump is side B.
//
// Attributes: listing-a / listing-b (the names inline, whitespace-separated), or src-a / src-b
// (same-origin URLs of listing files), with label-a / label-b: a course page's own two dumps.

import { h, fill } from '../dom.js';
import { core, errorWords } from '../core.js';
import { gpuListing } from 'hs:pass-listings';

const S = '';
const OWN = {
  cpu04: () => import(`../../../../fixtures/passes/cpu-jax-0.4.38/attention/FILES.txt${S}`, { with: { type: 'text' } }),
  cpu012: () => import(`../../../../fixtures/passes/cpu-jax-0.12.0.1/attention/FILES.txt${S}`, { with: { type: 'text' } }),
};

async function text(loader) { const m = await loader(); return m.default ?? m; }

async function fetchListing(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return await r.text();
}

/** The two sides of the drill: [{ listing, label, credit }] x 2. */
async function sides(ctx) {
  const own = async (side) => {
    const inline = ctx.attr(`listing-${side}`);
    const src = ctx.attr(`src-${side}`);
    if (inline) return { listing: inline.trim().split(/\s+/).join('\n'), label: ctx.attr(`label-${side}`) || `dump ${side.toUpperCase()}`, credit: 'given by this page' };
    if (src) return { listing: await fetchListing(src), label: ctx.attr(`label-${side}`) || src, credit: src };
    return null;
  };
  const a = (await own('a')) || {
    listing: await text(OWN.cpu04), label: 'the CPU dump',
    credit: 'hloscope\'s own capture: attention f32[64,64], jax 0.4.38 on the CPU (fixtures/passes/cpu-jax-0.4.38/attention)',
  };
  let b = await own('b');
  if (!b && gpuListing) {
    b = { listing: gpuListing.text, label: 'the GPU dump', credit: `${gpuListing.what} · public data from ${gpuListing.source}, read in place` };
  }
  if (!b) {
    b = { listing: await text(OWN.cpu012), label: 'the newer CPU dump', credit: 'hloscope\'s own capture: attention f32[64,64], jax 0.12 on the CPU' };
  }
  return [a, b];
}

export default {
  skill: 'pass',
  designator: 'GYM·12',
  title: 'which pipeline filed this pass?',

  async mount(ctx) {
    const passEl = h('code', { class: 'code pass-name' });
    const promptId = `${ctx.uid}-prompt`;
    const prompt = h('p', { class: 'prompt', id: promptId });
    const buttons = ['a', 'b', 'both'].map((v) => h('button', {
      type: 'button', class: 'choice', 'data-value': v, 'aria-disabled': 'true', onclick: () => answer(v),
    }));
    const choices = h('div', { class: 'choices', role: 'group', 'aria-labelledby': promptId }, buttons);
    const why = h('p', { class: 'why' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next pass →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, h('div', { class: 'actions' }, next));
    const status = ctx.loading();
    fill(ctx.body, h('div', { class: 'prog program' }, h('span', { class: 'k', text: 'pass' }), passEl), status, prompt, choices, reveal);

    let cmp = null;
    let labels = ['A', 'B'];
    let queue = [];
    let round = null;
    let token = 0;

    function nextRound(focus) {
      ++token;
      if (!cmp || !cmp.passes.length) return;
      if (!queue.length) queue = ctx.shuffle(cmp.passes);
      round = { ...queue.pop(), answered: false };
      passEl.textContent = round.pass;
      passEl.dataset.origin = ''; // the answer is not in the page before it is given
      for (const b of buttons) { b.setAttribute('aria-disabled', 'false'); b.classList.remove('correct', 'wrong', 'dim'); }
      reveal.hidden = true;
      ctx.clearVerdict();
      ctx.round({ program: round.pass });
      if (focus) buttons[0].focus();
    }

    function answer(v) {
      if (!round || round.answered) return;
      round.answered = true;
      const truth = round.origin;
      const right = v === truth;
      for (const b of buttons) {
        b.setAttribute('aria-disabled', 'true');
        b.classList.add(b.dataset.value === truth ? 'correct' : b.dataset.value === v ? 'wrong' : 'dim');
      }
      const where = (list, label) => (list.length ? `${label} ran it in ${list.join(', ')}` : `${label} never ran it`);
      why.textContent = `${where(round.pipelines_a, labels[0])}; ${where(round.pipelines_b, labels[1])}.`;
      reveal.hidden = false;
      const words = truth === 'both' ? 'both dumps ran it' : `only ${truth === 'a' ? labels[0] : labels[1]} ran it`;
      ctx.verdict(right, `${round.pass}: ${words}.`);
    }

    try {
      const hs = await core();
      const [a, b] = await sides(ctx);
      labels = [a.label, b.label];
      cmp = hs.comparePasses(a.listing, b.listing, { labels });
      buttons[0].textContent = `A: ${a.label}`;
      buttons[1].textContent = `B: ${b.label}`;
      buttons[2].textContent = 'both dumps';
      prompt.textContent = `which dump ran this pass: A (${a.label}), B (${b.label}), or both?`;
      status.hidden = true;
      ctx.caption(`A: ${a.credit} · B: ${b.credit} · the answers come from comparing the two listings with the hloscope core in this page`);
    } catch (e) {
      status.textContent = `no rounds: ${errorWords(e)}`;
      return { destroy() { token++; } };
    }
    nextRound(false);
    return { destroy() { token++; } };
  },
};
