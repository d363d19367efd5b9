import { Type, type Static } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../context.js';
import { developerOf } from '../services/auth.js';
import { createGame, gameUsers, gameView, getGame, listGames, removeGame, updateGame } from '../services/games.js';
import { regenerateClientKey, regenerateSecret } from '../services/game-keys.js';
import { getTextFilter, setTextFilter } from '../services/text-filter.js';
import {
  bearer,
  CrossGameVisibility,
  GuestRestricted,
  GroupLimits,
  PlatformFriends,
  ErrorBody,
  GameParams,
  GameView,
  GameWithSecretView,
  Settings,
  TextFilterMode,
  TextFilterView,
  UserRegistrationView,
  WordList,
} from './schemas.js';

const DisplayName = Type.String({ minLength: 1, maxLength: 100 });
const LaunchCommand = Type.String({ maxLength: 1000 });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

export function gameRoutes(app: App, ctx: Context): void {
  gameReadRoutes(app, ctx);
  gameWriteRoutes(app, ctx);
  gameKeyRoutes(app, ctx);
  textFilterRoutes(app, ctx);
}

/** The largest PUT /games/{id}/text-filter body: both lists at their bounds fit (the default is 64 KiB). */
export const TEXT_FILTER_BODY_LIMIT = 1024 * 1024;

/** A game's text filter (docs/registry.md, "Text filter"): read, and replaced whole. */
function textFilterRoutes(app: App, ctx: Context): void {
  app.get(
    '/games/:gameId/text-filter',
    {
      config: { caller: 'developer' },
      schema: { tags: ['games'], summary: "The game's text filter", security: bearer, params: GameParams, response: { 200: TextFilterView, ...errors } },
    },
    async (req) => getTextFilter(ctx, developerOf(req), req.params.gameId),
  );
  app.put(
    '/games/:gameId/text-filter',
    {
      // Two full lists (1000 words of 64 characters, up to 4 UTF-8 bytes each, quoted) with room to spare.
      bodyLimit: TEXT_FILTER_BODY_LIMIT,
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary: "Replace the game's text filter; social applies it within seconds, to sockets already open too",
        security: bearer,
        params: GameParams,
        body: Type.Object(
          { Mode: TextFilterMode, AllowList: WordList('Words never filtered'), DenyList: WordList('Words filtered besides the English dataset') },
          { additionalProperties: false },
        ),
        response: { 200: TextFilterView, ...errors },
      },
    },
    async (req) => setTextFilter(ctx, developerOf(req), req.params.gameId, { mode: req.body.Mode, allowList: req.body.AllowList, denyList: req.body.DenyList }),
  );
}

function gameReadRoutes(app: App, ctx: Context): void {
  app.get(
    '/games',
    { config: { caller: 'developer' }, schema: { tags: ['games'], summary: 'Own games (a super-admin sees all)', security: bearer, response: { 200: Type.Array(GameView), 401: ErrorBody } } },
    async (req) => listGames(ctx, developerOf(req)),
  );

  app.get(
    '/games/:gameId',
    { config: { caller: 'developer' }, schema: { tags: ['games'], summary: 'One game', security: bearer, params: GameParams, response: { 200: GameView, ...errors } } },
    async (req) => gameView(await getGame(ctx, developerOf(req), req.params.gameId)),
  );

  app.get(
    '/games/:gameId/users',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary: 'Users registered to a game',
        security: bearer,
        params: GameParams,
        response: { 200: Type.Array(UserRegistrationView), ...errors },
      },
    },
    async (req) => gameUsers(ctx, developerOf(req), req.params.gameId),
  );
}

function gameWriteRoutes(app: App, ctx: Context): void {
  app.post(
    '/games',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary: 'Register a game; its API secret is shown only in this answer',
        security: bearer,
        body: Type.Object({ DisplayName, LaunchCommand: Type.Optional(LaunchCommand) }, { additionalProperties: false }),
        response: { 201: GameWithSecretView, ...errors },
      },
    },
    async (req, reply) => {
      const caller = developerOf(req);
      const r = await createGame(ctx, caller, { displayName: req.body.DisplayName, launchCommand: req.body.LaunchCommand });
      reply.status(201);
      return r;
    },
  );

  app.patch(
    '/games/:gameId',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary: 'Change a game; absent fields stay, Settings is replaced whole, LaunchCommand null clears it',
        security: bearer,
        params: GameParams,
        body: Type.Object(
          {
            DisplayName: Type.Optional(DisplayName),
            LaunchCommand: Type.Optional(Type.Union([LaunchCommand, Type.Null()])),
            Settings: Type.Optional(Settings),
            CrossGameVisibility: Type.Optional(CrossGameVisibility),
            GuestRestricted: Type.Optional(GuestRestricted),
            GroupLimits: Type.Optional(GroupLimits),
            PlatformFriends: Type.Optional(PlatformFriends),
          },
          { additionalProperties: false },
        ),
        response: { 200: GameView, ...errors },
      },
    },
    async (req) => {
      const caller = developerOf(req);
      return updateGame(ctx, caller, req.params.gameId, {
        displayName: req.body.DisplayName,
        launchCommand: req.body.LaunchCommand,
        settings: req.body.Settings as Record<string, unknown> | undefined,
        crossGameVisibility: req.body.CrossGameVisibility,
        guestRestricted: req.body.GuestRestricted === null ? null : req.body.GuestRestricted && [...new Set(req.body.GuestRestricted)],
        groupLimits: req.body.GroupLimits,
        platformFriends: req.body.PlatformFriends,
      });
    },
  );

  app.delete(
    '/games/:gameId',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary: 'Delete a game with its builds, blobs and registrations',
        security: bearer,
        params: GameParams,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (req, reply) => {
      await removeGame(ctx, developerOf(req), req.params.gameId);
      return reply.status(204).send(null);
    },
  );
}

/** The game's credentials: a new API secret, a new client key. */
function gameKeyRoutes(app: App, ctx: Context): void {
  regenerateRoute(app, 'regenerate-key', 'Replace the API secret; the old one stops working at once', GameWithSecretView, (developer, gameId) =>
    regenerateSecret(ctx, developer, gameId),
  );
  regenerateRoute(
    app,
    'regenerate-client-key',
    'Replace the client key; the old one stops naming the game at once (social caches it up to its registry cache time)',
    GameView,
    (developer, gameId) => regenerateClientKey(ctx, developer, gameId),
  );
}

/** POST /games/{gameId}/<action>: a developer replaces one of the game's credentials and gets the game back. */
function regenerateRoute(
  app: App,
  action: string,
  summary: string,
  view: typeof GameView | typeof GameWithSecretView,
  regenerate: (developer: ReturnType<typeof developerOf>, gameId: string) => Promise<Static<typeof GameView | typeof GameWithSecretView>>,
): void {
  app.post(
    `/games/:gameId/${action}`,
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['games'],
        summary,
        security: bearer,
        params: GameParams,
        response: { 200: view, ...errors },
      },
    },
    async (req) => regenerate(developerOf(req), req.params.gameId),
  );
}
