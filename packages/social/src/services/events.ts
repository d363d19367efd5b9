/**
 * Domain events, published as JSON on the state store for the realtime layer:
 * `social:user:<internal id>` for one user, `social:party:<partyId>` for a
 * party. Message: {type, data, actorPublicId?}. `data` identifies users by
 * publicId only. Events whose actor the recipient muted are not published to
 * that recipient (mute filtering for user channels happens here; on party
 * channels the realtime layer filters with `actorPublicId`).
 */
import { randomUUID } from 'node:crypto';
import { createBatcher, defineWire, type Database, type LogAppend, type LogRetention, type StateStore } from '@platform/kit';
import { mutersAmong as mutersAmongRows } from '../queries/relations.js';
import type { PresenceSource } from './presence-types.js';

export type EventType =
  | 'friendRequestReceived'
  | 'friendRequestAccepted'
  | 'friendRemoved'
  /** A friendship made without a request: a game's platform friends `befriend` mode (services/platform-friends.ts). */
  | 'friendAdded'
  | 'friendProfileChanged'
  | 'friendPresenceChanged'
  | 'partyInviteReceived'
  | 'partyMemberJoined'
  | 'partyMemberLeft'
  | 'partyLeaderChanged'
  | 'gameInviteReceived'
  | 'chatMessage'
  | 'groupJoinRequested'
  | 'groupInviteReceived'
  | 'groupMemberJoined'
  | 'groupMemberLeft'
  | 'groupRoleChanged'
  | 'groupDisbanded'
  /** A notification stored in the recipient's inbox (services/notifications.ts); data: the NotificationDto. */
  | 'notification';

export interface EventEnvelope {
  type: EventType;
  /** The client payload; for friendPresenceChanged a PresenceSource, made into each socket's payload by the realtime layer. */
  data: unknown;
  actorPublicId?: string;
  /** The publishing node (its realtime layer delivered it locally already); never sent to clients. */
  origin?: string;
  /** The event's id in the replay log (docs/social-realtime.md, "Resume and replay"); absent with the log off. */
  id?: string;
  /**
   * friendPresenceChanged only: `data` is the client payload already (a fan-out message of the release before
   * the per-socket presence, `groups` of payloads), not a PresenceSource. Never on the wire.
   */
  prebuilt?: boolean;
}

export interface PublishOptions {
  /** Internal id of the user who caused the event (mute filtering). */
  actorId?: string;
  actorPublicId?: string;
  /** toUsers: the caller already left out the recipients who muted the actor (no mute query here). */
  mutesApplied?: boolean;
}

export const userChannel = (userId: string) => `social:user:${userId}`;
export const partyChannel = (partyId: string) => `social:party:${partyId}`;
/**
 * Every node listens here: a block, unblock, mute or unmute between two users
 * (message `{type: '_relationsChanged', data: {users: [id, id]}}`), so the
 * realtime layer drops what it cached about who may receive whose chat.
 */
export const RELATIONS_CHANNEL = 'social:relations';
/**
 * Every node listens here too: one event type to many users in one message
 * (`{type, groups: [{data, userIds}], actorPublicId?, origin?}`, from `toUsers`:
 * recipients who get the same data share one group, so the data is in the
 * message once); each node hands the data to its local sockets on each of the
 * group's user channels. Presence changes (`presenceToUsers`) travel as
 * `{type: 'friendPresenceChanged', presence, userIds, actorPublicId?, origin?}`:
 * one source, made into each receiving socket's payload there (a node of the
 * version before, which expects `groups`, drops it rather than forward a source).
 * One publish per change instead of one per friend.
 */
export const FANOUT_CHANNEL = 'social:fanout';

export type FanoutMessage =
  | { type: EventType; groups: { data: unknown; userIds: string[] }[]; actorPublicId?: string; origin?: string; id?: string }
  | { type: 'friendPresenceChanged'; presence: PresenceSource; userIds: string[]; actorPublicId?: string; origin?: string; id?: string };

const optionalString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
/** The members every event message may carry besides its body (each only when present). */
const tail = (m: Record<string, unknown>) => ({
  ...(typeof m.actorPublicId === 'string' ? { actorPublicId: m.actorPublicId } : {}),
  ...(typeof m.origin === 'string' ? { origin: m.origin } : {}),
  ...(typeof m.id === 'string' ? { id: m.id } : {}),
});

/**
 * An event on a user or party channel, and an entry of the replay log (docs/decisions/0020-versioned-messages.md):
 * version 1 is `{v?, id?, type, data, actorPublicId?, origin?}` (`origin` last: the hub skips its own echo by it).
 */
export const EVENT_WIRE = defineWire<EventEnvelope>({
  name: 'social.event',
  read: {
    1: (m) => {
      if (typeof m.type !== 'string' || !m.type || !optionalString(m.actorPublicId) || !optionalString(m.origin) || !optionalString(m.id)) return undefined;
      return { type: m.type as EventType, data: m.data ?? null, ...tail(m) };
    },
  },
  writes: 1,
  write: (e) => ({ type: e.type, data: e.data, ...(e.actorPublicId ? { actorPublicId: e.actorPublicId } : {}), ...(e.origin ? { origin: e.origin } : {}) }),
});

const isIdList = (v: unknown): v is string[] => Array.isArray(v) && v.every((id) => typeof id === 'string');

/**
 * A many-recipient event on FANOUT_CHANNEL (docs/decisions/0020-versioned-messages.md). Version 1 has two shapes,
 * both written without `v` before the rule: `groups` of payloads, and (friendPresenceChanged since per-socket
 * presence) one `presence` source. The groups of a friendPresenceChanged, as the release before per-socket presence
 * wrote them, are payloads built for the recipient already: read, not dropped (the cause of the presence lost
 * between two releases: each release dropped the other's shape).
 */
export const FANOUT_WIRE = defineWire<FanoutMessage>({
  name: 'social.fanout',
  read: {
    1: (m) => {
      if (typeof m.type !== 'string' || !m.type || !optionalString(m.actorPublicId) || !optionalString(m.origin) || !optionalString(m.id)) return undefined;
      if (m.type === 'friendPresenceChanged' && m.presence !== undefined) {
        if (!m.presence || typeof m.presence !== 'object' || !isIdList(m.userIds)) return undefined;
        return { type: 'friendPresenceChanged', presence: m.presence as PresenceSource, userIds: m.userIds, ...tail(m) };
      }
      const groups = m.groups;
      if (!Array.isArray(groups) || !groups.every((g: { userIds?: unknown } | null) => g && typeof g === 'object' && isIdList(g.userIds))) return undefined;
      return { type: m.type as EventType, groups: (groups as { data: unknown; userIds: string[] }[]).map((g) => ({ data: g.data ?? null, userIds: g.userIds })), ...tail(m) };
    },
  },
  writes: 1,
  write: (f) => {
    const head = 'presence' in f ? { type: f.type, presence: f.presence, userIds: f.userIds } : { type: f.type, groups: f.groups };
    return { ...head, ...(f.actorPublicId ? { actorPublicId: f.actorPublicId } : {}), ...(f.origin ? { origin: f.origin } : {}) };
  },
});

/** RELATIONS_CHANNEL's message (version 1: `{v?, type: '_relationsChanged', data: {users}}`); its reader drops every cached relation. */
export const RELATIONS_WIRE = defineWire<{ users: string[] }>({
  name: 'social.relations',
  read: { 1: (m) => ({ users: isIdList((m.data as { users?: unknown } | null)?.users) ? (m.data as { users: string[] }).users : [] }) },
  writes: 1,
  write: (r) => ({ type: '_relationsChanged', data: { users: r.users } }),
});

/**
 * The replay log of a channel (a user's or a party's): every event published on it, and every many-recipient
 * event in each recipient's user log, with the control messages (they tell a replay which parties the user
 * was in). Keys under the store's prefix.
 */
export const replayLog = (channel: string) => `rt:log:${channel}`;

/** What the replay log keeps (Social:Realtime:ReplayEntries / ReplaySeconds); undefined: the log is off. */
export function replayRetention(config: { replayEntries: number; replaySeconds: number }): LogRetention | undefined {
  return config.replayEntries > 0 ? { maxEntries: config.replayEntries, maxAgeMs: config.replaySeconds * 1000 } : undefined;
}

/** Events whose payload the realtime layer builds per socket (from the published source). */
export type PerSocketEvent = 'friendPresenceChanged';
type PlainEvent = Exclude<EventType, PerSocketEvent>;

/**
 * Control messages for the realtime layer, published on the user's channel
 * with a type starting with `_`; consumed by the socket layer, never forwarded
 * to clients. `_partyChanged`: the user's party membership changed (the
 * sockets re-read it and move between party channels). `_accountDeleted`: the
 * account was erased (its sockets are closed).
 */
export type ControlType = '_partyChanged' | '_accountDeleted';

export interface EventPublisher {
  toUser(userId: string, type: PlainEvent, data: unknown, opts?: PublishOptions): Promise<void>;
  /**
   * One event type to many users, each with its own data (profile changes to friends): one mute query for
   * all of them and one message for the other nodes, instead of a query and a publish per recipient.
   */
  toUsers(type: PlainEvent, recipients: readonly { userId: string; data: unknown }[], opts?: PublishOptions): Promise<void>;
  /**
   * friendPresenceChanged to many users: one source for all of them, which the realtime layer makes into
   * each receiving socket's payload for that socket's game context (the same user's sockets in two games
   * see two views). One mute query (unless applied) and one message for the other nodes.
   */
  presenceToUsers(userIds: readonly string[], source: PresenceSource, opts?: PublishOptions): Promise<void>;
  toParty(partyId: string, type: PlainEvent, data: unknown, opts?: PublishOptions): Promise<void>;
  control(userId: string, type: ControlType, data?: unknown): Promise<void>;
  /** A block/mute between these users was added or removed (after the commit). */
  relationsChanged(userIds: string[]): Promise<void>;
  /** This publisher's id, stamped on the events it hands to a local deliverer. */
  readonly origin: string;
  /**
   * The realtime layer of this node: user, party and control events go to it directly, and out through
   * the state store for the other nodes (their copy coming back here is skipped by origin).
   */
  deliverLocally(deliver: ((channel: string, env: EventEnvelope) => void) | undefined): void;
}

/** Events a muter no longer receives from the muted user. */
const MUTABLE: ReadonlySet<EventType> = new Set([
  'friendPresenceChanged',
  'friendProfileChanged',
  'friendRequestReceived',
  'partyInviteReceived',
  'gameInviteReceived',
  'groupInviteReceived',
  'chatMessage',
]);

/** Recipients grouped by their data object (the same object, not equal content), in first-seen order. */
function groupByData(recipients: readonly { userId: string; data: unknown }[]): { data: unknown; userIds: string[] }[] {
  const groups = new Map<unknown, string[]>();
  for (const r of recipients) {
    const ids = groups.get(r.data);
    if (ids) ids.push(r.userId);
    else groups.set(r.data, [r.userId]);
  }
  return [...groups].map(([data, userIds]) => ({ data, userIds }));
}

type Warn = { warn(obj: object, msg: string): void };

/**
 * With the replay log on, every event goes out as a log append that also publishes it (one script call per
 * batch: each event gets its id and is logged and published in one step). Nothing is delivered locally
 * first: this node hears its own events from the store like the others, in the order of their ids.
 */
function loggedPublisher(state: StateStore, retention: LogRetention, log: Warn, onPublishFailed: () => void) {
  const append = createBatcher<LogAppend, void>(async (items) => {
    await state.logAppend(items, retention);
    return items.map(() => undefined);
  });
  const appendOrLog = async (item: LogAppend, type: string) => {
    try {
      await append(item);
    } catch (err) {
      onPublishFailed();
      log.warn({ err, type }, 'event not published');
    }
  };
  const logsOf = (userIds: readonly string[]) => userIds.map((id) => replayLog(userChannel(id)));
  return {
    /** An event on one channel, in that channel's log. */
    one: (channel: string, env: EventEnvelope) => appendOrLog({ logs: [replayLog(channel)], entry: EVENT_WIRE.encode(env), publish: { channel } }, env.type),
    /** One append per distinct payload: each recipient's log holds its own event (usually there is one group). */
    async groups(type: EventType, groups: { data: unknown; userIds: string[] }[], actor: { actorPublicId?: string }) {
      for (const g of groups) {
        const message: FanoutMessage = { type, groups: [g], ...actor };
        await appendOrLog({ logs: logsOf(g.userIds), entry: EVENT_WIRE.encode({ type, data: g.data, ...actor }), publish: { channel: FANOUT_CHANNEL, message: FANOUT_WIRE.encode(message) } }, type);
      }
    },
    /** The source once in every recipient's log (the realtime layer builds each socket's payload on replay too). */
    presence(userIds: readonly string[], source: PresenceSource, actor: { actorPublicId?: string }) {
      const type = 'friendPresenceChanged';
      const message: FanoutMessage = { type, presence: source, userIds: [...userIds], ...actor };
      return appendOrLog({ logs: logsOf(userIds), entry: EVENT_WIRE.encode({ type, data: source, ...actor }), publish: { channel: FANOUT_CHANNEL, message: FANOUT_WIRE.encode(message) } }, type);
    },
  };
}

/** Mute filtering of the recipients of an event (user channels; party chat is filtered by the realtime layer). */
function muteFilter(db: Database) {
  /** Those of `userIds` who muted `actorId`, in one query. */
  const mutersAmong = async (actorId: string, userIds: string[]): Promise<Set<string>> => {
    return new Set(await mutersAmongRows(db, actorId, userIds));
  };
  /** The recipients who did not mute the actor (all of them when the caller applied the mutes already). */
  const unmuted = async <R>(type: EventType, recipients: readonly R[], idOf: (r: R) => string, opts: PublishOptions): Promise<readonly R[]> => {
    if (!opts.actorId || !MUTABLE.has(type) || !recipients.length || opts.mutesApplied) return recipients;
    const muters = await mutersAmong(opts.actorId, recipients.map(idOf));
    return muters.size ? recipients.filter((r) => !muters.has(idOf(r))) : recipients;
  };
  return { mutersAmong, unmuted };
}

export function createEventPublisher(
  state: StateStore,
  db: Database,
  log: Warn = { warn() {} },
  /** `replay`: the replay log's retention (off when absent); `onPublishFailed`: told of each publish the state store refused (metrics). */
  opts: { replay?: LogRetention; onPublishFailed?: () => void } = {},
): EventPublisher {
  const onPublishFailed = opts.onPublishFailed ?? (() => {});
  const origin = randomUUID();
  const logged = opts.replay ? loggedPublisher(state, opts.replay, log, onPublishFailed) : undefined;
  // Events published together leave in one pipeline (group commit); order is kept on the one connection.
  const publish = createBatcher<{ channel: string; message: string }, void>(async (ms) => {
    await state.publishAll(ms);
    return ms.map(() => undefined);
  });
  let local: ((channel: string, env: EventEnvelope) => void) | undefined;
  // The REST operation has already committed: a failed delivery or publish is logged, not
  // turned into an error for a change that did happen.
  const deliverHere = (channel: string, env: EventEnvelope) => {
    try {
      local?.(channel, env);
    } catch (err) {
      log.warn({ err, type: env.type }, 'event not delivered locally');
    }
  };
  const publishOrLog = async (channel: string, message: string, type: string) => {
    try {
      await publish({ channel, message });
    } catch (err) {
      log.warn({ err, type }, 'event not published');
      onPublishFailed();
    }
  };
  const { mutersAmong, unmuted } = muteFilter(db);
  const send = async (channel: string, env: EventEnvelope) => {
    if (logged) return logged.one(channel, env);
    if (local) {
      // origin last (EVENT_WIRE writes it last): the hub recognises its own echo by the message's end without parsing it.
      env = { type: env.type, data: env.data, ...(env.actorPublicId ? { actorPublicId: env.actorPublicId } : {}), origin };
      deliverHere(channel, env);
    }
    await publishOrLog(channel, EVENT_WIRE.encode(env), env.type);
  };
  return {
    origin,
    deliverLocally(deliver) {
      local = deliver;
    },
    async toUser(userId, type, data, opts = {}) {
      if (opts.actorId && MUTABLE.has(type) && (await mutersAmong(opts.actorId, [userId])).size) return;
      await send(userChannel(userId), { type, data, ...(opts.actorPublicId ? { actorPublicId: opts.actorPublicId } : {}) });
    },
    async toUsers(type, recipients, opts = {}) {
      const targets = await unmuted(type, recipients, (r) => r.userId, opts);
      if (!targets.length) return;
      const actor = opts.actorPublicId ? { actorPublicId: opts.actorPublicId } : {};
      if (logged) return logged.groups(type, groupByData(targets), actor);
      for (const r of targets) deliverHere(userChannel(r.userId), { type, data: r.data, ...actor });
      // One message for every node (origin last, so this node skips its echo unparsed).
      const message: FanoutMessage = { type, groups: groupByData(targets), ...actor, ...(local ? { origin } : {}) };
      await publishOrLog(FANOUT_CHANNEL, FANOUT_WIRE.encode(message), type);
    },
    async presenceToUsers(userIds, source, opts = {}) {
      const type = 'friendPresenceChanged';
      const targets = await unmuted(type, userIds, (id) => id, opts);
      if (!targets.length) return;
      const actor = opts.actorPublicId ? { actorPublicId: opts.actorPublicId } : {};
      if (logged) return logged.presence(targets, source, actor);
      for (const id of targets) deliverHere(userChannel(id), { type, data: source, ...actor });
      const message: FanoutMessage = { type, presence: source, userIds: [...targets], ...actor, ...(local ? { origin } : {}) };
      await publishOrLog(FANOUT_CHANNEL, FANOUT_WIRE.encode(message), type);
    },
    async toParty(partyId, type, data, opts = {}) {
      await send(partyChannel(partyId), { type, data, ...(opts.actorPublicId ? { actorPublicId: opts.actorPublicId } : {}) });
    },
    async control(userId, type, data = null) {
      await send(userChannel(userId), { type: type as never, data });
    },
    async relationsChanged(userIds) {
      // Not a hub channel: every node, this one included, hears it through the store.
      await publishOrLog(RELATIONS_CHANNEL, RELATIONS_WIRE.encode({ users: userIds }), '_relationsChanged');
    },
  };
}
