/**
 * Test support: the real platform (@platform/e2e: auth, registry and social in this process on real HTTPS
 * sockets, self-signed certificates) and SDK clients that trust those certificates (its platformTransport: undici's fetch with an
 * Agent holding the CAs, and `ws`'s WebSocket with the same CAs (Node 20 has no global WebSocket)).
 */
import { randomUUID } from 'node:crypto';
import { platformTransport, startPlatform, type Platform } from '@platform/e2e';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createClient, memoryStorage, PlatformError, type ClientOptions, type FetchLike, type PlatformClient, type RealtimeClient, type WebSocketConstructor } from '../src/index.js';

/** Limits out of the way: these tests sign many players in from one address. */
export const RELAXED_AUTH: Record<string, string> = {
  AUTH_MAIL_DEFER_MAX_MS: '0',
  AUTH_RATE_GUEST_PER_IP: '10000',
  AUTH_RATE_GUEST_PER_DEVICE: '10000',
  // The guest abuse score counts every guest made from this one address (docs/auth.md, "Guest abuse score").
  AUTH_GUEST_SCORE_SLOW: '1000000',
  AUTH_GUEST_SCORE_REFUSE: '1000000',
  AUTH_RATE_LOGIN_PER_IP: '10000',
  AUTH_RATE_LOGIN_PER_IP_EMAIL: '10000',
  AUTH_RATE_REFRESH_PER_IP: '10000',
  AUTH_RATE_GENERAL_PER_IP: '100000',
};

export interface TestPlatform {
  platform: Platform;
  fetch: FetchLike;
  WebSocket: WebSocketConstructor;
  /** Every URL fetched through `fetch`, in order (to count refreshes). */
  fetched: string[];
  client(opts?: Partial<ClientOptions>): PlatformClient;
  close(): Promise<void>;
}

export async function startTestPlatform(env: { authEnv?: Record<string, string>; socialEnv?: Record<string, string> } = {}): Promise<TestPlatform> {
  const platform = await startPlatform({ authEnv: { ...RELAXED_AUTH, ...env.authEnv }, socialEnv: env.socialEnv });
  const fetched: string[] = [];
  const transport = platformTransport(platform, (url) => fetched.push(url));
  const fetchImpl: FetchLike = transport.fetch;
  const TrustingWebSocket: WebSocketConstructor = transport.WebSocket;
  return {
    platform,
    fetch: fetchImpl,
    WebSocket: TrustingWebSocket,
    fetched,
    client(opts = {}) {
      return createClient({
        authUrl: platform.auth.url,
        socialUrl: platform.socialUrl,
        storage: memoryStorage(),
        fetch: fetchImpl,
        WebSocket: TrustingWebSocket,
        ...opts,
      });
    },
    async close() {
      await platform.close();
      await transport.close();
    },
  };
}

/**
 * The suite's platform, and its sockets: started before its tests; after them the sockets closed, then the platform.
 * `tp` reads through to the platform once started.
 */
export function usePlatform(env: Parameters<typeof startTestPlatform>[0] = {}): { tp: TestPlatform; sockets: RealtimeClient[] } {
  const sockets: RealtimeClient[] = [];
  let current: TestPlatform | undefined;
  before(async () => {
    current = await startTestPlatform(env);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await current?.close();
  });
  const tp = new Proxy({} as TestPlatform, {
    get: (_t, key) => {
      if (!current) throw new Error('the platform is not started yet');
      const v = Reflect.get(current, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(current) : v;
    },
  });
  return { tp, sockets };
}

export const uniqueEmail = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@client.test`;
export const PASSWORD = 'a perfectly long test passphrase';

/** A signed-in guest with a display name, and its publicId/fullHandle on social. */
export async function player(tp: TestPlatform, name: string, opts: Partial<ClientOptions> = {}) {
  const c = tp.client(opts);
  await c.auth.signInAsGuest();
  const me = await c.social.changeName(name);
  return Object.assign(c, { publicId: me.publicId, fullHandle: me.fullHandle });
}

/** A new game in the platform's registry (a developer of its own): its id and public client key. */
export async function gameClientKey(tp: TestPlatform): Promise<{ gameId: string; clientKey: string; devToken: string }> {
  const dev = await tp.platform.registry.call('POST', '/developers/register', { body: { Email: uniqueEmail('studio'), Password: PASSWORD, DisplayName: 'Studio' } });
  if (dev.status !== 201) throw new Error(`developer not registered: ${JSON.stringify(dev.body)}`);
  const game = await tp.platform.registry.call('POST', '/games', { token: dev.body.Token, body: { DisplayName: 'Client Key Game' } });
  if (game.status !== 201) throw new Error(`game not created: ${JSON.stringify(game.body)}`);
  return { gameId: game.body.Game.GameId, clientKey: game.body.Game.ClientKey, devToken: dev.body.Token };
}

/** Awaits a call that must fail with a PlatformError of this status and code, and returns the error. */
export async function rejects(p: Promise<unknown>, status: number, code: string): Promise<PlatformError> {
  const e = await p.then(
    () => assert.fail(`expected ${status} ${code}`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof PlatformError, `not a PlatformError: ${String(e)}`);
  assert.equal(e.code, code, e.message);
  assert.equal(e.status, status);
  return e;
}
