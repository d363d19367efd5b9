/** Parties: create, read, invite, join, leave, kick, leader, session, visibility, join metadata. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import {
  createParty,
  getParty,
  joinParty,
  kick,
  leaveParty,
  setJoinMetadata,
  setSession,
  setVisibility,
  transferLeader,
} from '../services/parties.js';
import { inviteToParty } from '../services/invites.js';
import { IdParams, InviteDto, JoinMetadata, JoinResultDto, LeaveResult, MemberTargetBody, PartyDto, PartyVisibilitySchema, TargetBody } from './schemas.js';

const party = { 200: PartyDto };

export function partyRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/parties',
    {
      schema: {
        tags: ['parties'],
        body: Type.Object(
          { maxSize: Type.Optional(Type.Integer()), visibility: Type.Optional(PartyVisibilitySchema), join: Type.Optional(JoinMetadata) },
          { additionalProperties: false },
        ),
        response: { 201: PartyDto },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return createParty(ctx, req.user, req.body);
    },
  );
  app.get('/v1/parties/:id', { schema: { tags: ['parties'], params: IdParams, response: party } }, async (req) => getParty(ctx, req.user, req.params.id));
  app.post('/v1/parties/:id/invites', { schema: { tags: ['parties'], params: IdParams, body: TargetBody, response: { 201: InviteDto } } }, async (req, reply) => {
    reply.status(201);
    return inviteToParty(ctx, req.user, req.params.id, req.body);
  });
  app.post(
    '/v1/parties/:id/join',
    {
      schema: {
        tags: ['parties'],
        params: IdParams,
        body: Type.Object({ inviteId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false }),
        response: { 200: JoinResultDto },
      },
      // An empty POST (no body at all) means "join without an invite".
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => joinParty(ctx, req.user, req.params.id, req.body ?? {}),
  );
  app.post('/v1/parties/:id/leave', { schema: { tags: ['parties'], params: IdParams, response: { 200: LeaveResult } } }, async (req) => leaveParty(ctx, req.user, req.params.id));
  app.post('/v1/parties/:id/kick', { schema: { tags: ['parties'], params: IdParams, body: MemberTargetBody, response: party } }, async (req) =>
    kick(ctx, req.user, req.params.id, req.body),
  );
  app.post('/v1/parties/:id/leader', { schema: { tags: ['parties'], params: IdParams, body: MemberTargetBody, response: party } }, async (req) =>
    transferLeader(ctx, req.user, req.params.id, req.body),
  );
  app.post(
    '/v1/parties/:id/session',
    {
      schema: {
        tags: ['parties'],
        params: IdParams,
        body: Type.Object({ sessionHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) }, { additionalProperties: false }),
        response: party,
      },
    },
    async (req) => setSession(ctx, req.user, req.params.id, req.body.sessionHandle),
  );
  app.post(
    '/v1/parties/:id/visibility',
    { schema: { tags: ['parties'], params: IdParams, body: Type.Object({ visibility: PartyVisibilitySchema }, { additionalProperties: false }), response: party } },
    async (req) => setVisibility(ctx, req.user, req.params.id, req.body.visibility),
  );
  app.post('/v1/parties/:id/join-metadata', { schema: { tags: ['parties'], params: IdParams, body: JoinMetadata, response: party } }, async (req) =>
    setJoinMetadata(ctx, req.user, req.params.id, req.body),
  );
}
