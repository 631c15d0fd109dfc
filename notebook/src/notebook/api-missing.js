// Stands in for wasm/hloscope.mjs when the build found no wasm (npm run build:wasm not run):
// the page still opens, and every analysis fails with this one clear message.
const MESSAGE = 'the hloscope wasm core is not in this build (run `npm run build:wasm`, then `npm run build`)';

export class HloscopeError extends Error {
  // Same shape as wasm/hloscope.mjs's: (info = { message, code, line, column }, side), or a message.
  constructor(info, side) {
    const i = typeof info === 'string' ? { message: info, code: 'HS_E_NOWASM' } : info || {};
    super(i.message || i.code);
    this.name = 'HloscopeError';
    this.code = i.code;
    this.line = i.line | 0;
    this.column = i.column | 0;
    this.offset = i.offset | 0;
    if (side) this.side = side;
  }
}
export const missing = true;
export function load() { return Promise.reject(new HloscopeError(MESSAGE)); }
export function isLoaded() { return false; }
export function version() { throw new HloscopeError(MESSAGE); }
export function parse() { throw new HloscopeError(MESSAGE); }
export function xray() { throw new HloscopeError(MESSAGE); }
export const wasmBinary = null;
export function setWasmBinary() {}
// Every other export of wasm/hloscope.mjs, so that a page built without the wasm still bundles
// and says the one clear message when any of them is called.
const fail = () => { throw new HloscopeError(MESSAGE); };
export const registry = fail, detectFormat = fail, xrayJSON = fail, parseProfile = fail, layout = fail,
  layouts = fail, readMemory = fail, readMemoryJSON = fail, readLlvm = fail, llvmJSON = fail,
  readPasses = fail, passesJSON = fail, comparePasses = fail, comparePassesJSON = fail,
  passesWantsBytes = fail, parseBytes = fail, profileSink = fail, parseProfiles = fail, archiveKind = fail,
  dumpSiblingHlo = fail, dumpHloForLl = fail, dumpLevels = fail;
export function gunzip() { return Promise.reject(new HloscopeError(MESSAGE)); }
export function readArchive() { return Promise.reject(new HloscopeError(MESSAGE)); }
