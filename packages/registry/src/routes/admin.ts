import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../app.js';
import { bearer, DeveloperView, ErrorBody, UserRegistrationView } from './schemas.js';

export function adminRoutes(app: App, ctx: Context): void {
  app.get(
    '/admin/developers',
    {
      schema: { tags: ['admin'], summary: 'Every developer account', security: bearer, response: { 200: Type.Array(DeveloperView), 401: ErrorBody, 403: ErrorBody } },
    },
    async (req) => {
      await ctx.auth.superAdmin(req);
      return ctx.developers.list();
    },
  );

  app.get(
    '/admin/users',
    {
      schema: {
        tags: ['admin'],
        summary: 'Every user registration of every game',
        security: bearer,
        response: { 200: Type.Array(UserRegistrationView), 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (req) => {
      await ctx.auth.superAdmin(req);
      return ctx.games.allUsers();
    },
  );
}
