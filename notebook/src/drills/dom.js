// DOM helpers for the drills. Text always goes in through textContent (never innerHTML):
// lines of a dump, fusion names and error messages are the user's text, not markup.

/**
 * h('button', {class: 'x', type: 'button', onclick: fn, 'aria-pressed': 'false'}, 'text', node)
 * Properties starting with "on" become listeners; `class`, `text` and dataset (`data-*`)
 * are set as attributes; `null`/`false` attributes are skipped. Children are strings (text
 * nodes) or nodes; null, false and undefined children are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
}

/** Empties `el` and fills it with `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export function plural(n, one, many = one + 's') {
  return `${n} ${n === 1 ? one : many}`;
}

/** "a", "a and b", "a, b and c" */
export function listWords(words) {
  if (words.length <= 1) return words.join('');
  return words.slice(0, -1).join(', ') + ' and ' + words[words.length - 1];
}
