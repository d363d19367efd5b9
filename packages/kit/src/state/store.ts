/**
 * Shared ephemeral state: what several nodes of a service must agree on. The port (StateStore) and how
 * to open it: Redis (redis.ts) when REDIS_URL is set, the in-memory adapter (memory.ts) otherwise (one
 * node). Both adapters pass the same contract suite (test/state.contract.test.ts).
 */
import { createBatcher, onePer } from '../batch.js';
import { ConfigError } from '../config.js';
import { createMemoryStore } from './memory.js';
import type { RateDecision, StateStore, StateStoreOptions, WindowHit } from './types.js';

export type { RateDecision, WindowHit, Unsubscribe, StateStore, StateStoreOptions } from './types.js';

/** Redis (one, a cluster, or behind Sentinel) when one is given, the in-memory adapter otherwise. */
export async function openStateStore(opts: StateStoreOptions = {}): Promise<StateStore> {
  const prefix = opts.prefix ?? '';
  if (/[{}]/.test(prefix)) throw new ConfigError(['REDIS_KEY_PREFIX holds no { or } (they would make it a Redis Cluster hash tag)']);
  const given = [opts.url && 'REDIS_URL', opts.clusterNodes?.length && 'REDIS_CLUSTER_NODES', opts.sentinels?.length && 'REDIS_SENTINELS'].filter(Boolean);
  if (given.length > 1) throw new ConfigError([`${given.join(' and ')} name two Redis deployments: set one`]);
  if (!given.length) return createMemoryStore(prefix);
  // ioredis is loaded only when there is a Redis to talk to.
  const { openRedisStore } = await import('./redis.js');
  return openRedisStore(opts, prefix);
}

/** The store a service's config names (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS, REDIS_KEY_PREFIX). */
export function stateStoreOptions(config: RedisSettings): StateStoreOptions {
  return {
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    sentinels: config.redisSentinels,
    sentinelName: config.redisSentinelName,
    prefix: config.redisKeyPrefix,
  };
}

/** The Redis settings every service reads (kit config.ts commonVars). */
export interface RedisSettings {
  redisUrl?: string;
  redisClusterNodes?: string[];
  redisSentinels?: string[];
  redisSentinelName?: string;
  redisKeyPrefix?: string;
}

/** True when the config names a shared Redis (any of the three), false for the in-memory store. */
export const sharesState = (config: RedisSettings): boolean => Boolean(config.redisUrl || config.redisClusterNodes?.length || config.redisSentinels?.length);

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
