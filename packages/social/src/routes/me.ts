/** Self, user search, reports and notes. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import {
  changeName,
  deleteNote,
  eraseAccount,
  exportData,
  fileReport,
  getNote,
  NOTE_MAX,
  putNote,
  REPORT_REASONS,
  searchUsers,
  updateProfile,
} from '../services/account.js';
import { meDto, profileDto } from '../services/users.js';
import { DeletedResponse, MeResponse, NoteResponse, PrivacyExport, ProfileDto, PublicIdParams, ReportReceived, UserSummary } from './schemas.js';

export function meRoutes(app: App, ctx: Ctx): void {
  app.get('/v1/me', { schema: { tags: ['self'], summary: 'The caller', response: { 200: MeResponse } } }, async (req) => meDto(req.user));

  app.patch(
    '/v1/me/profile',
    {
      schema: {
        tags: ['self'],
        summary: 'Edit the profile',
        response: { 200: ProfileDto },
        body: Type.Object(
          {
            displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            avatarUrl: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()])),
            status: Type.Optional(Type.Union([Type.String({ maxLength: 140 }), Type.Null()])),
            visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('friends'), Type.Literal('private')])),
            invisible: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => profileDto(await updateProfile(ctx, req.user, req.body)),
  );

  app.post(
    '/v1/me/name',
    {
      schema: {
        tags: ['self'],
        summary: 'Change the display name (a new discriminator when needed)',
        response: { 200: MeResponse },
        body: Type.Object({ displayName: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
      },
    },
    async (req) => meDto(await changeName(ctx, req.user, req.body.displayName)),
  );

  app.get('/v1/me/export', { schema: { tags: ['self'], summary: 'Privacy export', response: { 200: PrivacyExport } } }, async (req) => exportData(ctx, req.user, req.game));

  app.delete(
    '/v1/me',
    { schema: { tags: ['self'], summary: 'Erase the caller’s social data', response: { 200: DeletedResponse } }, config: { noProfile: true } },
    async (req) => eraseAccount(ctx, req.principal.accountId),
  );

  app.get(
    '/v1/users/search',
    {
      schema: {
        tags: ['users'],
        summary: 'Find users by exact Name#1234 or name prefix',
        response: { 200: Type.Array(UserSummary) },
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

  app.post(
    '/v1/reports',
    {
      schema: {
        tags: ['users'],
        summary: 'Report a user to moderation',
        response: { 202: ReportReceived },
        body: Type.Object(
          {
            targetHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            targetPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            reason: Type.Enum(REPORT_REASONS),
            context: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req, reply) => {
      reply.status(202);
      return fileReport(ctx, req.user, req.game, req.body);
    },
  );

  app.get('/v1/notes/:publicId', { schema: { tags: ['notes'], params: PublicIdParams, response: { 200: NoteResponse } } }, async (req) => getNote(ctx, req.user, req.params.publicId));

  app.put(
    '/v1/notes/:publicId',
    {
      schema: {
        tags: ['notes'],
        params: PublicIdParams,
        body: Type.Object({ text: Type.String({ maxLength: NOTE_MAX }) }, { additionalProperties: false }),
        response: { 200: NoteResponse, 204: Type.Null({ description: 'The note was cleared' }) },
      },
    },
    async (req, reply) => {
      const note = await putNote(ctx, req.user, req.params.publicId, req.body.text);
      if (!note) return reply.status(204).send(null);
      return note;
    },
  );

  app.delete('/v1/notes/:publicId', { schema: { tags: ['notes'], params: PublicIdParams } }, async (req, reply) => {
    await deleteNote(ctx, req.user, req.params.publicId);
    return reply.status(204).send();
  });
}
