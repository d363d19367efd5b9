/**
 * Refused handshakes through the SDK in Node (docs/social-realtime.md, "Refused connections"): `ws` sends no
 * Origin, so social answers the spec's HTTP status (401, 429 with Retry-After, 503); a browser's handshake
 * (Origin) is refused in band (error frame, 4000 + status). The client reads both the same way: the same close
 * event, the same decision to reconnect or stop, and a 429's Retry-After as the least delay before the next try.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { PlatformError, type LifecycleEvents, type WebSocketConstructor } from '../src/index.js';
import { player, usePlatform } from './support.js';

describe('client: refused handshakes, over HTTP (no Origin, ws in Node) and in band (a browser)', () => {
  // One socket per user and node: the second one is refused with too_many_sockets (Retry-After 5).
  const { tp, sockets } = usePlatform({ socialEnv: { SOCIAL_REALTIME_MAX_SOCKETS_PER_USER: '1' } });

  /** `ws` as a browser would open it: with an Origin header. */
  const browserLike = (): WebSocketConstructor => {
    const ca = tp.platform.socialTls.cert;
    return class BrowserLike extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols, { ca, headers: { origin: 'https://game.example' } });
      }
    } as unknown as WebSocketConstructor;
  };
  /** What a raw handshake without Origin gets: the HTTP status, or `open`. */
  const rawHandshake = (query: string, token: string) =>
    new Promise<{ status: number; retryAfter?: string; code?: string } | 'open'>((resolve, reject) => {
      const ws = new WebSocket(`${tp.platform.socialUrl.replace(/^https/, 'wss')}/v1/ws${query}`, ['bearer', token], { ca: tp.platform.socialTls.cert });
      ws.once('open', () => {
        ws.terminate();
        resolve('open');
      });
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], code: JSON.parse(text).code });
          ws.terminate();
        });
      });
      ws.once('error', (e) => (e.message.includes('closed before the connection') ? undefined : reject(e)));
    });

  for (const mode of ['http', 'in band'] as const) {
    const options = () => ({ ...(mode === 'in band' ? { WebSocket: browserLike() } : {}), realtime: { reconnect: { initialDelayMs: 10, maxDelayMs: 20 } } });

    it(`${mode}: an unknown client key ends the client for good (4401 invalid_client_key)`, async () => {
      // The key is checked over HTTP too: a guest session only (no social call before the socket).
      const c = tp.client({ ...options(), clientKey: 'ck_not_a_key' });
      await c.auth.signInAsGuest();
      const rt = c.realtime();
      sockets.push(rt);
      let reconnects = 0;
      rt.on('reconnecting', () => reconnects++);
      const closed = rt.next('close');
      const connecting = rt.connect();
      assert.deepEqual(await closed, { code: 4401, reason: 'unauthorized', errorCode: 'invalid_client_key', willReconnect: false });
      await assert.rejects(connecting, (e: unknown) => e instanceof PlatformError && e.code === 'invalid_client_key');
      assert.equal(reconnects, 0);
      if (mode === 'http') {
        const token = (await c.session.get())!.accessToken;
        assert.deepEqual(await rawHandshake('?clientKey=ck_not_a_key', token), { status: 401, retryAfter: undefined, code: 'invalid_client_key' });
      }
    });

    it(`${mode}: too many sockets (4429) is retried, no sooner than the server's Retry-After (5 s), whatever the backoff`, async () => {
      const c = await player(tp, 'Twice', options());
      const first = c.realtime();
      sockets.push(first);
      await first.connect();
      const second = c.realtime();
      sockets.push(second);
      const closed = second.next('close');
      const retry = second.next('reconnecting');
      void second.connect().catch(() => {});
      assert.deepEqual(await closed, { code: 4429, reason: 'too_many_sockets', errorCode: 'too_many_sockets', willReconnect: true } satisfies LifecycleEvents['close']);
      const { attempt, delayMs } = await retry;
      assert.equal(attempt, 1);
      assert.ok(delayMs >= 5000, `the next try in ${delayMs} ms, before the Retry-After`);
      // Jittered over half as long again, so clients refused together do not all return together.
      assert.ok(delayMs <= 7500, `the next try in ${delayMs} ms, past Retry-After × 1.5`);
      second.close();
      if (mode === 'http') {
        const token = (await c.session.get())!.accessToken;
        assert.deepEqual(await rawHandshake('', token), { status: 429, retryAfter: '5', code: 'too_many_sockets' });
      }
      first.close();
    });
  }
});
