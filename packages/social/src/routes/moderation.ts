/**
 * The moderation queue (docs/social.md, "Moderation queue"): moderators and admins (the token's roles claim)
 * list reports, read one with its snapshot, and move it through its states.
 */
import type { App } from '@platform/kit';
import { Type } from 'typebox';
import type { Ctx } from '../context.js';
import { actOnReport, assertModerator, getReport, listQueue, moveReportState } from '../services/moderation.js';
import { REPORT_REASONS } from '../services/reports.js';
import { BODY, CALLER, CallerHeaders, errorResponses, LIMITED, VALIDATED } from './responses.js';
import { socialError } from '../services/errors.js';

const Str = Type.String();
const Named = Type.Union([Type.Object({ publicId: Str, fullHandle: Str }), Type.Null()]);
const ReportStateSchema = Type.Union([Type.Literal('received'), Type.Literal('in_review'), Type.Literal('actioned'), Type.Literal('dismissed')]);

const SnapshotSchema = Type.Union([
  Type.Object({
    takenAt: Str,
    target: Type.Object({ publicId: Str, fullHandle: Str, displayName: Str, avatarUrl: Type.Union([Str, Type.Null()]), status: Type.Union([Str, Type.Null()]) }),
    channel: Type.Optional(
      Type.Object({
        kind: Type.Union([Type.Literal('dm'), Type.Literal('party'), Type.Literal('group')]),
        channelId: Str,
        messages: Type.Array(Type.Object({ messageId: Str, body: Str, sentAt: Str })),
      }),
    ),
    group: Type.Optional(
      Type.Object(
        {
          groupId: Str,
          name: Type.Optional(Str),
          tag: Type.Optional(Str),
          description: Type.Optional(Str),
          field: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('tag'), Type.Literal('description')])),
          text: Type.Optional(Str),
        },
        {
          description:
            'The group the report names (context group:<id>): its name, tag and description when the report was filed; or, in a text-filter report, the flagged field and text',
        },
      ),
    ),
    match: Type.Optional(
      Type.Object(
        { matchId: Str, endedAt: Str, roster: Type.Array(Type.Object({ publicId: Str, fullHandle: Str })) },
        { description: 'The match the report names (context match:<matchId>, one the reporter played in): its roster when the report was filed' },
      ),
    ),
  }),
  Type.Null({ description: 'No snapshot: the target was erased, or the report predates snapshots' }),
]);

export const ReportView = Type.Object({
  reportId: Str,
  state: ReportStateSchema,
  source: Type.Union([Type.Literal('player'), Type.Literal('text_filter')], {
    description: "Who filed it: a player, or the game's text filter in mode flag (reporter null; docs/social.md, \"Text filter\")",
  }),
  reason: Str,
  context: Type.Union([Str, Type.Null()]),
  gameId: Type.Union([Str, Type.Null()]),
  createdAt: Str,
  updatedAt: Type.Union([Str, Type.Null()]),
  reporter: Named,
  target: Named,
  snapshot: SnapshotSchema,
  repeatCount: Type.Integer({ minimum: 0, description: 'Reports by the same reporter about the same target merged into this one (docs/social.md, "Reports")' }),
  lastReportedAt: Type.Union([Str, Type.Null()], { description: 'When the last merged repeat was filed; null: none' }),
  repeats: Type.Array(Type.Object({ reason: Str, context: Type.Union([Str, Type.Null()]), at: Str }), { description: 'The newest 20 merged repeats, oldest first' }),
  history: Type.Array(
    Type.Object({ state: ReportStateSchema, at: Str, by: Named, note: Type.Optional(Str), sanctionId: Type.Optional(Type.String({ description: 'The sanction a moderation action set (auth)' })) }),
  ),
});

const ReportParams = Type.Object({ reportId: Type.String({ minLength: 1, maxLength: 64 }) });

/** The caller's route, then the role: a player gets 403 moderator_required. */
const MODERATOR = [...CALLER, 'moderator_required'] as const;

export function moderationRoutes(app: App, ctx: Ctx): void {
  app.get(
    '/v1/moderation/reports',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['moderation'],
        summary: 'The report queue, newest first (moderators)',
        headers: CallerHeaders,
        querystring: Type.Object(
          {
            state: Type.Optional(ReportStateSchema),
            targetPublicId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            reason: Type.Optional(Type.Enum(REPORT_REASONS)),
            sanctionId: Type.Optional(Type.String({ format: 'uuid', description: 'The report whose moderation action set this sanction (an appeal names it)' })),
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
      config: { caller: 'player' },
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
      config: { caller: 'player' },
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

  actionRoute(app, ctx);
}

/** POST …/{reportId}/actions: a sanction through auth, then the report actioned (docs/social.md, "Sanctions"). */
function actionRoute(app: App, ctx: Ctx): void {
  app.post(
    '/v1/moderation/reports/:reportId/actions',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['moderation'],
        summary: 'Act on a report: sanction its target through auth, then mark it actioned (moderators)',
        description:
          'Social calls auth’s POST /admin/accounts/{id}/sanctions with the caller’s own token (auth decides who may sanction whom), then moves the report to actioned with the sanction id in its history. An access token is required (not the API-key mode).',
        headers: CallerHeaders,
        params: ReportParams,
        body: Type.Object(
          {
            sanction: Type.Object(
              {
                type: Type.String({ minLength: 1, maxLength: 32, description: 'ban, chat, or a feature the auth service is configured with' }),
                reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Shown to the player' }),
                durationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 315_360_000, description: 'Absent: permanent' })),
              },
              { additionalProperties: false },
            ),
            note: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            report: ReportView,
            sanction: Type.Object({ id: Str, type: Str, reason: Str, createdAt: Str, expiresAt: Type.Union([Str, Type.Null()]), active: Type.Boolean() }),
          }),
          ...errorResponses(MODERATOR, BODY, LIMITED, 'report_not_found', 'invalid_transition', 'user_not_found', 'invalid_sanction', 'sanction_forbidden', 'auth_unavailable'),
        },
      },
    },
    async (req) => {
      assertModerator(req.principal.roles);
      const token = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!token) throw socialError('moderator_required', 'A moderator’s access token is required');
      return actOnReport(ctx, req.user, token, req.params.reportId, req.body);
    },
  );
}
