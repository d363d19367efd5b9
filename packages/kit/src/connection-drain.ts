/**
 * A bounded close. Node's server.close() waits for every connection, and closes only those it knows to be idle:
 * a connection that never sent a request (a browser's preconnected or abandoned TLS socket) is not among them, so
 * one such socket held a closing service open until its idle timeout (60 s, seen with Chromium). On close:
 * - connections that never carried a request or an upgrade are cut at once (nothing is in flight on them);
 * - requests in flight keep running for `graceMs`; whatever is still open then (a stuck request, a socket a
 *   service did not drain) is cut.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { App } from './app-type.js';

/** One key for a TCP connection and the TLS socket over it (both have the same remote end). */
const keyOf = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;

export function installConnectionDrain(app: App, graceMs: number): void {
  const server = app.server as Server;
  const open = new Map<string, Socket>();
  const unused = new Set<string>();
  // One listener shared by every socket (not a closure and a once-wrapper each: a node holding 19,000 idle
  // WebSockets kept ~150 B a socket for them). The key is read again at the close: the remote end was read at the
  // connection, and Node keeps it on the socket after its handle is gone.
  function forget(this: Socket) {
    const key = keyOf(this);
    if (open.get(key) === this) {
      open.delete(key);
      unused.delete(key);
    }
  }
  server.on('connection', (socket: Socket) => {
    const key = keyOf(socket);
    open.set(key, socket);
    unused.add(key);
    socket.on('close', forget);
  });
  const used = (req: { socket: Socket }) => unused.delete(keyOf(req.socket));
  server.on('request', used);
  server.on('upgrade', used);

  app.addHook('preClose', (done) => {
    for (const key of unused) open.get(key)?.destroy();
    unused.clear();
    if (open.size > 0) {
      const cut = setTimeout(() => {
        server.closeAllConnections();
        for (const socket of open.values()) socket.destroy();
      }, graceMs);
      cut.unref();
      server.once('close', () => clearTimeout(cut));
    }
    done();
  });
}
