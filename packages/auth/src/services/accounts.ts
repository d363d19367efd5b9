/** The signed-in account's own operations: view, profile, link, unlink, export, delete; and its summary for internal callers. */
import { appealsOf } from '../queries/appeals.js';
import { ownAppealView } from './appeals.js';
import { isUniqueViolation, UUID_PATTERN, type Queryable } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { accountInactive, accountNotFound, fail } from '../errors.js';
import {
  accountById,
  accountStatus,
  accountSummary,
  lockAccount,
  lockAccountStatus,
  markAccountDeleted,
  markGuestUpgraded,
  updateProfile,
  type AccountRow,
} from '../queries/accounts.js';
import { auditOf } from '../queries/audit.js';
import { credentialsOf, insertPasswordCredential } from '../queries/credentials.js';
import { devicesOf } from '../queries/devices.js';
import { emailTokensOf } from '../queries/email-tokens.js';
import { deleteIdentities, identitiesOf, identityProvidersOf, insertEmailIdentity } from '../queries/identities.js';
import { insertAccountDeletedNotice } from '../queries/outbox.js';
import { sanctionsOf } from '../queries/sanctions.js';
import { sessionsOf } from '../queries/sessions.js';
import { audit, ownAuditEntry, type AuditContext } from './audit.js';
import { accountScore } from './guest-score.js';
import { OUTBOX_NOTICE_WIRE } from './notice-wire.js';
import { hashNewPassword } from './passwords.js';
import { linkPlatformIdentity, verifyTicket } from './platform.js';
import { normaliseEmail } from './sign-in-common.js';

export interface AccountDeletion {
  status: 'deleted';
  deleted_at: string;
  purge_after: string;
  /** The sessions this call ended (none when the account was deleted already). */
  sessions: string[];
}

const iso = (d: Date | string) => new Date(d).toISOString();

function accountBody(a: AccountRow) {
  return {
    id: a.id,
    display_name: a.display_name,
    status: a.status,
    roles: a.roles,
    home_region: a.home_region,
    is_guest: a.is_guest,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    deleted_at: a.deleted_at ? iso(a.deleted_at) : null,
  };
}

async function identitiesBody(db: Queryable, accountId: string) {
  return (await identitiesOf(db, accountId)).map((i) => ({ ...i, linked_at: iso(i.linked_at), last_login_at: i.last_login_at ? iso(i.last_login_at) : null }));
}

async function devicesBody(db: Queryable, accountId: string) {
  return (await devicesOf(db, accountId)).map((d) => ({ ...d, first_seen_at: iso(d.first_seen_at), last_seen_at: iso(d.last_seen_at) }));
}

/** Inside a transaction: locks the account row; 401 unless the account is active (the token outlived it). */
async function lockActiveAccount(tx: Queryable, accountId: string): Promise<void> {
  if ((await lockAccountStatus(tx, accountId)) !== 'active') throw accountInactive();
}

export async function viewAccount(ctx: AuthContext, accountId: string) {
  const db = ctx.db;
  const a = await accountById(db, accountId);
  if (!a || a.status === 'deleted') throw fail('invalid_token', 'The account no longer exists');
  return { ...accountBody(a), identities: await identitiesBody(db, accountId), devices: await devicesBody(db, accountId) };
}

export async function updateAccount(ctx: AuthContext, accountId: string, patch: { displayName?: string; homeRegion?: string }) {
  await updateProfile(ctx.db, accountId, patch.displayName ?? null, patch.homeRegion ?? null);
  return viewAccount(ctx, accountId);
}

export async function linkEmail(ctx: AuthContext, accountId: string, input: { email: string; password: string }, who: AuditContext) {
  const { config, db } = ctx;
  const email = normaliseEmail(input.email);
  const hash = await hashNewPassword(input.password, config.passwordParams);
  try {
    await db.transaction(async (tx) => {
      await lockActiveAccount(tx, accountId);
      const identityId = await insertEmailIdentity(tx, accountId, email, false);
      await insertPasswordCredential(tx, identityId, hash);
      await markGuestUpgraded(tx, accountId);
      await audit(tx, who, 'link', accountId, { provider: 'email', identity_id: identityId });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'identities_provider_user')) throw fail('email_taken', 'An account with this email exists');
    throw err;
  }
  return { identities: await identitiesBody(db, accountId) };
}

export async function linkPlatform(ctx: AuthContext, accountId: string, input: { provider: string; ticket: string; nonce?: string }, who: AuditContext) {
  const { db, verifiers } = ctx;
  const id = await verifyTicket(verifiers, input.provider, input.ticket, input.nonce);
  await db.transaction(async (tx) => {
    await lockActiveAccount(tx, accountId);
    await linkPlatformIdentity(tx, id, accountId, who);
  });
  return { identities: await identitiesBody(db, accountId) };
}

/** Removes an identity unless it is the account's last usable credential. */
export async function unlinkIdentity(ctx: AuthContext, accountId: string, which: { provider?: string; identityId?: string }, who: AuditContext) {
  const db = ctx.db;
  await db.transaction(async (tx) => {
    // The row lock serialises concurrent unlinks of one account, so the guard cannot be raced.
    await lockActiveAccount(tx, accountId);
    const ids = await identityProvidersOf(tx, accountId);
    const target = ids.filter((i) => (which.identityId ? i.id === which.identityId : i.provider === which.provider));
    if (!target.length) throw fail('identity_not_found', 'The account has no such identity');
    if (ids.length - target.length < 1) throw fail('last_credential', 'An account must keep at least one way to sign in');
    await deleteIdentities(tx, target.map((t) => t.id));
    for (const t of target) await audit(tx, who, 'unlink', accountId, { provider: t.provider, identity_id: t.id });
  });
  return { identities: await identitiesBody(db, accountId) };
}

/** Everything held about the account (no secret hashes). */
export async function exportAccount(ctx: AuthContext, accountId: string) {
  const db = ctx.db;
  const v = await viewAccount(ctx, accountId);
  const credentials = await credentialsOf(db, accountId);
  const sessions = await sessionsOf(db, accountId);
  const auditRows = await auditOf(db, accountId);
  return {
    exported_at: new Date().toISOString(),
    account: accountBody((await accountById(db, accountId))!),
    identities: v.identities,
    credentials,
    devices: v.devices,
    sessions,
    // Entries a staff member or service wrote name neither them nor their address (services/audit.ts).
    audit_log: auditRows.map((row) => ownAuditEntry(row, accountId)),
    email_tokens: await emailTokensOf(db, accountId),
    // Every sanction of the account, lifted and ended ones too, without the staff who set or lifted it (as the
    // player's own view, GET /account/sanctions, never names them).
    sanctions: (await sanctionsOf(db, accountId)).map((x) => ({
      id: x.id,
      type: x.type,
      reason: x.reason,
      created_at: x.created_at,
      expires_at: x.expires_at,
      lifted_at: x.lifted_at,
      lift_reason: x.lift_reason,
      active: x.active,
    })),
    // Every appeal the player filed, with the answer, without who decided (docs/auth.md, "Appeals").
    appeals: (await appealsOf(db, accountId)).map(ownAppealView),
  };
}

/**
 * Soft delete, through the revoker: every session ends and is announced (`account_deleted`, so open sockets
 * close and tokens are refused at once); the account.deleted notice (erasure) goes to the outbox in the same
 * transaction. Repeatable: a retry ends nothing new and writes no second account.deleted notice.
 * `presentedSid`: the session of the token that asked, denied again on a retry.
 */
export async function deleteAccount(ctx: AuthContext, accountId: string, presentedSid: string, who: AuditContext): Promise<AccountDeletion> {
  const { config, revoker } = ctx;
  const { sessions, value: deletedAt } = await revoker.revoke(
    { reason: 'account_deleted', accountId, alsoSids: [presentedSid] },
    {
      before: async (tx) => {
        const a = await lockAccount(tx, accountId);
        if (!a) throw fail('invalid_token', 'The account no longer exists');
        if (a.status === 'deleted' && a.deleted_at) return { at: new Date(a.deleted_at), now: false };
        return { at: new Date(await markAccountDeleted(tx, accountId)), now: true };
      },
      after: async (tx, _ended, d) => {
        if (!d.now) return;
        await insertAccountDeletedNotice(tx, OUTBOX_NOTICE_WIRE.encodeObject({ type: 'account.deleted', account_id: accountId, deleted_at: d.at.toISOString() }));
        await audit(tx, who, 'delete', accountId, { grace_hours: config.deletionGraceHours });
      },
    },
  );
  const purgeAfter = new Date(deletedAt.at.getTime() + config.deletionGraceHours * 3_600_000);
  return { status: 'deleted', deleted_at: deletedAt.at.toISOString(), purge_after: purgeAfter.toISOString(), sessions };
}

/** What another platform service may learn: unknown, malformed and deleted ids are 404 account_not_found. */
export async function accountSummaryFor(ctx: AuthContext, accountId: string) {
  if (!UUID_PATTERN.test(accountId)) throw accountNotFound();
  const a = await accountSummary(ctx.db, accountId);
  if (!a || a.status === 'deleted') throw accountNotFound();
  // A guest's standing by its abuse score, for the services that gate guests' sensitive actions by it (social): the
  // level only, never the number or the reasons (docs/auth.md, "Guest abuse score").
  const standing = a.is_guest ? (await accountScore(ctx, a.id)).level : undefined;
  return { id: a.id, status: a.status, is_guest: a.is_guest, display_name: a.display_name, created_at: iso(a.created_at), ...(standing ? { guest_standing: standing } : {}) };
}

export async function accountExists(ctx: AuthContext, accountId: string): Promise<boolean> {
  return (await accountStatus(ctx.db, accountId)) !== undefined;
}

export async function isAccountDeleted(ctx: AuthContext, accountId: string): Promise<boolean> {
  return (await accountStatus(ctx.db, accountId)) === 'deleted';
}
