/** Finding other users. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { searchUsers } from '../services/users.js';
import { listSuggestions } from '../services/suggestions.js';
import { UserSummary } from './schemas.js';
import { CALLER, CallerHeaders, errorResponses, LIMITED, VALIDATED } from './responses.js';

export function userRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/users/search',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['users'],
        summary: 'Find players of the caller’s game by exact Name#1234 or name prefix (searchable players only)',
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
    async (req) => searchUsers(ctx, req.user, req.game, req.query.handle, req.query.limit ?? 20, req.query.offset ?? 0),
  );

  app.get(
    '/v1/me/suggestions',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['users'],
        summary: 'People the caller may know: platform friends, friends of friends (with mutual friends) and recent players of the game',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 20' })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ suggestions: Type.Array(Suggestion), nextCursor: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(CALLER, VALIDATED, 'invalid_cursor') },
      },
    },
    async (req) => listSuggestions(ctx, req.user, req.game, req.query),
  );
}

const Suggestion = Type.Object({
  ...UserSummary.properties,
  source: Type.Union([Type.Literal('friendsOfFriends'), Type.Literal('recentPlayer'), Type.Literal('platform')], {
    description:
      'Why: platform friends who play this game first (Steam friends, unless the game\'s PlatformFriends is off; docs/social.md, "Platform friends"), then friends of friends (also when a recent player), then recent players',
  }),
  mutualFriends: Type.Integer({ minimum: 0 }),
  playedAt: Type.Optional(Type.String({ format: 'date-time', description: 'The latest match together, when a recent player' })),
});
