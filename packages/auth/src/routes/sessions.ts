/** The signed-in player's own sessions: list, end one, end all others (each through the revoker). */
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { endOtherSessions, endOwnSession, listOwnSessions } from '../services/sessions.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses, optionalBody } from './schemas.js';
import { claimsOf } from '../services/callers.js';

const security = [{ bearer: [] }];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const SessionView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  current: Type.Boolean({ description: 'The session of the access token that asked' }),
  device: Type.Object({
    id: Nullable(Type.String({ format: 'uuid' })),
    platform: Nullable(Type.String()),
    name: Nullable(Type.String({ description: 'The name a device gave in the device grant' })),
  }),
  auth_method: Type.String({ description: 'guest, email, a platform provider, or device_code' }),
  client_id: Nullable(Type.String({ description: 'The OAuth client of a device-grant session' })),
  ip_prefix: Nullable(Type.String({ description: 'The /24 (IPv4) or /64 (IPv6) network the session signed in from' })),
  region: Type.String(),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp,
});

export async function sessionRoutes(app: App, c: AuthContext) {
  app.get(
    '/account/sessions',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'The account’s live sessions, most recently used first (at most 200)',
        description: '`last_used_at` is the sign-in or the latest refresh of the session (access tokens are verified offline and never seen here).',
        security,
        response: { 200: Type.Object({ sessions: Type.Array(SessionView) }), ...errorResponses(BEARER_ERRORS, COMMON_ERRORS) },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      return listOwnSessions(c, claims.sub, claims.sid);
    },
  );

  app.delete(
    '/account/sessions/:id',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'End one of the account’s sessions (the current one too: a sign-out)',
        description: 'Through the revocation path: the session’s tokens are refused everywhere (deny set, `revocation` notice, reason `logout`). Any id that is not a live session of this account is 404.',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 204: Type.Null({ description: 'Ended' }), ...errorResponses(BEARER_ERRORS, COMMON_ERRORS, 'session_not_found', 'invalid_character') },
      },
    },
    async (req, reply) => {
      const claims = claimsOf(req);
      if (!UUID.test(req.params.id)) throw fail('session_not_found', 'No such session');
      await endOwnSession(c, claims.sub, req.params.id.toLowerCase(), c.auditCtx(req));
      reply.status(204).send(null);
    },
  );

  app.post(
    '/account/sessions/end-others',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'End every session of the account except the current one',
        description: 'Through the revocation path (reason `logout`, session scope: the current session stays valid everywhere). No body.',
        security,
        response: { 200: Type.Object({ ended: Type.Integer({ minimum: 0 }) }), ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS) },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      optionalBody(req.body, {});
      return endOtherSessions(c, claims.sub, claims.sid, c.auditCtx(req));
    },
  );
}
