// CodeMirror 6 editors for the three cell kinds: JavaScript (code cells), Markdown, and a small
// stream highlighter for HLO / StableHLO dumps. Everything is bundled (no CDN).
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  highlightSpecialChars, placeholder as placeholderExt } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, HighlightStyle, indentOnInput, StreamLanguage,
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
  { tag: t.typeName, color: '#2a6f77' },
  { tag: t.variableName, color: '#3b3b8f' },
  { tag: t.special(t.variableName), color: '#3b3b8f', fontWeight: '600' },
  { tag: t.keyword, color: '#8e2d6b', fontWeight: '600' },
  { tag: t.operatorKeyword, color: '#b8682e', fontWeight: '600' },
  { tag: t.attributeName, color: '#6b6b6b' },
  { tag: t.string, color: '#2e7d32' },
  { tag: t.number, color: '#9a5b00' },
  { tag: t.comment, color: '#8a8a8e', fontStyle: 'italic' },
  { tag: t.meta, color: '#2a6f77', fontWeight: '600' },
]);

const baseTheme = EditorView.theme({
  '&': { fontSize: '12.5px', border: '1px solid #e3e1dc', borderRadius: '6px', background: '#fff' },
  '&.cm-focused': { outline: '2px solid rgba(42,111,119,.45)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace', maxHeight: '24rem', overflow: 'auto' },
  '.cm-content': { padding: '6px 0' },
  '.cm-gutters': { background: '#faf8f4', borderRight: '1px solid #eee', color: '#aaa' },
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
    syntaxHighlighting(kind === 'dump' ? dumpHighlight : defaultHighlightStyle, { fallback: true }),
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
