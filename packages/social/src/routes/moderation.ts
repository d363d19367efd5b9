/**
 * The moderation queue (docs/social.md, "Moderation queue"): moderators and admins (the token's roles claim)
 * list reports, read one with its snapshot, and move it through its states.
 */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../services/context.js';
import { assertModerator, getReport, listQueue, moveReportState } from '../services/moderation.js';
import { REPORT_REASONS } from '../services/reports.js';
import { BODY, CALLER, CallerHeaders, errorResponses, VALIDATED } from './responses.js';

const Str = Type.String();
const Named = Type.Union([Type.Object({ publicId: Str, fullHandle: Str }), Type.Null()]);
const ReportStateSchema = Type.Union([Type.Literal('received'), Type.Literal('in_review'), Type.Literal('actioned'), Type.Literal('dismissed')]);

const SnapshotSchema = Type.Union([
  Type.Object({
    takenAt: Str,
    target: Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, avatarUrl: Type.Union([Str, Type.Null()]), status: Type.Union([Str, Type.Null()]) }),
    channel: Type.Optional(
      Type.Object({
        kind: Type.Union([Type.Literal('dm'), Type.Literal('party')]),
        channelId: Str,
        messages: Type.Array(Type.Object({ messageId: Str, body: Str, sentAt: Str })),
      }),
    ),
  }),
  Type.Null({ description: 'No snapshot: the target was erased, or the report predates snapshots' }),
]);

export const ReportView = Type.Object({
  reportId: Str,
  state: ReportStateSchema,
  reason: Str,
  context: Type.Union([Str, Type.Null()]),
  gameId: Type.Union([Str, Type.Null()]),
  createdAt: Str,
  updatedAt: Type.Union([Str, Type.Null()]),
  reporter: Named,
  target: Named,
  snapshot: SnapshotSchema,
  history: Type.Array(Type.Object({ state: ReportStateSchema, at: Str, by: Named, note: Type.Optional(Str) })),
});

const ReportParams = Type.Object({ reportId: Type.String({ minLength: 1, maxLength: 64 }) });

/** The caller's route, then the role: a player gets 403 moderator_required. */
const MODERATOR = [...CALLER, 'moderator_required'] as const;

export function moderationRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/moderation/reports',
    {
      schema: {
        tags: ['moderation'],
        summary: 'The report queue, newest first (moderators)',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            state: Type.Optional(ReportStateSchema),
            targetPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            reason: Type.Optional(Type.Enum(REPORT_REASONS)),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'nextCursor of the page before' })),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ reports: Type.Array(ReportView), nextCursor: Type.Optional(Str) }),
          ...errorResponses(MODERATOR, VALIDATED, 'invalid_cursor'),
        },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      return listQueue(ctx, req.query);
    },
  );

  app.get(
    '/v1/moderation/reports/:reportId',
    {
      schema: {
        tags: ['moderation'],
        summary: 'One report with the snapshot taken when it was filed (moderators)',
        headers: CallerHeaders,
        params: ReportParams,
        response: { 200: ReportView, ...errorResponses(MODERATOR, VALIDATED, 'report_not_found') },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      return getReport(ctx, req.params.reportId);
    },
  );

  app.post(
    '/v1/moderation/reports/:reportId/state',
    {
      schema: {
        tags: ['moderation'],
        summary: 'Move a report: received → in_review → actioned | dismissed (moderators)',
        headers: CallerHeaders,
        params: ReportParams,
        body: Type.Object(
          {
            state: Type.Union([Type.Literal('in_review'), Type.Literal('actioned'), Type.Literal('dismissed')]),
            note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ReportView, ...errorResponses(MODERATOR, BODY, 'report_not_found', 'invalid_transition') },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      return moveReportState(ctx, req.user, req.params.reportId, req.body);
    },
  );
}
