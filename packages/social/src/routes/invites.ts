/** Game invites and the invite inbox (party invites are made under /v1/parties/{id}/invites). */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { acceptGameInvite, declineInvite, inviteToGame, listInvites, revokeInvite } from '../services/invites.js';
import { InviteDto, JoinMetadata, JoinResultDto } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, INVITE_TARGET, LIMITED, NoContent, USABLE_INVITE, VALIDATED } from './responses.js';

const InviteParams = Type.Object({ inviteId: Type.String({ minLength: 1, maxLength: 64 }) });

export function inviteRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/invites/game',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['invites'],
        summary: 'Invite a friend to the caller’s game session',
        headers: CallerHeaders,
        body: Type.Object(
          {
            toHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            toPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            sessionHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
            join: Type.Optional(JoinMetadata),
          },
          { additionalProperties: false },
        ),
        response: { 201: InviteDto, ...errorResponses(CALLER, BODY, LIMITED, INVITE_TARGET, 'join_bag_too_large') },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return inviteToGame(ctx, req.user, req.body);
    },
  );

  app.post(
    '/v1/invites/game/:inviteId/accept',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['invites'],
        summary: 'Accept a game invite: where to join',
        params: InviteParams,
        headers: CallerHeaders,
        response: { 200: JoinResultDto, ...errorResponses(CALLER, BODY, USABLE_INVITE) },
      },
    },
    async (req) => acceptGameInvite(ctx, req.user, req.params.inviteId),
  );

  inboxRoutes(app, ctx);
}

/** The invites of the caller, either direction: list, decline, revoke. */
function inboxRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/invites',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['invites'],
        summary: 'Pending invites (incoming by default)',
        headers: CallerHeaders,
        querystring: Type.Object({ dir: Type.Optional(Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')])) }, { additionalProperties: false }),
        response: { 200: Type.Array(InviteDto), ...errorResponses(CALLER, VALIDATED) },
      },
    },
    async (req) => listInvites(ctx, req.user, req.query.dir ?? 'incoming'),
  );

  app.post(
    '/v1/invites/:inviteId/decline',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['invites'],
        summary: 'Decline an invite addressed to the caller',
        params: InviteParams,
        headers: CallerHeaders,
        response: { 200: InviteDto, ...errorResponses(CALLER, BODY, 'invite_not_found', 'invite_not_pending') },
      },
    },
    async (req) => declineInvite(ctx, req.user, req.params.inviteId),
  );

  app.delete(
    '/v1/invites/:inviteId',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['invites'],
        summary: 'Revoke an invite the caller sent',
        params: InviteParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, 'invite_not_found', 'invite_not_pending') },
      },
    },
    async (req, reply) => {
      await revokeInvite(ctx, req.user, req.params.inviteId);
      return reply.status(204).send(null);
    },
  );
}
