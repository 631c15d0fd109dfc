// TypeScript looks for the types of `hloscope.mjs` here (an .mjs import resolves to .d.mts, not
// .d.ts); the declarations themselves are in hloscope.d.ts.
export * from './hloscope.js';
