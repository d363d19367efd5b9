/**
 * Sanctions (docs/auth.md, "Sanctions"): a `ban` of the account, a `chat` mute, or a feature a studio names
 * (AUTH_SANCTION_FEATURES), each with a reason, who set it, and an end (expires_at) or none (permanent).
 *
 * A ban is how an account becomes banned: in one transaction the sanction is written, the status becomes
 * `banned` and every session ends through the revoker (deny set, `auth:revocation`, outbox `revocation`), so
 * open sockets close at once; sign-in answers 403 `account_banned` with the reason and the end. When the last
 * active ban ends (lifted, or expired and swept) the status returns to `active`.
 *
 * Every sanction set, lifted or expired is announced like a revocation: a `sanction` notice written to the
 * outbox in the transaction of the change (delivered to AUTH_OUTBOX_TARGETS, e.g. social's auth-events route)
 * and, after the commit, published on the bus `auth:sanction` for verifiers sharing the state store. Social
 * refuses chat while a `chat` sanction is active; other features are for game servers.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '@platform/kit';
import type { AuthConfig } from '../config.js';
import { accountNotFound, adminRequired, fail, moderatorRequired, sanctionNotFound } from '../errors.js';
import { lockAccount, settleAccountStatus, type AccountRow } from '../queries/accounts.js';
import {
  endExpiredSanctions,
  insertSanction,
  insertSanctionNotice,
  liftActiveBans,
  liftSanction as liftSanctionRow,
  lockSanction,
  sanctionsOf,
  type SanctionRow,
} from '../queries/sanctions.js';
import { recordSanctioned } from './guest-score.js';
import { audit, type AuditContext } from './audit.js';
import { BUS_NOTICE_WIRE, OUTBOX_NOTICE_WIRE } from './notice-wire.js';
import type { AuthContext } from '../context.js';

/** The bus channel of sanction notices (the same payload as the outbox notice). */
export const SANCTION_CHANNEL = 'auth:sanction';

/** Roles that may set and lift sanctions: moderators, admins, and internal callers (server-role tokens). */
export const STAFF_ROLES: readonly string[] = ['moderator', 'admin', 'server'];
/** Only an admin (or an internal caller) may sanction an account holding one of these. */
const PROTECTED_ROLES: readonly string[] = ['moderator', 'admin'];

/** Who acts: the token's subject (an account id, or service:<name>) and roles. */
export interface Actor {
  id: string;
  roles: readonly string[];
}

export function assertStaff(actor: Actor): void {
  if (!actor.roles.some((r) => STAFF_ROLES.includes(r))) throw moderatorRequired();
}

export type SanctionEvent = 'applied' | 'lifted' | 'expired';

/** The notice on the bus and (with `id` and `type` first) in the outbox; snake_case like every auth payload. */
export interface SanctionNotice {
  id: string;
  type: 'sanction';
  event: SanctionEvent;
  sanction_id: string;
  account_id: string;
  sanction_type: string;
  /** ISO 8601; null: permanent. */
  expires_at: string | null;
  /** When the event happened (ISO 8601). */
  at: string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The operator's view of a sanction. */
export function sanctionView(s: SanctionRow) {
  return {
    id: s.id,
    account_id: s.account_id,
    type: s.type,
    reason: s.reason,
    created_at: iso(s.created_at)!,
    created_by: s.created_by,
    expires_at: iso(s.expires_at),
    lifted_at: iso(s.lifted_at),
    lifted_by: s.lifted_by,
    lift_reason: s.lift_reason,
    active: s.active,
  };
}

/** The player's own view: never who set it. */
export const ownSanctionView = (s: SanctionRow) => ({ id: s.id, type: s.type, reason: s.reason, created_at: iso(s.created_at)!, expires_at: iso(s.expires_at) });

export interface NewSanction {
  type: string;
  reason: string;
  /** RFC 3339; exclusive with durationSeconds; neither: permanent. */
  expiresAt?: string;
  durationSeconds?: number;
}

const SWEEP_BATCH = 100;
const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59);

/** When the sanction ends (null: permanent); 400 validation_failed for both fields, a past or unreadable instant. */
function endOf(input: NewSanction, now: number): Date | null {
  if (input.expiresAt !== undefined && input.durationSeconds !== undefined) {
    throw fail('validation_failed', 'Give expires_at or duration_seconds, not both', { field: 'expires_at' });
  }
  if (input.durationSeconds !== undefined) return new Date(now + input.durationSeconds * 1000);
  if (input.expiresAt === undefined) return null;
  const at = Date.parse(input.expiresAt);
  if (!Number.isFinite(at) || at > MAX_INSTANT) throw fail('validation_failed', 'expires_at must be an RFC 3339 instant before year 10000', { field: 'expires_at' });
  if (at <= now) throw fail('validation_failed', 'expires_at must be in the future', { field: 'expires_at' });
  return new Date(at);
}

function noticeOf(s: SanctionRow, event: SanctionEvent): SanctionNotice {
  return {
    id: randomUUID(),
    type: 'sanction',
    event,
    sanction_id: s.id,
    account_id: s.account_id,
    sanction_type: s.type,
    expires_at: iso(s.expires_at),
    at: new Date().toISOString(),
  };
}

async function written(tx: Queryable, notice: SanctionNotice): Promise<SanctionNotice> {
  await insertSanctionNotice(tx, notice.id, OUTBOX_NOTICE_WIRE.encodeObject({ ...notice }));
  return notice;
}

/** A sanction notice written to the outbox inside `tx` (announce it after the commit: announceSanctions). */
export const sanctionNotice = (tx: Queryable, s: SanctionRow, event: SanctionEvent): Promise<SanctionNotice> => written(tx, noticeOf(s, event));

/**
 * The actor may act on a sanction of this account (set or lift alike): a moderator's or admin's sanctions are an
 * admin's (or a service's) alone, so a moderator can neither set nor undo one.
 */
function assertAuthority(actor: Actor, a: AccountRow, verb: 'sanction' | 'lift a sanction of'): void {
  if (a.roles.some((r) => PROTECTED_ROLES.includes(r)) && !actor.roles.some((r) => r === 'admin' || r === 'server')) {
    throw adminRequired(`The admin role is required to ${verb} a moderator or admin`);
  }
}

/** The target exists (not deleted) and the actor may sanction it: staff accounts only by an admin or a service. */
function assertTarget(actor: Actor, a: AccountRow | undefined): asserts a is AccountRow {
  if (!a || a.status === 'deleted') throw accountNotFound();
  assertAuthority(actor, a, 'sanction');
}

const detail = (s: SanctionRow) => ({ sanction_id: s.id, type: s.type, expires_at: iso(s.expires_at) });

/**
 * After an ended ban: the status is settled from the facts — banned while another ban is active, locked while an
 * operator's lock (set before or during the ban) is in force, else active.
 */
async function reactivateIfUnbanned(tx: Queryable, accountId: string): Promise<void> {
  const a = await lockAccount(tx, accountId);
  if (a?.status === 'banned') await settleAccountStatus(tx, accountId);
}

/** The bus (best effort: the outbox row is the durable copy, so a failed publish is logged, not thrown). */
async function publish(ctx: AuthContext, notices: SanctionNotice[]): Promise<void> {
  await Promise.all(
    notices.map((n) => ctx.state.publish(SANCTION_CHANNEL, BUS_NOTICE_WIRE.encode({ ...n })).catch((err) => ctx.log.warn({ err, notice: n.id }, 'sanction not published on the bus'))),
  );
}

/** After the commit of a change that wrote these notices: the bus, and the outbox delivered (bounded wait). */
export async function announceSanctions(ctx: AuthContext, notices: SanctionNotice[]): Promise<void> {
  if (!notices.length) return;
  await publish(ctx, notices);
  await ctx.outbox.deliverNow(ctx.config.revocationWaitMs);
}

export async function createSanction(ctx: AuthContext, actor: Actor, accountId: string, input: NewSanction, who: AuditContext): Promise<SanctionRow> {
  assertStaff(actor);
  const types = sanctionTypes(ctx.config);
  if (!types.includes(input.type)) throw fail('unknown_sanction_type', `type must be one of ${types.join(', ')}`, { field: 'type' });
  const expiresAt = endOf(input, Date.now());
  const insert = async (tx: Queryable) => {
    const a = await lockAccount(tx, accountId);
    assertTarget(actor, a);
    const s = await insertSanction(tx, { accountId, type: input.type, reason: input.reason, createdBy: actor.id, expiresAt });
    if (input.type === 'ban') await settleAccountStatus(tx, accountId);
    await recordSanctioned({ db: tx, config: ctx.config }, accountId, input.type);
    return s;
  };
  if (input.type === 'ban') {
    // The ban, the status and the end of every session in one transaction; the revoker announces the sessions.
    let notice: SanctionNotice | undefined;
    const { value } = await ctx.revoker.revoke(
      { reason: 'account_banned', accountId },
      {
        before: insert,
        after: async (tx, ended, s) => {
          await audit(tx, who, 'sanction', accountId, { by: actor.id, ...detail(s), sessions_revoked: ended.length });
          notice = await written(tx, noticeOf(s, 'applied'));
        },
      },
    );
    await announceSanctions(ctx, notice ? [notice] : []);
    return value;
  }
  const { s, notice } = await ctx.db.transaction(async (tx) => {
    const s = await insert(tx);
    await audit(tx, who, 'sanction', accountId, { by: actor.id, ...detail(s) });
    return { s, notice: await written(tx, noticeOf(s, 'applied')) };
  });
  await announceSanctions(ctx, [notice]);
  return s;
}

export async function liftSanction(ctx: AuthContext, actor: Actor, sanctionId: string, reason: string | undefined, who: AuditContext): Promise<SanctionRow> {
  assertStaff(actor);
  const { s, notice } = await ctx.db.transaction(async (tx) => {
    const row = await lockSanction(tx, sanctionId);
    if (!row) throw sanctionNotFound();
    if (!row.active) throw fail('sanction_not_active', row.lifted_at ? 'The sanction was lifted already' : 'The sanction has expired', { sanction_id: row.id });
    const target = await lockAccount(tx, row.account_id);
    if (target) assertAuthority(actor, target, 'lift a sanction of');
    const s = await liftSanctionRow(tx, sanctionId, actor.id, reason ?? null);
    if (s.type === 'ban') await reactivateIfUnbanned(tx, s.account_id);
    await audit(tx, who, 'sanction_lift', s.account_id, { by: actor.id, ...detail(s), reason: reason ?? null });
    return { s: { ...s, active: false }, notice: await written(tx, noticeOf(s, 'lifted')) };
  });
  await announceSanctions(ctx, [notice]);
  return s;
}

/** Ends sanctions past expires_at, a batch per transaction, until none is due (a ban's account becomes active again); returns how many. */
export async function sweepSanctions(ctx: AuthContext, who: AuditContext): Promise<number> {
  let total = 0;
  for (;;) {
    const notices = await ctx.db.transaction(async (tx) => {
      const out: SanctionNotice[] = [];
      for (const s of await endExpiredSanctions(tx, SWEEP_BATCH)) {
        if (s.type === 'ban') await reactivateIfUnbanned(tx, s.account_id);
        await audit(tx, who, 'sanction_expiry', s.account_id, detail(s));
        out.push(await written(tx, noticeOf(s, 'expired')));
      }
      return out;
    });
    total += notices.length;
    if (notices.length) {
      await publish(ctx, notices);
      ctx.outbox.kick();
    }
    if (notices.length < SWEEP_BATCH) return total;
  }
}

/** The types a sanction may have: ban, chat and AUTH_SANCTION_FEATURES. */
export const sanctionTypes = (config: AuthConfig): string[] => ['ban', 'chat', ...config.sanctionFeatures];

/** The account's sanctions, newest first (all, or the active ones). */
export const listSanctions = (ctx: AuthContext, accountId: string, opts?: { activeOnly?: boolean }): Promise<SanctionRow[]> => sanctionsOf(ctx.db, accountId, opts);

/** Inside an operator's status change to banned: a permanent ban (the revoker ends the sessions around it). */
export async function banInStatusChange(tx: Queryable, config: AuthConfig, actor: Actor, account: AccountRow, who: AuditContext): Promise<SanctionNotice> {
  assertTarget(actor, account);
  const s = await insertSanction(tx, { accountId: account.id, type: 'ban', reason: 'Status set to banned by an operator', createdBy: actor.id, expiresAt: null });
  await recordSanctioned({ db: tx, config }, account.id, 'ban');
  await audit(tx, who, 'sanction', account.id, { by: actor.id, ...detail(s), via: 'status' });
  return written(tx, noticeOf(s, 'applied'));
}

/** Inside an operator's status change to active: every active ban is lifted. */
export async function liftBansInStatusChange(tx: Queryable, actor: Actor, accountId: string, who: AuditContext): Promise<SanctionNotice[]> {
  const target = await lockAccount(tx, accountId);
  if (target) assertAuthority(actor, target, 'lift a sanction of');
  const out: SanctionNotice[] = [];
  for (const s of await liftActiveBans(tx, accountId, actor.id, 'Status set to active by an operator')) {
    await audit(tx, who, 'sanction_lift', accountId, { by: actor.id, ...detail(s), via: 'status' });
    out.push(await written(tx, noticeOf(s, 'lifted')));
  }
  return out;
}
