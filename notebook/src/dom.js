// The one DOM helper of the pages, views and drills. Text always goes in through textContent
// (never innerHTML): lines of a dump, fusion names and error messages are the user's text, not
// markup, and el() has no way to set HTML.

/**
 * el('button', { class: 'x', type: 'button', onclick: fn, 'aria-pressed': 'false' }, 'text', node)
 * Attributes: `class`, `text` (textContent), `dataset` (an object), `on*` functions (listeners),
 * anything else as an attribute (`true` -> present and empty); null, undefined and false are
 * skipped. Children: nodes, or strings and numbers (text nodes), in nested arrays too; null,
 * undefined and false are skipped.
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  return append(e, children);
}

/** Appends children (as el() takes them) to `e`; returns `e`. */
export function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Empties `e` and fills it with `children`. */
export function fill(e, ...children) {
  e.replaceChildren();
  return append(e, children);
}
