/**
 * The sockets of this node from the handshake to the end of their cleanup: joining the user channel, then
 * the party channel, then registering presence; on close, leaving both channels and (unless the node is
 * draining) the presence registration.
 */
import type { WebSocket, RawData } from 'ws';
import type { Principal } from '../services/auth.js';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { partyChannel, userChannel } from '../services/events.js';
import { CLOSE, closeConn, type Connection, type Log, type Sender } from './connection.js';
import type { Fanout } from './fanout.js';
import type { PresenceTracker } from './presence-tracker.js';
import { armExpiry, disarmExpiry } from './token-expiry.js';
import type { Replayer } from './replay.js';

export interface Connections {
  /** Open sockets on this node. */
  readonly all: ReadonlySet<Connection>;
  /** `resumeFrom`: the last event id the client saw (`?lastEventId=`), when it sent one. */
  open(ws: WebSocket, user: UserRow, game: GameContext, principal: Principal, resumeFrom?: string): Connection;
  /** Resolves once every closed socket's cleanup has finished. */
  settled(): Promise<void>;
}

interface ConnectionDeps {
  ctx: Ctx;
  log: Log;
  tracker: PresenceTracker;
  fanout: Fanout;
  sender: Sender;
  /** With the replay log on: replays what a reconnecting socket missed (replay.ts). */
  replayer?: Replayer;
  onMessage(conn: Connection, data: RawData, isBinary: boolean): void;
  draining(): boolean;
}

/** The settled start of every socket's promise chains: one for all (a promise each is memory held per socket). */
const SETTLED: Promise<void> = Promise.resolve();

function newConnection(deps: ConnectionDeps, id: string, ws: WebSocket, user: UserRow, game: GameContext, principal: Principal): Connection {
  return {
    id,
    ws,
    user,
    game,
    principal,
    partySync: SETTLED,
    setup: SETTLED,
    chain: SETTLED,
    alive: true,
    tokens: deps.ctx.config.wsFramesPerSecond,
    refilledAt: Date.now(),
    strikes: 0,
    closing: false,
    registeredAt: 0,
    // Event frames wait until the replay has run (replay.ts).
    ...(deps.replayer ? { gate: [], replaying: true } : {}),
  };
}

/** The user channel first, then the party read: a party change in between still arrives as a control message. */
async function setUp(deps: ConnectionDeps, conn: Connection, resumeFrom: string | undefined): Promise<void> {
  await deps.fanout.hub.join(userChannel(conn.user.id), conn);
  await deps.fanout.syncParty(conn);
  const at = Date.now();
  // The replay needs the channels live (what it does not read arrives at the gate), not the presence.
  await Promise.all([deps.replayer?.resume(conn, resumeFrom), deps.tracker.connected(conn.user, conn.id, conn.game)]);
  conn.registeredAt = at;
}

async function cleanUp(deps: ConnectionDeps, conn: Connection): Promise<void> {
  await conn.setup.catch(() => {});
  await conn.partySync;
  await deps.fanout.hub.leave(userChannel(conn.user.id), conn);
  if (conn.partyId) await deps.fanout.hub.leave(partyChannel(conn.partyId), conn);
  // A drained node leaves its registrations to lapse: clients reconnect elsewhere without an offline flicker.
  if (!deps.draining()) await deps.tracker.disconnected(conn.user.id, conn.id);
}

/** Whether two reads of a user row say the same (so one object can serve both). */
function sameRow(a: UserRow, b: UserRow): boolean {
  for (const k of Object.keys(b) as (keyof UserRow)[]) {
    const x = a[k];
    const y = b[k];
    if (x instanceof Date && y instanceof Date ? x.getTime() !== y.getTime() : x !== y) return false;
  }
  return Object.keys(a).length === Object.keys(b).length;
}

/**
 * One user row object for a user's sockets on this node while it reads the same: a player's sockets (up to
 * `MaxSocketsPerUser`) each held their own copy of the row read at their upgrade, ~370 B a socket (bench ws-idle,
 * docs/benchmarks.md). A row read differently (a rename since) is kept as is, for its own socket.
 */
function createUserRows() {
  const live = new Map<string, { row: UserRow; sockets: number }>();
  return {
    hold(row: UserRow): UserRow {
      const held = live.get(row.id);
      if (!held) {
        live.set(row.id, { row, sockets: 1 });
        return row;
      }
      held.sockets++;
      if (!sameRow(held.row, row)) held.row = row;
      return held.row;
    },
    release(id: string): void {
      const held = live.get(id);
      if (held && --held.sockets === 0) live.delete(id);
    },
  };
}

export function createConnections(deps: ConnectionDeps): Connections {
  const { log } = deps;
  const all = new Set<Connection>();
  const rows = createUserRows();
  const cleanups = new Set<Promise<void>>();
  let seq = 0;
  return {
    all,
    open(ws, user, game, principal, resumeFrom) {
      const conn = newConnection(deps, `${deps.tracker.nodeId}.${++seq}`, ws, rows.hold(user), game, principal);
      all.add(conn);
      ws.on('pong', () => {
        conn.alive = true;
      });
      ws.on('message', (data, isBinary) => deps.onMessage(conn, data, isBinary));
      ws.on('error', (err) => log.info({ err: { message: err.message }, socketId: conn.id }, 'websocket error'));
      ws.on('close', (code) => {
        conn.closing = true;
        disarmExpiry(conn);
        deps.ctx.metrics.socketClosed(conn.closedWith ?? code);
        log.info({ socketId: conn.id, code }, 'websocket closed');
        all.delete(conn);
        rows.release(conn.user.id);
        const p = cleanUp(deps, conn)
          .catch((err) => log.warn({ err, socketId: conn.id }, 'websocket cleanup failed'))
          .finally(() => cleanups.delete(p));
        cleanups.add(p);
      });
      conn.setup = setUp(deps, conn, resumeFrom);
      conn.setup.catch((err) => {
        log.error({ err, socketId: conn.id }, 'websocket setup failed');
        closeConn(conn, CLOSE.internal, 'setup failed');
      });
      armExpiry(deps, conn);
      log.info({ socketId: conn.id }, 'websocket connected');
      return conn;
    },
    async settled() {
      while (cleanups.size) await Promise.allSettled([...cleanups]);
    },
  };
}
