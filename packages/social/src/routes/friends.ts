/** Friends, friend requests, blocks and mutes. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
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


export function friendRoutes(app: App, ctx: Ctx): void {
  app.get('/v1/friends', { schema: { tags: ['friends'], summary: 'Friends with presence', response: { 200: Type.Array(FriendSummary) } } }, async (req) => listFriends(ctx, req.user, req.game));

  app.post('/v1/friends/requests', { schema: { tags: ['friends'], body: TargetBody, response: { 201: RequestSummary } } }, async (req, reply) => {
    reply.status(201);
    return sendRequest(ctx, req.user, req.body);
  });

  app.get(
    '/v1/friends/requests',
    {
      schema: {
        tags: ['friends'],
        querystring: Type.Object({ dir: Type.Optional(Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')])) }, { additionalProperties: false }),
        response: { 200: Type.Array(RequestSummary) },
      },
    },
    async (req) => listRequests(ctx, req.user, req.query.dir ?? 'incoming'),
  );

  app.post('/v1/friends/requests/:publicId/accept', { schema: { tags: ['friends'], params: PublicIdParams, response: { 200: RequestSummary } } }, async (req) =>
    acceptRequest(ctx, req.user, req.params.publicId),
  );
  app.post('/v1/friends/requests/:publicId/decline', { schema: { tags: ['friends'], params: PublicIdParams, response: { 200: RequestSummary } } }, async (req) =>
    declineRequest(ctx, req.user, req.params.publicId),
  );
  app.delete('/v1/friends/requests/:publicId', { schema: { tags: ['friends'], params: PublicIdParams } }, async (req, reply) => {
    await cancelRequest(ctx, req.user, req.params.publicId);
    return reply.status(204).send();
  });
  app.delete('/v1/friends/:publicId', { schema: { tags: ['friends'], params: PublicIdParams } }, async (req, reply) => {
    await removeFriend(ctx, req.user, req.params.publicId);
    return reply.status(204).send();
  });

  const done = (fn: typeof block) => async (req: { user: any; params: { publicId: string } }, reply: any) => {
    await fn(ctx, req.user, req.params.publicId);
    return reply.status(204).send();
  };
  app.post('/v1/blocks/:publicId', { schema: { tags: ['blocks'], params: PublicIdParams } }, done(block));
  app.delete('/v1/blocks/:publicId', { schema: { tags: ['blocks'], params: PublicIdParams } }, done(unblock));
  app.post('/v1/mutes/:publicId', { schema: { tags: ['mutes'], params: PublicIdParams } }, done(mute));
  app.delete('/v1/mutes/:publicId', { schema: { tags: ['mutes'], params: PublicIdParams } }, done(unmute));
}
