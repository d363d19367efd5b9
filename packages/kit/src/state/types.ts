/** The state-store port's types (store.ts opens it; memory.ts and redis.ts implement it). */
import type { LogAppend, LogRead, LogReadOutcome, LogRetention } from './event-log.js';

export interface RateDecision {
  allowed: boolean;
  /** Hits inside the window, including this one when allowed. */
  count: number;
  /** When refused: milliseconds until the oldest hit leaves the window. */
  retryAfterMs: number;
}

export interface WindowHit {
  key: string;
  limit: number;
  windowMs: number;
}

export type Unsubscribe = () => Promise<void>;

export interface StateStore {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  /** Several values in one round trip (Redis MGET), in order; null where absent. */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  /** Sets a value, with an optional expiry in milliseconds. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Remaining life in ms; -1 without expiry; -2 when absent. */
  ttl(key: string): Promise<number>;
  /** Increments a counter; the expiry is set when the counter is created. */
  incr(key: string, ttlMs: number): Promise<number>;
  /** Sliding-window limiter: records a hit unless `limit` hits already lie in the window. */
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /**
   * Several sliding windows hit at once (one round trip on Redis): each window records its hit or
   * refuses on its own, exactly as the same `hit` calls would. Decisions come back in order.
   */
  hitAll(windows: readonly WindowHit[]): Promise<RateDecision[]>;
  /** Sets whose members expire individually. */
  setAdd(key: string, member: string, ttlMs: number): Promise<void>;
  setHas(key: string, member: string): Promise<boolean>;
  setRemove(key: string, member: string): Promise<void>;
  setMembers(key: string): Promise<string[]>;
  publish(channel: string, message: string): Promise<void>;
  /** Several publishes in one write (a Redis pipeline), delivered in order. */
  publishAll(messages: readonly { channel: string; message: string }[]): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<Unsubscribe>;
  /**
   * Appends entries to event logs (event-log.ts), each under the next id of the store's one sequence, and
   * publishes each on its channel with the id put in; one round trip for all of them. Returns the ids.
   */
  logAppend(items: readonly LogAppend[], retention: LogRetention): Promise<string[]>;
  /** Reads logs after the given ids (at most `limit` entries each), with the sequence's last id; one round trip. */
  logRead(reads: readonly LogRead[], retention: LogRetention, limit: number): Promise<LogReadOutcome>;
  /**
   * Called each time the store's subscriptions are live again after a loss (a Redis restart or failover, a
   * dropped connection): messages published meanwhile may never have arrived, so what a subscriber holds may
   * have a gap. Never called by the memory adapter. Returns a function that removes the listener.
   */
  onInterrupted(listener: () => void): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the shared state lives: one Redis (`url`), a Redis Cluster (`clusterNodes`, seed nodes) or a primary
 * that Redis Sentinel names (`sentinels`, `sentinelName`); the in-memory adapter when none is given.
 */
export interface StateStoreOptions {
  url?: string;
  /** Seed nodes of a Redis Cluster: `host:port` or `redis[s]://[user:password@]host:port`. */
  clusterNodes?: readonly string[];
  /** Sentinels (`host:port` or `redis[s]://[user:password@]host:port` for the data nodes' credentials). */
  sentinels?: readonly string[];
  /** The primary's name the sentinels watch (default `mymaster`). */
  sentinelName?: string;
  /** Prefix for every key and channel (tests and shared Redis instances). */
  prefix?: string;
}
