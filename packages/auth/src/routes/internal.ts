/**
 * Endpoints for other platform services (X-Internal-Key, see
 * services/internal.ts). Not for players or game clients.
 */
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { audit } from '../services/audit.js';
import { serviceToken } from '../services/outbox.js';
import { BODY_ERRORS, COMMON_ERRORS, errorResponses, optionalBody } from './schemas.js';

export async function internalRoutes(app: App, c: AuthContext) {
  const security = [{ internalKey: [] }];

  app.post(
    '/internal/server-token',
    {
      schema: {
        tags: ['internal'],
        summary: 'A server-role access token for the calling service (client credentials)',
        description:
          'Requires X-Internal-Key (or an accepted client certificate on the mutual-TLS listener). The token is an ordinary access token (same format, key set, issuer and audience) with ' +
          'sub `service:<caller name>`, roles ["server"] and a random sid, valid for the access-token lifetime; verifiers ' +
          'check it offline and require the role. No body (or an empty object). Audited as `login` with method `internal_key`.',
        security,
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            sub: Type.String(),
            roles: Type.Array(Type.String()),
          }),
          ...errorResponses(BODY_ERRORS, COMMON_ERRORS, 'internal_key_required', 'invalid_internal_key'),
        },
      },
    },
    async (req) => {
      const name = c.requireInternalCaller(req);
      optionalBody(req.body, {});
      const token = await serviceToken(c.config, c.keys, name, c.config.accessTtlSeconds);
      await audit(c.db, c.auditCtx(req), 'login', null, { method: 'internal_key', service: name, outcome: 'success' });
      return { access_token: token, token_type: 'Bearer' as const, expires_in: c.config.accessTtlSeconds, sub: `service:${name}`, roles: ['server'] };
    },
  );

  app.get(
    '/internal/accounts/:id',
    {
      schema: {
        tags: ['internal'],
        summary: 'Whether an account exists (service callers only)',
        description: 'Requires X-Internal-Key. Deleted (and purged) accounts and unknown ids answer 404 account_not_found.',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: {
          200: Type.Object({
            id: Type.String({ format: 'uuid' }),
            status: Type.Union([Type.Literal('active'), Type.Literal('locked'), Type.Literal('banned')]),
            is_guest: Type.Boolean(),
            display_name: Type.Union([Type.String(), Type.Null()]),
            created_at: Type.String({ format: 'date-time' }),
          }),
          ...errorResponses(COMMON_ERRORS, 'validation_failed', 'invalid_character', 'internal_key_required', 'invalid_internal_key', 'account_not_found'),
        },
      },
    },
    async (req) => {
      c.requireInternalCaller(req);
      return c.accounts.summary(req.params.id);
    },
  );
}
