// Rounds of the timeline drill (GYM·08), as pure functions of a profile's timeline (what
// `parseProfile(bytes).timeline()` returns): no DOM, no wasm, so tests run them on the core's
// output. Each round is { type, prompt, program, choices: [{value, label}], answer, why }.

function us(ps) {
  const v = (ps || 0) / 1e6;
  return v >= 100 ? `${Math.round(v).toLocaleString('en-US')} µs` : `${v.toFixed(1)} µs`;
}

function programKey(r) { return r.program_id ?? `name:${r.module ?? r.name ?? ''}`; }

/** The program with the most device time, and its rows. */
function topProgram(t) {
  const progs = t.programs || [];
  if (!progs.length) return null;
  const p = progs.reduce((a, b) => (b.envelope_ps > a.envelope_ps ? b : a));
  const key = p.program_id ?? `name:${p.name ?? ''}`;
  return { program: p, rows: t.rows.filter((r) => programKey(r) === key) };
}

/**
 * "which op spent the most time in its own code per run?": self time (`self_ps`, the op's time
 * minus the ops it encloses: XLA:CPU's `call` wraps the kernel that does the work), since the
 * op with the most time in all may only wrap another. The top op must lead strictly. The
 * choices are the three with the most self time, and the one with the most time in all when it
 * is another (the op a reading of total time would name).
 */
export function topOpRound(t) {
  const top = topProgram(t);
  if (!top || top.rows.length < 2) return null;
  const runs = top.program.runs || 1;
  const bySelf = [...top.rows].sort((a, b) => b.self_ps - a.self_ps || a.name.localeCompare(b.name));
  if (bySelf[0].self_ps === bySelf[1].self_ps) return null;
  const byTotal = [...top.rows].sort((a, b) => b.per_run_ps - a.per_run_ps || a.name.localeCompare(b.name));
  const picks = bySelf.slice(0, 3);
  if (!picks.includes(byTotal[0])) picks.push(byTotal[0]);
  else if (bySelf.length > 3) picks.push(bySelf[3]);
  const self = (r) => r.self_ps / runs;
  const best = bySelf[0];
  const words = (r) => (r.per_run_ps > self(r)
    ? `${r.name} ${us(self(r))} of its own (${us(r.per_run_ps)} in all, the rest in the ops it encloses)`
    : `${r.name} ${us(self(r))}`);
  return {
    type: 'top',
    program: top.program.name,
    prompt: `which op spent the most time in its own code (self time) per run of ${top.program.name}?`,
    choices: picks.map((r) => ({ value: r.name, label: r.name })),
    answer: best.name,
    why: `${best.name} spent ${us(self(best))} per run in its own code, ${(100 * self(best) / (top.program.per_run_ps || 1)).toFixed(1)}% of the run (${us(top.program.per_run_ps)}); ` +
      picks.filter((r) => r !== best).map(words).join(', ') + '.',
  };
}

/** "which kernel did no line of the program ask for?": a compiler-written kernel among traced ones. */
export function unaskedRound(t) {
  const compiler = t.rows.filter((r) => r.written_by === 'compiler');
  if (!compiler.length) return null;
  const k = compiler[0];
  const others = t.rows.filter((r) => r.written_by === 'program' && programKey(r) === programKey(k)).slice(0, 3);
  if (!others.length) return null;
  return {
    type: 'unasked',
    program: k.module,
    prompt: `which kernel of ${k.module} did no line of the program ask for?`,
    choices: [k, ...others].map((r) => ({ value: r.name, label: r.name })),
    answer: k.name,
    why: `${k.name} is a custom call${k.target ? ` to ${k.target}` : ''} that the program's StableHLO does not ask for: the compiler substituted it; the others were traced from lines of the program${others[0].op_name ? ` (${others[0].name} from ${others[0].op_name})` : ''}.`,
  };
}

/** "did this copy hide behind compute?": yes when at most a tenth was exposed, no when half or more. */
export function hiddenRound(t) {
  const clear = (t.async || []).filter((a) => a.in_flight_ps > 0 && (a.exposed_ps * 10 <= a.in_flight_ps || a.exposed_ps * 2 >= a.in_flight_ps));
  if (!clear.length) return null;
  const a = clear[0];
  const hid = a.exposed_ps * 10 <= a.in_flight_ps;
  return {
    type: 'hidden',
    program: a.module,
    prompt: `${a.start} → ${a.done} in ${a.module}: did this copy hide behind compute?`,
    choices: [{ value: 'yes', label: 'yes, it hid' }, { value: 'no', label: 'no, the core waited' }],
    answer: hid ? 'yes' : 'no',
    why: `${a.sentence} (${us(a.hidden_ps)} hidden per run).`,
  };
}

/** Every round this timeline can give (at most one of each type). */
export function timelineRounds(t) {
  return [topOpRound(t), unaskedRound(t), hiddenRound(t)].filter(Boolean);
}
