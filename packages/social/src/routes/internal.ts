/**
 * Notices from the auth service's outbox (server-to-server). The caller
 * presents an access token with the `server` role (verified offline against
 * the auth key set like any token); see app.ts. Delivery is at-least-once, so
 * every notice is idempotent here.
 */
import { Type } from 'typebox';
import { AUTH_SERVICE_NAME, defineWire, serviceSubject, type App } from '@platform/kit';
import type { Ctx } from '../context.js';
import { eraseAccount } from '../services/account.js';
import { appealDecided } from '../services/appeal-notices.js';
import { socialError } from '../services/errors.js';
import { parseAuthNotice, type Revocations } from '../services/revocations.js';
import { parseSanctionNotice } from '../services/sanctions.js';
import { ANY_ROUTE, BODY, errorResponses } from './responses.js';

const Notice = Type.Object(
  {
    v: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The notice format version (absent: 1; docs/decisions/0020-versioned-messages.md). A version not read here is refused (400), so the outbox retries it after the upgrade.' }),
    ),
    id: Type.String({ format: 'uuid', description: 'Outbox notice id (the same on every redelivery)' }),
    type: Type.String({ minLength: 1, maxLength: 64, description: 'account.deleted | key_rotation | revocation | sanction | appeal; others are acknowledged and ignored' }),
    account_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    deleted_at: Type.Optional(Type.String({ maxLength: 64 })),
    kid: Type.Optional(Type.String({ maxLength: 200 })),
    retire_previous: Type.Optional(Type.Boolean()),
    // revocation (docs/auth.md, "Revocation"): every field below is required with that type.
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'revocation: logout, token_reused, account_locked, account_banned, account_deleted, or a later one' })),
    scope: Type.Optional(Type.Union([Type.Literal('session'), Type.Literal('account')], { description: 'revocation: the listed sessions, or the whole account' })),
    sids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 500, description: 'revocation: the sessions ended' })),
    revoked_at: Type.Optional(Type.String({ format: 'date-time', description: 'revocation: when the sessions ended' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'revocation: until when their tokens may still be presented' })),
    // sanction (docs/auth.md, "Sanctions"): event, sanction_id, account_id, sanction_type and expires_at are required.
    event: Type.Optional(Type.Union([Type.Literal('applied'), Type.Literal('lifted'), Type.Literal('expired')], { description: 'sanction: what happened' })),
    sanction_id: Type.Optional(Type.String({ format: 'uuid', description: 'sanction: its id' })),
    sanction_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'sanction: ban, chat or a feature; social acts on chat' })),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'sanction: its end; null: permanent' })),
    at: Type.Optional(Type.String({ format: 'date-time', description: 'sanction: when it happened' })),
    // appeal (docs/auth.md, "Appeals"): a decided appeal told to the player's inbox.
    appeal_id: Type.Optional(Type.String({ format: 'uuid', description: 'appeal: its id' })),
    outcome: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'appeal: upheld, shortened or lifted' })),
    response: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'appeal: the moderator’s answer to the player' })),
  },
  // Members a later release adds are ignored (docs/decisions/0020-versioned-messages.md): a strict schema here refused
  // every notice of a newer auth node until social was upgraded too.
  { additionalProperties: true },
);

/**
 * Auth's outbox notice as read here (docs/decisions/0020-versioned-messages.md): version 1, the members above,
 * written without `v` by auth nodes of the releases whose social refused unknown members, with `v: 1` after.
 */
const AUTH_NOTICE_WIRE = defineWire<Record<string, unknown>>({ name: 'auth.notice', read: { 1: (m) => m } });

export interface InternalRouteOptions {
  refreshKeys(): Promise<void>;
  revocations: Revocations;
}

type NoticeBody = Record<string, unknown> & { id: string; type: string };

/** A revocation notice: applied on this node, recorded, and told to the other nodes before the acknowledgement. */
async function revocationNotice(opts: InternalRouteOptions, n: NoticeBody): Promise<void> {
  for (const field of ['reason', 'scope', 'account_id', 'sids', 'revoked_at', 'until']) {
    if (n[field] === undefined) throw socialError('validation_failed', `revocation needs ${field}`, { field });
  }
  const r = parseAuthNotice(n);
  if (!r) throw socialError('validation_failed', 'until must not be before revoked_at', { field: 'until' });
  await opts.revocations.apply(r, { broadcast: true });
}

/** A sanction notice: a chat sanction is applied on this node, recorded and told to the other nodes; others are ignored. */
async function sanctionNotice(ctx: Ctx, n: NoticeBody): Promise<boolean> {
  for (const field of ['event', 'sanction_id', 'account_id', 'sanction_type', 'expires_at']) {
    if (n[field] === undefined) throw socialError('validation_failed', `sanction needs ${field}`, { field });
  }
  const s = parseSanctionNotice(n);
  if (!s) throw socialError('validation_failed', 'sanction: account_id must not be empty', { field: 'account_id' });
  if (s.sanctionType !== 'chat') return false;
  await ctx.sanctions.apply(s, { broadcast: true });
  return true;
}

export function internalRoutes(app: App, ctx: Ctx, opts: InternalRouteOptions): void {
  app.post(
    '/v1/internal/auth-events',
    {
      schema: {
        tags: ['internal'],
        summary: 'Auth service notices: account.deleted erases the user, key_rotation refreshes the key set, revocation ends sessions, sanction (chat) restricts chat, appeal tells the player the decision',
        // A server-role access token only: neither the API-key mode nor the tenancy headers apply here.
        security: [{ serverToken: [] }],
        body: Notice,
        response: {
          200: Type.Object({ status: Type.Union([Type.Literal('processed'), Type.Literal('ignored')]) }),
          ...errorResponses(ANY_ROUTE, BODY, 'unauthorized', 'forbidden', 'key_set_unavailable', 'database_unavailable', 'state_unavailable'),
        },
      },
      // The auth service alone (its outbox signs as service:auth, a name auth mints for no other caller).
      config: { noProfile: true, caller: serviceSubject(AUTH_SERVICE_NAME) },
    },
    async (req) => {
      const n = req.body;
      const read = AUTH_NOTICE_WIRE.decodeObject(n);
      if (!read.ok) throw socialError('validation_failed', `notice format version ${String(n.v)} is not read by this node`, { field: 'v' });
      if (n.type === 'account.deleted') {
        if (!n.account_id) throw socialError('validation_failed', 'account.deleted needs account_id', { field: 'account_id' });
        await eraseAccount(ctx, n.account_id);
        req.log.info({ notice: n.id }, 'account erased on the auth service notice');
        return { status: 'processed' as const };
      }
      if (n.type === 'revocation') {
        await revocationNotice(opts, n);
        req.log.info({ notice: n.id, reason: n.reason }, 'revocation applied on the auth service notice');
        return { status: 'processed' as const };
      }
      if (n.type === 'sanction') {
        const processed = await sanctionNotice(ctx, n);
        req.log.info({ notice: n.id, event: n.event, type: n.sanction_type }, 'sanction notice received from the auth service');
        return { status: processed ? ('processed' as const) : ('ignored' as const) };
      }
      if (n.type === 'appeal') {
        const told = await appealDecided(ctx, n);
        req.log.info({ notice: n.id, outcome: n.outcome }, 'appeal decision received from the auth service');
        return { status: told ? ('processed' as const) : ('ignored' as const) };
      }
      if (n.type === 'key_rotation') {
        await opts.refreshKeys();
        req.log.info({ notice: n.id, kid: n.kid }, 'key set refreshed on the auth service notice');
        return { status: 'processed' as const };
      }
      return { status: 'ignored' as const };
    },
  );
}
