/**
 * The Redis StateStore (ioredis): several nodes share it. Commands fail fast while Redis is down
 * (503 state_unavailable) and reconnect in the background; atomic steps run as Lua (lua.ts).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { kitError } from '../error-codes.js';
import { HIT_ALL_SCRIPT, INCR_SCRIPT, SET_ADD_SCRIPT, SET_HAS_SCRIPT } from './lua.js';
import type { RateDecision, StateStore, WindowHit } from './types.js';
import { LOG_APPEND_SCRIPT, LOG_READ_SCRIPT } from './event-log-lua.js';
import { checkAppends, type LogReadResult } from './event-log.js';

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

export async function openRedisStore(url: string, prefix: string): Promise<StateStore> {
  const { client, subscriber } = await connect(url);
  const handlers = new Map<string, Set<(m: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  const c: Connection = { client, subscriber, handlers, k: (key: string) => prefix + key };
  return {
    kind: 'redis',
    ...valueOps(c),
    ...windowOps(c),
    ...setOps(c),
    ...pubSubOps(c),
    ...logOps(c),
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

/** One store's connections (commands, and subscriptions apart), its subscription handlers and key prefix. */
interface Connection {
  client: Redis & ScriptCommands;
  subscriber: Redis;
  handlers: Map<string, Set<(m: string) => void>>;
  k(key: string): string;
}

async function connect(url: string): Promise<Pick<Connection, 'client' | 'subscriber'>> {
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
  client.defineCommand('logAppend', { lua: LOG_APPEND_SCRIPT });
  client.defineCommand('logRead', { lua: LOG_READ_SCRIPT });
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
    throw kitError('state_unavailable', `Redis is unreachable: ${(err as Error).message}`, undefined, { cause: err });
  }
  return { client, subscriber };
}

async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    wrapRedisError(err);
  }
}

function valueOps({ client, k }: Connection): Pick<StateStore, 'get' | 'getMany' | 'set' | 'setIfAbsent' | 'del' | 'ttl' | 'incr'> {
  return {
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
  };
}

function windowOps({ client, k }: Connection): Pick<StateStore, 'hit' | 'hitAll'> {
  const hitAll = (list: readonly WindowHit[]): Promise<RateDecision[]> =>
    run(async () => {
      if (!list.length) return [];
      const args: (string | number)[] = list.map((w) => k(w.key));
      for (const w of list) args.push(w.limit, w.windowMs);
      args.push(randomUUID());
      const flat = await client.hitAll(list.length, ...args);
      return list.map((_, i) => ({ allowed: flat[3 * i] === 1, count: Number(flat[3 * i + 1]), retryAfterMs: Number(flat[3 * i + 2]) }));
    });
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

function pubSubOps({ client, subscriber, handlers, k }: Connection): Pick<StateStore, 'publish' | 'publishAll' | 'subscribe'> {
  return {
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
  };
}

/** The event logs (event-log.ts, scripts in event-log-lua.ts): one script call per append batch and per read. */
function logOps({ client, k }: Connection): Pick<StateStore, 'logAppend' | 'logRead'> {
  const fixed = [k('log:seq'), k('log:bodies')];
  return {
    logAppend: (items, r) =>
      run(async () => {
        checkAppends(items);
        if (!items.length) return [];
        const keys = [...fixed];
        const args: (string | number)[] = [r.maxEntries, r.maxAgeMs, items.length];
        for (const i of items) {
          for (const log of i.logs) keys.push(k(log));
          args.push(i.logs.length, i.entry, i.publish?.message ?? '', i.publish ? k(i.publish.channel) : '');
        }
        return client.logAppend(keys.length, ...keys, ...args);
      }),
    logRead: (reads, r, limit) =>
      run(async () => {
        const keys = [...fixed, ...reads.map((x) => k(x.log))];
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
