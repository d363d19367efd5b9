export * from './platform.js';
export * from './wasm.js';
