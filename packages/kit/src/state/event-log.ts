/**
 * Event logs on the state store (the port's `logAppend` / `logRead`): bounded, expiring logs of messages
 * under one id sequence that only grows across every node, each append published on a channel with its
 * id in the same step (one round trip on Redis: no message is published without being logged, or logged
 * without being published). Redis: one stream per log (entries with explicit ids, trimmed to the count by
 * deleting the oldest, expiring after the age) and the bodies of messages written to several logs once in
 * a shared stream; memory: the same in maps. Both adapters pass test/event-log.contract.test.ts.
 *
 * Ids are `<ms>-<n>`: a millisecond time and a counter within it, ordered by (ms, n) as numbers, assigned
 * from one sequence (the server's clock on Redis, never going back). Completeness: a read of a log after an
 * id says whether every entry after it is still there (nothing trimmed by count, nothing older than the
 * age, no body lost); a log that expired or never existed is complete only for ids within the age.
 */

export interface LogRetention {
  /** Entries kept per log (the oldest are deleted beyond it). */
  maxEntries: number;
  /** Entries older than this are not served; a log nobody wrote to for this long expires. */
  maxAgeMs: number;
}

export interface LogAppend {
  /** The logs the entry goes to (stored once, referenced from each when there are several). */
  logs: readonly string[];
  /** The entry: a JSON object text, stored as it is. */
  entry: string;
  /** Published after the append, with `"id":"<id>"` inserted as the object's first member. */
  publish?: {
    channel: string;
    /** A JSON object text; the entry itself when absent. */
    message?: string;
  };
}

export interface LogRead {
  log: string;
  /** Entries with ids after this one. */
  after: string;
}

export interface LogEntry {
  id: string;
  entry: string;
}

export interface LogReadResult {
  /** False when an entry after `after` is no longer kept (trimmed, too old, or more than the limit). */
  complete: boolean;
  /** In id order; empty when not complete. */
  entries: LogEntry[];
}

export interface LogReadOutcome {
  /**
   * The last id assigned (before the first append: the time of the first read, `<ms>-0`, so that a resume from it
   * is complete while it is within the age): every append after this read gets a larger one.
   */
  head: string;
  results: LogReadResult[];
}

const ID = /^(\d{1,15})-(\d{1,15})$/;

/** A well-formed log id (`<ms>-<n>`, each at most 15 digits). */
export function isLogId(id: string): boolean {
  return ID.test(id);
}

/** Orders two well-formed log ids: negative, zero or positive. */
export function compareLogIds(a: string, b: string): number {
  const x = ID.exec(a);
  const y = ID.exec(b);
  if (!x || !y) throw new Error(`not a log id: ${x ? b : a}`);
  return Number(x[1]) - Number(y[1]) || Number(x[2]) - Number(y[2]);
}

/** The published text of an append: the id as the first member of the message object. */
export function withLogId(message: string, id: string): string {
  return `{"id":"${id}",${message.slice(1)}`;
}

/** Throws unless every append's entry and message are JSON object texts (so the id can be put in). */
export function checkAppends(items: readonly LogAppend[]): void {
  for (const i of items) {
    const texts = [i.entry, i.publish?.message ?? i.entry];
    if (texts.some((t) => !t.startsWith('{') || t.length < 2 || t === '{}')) throw new Error('log entries and messages are non-empty JSON object texts');
    if (!i.logs.length) throw new Error('an append names at least one log');
  }
}
