// Connection timeouts on /v1/ws (kit createService, HTTP_*_TIMEOUT_MS): a half-sent upgrade request is closed;
// an established WebSocket is not an HTTP connection any more and stays open while quiet.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { useHarness } from '../support.js';
import { connect, listen } from './support.js';

const GIVE_UP_MS = 8000;

describe('realtime: connection timeouts', () => {
  const h = useHarness({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300', HTTP_IDLE_TIMEOUT_MS: '400' });
  let url: { ws: string; http: string };
  before(async () => {
    url = await listen(h.app);
  });

  it('closes a WebSocket upgrade whose headers never finish', async () => {
    const u = await h.user('Slow');
    const port = Number(new URL(url.http).port);
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.resume(); // read, so the server's close (after a 408) reaches this side
    s.write(`GET /v1/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${u.token}\r\nSec-WebSocket-Key: `);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), GIVE_UP_MS);
      s.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    s.destroy();
    assert.ok(closed, 'the server closed the half-sent upgrade');
  });

  it('keeps an established, quiet WebSocket open past the HTTP idle timeout', async () => {
    const u = await h.user('Quiet');
    const c = await connect(url.ws, u.token);
    // Three idle timeouts of silence, then the socket still answers.
    await new Promise((r) => setTimeout(r, 1200));
    c.send({ type: 'heartbeat' });
    assert.deepEqual((await c.next('heartbeatAck')).data, { presence: 'live' });
    await c.close();
  });
});
