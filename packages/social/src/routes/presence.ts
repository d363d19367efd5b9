/** Presence, game invites and the invite inbox. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import { acceptGameInvite, declineInvite, inviteToGame, listInvites, revokeInvite } from '../services/parties.js';
import { presenceOf, setPresence, viewPresence } from '../services/presence.js';
import { InviteDto, JoinMetadata, JoinResultDto, PresenceResponse, PresenceStateSchema, PublicIdParams, RichPresenceInput } from './schemas.js';

const InviteParams = Type.Object({ inviteId: Type.String({ minLength: 1, maxLength: 64 }) });

export function presenceRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/presence',
    {
      schema: {
        tags: ['presence'],
        body: Type.Object(
          { state: Type.Optional(PresenceStateSchema), richPresence: Type.Optional(Type.Union([RichPresenceInput, Type.Null()])) },
          { additionalProperties: false },
        ),
        response: { 200: PresenceResponse },
      },
    },
    async (req) => {
      const stored = await setPresence(ctx, req.user, req.game, req.body);
      const view = viewPresence(stored, req.user, req.user.id, req.game);
      return { publicId: req.user.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}) };
    },
  );

  app.get('/v1/presence/:publicId', { schema: { tags: ['presence'], params: PublicIdParams, response: { 200: PresenceResponse } } }, async (req) =>
    presenceOf(ctx, req.user, req.game, req.params.publicId),
  );

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
