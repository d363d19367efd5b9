/** The state-store port and its adapters; the kit's index re-exports this module. */
export { openStateStore, groupedHits, stateStoreOptions, sharesState } from './store.js';
export type { RedisSettings } from './store.js';
export type { RateDecision, WindowHit, Unsubscribe, StateStore, StateStoreOptions } from './store.js';
export { createMemoryStore } from './memory.js';
export { isLogId, compareLogIds } from './event-log.js';
export type { LogAppend, LogRead, LogEntry, LogReadResult, LogReadOutcome, LogRetention } from './event-log.js';
