/**
 * Events to sockets: the hub's dispatch (control messages, party-channel filtering, one encoded frame per
 * event), party-channel membership of each socket, and the fan-out channel of many-recipient events.
 */
import type { Ctx, GameContext } from '../context.js';
import { FANOUT_CHANNEL, FANOUT_WIRE, partyChannel, replayRetention, userChannel, type EventEnvelope } from '../services/events.js';
import { currentPartyId } from '../services/parties.js';
import { friendPresenceData, presenceViewLevel, type PresenceSource, type ViewLevel } from '../services/presence.js';
import { CLOSE, closeConn, type Connection, type Log, type Sender } from './connection.js';
import { Hub, type Dispatch, type HoldHooks } from './hub.js';
import { holdFrames, releaseFrames } from './ordering.js';
import type { RelationsCache } from './relations-cache.js';

const USER_PREFIX = 'social:user:';
const PARTY_PREFIX = 'social:party:';

export interface Fanout {
  readonly hub: Hub<Connection>;
  /** Moves the socket to the party channel the database says the user is in. */
  syncParty(conn: Connection): Promise<void>;
  /** The dispatch of replayed events (replay.ts): the same filters and per-socket payloads, written past the gate. */
  readonly replayDispatch: Dispatch<Connection>;
  /** Stops local delivery and leaves the fan-out channel. */
  close(): Promise<void>;
}

/**
 * The last frame encoded, by its event's type and data object: a presence change to many friends hands
 * the same data object to every friend who sees the same view, so it is serialised and UTF-8 encoded
 * once, not once per friend. Forgotten at the end of the synchronous run that made it (data objects are
 * not changed after they are published, but nothing here needs to rely on that for longer).
 */
function frameEncoder(): (type: string, data: unknown, id: string | undefined) => Buffer {
  let lastEncoded: { type: string; data: unknown; id: string | undefined; frame: Buffer } | undefined;
  return (type, data, id) => {
    if (lastEncoded && lastEncoded.data === data && lastEncoded.type === type && lastEncoded.id === id && data !== null && typeof data === 'object') {
      return lastEncoded.frame;
    }
    const frame = Buffer.from(eventFrame(type, data, id));
    if (!lastEncoded) queueMicrotask(() => (lastEncoded = undefined));
    lastEncoded = { type, data, id, frame };
    return frame;
  };
}

/** A server → client event frame: `{type, data}`, and `id` when the replay log is on. */
export const eventFrame = (type: string, data: unknown, id: string | undefined): string => JSON.stringify(id === undefined ? { type, data } : { type, data, id });

/**
 * friendPresenceChanged frames: the payload depends on the receiving socket's game context, through the view
 * level only (same game, full, summary, none), so one presence change is serialised and encoded at most once
 * per level, whatever the number of sockets and games. Kept for the synchronous run, like frameEncoder.
 */
function presenceEncoder(): (src: PresenceSource, game: GameContext, id: string | undefined) => Buffer {
  let last: { src: PresenceSource; id: string | undefined; frames: Map<ViewLevel, Buffer> } | undefined;
  return (src, game, id) => {
    if (last?.src !== src || last.id !== id) {
      if (!last) queueMicrotask(() => (last = undefined));
      last = { src, id, frames: new Map() };
    }
    const level = presenceViewLevel(src, game);
    let frame = last.frames.get(level);
    if (!frame) last.frames.set(level, (frame = Buffer.from(eventFrame('friendPresenceChanged', friendPresenceData(src, game), id))));
    return frame;
  };
}

interface DispatchDeps {
  sender: Sender;
  relations: RelationsCache;
  syncParty(conn: Connection): Promise<void>;
}

/** Control messages (types starting with `_`) on a user channel: consumed here, never forwarded as such. */
async function dispatchControl(deps: DispatchDeps, channel: string, msg: EventEnvelope, recipients: Connection[]): Promise<void> {
  if (!channel.startsWith(USER_PREFIX)) return;
  const type = msg.type as string;
  const data = (msg.data ?? {}) as { event?: { type: string; data: unknown } };
  if (type === '_partyChanged') {
    await Promise.all(recipients.map((c) => deps.syncParty(c)));
    if (data.event) {
      const frame = eventFrame(data.event.type, data.event.data, msg.id);
      for (const c of recipients) deps.sender.send(c, frame, msg.id);
    }
  } else if (type === '_accountDeleted') {
    for (const c of recipients) closeConn(c, CLOSE.accountDeleted, 'account_deleted');
  }
}

/** Synchronous unless it must read something first (control messages, a chat author's relations). */
function createDispatch(deps: DispatchDeps): Dispatch<Connection> {
  const encode = frameEncoder();
  const encodePresence = presenceEncoder();
  const deliver = (type: string, data: unknown, id: string | undefined, targets: Connection[]) => {
    // One frame for every recipient: the payload is the same for all of them.
    const frame = encode(type, data, id);
    for (const c of targets) deps.sender.send(c, frame, id);
  };
  return (channel, msg, recipients) => {
    const type = msg.type as string;
    if (type.startsWith('_')) return dispatchControl(deps, channel, msg, recipients);
    if (type === 'friendPresenceChanged' && !msg.prebuilt) {
      // Each socket sees what its own game context shows (a user's sockets may be in different games).
      for (const c of recipients) deps.sender.send(c, encodePresence(msg.data as PresenceSource, c.game, msg.id), msg.id);
      return;
    }
    let targets = recipients;
    if (channel.startsWith(PARTY_PREFIX)) {
      const data = msg.data as { publicId?: string; reason?: string; member?: { publicId?: string } };
      // The member's own copy of these arrives on their user channel.
      if (type === 'partyMemberJoined') targets = targets.filter((c) => c.user.public_id !== data.member?.publicId);
      if (type === 'partyMemberLeft' && data.reason === 'kicked') targets = targets.filter((c) => c.user.public_id !== data.publicId);
      if (type === 'chatMessage' && msg.actorPublicId) {
        const members = targets;
        // Cached and read already (the usual case): delivered now, no promise (and nothing held: ordering.ts).
        const known = deps.relations.excludedNow(msg.actorPublicId);
        if (known) return deliver(type, msg.data, msg.id, known.size ? members.filter((c) => !known.has(c.user.id)) : members);
        return deps.relations
          .excludedFor(msg.actorPublicId)
          .then((excluded) => deliver(type, msg.data, msg.id, excluded.size ? members.filter((c) => !excluded.has(c.user.id)) : members));
      }
    }
    deliver(type, msg.data, msg.id, targets);
  };
}

/** Many-recipient events (presence and profile changes to friends) from the other nodes. */
function subscribeFanout(ctx: Ctx, hub: Hub<Connection>, log: Log) {
  return ctx.state
    .subscribe(FANOUT_CHANNEL, (raw) => {
      if (hub.isOwnEcho(raw)) return;
      // Versioned (docs/decisions/0020-versioned-messages.md): this release's and the previous one's shapes.
      const read = FANOUT_WIRE.decode(raw);
      if (!read.ok) {
        log.warn({ err: read.error, reason: read.reason }, 'unreadable fan-out event dropped');
        ctx.metrics.dropped('unreadable');
        return;
      }
      const m = read.value;
      const recipients = 'presence' in m ? m.userIds : m.groups.flatMap((g) => g.userIds);
      ctx.metrics.busMessage('fanout', recipients.some((id) => hub.socketsOn(userChannel(id)) > 0));
      const actor = { ...(m.actorPublicId ? { actorPublicId: m.actorPublicId } : {}), ...(m.id ? { id: m.id } : {}) };
      if ('presence' in m) {
        // One source object for every local recipient: the dispatch encodes it once per view level.
        for (const userId of m.userIds) hub.deliverLocal(userChannel(userId), { type: m.type, data: m.presence, ...actor });
        return;
      }
      // Presence as payloads already built (the release before per-socket presence): delivered as they are.
      const prebuilt = m.type === 'friendPresenceChanged' ? { prebuilt: true } : {};
      // One data object per group: every local recipient of a group gets the same frame, encoded once.
      for (const g of m.groups) for (const userId of g.userIds) hub.deliverLocal(userChannel(userId), { type: m.type, data: g.data, ...actor, ...prebuilt });
    })
    .catch((err) => {
      log.warn({ err }, 'fan-out channel not subscribed');
      return undefined;
    });
}

export function createFanout(ctx: Ctx, log: Log, sender: Sender, relations: RelationsCache): Fanout {
  const syncParty = (conn: Connection) => {
    conn.partySync = conn.partySync
      .then(async () => {
        if (conn.closing) return;
        const partyId = await currentPartyId(ctx.db, conn.user.id);
        if (partyId === conn.partyId) return;
        const old = conn.partyId;
        conn.partyId = partyId;
        if (old) await hub.leave(partyChannel(old), conn);
        if (partyId) await hub.join(partyChannel(partyId), conn);
      })
      .catch((err) => log.warn({ err, socketId: conn.id }, 'party channel sync failed'));
    return conn.partySync;
  };
  // With event ids (the replay log on), a socket gets its events in id order across channels (ordering.ts).
  const holds: HoldHooks<Connection> | undefined = replayRetention(ctx.config)
    ? { hold: (rs) => rs.forEach(holdFrames), release: (rs) => rs.forEach((c) => releaseFrames(c, sender.write)) }
    : undefined;
  const hub = new Hub<Connection>(ctx.state, createDispatch({ sender, relations, syncParty }), log, ctx.events.origin, holds, ctx.metrics.dropped, (local) =>
    ctx.metrics.busMessage('event', local),
  );
  ctx.events.deliverLocally((channel, env) => hub.deliverLocal(channel, env));
  const subscription = subscribeFanout(ctx, hub, log);
  const direct: Sender = { ...sender, send: (c, frame) => sender.write(c, frame) };
  return {
    hub,
    syncParty,
    replayDispatch: createDispatch({ sender: direct, relations, syncParty: async () => {} }),
    async close() {
      ctx.events.deliverLocally(undefined);
      await (await subscription)?.().catch(() => {});
    },
  };
}
