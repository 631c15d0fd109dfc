// A small Markdown renderer that builds DOM nodes (never HTML strings): headings, paragraphs,
// emphasis, inline code, fenced code, lists, block quotes, rules and links. Raw HTML in the
// source shows as text. Links open only http(s) and in-page anchors, in a new tab.
import { el } from '../dom.js';

function inline(text) {
  const out = [];
  // code spans first, then links, then bold / italic
  const re = /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(el('code', { text: m[2].trim() === '' ? m[2] : m[2].replace(/^ (.*) $/, '$1') }));
    else if (m[3] !== undefined) {
      const href = m[4];
      if (/^(https?:|#)/i.test(href)) out.push(el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, ...inline(m[3])));
      else out.push(m[0]);
    } else if (m[5] !== undefined || m[6] !== undefined) out.push(el('strong', {}, ...inline(m[5] ?? m[6])));
    else out.push(el('em', {}, ...inline(m[7] ?? m[8])));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Renders Markdown source into a DocumentFragment. */
export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  const lines = String(src).replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  let para = [];
  const flush = () => {
    if (para.length) frag.append(el('p', {}, ...inline(para.join(' '))));
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (/^\s*$/.test(line)) { flush(); i++; continue; }
    if ((m = /^(\s*)(```+|~~~+)\s*([\w-]*)/.exec(line))) {
      flush();
      const fence = m[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i++;
      frag.append(el('pre', {}, el('code', { class: m[3] ? `lang-${m[3]}` : null, text: body.join('\n') })));
      continue;
    }
    if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      flush();
      frag.append(el(`h${m[1].length}`, {}, ...inline(m[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); frag.append(el('hr')); i++; continue; }
    if (/^\s*>/.test(line)) {
      flush();
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ''));
      const q = el('blockquote');
      q.append(renderMarkdown(body.join('\n')));
      frag.append(q);
      continue;
    }
    if ((m = /^\s*([-*+]|\d+[.)])\s+/.exec(line))) {
      flush();
      const ordered = /\d/.test(m[1]);
      const list = el(ordered ? 'ol' : 'ul');
      while (i < lines.length && (m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]))) {
        const item = [m[2]];
        i++;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) item.push(lines[i++].trim());
        list.append(el('li', {}, ...inline(item.join(' '))));
      }
      frag.append(list);
      continue;
    }
    para.push(line.trim());
    i++;
  }
  flush();
  return frag;
}
