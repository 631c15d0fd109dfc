// Markdown cells read CommonMark (issue 17, item 17): the spec's own examples, as @lezer/markdown's
// test suite carries them (revision 0.29 of the CommonMark spec, each example's input with its
// syntax tree written around it), are rendered in Chromium, and the DOM holds exactly the
// elements the spec's tree names: headings, emphasis, code, lists, quotes, breaks, rules. Links
// open only http(s) and in-page anchors; raw HTML is text; nothing is fetched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openPage, repoRoot, serveDist, skipWithoutChromium, waitForNotebook } from './harness.mjs';

const SUITE = join(repoRoot, 'node_modules/@lezer/markdown/test/test-markdown.ts');
const ABBREV = {
  CB: 'CodeBlock', FC: 'FencedCode', Q: 'Blockquote', HR: 'HorizontalRule', BL: 'BulletList', OL: 'OrderedList', LI: 'ListItem',
  H1: 'ATXHeading1', H2: 'ATXHeading2', H3: 'ATXHeading3', H4: 'ATXHeading4', H5: 'ATXHeading5', H6: 'ATXHeading6',
  SH1: 'SetextHeading1', SH2: 'SetextHeading2', HB: 'HTMLBlock', PI: 'ProcessingInstructionBlock', CMB: 'CommentBlock',
  LR: 'LinkReference', P: 'Paragraph', Esc: 'Escape', Ent: 'Entity', BR: 'HardBreak', Em: 'Emphasis', St: 'StrongEmphasis',
  Ln: 'Link', Al: 'Autolink', Im: 'Image', C: 'InlineCode', HT: 'HTMLTag', CM: 'Comment', Pi: 'ProcessingInstruction',
};

/** The CommonMark examples of @lezer/markdown's suite: [{ name, doc, nodes: { NodeName: count } }]. */
function examples() {
  const src = readFileSync(SUITE, 'utf8');
  const out = [];
  const re = /test\("([^"]+\(example \d+\))", `((?:[^`\\]|\\.)*)`\)/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const spec = m[2].replace(/\\(.)/g, '$1').replace(/^\n/, '');
    let doc = '';
    const nodes = {};
    for (let i = 0; i < spec.length; i++) {
      if (spec[i] === '{') {
        const name = /^(\w+):/.exec(spec.slice(i + 1));
        const full = ABBREV[name[1]] || name[1];
        nodes[full] = (nodes[full] || 0) + 1;
        i += name[0].length;
      } else if (spec[i] !== '}') doc += spec[i];
    }
    out.push({ name: m[1], doc, nodes });
  }
  return out;
}

const SECTIONS = /^(ATX headings|Setext headings|Thematic breaks|Fenced code blocks|Indented code blocks|Block quotes|List items|Lists|Code spans|Emphasis and strong emphasis|Hard line breaks|Paragraphs|Links|Images|Autolinks|Raw HTML) \(/;

describe('markdown cells read CommonMark', { skip: skipWithoutChromium ?? (!existsSync(SUITE) && `${SUITE} is absent`) ?? false, timeout: 120000 }, () => {
  let server;
  let chrome;
  before(async () => {
    server = await serveDist();
    chrome = await launch();
  });
  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  test('the spec examples render as the spec\'s syntax trees say', async (t) => {
    const p = await openPage(chrome.browser, server.url);
    t.after(() => p.close());
    await waitForNotebook(p.page);
    const cases = examples().filter((e) => SECTIONS.test(e.name));
    assert.ok(cases.length > 300, `${cases.length} examples`);
    const got = await p.page.evaluate((docs) => docs.map((doc) => {
      const box = document.createElement('div');
      box.append(window.hloscopeNotebook.renderMarkdown(doc));
      const n = (sel) => box.querySelectorAll(sel).length;
      return {
        h: n('h1,h2,h3,h4,h5,h6'), em: n('em'), strong: n('strong'), code: n(':not(pre) > code'), pre: n('pre'), li: n('li'),
        ul: n('ul'), ol: n('ol'), blockquote: n('blockquote'), hr: n('hr'), br: n('br'),
        hrefs: [...box.querySelectorAll('a')].map((a) => a.getAttribute('href')), img: [...box.querySelectorAll('img')].map((i) => i.getAttribute('src')),
        scripts: n('script, iframe, object, style'),
      };
    }), cases.map((c) => c.doc));
    const want = (nodes) => ({
      h: ['ATXHeading1', 'ATXHeading2', 'ATXHeading3', 'ATXHeading4', 'ATXHeading5', 'ATXHeading6', 'SetextHeading1', 'SetextHeading2'].reduce((s, k) => s + (nodes[k] || 0), 0),
      em: nodes.Emphasis || 0, strong: nodes.StrongEmphasis || 0, code: nodes.InlineCode || 0,
      pre: (nodes.FencedCode || 0) + (nodes.CodeBlock || 0), li: nodes.ListItem || 0, ul: nodes.BulletList || 0, ol: nodes.OrderedList || 0,
      blockquote: nodes.Blockquote || 0, hr: nodes.HorizontalRule || 0, br: nodes.HardBreak || 0,
    });
    const wrong = [];
    cases.forEach((c, k) => {
      const w = want(c.nodes);
      const g = got[k];
      // An image's description is its alt text, plain (CommonMark renders no <em> there).
      if (c.name.startsWith('Images')) for (const key of ['em', 'strong', 'code']) w[key] = g[key];
      for (const key of Object.keys(w)) if (w[key] !== g[key]) wrong.push(`${c.name}: ${key} ${g[key]}, the spec's tree says ${w[key]}`);
      for (const h of g.hrefs) if (!/^(https?:|#)/i.test(h)) wrong.push(`${c.name}: a link to ${h}`);
      for (const s of g.img) if (!/^data:image\//i.test(s)) wrong.push(`${c.name}: an image from ${s}`);
      if (g.scripts) wrong.push(`${c.name}: raw HTML became elements`);
    });
    assert.deepEqual(wrong, []);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.external, []);
  });

  test('GFM: a table, a task list and strikethrough', async (t) => {
    const p = await openPage(chrome.browser, server.url);
    t.after(() => p.close());
    await waitForNotebook(p.page);
    const r = await p.page.evaluate(() => {
      const box = document.createElement('div');
      box.append(window.hloscopeNotebook.renderMarkdown('| op | bytes |\n|---|---|\n| fusion | 2 MB |\n\n- [x] read the dump\n- [ ] x-ray it\n\n~~spill~~'));
      return { th: [...box.querySelectorAll('th')].map((x) => x.textContent), td: [...box.querySelectorAll('td')].map((x) => x.textContent),
        checks: [...box.querySelectorAll('li input[type=checkbox]')].map((x) => x.checked), del: box.querySelector('del')?.textContent };
    });
    assert.deepEqual(r, { th: ['op', 'bytes'], td: ['fusion', '2 MB'], checks: [true, false], del: 'spill' });
  });
});
