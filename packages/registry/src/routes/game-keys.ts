import { Type } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../context.js';
import type { RegistryErrorCode } from '../errors.js';
import { validateClientKey, validateKey } from '../services/game-keys.js';
import { CrossGameVisibility, ErrorBody } from './schemas.js';

export function validateKeyRoutes(app: App, ctx: Context): void {
  app.post(
    '/auth/validate-key',
    {
      schema: {
        tags: ['auth'],
        summary: "Check a game's API key and secret (used by the other services)",
        body: Type.Object({ ApiKey: Type.String({ maxLength: 256 }), ApiSecret: Type.String({ maxLength: 256 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ Valid: Type.Literal(true), GameId: Type.String({ format: 'uuid' }), CrossGameVisibility }),
          400: ErrorBody,
          401: Type.Object({ Valid: Type.Literal(false), Code: Type.Literal('invalid_api_key' satisfies RegistryErrorCode), Message: Type.String() }),
        },
      },
      config: { caller: 'none' },
    },
    async (req, reply) => {
      const found = await validateKey(ctx, req.body.ApiKey, req.body.ApiSecret);
      if (!found) {
        reply.status(401);
        return { Valid: false as const, Code: 'invalid_api_key' as const, Message: 'Unknown API key or wrong secret' };
      }
      return { Valid: true as const, GameId: found.gameId, CrossGameVisibility: found.visibility };
    },
  );

  app.post(
    '/auth/validate-client-key',
    {
      schema: {
        tags: ['auth'],
        summary: "Resolve a game's client key to the game (used by the other services; a client key is public and authenticates nothing)",
        body: Type.Object({ ClientKey: Type.String({ maxLength: 256 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ Valid: Type.Literal(true), GameId: Type.String({ format: 'uuid' }), CrossGameVisibility }),
          400: ErrorBody,
          401: Type.Object({ Valid: Type.Literal(false), Code: Type.Literal('invalid_client_key' satisfies RegistryErrorCode), Message: Type.String() }),
        },
      },
      config: { caller: 'none' },
    },
    async (req, reply) => {
      const found = await validateClientKey(ctx, req.body.ClientKey);
      if (!found) {
        reply.status(401);
        return { Valid: false as const, Code: 'invalid_client_key' as const, Message: 'Unknown or replaced client key' };
      }
      return { Valid: true as const, GameId: found.gameId, CrossGameVisibility: found.visibility };
    },
  );
}
