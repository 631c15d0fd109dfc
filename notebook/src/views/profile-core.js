// Profiles in the page, shared by the worker and the main-thread fallback: read a profile
// file's bytes with progress, gunzip a .gz, parse it with the core and keep it by key so that a
// later timeline (with a dump to join) does not read the file again.
//
//   readProfileBytes(api, file, onProgress) -> Uint8Array (gunzipped when its bytes are gzip)
//   openProfile(api, key, bytes)        keeps parseProfile(bytes) under key (frees an older one)
//   loadProfile(api, key, file, onProgress)  reads a file (or [files] of one job) and keeps it
//                                       (in a worker, a big .xplane.pb by slices: never held whole)
//   timelineOf(key, options)           -> the Timeline JSON object (timelineTextOf: its JSON text)
//   forgetProfile(key)

const kept = new Map(); // key -> ProfileHandle

/** The core's stages of a parse by range, in the words the cell shows. */
const STAGES = { scanning: 'scanning the file', reading: 'reading events', counting: 'counting' };

export async function readProfileBytes(api, file, onProgress) {
  const total = file.size;
  let bytes;
  if (file.stream) {
    bytes = new Uint8Array(total);
    const reader = file.stream().getReader();
    let done = 0;
    let last = 0;
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      if (done + value.length > bytes.length) { // a file that grew while read
        const nb = new Uint8Array(Math.max(bytes.length * 2, done + value.length));
        nb.set(bytes.subarray(0, done));
        bytes = nb;
      }
      bytes.set(value, done);
      done += value.length;
      if (done - last > 1 << 22) { last = done; onProgress?.({ stage: 'reading', done, total }); }
    }
    bytes = bytes.subarray(0, done);
  } else {
    bytes = new Uint8Array(await file.arrayBuffer());
  }
  if (api.archiveKind(bytes) === 'gzip') { // the core's sniff, as the CLI's
    onProgress?.({ stage: 'gunzipping' });
    bytes = await api.gunzip(bytes);
  }
  return bytes;
}

/**
 * Reads a profile file (or several: a multi-process job's, read as one) and keeps it parsed under key. A file that is not gzip streams straight
 * into the core's memory (api.profileSink), so a big file is held once; a .gz is gunzipped in JS
 * first. onProgress: { stage, done, total }.
 */
export async function loadProfile(api, key, file, onProgress) {
  if (Array.isArray(file) && file.length === 1) file = file[0];
  if (Array.isArray(file)) {
    // a job's files (one per process or host): read each, then parse them together
    const files = [];
    for (const f of file) files.push({ name: f.name, bytes: await readProfileBytes(api, f, onProgress) });
    onProgress?.({ stage: `parsing ${files.length} profiles together` });
    forgetProfile(key);
    kept.set(key, api.parseProfiles(files));
    return;
  }
  const head = file.slice ? new Uint8Array(await file.slice(0, 2).arrayBuffer()) : new Uint8Array(0);
  const gz = api.archiveKind(head) === 'gzip';
  if (!gz && file.slice && typeof FileReaderSync !== 'undefined' && api.parseProfileSource) {
    // In a worker: the core reads the File by slices as it parses (FileReaderSync), so its
    // memory holds what the profile keeps, not the file, and progress follows the parse itself.
    const reader = new FileReaderSync();
    // (no name: one file is read as parseProfile reads its bytes; names are for a job's files)
    const source = { size: file.size, read: (off, len) => new Uint8Array(reader.readAsArrayBuffer(file.slice(off, off + len))) };
    onProgress?.({ stage: 'parsing', done: 0, total: file.size });
    const prof = api.parseProfileSource(source, {
      // work done of the stage's (bytes walked, or the counting's phases): not bytes of the file
      onProgress: (p) => onProgress?.({ stage: STAGES[p.stage] ?? p.stage, done: p.done, total: p.total, unit: 'steps', heap: api.memoryBytes() }),
    });
    forgetProfile(key);
    kept.set(key, prof);
    return;
  }
  if (gz || !file.stream || !api.profileSink) {
    const bytes = await readProfileBytes(api, file, onProgress);
    onProgress?.({ stage: 'parsing the profile' });
    openProfile(api, key, bytes);
    return;
  }
  const total = file.size;
  const sink = api.profileSink(total);
  try {
    const reader = file.stream().getReader();
    let last = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      sink.write(value);
      if (sink.written - last > 1 << 22) { last = sink.written; onProgress?.({ stage: 'reading', done: sink.written, total }); }
    }
  } catch (e) {
    sink.abort();
    throw e;
  }
  onProgress?.({ stage: 'parsing the profile' });
  forgetProfile(key);
  kept.set(key, sink.parse());
}

export function openProfile(api, key, bytes) {
  forgetProfile(key);
  kept.set(key, api.parseProfile(bytes));
}

export function timelineOf(key, options = {}) {
  return JSON.parse(timelineTextOf(key, options));
}

/** The Timeline as its JSON text: a worker sends this (a string crosses to the page as one copy;
 * a 400-op timeline's objects took 50-75 ms to rebuild on the page's thread). */
export function timelineTextOf(key, options = {}) {
  const p = kept.get(key);
  if (!p) throw Object.assign(new Error(`no profile kept under key ${key}`), { code: 'HS_E_NOTFOUND' });
  return p.timelineJSON(options);
}

export function forgetProfile(key) {
  kept.get(key)?.free();
  kept.delete(key);
}
