/** One accepted socket, the close codes, and writing frames to a socket (with the slow-consumer cut). */
import { WebSocket } from 'ws';
import type { App } from '@platform/kit';
import type { GameContext, UserRow } from '../services/context.js';
import type { DropReason, SocialMetrics } from '../services/metrics.js';

export type Log = App['log'];

/** Close codes (also in docs/social-realtime.md). */
export const CLOSE = {
  goingAway: 1001,
  policy: 1008,
  tooLarge: 1009,
  internal: 1011,
  accountDeleted: 4001,
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
}

/** Starts the closing handshake once; a closing socket is sent nothing more. */
export function closeConn(conn: Connection, code: number, reason: string): void {
  if (conn.closing) return;
  conn.closing = true;
  conn.ws.close(code, reason);
}

export interface Sender {
  /** A string, or a Buffer: a text frame encoded once for all its recipients (ws would re-encode a string per socket). */
  send(conn: Connection, frame: string | Buffer): void;
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
  const send = (conn: Connection, frame: string | Buffer) => {
    const dropped = write(conn, frame);
    if (dropped) metrics?.dropped(dropped);
    else metrics?.delivered();
  };
  const sendFrame = (conn: Connection, type: string, data: unknown) => void write(conn, JSON.stringify({ type, data }));
  return {
    send,
    sendFrame,
    sendError: (conn, code, message, extra = {}) => sendFrame(conn, 'error', { code, message, ...extra }),
  };
}
