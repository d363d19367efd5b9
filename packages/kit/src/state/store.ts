/**
 * Shared ephemeral state: what several nodes of a service must agree on. The port (StateStore) and how
 * to open it: Redis (redis.ts) when REDIS_URL is set, the in-memory adapter (memory.ts) otherwise (one
 * node). Both adapters pass the same contract suite (test/state.contract.test.ts).
 */
import { createBatcher, onePer } from '../batch.js';
import { createMemoryStore } from './memory.js';
import type { RateDecision, StateStore, StateStoreOptions, WindowHit } from './types.js';

export type { RateDecision, WindowHit, Unsubscribe, StateStore, StateStoreOptions } from './types.js';

/** Redis when a URL is given, the in-memory adapter otherwise. */
export async function openStateStore(opts: StateStoreOptions = {}): Promise<StateStore> {
  if (!opts.url) return createMemoryStore(opts.prefix ?? '');
  // ioredis is loaded only when there is a Redis to talk to.
  const { openRedisStore } = await import('./redis.js');
  return openRedisStore(opts.url, opts.prefix ?? '');
}

/**
 * `hitAll` with the hits of calls arriving together sent as one script call (group commit through
 * `createBatcher`): for rate limits checked on every request. Each window still decides on its own, in
 * order; a window listed by two calls counts twice. One grouping per store.
 */
export const groupedHits: (state: StateStore) => (windows: WindowHit[]) => Promise<RateDecision[]> = onePer((state: StateStore) =>
  createBatcher<WindowHit[], RateDecision[]>(async (lists) => {
    const decisions = await state.hitAll(lists.flat());
    let at = 0;
    return lists.map((l) => decisions.slice(at, (at += l.length)));
  }),
);
