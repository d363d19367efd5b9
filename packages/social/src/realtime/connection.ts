/** One accepted socket, the close codes, and writing frames to a socket (with the slow-consumer cut). */
import { WebSocket } from 'ws';
import type { App } from '@platform/kit';
import type { Principal } from '../services/auth.js';
import type { GameContext, UserRow } from '../context.js';
import type { DropReason, SocialMetrics } from '../adapters/metrics.js';

export type Log = App['log'];

/** Close codes (also in docs/social-realtime.md). */
export const CLOSE = {
  goingAway: 1001,
  policy: 1008,
  tooLarge: 1009,
  internal: 1011,
  accountDeleted: 4001,
  sessionRevoked: 4002,
  accountDisabled: 4003,
  tokenExpired: 4004,
  gameCredentialsRevoked: 4005,
  slowConsumer: 4008,
} as const;

/** A refused connection closes with 4000 + the HTTP status the refusal has (4401, 4429, 4503 …). */
export const refusalCloseCode = (status: number) => 4000 + status;

/** How long a refused socket waits for the client's closing handshake before it is cut. */
const REFUSAL_LINGER_MS = 2000;

/**
 * A connection refused after the handshake (docs/social-realtime.md, "Refused connections"): one error frame,
 * then the close with the refusal's code, the error code as the close reason.
 */
export function refuseSocket(ws: WebSocket, refusal: { status: number; code: string; message: string; retryAfterSeconds?: number }): void {
  const { code, message, retryAfterSeconds } = refusal;
  ws.send(JSON.stringify({ type: 'error', data: { code, message, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) } }));
  ws.close(refusalCloseCode(refusal.status), code);
  setTimeout(() => ws.terminate(), REFUSAL_LINGER_MS).unref();
}

export interface Connection {
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
  /**
   * The credential the socket holds (its session and token issue time: revocations close it; its expiry:
   * token-expiry.ts): set at the handshake, replaced by an `authenticate` frame.
   */
  principal: Principal;
  /** Closes the socket once its token has been expired longer than the grace (token-expiry.ts). */
  expiryTimer?: NodeJS.Timeout;
  /** While set (the socket's replay runs, or an earlier event is pending: ordering.ts), frames wait here with their ids. */
  gate?: { frame: string | Buffer; id?: string }[];
  /** The replay has not finished (replay.ts). */
  replaying?: boolean;
  /** Messages pending for this socket that hold its other frames (ordering.ts). */
  holds?: number;
  /** The code this node closed the socket with (closeConn), for the closes metric. */
  closedWith?: number;
}

/** Starts the closing handshake once; a closing socket is sent nothing more. */
export function closeConn(conn: Connection, code: number, reason: string): void {
  if (conn.closing) return;
  conn.closing = true;
  conn.closedWith = code;
  conn.ws.close(code, reason);
}

export interface Sender {
  /**
   * A string, or a Buffer: a text frame encoded once for all its recipients (ws would re-encode a string per
   * socket). `id`: the event's replay-log id; held back while the socket's replay runs (`gate`).
   */
  send(conn: Connection, frame: string | Buffer, id?: string): void;
  /** Writes now, past the gate (the replay's own frames). */
  write(conn: Connection, frame: string | Buffer): void;
  sendFrame(conn: Connection, type: string, data: unknown): void;
  sendError(conn: Connection, code: string, message: string, extra?: Record<string, unknown>): void;
}

/** `metrics`: event frames (`send`) delivered and dropped; replies (`sendFrame`, `sendError`) are not events. */
export function createSender(opts: { sendBufferBytes: number; log: Log; metrics?: SocialMetrics }): Sender {
  const { metrics } = opts;
  /** Writes a frame; why not when the socket is closing or is cut now as a slow consumer. */
  const write = (conn: Connection, frame: string | Buffer): DropReason | undefined => {
    if (conn.closing || conn.ws.readyState !== WebSocket.OPEN) return 'socket_closing';
    // A client that does not read must not make the node buffer without bound.
    if (conn.ws.bufferedAmount > opts.sendBufferBytes) {
      opts.log.warn({ socketId: conn.id, buffered: conn.ws.bufferedAmount }, 'websocket slow consumer closed');
      closeConn(conn, CLOSE.slowConsumer, 'slow consumer');
      setTimeout(() => conn.ws.terminate(), 10_000).unref();
      return 'slow_consumer';
    }
    if (typeof frame === 'string') conn.ws.send(frame);
    else conn.ws.send(frame, { binary: false });
    return undefined;
  };
  /** An event frame written now: counted as delivered or dropped (metrics). */
  const writeCounted = (conn: Connection, frame: string | Buffer) => {
    const dropped = write(conn, frame);
    if (dropped) metrics?.dropped(dropped);
    else metrics?.delivered();
  };
  const send = (conn: Connection, frame: string | Buffer, id?: string) => {
    if (conn.gate) conn.gate.push(id === undefined ? { frame } : { frame, id });
    else writeCounted(conn, frame);
  };
  // Replies (heartbeatAck, error …) keep their place behind held events, and are not counted as events.
  const sendFrame = (conn: Connection, type: string, data: unknown) => {
    const frame = JSON.stringify({ type, data });
    if (conn.gate) conn.gate.push({ frame });
    else void write(conn, frame);
  };
  return {
    send,
    // Held frames leaving the gate (replay.ts, ordering.ts): events, for the most part.
    write: writeCounted,
    sendFrame,
    // An error frame is never held behind a replay: it often precedes a close (4004, 4005), which is not held either.
    sendError: (conn, code, message, extra = {}) => void write(conn, JSON.stringify({ type: 'error', data: { code, message, ...extra } })),
  };
}
