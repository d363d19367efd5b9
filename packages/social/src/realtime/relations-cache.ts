/**
 * Who must not receive a party chat message of an author: the users who
 * muted them and those blocked with them either way (internal ids). Read
 * once per author and kept per node; every block/unblock/mute/unmute
 * publishes on RELATIONS_CHANNEL after its commit and this node drops the
 * whole cache on it (Redis delivers it before any chat message published
 * afterwards). Until that subscription stands the cache is not used; an
 * entry also lapses `relationsCacheMs` after its read began, a bound for an
 * invalidation lost while Redis was unreachable.
 *
 * An author who keeps writing has the entry read again in the background once
 * half of that time has passed, so their messages do not wait on the read (a
 * read holds the party channel's later messages behind it) every few seconds.
 */
import { createBatcher } from '@platform/kit';
import type { Ctx } from '../context.js';
import { RELATIONS_CHANNEL, RELATIONS_WIRE } from '../services/events.js';
import { chatExclusions } from '../queries/relations.js';
import type { Log } from './connection.js';

const RELATIONS_MAX_AUTHORS = 10_000;

interface ExcludedEntry {
  readAt: number;
  set: Promise<Set<string>>;
  refreshing: boolean;
  /** The set once the read has landed (served without a promise). */
  ready?: Set<string>;
}

export interface RelationsCache {
  /** The internal ids who must not receive the author's party chat. */
  excludedFor(actorPublicId: string): Promise<Set<string>>;
  /** The same when it is cached and read already, without a promise (the dispatch then stays synchronous); else undefined. */
  excludedNow(actorPublicId: string): Set<string> | undefined;
  /** Stops using the cache and leaves RELATIONS_CHANNEL. */
  close(): Promise<void>;
}

/**
 * A RELATIONS_CHANNEL message: whatever it says (even a version not read here: docs/decisions/0020-versioned-messages.md),
 * the whole cache goes: dropping too much costs a read, keeping too much delivers a blocked user's chat.
 */
function onRelations(raw: string, log: Log, drop: () => void): void {
  const read = RELATIONS_WIRE.decode(raw);
  if (!read.ok) log.warn({ err: read.error, reason: read.reason }, 'unreadable relations notice: every cached relation dropped');
  drop();
}

/** The reads of several authors at once (a node's first messages, every author again after an invalidation) as one statement. */
function exclusionsLoader(ctx: Ctx) {
  return createBatcher<string, Set<string>>(async (authors) => {
    const rows = await chatExclusions(ctx.db, authors);
    const sets = new Map(authors.map((a) => [a, new Set<string>()]));
    for (const row of rows) sets.get(row.author)!.add(row.id);
    return authors.map((a) => sets.get(a)!);
  });
}

export function createRelationsCache(ctx: Ctx, log: Log): RelationsCache {
  const ttlMs = ctx.config.relationsCacheMs;
  const byAuthor = new Map<string, ExcludedEntry>();
  const load = exclusionsLoader(ctx);
  let generation = 0;
  let live = false;

  /** Reads the author's set again while `stale` still serves; the new read replaces it unless something changed meanwhile. */
  const refresh = (actorPublicId: string, stale: ExcludedEntry, now: number) => {
    stale.refreshing = true;
    const started = generation;
    load(actorPublicId).then(
      (set) => {
        if (started === generation && byAuthor.get(actorPublicId) === stale) byAuthor.set(actorPublicId, { readAt: now, set: Promise.resolve(set), refreshing: false, ready: set });
      },
      (err) => {
        // The entry still serves until it lapses; the next message tries again.
        stale.refreshing = false;
        log.warn({ err }, 'chat author relations not refreshed');
      },
    );
  };
  const read = (actorPublicId: string, now: number): Promise<Set<string>> => {
    const started = generation;
    const entry: ExcludedEntry = { readAt: now, set: load(actorPublicId), refreshing: false };
    // A read that raced an invalidation (or failed) is not kept.
    entry.set.then(
      (set) => {
        entry.ready = set;
        if (started !== generation && byAuthor.get(actorPublicId) === entry) byAuthor.delete(actorPublicId);
      },
      () => {
        if (byAuthor.get(actorPublicId) === entry) byAuthor.delete(actorPublicId);
      },
    );
    if (byAuthor.size >= RELATIONS_MAX_AUTHORS) byAuthor.delete(byAuthor.keys().next().value as string);
    byAuthor.set(actorPublicId, entry);
    return entry.set;
  };
  const drop = () => {
    generation++;
    byAuthor.clear();
  };
  const subscription = ctx.state.subscribe(RELATIONS_CHANNEL, (raw) => onRelations(raw, log, drop)).then(
    (unsubscribe) => {
      drop();
      live = true;
      return unsubscribe;
    },
    (err) => {
      log.warn({ err }, 'relations channel not subscribed; mute/block read per message');
      return undefined;
    },
  );
  return {
    excludedFor(actorPublicId) {
      if (!live) return load(actorPublicId);
      const now = Date.now();
      const hit = byAuthor.get(actorPublicId);
      if (hit && now - hit.readAt < ttlMs) {
        if (!hit.refreshing && now - hit.readAt >= ttlMs / 2) refresh(actorPublicId, hit, now);
        return hit.set;
      }
      if (hit) byAuthor.delete(actorPublicId);
      return read(actorPublicId, now);
    },
    excludedNow(actorPublicId) {
      const hit = live ? byAuthor.get(actorPublicId) : undefined;
      if (!hit?.ready) return undefined;
      const now = Date.now();
      if (now - hit.readAt >= ttlMs) return undefined;
      if (!hit.refreshing && now - hit.readAt >= ttlMs / 2) refresh(actorPublicId, hit, now);
      return hit.ready;
    },
    async close() {
      live = false;
      await (await subscription)?.().catch(() => {});
    },
  };
}
