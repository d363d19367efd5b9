/**
 * Authentication: Bearer access tokens verified offline against the auth
 * service's key set (PASETO v4.public or EdDSA JWT), or, server to server,
 * X-Api-Key (constant-time) with X-User-Id naming the account. The account id
 * (`sub`) only selects the profile row; it never appears in a response.
 */
import { safeEqual, unauthorized, type AccessTokenVerifier } from '@platform/kit';

export interface Principal {
  accountId: string;
  handleHint?: string;
}

export interface Authenticator {
  authenticate(headers: Record<string, string | string[] | undefined>): Promise<Principal>;
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const denied = () => unauthorized('unauthorized', 'Valid credentials are required');

export function createAuthenticator(opts: { verifier?: AccessTokenVerifier; apiKey?: string }): Authenticator {
  return {
    async authenticate(h) {
      const apiKey = header(h, 'x-api-key');
      if (apiKey !== undefined) {
        if (!opts.apiKey || !safeEqual(apiKey, opts.apiKey)) throw denied();
        const userId = header(h, 'x-user-id')?.trim();
        if (!userId || userId.length > 200) throw unauthorized('unauthorized', 'X-User-Id must name the acting user');
        const hint = header(h, 'x-user-handle');
        return { accountId: userId, handleHint: hint && hint.length <= 64 ? hint : undefined };
      }
      const auth = header(h, 'authorization');
      const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
      if (!m || !opts.verifier) throw denied();
      try {
        const claims = await opts.verifier(m[1]);
        return { accountId: claims.sub };
      } catch (err) {
        // key_set_unavailable (503) passes through; every rejection is a plain 401.
        if ((err as { status?: number }).status === 503) throw err;
        throw denied();
      }
    },
  };
}
