/** What a client sends: rate-limited per socket, parsed (frames.ts), handled one at a time in arrival order. */
import type { RawData } from 'ws';
import { AppError } from '@platform/kit';
import type { Authenticator } from '../services/auth.js';
import type { Ctx } from '../context.js';
import { sendChatMessage } from '../services/chat.js';
import { groupedReads } from '../services/grouped-reads.js';
import { readPresence, setPresence, viewPresence } from '../services/presence.js';
import { CLOSE, closeConn, type Connection, type Log, type Sender } from './connection.js';
import { FrameError, parseClientFrame, type ClientFrame } from './frames.js';
import type { PresenceTracker } from './presence-tracker.js';
import { authenticateFrame } from './token-expiry.js';

interface FrameDeps {
  ctx: Ctx;
  log: Log;
  sender: Sender;
  tracker: PresenceTracker;
  authenticator: Authenticator;
}

/** Token bucket: `rate` per second, as many in a burst. */
function takeToken(conn: Connection, rate: number): boolean {
  const now = Date.now();
  conn.tokens = Math.min(rate, conn.tokens + ((now - conn.refilledAt) / 1000) * rate);
  conn.refilledAt = now;
  if (conn.tokens < 1) return false;
  conn.tokens -= 1;
  return true;
}

async function heartbeatFrame({ sender, tracker }: FrameDeps, conn: Connection): Promise<void> {
  await conn.setup;
  const at = Date.now();
  const live = await tracker.refresh(conn.user.id, conn.id);
  if (live) conn.registeredAt = at;
  return sender.sendFrame(conn, 'heartbeatAck', { presence: live ? 'live' : 'lapsed' });
}

async function presenceUpdateFrame({ ctx, sender, tracker }: FrameDeps, conn: Connection, frame: Extract<ClientFrame, { type: 'presenceUpdate' }>): Promise<void> {
  await conn.setup;
  // The user row and the current presence are independent reads: both in flight at once.
  const [row, current] = await Promise.all([groupedReads(ctx.db).user(conn.user.id), readPresence(ctx, conn.user.id)]);
  const fresh = row ?? conn.user;
  // The registration makes a lapsed socket count again. Written less than half the presence TTL ago,
  // it cannot have lapsed (only its expiry or this socket's close removes it): not written again.
  const at = Date.now();
  const register =
    at - conn.registeredAt >= (ctx.config.presenceTtlSeconds * 1000) / 2
      ? tracker.register(fresh.id, conn.id).then(() => {
          conn.registeredAt = at;
        })
      : undefined;
  const [stored] = await Promise.all([setPresence(ctx, fresh, conn.game, { state: frame.state, richPresence: frame.richPresence }, current), register]);
  const view = viewPresence(stored, fresh, fresh.id, conn.game);
  return sender.sendFrame(conn, 'presenceUpdated', { publicId: fresh.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}) });
}

/** A refused frame: the client's mistake is answered as such; anything else is logged as well. */
function frameFailed({ log, sender }: FrameDeps, conn: Connection, type: string, err: unknown): void {
  if (err instanceof AppError && err.status < 500) {
    const retry = err.headers?.['retry-after'] ?? err.headers?.['Retry-After'];
    // The body fields an HTTP answer would carry (guest_restricted's feature and unlocks, chat_restricted's expiresAt).
    return sender.sendError(conn, err.code, err.message, { ...err.details, ...(retry !== undefined ? { retryAfterSeconds: Number(retry) } : {}) });
  }
  log.error({ err, socketId: conn.id, type }, 'websocket frame failed');
  return sender.sendError(conn, err instanceof AppError ? err.code : 'internal_error', err instanceof AppError ? err.message : 'The frame could not be handled');
}

async function handleFrame(deps: FrameDeps, conn: Connection, data: RawData, isBinary: boolean): Promise<void> {
  if (conn.closing) return;
  let frame: ClientFrame;
  try {
    if (isBinary) throw new FrameError('bad_frame', 'Frames are JSON text');
    frame = parseClientFrame(data.toString());
  } catch (err) {
    if (err instanceof FrameError) return deps.sender.sendError(conn, err.code, err.message);
    throw err;
  }
  try {
    switch (frame.type) {
      case 'heartbeat':
        return await heartbeatFrame(deps, conn);
      case 'presenceUpdate':
        return await presenceUpdateFrame(deps, conn, frame);
      case 'chatSend':
        // Delivery (to this socket too) is the chatMessage event of the channel.
        await sendChatMessage(deps.ctx, conn.user, { channel: frame.channel, channelId: frame.channelId, body: frame.body }, { principal: conn.principal, game: conn.game });
        return;
      case 'authenticate':
        return await authenticateFrame(deps, conn, frame.token);
    }
  } catch (err) {
    return frameFailed(deps, conn, frame.type, err);
  }
}

/** The socket's `message` listener. */
export function createFrameHandler(deps: FrameDeps): (conn: Connection, data: RawData, isBinary: boolean) => void {
  const rate = deps.ctx.config.wsFramesPerSecond;
  return (conn, data, isBinary) => {
    if (conn.closing) return;
    if (!takeToken(conn, rate)) {
      deps.ctx.metrics.rateLimited('frames');
      conn.strikes++;
      // Sustained flooding (a whole second's worth of refused frames in a row) ends the connection.
      if (conn.strikes >= rate) return closeConn(conn, CLOSE.policy, 'rate limit exceeded');
      return deps.sender.sendError(conn, 'rate_limited', `At most ${rate} frames per second`);
    }
    conn.strikes = 0;
    conn.chain = conn.chain
      .then(() => handleFrame(deps, conn, data, isBinary))
      .catch((err) => deps.log.error({ err, socketId: conn.id }, 'websocket frame failed'));
  };
}
