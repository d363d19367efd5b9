/**
 * Shared ephemeral state: what several nodes of a service must agree on.
 * Redis (ioredis) when REDIS_URL is set, an in-memory adapter otherwise (one
 * node). Both adapters pass the same contract suite (test/state.contract.test.ts).
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError } from './errors.js';
import { createBatcher, onePer } from './batch.js';

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
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StateStoreOptions {
  url?: string;
  /** Prefix for every key and channel (tests and shared Redis instances). */
  prefix?: string;
}

export async function openStateStore(opts: StateStoreOptions = {}): Promise<StateStore> {
  return opts.url ? openRedisStore(opts.url, opts.prefix ?? '') : createMemoryStore(opts.prefix ?? '');
}

// ---------------------------------------------------------------- memory

interface Entry {
  value: string;
  expiresAt: number; // Infinity for none
}

export function createMemoryStore(prefix = ''): StateStore {
  const values = new Map<string, Entry>();
  const sets = new Map<string, Map<string, number>>();
  const windows = new Map<string, number[]>();
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  let closed = false;
  const k = (key: string) => prefix + key;
  const live = (key: string): Entry | undefined => {
    const e = values.get(key);
    if (e && e.expiresAt <= Date.now()) {
      values.delete(key);
      return undefined;
    }
    return e;
  };
  // Sweep expired entries now and then so a long-running node does not grow.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, e] of values) if (e.expiresAt <= now) values.delete(key);
    for (const [key, m] of sets) {
      for (const [member, exp] of m) if (exp <= now) m.delete(member);
      if (!m.size) sets.delete(key);
    }
  }, 30_000);
  sweeper.unref();

  const hitWindow = (key: string, limit: number, windowMs: number): RateDecision => {
    const now = Date.now();
    const hits = (windows.get(k(key)) ?? []).filter((t) => t > now - windowMs);
    if (hits.length >= limit) {
      windows.set(k(key), hits);
      return { allowed: false, count: hits.length, retryAfterMs: Math.max(1, hits[0] + windowMs - now) };
    }
    hits.push(now);
    windows.set(k(key), hits);
    return { allowed: true, count: hits.length, retryAfterMs: 0 };
  };

  return {
    kind: 'memory',
    async get(key) {
      return live(k(key))?.value ?? null;
    },
    async getMany(keys) {
      return keys.map((key) => live(k(key))?.value ?? null);
    },
    async set(key, value, ttlMs) {
      values.set(k(key), { value, expiresAt: ttlMs ? Date.now() + ttlMs : Infinity });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(k(key))) return false;
      values.set(k(key), { value, expiresAt: Date.now() + ttlMs });
      return true;
    },
    async del(key) {
      values.delete(k(key));
      sets.delete(k(key));
      windows.delete(k(key));
    },
    async ttl(key) {
      const e = live(k(key));
      if (!e) return -2;
      return e.expiresAt === Infinity ? -1 : e.expiresAt - Date.now();
    },
    async incr(key, ttlMs) {
      const e = live(k(key));
      if (!e) {
        values.set(k(key), { value: '1', expiresAt: Date.now() + ttlMs });
        return 1;
      }
      const n = Number(e.value) + 1;
      e.value = String(n);
      return n;
    },
    async hit(key, limit, windowMs) {
      return hitWindow(key, limit, windowMs);
    },
    async hitAll(list) {
      return list.map((w) => hitWindow(w.key, w.limit, w.windowMs));
    },
    async setAdd(key, member, ttlMs) {

      let m = sets.get(k(key));
      if (!m) sets.set(k(key), (m = new Map()));
      m.set(member, Date.now() + ttlMs);
    },
    async setHas(key, member) {
      const exp = sets.get(k(key))?.get(member);
      return exp !== undefined && exp > Date.now();
    },
    async setRemove(key, member) {
      sets.get(k(key))?.delete(member);
    },
    async setMembers(key) {
      const now = Date.now();
      return [...(sets.get(k(key)) ?? [])].filter(([, exp]) => exp > now).map(([m]) => m);
    },
    async publishAll(messages) {
      for (const m of messages) await this.publish(m.channel, m.message);
    },
    async publish(channel, message) {
      // Asynchronous like Redis: a publisher never runs subscribers inline.
      setImmediate(() => bus.emit(k(channel), message));
    },
    async subscribe(channel, handler) {
      const listener = (m: string) => handler(m);
      bus.on(k(channel), listener);
      return async () => {
        bus.off(k(channel), listener);
      };
    },
    async ping() {
      if (closed) throw new AppError(503, 'state_unavailable', 'The state store is closed');
    },
    async close() {
      closed = true;
      clearInterval(sweeper);
      bus.removeAllListeners();
    },
  };
}

// ---------------------------------------------------------------- redis

// Server time keeps every node's window identical whatever their clocks say.
// KEYS: the windows; ARGV: limit and window (ms) per key, then a unique member id.
// Returns {allowed, count, retryAfterMs} per key, flattened.
const HIT_ALL_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  -- One member per window hit: a key listed twice (two requests grouped into one call) counts twice.
  local member = now .. ':' .. ARGV[#ARGV] .. ':' .. i
  local limit = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local retry = window
    if oldest[2] then retry = tonumber(oldest[2]) + window - now end
    if retry < 1 then retry = 1 end
    out[#out + 1] = 0; out[#out + 1] = count; out[#out + 1] = retry
  else
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, window)
    out[#out + 1] = 1; out[#out + 1] = count + 1; out[#out + 1] = 0
  end
end
return out
`;

const SET_HAS_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(score) > now then return 1 end
return 0
`;

const INCR_SCRIPT = `
local v = redis.call('INCR', KEYS[1])
if v == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return v
`;

const SET_ADD_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local exp = now + tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], exp, ARGV[1])
local maxexp = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(maxexp[2]))
return 1
`;

function wrapRedisError(err: unknown): never {
  if (err instanceof AppError) throw err;
  throw new AppError(503, 'state_unavailable', 'The shared state store is unavailable; retry later', { cause: err });
}

interface ScriptCommands {
  hitAll(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  incrExpire(key: string, ttlMs: number): Promise<number>;
  setAddExpire(key: string, member: string, ttlMs: number): Promise<number>;
  setHasLive(key: string, member: string): Promise<number>;
}

/**
 * Commands issued during one event-loop turn leave in one write: the socket is corked at the first
 * command and uncorked when the turn ends (setImmediate). Without it every command is its own write
 * system call, and on a busy node (many frames handled per turn) those calls cost more than the
 * commands (measured: bench ws-presence, docs/benchmarks.md). Replies are unchanged: one per command,
 * in order. Not ioredis' auto-pipelining, which regroups commands into pipelines and measured more
 * memory per idle socket.
 */
function groupWrites(client: Redis): void {
  const send = client.sendCommand.bind(client);
  let corked = false;
  client.sendCommand = ((command, stream) => {
    const socket = client.stream;
    if (!corked && client.status === 'ready' && socket?.writable) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return send(command, stream);
  }) as typeof client.sendCommand;
}

async function openRedisStore(url: string, prefix: string): Promise<StateStore> {
  const common = {
    // Fail fast while Redis is down instead of queueing commands forever;
    // reconnection continues in the background.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (times: number) => Math.min(times * 100, 1000),
    lazyConnect: true,
  };
  // No auto-pipelining: measured, it gave no throughput above the noise on the refresh figure and made a
  // social node hold 13.5 KB instead of 4.1 KB per idle WebSocket (bench ws-idle, docs/benchmarks.md).
  const client = new Redis(url, common) as Redis & ScriptCommands;
  // Scripts go out as EVALSHA (ioredis loads them on first NOSCRIPT): the body is not resent and rehashed per call.
  client.defineCommand('hitAll', { lua: HIT_ALL_SCRIPT });
  client.defineCommand('incrExpire', { numberOfKeys: 1, lua: INCR_SCRIPT });
  client.defineCommand('setAddExpire', { numberOfKeys: 1, lua: SET_ADD_SCRIPT });
  client.defineCommand('setHasLive', { numberOfKeys: 1, lua: SET_HAS_SCRIPT });
  const subscriber = new Redis(url, { ...common, commandTimeout: undefined, enableOfflineQueue: true, maxRetriesPerRequest: null });
  client.on('error', () => {});
  subscriber.on('error', () => {});
  groupWrites(client);
  try {
    await client.connect();
    await subscriber.connect();
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw new AppError(503, 'state_unavailable', `Redis is unreachable: ${(err as Error).message}`, { cause: err });
  }
  const handlers = new Map<string, Set<(m: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  const k = (key: string) => prefix + key;
  const run = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      wrapRedisError(err);
    }
  };
  const hitAll = (list: readonly WindowHit[]): Promise<RateDecision[]> =>
    run(async () => {
      if (!list.length) return [];
      const args: (string | number)[] = list.map((w) => k(w.key));
      for (const w of list) args.push(w.limit, w.windowMs);
      args.push(randomUUID());
      const flat = await client.hitAll(list.length, ...args);
      return list.map((_, i) => ({ allowed: flat[3 * i] === 1, count: Number(flat[3 * i + 1]), retryAfterMs: Number(flat[3 * i + 2]) }));
    });
  const now = async () => {
    const [s, us] = await client.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  };

  return {
    kind: 'redis',
    get: (key) => run(() => client.get(k(key))),
    getMany: (keys) => run(async () => (keys.length ? await client.mget(keys.map(k)) : [])),
    set: (key, value, ttlMs) =>
      run(async () => {
        if (ttlMs) await client.set(k(key), value, 'PX', ttlMs);
        else await client.set(k(key), value);
      }),
    setIfAbsent: (key, value, ttlMs) => run(async () => (await client.set(k(key), value, 'PX', ttlMs, 'NX')) === 'OK'),
    del: (key) =>
      run(async () => {
        await client.del(k(key));
      }),
    ttl: (key) => run(() => client.pttl(k(key))),
    incr: (key, ttlMs) => run(async () => Number(await client.incrExpire(k(key), ttlMs))),
    hit: async (key, limit, windowMs) => (await hitAll([{ key, limit, windowMs }]))[0],
    hitAll,
    setAdd: (key, member, ttlMs) =>
      run(async () => {
        await client.setAddExpire(k(key), member, ttlMs);
      }),
    setHas: (key, member) => run(async () => (await client.setHasLive(k(key), member)) === 1),
    setRemove: (key, member) =>
      run(async () => {
        await client.zrem(k(key), member);
      }),
    setMembers: (key) => run(async () => client.zrangebyscore(k(key), `(${await now()}`, '+inf')),
    publishAll: (messages) =>
      run(async () => {
        if (!messages.length) return;
        const pipeline = client.pipeline();
        for (const m of messages) pipeline.publish(k(m.channel), m.message);
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) throw failed[0];
      }),
    publish: (channel, message) =>
      run(async () => {
        await client.publish(k(channel), message);
      }),
    subscribe: (channel, handler) =>
      run(async () => {
        const ch = k(channel);
        let set = handlers.get(ch);
        if (!set) {
          handlers.set(ch, (set = new Set()));
          await subscriber.subscribe(ch);
        }
        set.add(handler);
        return async () => {
          const s = handlers.get(ch);
          if (!s) return;
          s.delete(handler);
          if (!s.size) {
            handlers.delete(ch);
            await subscriber.unsubscribe(ch).catch(() => {});
          }
        };
      }),
    ping: () =>
      run(async () => {
        await client.ping();
      }),
    async close() {
      handlers.clear();
      await Promise.allSettled([client.quit(), subscriber.quit()]);
      client.disconnect();
      subscriber.disconnect();
    },
  };
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
