// CodeMirror 6 editors for the three cell kinds: JavaScript (code cells), Markdown, and a small
// stream highlighter for HLO / StableHLO dumps. Everything is bundled (no CDN).
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  highlightSpecialChars, placeholder as placeholderExt } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, HighlightStyle, indentOnInput, StreamLanguage,
  syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { javascript } from '@codemirror/lang-javascript';
import { markdown } from '@codemirror/lang-markdown';

const HLO_TYPE = /^(?:pred|token|s(?:2|4|8|16|32|64)|u(?:2|4|8|16|32|64)|f(?:16|32|64)|bf16|c64|c128|f8e\w+|f4e\w+)(?=\[)/;
const KEYWORDS = /^(?:ROOT|ENTRY|HloModule|module|func\.func|func\.return|return|public|private|attributes|applies|across|dimensions|init)\b/;

/** A stream tokenizer good enough for HLO, StableHLO and jaxpr text (highlighting only). */
const dumpLanguage = StreamLanguage.define({
  name: 'xla-dump',
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match('//') || stream.match(/^#(?![\w])/)) { stream.skipToEnd(); return 'comment'; }
    if (stream.peek() === '"') {
      stream.next();
      let esc = false;
      for (let c = stream.next(); c !== undefined && c !== null; c = stream.next()) {
        if (c === '"' && !esc) break;
        esc = c === '\\' && !esc;
      }
      return 'string';
    }
    if (stream.match(/^%[\w.\-]+/)) return 'variableName';
    if (stream.match(/^@[\w.\-$]+/)) return 'variableName.special';
    if (stream.match(HLO_TYPE)) return 'typeName';
    if (stream.match(/^tensor<[^>]*>/)) return 'typeName';
    if (stream.match(KEYWORDS)) return 'keyword';
    if (stream.match(/^(?:stablehlo|mhlo|chlo|func|tpu|arith)\.[\w.]+/)) return 'operatorKeyword';
    if (stream.match(/^[a-z_][\w\-]*(?==)/)) return 'attributeName';
    if (stream.match(/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/i)) return 'number';
    if (stream.match(/^[a-z][\w\-]*(?=\()/)) return 'operatorKeyword';
    if (stream.match(/^S\(\d+\)/)) return 'meta';
    stream.next();
    return null;
  },
  tokenTable: { 'variableName.special': t.special(t.variableName) },
});

const dumpHighlight = HighlightStyle.define([
  { tag: t.typeName, color: 'var(--accent)' },
  { tag: t.variableName, color: 'var(--steel)' },
  { tag: t.special(t.variableName), color: 'var(--steel)', fontWeight: '600' },
  { tag: t.keyword, color: 'var(--ink)', fontWeight: '700' },
  { tag: t.operatorKeyword, color: 'var(--copper)', fontWeight: '600' },
  { tag: t.attributeName, color: 'var(--dim)' },
  { tag: t.string, color: 'var(--good)' },
  { tag: t.number, color: 'var(--copper)' },
  { tag: t.comment, color: 'var(--dim)', fontStyle: 'italic' },
  { tag: t.meta, color: 'var(--accent)', fontWeight: '600' },
]);

/** Code and Markdown highlighting in the design tokens (AA in light and dark). */
const codeHighlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword], color: 'var(--ink)', fontWeight: '700' },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--good)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--copper)' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--dim)', fontStyle: 'italic' },
  { tag: [t.variableName, t.definition(t.variableName), t.propertyName, t.function(t.variableName)], color: 'var(--steel)' },
  { tag: [t.heading], fontWeight: '700', color: 'var(--ink)' },
  { tag: [t.link, t.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: [t.emphasis], fontStyle: 'italic' },
  { tag: [t.strong], fontWeight: '700' },
  { tag: [t.monospace, t.processingInstruction, t.meta], color: 'var(--accent)' },
  { tag: t.invalid, color: 'var(--bad)' },
]);

const baseTheme = EditorView.theme({
  '&': { fontSize: '12.5px', border: '1px solid var(--line)', borderRadius: '6px', background: 'var(--surface)', color: 'var(--ink)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-1px' },
  '.cm-cursor': { borderLeftColor: 'var(--ink)' },
  '.cm-activeLine': { background: 'var(--surface-2)' },
  '.cm-activeLineGutter': { background: 'var(--surface-2)' },
  '.cm-placeholder': { color: 'var(--dim)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { background: 'var(--copper-bg) !important' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace', maxHeight: '24rem', overflow: 'auto' },
  '.cm-content': { padding: '6px 0' },
  '.cm-gutters': { background: 'var(--surface-2)', borderRight: '1px solid var(--line)', color: 'var(--dim)' },
});

/**
 * Creates an editor. kind: 'code' | 'markdown' | 'dump'. onChange(text) after each edit;
 * onRun() on Shift+Enter (and Ctrl/Cmd+Enter).
 */
export function createEditor({ parent, kind, doc = '', onChange, onRun, placeholder }) {
  const lang = kind === 'code' ? javascript() : kind === 'markdown' ? markdown() : dumpLanguage;
  const runKeys = keymap.of([
    { key: 'Shift-Enter', run: () => { onRun?.(); return true; } },
    { key: 'Mod-Enter', run: () => { onRun?.(); return true; } },
    { key: 'Mod-s', preventDefault: true, run: () => true }, // saving is automatic
  ]);
  const extensions = [
    runKeys,
    kind === 'markdown' ? [] : lineNumbers(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    kind === 'code' ? [indentOnInput(), bracketMatching()] : [],
    highlightActiveLine(),
    kind === 'markdown' ? [] : highlightActiveLineGutter(),
    lang,
    syntaxHighlighting(kind === 'dump' ? dumpHighlight : codeHighlight, { fallback: true }),
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    EditorView.lineWrapping,
    baseTheme,
    placeholder ? placeholderExt(placeholder) : [],
    EditorView.contentAttributes.of({ 'aria-label': `${kind} cell editor`, spellcheck: 'false' }),
    EditorView.updateListener.of((u) => { if (u.docChanged) onChange?.(u.state.doc.toString()); }),
    // CodeMirror's accessible Tab: arriving by keyboard, Tab moves on to the next control; once
    // the user presses into the editor (a click), Tab indents. Escape then Tab, or Ctrl+M, leaves.
    EditorView.domEventHandlers({
      mousedown: (e, v) => { v.setTabFocusMode(false); return false; },
      blur: (e, v) => { v.setTabFocusMode(true); return false; },
    }),
  ];
  if (kind === 'dump') extensions.splice(extensions.indexOf(EditorView.lineWrapping), 1);
  const view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  view.setTabFocusMode(true);
  return {
    view,
    get text() { return view.state.doc.toString(); },
    set text(v) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: v } });
    },
    focus() { view.focus(); },
    destroy() { view.destroy(); },
  };
}
