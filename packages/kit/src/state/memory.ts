/**
 * The in-memory StateStore: one node, no Redis. Behaves like the Redis adapter (same contract suite),
 * publishes included: subscribers run asynchronously, never inline.
 */
import { EventEmitter } from 'node:events';
import { kitError } from '../error-codes.js';
import type { RateDecision, StateStore } from './types.js';
import { createMemoryLogs } from './event-log-memory.js';

interface Entry {
  value: string;
  expiresAt: number; // Infinity for none
}

/** What the parts of one memory store share: its maps, bus and key prefix. */
interface Memory {
  values: Map<string, Entry>;
  sets: Map<string, Map<string, number>>;
  windows: Map<string, number[]>;
  bus: EventEmitter;
  k(key: string): string;
  /** The entry of a prefixed key unless it has expired (then it is dropped). */
  live(key: string): Entry | undefined;
}

type ValueOps = Pick<StateStore, 'get' | 'getMany' | 'set' | 'setIfAbsent' | 'del' | 'ttl' | 'incr'>;
type SetOps = Pick<StateStore, 'setAdd' | 'setHas' | 'setRemove' | 'setMembers'>;
type BusOps = Pick<StateStore, 'publish' | 'publishAll' | 'subscribe'>;

export function createMemoryStore(prefix = ''): StateStore {
  const m: Memory = {
    values: new Map(),
    sets: new Map(),
    windows: new Map(),
    bus: new EventEmitter(),
    k: (key) => prefix + key,
    live(key) {
      const e = this.values.get(key);
      if (e && e.expiresAt <= Date.now()) {
        this.values.delete(key);
        return undefined;
      }
      return e;
    },
  };
  m.bus.setMaxListeners(0);
  let closed = false;
  const sweeper = sweepExpired(m);
  const hitWindow = windowHitter(m);
  const bus = busOps(m);
  const logs = createMemoryLogs(m.k, bus.publish);
  return {
    kind: 'memory',
    ...valueOps(m),
    async hit(key, limit, windowMs) {
      return hitWindow(key, limit, windowMs);
    },
    async hitAll(list) {
      return list.map((w) => hitWindow(w.key, w.limit, w.windowMs));
    },
    // One process, no connection to lose.
    onInterrupted: () => () => {},
    ...setOps(m),
    ...bus,
    logAppend: logs.logAppend,
    logRead: logs.logRead,
    async ping() {
      if (closed) throw kitError('state_unavailable', 'The state store is closed');
    },
    async close() {
      closed = true;
      clearInterval(sweeper);
      logs.close();
      m.bus.removeAllListeners();
    },
  };
}

/** Sweeps expired entries now and then so a long-running node does not grow. */
function sweepExpired({ values, sets }: Memory): NodeJS.Timeout {
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, e] of values) if (e.expiresAt <= now) values.delete(key);
    for (const [key, members] of sets) {
      for (const [member, exp] of members) if (exp <= now) members.delete(member);
      if (!members.size) sets.delete(key);
    }
  }, 30_000);
  sweeper.unref();
  return sweeper;
}

function windowHitter({ windows, k }: Memory) {
  return (key: string, limit: number, windowMs: number): RateDecision => {
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
}

function valueOps(m: Memory): ValueOps {
  const { values, sets, windows, k } = m;
  const live = (key: string) => m.live(key);
  return {
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
  };
}

function setOps({ sets, k }: Memory): SetOps {
  return {
    async setAdd(key, member, ttlMs) {
      let members = sets.get(k(key));
      if (!members) sets.set(k(key), (members = new Map()));
      members.set(member, Date.now() + ttlMs);
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
      return [...(sets.get(k(key)) ?? [])].filter(([, exp]) => exp > now).map(([member]) => member);
    },
  };
}

function busOps({ bus, k }: Memory): BusOps {
  const publish = async (channel: string, message: string) => {
    // Asynchronous like Redis: a publisher never runs subscribers inline.
    setImmediate(() => bus.emit(k(channel), message));
  };
  return {
    async publishAll(messages) {
      for (const msg of messages) await publish(msg.channel, msg.message);
    },
    publish,
    async subscribe(channel, handler) {
      const listener = (msg: string) => handler(msg);
      bus.on(k(channel), listener);
      return async () => {
        bus.off(k(channel), listener);
      };
    },
  };
}
