/**
 * A socket's event frames in id order across its channels (docs/social-realtime.md, "Resume and replay"). Each
 * channel's messages are handled in arrival order, and Redis delivers them to a node in id order; but a message
 * that waits (a party chat message whose author's mutes are being read, a party change being applied, or one
 * queued behind those) would let later events of the socket's other channels overtake it. While such a message
 * is pending for a socket, its frames wait at the socket's gate (the same the replay uses) and leave in id order
 * once nothing is pending: a client that keeps the highest id it saw never skips a lower one on resume.
 */
import { compareLogIds } from '@platform/kit';
import type { Connection } from './connection.js';

type Held = NonNullable<Connection['gate']>;

/** Held frames in id order; a frame without id (an acknowledgement) keeps its place after the event before it. */
export function inIdOrder(held: Held): Held {
  let last = '0-0';
  const keyed = held.map((h, i) => ({ h, i, k: (last = h.id ?? last) }));
  return keyed.sort((a, b) => compareLogIds(a.k, b.k) || a.i - b.i).map((x) => x.h);
}

/** A message that will not be dispatched at once is pending for this socket: hold its other frames. */
export function holdFrames(conn: Connection): void {
  conn.holds = (conn.holds ?? 0) + 1;
  conn.gate ??= [];
}

/** That message's dispatch ended: when nothing else is pending (and no replay runs), the held frames leave. */
export function releaseFrames(conn: Connection, write: (conn: Connection, frame: string | Buffer) => void): void {
  conn.holds = (conn.holds ?? 1) - 1;
  if (conn.holds > 0 || conn.replaying || !conn.gate) return;
  const held = conn.gate;
  conn.gate = undefined;
  for (const h of inIdOrder(held)) write(conn, h.frame);
}
