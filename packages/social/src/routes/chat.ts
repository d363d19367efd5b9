/** Chat history and an HTTP way to send (chatSend frames on /v1/ws go through the same service, sendChatMessage). */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { history, sendChatMessage } from '../services/chat.js';
import { ChatHistory, ChatMessageDto } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED, VALIDATED } from './responses.js';

const Params = Type.Object({ kind: Type.Union([Type.Literal('dm'), Type.Literal('party'), Type.Literal('group')]), channelId: Type.String({ minLength: 1, maxLength: 64 }) });

export function chatRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/chat/:kind/:channelId/messages',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['chat'],
        summary: 'Message history, newest first',
        // A channel the caller is not in answers as an unknown one.
        response: { 200: ChatHistory, ...errorResponses(CALLER, VALIDATED, 'feature_disabled', 'channel_not_found') },
        params: Params,
        headers: CallerHeaders,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), before: Type.Optional(Type.String({ maxLength: 40, format: 'date-time', description: 'RFC 3339 instant; messages sent before it' })) },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => history(ctx, req.user, req.params.kind, req.params.channelId, req.query.limit ?? 50, req.query.before),
  );
  app.post(
    '/v1/chat/:kind/:channelId/messages',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['chat'],
        summary: 'Send a message',
        response: { 201: ChatMessageDto, ...errorResponses(CALLER, BODY, LIMITED, 'feature_disabled', 'chat_restricted', 'invalid_body', 'body_too_long', 'text_filtered', 'channel_not_found', 'not_friends', 'guest_restricted') },
        params: Params,
        headers: CallerHeaders,
        body: Type.Object({ body: Type.String({ minLength: 1, maxLength: 10_000 }) }, { additionalProperties: false }),
      },
    },
    async (req, reply) => {
      reply.status(201);
      return sendChatMessage(ctx, req.user, { channel: req.params.kind, channelId: req.params.channelId, body: req.body.body }, { principal: req.principal, game: req.game });
    },
  );
}
