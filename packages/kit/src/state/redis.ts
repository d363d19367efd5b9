/**
 * The Redis StateStore (ioredis): several nodes share it. Commands fail fast while Redis is down
 * (503 state_unavailable) and reconnect in the background; atomic steps run as Lua (lua.ts).
 */
import { randomUUID } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { AppError } from '../errors.js';
import { kitError } from '../error-codes.js';
import { HIT_ALL_SCRIPT, INCR_SCRIPT, SET_ADD_SCRIPT, SET_HAS_SCRIPT } from './lua.js';
import type { RateDecision, StateStore, StateStoreOptions, WindowHit } from './types.js';
import { LOG_APPEND_SCRIPT, LOG_READ_SCRIPT } from './event-log-lua.js';
import { checkAppends, withLogId, type LogReadResult } from './event-log.js';
import { reviveOnEnd } from './redis-revive.js';

function wrapRedisError(err: unknown): never {
  if (err instanceof AppError) throw err;
  throw kitError('state_unavailable', 'The shared state store is unavailable; retry later', undefined, { cause: err });
}

interface ScriptCommands {
  hitAll(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  incrExpire(key: string, ttlMs: number): Promise<number>;
  setAddExpire(key: string, member: string, ttlMs: number): Promise<number>;
  setHasLive(key: string, member: string): Promise<number>;
  logAppend(numKeys: number, ...args: (string | number)[]): Promise<string[]>;
  logRead(numKeys: number, ...args: (string | number)[]): Promise<(string | number)[]>;
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

export async function openRedisStore(opts: StateStoreOptions, prefix: string): Promise<StateStore> {
  const { client, subscriber, sharded } = await connect(opts);
  const handlers = new Map<string, Set<(m: string) => void>>();
  subscriber.on(sharded ? 'smessage' : 'message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  const c: Connection = { client, subscriber, handlers, sharded, k: (key: string) => prefix + key };
  const interruptions = watchInterruptions(subscriber, sharded, handlers);
  // A cluster client retries on its own (clusterRetryStrategy); one Redis or Sentinel may end for good.
  const revivals = sharded ? [] : [reviveOnEnd(client as Redis), reviveOnEnd(subscriber as Redis)];
  return {
    kind: 'redis',
    ...valueOps(c),
    ...windowOps(c),
    ...setOps(c),
    ...pubSubOps(c),
    ...logOps(c),
    onInterrupted: interruptions.listen,
    ping: () =>
      run(async () => {
        await client.ping();
      }),
    async close() {
      for (const stop of revivals) stop();
      interruptions.stop();
      handlers.clear();
      await Promise.allSettled([client.quit(), subscriber.quit()]);
      client.disconnect();
      subscriber.disconnect();
    },
  };
}

type Client = (Redis | Cluster) & ScriptCommands;

/** One store's connections (commands, and subscriptions apart), its subscription handlers and key prefix. */
interface Connection {
  client: Client;
  subscriber: Redis | Cluster;
  handlers: Map<string, Set<(m: string) => void>>;
  /** A Redis Cluster: sharded pub/sub (SPUBLISH/SSUBSCRIBE), multi-key work split by hash slot. */
  sharded: boolean;
  k(key: string): string;
}

/** A node of REDIS_CLUSTER_NODES / REDIS_SENTINELS: `host:port` or `redis[s]://[user:password@]host:port`. */
function parseNode(entry: string): { host: string; port: number; username?: string; password?: string; tls: boolean } {
  const u = new URL(/^rediss?:\/\//.test(entry) ? entry : `redis://${entry}`);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    tls: u.protocol === 'rediss:',
  };
}

/** The credentials and TLS the node list carries (the first entry that names any). */
function credentialsOf(entries: readonly string[]): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const nodes = entries.map(parseNode);
  const withAuth = nodes.find((n) => n.username || n.password);
  return { username: withAuth?.username, password: withAuth?.password, ...(nodes.some((n) => n.tls) ? { tls: {} } : {}) };
}

function scriptsOn(client: Client): void {
  // Scripts go out as EVALSHA (ioredis loads them on first NOSCRIPT): the body is not resent and rehashed per call.
  client.defineCommand('hitAll', { lua: HIT_ALL_SCRIPT });
  client.defineCommand('incrExpire', { numberOfKeys: 1, lua: INCR_SCRIPT });
  client.defineCommand('setAddExpire', { numberOfKeys: 1, lua: SET_ADD_SCRIPT });
  client.defineCommand('setHasLive', { numberOfKeys: 1, lua: SET_HAS_SCRIPT });
  client.defineCommand('logAppend', { lua: LOG_APPEND_SCRIPT });
  client.defineCommand('logRead', { lua: LOG_READ_SCRIPT });
}

async function connect(opts: StateStoreOptions): Promise<Pick<Connection, 'client' | 'subscriber' | 'sharded'>> {
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
  let client: Client;
  let subscriber: Redis | Cluster;
  const sharded = Boolean(opts.clusterNodes?.length);
  if (opts.clusterNodes?.length) {
    const seeds = opts.clusterNodes.map((n) => {
      const { host, port } = parseNode(n);
      return { host, port };
    });
    const { retryStrategy: _r, lazyConnect: _l, enableOfflineQueue: _o, ...perNode } = common;
    const clusterOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      // While a primary fails over, the slots are asked for again until its replica answers for them.
      clusterRetryStrategy: (times: number) => Math.min(times * 100, 1000),
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      slotsRefreshTimeout: 2000,
      redisOptions: { ...perNode, ...credentialsOf(opts.clusterNodes) },
    };
    client = new Cluster(seeds, clusterOptions) as Cluster & ScriptCommands;
    // One subscription connection per shard (ioredis' sharded subscribers): a node hears only the shards of
    // the channels it subscribed to.
    subscriber = new Cluster(seeds, { ...clusterOptions, enableOfflineQueue: true, shardedSubscribers: true, redisOptions: { ...clusterOptions.redisOptions, commandTimeout: undefined, maxRetriesPerRequest: null } });
  } else {
    const target: RedisOptions = opts.sentinels?.length
      ? {
          sentinels: opts.sentinels.map((n) => {
            const { host, port } = parseNode(n);
            return { host, port };
          }),
          name: opts.sentinelName ?? 'mymaster',
          ...credentialsOf(opts.sentinels),
          // Told by the sentinels when the primary changes, not only on the next failed command.
          failoverDetector: true,
        }
      : {};
    // No auto-pipelining: measured, it gave no throughput above the noise on the refresh figure and made a
    // social node hold 13.5 KB instead of 4.1 KB per idle WebSocket (bench ws-idle, docs/benchmarks.md).
    const single = opts.url ? new Redis(opts.url, { ...common, ...target }) : new Redis({ ...common, ...target });
    groupWrites(single);
    client = single as Redis & ScriptCommands;
    const subOptions = { ...common, ...target, commandTimeout: undefined, enableOfflineQueue: true, maxRetriesPerRequest: null };
    subscriber = opts.url ? new Redis(opts.url, subOptions) : new Redis(subOptions);
  }
  scriptsOn(client);
  client.on('error', () => {});
  subscriber.on('error', () => {});
  try {
    await client.connect();
    await subscriber.connect();
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw kitError('state_unavailable', `Redis is unreachable: ${(err as Error).message}`, undefined, { cause: err });
  }
  return { client, subscriber, sharded };
}

/**
 * Tells listeners when the subscriptions are live again after a loss. One Redis (or behind Sentinel): the
 * subscription connection closed and is ready again, with its channels subscribed anew (a PING after them
 * answers once they are). A cluster: a shard's subscriber was lost; told once every shard's subscriber has
 * been ready for a moment with none lost again (a failover makes them come and go for a second or two).
 */
function watchInterruptions(subscriber: Redis | Cluster, sharded: boolean, handlers: Map<string, unknown>) {
  const listeners = new Set<() => void>();
  let lost = false;
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    lost = false;
    for (const l of [...listeners]) l();
  };
  if (sharded) {
    subscriber.on('-subscriber', () => {
      if (handlers.size) lost = true;
      clearTimeout(timer);
    });
    subscriber.on('subscribersReady', () => {
      if (!lost) return;
      clearTimeout(timer);
      timer = setTimeout(fire, 300);
    });
  } else {
    subscriber.on('close', () => {
      if (handlers.size) lost = true;
    });
    subscriber.on('ready', () => {
      if (!lost) return;
      // 'ready' comes before ioredis subscribes the channels again: the PING goes after them on the connection.
      setImmediate(() => void (subscriber as Redis).ping().then(fire, () => {}));
    });
  }
  return {
    listen(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop() {
      clearTimeout(timer);
      listeners.clear();
    },
  };
}

async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    wrapRedisError(err);
  }
}

/** How long a publish (or a logged append) is tried again while Redis fails over or restarts. */
export const PUBLISH_RETRY_MS = 5000;

/**
 * `run` for the writes that deliver events: tried again (100 ms, doubling to 1 s) for up to PUBLISH_RETRY_MS
 * while the store refuses them, so an event published while a primary fails over (about 2 s on a cluster, a
 * Sentinel switch likewise) arrives late instead of never. A command that timed out is not tried again: it may
 * have run, and a second run would deliver the event twice. Errors of the script itself are not retried either.
 */
async function runDelivering<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + PUBLISH_RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await fn();
    } catch (err) {
      const message = (err as Error).message ?? '';
      const transient = !/timed out/i.test(message) && !/^ERR /.test(message) && !(err instanceof AppError);
      if (!transient || Date.now() + wait > deadline) wrapRedisError(err);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Positions of keys by hash slot (a cluster runs a multi-key command only within one slot). */
function bySlot(keys: readonly string[]): number[][] {
  const groups = new Map<number, number[]>();
  keys.forEach((key, i) => {
    const slot = calculateSlot(key);
    const g = groups.get(slot);
    if (g) g.push(i);
    else groups.set(slot, [i]);
  });
  return [...groups.values()];
}

/**
 * Runs a multi-key command once for all keys, or on a cluster once per hash slot (in parallel), and puts
 * the per-key results back in order. `call` gets the positions of its keys and returns one result each.
 */
async function perSlot<T>(sharded: boolean, keys: readonly string[], call: (positions: number[]) => Promise<T[]>): Promise<T[]> {
  if (!sharded) return call(keys.map((_, i) => i));
  const out = new Array<T>(keys.length);
  await Promise.all(
    bySlot(keys).map(async (positions) => {
      const results = await call(positions);
      positions.forEach((p, j) => (out[p] = results[j]));
    }),
  );
  return out;
}

function valueOps({ client, k, sharded }: Connection): Pick<StateStore, 'get' | 'getMany' | 'set' | 'setIfAbsent' | 'del' | 'ttl' | 'incr'> {
  return {
    get: (key) => run(() => client.get(k(key))),
    getMany: (keys) =>
      run(async () => {
        const full = keys.map(k);
        return keys.length ? perSlot(sharded, full, (at) => client.mget(at.map((i) => full[i]))) : [];
      }),
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
  };
}

function windowOps({ client, k, sharded }: Connection): Pick<StateStore, 'hit' | 'hitAll'> {
  // Each window decides on its own (the port's contract), so a cluster runs one script per hash slot.
  const hitSome = async (list: readonly WindowHit[]): Promise<RateDecision[]> => {
    const args: (string | number)[] = list.map((w) => k(w.key));
    for (const w of list) args.push(w.limit, w.windowMs);
    args.push(randomUUID());
    const flat = await client.hitAll(list.length, ...args);
    return list.map((_, i) => ({ allowed: flat[3 * i] === 1, count: Number(flat[3 * i + 1]), retryAfterMs: Number(flat[3 * i + 2]) }));
  };
  const hitAll = (list: readonly WindowHit[]): Promise<RateDecision[]> =>
    run(async () => (list.length ? perSlot(sharded, list.map((w) => k(w.key)), (at) => hitSome(at.map((i) => list[i]))) : []));
  return {
    hit: async (key, limit, windowMs) => (await hitAll([{ key, limit, windowMs }]))[0],
    hitAll,
  };
}

function setOps({ client, k }: Connection): Pick<StateStore, 'setAdd' | 'setHas' | 'setRemove' | 'setMembers'> {
  const now = async () => {
    const [s, us] = await client.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  };
  return {
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
  };
}

function pubSubOps({ client, subscriber, handlers, k, sharded }: Connection): Pick<StateStore, 'publish' | 'publishAll' | 'subscribe'> {
  const send = (channel: string, message: string) => (sharded ? client.spublish(channel, message) : client.publish(channel, message));
  return {
    publishAll: async (messages) => {
      if (!messages.length) return;
      // A cluster pipelines only within one slot: each SPUBLISH goes to its shard (in order per connection),
      // each tried again on its own.
      if (sharded) return void (await Promise.all(messages.map((m) => runDelivering(() => send(k(m.channel), m.message)))));
      await runDelivering(async () => {
        const pipeline = client.pipeline();
        for (const m of messages) pipeline.publish(k(m.channel), m.message);
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([err]) => err);
        if (failed) throw failed[0];
      });
    },
    publish: (channel, message) =>
      runDelivering(async () => {
        await send(k(channel), message);
      }),
    subscribe: (channel, handler) =>
      run(async () => {
        const ch = k(channel);
        let set = handlers.get(ch);
        if (!set) {
          handlers.set(ch, (set = new Set()));
          await (sharded ? subscriber.ssubscribe(ch) : subscriber.subscribe(ch));
        }
        set.add(handler);
        return async () => {
          const s = handlers.get(ch);
          if (!s) return;
          s.delete(handler);
          if (!s.size) {
            handlers.delete(ch);
            await (sharded ? subscriber.sunsubscribe(ch) : subscriber.unsubscribe(ch)).catch(() => {});
          }
        };
      }),
  };
}

/**
 * The event logs (event-log.ts, scripts in event-log-lua.ts): one script call per append batch and per read.
 * On a cluster every log key carries the `{log}` hash tag (the one sequence and the logs live in one slot, so
 * the scripts stay atomic), and the appended entries are published by SPUBLISH after the script (a script may
 * publish only to channels of its own slot): an entry is logged, then published; a failure between the two
 * leaves it logged and not sent live (the subscribers of a failed shard are told by onInterrupted).
 */
function logOps({ client, k, sharded }: Connection): Pick<StateStore, 'logAppend' | 'logRead'> {
  const lk = sharded ? (key: string) => k(`{log}${key}`) : k;
  const fixed = [lk('log:seq'), lk('log:bodies')];
  return {
    logAppend: async (items, r) => {
      checkAppends(items);
      if (!items.length) return [];
      const keys = [...fixed];
      const args: (string | number)[] = [r.maxEntries, r.maxAgeMs, items.length];
      for (const i of items) {
        for (const log of i.logs) keys.push(lk(log));
        args.push(i.logs.length, i.entry, i.publish?.message ?? '', i.publish && !sharded ? k(i.publish.channel) : '');
      }
      const ids = await runDelivering(() => client.logAppend(keys.length, ...keys, ...args));
      // Tried again apart from the append: an append that ran is never run twice.
      if (sharded) {
        await Promise.all(
          items.map((i, n) => (i.publish ? runDelivering(() => client.spublish(k(i.publish!.channel), withLogId(i.publish!.message ?? i.entry, ids[n]))) : undefined)),
        );
      }
      return ids;
    },
    logRead: (reads, r, limit) =>
      run(async () => {
        const keys = [...fixed, ...reads.map((x) => lk(x.log))];
        const flat = await client.logRead(keys.length, ...keys, r.maxAgeMs, limit, ...reads.map((x) => x.after));
        const results: LogReadResult[] = [];
        let at = 1;
        for (let i = 0; i < reads.length; i++) {
          const complete = Number(flat[at]) === 1;
          const n = Number(flat[at + 1]);
          at += 2;
          const entries = [];
          for (let j = 0; j < n; j++, at += 2) entries.push({ id: String(flat[at]), entry: String(flat[at + 1]) });
          results.push({ complete, entries });
        }
        return { head: String(flat[0]), results };
      }),
  };
}
