// DOM helpers for the drills. Text always goes in through textContent (never innerHTML):
// lines of a dump, fusion names and error messages are the user's text, not markup.

// h is the pages' one DOM helper (../dom.js), under the name the drills use.
export { el as h, append, fill } from '../dom.js';

export function plural(n, one, many = one + 's') {
  return `${n} ${n === 1 ? one : many}`;
}

/** "a", "a and b", "a, b and c" */
export function listWords(words) {
  if (words.length <= 1) return words.join('');
  return words.slice(0, -1).join(', ') + ' and ' + words[words.length - 1];
}
