export * from './errors.js';
export * from './config.js';
export * from './db.js';
export * from './state.js';
export * from './crypto.js';
export * from './logger.js';
export * from './http.js';
