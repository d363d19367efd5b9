/**
 * Authentication: Bearer access tokens verified offline against the auth
 * service's key set (PASETO v4.public or EdDSA JWT), or, server to server,
 * X-Api-Key (constant-time) with X-User-Id naming the account. The account id
 * (`sub`) only selects the profile row; it never appears in a response.
 */
import { safeEqual, tokenRejectionReason, type AccessClaims, type AccessTokenVerifier, type KeyResolver } from '@platform/kit';
import { socialError } from './errors.js';
import type { Revocations } from './revocations.js';

export interface Principal {
  accountId: string;
  handleHint?: string;
  /** When the access token expires (epoch ms, from its `exp`); absent in API-key mode. */
  expiresAt?: number;
  /** The token's roles claim (`player`, `moderator`, `admin`, `server`); none in API-key mode. */
  roles?: readonly string[];
  /** The token's session (`sid`); none in API-key mode. */
  sid?: string;
  /** The token's `iat` in unix milliseconds (AccessClaims.iatMs); none in API-key mode. */
  issuedAt?: number;
  /** The token's `guest` claim: a guest account, refused the restricted features (services/guest-restrictions.ts). */
  guest?: boolean;
}

export interface Authenticator {
  authenticate(headers: Record<string, string | string[] | undefined>): Promise<Principal>;
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const denied = () => socialError('unauthorized', 'Valid credentials are required');

/** `revocations`: a verified token is refused (401 token_revoked) when its session or account was revoked. */
export function createAuthenticator(opts: { verifier?: AccessTokenVerifier; apiKey?: string; revocations?: Revocations }): Authenticator {
  return {
    async authenticate(h) {
      const apiKey = header(h, 'x-api-key');
      if (apiKey !== undefined) {
        if (!opts.apiKey || !safeEqual(apiKey, opts.apiKey)) throw denied();
        const userId = header(h, 'x-user-id')?.trim();
        if (!userId || userId.length > 200) throw socialError('unauthorized', 'X-User-Id must name the acting user');
        const hint = header(h, 'x-user-handle');
        return { accountId: userId, handleHint: hint && hint.length <= 64 ? hint : undefined };
      }
      const auth = header(h, 'authorization');
      const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
      if (!m || !opts.verifier) throw denied();
      let principal: Principal;
      try {
        const claims = await opts.verifier(m[1]);
        principal = { accountId: claims.sub, sid: claims.sid, issuedAt: claims.iatMs, expiresAt: claims.exp * 1000, roles: claims.roles, guest: claims.guest };
      } catch (err) {
        // key_set_unavailable (503) passes through; every rejection is a plain 401.
        if ((err as { status?: number }).status === 503) throw err;
        throw denied();
      }
      await opts.revocations?.check(principal);
      return principal;
    },
  };
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * Verifies a server-to-server caller: an access token with the `server` role whose subject is `caller`, the one
 * identity the route accepts (its config.caller); another server identity is 403 `forbidden`.
 */
export type ServerVerifier = (headers: Headers, caller: string | undefined) => Promise<AccessClaims>;

/** The `caller` of a ServerVerifier that accepts any server identity (`service:<name>`): a game's server token. */
export const ANY_SERVICE = 'service:*';

/**
 * Server-to-server notices: a token with the `server` role, of the route's one caller. A notice may be signed with a key that an
 * emergency rotation has just made (the key_rotation notice itself is), so an unknown kid here forces one
 * key-set refetch, at most once a second.
 */
export function createServerVerifier(opts: { verifier?: AccessTokenVerifier; keys?: KeyResolver }): ServerVerifier {
  const { verifier, keys } = opts;
  let lastForcedRefresh = 0;
  const rejected = () => socialError('unauthorized', 'A server token is required');
  return async (headers, caller) => {
    const auth = headers.authorization;
    const m = typeof auth === 'string' ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
    if (!m || !verifier || !keys) throw rejected();
    let claims: AccessClaims;
    try {
      claims = await verifier(m[1]);
    } catch (err) {
      if ((err as { status?: number }).status === 503) throw err;
      if (tokenRejectionReason(err) !== 'unknown key id' || Date.now() - lastForcedRefresh < 1000) throw rejected();
      lastForcedRefresh = Date.now();
      await keys.refresh();
      try {
        claims = await verifier(m[1]);
      } catch {
        throw rejected();
      }
    }
    if (!claims.roles.includes('server')) throw socialError('forbidden', 'The server role is required');
    const anyService = caller === ANY_SERVICE && claims.sub.startsWith('service:');
    if (caller === undefined || (claims.sub !== caller && !anyService)) throw socialError('forbidden', `This endpoint accepts ${caller ?? 'no caller'} only`);
    return claims;
  };
}
