/**
 * The WebSocket channel, GET /v1/ws (docs/social-realtime.md). The `ws`
 * package in noServer mode on the Fastify server's `upgrade` event, so the
 * service authenticates (same rules as HTTP, plus a token in the
 * `bearer` subprotocol or the `access_token` query parameter) and resolves
 * tenancy BEFORE the handshake completes, answering a plain HTTP error on
 * the socket otherwise.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { AppError, createBatcher, type App } from '@platform/kit';
import type { Authenticator } from '../services/auth.js';
import type { Ctx, GameContext, UserRow } from '../services/context.js';
import { FANOUT_CHANNEL, partyChannel, RELATIONS_CHANNEL, userChannel, type EventEnvelope, type FanoutMessage } from '../services/events.js';
import { sendChatMessage } from '../services/chat.js';
import { currentPartyId } from '../services/parties.js';
import { readPresence, setPresence, viewPresence } from '../services/presence.js';
import type { TenancyResolver } from '../services/tenancy.js';
import { groupedReads } from '../services/grouped-reads.js';
import { ensureUser } from '../services/users.js';
import { FrameError, parseClientFrame, type ClientFrame } from './frames.js';
import { Hub } from './hub.js';
import { createPresenceTracker, type PresenceTracker } from './presence-tracker.js';

export const WS_PATH = '/v1/ws';

/** Close codes (also in docs/social-realtime.md). */
export const CLOSE = {
  goingAway: 1001,
  policy: 1008,
  tooLarge: 1009,
  internal: 1011,
  accountDeleted: 4001,
  slowConsumer: 4008,
} as const;

interface Connection {
  readonly id: string;
  readonly ws: WebSocket;
  readonly user: UserRow;
  readonly game: GameContext;
  partyId?: string;
  partySync: Promise<void>;
  setup: Promise<void>;
  chain: Promise<void>;
  alive: boolean;
  tokens: number;
  refilledAt: number;
  strikes: number;
  closing: boolean;
  /** When this socket's registration was last written (0: not yet). */
  registeredAt: number;
}

export interface Realtime {
  readonly tracker: PresenceTracker;
  /** Open sockets on this node. */
  connections(): number;
  /** Channels this node is subscribed to. */
  subscribedChannels(): string[];
  /** Refuses new upgrades (503) and closes every socket with 1001. */
  drain(): Promise<void>;
}

const USER_PREFIX = 'social:user:';
const PARTY_PREFIX = 'social:party:';

/** The access token of a browser client: subprotocols ["bearer", "<token>"], or ?access_token=. */
export function socketToken(req: IncomingMessage): string | undefined {
  const proto = req.headers['sec-websocket-protocol'];
  if (typeof proto === 'string') {
    const list = proto.split(',').map((s) => s.trim());
    const i = list.indexOf('bearer');
    if (i >= 0 && list[i + 1]) return list[i + 1];
  }
  const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('access_token');
  return q || undefined;
}

/** Writes an HTTP error response on a socket that asked for an upgrade, and closes it. */
function reject(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ code, message, requestId: randomUUID() });
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
  );
}

export function attachRealtime(app: App, ctx: Ctx, deps: { authenticator: Authenticator; tenancy: TenancyResolver }): Realtime {
  const { config } = ctx;
  const log = app.log;
  const tracker = createPresenceTracker(ctx, log);
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: config.wsMaxFrameBytes,
    handleProtocols: (protocols) => (protocols.has('bearer') ? 'bearer' : false),
  });
  const all = new Set<Connection>();
  const byUser = new Map<string, Set<Connection>>();
  const cleanups = new Set<Promise<void>>();
  let draining = false;
  let seq = 0;

  // ------------------------------------------------------------ delivery

  const send = (conn: Connection, frame: string | Buffer) => {
    if (conn.closing || conn.ws.readyState !== WebSocket.OPEN) return;
    // A client that does not read must not make the node buffer without bound.
    if (conn.ws.bufferedAmount > config.wsSendBufferBytes) {
      log.warn({ socketId: conn.id, buffered: conn.ws.bufferedAmount }, 'websocket slow consumer closed');
      closeConn(conn, CLOSE.slowConsumer, 'slow consumer');
      setTimeout(() => conn.ws.terminate(), 10_000).unref();
      return;
    }
    // A Buffer is a text frame encoded once for all its recipients (ws would re-encode a string per socket).
    if (typeof frame === 'string') conn.ws.send(frame);
    else conn.ws.send(frame, { binary: false });
  };
  const sendFrame = (conn: Connection, type: string, data: unknown) => send(conn, JSON.stringify({ type, data }));
  const sendError = (conn: Connection, code: string, message: string, extra: Record<string, unknown> = {}) =>
    sendFrame(conn, 'error', { code, message, ...extra });

  const closeConn = (conn: Connection, code: number, reason: string) => {
    if (conn.closing) return;
    conn.closing = true;
    conn.ws.close(code, reason);
  };

  /** Moves the socket to the party channel the database says the user is in. */
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
  const relationsTtlMs = config.relationsCacheMs;
  const RELATIONS_MAX_AUTHORS = 10_000;
  interface ExcludedEntry {
    readAt: number;
    set: Promise<Set<string>>;
    refreshing: boolean;
  }
  const excludedByAuthor = new Map<string, ExcludedEntry>();
  let relationsGeneration = 0;
  let relationsLive = false;
  // The reads of several authors at once (a node's first messages, every author again after an invalidation)
  // go out as one statement, not one per author on a pool they would queue on.
  const loadExcluded = createBatcher<string, Set<string>>(async (authors) => {
    const r = await ctx.db.query<{ author: string; id: string }>(
      `SELECT a.public_id AS author, x.id::text AS id FROM users a,
         LATERAL (SELECT m.muter AS id FROM mutes m WHERE m.muted = a.id
                  UNION SELECT b.blocker FROM blocks b WHERE b.blocked = a.id
                  UNION SELECT b.blocked FROM blocks b WHERE b.blocker = a.id) x
        WHERE a.public_id = ANY($1::text[])`,
      [authors],
    );
    const sets = new Map(authors.map((a) => [a, new Set<string>()]));
    for (const row of r.rows) sets.get(row.author)!.add(row.id);
    return authors.map((a) => sets.get(a)!);
  });
  /** Reads the author's set again while `stale` still serves; the new read replaces it unless something changed meanwhile. */
  const refreshExcluded = (actorPublicId: string, stale: ExcludedEntry, now: number) => {
    stale.refreshing = true;
    const generation = relationsGeneration;
    loadExcluded(actorPublicId).then(
      (set) => {
        if (generation === relationsGeneration && excludedByAuthor.get(actorPublicId) === stale) {
          excludedByAuthor.set(actorPublicId, { readAt: now, set: Promise.resolve(set), refreshing: false });
        }
      },
      (err) => {
        // The entry still serves until it lapses; the next message tries again.
        stale.refreshing = false;
        log.warn({ err }, 'chat author relations not refreshed');
      },
    );
  };
  const excludedFor = (actorPublicId: string): Promise<Set<string>> => {
    if (!relationsLive) return loadExcluded(actorPublicId);
    const now = Date.now();
    const hit = excludedByAuthor.get(actorPublicId);
    if (hit && now - hit.readAt < relationsTtlMs) {
      if (!hit.refreshing && now - hit.readAt >= relationsTtlMs / 2) refreshExcluded(actorPublicId, hit, now);
      return hit.set;
    }
    if (hit) excludedByAuthor.delete(actorPublicId);
    const generation = relationsGeneration;
    const entry: ExcludedEntry = { readAt: now, set: loadExcluded(actorPublicId), refreshing: false };
    // A read that raced an invalidation (or failed) is not kept.
    entry.set.then(
      () => {
        if (generation !== relationsGeneration && excludedByAuthor.get(actorPublicId) === entry) excludedByAuthor.delete(actorPublicId);
      },
      () => {
        if (excludedByAuthor.get(actorPublicId) === entry) excludedByAuthor.delete(actorPublicId);
      },
    );
    if (excludedByAuthor.size >= RELATIONS_MAX_AUTHORS) excludedByAuthor.delete(excludedByAuthor.keys().next().value as string);
    excludedByAuthor.set(actorPublicId, entry);
    return entry.set;
  };
  const dropRelations = () => {
    relationsGeneration++;
    excludedByAuthor.clear();
  };
  const relationsSubscription = ctx.state.subscribe(RELATIONS_CHANNEL, dropRelations).then(
    (unsubscribe) => {
      dropRelations();
      relationsLive = true;
      return unsubscribe;
    },
    (err) => {
      log.warn({ err }, 'relations channel not subscribed; mute/block read per message');
      return undefined;
    },
  );

  /** Control messages (types starting with `_`) on a user channel: consumed here, never forwarded as such. */
  const dispatchControl = async (channel: string, msg: EventEnvelope, recipients: Connection[]) => {
    if (!channel.startsWith(USER_PREFIX)) return;
    const type = msg.type as string;
    const data = (msg.data ?? {}) as { event?: { type: string; data: unknown } };
    if (type === '_partyChanged') {
      await Promise.all(recipients.map((c) => syncParty(c)));
      if (data.event) {
        const frame = JSON.stringify({ type: data.event.type, data: data.event.data });
        for (const c of recipients) send(c, frame);
      }
    } else if (type === '_accountDeleted') {
      for (const c of recipients) closeConn(c, CLOSE.accountDeleted, 'account deleted');
    }
  };

  /**
   * The last frame encoded, by its event's type and data object: a presence change to many friends hands
   * the same data object to every friend who sees the same view, so it is serialised and UTF-8 encoded
   * once, not once per friend. Forgotten at the end of the synchronous run that made it (data objects are
   * not changed after they are published, but nothing here needs to rely on that for longer).
   */
  let lastEncoded: { type: string; data: unknown; frame: Buffer } | undefined;
  const encode = (type: string, data: unknown): Buffer => {
    if (lastEncoded && lastEncoded.data === data && lastEncoded.type === type && data !== null && typeof data === 'object') return lastEncoded.frame;
    const frame = Buffer.from(JSON.stringify({ type, data }));
    if (!lastEncoded) queueMicrotask(() => (lastEncoded = undefined));
    lastEncoded = { type, data, frame };
    return frame;
  };
  const deliver = (type: string, data: unknown, targets: Connection[]) => {
    // One frame for every recipient: the payload is the same for all of them.
    const frame = encode(type, data);
    for (const c of targets) send(c, frame);
  };

  /** Synchronous unless it must read something first (control messages, a chat author's relations). */
  const dispatch = (channel: string, msg: EventEnvelope, recipients: Connection[]): Promise<void> | void => {
    const type = msg.type as string;
    if (type.startsWith('_')) return dispatchControl(channel, msg, recipients);
    let targets = recipients;
    if (channel.startsWith(PARTY_PREFIX)) {
      const data = msg.data as { publicId?: string; reason?: string; member?: { publicId?: string } };
      // The member's own copy of these arrives on their user channel.
      if (type === 'partyMemberJoined') targets = targets.filter((c) => c.user.public_id !== data.member?.publicId);
      if (type === 'partyMemberLeft' && data.reason === 'kicked') targets = targets.filter((c) => c.user.public_id !== data.publicId);
      if (type === 'chatMessage' && msg.actorPublicId) {
        const members = targets;
        return excludedFor(msg.actorPublicId).then((excluded) => deliver(type, msg.data, excluded.size ? members.filter((c) => !excluded.has(c.user.id)) : members));
      }
    }
    deliver(type, msg.data, targets);
  };

  const hub = new Hub<Connection>(ctx.state, dispatch, log, ctx.events.origin);
  ctx.events.deliverLocally((channel, env) => hub.deliverLocal(channel, env));
  // Many-recipient events (presence and profile changes to friends) from the other nodes.
  const fanoutSubscription = ctx.state
    .subscribe(FANOUT_CHANNEL, (raw) => {
      if (hub.isOwnEcho(raw)) return;
      let m: FanoutMessage;
      try {
        m = JSON.parse(raw) as FanoutMessage;
        if (!m || typeof m.type !== 'string' || !Array.isArray(m.groups) || !m.groups.every((g) => g && Array.isArray(g.userIds))) {
          throw new Error('not a fan-out message');
        }
      } catch (err) {
        log.warn({ err }, 'unreadable fan-out event dropped');
        return;
      }
      const actor = m.actorPublicId ? { actorPublicId: m.actorPublicId } : {};
      // One data object per group: every local recipient of a group gets the same frame, encoded once.
      for (const g of m.groups) for (const userId of g.userIds) hub.deliverLocal(userChannel(userId), { type: m.type, data: g.data, ...actor });
    })
    .catch((err) => {
      log.warn({ err }, 'fan-out channel not subscribed');
      return undefined;
    });

  // ------------------------------------------------------------ client frames

  /** Token bucket: `wsFramesPerSecond` per second, as many in a burst. */
  const takeToken = (conn: Connection): boolean => {
    const now = Date.now();
    const rate = config.wsFramesPerSecond;
    conn.tokens = Math.min(rate, conn.tokens + ((now - conn.refilledAt) / 1000) * rate);
    conn.refilledAt = now;
    if (conn.tokens < 1) return false;
    conn.tokens -= 1;
    return true;
  };

  const handleFrame = async (conn: Connection, data: RawData, isBinary: boolean) => {
    if (conn.closing) return;
    let frame: ClientFrame;
    try {
      if (isBinary) throw new FrameError('bad_frame', 'Frames are JSON text');
      frame = parseClientFrame(data.toString());
    } catch (err) {
      if (err instanceof FrameError) return sendError(conn, err.code, err.message);
      throw err;
    }
    try {
      switch (frame.type) {
        case 'heartbeat': {
          await conn.setup;
          const at = Date.now();
          const live = await tracker.refresh(conn.user.id, conn.id);
          if (live) conn.registeredAt = at;
          return sendFrame(conn, 'heartbeatAck', { presence: live ? 'live' : 'lapsed' });
        }
        case 'presenceUpdate': {
          await conn.setup;
          // The user row and the current presence are independent reads: both in flight at once.
          const [row, current] = await Promise.all([groupedReads(ctx.db).user(conn.user.id), readPresence(ctx, conn.user.id)]);
          const fresh = row ?? conn.user;
          // The registration makes a lapsed socket count again. Written less than half the presence TTL ago,
          // it cannot have lapsed (only its expiry or this socket's close removes it): not written again.
          const at = Date.now();
          const register =
            at - conn.registeredAt >= (config.presenceTtlSeconds * 1000) / 2
              ? tracker.register(fresh.id, conn.id).then(() => {
                  conn.registeredAt = at;
                })
              : undefined;
          const [stored] = await Promise.all([setPresence(ctx, fresh, conn.game, { state: frame.state, richPresence: frame.richPresence }, current), register]);
          const view = viewPresence(stored, fresh, fresh.id, conn.game);
          return sendFrame(conn, 'presenceUpdated', { publicId: fresh.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}) });
        }
        case 'chatSend':
          // Delivery (to this socket too) is the chatMessage event of the channel.
          await sendChatMessage(ctx, conn.user, { channel: frame.channel, channelId: frame.channelId, body: frame.body });
          return;
      }
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        const retry = err.headers?.['retry-after'] ?? err.headers?.['Retry-After'];
        return sendError(conn, err.code, err.message, retry !== undefined ? { retryAfterSeconds: Number(retry) } : {});
      }
      log.error({ err, socketId: conn.id, type: frame.type }, 'websocket frame failed');
      return sendError(conn, err instanceof AppError ? err.code : 'internal_error', err instanceof AppError ? err.message : 'The frame could not be handled');
    }
  };

  const onMessage = (conn: Connection, data: RawData, isBinary: boolean) => {
    if (conn.closing) return;
    if (!takeToken(conn)) {
      conn.strikes++;
      // Sustained flooding (a whole second's worth of refused frames in a row) ends the connection.
      if (conn.strikes >= config.wsFramesPerSecond) return closeConn(conn, CLOSE.policy, 'rate limit exceeded');
      return sendError(conn, 'rate_limited', `At most ${config.wsFramesPerSecond} frames per second`);
    }
    conn.strikes = 0;
    conn.chain = conn.chain
      .then(() => handleFrame(conn, data, isBinary))
      .catch((err) => log.error({ err, socketId: conn.id }, 'websocket frame failed'));
  };

  // ------------------------------------------------------------ lifecycle

  const cleanup = async (conn: Connection) => {
    all.delete(conn);
    const mine = byUser.get(conn.user.id);
    mine?.delete(conn);
    if (mine && !mine.size) byUser.delete(conn.user.id);
    await conn.setup.catch(() => {});
    await conn.partySync;
    await hub.leave(userChannel(conn.user.id), conn);
    if (conn.partyId) await hub.leave(partyChannel(conn.partyId), conn);
    // A drained node leaves its registrations to lapse: clients reconnect elsewhere without an offline flicker.
    if (!draining) await tracker.disconnected(conn.user.id, conn.id);
  };

  const onConnection = (ws: WebSocket, user: UserRow, game: GameContext) => {
    const conn: Connection = {
      id: `${tracker.nodeId}.${++seq}`,
      ws,
      user,
      game,
      partySync: Promise.resolve(),
      setup: Promise.resolve(),
      chain: Promise.resolve(),
      alive: true,
      tokens: config.wsFramesPerSecond,
      refilledAt: Date.now(),
      strikes: 0,
      closing: false,
      registeredAt: 0,
    };
    all.add(conn);
    let mine = byUser.get(user.id);
    if (!mine) byUser.set(user.id, (mine = new Set()));
    mine.add(conn);
    ws.on('pong', () => {
      conn.alive = true;
    });
    ws.on('message', (data, isBinary) => onMessage(conn, data, isBinary));
    ws.on('error', (err) => log.info({ err: { message: err.message }, socketId: conn.id }, 'websocket error'));
    ws.on('close', (code) => {
      conn.closing = true;
      log.info({ socketId: conn.id, code }, 'websocket closed');
      const p = cleanup(conn)
        .catch((err) => log.warn({ err, socketId: conn.id }, 'websocket cleanup failed'))
        .finally(() => cleanups.delete(p));
      cleanups.add(p);
    });
    // The user channel first, then the party read: a party change in between still arrives as a control message.
    conn.setup = (async () => {
      await hub.join(userChannel(user.id), conn);
      await syncParty(conn);
      const at = Date.now();
      await tracker.connected(user, conn.id, game);
      conn.registeredAt = at;
    })();
    conn.setup.catch((err) => {
      log.error({ err, socketId: conn.id }, 'websocket setup failed');
      closeConn(conn, CLOSE.internal, 'setup failed');
    });
    log.info({ socketId: conn.id }, 'websocket connected');
  };

  // Open sockets (counted from the accepted upgrade to the close) per user and per remote address.
  const socketsByUser = new Map<string, number>();
  const socketsByAddress = new Map<string, number>();
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    // The kit's req serializer redacts access_token in the URL; headers are not logged.
    log.info({ req }, 'websocket upgrade');
    if (path !== WS_PATH) return reject(socket, 404, 'route_not_found', `No route ${path}`);
    if (draining) return reject(socket, 503, 'shutting_down', 'This node is shutting down; reconnect', { 'Retry-After': '1' });
    if (req.method !== 'GET' || String(req.headers.upgrade).toLowerCase() !== 'websocket') {
      return reject(socket, 400, 'upgrade_required', 'GET /v1/ws must be a WebSocket upgrade');
    }
    // Caps per node (docs/social-realtime.md): per remote address before any work, per user once known.
    const address = req.socket.remoteAddress ?? 'unknown';
    if ((socketsByAddress.get(address) ?? 0) >= config.wsMaxSocketsPerAddress) {
      return reject(socket, 429, 'too_many_sockets', 'Too many open sockets from this address', { 'Retry-After': '5' });
    }
    let user: UserRow;
    let game: GameContext;
    try {
      const headers: Record<string, string | string[] | undefined> = { ...req.headers };
      const token = socketToken(req);
      if (token && headers.authorization === undefined && headers['x-api-key'] === undefined) headers.authorization = `Bearer ${token}`;
      const principal = await deps.authenticator.authenticate(headers);
      const key = req.headers['x-platform-game-key'];
      const secret = req.headers['x-platform-game-secret'];
      game = await deps.tenancy.resolve(Array.isArray(key) ? key[0] : key, Array.isArray(secret) ? secret[0] : secret);
      user = await ensureUser(ctx, principal.accountId, principal.handleHint);
    } catch (err) {
      if (err instanceof AppError) {
        if (err.status >= 500) log.error({ err: err.cause ?? err, code: err.code }, 'websocket upgrade failed');
        return reject(socket, err.status, err.code, err.message, err.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
      }
      log.error({ err }, 'websocket upgrade failed');
      return reject(socket, 500, 'internal_error', 'The upgrade could not be handled');
    }
    if (draining) return reject(socket, 503, 'shutting_down', 'This node is shutting down; reconnect', { 'Retry-After': '1' });
    if ((socketsByUser.get(user.id) ?? 0) >= config.wsMaxSocketsPerUser || (socketsByAddress.get(address) ?? 0) >= config.wsMaxSocketsPerAddress) {
      return reject(socket, 429, 'too_many_sockets', 'Too many open sockets for this user; close one first', { 'Retry-After': '5' });
    }
    const count = (m: Map<string, number>, k: string, d: number) => {
      const n = (m.get(k) ?? 0) + d;
      if (n > 0) m.set(k, n);
      else m.delete(k);
    };
    count(socketsByUser, user.id, 1);
    count(socketsByAddress, address, 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      count(socketsByUser, user.id, -1);
      count(socketsByAddress, address, -1);
    };
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.once('close', release);
      onConnection(ws, user, game);
    });
  };

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    void upgrade(req, socket, head);
  });

  // Dead connections (no pong within one interval) are terminated.
  const pinger = setInterval(() => {
    for (const conn of all) {
      if (!conn.alive) {
        conn.ws.terminate();
        continue;
      }
      conn.alive = false;
      if (conn.ws.readyState === WebSocket.OPEN) conn.ws.ping();
    }
  }, config.wsPingSeconds * 1000);
  pinger.unref();
  tracker.start();

  const realtime: Realtime = {
    tracker,
    connections: () => all.size,
    subscribedChannels: () => hub.subscribedChannels(),
    async drain() {
      if (draining) return;
      draining = true;
      tracker.stop();
      clearInterval(pinger);
      for (const conn of all) closeConn(conn, CLOSE.goingAway, 'server shutting down');
      // Clients answer the close frame at once; stragglers are cut after a short grace.
      const deadline = Date.now() + 3000;
      while (all.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const conn of all) conn.ws.terminate();
      const cut = Date.now() + 1000;
      while (all.size && Date.now() < cut) await new Promise((r) => setTimeout(r, 10));
      while (cleanups.size) await Promise.allSettled([...cleanups]);
      relationsLive = false;
      ctx.events.deliverLocally(undefined);
      await (await relationsSubscription)?.().catch(() => {});
      await (await fanoutSubscription)?.().catch(() => {});
    },
  };
  app.addHook('preClose', async () => {
    await realtime.drain();
  });
  return realtime;
}
