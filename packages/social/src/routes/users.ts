/** Finding other users. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { searchUsers } from '../services/users.js';
import { UserSummary } from './schemas.js';
import { CALLER, CallerHeaders, errorResponses, LIMITED, VALIDATED } from './responses.js';

export function userRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/users/search',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['users'],
        summary: 'Find users by exact Name#1234 or name prefix',
        headers: CallerHeaders,
        response: { 200: Type.Array(UserSummary), ...errorResponses(CALLER, VALIDATED, LIMITED, 'prefix_too_short') },
        querystring: Type.Object(
          {
            handle: Type.String({ minLength: 1, maxLength: 64 }),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => searchUsers(ctx, req.user, req.query.handle, req.query.limit ?? 20, req.query.offset ?? 0),
  );
}
