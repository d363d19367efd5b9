/** Match rosters from game servers, and the recent players they give (docs/social.md, "Recent players"). */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { listRecentPlayers, MATCH_MAX_PLAYERS, postMatch } from '../services/matches.js';
import { UserSummary } from './schemas.js';
import { ANY_ROUTE, BODY, CALLER, CallerHeaders, errorResponses, VALIDATED } from './responses.js';

const MatchBody = Type.Object(
  {
    matchId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'The game server’s id of the match (letters, digits, "_", "." or "-"); absent: one is made. Posting it again adds players' })),
    players: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 2,
      maxItems: MATCH_MAX_PLAYERS,
      description: 'The publicIds of the players (unknown ones are counted in unknownPlayers and left out)',
    }),
    endedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the match ended (default now); within the retention, not in the future' })),
  },
  { additionalProperties: false },
);

const MatchDto = Type.Object({
  matchId: Type.String(),
  endedAt: Type.String({ format: 'date-time' }),
  players: Type.Integer({ description: 'Players in the roster now' }),
  unknownPlayers: Type.Integer({ description: 'publicIds of this post that name no player' }),
});

export const RecentPlayer = Type.Object({
  ...UserSummary.properties,
  matchId: Type.String({ description: 'The latest match played together (a report names it as `match:<matchId>`)' }),
  playedAt: Type.String({ format: 'date-time' }),
  friend: Type.Boolean(),
});

const GameServerHeaders = Type.Object({
  // Checked by the route's caller (app.ts, `game`): the key and secret, or a game's server token; none answers 401.
  'X-Platform-Game-Key': Type.Optional(Type.String({ description: 'The game’s API key, with the secret (a server token goes in Authorization instead)' })),
  'X-Platform-Game-Secret': Type.Optional(Type.String({ description: 'The game’s API secret' })),
  'X-Platform-Client-Key': Type.Optional(Type.String({ description: 'Refused here (403 game_secret_required): a client key is public' })),
});

export function matchRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/matches',
    {
      config: { caller: 'game' },
      schema: {
        tags: ['matches'],
        summary: 'A game server posts a match roster: its players become each other’s recent players (201 new, 200 known match)',
        description:
          'The game server authenticates with the game’s key and secret, or with a server-role token issued for the game (its `game` claim: auth’s POST /internal/server-token ' +
          'with `game_id`); the roster is then that game’s. A player’s token, or a server token without a game: 403 `forbidden`; a client key: 403 `game_secret_required`.',
        security: [{ gameKey: [], gameSecret: [] }, { serverToken: [] }],
        headers: GameServerHeaders,
        body: MatchBody,
        response: {
          200: MatchDto,
          201: MatchDto,
          ...errorResponses(ANY_ROUTE, BODY, 'unauthorized', 'forbidden', 'game_secret_required', 'incomplete_game_credentials', 'ambiguous_game_credentials', 'invalid_game_credentials', 'invalid_client_key', 'registry_unavailable', 'database_unavailable'),
        },
      },
    },
    async (req, reply) => {
      const r = await postMatch(ctx, req.game, req.body);
      reply.status(r.created ? 201 : 200);
      return r.match;
    },
  );

  app.get(
    '/v1/me/recent-players',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['matches'],
        summary: 'The players the caller last played with in the game of the request, newest first',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 20' })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ players: Type.Array(RecentPlayer), nextCursor: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(CALLER, VALIDATED, 'invalid_cursor') },
      },
    },
    async (req) => listRecentPlayers(ctx, req.user, req.game, req.query),
  );
}
