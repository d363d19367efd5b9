/**
 * Appeals (docs/auth.md, "Appeals"; issue 30 item 4). A sanctioned player files one appeal per sanction (a reason
 * from a list and a text); staff decide it once: uphold (the sanction stays), shorten (its end moves earlier) or lift
 * (through the sanction's own lift, with its authority rule). Every filing and decision is audited; the decision is
 * told to the player in social's inbox (an `appeal` notice through the outbox, stored there as a moderation notice)
 * and never names who decided.
 *
 * A banned player has no session to appeal with: the 403 `account_banned` of a sign-in (after a correct credential)
 * carries an `appeal_token`, an encrypted and authenticated statement "this account may appeal this ban until then"
 * (AES-GCM under AUTH_MASTER_KEY, kit encryptSecret), accepted by `POST /appeals` instead of an access token.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail, sanctionNotFound } from '../errors.js';
import { appealsByStatus, appealsOf, decideAppeal, insertAppeal, insertAppealNotice, lockAppeal, shortenSanction, type AppealRow, type AppealStatus } from '../queries/appeals.js';
import { lockSanction, sanctionById, sanctionsByIds, type SanctionRow } from '../queries/sanctions.js';
import { audit, type AuditContext } from './audit.js';
import { OUTBOX_NOTICE_WIRE } from './notice-wire.js';
export { appealToken, readAppealToken } from './appeal-token.js';
import { announceSanctions, assertStaff, liftSanction, sanctionNotice, sanctionView, type Actor, type SanctionNotice } from './sanctions.js';

/** Why a player appeals (the list the client shows). */
export const APPEAL_REASONS = ['not_me', 'misunderstood', 'too_harsh', 'account_compromised', 'other'] as const;
export type AppealReason = (typeof APPEAL_REASONS)[number];
export type AppealOutcome = 'uphold' | 'shorten' | 'lift';


const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The player's view: never who decided. */
export const ownAppealView = (a: AppealRow) => ({
  id: a.id,
  sanction_id: a.sanction_id,
  reason: a.reason,
  text: a.text,
  status: a.status,
  created_at: iso(a.created_at)!,
  decided_at: iso(a.decided_at),
  response: a.response,
  new_expires_at: iso(a.new_expires_at),
});

/** Staff's view: with the decider, the sanction's ends, and the sanction itself. */
export const staffAppealView = (a: AppealRow, s: SanctionRow | undefined) => ({
  ...ownAppealView(a),
  account_id: a.account_id,
  decided_by: a.decided_by,
  previous_expires_at: iso(a.previous_expires_at),
  sanction: s ? sanctionView(s) : null,
});

export interface NewAppeal {
  reason: AppealReason;
  text: string;
}

/** Files the player's appeal of their own active sanction: 404 for another's or an unknown one, 409 when appealed or ended. */
export async function fileAppeal(ctx: AuthContext, accountId: string, sanctionId: string, input: NewAppeal, who: AuditContext): Promise<AppealRow> {
  return ctx.db.transaction(async (tx) => {
    const s = await lockSanction(tx, sanctionId);
    if (!s || s.account_id !== accountId) throw sanctionNotFound();
    if (!s.active) throw fail('sanction_not_active', s.lifted_at ? 'The sanction was lifted already' : 'The sanction has expired', { sanction_id: s.id });
    const a = await insertAppeal(tx, { sanctionId, accountId, reason: input.reason, text: input.text });
    if (!a) throw fail('appeal_exists', 'This sanction was appealed already', { sanction_id: s.id });
    await audit(tx, who, 'appeal', accountId, { appeal_id: a.id, sanction_id: s.id, sanction_type: s.type, reason: input.reason });
    return a;
  });
}

export const listOwnAppeals = (ctx: AuthContext, accountId: string): Promise<AppealRow[]> => appealsOf(ctx.db, accountId);

/** The staff queue: appeals of a status (open by default), oldest first, keyset-paged; with each sanction. */
export async function appealQueue(
  ctx: AuthContext,
  actor: Actor,
  q: { status: AppealStatus; cursor?: string; limit: number },
): Promise<{ appeals: ReturnType<typeof staffAppealView>[]; next_cursor: string | null }> {
  assertStaff(actor);
  const after = q.cursor === undefined ? undefined : readCursor(q.cursor);
  const rows = await appealsByStatus(ctx.db, q.status, after, q.limit + 1);
  const page = rows.slice(0, q.limit);
  // One query for the page's sanctions, not one per appeal.
  const sanctions = await sanctionsByIds(ctx.db, page.map((a) => a.sanction_id));
  const last = page.at(-1);
  return {
    appeals: page.map((a) => staffAppealView(a, sanctions.get(a.sanction_id))),
    next_cursor: rows.length > q.limit && last ? Buffer.from(JSON.stringify([new Date(last.created_at).toISOString(), last.id])).toString('base64url') : null,
  };
}

function readCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof at === 'string' && Number.isFinite(Date.parse(at)) && typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id)) return { at, id };
  } catch {
    // below
  }
  throw fail('validation_failed', 'cursor is not a cursor of this list (use next_cursor as given)', { field: 'cursor' });
}

export interface AppealDecision {
  outcome: AppealOutcome;
  /** The answer the player reads. */
  response?: string;
  /** For `shorten`: the new end (RFC 3339), or seconds from now. */
  expiresAt?: string;
  durationSeconds?: number;
}

/** When a shortened sanction ends: in the future and earlier than the current end (any end shortens a permanent one). */
function shortenedEnd(d: AppealDecision, s: SanctionRow): Date {
  if ((d.expiresAt === undefined) === (d.durationSeconds === undefined)) {
    throw fail('validation_failed', 'shorten needs exactly one of expires_at and duration_seconds', { field: 'expires_at' });
  }
  const at = d.durationSeconds !== undefined ? Date.now() + d.durationSeconds * 1000 : Date.parse(d.expiresAt!);
  if (!Number.isFinite(at)) throw fail('validation_failed', 'expires_at must be an RFC 3339 instant', { field: 'expires_at' });
  if (at <= Date.now() || (s.expires_at !== null && at >= new Date(s.expires_at).getTime())) {
    throw fail('invalid_shortening', 'The new end must be in the future and earlier than the sanction\'s end');
  }
  return new Date(at);
}

/** The decision notice for social's inbox: what the player reads, never who decided. */
function decisionNotice(a: AppealRow, s: SanctionRow) {
  return {
    id: randomUUID(),
    type: 'appeal',
    appeal_id: a.id,
    sanction_id: s.id,
    account_id: a.account_id,
    sanction_type: s.type,
    outcome: a.status,
    expires_at: a.status === 'lifted' ? null : iso(a.new_expires_at ?? s.expires_at),
    response: a.response,
    at: new Date().toISOString(),
  };
}

/**
 * Decides an open appeal once. `lift` lifts the sanction through the sanction's own lift (its authority rule: a
 * moderator's or admin's sanction is an admin's to lift); `shorten` moves an active sanction's end earlier; `uphold`
 * changes nothing but the appeal. 409 appeal_decided for a decided one; a sanction that ended meanwhile can only be
 * upheld (409 sanction_not_active otherwise).
 */
export async function decide(ctx: AuthContext, actor: Actor, appealId: string, d: AppealDecision, who: AuditContext): Promise<ReturnType<typeof staffAppealView>> {
  assertStaff(actor);
  if (d.outcome === 'lift') {
    // The lift is its own transaction (it announces itself); the appeal is decided after it, and a concurrent
    // decision is refused there.
    const open = await ctx.db.transaction(async (tx) => openAppeal(tx, appealId));
    await liftSanction(ctx, actor, open.sanction_id, d.response ?? 'Lifted on appeal', who);
  }
  const { appeal, sanction, reannounced } = await ctx.db.transaction(async (tx) => {
    const a = await openAppeal(tx, appealId);
    const s = (await lockSanction(tx, a.sanction_id))!;
    let status: Exclude<AppealStatus, 'open'> = 'upheld';
    let newEnd: Date | null = null;
    let reannounced: SanctionNotice | undefined;
    if (d.outcome === 'lift') status = 'lifted';
    else if (d.outcome === 'shorten') {
      if (!s.active) throw fail('sanction_not_active', 'The sanction has ended already; uphold the appeal instead', { sanction_id: s.id });
      newEnd = shortenedEnd(d, s);
      await shortenSanction(tx, s.id, newEnd);
      // Announced again with its new end: social keeps a chat sanction's end from the notices.
      reannounced = await sanctionNotice(tx, { ...s, expires_at: newEnd }, 'applied');
      status = 'shortened';
    }
    const decided = await decideAppeal(tx, a.id, { status, by: actor.id, response: d.response ?? null, previousExpiresAt: s.expires_at, newExpiresAt: newEnd });
    await audit(tx, who, 'appeal_decision', a.account_id, {
      by: actor.id,
      appeal_id: a.id,
      sanction_id: s.id,
      outcome: status,
      previous_expires_at: iso(s.expires_at),
      new_expires_at: iso(newEnd),
    });
    const fresh = (await sanctionById(tx, s.id))!;
    const n = decisionNotice(decided, fresh);
    await insertAppealNotice(tx, n.id, OUTBOX_NOTICE_WIRE.encodeObject({ ...n }));
    return { appeal: decided, sanction: fresh, reannounced };
  });
  if (reannounced) await announceSanctions(ctx, [reannounced]);
  ctx.outbox.kick();
  return staffAppealView(appeal, sanction);
}

async function openAppeal(tx: Queryable, appealId: string): Promise<AppealRow> {
  const a = await lockAppeal(tx, appealId);
  if (!a) throw fail('appeal_not_found', 'No such appeal');
  if (a.status !== 'open') throw fail('appeal_decided', 'The appeal was decided already', { status: a.status });
  return a;
}
