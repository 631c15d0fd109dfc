// Markdown cells: CommonMark with GitHub's extensions (tables, task lists, strikethrough,
// autolinks), parsed by @lezer/markdown (already bundled with CodeMirror) and built as DOM nodes
// from its syntax tree, never from HTML strings. Raw HTML in the source shows as text. Links
// open only http(s) and in-page anchors, in a new tab; images show only when they are inside the
// notebook (data: URLs), since nothing may leave the page; otherwise their description shows.
import { parser, GFM } from '@lezer/markdown';
import { el } from '../dom.js';

const md = parser.configure(GFM);

/** Nodes that are syntax, not content. */
const MARKS = new Set(['QuoteMark', 'HeaderMark', 'EmphasisMark', 'CodeMark', 'ListMark', 'LinkMark', 'StrikethroughMark',
  'TableDelimiter', 'TaskMarker', 'CodeInfo', 'LinkTitle', 'LinkLabel', 'URL']);

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', mdash: '—', ndash: '–', hellip: '…' };

function entity(s) {
  const m = /^&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|(\w+));$/.exec(s);
  if (!m) return s;
  if (m[1] || m[2]) {
    const cp = parseInt(m[1] || m[2], m[1] ? 10 : 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
  }
  return ENTITIES[m[3]] ?? s;
}

const safeHref = (href) => /^(https?:|#)/i.test(href);

function child(node, name) {
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name === name) return c;
  return null;
}

function children(node) {
  const out = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

class Renderer {
  constructor(src) {
    this.src = src;
    this.refs = new Map(); // link reference definitions: label -> url
  }

  text(from, to) { return this.src.slice(from, to); }

  /** Inline content of `node` between `from` and `to`: gaps are text, children are inline nodes. */
  inline(parent, node, from = node.from, to = node.to) {
    let at = from;
    for (const c of children(node)) {
      if (c.to <= from || c.from >= to) continue; // a link's marks and URL lie outside its text
      if (c.from > at) parent.append(this.text(at, c.from));
      this.inlineNode(parent, c);
      at = Math.max(at, c.to);
    }
    if (to > at) parent.append(this.text(at, to));
    return parent;
  }

  /** The content span of a node between its leading and trailing marks. */
  inner(node, markName) {
    const cs = children(node).filter((c) => c.name === markName);
    const from = cs.length ? cs[0].to : node.from;
    const to = cs.length > 1 ? cs[cs.length - 1].from : node.to;
    return [from, to];
  }

  inlineNode(parent, n) {
    const s = this.src;
    switch (n.name) {
      case 'Emphasis': case 'StrongEmphasis': case 'Strikethrough': {
        const tag = n.name === 'Emphasis' ? 'em' : n.name === 'StrongEmphasis' ? 'strong' : 'del';
        const [from, to] = this.inner(n, n.name === 'Strikethrough' ? 'StrikethroughMark' : 'EmphasisMark');
        parent.append(this.inline(el(tag), n, from, to));
        return;
      }
      case 'InlineCode': {
        const [from, to] = this.inner(n, 'CodeMark');
        let t = s.slice(from, to).replace(/\n/g, ' ');
        if (/^ .*[^ ].* $/.test(t)) t = t.slice(1, -1);
        parent.append(el('code', { text: t }));
        return;
      }
      case 'Link': case 'Image': {
        const marks = children(n).filter((c) => c.name === 'LinkMark');
        const url = child(n, 'URL');
        const label = child(n, 'LinkLabel');
        const textFrom = marks[0]?.to ?? n.from;
        const textTo = marks[1]?.from ?? n.to;
        let href = url ? s.slice(url.from, url.to).replace(/^<|>$/g, '') : null;
        if (!href) {
          const key = (label ? s.slice(label.from + 1, label.to - 1) : s.slice(textFrom, textTo)).trim().toLowerCase();
          href = this.refs.get(key) ?? null;
        }
        if (n.name === 'Image') {
          const alt = this.inline(el('span'), n, textFrom, textTo).textContent; // plain text, as CommonMark's alt
          if (href && /^data:image\//i.test(href)) parent.append(el('img', { src: href, alt }));
          else parent.append(`[image: ${alt}]`);
          return;
        }
        // a link within the page (a report's overview to its cells) stays in this tab
        const box = href && safeHref(href) ? el('a', href.startsWith('#') ? { href } : { href, target: '_blank', rel: 'noopener noreferrer' }) : el('span');
        parent.append(this.inline(box, n, textFrom, textTo));
        return;
      }
      case 'Autolink': case 'URL': {
        const u = s.slice(n.from, n.to).replace(/^<|>$/g, '');
        const href = /^www\./i.test(u) ? `https://${u}` : u;
        parent.append(safeHref(href) ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', text: u }) : u);
        return;
      }
      case 'Escape': parent.append(s.slice(n.from + 1, n.to)); return;
      case 'Entity': parent.append(entity(s.slice(n.from, n.to))); return;
      case 'HardBreak': parent.append(el('br')); return;
      default:
        if (MARKS.has(n.name)) return;
        parent.append(s.slice(n.from, n.to)); // HTML tags, comments: as text
    }
  }

  /** Whether a list is loose (its items are paragraphs) or tight (CommonMark §5.3). */
  loose(list) {
    const items = children(list).filter((c) => c.name === 'ListItem');
    for (let k = 0; k < items.length; k++) {
      const blocks = children(items[k]).filter((c) => !MARKS.has(c.name) && c.name !== 'Task');
      for (let j = 1; j < blocks.length; j++) if (/\n[ \t>]*\n/.test(this.text(blocks[j - 1].to, blocks[j].from))) return true;
      if (k + 1 < items.length && /\n[ \t>]*\n/.test(this.text(items[k].to, items[k + 1].from))) return true;
    }
    return false;
  }

  blocks(parent, node, tight = false) {
    for (const c of children(node)) this.block(parent, c, tight);
    return parent;
  }

  block(parent, n, tight) {
    const s = this.src;
    const heading = /^(?:ATX|Setext)Heading(\d)$/.exec(n.name);
    if (heading) {
      const h = el(`h${heading[1]}`);
      const marks = children(n).filter((c) => c.name === 'HeaderMark');
      let from = n.from;
      let to = n.to;
      if (n.name.startsWith('ATX')) {
        if (marks[0]) from = marks[0].to;
        if (marks.length > 1) to = marks[marks.length - 1].from;
      } else if (marks.length) to = marks[marks.length - 1].from;
      this.inline(h, n, from, to);
      h.normalize();
      if (h.firstChild?.nodeType === 3) h.firstChild.textContent = h.firstChild.textContent.trimStart();
      if (h.lastChild?.nodeType === 3) h.lastChild.textContent = h.lastChild.textContent.trimEnd();
      parent.append(h);
      return;
    }
    switch (n.name) {
      case 'Paragraph': {
        if (tight) { this.inline(parent, n); return; }
        parent.append(this.inline(el('p'), n));
        return;
      }
      case 'Blockquote': parent.append(this.blocks(el('blockquote'), n)); return;
      case 'BulletList': case 'OrderedList': {
        const list = el(n.name === 'BulletList' ? 'ul' : 'ol');
        const first = child(child(n, 'ListItem') ?? n, 'ListMark');
        const start = first && n.name === 'OrderedList' ? parseInt(s.slice(first.from, first.to), 10) : 1;
        if (start !== 1) list.setAttribute('start', String(start));
        const isTight = !this.loose(n);
        for (const item of children(n)) {
          if (item.name !== 'ListItem') continue;
          const li = el('li');
          const task = child(item, 'Task');
          if (task) {
            const mark = child(task, 'TaskMarker');
            const done = mark && /x/i.test(s.slice(mark.from, mark.to));
            li.append(el('input', { type: 'checkbox', disabled: true, checked: done }), ' ');
            this.inline(li, task, mark ? mark.to : task.from);
          }
          for (const c of children(item)) if (c.name !== 'Task') this.block(li, c, isTight);
          list.append(li);
        }
        parent.append(list);
        return;
      }
      case 'FencedCode': case 'CodeBlock': {
        const info = child(n, 'CodeInfo');
        const lang = info ? s.slice(info.from, info.to).split(/\s/)[0] : '';
        const text = children(n).filter((c) => c.name === 'CodeText').map((c) => s.slice(c.from, c.to)).join('');
        const lines = n.name === 'CodeBlock' ? s.slice(n.from, n.to).split('\n').map((l) => l.replace(/^ {0,4}/, '')).join('\n') : text;
        parent.append(el('pre', {}, el('code', { class: lang ? `lang-${lang}` : null, text: lines })));
        return;
      }
      case 'HorizontalRule': parent.append(el('hr')); return;
      case 'Table': {
        const table = el('table');
        const head = child(n, 'TableHeader');
        if (head) table.append(el('thead', {}, this.row(head, 'th')));
        const body = el('tbody');
        for (const r of children(n)) if (r.name === 'TableRow') body.append(this.row(r, 'td'));
        table.append(body);
        parent.append(table);
        return;
      }
      case 'LinkReference': return; // a definition: used by links, not shown
      case 'HTMLBlock': case 'CommentBlock': case 'ProcessingInstructionBlock':
        parent.append(el('p', { class: 'raw', text: s.slice(n.from, n.to) }));
        return;
      default:
        if (MARKS.has(n.name)) return;
        parent.append(el('p', { text: s.slice(n.from, n.to) }));
    }
  }

  row(node, tag) {
    const tr = el('tr');
    for (const c of children(node)) if (c.name === 'TableCell') tr.append(this.inline(el(tag), c));
    // a row with fewer cells than the header: empty cells (GFM)
    return tr;
  }
}

/** Renders Markdown source into a DocumentFragment. */
export function renderMarkdown(src) {
  const text = String(src ?? '');
  const tree = md.parse(text);
  const r = new Renderer(text);
  tree.iterate({
    enter: (n) => {
      if (n.name !== 'LinkReference') return true;
      const label = n.node.getChild('LinkLabel');
      const url = n.node.getChild('URL');
      if (label && url) {
        const key = text.slice(label.from + 1, label.to - 1).trim().toLowerCase();
        if (!r.refs.has(key)) r.refs.set(key, text.slice(url.from, url.to).replace(/^<|>$/g, ''));
      }
      return false;
    },
  });
  const frag = document.createDocumentFragment();
  r.blocks(frag, tree.topNode);
  return frag;
}
