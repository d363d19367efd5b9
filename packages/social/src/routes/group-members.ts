/** Group membership routes (docs/social.md, "Groups"): join, leave, members, join requests, invites. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { acceptGroupInvite, decideRequest, declineGroupInvite, inviteToGroup, joinGroup, leaveGroup, listRequests, myGroupInvites } from '../services/group-membership.js';
import { groupMembers } from '../services/groups.js';
import { IdParams, TargetBody } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED, NoContent, VALIDATED } from './responses.js';
import { AS_MEMBER, GroupInviteDto, GroupMemberDto, GroupMemberListed, GroupMemberParams, InviteParams, JoinResult, Nullable, Page, Str } from './group-schemas.js';

export function groupMemberRoutes(app: App, ctx: Ctx): void {
  joinRoutes(app, ctx);
  requestRoutes(app, ctx);
  inviteRoutes(app, ctx);
}

/** Join, leave, members. */
function joinRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/groups/:id/join',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Join an open group, or ask to join a request group (the members who may accept get groupJoinRequested)',
        params: IdParams,
        headers: CallerHeaders,
        response: {
          200: JoinResult,
          ...errorResponses(CALLER, BODY, 'group_not_found', 'already_group_member', 'group_banned', 'group_join_denied', 'group_full', 'group_limit_reached', 'group_request_exists'),
        },
      },
    },
    async (req) => joinGroup(ctx, req.user, req.game, req.params.id),
  );
  app.post(
    '/v1/groups/:id/leave',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Leave the group, or withdraw a pending join request; the last member leaving ends the group',
        params: IdParams,
        headers: CallerHeaders,
        response: {
          200: Type.Object({ state: Type.Union([Type.Literal('left'), Type.Literal('withdrawn')]) }),
          ...errorResponses(CALLER, BODY, 'group_not_found', 'owner_must_transfer'),
        },
      },
    },
    async (req) => leaveGroup(ctx, req.user, req.game, req.params.id),
  );
  app.get(
    '/v1/groups/:id/members',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'The group’s members with their roles, in joining order (keyset pages)',
        params: IdParams,
        headers: CallerHeaders,
        querystring: Type.Object(Page, { additionalProperties: false }),
        response: {
          200: Type.Object({ members: Type.Array(GroupMemberListed), nextCursor: Nullable(Str) }),
          ...errorResponses(CALLER, VALIDATED, 'group_not_found', 'invalid_cursor'),
        },
      },
    },
    async (req) => groupMembers(ctx, req.user, req.game, req.params.id, req.query),
  );
}

/** Join requests: list, accept, deny. */
function requestRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/groups/:id/requests',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Pending join requests, oldest first (permission accept_requests); those of players the caller blocked are not shown',
        params: IdParams,
        headers: CallerHeaders,
        response: {
          200: Type.Object({ requests: Type.Array(Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, requestedAt: Str })) }),
          ...errorResponses(CALLER, VALIDATED, AS_MEMBER),
        },
      },
    },
    async (req) => listRequests(ctx, req.user, req.game, req.params.id),
  );
  app.post(
    '/v1/groups/:id/requests/:publicId/accept',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Accept a join request (permission accept_requests); the members get groupMemberJoined',
        params: GroupMemberParams,
        headers: CallerHeaders,
        response: {
          200: GroupMemberDto,
          ...errorResponses(CALLER, BODY, AS_MEMBER, 'group_request_not_found', 'already_group_member', 'group_banned', 'group_full', 'group_limit_reached'),
        },
      },
    },
    async (req) => (await decideRequest(ctx, req.user, req.game, req.params.id, req.params.publicId, true))!,
  );
  app.post(
    '/v1/groups/:id/requests/:publicId/deny',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Deny a join request (permission accept_requests)',
        params: GroupMemberParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, AS_MEMBER, 'group_request_not_found') },
      },
    },
    async (req, reply) => {
      await decideRequest(ctx, req.user, req.game, req.params.id, req.params.publicId, false);
      reply.status(204);
    },
  );
}

/** Invites: send (permission invite), the caller's, accept, decline. */
function inviteRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/groups/:id/invites',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Invite a player to the group (permission invite); they get groupInviteReceived',
        params: IdParams,
        headers: CallerHeaders,
        body: TargetBody,
        response: {
          201: GroupInviteDto,
          ...errorResponses(CALLER, BODY, LIMITED, AS_MEMBER, 'target_required', 'user_not_found', 'cannot_invite_self', 'you_blocked_user', 'already_group_member', 'group_banned'),
        },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return inviteToGroup(ctx, req.user, req.game, req.params.id, req.body);
    },
  );
  app.get(
    '/v1/me/group-invites',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Unexpired group invites to the caller, newest first',
        headers: CallerHeaders,
        response: { 200: Type.Object({ invites: Type.Array(GroupInviteDto) }), ...errorResponses(CALLER) },
      },
    },
    async (req) => myGroupInvites(ctx, req.user),
  );
  app.post(
    '/v1/me/group-invites/:inviteId/accept',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Accept a group invite (from the group’s game): join, whatever the join policy',
        params: InviteParams,
        headers: CallerHeaders,
        response: { 200: JoinResult, ...errorResponses(CALLER, BODY, 'group_invite_not_found', 'already_group_member', 'group_banned', 'group_full', 'group_limit_reached') },
      },
    },
    async (req) => acceptGroupInvite(ctx, req.user, req.game, req.params.inviteId),
  );
  app.post(
    '/v1/me/group-invites/:inviteId/decline',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['groups'],
        summary: 'Decline a group invite',
        params: InviteParams,
        headers: CallerHeaders,
        response: { 204: NoContent, ...errorResponses(CALLER, BODY, 'group_invite_not_found') },
      },
    },
    async (req, reply) => {
      await declineGroupInvite(ctx, req.user, req.params.inviteId);
      reply.status(204);
    },
  );
}

