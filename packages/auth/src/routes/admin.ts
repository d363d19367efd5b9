/** Operator endpoints (role admin). */
import { forbidden, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { optionalBody } from './schemas.js';
import { KEY_ROTATION_CHANNEL, rotateSigningKey } from '../services/keys.js';

export async function adminRoutes(app: App, c: AuthContext) {
  app.post(
    '/admin/keys/rotate',
    {
      schema: {
        tags: ['admin'],
        summary: 'Start a signing-key rotation; emergency activates the new key at once',
        security: [{ bearer: [] }],
        description: 'Optional body {emergency?: boolean, retire_previous?: boolean}.',
      },
    },
    async (req) => {
      const claims = await c.authenticate(req);
      if (!claims.roles.includes('admin')) throw forbidden('forbidden', 'The admin role is required');
      const body = optionalBody<{ emergency: boolean; retire_previous: boolean }>(req.body, { emergency: 'boolean', retire_previous: 'boolean' });
      const r = await rotateSigningKey(c.db, c.config.masterKey!, keyTimings(c), c.auditCtx(req), {
        emergency: body.emergency,
        retirePrevious: body.retire_previous,
      });
      await c.keys.reload();
      if (body.emergency) await c.state.publish(KEY_ROTATION_CHANNEL, JSON.stringify({ kid: r.kid }));
      return { kid: r.kid, state: r.state, activate_at: r.activateAt };
    },
  );
}

export function keyTimings(c: { config: AuthContext['config'] }) {
  return { propagationSeconds: c.config.keyPropagationSeconds, retireAfterSeconds: c.config.accessTtlSeconds + 60 };
}
