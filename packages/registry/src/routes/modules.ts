import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../context.js';
import { developerOf } from '../services/auth.js';
import { listModules, moduleBodyLimit, uploadModule } from '../services/modules.js';
import { getGame } from '../services/games.js';
import { bearer, ErrorBody, GameParams, ModuleBuildView, Packaging } from './schemas.js';

export function moduleRoutes(app: App, ctx: Context): void {
  app.post(
    '/games/:gameId/modules',
    {
      config: { caller: 'developer' },
      bodyLimit: moduleBodyLimit(ctx.config.moduleMaxBytes),
      schema: {
        tags: ['modules'],
        summary: 'Upload a server-module build (wasm is scanned against the import allowlist)',
        security: bearer,
        params: GameParams,
        body: Type.Object(
          {
            Packaging,
            Version: Type.String({ description: 'SemVer 2.0.0, at most 64 characters' }),
            WasmBase64: Type.Optional(Type.String({ description: 'Module bytes, padded standard base64; wasm only' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: ModuleBuildView, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody },
      },
    },
    async (req, reply) => {
      const game = await getGame(ctx, developerOf(req), req.params.gameId);
      const build = await uploadModule(ctx, game.id, { packaging: req.body.Packaging, version: req.body.Version, wasmBase64: req.body.WasmBase64 });
      reply.status(201);
      return build;
    },
  );

  app.get(
    '/games/:gameId/modules',
    {
      config: { caller: 'developer' },
      schema: {
        tags: ['modules'],
        summary: 'Builds of a game',
        security: bearer,
        params: GameParams,
        response: { 200: Type.Array(ModuleBuildView), 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const game = await getGame(ctx, developerOf(req), req.params.gameId);
      return listModules(ctx, game.id);
    },
  );
}
