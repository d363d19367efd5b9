/** Presence: set your own, read a friend's. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { presenceOf, setPresence, viewPresence } from '../services/presence.js';
import { PresenceResponse, PresenceStateSchema, PublicIdParams, RichPresenceInput } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, VALIDATED } from './responses.js';

export function presenceRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/presence',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['presence'],
        summary: 'Set the caller’s presence and rich presence',
        headers: CallerHeaders,
        body: Type.Object(
          { state: Type.Optional(PresenceStateSchema), richPresence: Type.Optional(Type.Union([RichPresenceInput, Type.Null()])) },
          { additionalProperties: false },
        ),
        // The schema admits only valid states, so invalid_state is a realtime frame's answer only.
        response: { 200: PresenceResponse, ...errorResponses(CALLER, BODY, 'rich_presence_too_large') },
      },
    },
    async (req) => {
      const stored = await setPresence(ctx, req.user, req.game, req.body);
      const view = viewPresence(stored, req.user, req.user.id, req.game);
      return { publicId: req.user.public_id, state: view.state, ...(view.richPresence ? { richPresence: view.richPresence } : {}) };
    },
  );

  app.get(
    '/v1/presence/:publicId',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['presence'],
        summary: 'A friend’s presence (or the caller’s own)',
        params: PublicIdParams,
        headers: CallerHeaders,
        // An unknown user answers as a hidden one.
        response: { 200: PresenceResponse, ...errorResponses(CALLER, VALIDATED, 'not_visible') },
      },
    },
    async (req) => presenceOf(ctx, req.user, req.game, req.params.publicId),
  );
}
