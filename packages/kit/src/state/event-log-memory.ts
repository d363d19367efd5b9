/**
 * The in-memory event logs (one node): the same behaviour as the Redis scripts (event-log-lua.ts), checked
 * by the same contract suite. Publishes go through the memory bus, asynchronously like Redis.
 */
import { checkAppends, compareLogIds, withLogId, type LogAppend, type LogRead, type LogReadOutcome, type LogRetention } from './event-log.js';
import type { StateStore } from './types.js';

interface Item {
  id: string;
  ms: number;
  /** Inline entry; absent: the body is in the shared bodies. */
  entry?: string;
}

interface Log {
  items: Item[];
  /** Entries up to this id are gone (deleted by count, or from before the log was created). */
  floor: string;
  expiresAt: number;
}

const later = (a: string, b: string) => (compareLogIds(a, b) >= 0 ? a : b);

export function createMemoryLogs(
  k: (key: string) => string,
  publish: (channel: string, message: string) => Promise<void>,
): Pick<StateStore, 'logAppend' | 'logRead'> & { close(): void } {
  const logs = new Map<string, Log>();
  const bodies = new Map<string, { entry: string; ms: number }>();
  let lastMs = 0;
  let lastN = -1;
  const nextId = (now: number) => {
    if (now > lastMs) [lastMs, lastN] = [now, 0];
    else lastN++;
    return { id: `${lastMs}-${lastN}`, ms: lastMs };
  };
  const live = (key: string, now: number) => {
    const log = logs.get(key);
    if (log && log.expiresAt <= now) logs.delete(key);
    return log && log.expiresAt > now ? log : undefined;
  };
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, log] of logs) if (log.expiresAt <= now) logs.delete(key);
  }, 30_000);
  sweeper.unref();
  const dropOldBodies = (minMs: number) => {
    for (const [id, b] of bodies) {
      if (b.ms >= minMs) break;
      bodies.delete(id);
    }
  };
  return {
    async logAppend(items: readonly LogAppend[], r: LogRetention) {
      checkAppends(items);
      const now = Date.now();
      dropOldBodies(now - r.maxAgeMs);
      const ids: string[] = [];
      for (const item of items) {
        const { id, ms } = nextId(now);
        const shared = item.logs.length > 1;
        if (shared) bodies.set(id, { entry: item.entry, ms });
        for (const name of item.logs) {
          const key = k(name);
          let log = live(key, now);
          if (!log) logs.set(key, (log = { items: [], floor: `${Math.max(0, ms - r.maxAgeMs)}-0`, expiresAt: 0 }));
          log.items.push(shared ? { id, ms } : { id, ms, entry: item.entry });
          while (log.items.length > r.maxEntries) log.floor = later(log.floor, log.items.shift()!.id);
          log.expiresAt = now + r.maxAgeMs;
        }
        if (item.publish) await publish(item.publish.channel, withLogId(item.publish.message ?? item.entry, id));
        ids.push(id);
      }
      return ids;
    },
    async logRead(reads: readonly LogRead[], r: LogRetention, limit: number): Promise<LogReadOutcome> {
      const now = Date.now();
      const minMs = now - r.maxAgeMs;
      // Before the first append, the first read starts the sequence at its own time (as the Redis script does).
      if (lastN < 0) [lastMs, lastN] = [now, 0];
      const head = `${lastMs}-${lastN}`;
      const results = reads.map(({ log: name, after }) => {
        const log = live(k(name), now);
        if (!log) return { complete: compareLogIds(after, `${Math.max(0, minMs)}-0`) >= 0, entries: [] };
        let floor = log.floor;
        const entries: { id: string; entry: string }[] = [];
        let seen = 0;
        for (const it of log.items) {
          if (compareLogIds(it.id, after) <= 0) continue;
          if (++seen > limit) return { complete: false, entries: [] };
          const entry = it.entry ?? bodies.get(it.id)?.entry;
          if (it.ms < minMs || entry === undefined) floor = later(floor, it.id);
          else entries.push({ id: it.id, entry });
        }
        return compareLogIds(after, floor) >= 0 ? { complete: true, entries } : { complete: false, entries: [] };
      });
      return { head, results };
    },
    close() {
      clearInterval(sweeper);
    },
  };
}
