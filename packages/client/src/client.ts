/** createClient: one object for a player's session, the auth and social APIs and the realtime socket. */
import { AuthApi } from './auth.js';
import { PlatformError } from './errors.js';
import { httpService, type FetchLike } from './http.js';
import { ModerationApi } from './moderation.js';
import { RealtimeClient, type ReconnectOptions, type SessionEndReason, type WebSocketConstructor } from './realtime.js';
import { Session } from './session.js';
import { SocialApi } from './social.js';
import { memoryStorage, type TokenStorage } from './storage.js';
import type { DevicePlatform } from './types.js';

export interface ClientOptions {
  /** The auth service, e.g. https://auth.example.com (8443). */
  authUrl: string;
  /** The social service, e.g. https://social.example.com (9443). */
  socialUrl: string;
  /** The game's client key: `X-Platform-Client-Key` on social calls, `clientKey=` on the socket URL. */
  clientKey?: string;
  /** Where tokens and guest credentials live. Default: memory (gone with the page or process). */
  storage?: TokenStorage;
  /** Default: globalThis.fetch. */
  fetch?: FetchLike;
  /** Default: globalThis.WebSocket (browsers, Node ≥ 22); on Node 20 pass `ws`'s WebSocket. */
  WebSocket?: WebSocketConstructor;
  /** The device platform reported at sign-in (ios, android, win, mac, linux, console, web). */
  platform?: DevicePlatform;
  /** Refresh the access token when it has less than this left. Default 60 seconds. */
  refreshLeewaySeconds?: number;
  /** Realtime: heartbeat interval (default 20 s) and reconnect backoff. */
  realtime?: { heartbeatSeconds?: number; reconnect?: ReconnectOptions | false };
  /** The clock (epoch ms). Default Date.now. */
  now?: () => number;
}

export interface PlatformClient {
  readonly session: Session;
  readonly auth: AuthApi;
  readonly social: SocialApi;
  /** Staff only (moderator or admin role): the report queue, account lookup, sanctions. */
  readonly moderation: ModerationApi;
  /**
   * A new realtime client (one socket, reconnecting, resuming from the last event id it saw); call connect() on
   * it. `lastEventId`: resume from there on the first connect too (an id kept from an earlier page or process).
   */
  realtime(o?: { lastEventId?: string }): RealtimeClient;
}

/** 401 codes that mean "this access token was refused" (auth: invalid_token; social: unauthorized). */
const TOKEN_REFUSED = new Set(['invalid_token', 'unauthorized', 'unauthenticated']);

const SIGN_OUT_REASONS = { session_revoked: 'revoked', account_disabled: 'disabled' } as const;

export function createClient(opts: ClientOptions): PlatformClient {
  const fetchImpl: FetchLike | undefined = opts.fetch ?? (globalThis.fetch ? (url, init) => globalThis.fetch(url, init) : undefined);
  if (!fetchImpl) throw new Error('createClient: no fetch here; pass the `fetch` option');
  const now = opts.now ?? Date.now;
  const storage = opts.storage ?? memoryStorage();
  const authHttp = httpService('auth', opts.authUrl, fetchImpl, () => ({}));
  const socialHttp = httpService('social', opts.socialUrl, fetchImpl, (): Record<string, string> =>
    opts.clientKey ? { 'x-platform-client-key': opts.clientKey } : {},
  );
  const session = new Session({ auth: authHttp, storage, now, refreshLeewaySeconds: opts.refreshLeewaySeconds ?? 60 });

  // Calls with the current token; a refused token (expired early, clock skew) gets one refresh and one retry.
  const authed = async <T>(call: (token: string) => Promise<T>): Promise<T> => {
    const token = await session.accessToken();
    try {
      return await call(token);
    } catch (e) {
      // The token's session was ended (signed out elsewhere, reuse, account disabled or deleted): signed out here.
      if (e instanceof PlatformError && e.status === 401 && e.code === 'token_revoked') {
        await session.clear('revoked');
        throw e;
      }
      if (!(e instanceof PlatformError && e.status === 401 && TOKEN_REFUSED.has(e.code))) throw e;
      return call(await session.tokenAfterRejection(token));
    }
  };

  const auth = new AuthApi({ http: authHttp, session, storage, now, authed, platform: opts.platform });
  const social = new SocialApi(socialHttp, authed);
  const moderation = new ModerationApi(authHttp, socialHttp, authed);

  return {
    session,
    auth,
    social,
    moderation,
    realtime(o = {}) {
      const WebSocketImpl = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
      if (!WebSocketImpl) throw new Error('createClient: no WebSocket here (Node 20); pass the `WebSocket` option, e.g. from the ws package');
      return new RealtimeClient({
        socialUrl: opts.socialUrl,
        clientKey: opts.clientKey,
        WebSocket: WebSocketImpl,
        heartbeatSeconds: opts.realtime?.heartbeatSeconds,
        ...(o.lastEventId !== undefined ? { lastEventId: o.lastEventId } : {}),
        reconnect: opts.realtime?.reconnect,
        onSessionEnded: (reason: SessionEndReason) => void session.clear(SIGN_OUT_REASONS[reason]).catch(() => {}),
        token: async ({ minValiditySeconds, forceRefresh }) => (forceRefresh ? (await session.refresh()).accessToken : session.accessToken(minValiditySeconds)),
      });
    },
  };
}
