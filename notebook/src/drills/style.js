// The drills' stylesheet, inside each element's shadow root so a host page's CSS cannot
// break it and it cannot break the host page. Colours follow the course (copper for fusion,
// green for right, red for wrong) and can be overridden with the custom properties below.
export const STYLE = `
:host { display: block; margin: 1.25rem 0;
  /* the design tokens (../design.js) where the page has them; the course's dark colours else */
  --xd-bg: var(--surface, #14171a); --xd-ink: var(--ink, #d6d9dc); --xd-mute: var(--dim, #8f969c); --xd-rule: var(--line, #2b3036);
  --xd-copper: var(--copper, #c88a70); --xd-pass: var(--good, #5fb58a); --xd-fail: var(--bad, #d9695c); --xd-focus: var(--focus, #7fb4ff);
  font-family: 'IBM Plex Mono', ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
[hidden] { display: none !important; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.drill { background: var(--xd-bg); color: var(--xd-ink); border: 1px solid var(--xd-rule); border-radius: 3px; padding: 0.9rem 1rem;
  /* names and paths are long unbroken words: they wrap anywhere rather than push the page sideways */
  overflow-wrap: anywhere; min-width: 0; }
pre { max-width: 100%; overflow-x: auto; }
.head { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; flex-wrap: wrap;
  border-bottom: 1px solid var(--xd-rule); padding-bottom: 0.6rem; }
.title { margin: 0; font-size: 0.95rem; font-weight: 600; }
.designator { color: var(--xd-copper); letter-spacing: 0.05em; }
.streak { color: var(--xd-copper); font-size: 0.8rem; }
.streak .best { color: var(--xd-mute); }
.body { padding-top: 0.6rem; }
.prog { display: flex; flex-direction: column; gap: 0.25rem; }
.k { font-size: 0.7rem; letter-spacing: 0.1em; text-transform: uppercase; color: var(--xd-mute); }
code, .code { font-family: inherit; }
.args, .memory, .picked { font-size: 0.75rem; color: var(--xd-mute); }
.memory { margin: 0 0 0.4rem; }
.program code { color: var(--xd-copper); font-size: 0.9rem; white-space: pre-wrap; }
.prompt { margin: 0.7rem 0 0.55rem; font-size: 0.85rem; }
.choices, .actions { display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: center; }
button { background: transparent; color: var(--xd-ink); border: 1px solid var(--xd-rule); border-radius: 2px;
  font: inherit; font-size: 0.85rem; padding: 0.35rem 0.9rem; cursor: pointer; }
button:hover:not(:disabled) { border-color: var(--xd-copper); color: var(--xd-copper); }
button:disabled { cursor: default; opacity: 0.75; }
button:focus-visible, a:focus-visible, textarea:focus-visible, [tabindex]:focus-visible, summary:focus-visible {
  outline: 2px solid var(--xd-focus); outline-offset: 2px; }
button.correct { border-color: var(--xd-pass); color: var(--xd-pass); }
button.wrong { border-color: var(--xd-fail); color: var(--xd-fail); }
button.dim { opacity: 0.45; }
a { color: var(--xd-copper); }
.reveal { display: flex; flex-direction: column; gap: 0.5rem; padding-top: 0.8rem; }
.reveal p { margin: 0; font-size: 0.82rem; line-height: 1.6; max-width: 75ch; }
.bodies { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.3rem; }
.bodies li { font-size: 0.78rem; border-left: 2px solid var(--xd-copper); padding-left: 0.6rem; }
.bodies .fname { color: var(--xd-mute); }
.verdict { min-height: 1.2em; margin: 0.7rem 0 0; font-size: 0.85rem; }
.verdict.right { color: var(--xd-pass); }
.verdict.wrong { color: var(--xd-fail); }
.note { margin: 0.5rem 0 0; font-size: 0.75rem; color: var(--xd-fail); }
.error { color: var(--xd-fail); font-size: 0.82rem; white-space: pre-wrap; }
.caption { margin: 0.8rem 0 0; padding-top: 0.55rem; border-top: 1px solid var(--xd-rule); font-size: 0.72rem; color: var(--xd-mute); line-height: 1.6; }
details.own { margin-top: 0.9rem; font-size: 0.8rem; }
details.xray-inline { width: 100%; margin-top: 0; }
.inline-xray { margin-top: 0.5rem; padding: 0.6rem; background: var(--paper, #f6f4ee); color: var(--ink, #1d1f21); border-radius: 3px; }
.inline-xray xla-xray { display: block; width: 100%; }
details.own summary { cursor: pointer; color: var(--xd-mute); }
details.own label { display: block; margin: 0.5rem 0 0.25rem; color: var(--xd-mute); font-size: 0.75rem; }
textarea { width: 100%; box-sizing: border-box; min-height: 6rem; background: var(--bg, #0e1012); color: var(--xd-ink);
  border: 1px solid var(--xd-rule); font: inherit; font-size: 0.75rem; padding: 0.4rem; }
.stat { font-size: 0.78rem; color: var(--xd-mute); margin: 0 0 0.4rem; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 0.75rem; }
@media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
.col { min-width: 0; }
.col h4 { margin: 0 0 0.3rem; font-size: 0.72rem; font-weight: 400; letter-spacing: 0.08em; text-transform: uppercase; color: var(--xd-mute); }
.lines { margin: 0; padding: 0; list-style: none; max-height: 28rem; overflow: auto; border: 1px solid var(--xd-rule); font-size: 0.72rem; }
.ln { display: flex; gap: 0.5rem; width: 100%; text-align: left; border: 0; border-radius: 0; padding: 0.05rem 0.4rem;
  font-size: 0.72rem; line-height: 1.45; white-space: pre; color: var(--xd-ink); background: transparent; }
.ln .no { color: var(--xd-mute); min-width: 2.5em; text-align: right; user-select: none; }
.ln .tx { overflow: hidden; text-overflow: ellipsis; }
.ln .ms { margin-left: auto; color: var(--xd-mute); padding-left: 0.5rem; }
.ln.c-fusion { color: var(--xd-copper); }
.ln.c-dim { color: var(--xd-mute); }
.ln.c-hot { color: var(--accent, #e0c27a); }
.ln.carries .tx { text-decoration: underline; text-underline-offset: 3px; }
.ln:hover, .ln.active { background: var(--surface-2, #1f2429); }
.ln[aria-pressed="true"] { background: var(--copper-bg, #2a2520); outline: 1px solid var(--xd-copper); outline-offset: -1px; }
.ln.hit { background: color-mix(in srgb, var(--xd-pass) 16%, transparent); }
.ln.missed { background: color-mix(in srgb, var(--xd-copper) 16%, transparent); }
.ln.extra { background: color-mix(in srgb, var(--xd-fail) 16%, transparent); }
.explain { min-height: 2.6em; font-size: 0.78rem; margin: 0.5rem 0 0; color: var(--xd-ink); }
.legend { font-size: 0.72rem; color: var(--xd-mute); margin: 0.4rem 0 0; }
.sides { list-style: none; margin: 0; padding: 0; font-size: 0.8rem; }
.sides li::before { content: '· '; color: var(--xd-mute); }
pre.src { margin: 0.4rem 0 0; font-size: 0.75rem; white-space: pre-wrap; color: var(--xd-copper); }
details.source { margin-top: 0.2rem; }
.context-box { margin-top: 0.6rem; display: flex; flex-direction: column; gap: 0.3rem; }
button.choice { max-width: 100%; text-align: left; }
button.choice .clabel { display: block; }
button.choice .cnote { display: block; font-size: 0.7rem; color: var(--xd-mute); }
.core-verdict { color: var(--xd-ink); }
.sources { display: flex; gap: 0.4rem; flex-wrap: wrap; margin-bottom: 0.5rem; }
.sources button[aria-pressed="true"] { border-color: var(--xd-copper); color: var(--xd-copper); }
`;
