// GYM·03 spot the decision (skill `spot`).
//
// A program's jaxpr, one button per line, and the prompt "click the first line where the
// framework {upcasts a dtype | makes a hidden broadcast explicit | marks recomputation}". The
// target is the core's first decision of that kind (`parse(text).decisions()`, the call behind
// `hloscope decisions`), computed at run time, never stored. The StableHLO and the optimized HLO
// of the same program are selectable views with their own first line. One click per round; the
// reveal marks the target line and a wrong pick, and says what the line does, then the next round.
//
// Rounds: every capture whose jaxpr holds such a decision (programs without one give no round),
// and the learner's own pasted jaxpr, StableHLO or HLO (one round per kind it holds).
// Keyboard: the lines are one tab stop; arrows, Page Up/Down, Home and End move; Enter or Space
// picks; "next round" takes the focus after a pick.
//
// Attributes read: program (pin one capture id), programs (comma-separated capture ids).

import { h, fill } from '../dom.js';
import { core, errorWords } from '../core.js';
import { XRAY_PROGRAMS, CAPTURE_DIR, optimizedHlo, stablehlo, program, manifest, provenance } from '../corpus.js';
import { jaxpr } from '../jaxprs.js';
import { TARGETS, promptWords, firstDecision, targetsOf, revealSentence, wrongWords } from '../spot-words.js';

const VIEWS = [
  { view: 'jaxpr', label: 'jaxpr', what: 'jax.make_jaxpr(f)(*args)' },
  { view: 'stablehlo', label: 'StableHLO', what: 'jax.jit(f).lower(*args).as_text()' },
  { view: 'hlo', label: 'optimized HLO', what: 'compiled.as_text()' },
];
const MAX_LINES = 20000;
const MAX_SHOWN = 400;

function splitLines(text) {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** { text, decisions, format } of one text, read by the core. */
async function readView(text) {
  const hs = await core();
  const doc = hs.parse(text);
  try {
    const r = doc.decisions();
    return { text, decisions: r.decisions, format: r.format, warnings: r.warnings };
  } finally {
    doc.free();
  }
}

export default {
  skill: 'spot',
  designator: 'GYM·03',
  title: 'spot the decision',

  async mount(ctx) {
    const pool = ctx.pool(XRAY_PROGRAMS);

    const titleEl = h('span', { class: 'k' });
    const codeEl = h('code', { class: 'code' });
    const programEl = h('div', { class: 'prog program' }, titleEl, codeEl);
    const promptId = `${ctx.uid}-prompt`;
    const prompt = h('p', { class: 'prompt', id: promptId });
    const viewButtons = VIEWS.map((v) => h('button', {
      type: 'button', class: 'view', 'data-view': v.view, 'aria-pressed': 'false', onclick: () => setView(v.view),
    }, v.label));
    const views = h('div', { class: 'sources', role: 'group', 'aria-label': 'which text to read' }, viewButtons);
    const viewNote = h('p', { class: 'stat' });
    const list = h('ol', { class: 'lines spot', 'aria-labelledby': promptId });
    const why = h('p', { class: 'why' });
    const wrong = h('p', { class: 'why wrong-pick' });
    const next = h('button', { type: 'button', class: 'next', onclick: () => nextRound(true) }, 'next round →');
    const reveal = h('div', { class: 'reveal', hidden: true }, why, wrong, h('div', { class: 'actions' }, next));
    const status = ctx.loading();
    const own = ctx.ownInput({
      label: 'paste a jaxpr (str(jax.make_jaxpr(f)(*args))), a StableHLO module or an optimized HLO module',
      placeholder: '{ lambda ; a:bf16[64,256]. let …',
      go: (text) => ownRound(text),
    });

    fill(ctx.body, programEl, status, prompt, views, viewNote, list, reveal, own.el);

    let round = null; // { id, prog, target, views: {view: {text, decisions}}, view, pick: {view, line} | null }
    let last = null;
    let token = 0;
    let ownQueue = []; // rounds left from the learner's dump

    ctx.roving(list);

    function draw() {
      const v = round.views[round.view];
      const lines = splitLines(v.text);
      const target = firstDecision(v.decisions, round.target);
      const answered = !!round.pick;
      const rows = lines.slice(0, MAX_LINES).map((text, k) => {
        const n = k + 1;
        const cls = ['ln'];
        if (answered && target && n === target.line) cls.push('hit', 'target');
        if (answered && round.pick.view === round.view && n === round.pick.line && (!target || n !== target.line)) cls.push('extra', 'picked-wrong');
        const b = h('button', {
          type: 'button', class: cls.join(' '), 'data-line': n, tabindex: k === 0 ? '0' : '-1',
          'aria-disabled': answered ? 'true' : 'false',
          onclick: () => answer(n),
        }, h('span', { class: 'no', 'aria-hidden': 'true', text: String(n) }),
        h('span', { class: 'tx', text: text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text }));
        b.setAttribute('aria-label', `line ${n}: ${text.slice(0, 200)}`);
        return h('li', {}, b);
      });
      fill(list, rows);
      for (const b of viewButtons) {
        const has = !!round.views[b.dataset.view];
        b.hidden = !has;
        b.setAttribute('aria-pressed', b.dataset.view === round.view ? 'true' : 'false');
      }
      const vinfo = VIEWS.find((x) => x.view === round.view);
      viewNote.textContent = `${vinfo ? vinfo.label : round.view} · ${lines.length} lines`
        + (target ? '' : ` · no ${round.target} in this view`)
        + (lines.length > MAX_LINES ? ` · the first ${MAX_LINES} shown` : '');
      list.dataset.view = round.view;
      if (answered) showReveal();
    }

    function setView(view) {
      if (!round || !round.views[view] || view === round.view) return;
      round.view = view;
      draw();
    }

    function show(r) {
      round = { ...r, pick: null };
      titleEl.textContent = r.prog.title || '';
      codeEl.textContent = r.prog.code || '';
      programEl.dataset.program = r.id ?? '';
      prompt.textContent = promptWords(r.target);
      prompt.dataset.target = r.target;
      status.hidden = true;
      reveal.hidden = true;
      ctx.clearVerdict();
      draw();
      ctx.round({ program: r.id, target: r.target });
    }

    async function load(id) {
      const [jt, mt, ht, prog] = await Promise.all([
        jaxpr(id), stablehlo(id).catch(() => null), optimizedHlo(id).catch(() => null), program(id).catch(() => ({})),
      ]);
      const v = { jaxpr: await readView(jt) };
      if (mt) v.stablehlo = await readView(mt);
      if (ht) v.hlo = await readView(ht);
      return { id, prog, views: v };
    }

    async function nextRound(focus) {
      const my = ++token;
      reveal.hidden = true;
      ctx.clearVerdict();
      if (ownQueue.length) {
        show(ownQueue.shift());
        ctx.caption('your dump, read by the hloscope core in this page; nothing left the browser');
        if (focus) list.querySelector('.ln')?.focus();
        return;
      }
      status.hidden = false;
      status.textContent = 'loading…';
      let r = null;
      let lastErr = null;
      for (const id of ctx.shuffle(pool, last?.id)) {
        try {
          const got = await load(id);
          const targets = targetsOf(got.views.jaxpr.decisions);
          if (!targets.length) continue; // no decision of these kinds: no round
          const others = targets.filter((t) => !(last && last.id === id && last.target === t));
          const target = (others.length ? others : targets)[Math.floor(Math.random() * (others.length || targets.length))];
          r = { ...got, target, view: 'jaxpr' };
          break;
        } catch (e) { lastErr = e; }
      }
      if (my !== token) return;
      if (!r) {
        status.textContent = `no round: ${lastErr ? errorWords(lastErr) : 'none of these programs holds an upcast, a broadcast or a recomputation mark'}`;
        return;
      }
      last = { id: r.id, target: r.target };
      show(r);
      if (focus) list.querySelector('.ln')?.focus();
      caption(r.id);
    }

    async function caption(id) {
      let prov = null;
      try { prov = provenance(await manifest(id)); } catch { /* no manifest in this build */ }
      ctx.caption(`target found by the hloscope core (doc.decisions(), as hloscope decisions prints it) in ${CAPTURE_DIR}/${id}/jaxpr.txt at run time`,
        prov ? ` · ${prov}` : '');
    }

    function showReveal() {
      const v = round.views[round.view];
      const target = firstDecision(v.decisions, round.target);
      why.textContent = revealSentence(target);
      const pv = round.views[round.pick.view];
      const pickTarget = firstDecision(pv.decisions, round.target);
      wrong.textContent = pickTarget && round.pick.line !== pickTarget.line
        ? `you picked ${wrongWords(pv.decisions, round.pick.line, round.target)}` : '';
      wrong.hidden = !wrong.textContent;
      reveal.hidden = false;
    }

    function answer(line) {
      if (!round || round.pick) return;
      const v = round.views[round.view];
      const target = firstDecision(v.decisions, round.target);
      if (!target) {
        ctx.announce(`this view holds no ${round.target}: pick another view`);
        return;
      }
      round.pick = { view: round.view, line };
      const right = line === target.line;
      draw();
      ctx.verdict(right, revealSentence(target));
      next.focus();
    }

    async function ownRound(text) {
      own.error('');
      if (!text.trim()) { own.error('paste a dump first'); return; }
      let v;
      try {
        v = await readView(text);
      } catch (e) {
        own.error(errorWords(e));
        return;
      }
      const targets = targetsOf(v.decisions);
      if (!targets.length) {
        own.error(`no upcast, broadcast or recomputation mark in this ${v.format}: nothing to spot`);
        return;
      }
      const view = VIEWS.some((x) => x.view === v.format) ? v.format : 'jaxpr';
      const lineCount = splitLines(text).length;
      ownQueue = targets.map((target) => ({
        id: null,
        prog: { title: 'your dump', code: `${v.format} · ${lineCount} lines · ${targets.length} round${targets.length === 1 ? '' : 's'}` },
        views: { [view]: v },
        view,
        target,
      }));
      ++token;
      show(ownQueue.shift());
      ctx.caption('your dump, read by the hloscope core in this page; nothing left the browser');
      list.querySelector('.ln')?.focus();
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

