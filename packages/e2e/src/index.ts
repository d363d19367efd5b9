export * from './platform.js';
export * from './wasm.js';
export * from './npm-start.js';
export * from './tokens.js';
export * from './transport.js';
