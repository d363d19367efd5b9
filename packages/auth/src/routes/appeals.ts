/**
 * Appeals (docs/auth.md, "Appeals"): the player files one per sanction (with an access token, or with the appeal
 * token of a banned sign-in) and reads their own; staff read the queue and decide each once.
 */
import { Type } from 'typebox';
import { UUID_PATTERN, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail, sanctionNotFound } from '../errors.js';
import { APPEAL_REASONS, appealQueue, decide, fileAppeal, listOwnAppeals, ownAppealView, readAppealToken } from '../services/appeals.js';
import { actorOf, claimsOf } from '../services/callers.js';
import { BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, errorResponses, NullableTimestamp, SanctionSchema, Timestamp } from './schemas.js';

const security = [{ bearer: [] }];
const STAFF = [BEARER_ERRORS, COMMON_ERRORS, 'moderator_required'] as const;

const AppealStatus = Type.Union([Type.Literal('open'), Type.Literal('upheld'), Type.Literal('shortened'), Type.Literal('lifted')]);
const OwnAppeal = Type.Object({
  id: Type.String({ format: 'uuid' }),
  sanction_id: Type.String({ format: 'uuid' }),
  reason: Type.String(),
  text: Type.String(),
  status: AppealStatus,
  created_at: Timestamp,
  decided_at: NullableTimestamp,
  response: Type.Union([Type.String(), Type.Null()], { description: 'The moderator’s answer to the player (never who decided)' }),
  new_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'The sanction’s new end when the appeal shortened it' }),
});
const StaffAppeal = Type.Object({
  ...OwnAppeal.properties,
  account_id: Type.String({ format: 'uuid' }),
  decided_by: Type.Union([Type.String(), Type.Null()]),
  previous_expires_at: Type.Union([Timestamp, Type.Null()]),
  sanction: Type.Union([SanctionSchema, Type.Null()]),
});
const AppealFields = {
  reason: Type.Union(
    APPEAL_REASONS.map((r) => Type.Literal(r)),
    { description: 'not_me, misunderstood, too_harsh, account_compromised or other' },
  ),
  text: Type.String({ minLength: 1, maxLength: 2000, description: 'The player’s words (1–2000 characters)' }),
};
const NewAppeal = Type.Object(AppealFields, { additionalProperties: false });
const TokenAppeal = Type.Object({ ...AppealFields, appeal_token: Type.String({ minLength: 16, maxLength: 1024, description: 'From the 403 account_banned of a sign-in' }) }, { additionalProperties: false });

const sanctionIdOf = (id: string) => {
  if (!UUID_PATTERN.test(id)) throw sanctionNotFound();
  return id.toLowerCase();
};

export async function appealRoutes(app: App, c: AuthContext) {
  playerAppealRoutes(app, c);
  staffAppealRoutes(app, c);
}

/** The player's: file (with a session, or a banned player's appeal token) and read. */
function playerAppealRoutes(app: App, c: AuthContext) {
  app.get(
    '/account/appeals',
    { config: { caller: 'player' }, schema: { tags: ['account'], summary: 'The account’s appeals, newest first', security, response: { 200: Type.Object({ appeals: Type.Array(OwnAppeal) }), ...errorResponses(BEARER_ERRORS, COMMON_ERRORS) } } },
    async (req) => {
      const sub = claimsOf(req).sub;
      if (!UUID_PATTERN.test(sub)) return { appeals: [] };
      return { appeals: (await listOwnAppeals(c, sub)).map(ownAppealView) };
    },
  );

  app.post(
    '/account/sanctions/:sanctionId/appeal',
    {
      config: { caller: 'player' },
      schema: {
        tags: ['account'],
        summary: 'Appeal one of the account’s active sanctions (one appeal per sanction)',
        security,
        params: Type.Object({ sanctionId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: NewAppeal,
        response: { 201: OwnAppeal, ...errorResponses(BEARER_ERRORS, COMMON_ERRORS, BODY_ERRORS, 'sanction_not_found', 'sanction_not_active', 'appeal_exists') },
      },
    },
    async (req, reply) => {
      const sub = claimsOf(req).sub;
      if (!UUID_PATTERN.test(sub)) throw sanctionNotFound();
      const a = await fileAppeal(c, sub, sanctionIdOf(req.params.sanctionId), req.body, c.auditCtx(req));
      reply.status(201);
      return ownAppealView(a);
    },
  );

  app.post(
    '/appeals',
    {
      config: { caller: 'none' },
      schema: {
        tags: ['account'],
        summary: 'Appeal a ban without a session: with the appeal_token of the 403 account_banned a sign-in answered',
        body: TokenAppeal,
        response: { 201: OwnAppeal, ...errorResponses(COMMON_ERRORS, BODY_ERRORS, 'invalid_appeal_token', 'sanction_not_found', 'sanction_not_active', 'appeal_exists') },
      },
    },
    async (req, reply) => {
      const { accountId, sanctionId } = readAppealToken(c.config.masterKey, req.body.appeal_token);
      const a = await fileAppeal(c, accountId, sanctionId, { reason: req.body.reason, text: req.body.text }, { ...c.auditCtx(req), actor: accountId });
      reply.status(201);
      return ownAppealView(a);
    },
  );

}

/** Staff's: the queue and the decision. */
function staffAppealRoutes(app: App, c: AuthContext) {
  app.get(
    '/admin/appeals',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Appeals of a status (open by default), oldest first, with each sanction (staff)',
        security,
        querystring: Type.Object(
          {
            status: Type.Optional(AppealStatus),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ appeals: Type.Array(StaffAppeal), next_cursor: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(...STAFF, 'validation_failed') },
      },
    },
    async (req) => appealQueue(c, actorOf(req), { status: req.query.status ?? 'open', limit: req.query.limit ?? 20, ...(req.query.cursor !== undefined ? { cursor: req.query.cursor } : {}) }),
  );

  app.post(
    '/admin/appeals/:appealId/decide',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Decide an open appeal once: uphold, shorten (a new, earlier end) or lift (staff)',
        description: 'Lifting a sanction of a moderator or admin needs the admin role (as lifting it directly does). The player is told in the inbox, never by whom.',
        security,
        params: Type.Object({ appealId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: Type.Object(
          {
            outcome: Type.Union([Type.Literal('uphold'), Type.Literal('shorten'), Type.Literal('lift')]),
            response: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'The answer the player reads' })),
            expires_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'shorten: the new end (RFC 3339)' })),
            duration_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 315_360_000, description: 'shorten: the new end in seconds from now' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: StaffAppeal, ...errorResponses(...STAFF, BODY_ERRORS, 'forbidden', 'appeal_not_found', 'appeal_decided', 'sanction_not_active', 'invalid_shortening') },
      },
    },
    async (req) => {
      if (!UUID_PATTERN.test(req.params.appealId)) throw fail('appeal_not_found', 'No such appeal');
      const b = req.body;
      return decide(
        c,
        actorOf(req),
        req.params.appealId.toLowerCase(),
        { outcome: b.outcome, ...(b.response !== undefined ? { response: b.response } : {}), ...(b.expires_at !== undefined ? { expiresAt: b.expires_at } : {}), ...(b.duration_seconds !== undefined ? { durationSeconds: b.duration_seconds } : {}) },
        c.auditCtx(req),
      );
    },
  );
}
