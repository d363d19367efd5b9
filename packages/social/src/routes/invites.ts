/** Game invites and the invite inbox (party invites are made under /v1/parties/{id}/invites). */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import { acceptGameInvite, declineInvite, inviteToGame, listInvites, revokeInvite } from '../services/invites.js';
import { InviteDto, JoinMetadata, JoinResultDto } from './schemas.js';

const InviteParams = Type.Object({ inviteId: Type.String({ minLength: 1, maxLength: 64 }) });

export function inviteRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/invites/game',
    {
      schema: {
        tags: ['invites'],
        body: Type.Object(
          {
            toHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            toPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            sessionHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
            join: Type.Optional(JoinMetadata),
          },
          { additionalProperties: false },
        ),
        response: { 201: InviteDto },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return inviteToGame(ctx, req.user, req.body);
    },
  );

  app.post('/v1/invites/game/:inviteId/accept', { schema: { tags: ['invites'], params: InviteParams, response: { 200: JoinResultDto } } }, async (req) =>
    acceptGameInvite(ctx, req.user, req.params.inviteId),
  );

  app.get(
    '/v1/invites',
    {
      schema: {
        tags: ['invites'],
        summary: 'Pending invites (incoming by default)',
        querystring: Type.Object({ dir: Type.Optional(Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')])) }, { additionalProperties: false }),
        response: { 200: Type.Array(InviteDto) },
      },
    },
    async (req) => listInvites(ctx, req.user, req.query.dir ?? 'incoming'),
  );

  app.post('/v1/invites/:inviteId/decline', { schema: { tags: ['invites'], params: InviteParams, response: { 200: InviteDto } } }, async (req) =>
    declineInvite(ctx, req.user, req.params.inviteId),
  );

  app.delete('/v1/invites/:inviteId', { schema: { tags: ['invites'], params: InviteParams } }, async (req, reply) => {
    await revokeInvite(ctx, req.user, req.params.inviteId);
    return reply.status(204).send();
  });
}
