// GYM·14 what changed? (skill `whatchanged`).
//
// Two compiles of the same program, A and B, and what differs between them (from the pair's
// MANIFEST.json: "B: XLA_FLAGS=--xla_backend_optimization_level=0", "A: variant f32, B: variant
// bf16"), with the program from its source.py. A round asks one of: "which fusion of B changed
// from A?" (choices: fusion ops of one side), "which value of B now spills?" (B's values and "none
// of these"), "which side is faster?" (only when the pair has a profile of each side,
// {a,b}.xplane.pb, and the core's diff says the times differ). Every answer comes from the core's
// diff of the two texts at run time (`diff(a, b, { profiles })`) and each side's
// own results; the rounds are pure functions in ../whatchanged-words.js. After the answer: why,
// the diff's entry that made it right, and the core's verdict.
// "drill me on my pair": paste two optimized HLO modules and get rounds on them.
//
// Pairs: the project's own (../pairs.js, fixtures/diff-pairs/). Attributes read: program (pin
// one pair id, "<jax version>/<pair>", e.g. "0.12.0.1/mlp_grad-remat"), programs (comma-separated
// ids), question (pin one question: fusion, spill or time).

import { h, fill } from '../dom.js';
import { core, errorWords } from '../core.js';
import { readSide, whatchangedRounds, sidesWords, programBlock } from '../whatchanged-words.js';
import { PAIR_IDS, loadPair } from '../pairs.js';
import { provenance } from '../words.js';

export default {
  skill: 'whatchanged',
  designator: 'GYM·14',
  title: 'what changed?',

  async mount(ctx) {
    const pool = ctx.pool(PAIR_IDS);
    const pinned = (ctx.attr('question') || '').trim();

    const titleEl = h('span', { class: 'k' });
    const sidesEl = h('ul', { class: 'sides' });
    const codeEl = h('code', { class: 'code' });
    const codeBox = h('details', { class: 'own source' }, h('summary', {}, 'the program (source.py)'), h('pre', { class: 'src' }, codeEl));
    const programEl = h('div', { class: 'prog program' }, titleEl, sidesEl, codeBox);
    const contextHead = h('span', { class: 'k' });
    const contextEl = h('ul', { class: 'bodies context' });
    const contextBox = h('div', { class: 'context-box', hidden: true }, contextHead, contextEl);
    const promptId = `${ctx.uid}-prompt`;
    const prompt = h('p', { class: 'prompt', id: promptId });
    const choices = h('div', { class: 'choices', role: 'group', 'aria-labelledby': promptId });
    const why = h('p', { class: 'why' });
    const entryHead = h('span', { class: 'k', text: 'the entry of the diff that makes it right' });
    const entryEl = h('ul', { class: 'bodies entry' });
    const verdictHead = h('span', { class: 'k', text: "the core's verdict" });
    const verdictEl = h('p', { class: 'core-verdict' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next round →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, entryHead, entryEl, verdictHead, verdictEl, h('div', { class: 'actions' }, next));
    const status = ctx.loading();
    const own = ownPair(ctx, (a, b) => ownRound(a, b));

    fill(ctx.body, programEl, status, contextBox, prompt, choices, reveal, own.el);

    let round = null; // { p, q, answered }
    let last = null;
    let lastType = null;
    let token = 0;
    let mine = null; // the learner's pair, once given

    /** The core's diff and each side's results, for a pair of texts (and a profile of each side's
     * runs, when the pair has them: the diff's time). */
    async function analyse(a, b, profiles = null) {
      const hs = await core();
      return { diff: hs.diff(a, b, profiles ? { profiles } : {}), sides: { a: readSide(hs, a), b: readSide(hs, b) } };
    }

    async function load(id) {
      const p = await loadPair(id);
      const { diff, sides } = await analyse(p.a, p.b, p.profiles);
      const m = p.manifest;
      return {
        id,
        label: `${m?.program ?? id} · jax ${m?.jax ?? '?'} (${m?.backend ?? 'cpu'})`,
        sides: sidesWords(m),
        code: programBlock(p.source, m?.program),
        dir: p.dir,
        manifest: m,
        diff,
        analysed: sides,
      };
    }

    function pick(p) {
      let rs = whatchangedRounds(p.diff, p.analysed);
      if (pinned) rs = rs.filter((r) => r.type === pinned);
      if (!rs.length) return null;
      const other = rs.filter((r) => r.type !== lastType);
      const from = other.length ? other : rs;
      return from[Math.floor(Math.random() * from.length)];
    }

    async function nextRound(focus) {
      const my = ++token;
      reveal.hidden = true;
      ctx.clearVerdict();
      status.hidden = false;
      status.textContent = 'loading…';
      let p = null;
      let q = null;
      let lastErr = null;
      if (mine) {
        p = mine;
        q = pick(p);
        if (!q) lastErr = new Error(`your pair gives no ${pinned ? `"${pinned}" ` : ''}round: ${p.diff.verdict}`);
      } else {
        for (const id of ctx.shuffle(pool, last)) {
          try {
            p = await load(id);
            q = pick(p);
            if (q) break;
            lastErr = new Error(`${id}: no ${pinned ? `"${pinned}" ` : ''}round (${p.diff.verdict})`);
          } catch (e) { lastErr = e; }
        }
      }
      if (my !== token) return;
      if (!q) {
        status.textContent = `no round: ${errorWords(lastErr)}`;
        fill(choices);
        prompt.textContent = '';
        return;
      }
      last = p.id;
      show(p, q);
      if (focus) choices.querySelector('button')?.focus();
    }

    function show(p, q) {
      round = { p, q, answered: false };
      lastType = q.type;
      status.hidden = true;
      titleEl.textContent = p.label;
      programEl.dataset.program = p.id ?? '';
      fill(sidesEl, p.sides.map((s) => h('li', { text: s })));
      codeEl.textContent = p.code || '';
      codeBox.hidden = !p.code;
      contextBox.hidden = !q.context;
      if (q.context) {
        contextHead.textContent = `${q.context.side.toUpperCase()}'s fusions, to compare with`;
        fill(contextEl, q.context.fusions.map((f) => h('li', {}, h('span', { class: 'fname', text: `${f.name}: ` }), h('code', { text: f.ops }))));
      }
      prompt.textContent = q.prompt;
      prompt.dataset.type = q.type;
      prompt.dataset.side = q.side ?? '';
      const buttons = ctx.shuffle(q.choices).map((c) => h('button', {
        type: 'button', class: 'choice', 'data-value': c.value, 'aria-disabled': 'false', onclick: () => answer(c.value),
      }, h('span', { class: 'clabel', text: c.label }),
      // what a fusion holds (fusion rounds): the learner's evidence; other notes say why, after
      q.type === 'fusion' && c.note ? h('span', { class: 'cnote', text: c.note }) : null));
      fill(choices, buttons);
      ctx.round({ program: p.id, type: q.type });
      caption(p, false);
    }

    async function caption(p, after) {
      const what = p.dir ? `${p.dir}/{a,b}.after_optimizations.txt${p.diff.time ? ' and {a,b}.xplane.pb' : ''}` : 'your two modules';
      const prov = p.manifest ? provenance(p.manifest) : null;
      ctx.caption(`diffed by the hloscope core from ${what} at run time${p.dir ? '' : '; nothing left the browser'}`,
        prov ? ` · ${prov}` : '',
        after ? ` · matched ${p.diff.matched.instructions} instructions (${p.diff.matched.unmatched_a} of A and ${p.diff.matched.unmatched_b} of B without a counterpart)` : '');
    }

    function answer(value) {
      if (!round || round.answered) return;
      round.answered = true;
      const { q, p } = round;
      const right = value === q.answer;
      for (const b of choices.querySelectorAll('button')) {
        b.setAttribute('aria-disabled', 'true');
        b.classList.add(b.dataset.value === q.answer ? 'correct' : b.dataset.value === value ? 'wrong' : 'dim');
      }
      why.textContent = q.why;
      fill(entryEl, q.entry.map((l) => h('li', { text: l })));
      verdictEl.textContent = q.verdict;
      reveal.hidden = false;
      caption(p, true);
      ctx.verdict(right, q.why);
    }

    async function ownRound(a, b) {
      own.error('');
      if (!a.trim() || !b.trim()) { own.error('paste both modules first (A and B)'); return; }
      try {
        const { diff, sides } = await analyse(a, b);
        const p = { id: null, label: 'your pair', sides: [`A: ${diff.a.module ?? '(unnamed)'}, ${diff.a.instructions} instructions`, `B: ${diff.b.module ?? '(unnamed)'}, ${diff.b.instructions} instructions`], code: null, dir: null, manifest: null, diff, analysed: sides };
        if (!whatchangedRounds(diff, sides).length) { own.error(`no round in your pair: ${diff.verdict}`); return; }
        mine = p;
        round = null;
        nextRound(true);
      } catch (e) {
        own.error(`${e?.side ? `side ${String(e.side).toUpperCase()}: ` : ''}${errorWords(e)}`);
      }
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

/** "drill me on my pair": two textareas (A, B) and a button; `error(words)` says why no round. */
function ownPair(ctx, go) {
  const id = `${ctx.uid}-own`;
  const err = h('p', { class: 'error', role: 'alert' });
  const ta = (side) => h('textarea', { id: `${id}-${side}`, spellcheck: 'false', autocomplete: 'off', placeholder: `HloModule jit_f, … (${side.toUpperCase()})` });
  const a = ta('a');
  const b = ta('b');
  const el = h('details', { class: 'own' }, h('summary', {}, 'drill me on my pair'),
    h('label', { for: a.id, text: 'A: an optimized HLO module (after_optimizations.txt, or compiled.as_text())' }), a,
    h('label', { for: b.id, text: 'B: the same program compiled another way' }), b,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'own-go', onclick: () => go(a.value, b.value) }, 'drill me on this pair')),
    err);
  return { el, error(words) { err.textContent = words; } };
}
