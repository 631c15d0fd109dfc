// GYM·07 the fusion x-ray, as a scored drill (skill `xray`).
//
// Two columns: what XLA received (StableHLO) and what it decided (optimized HLO). The core's
// `xray(left, right)` classes every line (fusion, carry, hot, dim, plain), says which lines
// carry the program's big intermediate and where each value lives (memory space), and
// explains each line; hovering or focusing a line shows that explanation. The task: "find the
// fusion ops that carry T". The learner toggles lines on the right and checks; the answer is
// right when the set picked equals the right-side lines with class "fusion" and carries true.
// When the core finds no big intermediate (summary.big null) there is no round, and it says so.
//
// Pairs: our CPU captures; the pair the host page names with `src-left` and `src-right`
// (URLs, fetched once; `src-label` names it); and the learner's own pair, pasted.
// `program` picks a capture first; `#xray=<id>` in the page's address switches the first
// x-ray drill on the page to that capture (the fusion-count reveal links there).

import { h, fill, plural, listWords } from '../dom.js';
import { memoryWords, targetLines } from '../words.js';
import { core, errorWords } from '../core.js';
import { XRAY_PROGRAMS, CAPTURE_DIR, optimizedHlo, stablehlo, manifest, provenance } from '../corpus.js';

function splitLines(text) {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const MAX_SHOWN = 600; // characters of a line drawn; the rest (backend_config blobs) is in the note
// Every line of the right side is a button: past this many lines a side, the drill declines
// and points to the notebook's x-ray, which virtualizes its rows.
const MAX_LINES = 20000;

export default {
  skill: 'xray',
  designator: 'GYM·07',
  title: 'the fusion x-ray',

  async mount(ctx) {
    const srcLeft = ctx.attr('src-left');
    const srcRight = ctx.attr('src-right');

    // Source picker.
    const selId = `${ctx.uid}-pair`;
    const select = h('select', { id: selId, onchange: () => choose(select.value, false) });
    const nextBtn = h('button', { type: 'button', class: 'next', onclick: () => nextWithRound(true) }, 'next program with a round →');
    const picker = h('div', { class: 'actions picker' }, h('label', { for: selId, class: 'k', text: 'pair' }), select, nextBtn);

    const stat = h('p', { class: 'stat' });
    const prompt = h('p', { class: 'prompt' });
    const memory = h('p', { class: 'memory' });
    const leftList = h('ol', { class: 'lines left', 'aria-label': 'what XLA received (StableHLO)' });
    const rightList = h('ol', { class: 'lines right', 'aria-label': 'what XLA decided (optimized HLO): toggle the lines you pick' });
    const cols = h('div', { class: 'cols' },
      h('div', { class: 'col' }, h('h4', { text: 'what XLA received (StableHLO)' }), leftList),
      h('div', { class: 'col' }, h('h4', { text: 'what XLA decided (optimized HLO)' }), rightList));
    const explain = h('p', { class: 'explain', 'aria-live': 'off' });
    const legend = h('p', { class: 'legend', text: 'copper lines are fusion ops · underlined lines carry the big intermediate · dim lines are regions, parameters and bookkeeping · S(n) marks a value outside the default memory · hover or focus any line for what it is' });
    const checkBtn = h('button', { type: 'button', class: 'check', onclick: () => check() }, 'check my picks');
    const clearBtn = h('button', { type: 'button', class: 'clear', onclick: () => clearPicks() }, 'clear picks');
    const picked = h('span', { class: 'picked' });
    const actions = h('div', { class: 'actions task' }, checkBtn, clearBtn, picked);
    const result = h('p', { class: 'why', hidden: true });
    const status = ctx.loading();

    // The learner's own pair.
    const lId = `${ctx.uid}-own-left`;
    const rId = `${ctx.uid}-own-right`;
    const ownLeft = h('textarea', { id: lId, spellcheck: 'false', placeholder: 'module @jit_f … (StableHLO)' });
    const ownRight = h('textarea', { id: rId, spellcheck: 'false', placeholder: 'HloModule jit_f … (after optimizations)' });
    const ownErr = h('p', { class: 'error', role: 'alert' });
    const own = h('details', { class: 'own' },
      h('summary', {}, 'x-ray my own pair'),
      h('label', { for: lId, text: 'StableHLO (what XLA received: jax.jit(f).lower(x).as_text())' }), ownLeft,
      h('label', { for: rId, text: 'optimized HLO (what XLA decided: after_optimizations.txt)' }), ownRight,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'own-go', onclick: () => ownPair() }, 'x-ray my pair')),
      ownErr);

    fill(ctx.body, picker, status, stat, memory, prompt, cols, explain, actions, result, legend, own);

    let state = null; // { key, x, targets: Set|null, picks: Set, answered, buttons: Map(line -> el) }
    let token = 0;
    const pairs = new Map(); // key -> { label, left(), right(), caption() }

    // --- sources -------------------------------------------------------------------------
    if (srcLeft && srcRight) {
      const label = ctx.attr('src-label') || 'this page\'s pair';
      let texts = null;
      const get = () => (texts ||= Promise.all([srcLeft, srcRight].map(async (u) => {
        const res = await fetch(u);
        if (!res.ok) throw new Error(`${u}: HTTP ${res.status}`);
        return res.text();
      })));
      pairs.set('page', {
        label,
        texts: get,
        caption: async () => `pair named by this page: ${srcLeft} · ${srcRight}`,
      });
    }
    for (const id of XRAY_PROGRAMS) {
      pairs.set(`capture:${id}`, {
        id,
        label: id,
        texts: () => Promise.all([stablehlo(id), optimizedHlo(id)]),
        caption: async () => {
          let prov = null;
          try { prov = provenance(await manifest(id)); } catch { /* none */ }
          return `${CAPTURE_DIR}/${id}: stablehlo.mlir and after_optimizations.txt${prov ? ` · ${prov}` : ''} · classes, carriers and notes computed by the hloscope core in this page`;
        },
      });
    }

    function keyFromHash() {
      const m = /(?:^#|&)xray=([a-z0-9_]+)/.exec(location.hash || '');
      return m && pairs.has(`capture:${m[1]}`) ? `capture:${m[1]}` : null;
    }

    function firstXray() {
      return document.querySelector('xla-drill[skill="xray"]') === ctx.host;
    }

    const onHash = () => {
      const key = keyFromHash();
      if (key && firstXray()) {
        choose(key, true);
        ctx.host.scrollIntoView?.({ block: 'start' });
      }
    };
    window.addEventListener('hashchange', onHash);

    // --- rendering -----------------------------------------------------------------------
    function lineNote(side, l, text) {
      const parts = [`${side} · line ${l.line}`, l.class];
      if (l.carries && state?.x?.summary?.big) parts.push(`carries ${state.x.summary.big.type}`);
      const mw = memoryWords(l.memory_space);
      if (mw) parts.push(mw);
      let out = `${parts.join(' · ')}: ${l.note || 'nothing to say about this line'}`;
      if (text.length > MAX_SHOWN) out += ` (line shortened on screen; ${text.length} characters)`;
      return out;
    }

    ctx.roving(leftList);
    ctx.roving(rightList);

    function drawSide(list, side, text, xlines, interactive) {
      const byLine = new Map(xlines.map((l) => [l.line, l]));
      const rows = [];
      const buttons = new Map();
      splitLines(text).forEach((src, k) => {
        const n = k + 1;
        const l = byLine.get(n) || { line: n, class: 'plain', carries: false, memory_space: null, note: '' };
        const cls = `ln c-${l.class}${l.carries ? ' carries' : ''}`;
        const shown = src.length > MAX_SHOWN ? `${src.slice(0, MAX_SHOWN)}…` : src;
        const kids = [
          h('span', { class: 'no', 'aria-hidden': 'true', text: String(n) }),
          h('span', { class: 'tx', text: shown }),
          l.memory_space ? h('span', { class: 'ms', text: `S(${l.memory_space})` }) : null,
        ];
        const note = lineNote(side, l, src);
        const el = interactive
          ? h('button', { type: 'button', class: cls, 'aria-pressed': 'false', 'data-line': n, 'data-class': l.class, tabindex: '-1',
            'aria-description': note, onclick: () => toggle(n) }, kids)
          : h('div', { class: cls, 'data-line': n, 'data-class': l.class, tabindex: '-1', role: 'note', 'aria-description': note }, kids);
        const say = () => { explain.textContent = note; };
        el.addEventListener('mouseenter', say);
        el.addEventListener('focus', say);
        if (interactive) buttons.set(n, el);
        rows.push(h('li', {}, el));
      });
      if (rows.length) rows[0].firstChild.tabIndex = 0;
      fill(list, rows);
      return buttons;
    }

    function showPicked() {
      if (!state) return;
      picked.textContent = state.picks.size ? `picked: line${state.picks.size === 1 ? '' : 's'} ${[...state.picks].sort((a, b) => a - b).join(', ')}` : 'picked: none';
    }

    function toggle(n) {
      if (!state || !state.targets || state.answered) return;
      const b = state.buttons.get(n);
      if (state.picks.has(n)) state.picks.delete(n); else state.picks.add(n);
      b.setAttribute('aria-pressed', state.picks.has(n) ? 'true' : 'false');
      showPicked();
    }

    function clearPicks() {
      if (!state || state.answered) return;
      for (const n of state.picks) state.buttons.get(n)?.setAttribute('aria-pressed', 'false');
      state.picks.clear();
      showPicked();
    }

    function render(key, x, texts) {
      const targets = targetLines(x);
      const ms = x.summary.big ? memoryWords(x.summary.big.memory_space) : null;
      state = { key, x, targets: targets ? new Set(targets) : null, picks: new Set(), answered: false, buttons: new Map() };
      status.hidden = true;
      stat.textContent = x.summary.stat;
      drawSide(leftList, 'left', texts[0], x.left, false);
      state.buttons = drawSide(rightList, 'right', texts[1], x.right, true);
      result.hidden = true;
      result.className = 'why';
      if (x.summary.big) {
        prompt.textContent = `find the fusion ops that carry ${x.summary.big.type}: toggle every such line on the right (none is a possible answer), then check`;
        memory.textContent = `${x.summary.big.type} (${plural(x.summary.big.bytes, 'byte')}) lives in ${ms}`;
        memory.hidden = false;
        actions.hidden = false;
        for (const b of [checkBtn, clearBtn]) b.setAttribute('aria-disabled', 'false');
        showPicked();
      } else {
        prompt.textContent = 'no round for this pair: the core finds no big intermediate (only inputs and outputs cross a kernel boundary), so there is nothing to find. Read it, or pick another pair.';
        memory.hidden = true;
        actions.hidden = true;
        ctx.announce(`no round for ${pairs.get(key)?.label ?? 'this pair'}: no big intermediate crosses a kernel boundary`);
      }
      ctx.round({ program: pairs.get(key)?.id ?? null, round: !!x.summary.big });
    }

    async function compute(key) {
      const p = pairs.get(key);
      const texts = await p.texts();
      const hs = await core();
      return { x: hs.xray(texts[0], texts[1]), texts };
    }

    async function choose(key, focus) {
      const my = ++token;
      if (select.value !== key) select.value = key;
      ctx.clearVerdict();
      status.hidden = false;
      status.textContent = 'x-raying…';
      let r;
      try {
        r = await compute(key);
      } catch (e) {
        if (my !== token) return;
        status.textContent = `this pair cannot be x-rayed: ${errorWords(e)}`;
        fill(leftList); fill(rightList);
        stat.textContent = ''; prompt.textContent = ''; memory.hidden = true; actions.hidden = true;
        state = null;
        return;
      }
      if (my !== token) return;
      render(key, r.x, r.texts);
      const cap = await pairs.get(key).caption().catch(() => '');
      if (my === token) ctx.caption(cap);
      if (focus) (rightList.querySelector('.ln[tabindex="0"]') || select).focus();
    }

    async function available() {
      // Captures present in this build: probe each once (they are bundled, so this is local).
      const keys = [];
      for (const [key, p] of pairs) {
        if (key === 'page' || key === 'own') { keys.push(key); continue; }
        try { await p.texts(); keys.push(key); } catch { pairs.delete(key); }
      }
      return keys;
    }

    async function nextWithRound(focus) {
      const keys = ctx.shuffle([...pairs.keys()].filter((k) => k.startsWith('capture:')), state?.key);
      for (const k of keys) {
        try {
          const { x } = await compute(k);
          if (x.summary.big) return choose(k, focus);
        } catch { /* skip pairs the core rejects */ }
      }
      if (!state && keys.length) return choose(keys[0], focus);
      ctx.announce('none of the captures in this build has a big intermediate to find');
    }

    function check() {
      if (!state || !state.targets || state.answered) return;
      state.answered = true;
      for (const b of [checkBtn, clearBtn]) b.setAttribute('aria-disabled', 'true');
      const t = state.targets;
      const p = state.picks;
      const right = t.size === p.size && [...t].every((n) => p.has(n));
      for (const [n, b] of state.buttons) {
        if (t.has(n) && p.has(n)) b.classList.add('hit');
        else if (t.has(n)) b.classList.add('missed');
        else if (p.has(n)) b.classList.add('extra');
      }
      const big = state.x.summary.big;
      const names = [...t].sort((a, b) => a - b).map((n) => `line ${n}`);
      const missed = [...t].filter((n) => !p.has(n)).sort((a, b) => a - b);
      const extra = [...p].filter((n) => !t.has(n)).sort((a, b) => a - b);
      let words = t.size
        ? `The fusion ops that carry ${big.type}: ${listWords(names)}.`
        : `No fusion op carries ${big.type}: the lines that carry it are not fusions.`;
      if (missed.length) words += ` Missed: line${missed.length === 1 ? '' : 's'} ${missed.join(', ')}.`;
      if (extra.length) words += ` Picked, but not a fusion op carrying it: line${extra.length === 1 ? '' : 's'} ${extra.join(', ')}.`;
      const carryLines = state.x.right.filter((l) => l.carries).length;
      words += ` ${plural(carryLines, 'line')} on the right carr${carryLines === 1 ? 'ies' : 'y'} it in all; ${state.x.summary.big.memory_space === 0 ? 'it is materialized in the default memory: a spill' : `it sits in S(${state.x.summary.big.memory_space})`}.`;
      result.textContent = words;
      result.hidden = false;
      ctx.verdict(right, words);
    }

    async function ownPair() {
      ownErr.textContent = '';
      const l = ownLeft.value;
      const r = ownRight.value;
      if (!l.trim() || !r.trim()) { ownErr.textContent = 'paste both sides: the StableHLO and the optimized HLO'; return; }
      const counts = [l, r].map((t) => splitLines(t).length);
      if (Math.max(...counts) > MAX_LINES) {
        ownErr.textContent = `this pair has ${counts[0]} and ${counts[1]} lines; the drill draws at most ${MAX_LINES} a side (open it in the notebook's x-ray, which reads any size)`;
        return;
      }
      try {
        const hs = await core();
        hs.xray(l, r); // fails early with the core's own message
      } catch (e) {
        ownErr.textContent = errorWords(e);
        return;
      }
      pairs.set('own', { label: 'your pair', texts: async () => [l, r], caption: async () => 'your pair, x-rayed by the hloscope core in this page; nothing left the browser' });
      fillSelect();
      await choose('own', true);
    }

    function fillSelect() {
      fill(select, [...pairs].map(([key, p]) => h('option', { value: key, text: p.label })));
    }

    try {
      await core();
    } catch (e) {
      status.textContent = `the drill needs the hloscope core: ${errorWords(e)}`;
      return { destroy() { token++; window.removeEventListener('hashchange', onHash); } };
    }
    await available();
    fillSelect();
    if (!pairs.size) {
      status.textContent = 'no pair to x-ray in this build: paste your own below';
    } else {
      const pinned = ctx.attr('program');
      const first = (firstXray() && keyFromHash())
        || (pinned && pairs.has(`capture:${pinned}`) ? `capture:${pinned}` : null)
        || (pairs.has('page') ? 'page' : null);
      if (first) {
        await choose(first, false);
        if (first === keyFromHash()) ctx.host.scrollIntoView?.({ block: 'start' });
      }
      else await nextWithRound(false);
    }
    return {
      destroy() {
        token++;
        window.removeEventListener('hashchange', onHash);
      },
    };
  },
};
