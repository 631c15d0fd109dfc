// GYM·03's answers and words, from the core's decisions (`doc.decisions()`): pure functions,
// no DOM and no wasm, so tests/node/decisions.test.mjs runs them on the same core output the
// drill sees. The targets are what the course asks for: the first line where the framework
// upcasts a dtype, makes a hidden broadcast explicit, or marks recomputation.

export const TARGETS = [
  { target: 'upcast', prompt: 'upcasts a dtype', noun: 'an upcast' },
  { target: 'broadcast', prompt: 'makes a hidden broadcast explicit', noun: 'a broadcast' },
  { target: 'remat', prompt: 'marks recomputation', noun: 'a recomputation mark' },
];

/** "click the first line where the framework upcasts a dtype" */
export function promptWords(target) {
  const t = TARGETS.find((x) => x.target === target);
  return `click the first line where the framework ${t ? t.prompt : target}`;
}

/** The first decision of that kind (decisions come sorted by line), or null. */
export function firstDecision(decisions, target) {
  return (decisions || []).find((d) => d.kind === target) || null;
}

/** The targets a dump offers a round for, in the course's order. */
export function targetsOf(decisions) {
  return TARGETS.map((t) => t.target).filter((t) => firstDecision(decisions, t));
}

/** The reveal's sentence: "line 6: convert_element_type carries the value from bf16 to f32: ...". */
export function revealSentence(d) {
  if (!d) return 'no such line in this view';
  let s = `line ${d.line}: ${d.detail}`;
  if (d.path) s += ` (inside ${d.path})`;
  if (d.source) s += `; the program wrote it at ${d.source}`;
  return s;
}

/** Words for a wrong pick: what the picked line is, when it is a decision too. */
export function wrongWords(decisions, line, target) {
  const d = (decisions || []).find((x) => x.line === line);
  const t = TARGETS.find((x) => x.target === target);
  if (d && d.kind === target) return `line ${line} is ${t ? t.noun : target} too, but not the first one`;
  if (d) return `line ${line} is a ${d.kind.replace('_', ' ')}, not ${t ? t.noun : target}`;
  return `line ${line} is not ${t ? t.noun : target}`;
}
