import { Type, type TObject } from 'typebox';
import type { App } from '@platform/kit';
import type { Context } from '../context.js';
import type { RegistryErrorCode } from '../errors.js';
import { validateClientKey, validateKey } from '../services/game-keys.js';
import { CrossGameVisibility, ErrorBody, GroupLimits, GuestRestricted, PlatformFriends, TextFilterContext } from './schemas.js';

export function validateKeyRoutes(app: App, ctx: Context): void {
  validationRoute(app, {
    url: '/auth/validate-key',
    summary: "Check a game's API key and secret (used by the other services)",
    body: Type.Object({ ApiKey: Type.String({ maxLength: 256 }), ApiSecret: Type.String({ maxLength: 256 }) }, { additionalProperties: false }),
    code: 'invalid_api_key',
    message: 'Unknown API key or wrong secret',
    find: (body: { ApiKey: string; ApiSecret: string }) => validateKey(ctx, body.ApiKey, body.ApiSecret),
  });

  validationRoute(app, {
    url: '/auth/validate-client-key',
    summary: "Resolve a game's client key to the game (used by the other services; a client key is public and authenticates nothing)",
    body: Type.Object({ ClientKey: Type.String({ maxLength: 256 }) }, { additionalProperties: false }),
    code: 'invalid_client_key',
    message: 'Unknown or replaced client key',
    find: (body: { ClientKey: string }) => validateClientKey(ctx, body.ClientKey),
  });
}

/** A credential check the other services call: 200 with the game it names, or 401 `{ Valid: false, Code, Message }`. */
function validationRoute<B, C extends RegistryErrorCode>(
  app: App,
  route: {
    url: string;
    summary: string;
    body: TObject;
    code: C;
    message: string;
    find: (body: B) => ReturnType<typeof validateKey>;
  },
): void {
  app.post(
    route.url,
    {
      schema: {
        tags: ['auth'],
        summary: route.summary,
        body: route.body,
        response: {
          200: Type.Object({ Valid: Type.Literal(true), GameId: Type.String({ format: 'uuid' }), CrossGameVisibility, GuestRestricted, GroupLimits, PlatformFriends, TextFilter: TextFilterContext }),
          400: ErrorBody,
          401: Type.Object({ Valid: Type.Literal(false), Code: Type.Literal(route.code), Message: Type.String() }),
        },
      },
      config: { caller: 'none' },
    },
    async (req, reply) => {
      const found = await route.find(req.body as B);
      if (!found) {
        reply.status(401);
        return { Valid: false as const, Code: route.code, Message: route.message };
      }
      const f = found.textFilter;
      return {
        Valid: true as const,
        GameId: found.gameId,
        CrossGameVisibility: found.visibility,
        GuestRestricted: found.guestRestricted,
        GroupLimits: found.groupLimits,
        PlatformFriends: found.platformFriends,
        TextFilter: { Mode: f.mode, AllowList: [...f.allowList], DenyList: [...f.denyList], Version: f.version },
      };
    },
  );
}
