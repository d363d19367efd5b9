import { Type } from 'typebox';
import { UUID_PATTERN, type App } from '@platform/kit';
import type { Context } from '../context.js';
import { developerOf } from '../services/auth.js';
import { listDevelopers } from '../services/developers.js';
import { allUsers } from '../services/games.js';
import { changeStaffRole } from '../services/staff-roles.js';
import { resetDeveloperFactors } from '../services/factor-reset.js';
import { fail } from '../errors.js';
import { bearer, DeveloperView, ErrorBody, UserRegistrationView } from './schemas.js';

export function adminRoutes(app: App, ctx: Context): void {
  app.post(
    '/admin/developers/:id/factors/reset',
    {
      config: { caller: 'superadmin' },
      schema: {
        tags: ['admin'],
        summary: 'Remove a developer’s authenticator and passkeys, for one who lost them; every token of the developer stops working',
        security: bearer,
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        body: Type.Object({ Reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Why (the case), logged' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ TotpRemoved: Type.Boolean(), PasskeysRemoved: Type.Integer({ minimum: 0 }) }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      // Any id that is not a developer's (unknown, not a uuid) is the same 404.
      if (!UUID_PATTERN.test(req.params.id)) throw fail('developer_not_found', 'No developer has this id');
      return resetDeveloperFactors(ctx, developerOf(req), req.params.id.toLowerCase(), req.body.Reason, req.log);
    },
  );

  app.get(
    '/admin/developers',
    {
      config: { caller: 'superadmin' },
      schema: { tags: ['admin'], summary: 'Every developer account', security: bearer, response: { 200: Type.Array(DeveloperView), 401: ErrorBody, 403: ErrorBody } },
    },
    async () => listDevelopers(ctx),
  );

  app.get(
    '/admin/users',
    {
      config: { caller: 'superadmin' },
      schema: {
        tags: ['admin'],
        summary: 'Every user registration of every game',
        security: bearer,
        response: { 200: Type.Array(UserRegistrationView), 401: ErrorBody, 403: ErrorBody },
      },
    },
    async () => allUsers(ctx),
  );

  app.post(
    '/admin/staff-roles',
    {
      config: { caller: 'superadmin' },
      schema: {
        tags: ['admin'],
        summary: 'Grant or take away a platform staff role (moderator, admin) on a player account at auth (super-admin)',
        description:
          'The account is named by its email or account id at auth. Applies at once (no restart); the account’s tokens carry the new roles ' +
          'from its next sign-in or refresh. Audited at auth as a role change on behalf of this super-admin.',
        security: bearer,
        body: Type.Object(
          {
            Account: Type.String({ minLength: 1, maxLength: 254, description: 'Email or account id of the player account at auth' }),
            Role: Type.Union([Type.Literal('moderator'), Type.Literal('admin')]),
            Granted: Type.Boolean({ description: 'true: grant; false: take away' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ AccountId: Type.String(), Roles: Type.Array(Type.String()) }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = developerOf(req);
      return changeStaffRole(ctx, caller.id, req.body);
    },
  );
}
