/** Parties: create, read, invite, join, leave, kick, leader, session, visibility, join metadata. */
import type { App } from '@platform/kit';
import { Type, type TSchema } from 'typebox';
import type { Ctx } from '../context.js';
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
import { BODY, CALLER, CallerHeaders, errorResponses, INVITE_TARGET, LIMITED, USABLE_INVITE, VALIDATED } from './responses.js';

/** A leader-only change answering the party (services/party-access.ts, leaderParty: members only, then the leader). */
const leaderChange = <B extends TSchema>(summary: string, body: B, ...codes: Parameters<typeof errorResponses>) => ({
  tags: ['parties'],
  summary,
  params: IdParams,
  headers: CallerHeaders,
  body,
  response: { 200: PartyDto, ...errorResponses(CALLER, BODY, 'party_not_found', 'not_leader', ...codes) },
});

/** Naming a member (services/parties.ts, memberTarget). */
const MEMBER_TARGET = ['target_required', 'member_not_found'] as const;

export function partyRoutes(app: App, ctx: Ctx): void {
  membershipRoutes(app, ctx);
  leaderRoutes(app, ctx);
}

/** Create, read, invite, join, leave. */
function membershipRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/parties',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Create a party led by the caller',
        headers: CallerHeaders,
        body: Type.Object(
          { maxSize: Type.Optional(Type.Integer()), visibility: Type.Optional(PartyVisibilitySchema), join: Type.Optional(JoinMetadata) },
          { additionalProperties: false },
        ),
        response: { 201: PartyDto, ...errorResponses(CALLER, BODY, LIMITED, 'invalid_max_size', 'join_bag_too_large', 'already_in_party', 'guest_restricted') },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return createParty(ctx, req.user, req.body, { principal: req.principal, game: req.game });
    },
  );
  const partyRead = { tags: ['parties'], summary: 'A party of the caller', params: IdParams, headers: CallerHeaders };
  app.get('/v1/parties/:id', { config: { caller: 'player' }, schema: { ...partyRead, response: { 200: PartyDto, ...errorResponses(CALLER, VALIDATED, 'party_not_found') } } }, async (req) =>
    getParty(ctx, req.user, req.params.id),
  );
  app.post(
    '/v1/parties/:id/invites',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Invite a friend to the party (any member may)',
        params: IdParams,
        headers: CallerHeaders,
        body: TargetBody,
        response: { 201: InviteDto, ...errorResponses(CALLER, BODY, LIMITED, 'party_not_found', INVITE_TARGET, 'already_member') },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return inviteToParty(ctx, req.user, req.params.id, req.body);
    },
  );
  app.post(
    '/v1/parties/:id/join',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Join a party (with an invite, or as its visibility allows)',
        params: IdParams,
        headers: CallerHeaders,
        body: Type.Object({ inviteId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false }),
        response: { 200: JoinResultDto, ...errorResponses(CALLER, BODY, 'party_not_found', USABLE_INVITE, 'already_in_party', 'join_denied', 'party_full') },
      },
      // An empty POST (no body at all) means "join without an invite".
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => joinParty(ctx, req.user, req.params.id, req.body ?? {}),
  );
  app.post(
    '/v1/parties/:id/leave',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['parties'],
        summary: 'Leave a party (the last member leaving disbands it)',
        params: IdParams,
        headers: CallerHeaders,
        response: { 200: LeaveResult, ...errorResponses(CALLER, BODY, 'party_not_found') },
      },
    },
    async (req) => leaveParty(ctx, req.user, req.params.id),
  );
}

/** The leader's changes: kick, leader, session, visibility, join metadata. */
function leaderRoutes(app: App, ctx: Ctx): void {
  app.post('/v1/parties/:id/kick', { config: { caller: 'player' }, schema: leaderChange('Remove a member', MemberTargetBody, MEMBER_TARGET, 'cannot_kick_self') }, async (req) =>
    kick(ctx, req.user, req.params.id, req.body),
  );
  app.post('/v1/parties/:id/leader', { config: { caller: 'player' }, schema: leaderChange('Hand the leadership to a member', MemberTargetBody, MEMBER_TARGET) }, async (req) =>
    transferLeader(ctx, req.user, req.params.id, req.body),
  );
  app.post(
    '/v1/parties/:id/session',
    {
      config: { caller: 'player' },
      schema: leaderChange(
        'Set or clear the session handle',
        Type.Object({ sessionHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) }, { additionalProperties: false }),
      ),
    },
    async (req) => setSession(ctx, req.user, req.params.id, req.body.sessionHandle),
  );
  app.post(
    '/v1/parties/:id/visibility',
    { config: { caller: 'player' }, schema: leaderChange('Set who may join without an invite', Type.Object({ visibility: PartyVisibilitySchema }, { additionalProperties: false })) },
    async (req) => setVisibility(ctx, req.user, req.params.id, req.body.visibility),
  );
  app.post('/v1/parties/:id/join-metadata', { config: { caller: 'player' }, schema: leaderChange('Set the join metadata', JoinMetadata, 'join_bag_too_large') }, async (req) =>
    setJoinMetadata(ctx, req.user, req.params.id, req.body),
  );
}
