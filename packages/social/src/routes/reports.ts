/** Reports to moderation. */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { fileReport, REPORT_REASONS } from '../services/reports.js';
import { ReportReceived } from './schemas.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED } from './responses.js';

export function reportRoutes(app: App, ctx: Ctx): void {
  app.post(
    '/v1/reports',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['users'],
        summary: 'Report a user to moderation (taken the same way whether or not the target exists)',
        headers: CallerHeaders,
        response: { 202: ReportReceived, ...errorResponses(CALLER, BODY, LIMITED, 'target_required', 'cannot_report_self', 'guest_restricted', 'match_not_found') },
        body: Type.Object(
          {
            targetHandle: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            targetPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            reason: Type.Enum(REPORT_REASONS),
            context: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req, reply) => {
      reply.status(202);
      return fileReport(ctx, req.user, req.game, req.body, { principal: req.principal, game: req.game });
    },
  );
}
