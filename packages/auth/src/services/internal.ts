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
    applyForwardedClientIp(req: FastifyRequest): void {
      const v = req.headers[CLIENT_IP_HEADER];
      const ip = (Array.isArray(v) ? v[0] : v)?.trim();
      if (!ip || !isIP(ip) || !caller(req)) return;
      // Shadows Fastify's prototype getter for this request only.
      Object.defineProperty(req, 'ip', { value: ip, configurable: true });
    },
  };
}

export type InternalAuth = ReturnType<typeof createInternalAuth>;
