// One line per figure of the browser benches, beside its goal, met or not (the timed bounds the
// browser tests once asserted live here as goals: issue 34, item 12).
//   figure('longest main-thread task, 50 MB pasted', 84, 'ms', 500) ->
//   "longest main-thread task, 50 MB pasted         84 ms   goal: under 500 ms   met"

/** The line for one figure; `goal` is an upper bound in the same unit. */
export function figure(name, value, unit, goal) {
  const met = value < goal ? 'met' : 'NOT met';
  return `${name.padEnd(56)} ${String(Math.round(value)).padStart(7)} ${unit}   goal: under ${goal} ${unit}   ${met}`;
}

/** Prints the lines of a bench's figures: [[name, value, unit, goal], ...]. */
export function printFigures(title, rows) {
  console.log(`${title}:`);
  for (const r of rows) console.log(`  ${figure(...r)}`);
}
