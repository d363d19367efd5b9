/** Operator endpoints (role admin). */
import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { adminRequired } from '../errors.js';
import { AccountStatusChange, BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses, KeyRotation, optionalBody } from './schemas.js';
import { changeAccountStatus } from '../services/admin.js';
import { KEY_ROTATION_CHANNEL, keyTimings, rotateSigningKey } from '../services/keys.js';

export async function adminRoutes(app: App, c: AuthContext) {
  app.post(
    '/admin/keys/rotate',
    {
      schema: {
        tags: ['admin'],
        summary: 'Start a signing-key rotation; emergency activates the new key at once',
        security: [{ bearer: [] }],
        description: 'Optional body {emergency?: boolean, retire_previous?: boolean}.',
        response: { 200: KeyRotation, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden') },
      },
    },
    async (req) => {
      const claims = await c.authenticate(req);
      if (!claims.roles.includes('admin')) throw adminRequired();
      const body = optionalBody<{ emergency: boolean; retire_previous: boolean }>(req.body, { emergency: 'boolean', retire_previous: 'boolean' });
      const r = await rotateSigningKey(c.db, c.config.masterKey!, keyTimings(c.config), c.auditCtx(req), {
        emergency: body.emergency,
        retirePrevious: body.retire_previous,
      });
      await c.keys.reload();
      if (body.emergency) {
        // Shared Redis: verifiers subscribed to the channel refresh at once. Separate stores: the
        // key_rotation notice written to the outbox in the rotation transaction reaches them by webhook.
        await c.state.publish(KEY_ROTATION_CHANNEL, JSON.stringify({ kid: r.kid }));
        c.outbox.kick();
      }
      return { kid: r.kid, state: r.state, activate_at: r.activateAt };
    },
  );

  app.post(
    '/admin/accounts/:id/status',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set an account status (active, locked, banned); locking or banning revokes every session',
        description: 'Locking or banning ends every session of the account and announces it (`revocation` notice on `auth:revocation` and in the outbox): verifiers close its open sockets and refuse its tokens.',
        security: [{ bearer: [] }],
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Type.Object(
          { status: Type.Union([Type.Literal('active'), Type.Literal('locked'), Type.Literal('banned')]) },
          { additionalProperties: false },
        ),
        response: { 200: AccountStatusChange, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden', 'account_not_found') },
      },
    },
    async (req) => {
      const claims = await c.authenticate(req);
      if (!claims.roles.includes('admin')) throw adminRequired();
      const r = await changeAccountStatus(c.db, c.revoker, req.params.id, req.body.status, c.auditCtx(req));
      return { id: r.id, status: r.status, sessions_revoked: r.sessions.length };
    },
  );
}
