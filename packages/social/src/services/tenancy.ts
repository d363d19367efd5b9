/**
 * Tenancy: the game a request comes from, resolved from X-Platform-Game-Key
 * and X-Platform-Game-Secret through the registry's POST /auth/validate-key.
 * Results (positive and negative) are cached briefly, keyed by a SHA-256 of
 * key and secret; the secret itself is never kept or logged.
 */
import http from 'node:http';
import https from 'node:https';
import { sha256Hex } from '@platform/kit';
import { CROSS_GAME_VISIBILITY } from '../config.js';
import { NO_GAME, type CrossGameVisibility, type GameContext } from './context.js';
import { socialError } from './errors.js';

export interface TenancyResolver {
  resolve(key: string | undefined, secret: string | undefined): Promise<GameContext>;
}

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
  const endpoint = new URL('auth/validate-key', opts.registryUrl.endsWith('/') ? opts.registryUrl : opts.registryUrl + '/').toString();
  return {
    async resolve(key, secret) {
      if (key === undefined && secret === undefined) return NO_GAME;
      if (!key || !secret) throw socialError('incomplete_game_credentials', 'X-Platform-Game-Key and X-Platform-Game-Secret go together');
      const cacheKey = sha256Hex(`${key}\u0000${secret}`);
      const hit = cache.get(cacheKey);
      let game: GameContext | null;
      if (hit && now() - hit.at < opts.cacheMs) {
        game = hit.game;
      } else {
        let res: { status: number; body: any };
        try {
          res = await postJson(endpoint, { ApiKey: key, ApiSecret: secret }, opts.timeoutMs ?? 3000);
        } catch (err) {
          throw socialError('registry_unavailable', 'The game registry cannot be reached', undefined, { cause: err });
        }
        if (res.status === 200 && res.body?.Valid === true && typeof res.body.GameId === 'string') {
          const v = String(res.body.CrossGameVisibility ?? 'isolated').toLowerCase();
          const visibility = (CROSS_GAME_VISIBILITY as readonly string[]).includes(v) ? (v as CrossGameVisibility) : 'isolated';
          game = { gameId: res.body.GameId, visibility };
        } else if (res.status === 401 || res.status === 403 || (res.status === 200 && res.body?.Valid === false)) {
          game = null;
        } else {
          throw socialError('registry_unavailable', `The game registry answered HTTP ${res.status}`);
        }
        if (cache.size > 10_000) cache.clear();
        cache.set(cacheKey, { at: now(), game });
      }
      if (!game) throw socialError('invalid_game_credentials', 'The game key or secret is not valid');
      return game;
    },
  };
}
