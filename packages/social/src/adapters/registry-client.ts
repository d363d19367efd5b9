/**
 * Tenancy: the game a request comes from, resolved through the registry from
 * X-Platform-Game-Key + X-Platform-Game-Secret (POST /auth/validate-key: game
 * servers) or from the game's public client key, X-Platform-Client-Key or the
 * socket's `clientKey` query parameter (POST /auth/validate-client-key: game
 * clients; docs/client-key.md). Both give the same game context, nothing more.
 * Results (positive and negative) are cached briefly, keyed by a SHA-256 of the
 * credentials; the secret itself is never kept or logged. The registry's notices
 * (kit GAME_CREDENTIALS_CHANNEL) drop a game's entries at once (`forget`).
 */
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { gameSecretDigest, guestFeaturesOf, readGroupLimits, readPlatformFriends, readTextFilterSettings, revokesCredential, sha256Hex, type GameCredentialRef, type GameCredentialsNotice, type GuestFeature } from '@platform/kit';
import { CROSS_GAME_VISIBILITY } from '../config.js';
import { NO_GAME, type CrossGameVisibility, type GameContext } from '../context.js';
import { socialError } from '../services/errors.js';

/** The game credentials a request carries (absent: not sent). */
export interface GameCredentials {
  key?: string;
  secret?: string;
  clientKey?: string;
}

export interface TenancyResolver {
  /** The game context of these credentials (`credential` says which one gave it); NO_GAME without any. */
  resolve(creds: GameCredentials): Promise<GameContext>;
  /** A registry notice: the game's cached resolutions are dropped, so the next request asks the registry. */
  forget(notice: GameCredentialsNotice): void;
  /** True when a notice that revokes the context's credential arrived after it was checked (a race with an upgrade). */
  revokedSince(game: GameContext): boolean;
}

/** How long notices are remembered for `revokedSince`: far longer than any upgrade takes. */
const NOTICE_MEMORY_MS = 60_000;

/** The game cache's bookkeeping of registry notices: a count (each resolution notes it) and the recent ones. */
function noticeLog(now: () => number) {
  let count = 0;
  const recent: { n: number; at: number; notice: GameCredentialsNotice }[] = [];
  return {
    get count() {
      return count;
    },
    add(notice: GameCredentialsNotice) {
      count++;
      recent.push({ n: count, at: now(), notice });
      while (recent.length && (recent.length > 10_000 || now() - recent[0].at > NOTICE_MEMORY_MS)) recent.shift();
    },
    revokedSince(game: GameContext): boolean {
      const cred = game.credential;
      return !!cred && recent.some((r) => r.n > cred.checkedAt && revokesCredential(r.notice, cred));
    },
  };
}

const SOCIAL_GUEST_FEATURES: readonly string[] = guestFeaturesOf('social');

/**
 * The game's GuestRestricted as the registry sent it: null (or absent: a registry of the release before) is the
 * deployment's list; names this release does not know (a newer registry's) are left out.
 */
function guestRestrictedOf(v: unknown): GuestFeature[] | null {
  if (!Array.isArray(v)) return null;
  return v.filter((f): f is GuestFeature => typeof f === 'string' && SOCIAL_GUEST_FEATURES.includes(f));
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The game credentials in a request's headers; `clientKeyParam`: the `clientKey` query parameter of a socket
 * upgrade (a browser cannot set socket headers). The same client key in both places is one credential; two
 * different ones are ambiguous.
 */
export function gameCredentials(headers: IncomingHttpHeaders, clientKeyParam?: string | null): GameCredentials {
  const header = first(headers['x-platform-client-key']);
  const param = clientKeyParam ?? undefined;
  if (header !== undefined && param !== undefined && header !== param) {
    throw socialError('ambiguous_game_credentials', 'X-Platform-Client-Key and the clientKey parameter name different keys');
  }
  const clientKey = header ?? param;
  const key = first(headers['x-platform-game-key']);
  const secret = first(headers['x-platform-game-secret']);
  return { ...(key !== undefined ? { key } : {}), ...(secret !== undefined ? { secret } : {}), ...(clientKey !== undefined ? { clientKey } : {}) };
}

/** The registry's longest accepted key (it answers 400 to longer ones, which would read as an outage). */
const MAX_KEY_LENGTH = 256;

function postJson(url: string, body: unknown, timeoutMs: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const payload = Buffer.from(JSON.stringify(body));
    const lib = u.protocol === 'https:' ? https : http;
    const req = lib.request(
      u,
      { method: 'POST', timeout: timeoutMs, headers: { 'content-type': 'application/json', 'content-length': payload.length, accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            /* non-JSON body: status decides */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('registry timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

export function registryTenancy(opts: { registryUrl: string; cacheMs: number; timeoutMs?: number; now?: () => number }): TenancyResolver {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { at: number; game: GameContext | null }>();
  const notices = noticeLog(now);
  const base = opts.registryUrl.endsWith('/') ? opts.registryUrl : opts.registryUrl + '/';
  const pairEndpoint = new URL('auth/validate-key', base).toString();
  const clientKeyEndpoint = new URL('auth/validate-client-key', base).toString();
  /** The game of these credentials (null: unknown), from the cache or the registry. */
  const lookup = async (cacheKey: string, endpoint: string, body: unknown): Promise<GameContext | null> => {
    const hit = cache.get(cacheKey);
    if (hit && now() - hit.at < opts.cacheMs) return hit.game;
    const noticesBefore = notices.count;
    let game: GameContext | null;
    let res: { status: number; body: any };
    try {
      res = await postJson(endpoint, body, opts.timeoutMs ?? 3000);
    } catch (err) {
      throw socialError('registry_unavailable', 'The game registry cannot be reached', undefined, { cause: err });
    }
    if (res.status === 200 && res.body?.Valid === true && typeof res.body.GameId === 'string') {
      const v = String(res.body.CrossGameVisibility ?? 'isolated').toLowerCase();
      const visibility = (CROSS_GAME_VISIBILITY as readonly string[]).includes(v) ? (v as CrossGameVisibility) : 'isolated';
      // The game's text filter (a registry before it answers none: off until it does).
      const f = res.body.TextFilter;
      const textFilter = f && readTextFilterSettings({ mode: f.Mode, allowList: f.AllowList, denyList: f.DenyList, version: f.Version });
      game = {
        gameId: res.body.GameId,
        visibility,
        guestRestricted: guestRestrictedOf(res.body.GuestRestricted),
        groupLimits: readGroupLimits(res.body.GroupLimits),
        platformFriends: readPlatformFriends(res.body.PlatformFriends),
        ...(textFilter ? { textFilter } : {}),
      };
    } else if (res.status === 401 || res.status === 403 || (res.status === 200 && res.body?.Valid === false)) {
      game = null;
    } else {
      throw socialError('registry_unavailable', `The game registry answered HTTP ${res.status}`);
    }
    // An answer that raced a notice may predate the change: used for this request, never cached.
    if (noticesBefore !== notices.count) return game;
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { at: now(), game });
    return game;
  };
  /** The context with the credential that gave it, checked as of `checkedAt`. */
  const using = (game: GameContext, ref: GameCredentialRef, checkedAt: number): GameContext => ({ ...game, credential: { ...ref, checkedAt } });
  return {
    forget(notice) {
      notices.add(notice);
      for (const [k, v] of cache) if (v.game?.gameId === notice.gameId) cache.delete(k);
    },
    revokedSince: (game) => notices.revokedSince(game),
    async resolve({ key, secret, clientKey }) {
      const checkedAt = notices.count;
      if (clientKey !== undefined) {
        // One request, one game context: which of two credentials should win would be a guess.
        if (key !== undefined || secret !== undefined) {
          throw socialError('ambiguous_game_credentials', 'Send either the client key or the game key and secret, not both');
        }
        const game =
          clientKey && clientKey.length <= MAX_KEY_LENGTH
            ? await lookup(sha256Hex(`client\u0000${clientKey}`), clientKeyEndpoint, { ClientKey: clientKey })
            : null;
        if (!game) throw socialError('invalid_client_key', 'The client key is not valid (unknown or replaced)');
        return using(game, { gameId: game.gameId!, kind: 'client', clientKey }, checkedAt);
      }
      if (key === undefined && secret === undefined) return NO_GAME;
      if (!key || !secret) throw socialError('incomplete_game_credentials', 'X-Platform-Game-Key and X-Platform-Game-Secret go together');
      const game = await lookup(sha256Hex(`${key}\u0000${secret}`), pairEndpoint, { ApiKey: key, ApiSecret: secret });
      if (!game) throw socialError('invalid_game_credentials', 'The game key or secret is not valid');
      return using(game, { gameId: game.gameId!, kind: 'pair', apiKey: key, secretDigest: gameSecretDigest(secret) }, checkedAt);
    },
  };
}
