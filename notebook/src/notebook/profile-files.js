// Which file of a drop or a picked folder is the profile: pure functions over [{ path, file }]
// (no DOM), so node tests run them. A jax.profiler log folder holds
// plugins/profile/<run>/<host>.xplane.pb (and <host>.trace.json.gz); runs are named by their
// start time (2024_05_01_12_30_59), so the newest run sorts last. The folder picked may be the
// log folder, its plugins/ or profile/ folder, or one run's folder: a run is the folder under
// plugins/profile/, or a folder named as jax.profiler names runs.

const PROFILE_RE = /\.(xplane\.pb|trace\.json\.gz|trace\.json|json\.gz|pb)$/i;

function rank(path) {
  if (/\.xplane\.pb$/i.test(path)) return 0; // the XSpace: everything, prefer it
  if (/\.trace\.json(\.gz)?$/i.test(path)) return 1;
  return 2;
}

/**
 * Picks the profile among the files: { entries, entry, run, runs, note } or null when none looks
 * like one. `entries` are the files read together: every .xplane.pb of the run (a multi-process
 * or multi-host job writes one per process), else every trace JSON; `entry` is the first. `run`
 * is the run folder used (the newest under plugins/profile/), `runs` how many there were.
 */
export function pickProfile(entries) {
  const cands = entries.filter((e) => PROFILE_RE.test(e.path));
  if (!cands.length) return null;
  const runOf = (p) => {
    const m = /(?:^|\/)plugins\/profile\/([^/]+)\//.exec(p) || /(?:^|\/)(\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d)\/[^/]+$/.exec(p);
    return m ? m[1] : null;
  };
  const runs = [...new Set(cands.map((e) => runOf(e.path)).filter(Boolean))].sort();
  const run = runs.length ? runs[runs.length - 1] : null;
  const inRun = run ? cands.filter((e) => runOf(e.path) === run) : cands;
  inRun.sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
  const best = rank(inRun[0].path);
  const picked = best < 2 ? inRun.filter((e) => rank(e.path) === best) : [inRun[0]];
  let note = picked.length === 1 ? `read ${picked[0].path}` : `read ${picked.length} files together (one per process or host): ${picked.map((e) => e.path).join(', ')}`;
  if (run) note += runs.length > 1 ? ` (the newest of ${runs.length} runs: ${run})` : ` (run ${run})`;
  const others = inRun.length - picked.length;
  if (others) note += `; ${others} other file${others === 1 ? '' : 's'} of that run left aside`;
  return { entries: picked, entry: picked[0], run, runs: runs.length, note };
}

/** The files of a drop, folders walked (DataTransferItem.webkitGetAsEntry), as [{ path, file }]. */
export async function filesOfDrop(dataTransfer) {
  const items = [...(dataTransfer.items || [])];
  const entries = items.map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...(dataTransfer.files || [])].map((f) => ({ path: f.name, file: f }));
  const out = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) {
      const file = await new Promise((ok, bad) => entry.file(ok, bad));
      out.push({ path: prefix + entry.name, file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, bad) => reader.readEntries(ok, bad));
        if (!batch.length) break;
        for (const e of batch) await walk(e, `${prefix}${entry.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}

/** The files of an <input type=file webkitdirectory> (or a plain multiple input). */
export function filesOfInput(input) {
  return [...(input.files || [])].map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
}

/** The line of a dump text that defines %name, as { line, text } (1-based), or null. */
export function defineLine(text, name) {
  const needle = `%${name} = `;
  let at = text.indexOf(needle);
  while (at > 0 && text[at - 1] !== '\n' && text[at - 1] !== ' ' && text[at - 1] !== '\t') at = text.indexOf(needle, at + 1);
  if (at < 0) return null;
  const start = text.lastIndexOf('\n', at) + 1;
  let end = text.indexOf('\n', at);
  if (end < 0) end = text.length;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) line++;
  return { line, text: text.slice(start, end).replace(/\r$/, '') };
}
