/** Liveness of sockets: pings that find dead connections, and closing every socket when the node drains. */
import { WebSocket } from 'ws';
import { CLOSE, closeConn, type Connection } from './connection.js';

/** Dead connections (no pong within one interval) are terminated. Returns the stop function. */
export function startPinger(all: Iterable<Connection>, intervalMs: number): () => void {
  const pinger = setInterval(() => {
    for (const conn of all) {
      if (!conn.alive) {
        conn.ws.terminate();
        continue;
      }
      conn.alive = false;
      if (conn.ws.readyState === WebSocket.OPEN) conn.ws.ping();
    }
  }, intervalMs);
  pinger.unref();
  return () => clearInterval(pinger);
}

/** Closes every socket with 1001 and waits until they are gone from `all` (closed, or cut after a grace). */
export async function closeAllSockets(all: ReadonlySet<Connection>): Promise<void> {
  for (const conn of all) closeConn(conn, CLOSE.goingAway, 'server shutting down');
  // Clients answer the close frame at once; stragglers are cut after a short grace.
  const deadline = Date.now() + 3000;
  while (all.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const conn of all) conn.ws.terminate();
  const cut = Date.now() + 1000;
  while (all.size && Date.now() < cut) await new Promise((r) => setTimeout(r, 10));
}
