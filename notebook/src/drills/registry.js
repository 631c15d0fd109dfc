// The registry of drill kinds. A kind is one module, `kinds/<skill>.js`, whose default export
// is `{ skill, designator, title, mount(ctx) }` (see xla-drill.js for `ctx`). Adding a kind
// is adding that file: the bundler (esbuild) packs every file the template below can name,
// and <xla-drill skill="..."> loads the one it needs.

const loaded = new Map();

/** Fired on window when a kind is registered by code. */
export const KIND_EVENT = 'hloscope-drill-kind';

/** Kinds registered by code (tests, host pages) win over the files. */
export function registerKind(kind) {
  if (!kind || typeof kind.skill !== 'string' || typeof kind.mount !== 'function') {
    throw new TypeError('a drill kind needs a skill name and a mount(ctx) function');
  }
  loaded.set(kind.skill, Promise.resolve(kind));
  // Elements that found no such kind yet (registered after they connected) try again.
  globalThis.dispatchEvent?.(new CustomEvent(KIND_EVENT, { detail: { skill: kind.skill } }));
}

export function loadKind(skill) {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(skill || '')) {
    return Promise.reject(new Error(`not a skill name: ${JSON.stringify(skill)}`));
  }
  if (!loaded.has(skill)) {
    const p = import(`./kinds/${skill}.js`).then(
      (m) => {
        const kind = m.default;
        if (!kind || kind.skill !== skill || typeof kind.mount !== 'function') {
          throw new Error(`kinds/${skill}.js does not export a drill kind for "${skill}"`);
        }
        return kind;
      },
      () => { throw new Error(`no drill kind "${skill}" on this page`); },
    );
    loaded.set(skill, p);
    p.catch(() => loaded.delete(skill));
  }
  return loaded.get(skill);
}
