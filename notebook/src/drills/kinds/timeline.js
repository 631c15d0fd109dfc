// GYM·08 read the timeline (skill `timeline`).
//
// A round is drawn from the timeline of a real profile, computed by the core at run time
// (`parseProfile(bytes).timeline()`), never stored: "which op spent the most time in its own
// code per run?" (self time), "which kernel did no line of the program ask for?" (when the
// profile has one), "did this copy hide behind compute?" (when it has async copies). The words
// are pure functions in ../timeline-words.js. The core's reading of the profile names the op
// with the most time, so the caption shows it only after the answer.
//
// Profiles: the project's own captures (../profiles.js), or the page's own with `src=` (the
// URL of a .xplane.pb, or a .trace.json; same origin), or the learner's: drop or pick a file.
// Attributes read: program (pin one built-in capture id), src, and with src: hlo (the URL of
// the program's optimized HLO dump) and stablehlo (its StableHLO): given both, the core can
// tell a kernel the compiler substituted, and the "which kernel did no line of the program ask
// for?" round can be drawn.

import { h, fill } from '../dom.js';
import { core, errorWords } from '../core.js';
import { timelineRounds } from '../timeline-words.js';
import { TIMELINE_PROGRAMS, PROFILE_DIR, profileBytes } from '../profiles.js';

async function gunzipIfNeeded(bytes) {
  const hs = await core();
  return hs.archiveKind(bytes) === 'gzip' ? hs.gunzip(bytes) : bytes; // the core's sniff, as the CLI's
}

export default {
  skill: 'timeline',
  designator: 'GYM·08',
  title: 'read the timeline',

  async mount(ctx) {
    const src = (ctx.attr('src') || '').trim();
    const hloSrc = (ctx.attr('hlo') || '').trim();
    const stablehloSrc = (ctx.attr('stablehlo') || '').trim();
    const pool = ctx.pool(TIMELINE_PROGRAMS);

    const sourceEl = h('p', { class: 'k program' });
    const promptId = `${ctx.uid}-prompt`;
    const prompt = h('p', { class: 'prompt', id: promptId });
    const choices = h('div', { class: 'choices', role: 'group', 'aria-labelledby': promptId });
    const why = h('p', { class: 'why' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next round →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, h('div', { class: 'actions' }, next));
    const status = ctx.loading();
    const own = ctx.ownInput({
      summary: 'drill me on my profile',
      label: 'pick or drop a jax.profiler file (.xplane.pb, .trace.json, .trace.json.gz)',
      accept: '.pb,.json,.gz',
      go: (file) => ownFile(file),
    });

    fill(ctx.body, sourceEl, status, prompt, choices, reveal, own.el);

    let round = null;
    let last = null;
    let token = 0;
    let own_ = null; // { name, timeline } when the learner gave a profile

    async function timelineOf(bytes, options = {}) {
      const hs = await core();
      const prof = hs.parseProfile(await gunzipIfNeeded(bytes));
      try { return prof.timeline(options); } finally { prof.free(); }
    }

    async function text(url) {
      if (!url) return undefined;
      const r = await fetch(url);
      if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
      return r.text();
    }

    async function load(id) {
      if (id === 'src') {
        const r = await fetch(src);
        if (!r.ok) throw new Error(`${src}: HTTP ${r.status}`);
        const [hlo, stablehlo] = await Promise.all([text(hloSrc), text(stablehloSrc)]);
        return { id: src, label: src, timeline: await timelineOf(new Uint8Array(await r.arrayBuffer()), { hlo, stablehlo }) };
      }
      return { id, label: `${PROFILE_DIR}/${id}/profile.xplane.pb`, timeline: await timelineOf(await profileBytes(id)) };
    }

    function pick(t, lastType) {
      const rs = timelineRounds(t);
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
      let r = null;
      let q = null;
      let lastErr = null;
      if (own_) {
        r = own_;
        q = pick(r.timeline, round?.q?.type);
        if (!q) lastErr = new Error(r.timeline.reading || 'this profile gives no round');
      } else {
        const ids = src ? ['src'] : ctx.shuffle(pool, last);
        for (const id of ids) {
          try {
            r = await load(id);
            q = pick(r.timeline, round?.q?.type);
            if (q) break;
            lastErr = new Error(`${id}: ${r.timeline.reading || 'no round'}`);
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
      last = r.id;
      show(r, q);
      if (focus) choices.querySelector('button')?.focus();
    }

    function show(r, q) {
      round = { r, q, answered: false };
      status.hidden = true;
      sourceEl.textContent = `profile: ${r.label}`;
      sourceEl.dataset.program = r.id ?? '';
      prompt.textContent = q.prompt;
      prompt.dataset.type = q.type;
      const buttons = ctx.shuffle(q.choices).map((c) => h('button', {
        type: 'button', class: 'choice', 'data-value': c.value, onclick: () => answer(c.value),
      }, c.label));
      fill(choices, buttons);
      ctx.round({ program: r.id, type: q.type });
      // The core's reading names the op with the most time: it is said after the answer.
      ctx.caption(`the timeline of ${r.label}, read by the hloscope core at run time`);
    }

    function answer(value) {
      if (!round || round.answered) return;
      round.answered = true;
      const { q } = round;
      const right = value === q.answer;
      for (const b of choices.querySelectorAll('button')) {
        b.setAttribute('aria-disabled', 'true');
        b.classList.add(b.dataset.value === q.answer ? 'correct' : b.dataset.value === value ? 'wrong' : 'dim');
      }
      why.textContent = q.why;
      reveal.hidden = false;
      ctx.caption(`the timeline of ${round.r.label}, read by the hloscope core at run time: ${round.r.timeline.reading}`);
      ctx.verdict(right, q.why);
    }

    async function ownFile(file) {
      own.error('');
      try {
        const t = await timelineOf(new Uint8Array(await file.arrayBuffer()));
        if (!timelineRounds(t).length) { own.error(`no round in ${file.name}: ${t.reading}`); return; }
        own_ = { id: null, label: file.name, timeline: t };
        round = null;
        nextRound(true);
      } catch (e) {
        own.error(`${file.name}: ${errorWords(e)}`);
      }
    }

    await nextRound(false);
    return { destroy() { token++; } };
  },
};
