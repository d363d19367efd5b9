/** Presence: set your own, read a friend's. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import { presenceOf, setPresence, viewPresence } from '../services/presence.js';
import { PresenceResponse, PresenceStateSchema, PublicIdParams, RichPresenceInput } from './schemas.js';

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
}
