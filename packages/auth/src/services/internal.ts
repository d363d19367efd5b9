/**
 * Service-to-service calls into the auth service: each calling service has
 * its own secret (AUTH_INTERNAL_KEYS = name:secret,…) sent as
 * `X-Internal-Key: <secret>`. Compared in constant time against every
 * configured secret (no early exit), never logged (the kit redacts the header).
 * Or, on the mutual-TLS listener (AUTH_INTERNAL_MTLS_PORT), a client
 * certificate of the configured CA whose common name is one of
 * AUTH_INTERNAL_MTLS_CALLERS names the caller without a key.
 */
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { mutualTlsName, safeEqual } from '@platform/kit';
import { fail } from '../errors.js';

export const INTERNAL_KEY_HEADER = 'x-internal-key';
/** The player's address, named by an internal caller acting for a player. */
export const CLIENT_IP_HEADER = 'x-platform-client-ip';
/** The game an internal caller acts for (the registry's register-user): counted by a limit of its own. */
export const GAME_ID_HEADER = 'x-platform-game-id';
const GAME_ID = /^[A-Za-z0-9-]{1,64}$/;

/** The game named by the internal caller of this request (set by applyForwardedClientIp). */
const forwardedGames = new WeakMap<object, string>();
export const forwardedGameOf = (req: FastifyRequest): string | undefined => forwardedGames.get(req);

export function createInternalAuth(keys: Map<string, string>, certificateCallers: ReadonlySet<string> = new Set()) {
  const entries = [...keys.entries()];
  const presented = (req: FastifyRequest): string | undefined => {
    const v = req.headers[INTERNAL_KEY_HEADER];
    return Array.isArray(v) ? v[0] : v;
  };
  const caller = (req: FastifyRequest): string | undefined => {
    const key = presented(req);
    if (key === undefined || !entries.length) {
      if (!certificateCallers.size) return undefined;
      // Only the mutual-TLS listener verifies client certificates: elsewhere the socket is never authorized.
      const name = mutualTlsName(req.raw.socket);
      return name !== undefined && certificateCallers.has(name) ? name : undefined;
    }
    let found: string | undefined;
    for (const [name, secret] of entries) if (safeEqual(key, secret) && found === undefined) found = name;
    return found;
  };
  return {
    caller,
    /** 401 unless the request carries a valid internal key (or an accepted client certificate); returns the calling service's name. */
    require(req: FastifyRequest): string {
      const name = caller(req);
      if (name) return name;
      if (presented(req) === undefined) throw fail('internal_key_required', 'This endpoint is for platform services (X-Internal-Key or an accepted client certificate)');
      throw fail('invalid_internal_key', 'The internal key is not valid');
    },
    /**
     * An authenticated internal caller acting for a player names the player's address (the per-address limits,
     * lockout sources and audit see the player, not the service) and the game it acts for (a limit of its own).
     */
    applyForwardedClientIp(req: FastifyRequest): void {
      const header = (name: string) => {
        const v = req.headers[name];
        return (Array.isArray(v) ? v[0] : v)?.trim();
      };
      const ip = header(CLIENT_IP_HEADER);
      const game = header(GAME_ID_HEADER);
      if ((!ip || !isIP(ip)) && (!game || !GAME_ID.test(game))) return;
      if (!caller(req)) return;
      if (game && GAME_ID.test(game)) forwardedGames.set(req, game);
      // Shadows Fastify's prototype getter for this request only.
      if (ip && isIP(ip)) Object.defineProperty(req, 'ip', { value: ip, configurable: true });
    },
  };
}

export type InternalAuth = ReturnType<typeof createInternalAuth>;
