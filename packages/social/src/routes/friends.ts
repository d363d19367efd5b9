/** Friends, friend requests, blocks and mutes. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import {
  acceptRequest,
  block,
  cancelRequest,
  declineRequest,
  listFriends,
  listRequests,
  mute,
  removeFriend,
  sendRequest,
  unblock,
  unmute,
} from '../services/friends.js';
import { FriendSummary, PublicIdParams, RequestSummary, TargetBody } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED, NoContent, VALIDATED } from './responses.js';

export function friendRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/friends',
    { config: { caller: 'player' }, schema: { tags: ['friends'], summary: 'Friends with presence', headers: CallerHeaders, response: { 200: Type.Array(FriendSummary), ...errorResponses(CALLER) } } },
    async (req) => listFriends(ctx, req.user, req.game),
  );

  app.post(
    '/v1/friends/requests',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['friends'],
        summary: 'Send a friend request (a crossing request makes friends at once)',
        headers: CallerHeaders,
        body: TargetBody,
        response: {
          201: RequestSummary,
          ...errorResponses(CALLER, BODY, LIMITED, 'target_required', 'user_not_found', 'cannot_friend_self', 'you_blocked_user', 'already_friends', 'request_exists', 'friend_limit_reached', 'guest_restricted'),
        },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return sendRequest(ctx, req.user, req.body, { principal: req.principal, game: req.game });
    },
  );

  app.get(
    '/v1/friends/requests',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['friends'],
        summary: 'Pending friend requests (incoming by default)',
        headers: CallerHeaders,
        querystring: Type.Object({ dir: Type.Optional(Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')])) }, { additionalProperties: false }),
        response: { 200: Type.Array(RequestSummary), ...errorResponses(CALLER, VALIDATED) },
      },
    },
    async (req) => listRequests(ctx, req.user, req.query.dir ?? 'incoming'),
  );

  const answer = (summary: string, ...codes: 'friend_limit_reached'[]) => ({
    tags: ['friends'],
    summary,
    params: PublicIdParams,
    headers: CallerHeaders,
    response: { 200: RequestSummary, ...errorResponses(CALLER, BODY, 'request_not_found', ...codes) },
  });
  app.post('/v1/friends/requests/:publicId/accept', { config: { caller: 'player' }, schema: answer('Accept the pending request from this user', 'friend_limit_reached') }, async (req) =>
    acceptRequest(ctx, req.user, req.params.publicId),
  );
  app.post('/v1/friends/requests/:publicId/decline', { config: { caller: 'player' }, schema: answer('Decline the pending request from this user') }, async (req) =>
    declineRequest(ctx, req.user, req.params.publicId),
  );

  const removal = (tag: string, summary: string, ...codes: Parameters<typeof errorResponses>) => ({
    tags: [tag],
    summary,
    params: PublicIdParams,
    headers: CallerHeaders,
    response: { 204: NoContent, ...errorResponses(CALLER, BODY, ...codes) },
  });
  app.delete('/v1/friends/requests/:publicId', { config: { caller: 'player' }, schema: removal('friends', 'Cancel the pending request to this user', 'request_not_found') }, async (req, reply) => {
    await cancelRequest(ctx, req.user, req.params.publicId);
    return reply.status(204).send(null);
  });
  app.delete('/v1/friends/:publicId', { config: { caller: 'player' }, schema: removal('friends', 'End a friendship (both sides)', 'friend_not_found') }, async (req, reply) => {
    await removeFriend(ctx, req.user, req.params.publicId);
    return reply.status(204).send(null);
  });

  const done = (fn: typeof block) => async (req: { user: any; params: { publicId: string } }, reply: any) => {
    await fn(ctx, req.user, req.params.publicId);
    return reply.status(204).send(null);
  };
  // A user who blocked the caller answers as an unknown one (user_not_found).
  app.post('/v1/blocks/:publicId', { config: { caller: 'player' }, schema: removal('blocks', 'Block a user (ends friendship, requests and invites; idempotent)', 'user_not_found', 'cannot_block_self') }, done(block));
  app.delete('/v1/blocks/:publicId', { config: { caller: 'player' }, schema: removal('blocks', 'Unblock a user (idempotent)', 'user_not_found') }, done(unblock));
  app.post('/v1/mutes/:publicId', { config: { caller: 'player' }, schema: removal('mutes', 'Mute a user (idempotent)', 'user_not_found', 'cannot_mute_self') }, done(mute));
  app.delete('/v1/mutes/:publicId', { config: { caller: 'player' }, schema: removal('mutes', 'Unmute a user (idempotent)', 'user_not_found') }, done(unmute));
}
