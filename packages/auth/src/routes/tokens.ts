/** /refresh, /logout and the public key set. */
import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { logout, refreshTokens, sessionOfRefreshToken } from '../services/tokens.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses, Jwks, optionalBody, TokenResponse } from './schemas.js';
import { sessionOf } from '../services/callers.js';

/** Verifiers may cache the key set this long; the rotation propagation wait is at least this. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** A strong validator of the key set's content: changes exactly when a key is published or retired. */
export const jwksEtag = (jwks: unknown) => `"${createHash('sha256').update(JSON.stringify(jwks)).digest('base64url').slice(0, 32)}"`;

/** If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly (W/ ignored). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

const RefreshToken = Type.String({ minLength: 1, maxLength: 512 });

export async function tokenRoutes(app: App, c: AuthContext) {
  app.post(
    '/refresh',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Rotate a refresh token: the old one is spent, a new pair is returned',
        body: Type.Object({ refresh_token: RefreshToken }, { additionalProperties: false }),
        response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'invalid_refresh_token', 'token_reused') },
      },
      // Checked in the onRequest hook with the general limit (one Redis round trip), before the body is read.
      config: { caller: 'none', requestLimits: (req) => [{ name: 'refresh:ip', key: req.ip, limit: c.config.rateRefreshPerIp }] },
    },
    async (req) => {
      return refreshTokens(c, req.body.refresh_token, c.auditCtx(req));
    },
  );

  app.post(
    '/logout',
    {
      config: { caller: 'logout' },
      schema: {
        tags: ['tokens'],
        summary: 'Revoke the session of the Bearer token or of the refresh token in the body',
        description:
          'The session id and the token id go on the deny set (deny:sid / deny:jti) until every access token of the session has expired, and the revocation is announced (`revocation` notice on `auth:revocation` and in the outbox): verifiers close the session\'s sockets and refuse its tokens.',
        response: { 204: Type.Null({ description: 'Signed out' }), ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'invalid_refresh_token') },
      },
    },
    async (req, reply) => {
      const { refresh_token: refreshToken } = optionalBody<{ refresh_token: string }>(req.body, { refresh_token: 'string' });
      let sessionId: string;
      let accountId: string;
      let jti: string | undefined;
      const claims = sessionOf(req);
      if (claims) {
        // A retried logout (sid already denied) is still a success.
        ({ sid: sessionId, sub: accountId, jti } = claims);
      } else if (refreshToken) {
        const s = await sessionOfRefreshToken(c, refreshToken);
        if (!s) throw fail('invalid_refresh_token', 'The refresh token is unknown or expired');
        sessionId = s.session_id;
        accountId = s.account_id;
      } else {
        throw fail('unauthenticated', 'A Bearer access token or a refresh_token is required');
      }
      const revoked = await logout(c, sessionId, accountId, c.auditCtx(req), jti);
      req.log.debug({ revoked }, 'logout');
      reply.status(204).send(null);
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Public signing keys (published and active)',
        description: 'With a strong `ETag` (a hash of the key set): a verifier sending it back in `If-None-Match` gets 304 without a body while the key set is unchanged.',
        response: { 200: Jwks, 304: Type.Null({ description: 'The key set is unchanged (If-None-Match)' }) },
      },
      config: { caller: 'none', rateLimited: false },
    },
    async (req, reply) => {
      const jwks = c.keys.jwks();
      const etag = jwksEtag(jwks);
      reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`).header('etag', etag);
      if (etagMatches(req.headers['if-none-match'], etag)) return reply.status(304).send(null);
      return jwks;
    },
  );
}
