/** The caller: profile, name, privacy export and erasure. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { changeName, eraseAccount, exportData, updateProfile } from '../services/account.js';
import { meDto, profileDto } from '../services/users.js';
import { DeletedResponse, MeResponse, PrivacyExport, ProfileDto } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses } from './responses.js';

export function meRoutes(app: App, ctx: Ctx): void {
  app.get('/v1/me', { config: { caller: 'player' }, schema: { tags: ['self'], summary: 'The caller (the profile is made on first use)', headers: CallerHeaders, response: { 200: MeResponse, ...errorResponses(CALLER) } } }, async (req) => meDto(req.user));

  app.patch(
    '/v1/me/profile',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['self'],
        summary: 'Edit the profile',
        headers: CallerHeaders,
        response: { 200: ProfileDto, ...errorResponses(CALLER, BODY, 'invalid_display_name', 'invalid_avatar_url', 'text_filtered') },
        body: Type.Object(
          {
            displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            avatarUrl: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()])),
            status: Type.Optional(Type.Union([Type.String({ maxLength: 140 }), Type.Null()])),
            visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('friends'), Type.Literal('private')])),
            invisible: Type.Optional(Type.Boolean()),
            searchable: Type.Optional(Type.Boolean({ description: 'Found by name-prefix search and suggested to friends of friends (default true)' })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => profileDto(await updateProfile(ctx, req.user, req.body, req.game)),
  );

  app.post(
    '/v1/me/name',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['self'],
        summary: 'Change the display name (a new discriminator when needed)',
        headers: CallerHeaders,
        response: { 200: MeResponse, ...errorResponses(CALLER, BODY, 'invalid_display_name', 'text_filtered') },
        body: Type.Object({ displayName: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
      },
    },
    async (req) => meDto(await changeName(ctx, req.user, req.body.displayName, req.game)),
  );

  app.get('/v1/me/export', { config: { caller: 'player' }, schema: { tags: ['self'], summary: 'Privacy export', headers: CallerHeaders, response: { 200: PrivacyExport, ...errorResponses(CALLER) } } }, async (req) => exportData(ctx, req.user, req.game));

  app.delete(
    '/v1/me',
    {
      schema: {
        tags: ['self'],
        summary: 'Erase the caller’s social data',
        headers: CallerHeaders,
        // No profile is made here (noProfile), so no name_unavailable.
        response: { 200: DeletedResponse, ...errorResponses(CALLER.filter((c) => c !== 'name_unavailable'), BODY) },
      },
      config: { caller: 'player', noProfile: true },
    },
    async (req) => eraseAccount(ctx, req.principal.accountId),
  );
}
