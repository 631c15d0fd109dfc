// Stands in for wasm/hloscope.mjs when the build found no wasm (npm run build:wasm not run):
// the page still opens, and every analysis fails with this one clear message.
const MESSAGE = 'the hloscope wasm core is not in this build (run `npm run build:wasm`, then `npm run build`)';

export class HloscopeError extends Error {
  constructor(message, code = 'HS_E_NOWASM') {
    super(message);
    this.name = 'HloscopeError';
    this.code = code;
    this.line = 0;
    this.column = 0;
    this.offset = 0;
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
