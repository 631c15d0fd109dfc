// Streaks: one record per skill, shared by every page and every widget that drills it.
//
// Storage: localStorage, one key per skill, `hloscope.streak.v1.<skill>`, holding the JSON
// record `{"v":1,"current":N,"best":N,"updated":"<ISO time>"|null}`. A right answer adds one
// to `current` (and raises `best` with it); a wrong one sets `current` to 0 and keeps `best`.
//
// Every write announces itself: on this page with a `hloscope-streak` CustomEvent on
// `window` (detail `{skill, record}`), in other tabs through the browser's own `storage`
// event. `subscribe()` hears both, so every instance of a skill shows the same number.
//
// Nothing here throws on what it reads: a corrupt or foreign value (not JSON, a bare number
// as older course pages wrote, another version, negative or fractional counts) is repaired
// into a valid record and written back. When localStorage cannot be used at all (blocked
// cookies, sandboxed frames, a full quota) the records live in memory for this page only;
// `storageMode()` says which, so widgets can tell the learner.

export const KEY_PREFIX = 'hloscope.streak.v1.';
export const EVENT = 'hloscope-streak';
export const EXPORT_FORMAT = 'hloscope-streaks';

const SKILL_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

let backend = null; // { kind: 'local'|'memory', get(key), set(key, value), keys() }

function memoryBackend() {
  const map = new Map();
  return {
    kind: 'memory',
    get: (k) => (map.has(k) ? map.get(k) : null),
    set: (k, v) => { map.set(k, v); },
    keys: () => [...map.keys()],
  };
}

function pickBackend() {
  if (backend) return backend;
  try {
    const ls = globalThis.localStorage; // the getter itself throws in some sandboxed frames
    if (!ls) throw new Error('no localStorage');
    const probe = KEY_PREFIX + '__probe__';
    ls.setItem(probe, '1');
    ls.removeItem(probe);
    backend = {
      kind: 'local',
      get: (k) => { try { return ls.getItem(k); } catch { return null; } },
      set: (k, v) => {
        try { ls.setItem(k, v); } catch {
          // Quota or a policy change mid-session: keep going in memory, with what we had.
          const mem = memoryBackend();
          for (const key of backend.keys()) mem.set(key, backend.get(key));
          mem.set(k, v);
          backend = mem;
          notifyMode();
        }
      },
      keys: () => {
        const out = [];
        try { for (let i = 0; i < ls.length; i++) out.push(ls.key(i)); } catch { /* unreadable */ }
        return out;
      },
    };
  } catch {
    backend = memoryBackend();
  }
  return backend;
}

function notifyMode() {
  try {
    globalThis.dispatchEvent?.(new CustomEvent(EVENT, { detail: { skill: null, record: null, mode: backend.kind } }));
  } catch { /* no DOM events here (plain Node): nothing to tell */ }
}

/** 'local' when records persist in localStorage; 'memory' when they last only for this page. */
export function storageMode() {
  return pickBackend().kind;
}

export function isSkill(skill) {
  return typeof skill === 'string' && SKILL_RE.test(skill);
}

function checkSkill(skill) {
  if (!isSkill(skill)) throw new TypeError(`not a skill name: ${JSON.stringify(skill)} (lowercase letters, digits, - and _)`);
}

export function keyFor(skill) {
  checkSkill(skill);
  return KEY_PREFIX + skill;
}

export function emptyRecord() {
  return { v: 1, current: 0, best: 0, updated: null };
}

function count(x) {
  const n = typeof x === 'string' && x.trim() !== '' ? Number(x) : x;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * Turns anything (a stored string, a parsed value, an imported entry) into a valid record.
 * Returns `{record, repaired}`; `repaired` is true when the input was not already exactly a
 * valid v1 record. Never throws.
 */
export function sanitize(value) {
  let v = value;
  if (typeof v === 'string') {
    try { v = JSON.parse(v); } catch { v = undefined; }
  }
  if (typeof v === 'number' || typeof v === 'string') {
    // A bare count, as the course's own widgets store it.
    const n = count(v);
    return { record: { ...emptyRecord(), current: n ?? 0, best: n ?? 0 }, repaired: true };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { record: emptyRecord(), repaired: true };
  const current = count(v.current);
  const best = count(v.best);
  const cur = current ?? 0;
  const record = {
    v: 1,
    current: cur,
    best: Math.max(best ?? 0, cur),
    updated: typeof v.updated === 'string' && !Number.isNaN(Date.parse(v.updated)) ? v.updated : null,
  };
  const repaired = v.v !== 1 || current === null || best === null || best < cur
    || (v.updated !== null && record.updated === null) || Object.keys(v).length !== 4;
  return { record, repaired };
}

/** The skill's record; a missing one reads as zeros, a corrupt one is repaired and written back. */
export function getStreak(skill) {
  const key = keyFor(skill);
  const b = pickBackend();
  const raw = b.get(key);
  if (raw === null || raw === undefined) return emptyRecord();
  const { record, repaired } = sanitize(raw);
  if (repaired) b.set(key, JSON.stringify(record));
  return record;
}

function write(skill, record) {
  pickBackend().set(keyFor(skill), JSON.stringify(record));
  try {
    globalThis.dispatchEvent?.(new CustomEvent(EVENT, { detail: { skill, record: { ...record } } }));
  } catch { /* not in a browser */ }
  return record;
}

/** Scores one answer: right adds one (best follows), wrong resets current to 0. Returns the new record. */
export function recordAnswer(skill, right) {
  const r = getStreak(skill);
  const current = right ? r.current + 1 : 0;
  return write(skill, { v: 1, current, best: Math.max(r.best, current), updated: new Date().toISOString() });
}

/** Sets current to 0 and best to 0 for one skill (a "start over" button). */
export function clearStreak(skill) {
  return write(skill, { ...emptyRecord(), updated: new Date().toISOString() });
}

/** Every skill with a stored record, sorted. */
export function skills() {
  const out = [];
  for (const k of pickBackend().keys()) {
    if (typeof k === 'string' && k.startsWith(KEY_PREFIX) && isSkill(k.slice(KEY_PREFIX.length))) out.push(k.slice(KEY_PREFIX.length));
  }
  return out.sort();
}

/**
 * Calls `fn(skill, record)` whenever a streak changes, here or in another tab; `skill` null
 * listens to every skill. Returns the function that stops listening.
 */
export function subscribe(skill, fn) {
  if (skill !== null) checkSkill(skill);
  const onLocal = (e) => {
    const d = e.detail || {};
    if (d.skill === null && d.mode) { fn(null, null); return; }
    if (skill === null || d.skill === skill) fn(d.skill, getStreak(d.skill));
  };
  const onStorage = (e) => {
    // e.key null: the other tab cleared all storage.
    if (e.key === null) {
      if (skill === null) fn(null, null);
      else fn(skill, getStreak(skill));
      return;
    }
    if (typeof e.key !== 'string' || !e.key.startsWith(KEY_PREFIX)) return;
    const s = e.key.slice(KEY_PREFIX.length);
    if (!isSkill(s) || (skill !== null && s !== skill)) return;
    fn(s, getStreak(s));
  };
  globalThis.addEventListener?.(EVENT, onLocal);
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    globalThis.removeEventListener?.(EVENT, onLocal);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}

/** All progress as a JSON string: `{"format":"hloscope-streaks","v":1,"exported":...,"streaks":{skill: record}}`. */
export function exportProgress() {
  const streaks = {};
  for (const s of skills()) streaks[s] = getStreak(s);
  return JSON.stringify({ format: EXPORT_FORMAT, v: 1, exported: new Date().toISOString(), streaks }, null, 2);
}

/**
 * Reads what `exportProgress()` wrote (a string or the parsed object) and replaces the
 * records of the skills it names; other skills are left alone. Entries are repaired like
 * stored values. Throws a TypeError, changing nothing, when the input is not such a file.
 * Returns the skills imported.
 */
export function importProgress(input) {
  let doc = input;
  if (typeof doc === 'string') {
    try { doc = JSON.parse(doc); } catch (e) { throw new TypeError(`not JSON: ${e.message}`); }
  }
  if (!doc || typeof doc !== 'object' || doc.format !== EXPORT_FORMAT) {
    throw new TypeError(`not an hloscope progress file (expected "format": "${EXPORT_FORMAT}")`);
  }
  if (doc.v !== 1) throw new TypeError(`progress file version ${JSON.stringify(doc.v)} is not one this page reads (1)`);
  if (!doc.streaks || typeof doc.streaks !== 'object' || Array.isArray(doc.streaks)) {
    throw new TypeError('progress file has no "streaks" object');
  }
  const entries = Object.entries(doc.streaks).filter(([s]) => isSkill(s));
  for (const [s, value] of entries) write(s, sanitize(value).record);
  return entries.map(([s]) => s);
}

/** For tests: forget the chosen backend so the next call probes localStorage again. */
export function _resetForTests() {
  backend = null;
}
