/**
 * Operator endpoints: signing keys, status and roles (role admin); account search, lookup and sanctions
 * (staff: moderator, admin, or a server-role token; docs/auth.md, "Sanctions").
 */
import { Type } from 'typebox';
import { UUID_PATTERN, type App } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { accountNotFound, sanctionNotFound } from '../errors.js';
import { accountExists } from '../services/accounts.js';
import {
  AccountLookup,
  AccountSearch,
  AccountStatusChange,
  AccountSummary,
  BEARER_ERRORS,
  BODY_ERRORS,
  COMMON_ERRORS,
  errorResponses,
  KeyRotation,
  NewSanctionBody,
  optionalBody,
  SanctionList,
  SanctionSchema,
} from './schemas.js';
import { changeAccountStatus, findAccounts, GRANTABLE_ROLES, lookupAccount, setRoles } from '../services/admin.js';
import { createSanction, liftSanction, listSanctions, sanctionView } from '../services/sanctions.js';
import { KEY_ROTATION_CHANNEL, keyTimings, rotateSigningKey } from '../services/keys.js';
import { actorOf, claimsOf } from '../services/callers.js';
import { resetFactors } from '../services/factor-reset.js';
import { BUS_NOTICE_WIRE } from '../services/notice-wire.js';

export async function adminRoutes(app: App, c: AuthContext) {
  app.post(
    '/admin/keys/rotate',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Start a signing-key rotation; emergency activates the new key at once',
        security: [{ bearer: [] }],
        description: 'Optional body {emergency?: boolean, retire_previous?: boolean}.',
        response: { 200: KeyRotation, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden') },
      },
    },
    async (req) => {
      const body = optionalBody<{ emergency: boolean; retire_previous: boolean }>(req.body, { emergency: 'boolean', retire_previous: 'boolean' });
      const r = await rotateSigningKey(c.db, c.config.masterKey!, keyTimings(c.config), c.auditCtx(req), {
        emergency: body.emergency,
        retirePrevious: body.retire_previous,
      });
      await c.keys.reload();
      if (body.emergency) {
        // Shared Redis: verifiers subscribed to the channel refresh at once. Separate stores: the
        // key_rotation notice written to the outbox in the rotation transaction reaches them by webhook.
        await c.state.publish(KEY_ROTATION_CHANNEL, BUS_NOTICE_WIRE.encode({ kid: r.kid }));
        c.outbox.kick();
      }
      return { kid: r.kid, state: r.state, activate_at: r.activateAt };
    },
  );

  app.post(
    '/admin/accounts/:id/status',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Set an account status (active, locked, banned); locking or banning revokes every session',
        description: 'Locking or banning ends every session of the account and announces it (`revocation` notice on `auth:revocation` and in the outbox): verifiers close its open sockets and refuse its tokens.',
        security: [{ bearer: [] }],
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        body: Type.Object(
          { status: Type.Union([Type.Literal('active'), Type.Literal('locked'), Type.Literal('banned')]) },
          { additionalProperties: false },
        ),
        response: { 200: AccountStatusChange, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden', 'account_not_found') },
      },
    },
    async (req) => {
      const claims = claimsOf(req);
      const r = await changeAccountStatus(c, { id: claims.sub, roles: claims.roles }, req.params.id, req.body.status, c.auditCtx(req));
      return { id: r.id, status: r.status, sessions_revoked: r.sessions.length };
    },
  );

  await accountAdminRoutes(app, c);
  await sanctionRoutes(app, c);
}

/** An id that is not a UUID names no account: 404 like an unknown one (nothing about the format leaks). */
function accountId(id: string): string {
  if (!UUID_PATTERN.test(id)) throw accountNotFound();
  return id.toLowerCase();
}

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'Account id (a UUID; anything else is 404)' }) });
const security = [{ bearer: [] }];
/** A staff route: no usable token, a player's token, the limit, the stores down. */
const STAFF = [BEARER_ERRORS, COMMON_ERRORS, 'moderator_required'] as const;

async function accountAdminRoutes(app: App, c: AuthContext) {
  app.get(
    '/admin/accounts',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Search accounts by exact id, exact email or display-name prefix (staff)',
        security,
        querystring: Type.Object(
          { q: Type.String({ minLength: 1, maxLength: 254 }), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) },
          { additionalProperties: false },
        ),
        response: { 200: AccountSearch, ...errorResponses(...STAFF, 'validation_failed') },
      },
    },
    async (req) => {
      return findAccounts(c, req.query.q, req.query.limit);
    },
  );

  app.get(
    '/admin/accounts/:id',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'One account with its identities, latest sessions and audit entries, and sanctions (staff)',
        security,
        params: IdParam,
        response: { 200: AccountLookup, ...errorResponses(...STAFF, 'validation_failed', 'account_not_found') },
      },
    },
    async (req) => {
      return lookupAccount(c, accountId(req.params.id));
    },
  );

  app.put(
    '/admin/accounts/:id/roles',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Set the account’s roles (admin); tokens issued from now on carry them',
        security,
        params: IdParam,
        body: Type.Object(
          { roles: Type.Array(Type.Union(GRANTABLE_ROLES.map((r) => Type.Literal(r))), { maxItems: 3, description: 'The whole list (player, moderator, admin)' }) },
          { additionalProperties: false },
        ),
        response: { 200: AccountSummary, ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden', 'account_not_found') },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      return setRoles(c, actor, accountId(req.params.id), req.body.roles, c.auditCtx(req));
    },
  );

  app.post(
    '/admin/accounts/:id/factors/reset',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Remove the account’s authenticator app and passkeys, for an owner who lost them (admin); every session ends, the owner is emailed',
        security,
        params: IdParam,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Why (the support case), kept in the audit log' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ totp_removed: Type.Boolean(), passkeys_removed: Type.Integer({ minimum: 0 }), sessions_revoked: Type.Integer({ minimum: 0 }) }),
          ...errorResponses(BEARER_ERRORS, BODY_ERRORS, COMMON_ERRORS, 'forbidden', 'account_not_found'),
        },
      },
    },
    async (req) => resetFactors(c, actorOf(req), accountId(req.params.id), req.body.reason, c.auditCtx(req)),
  );
}

async function sanctionRoutes(app: App, c: AuthContext) {
  app.post(
    '/admin/accounts/:id/sanctions',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Sanction an account: ban, chat, or a configured feature; timed or permanent (staff)',
        description:
          'A ban ends every session at once (revocation notice) and makes sign-in answer 403 account_banned; every sanction is announced (`sanction` notice on `auth:sanction` and in the outbox). Sanctioning a moderator or admin needs the admin role.',
        security,
        params: IdParam,
        body: NewSanctionBody,
        response: {
          201: SanctionSchema,
          ...errorResponses(...STAFF, BODY_ERRORS, 'unknown_sanction_type', 'forbidden', 'account_not_found'),
        },
      },
    },
    async (req, reply) => {
      const actor = actorOf(req);
      const b = req.body;
      const s = await createSanction(c, actor, accountId(req.params.id), { type: b.type, reason: b.reason, expiresAt: b.expires_at, durationSeconds: b.duration_seconds }, c.auditCtx(req));
      reply.status(201);
      return sanctionView(s);
    },
  );

  app.get(
    '/admin/accounts/:id/sanctions',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Every sanction of the account, newest first (staff)',
        security,
        params: IdParam,
        response: { 200: SanctionList, ...errorResponses(...STAFF, 'validation_failed', 'account_not_found') },
      },
    },
    async (req) => {
      const id = accountId(req.params.id);
      const list = await listSanctions(c, id);
      if (!list.length && !(await accountExists(c, id))) throw accountNotFound();
      return { sanctions: list.map(sanctionView) };
    },
  );

  app.post(
    '/admin/sanctions/:sanctionId/lift',
    {
      config: { caller: 'staff' },
      schema: {
        tags: ['admin'],
        summary: 'Lift an active sanction (staff); a lifted ban returns the account to active unless another ban is active',
        security,
        params: Type.Object({ sanctionId: Type.String({ minLength: 1, maxLength: 64 }) }),
        description: 'Optional body {reason?: string}. Lifting a sanction of a moderator or admin needs the admin role (as setting one does).',
        response: { 200: SanctionSchema, ...errorResponses(...STAFF, BODY_ERRORS, 'forbidden', 'sanction_not_found', 'sanction_not_active') },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      const body = optionalBody<{ reason: string }>(req.body, { reason: 'string' });
      if (!UUID_PATTERN.test(req.params.sanctionId)) throw sanctionNotFound();
      return sanctionView(await liftSanction(c, actor, req.params.sanctionId.toLowerCase(), body.reason, c.auditCtx(req)));
    },
  );
}
