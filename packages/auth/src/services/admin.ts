/** Operator actions on accounts: status, roles, search and lookup. Key rotation is in keys.ts, sanctions in sanctions.ts. */
import { ConfigError, UUID_PATTERN, displayText, type Queryable } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { accountNotFound, fail } from '../errors.js';
import { accountIdByEmail, accountListRow, lockAccount, searchAccounts, setAccountRoles, setOperatorLock, settleAccountStatus, type AccountListRow } from '../queries/accounts.js';
import { latestAuditOf } from '../queries/audit.js';
import { identitiesOf } from '../queries/identities.js';
import { latestSessionsOf } from '../queries/sessions.js';
import { audit, type AuditContext } from './audit.js';
import { normaliseEmail } from './sign-in-common.js';
import { accountScore } from './guest-score.js';
import { announceSanctions, banInStatusChange, liftBansInStatusChange, listSanctions, sanctionView, type Actor, type SanctionNotice } from './sanctions.js';

export type OperatorStatus = 'active' | 'locked' | 'banned';

/** The roles an admin may grant (`server` belongs to service tokens only). */
export const GRANTABLE_ROLES = ['player', 'moderator', 'admin'] as const;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Transition of the account status. Banning sets a permanent ban sanction (services/sanctions.ts), locking sets
 * the operator's lock (accounts.locked_at): kept apart, so ending one leaves the other; the status is settled from
 * both. Locking or banning ends every session through the revoker (deny set, bus, outbox: open sockets close at
 * once); reactivation lifts every active ban and the lock, and ends nothing (docs/auth.md).
 */
export async function changeAccountStatus(
  ctx: AuthContext,
  actor: Actor,
  accountId: string,
  status: OperatorStatus,
  who: AuditContext,
): Promise<{ id: string; status: OperatorStatus; sessions: string[] }> {
  const { db, revoker } = ctx;
  const notices: SanctionNotice[] = [];
  if (status === 'active') {
    await db.transaction(async (tx) => {
      const a = await lockAccount(tx, accountId);
      if (!a || a.status === 'deleted') throw accountNotFound();
      notices.push(...(await liftBansInStatusChange(tx, actor, accountId, who)));
      await setOperatorLock(tx, accountId, false);
      await settleAccountStatus(tx, accountId);
    });
    await announceSanctions(ctx, notices);
    return { id: accountId, status, sessions: [] };
  }
  const { sessions } = await revoker.revoke(
    { reason: status === 'banned' ? 'account_banned' : 'account_locked', accountId },
    {
      before: async (tx) => {
        const a = await lockAccount(tx, accountId);
        if (!a || a.status === 'deleted') throw accountNotFound();
        if (status === 'banned') notices.push(await banInStatusChange(tx, ctx.config, actor, a, who));
        else await setOperatorLock(tx, accountId, true);
        // A lock under a ban shows as banned until the ban ends, then as locked (migration 0007).
        await settleAccountStatus(tx, accountId);
      },
      after: (tx, ended) => audit(tx, who, 'logout', accountId, { by: 'admin', status, sessions_revoked: ended.length }),
    },
  );
  await announceSanctions(ctx, notices);
  return { id: accountId, status, sessions };
}

export const accountSummaryView = (a: AccountListRow) => ({
  id: a.id,
  // Shown to staff in the console: stripped of bidi and line-breaking characters stored before they were cleaned.
  display_name: displayText(a.display_name),
  status: a.status,
  roles: a.roles,
  is_guest: a.is_guest,
  created_at: iso(a.created_at)!,
  email: a.email,
});

/** Search by exact account id, exact email, or display-name prefix (all three tried on the one text). */
export async function findAccounts(ctx: AuthContext, q: string, limit: number) {
  const text = q.trim();
  if (!text) throw fail('validation_failed', 'q must not be blank', { field: 'q' });
  const rows = await searchAccounts(ctx.db, { id: UUID_PATTERN.test(text) ? text.toLowerCase() : null, email: text.includes('@') ? text.toLowerCase() : null, prefix: text }, limit);
  return { accounts: rows.map(accountSummaryView) };
}

const LOOKUP_LIMIT = 50;

/** Everything an operator sees of one account: identities, latest sessions and audit entries, sanctions. */
export async function lookupAccount(ctx: AuthContext, accountId: string) {
  const db = ctx.db;
  const a = await accountListRow(db, accountId);
  if (!a) throw accountNotFound();
  const [identities, sessions, entries, list, guestScore] = await Promise.all([
    identitiesOf(db, accountId),
    latestSessionsOf(db, accountId, LOOKUP_LIMIT),
    latestAuditOf(db, accountId, LOOKUP_LIMIT),
    listSanctions(ctx, accountId),
    accountScore(ctx, accountId),
  ]);
  return {
    account: { ...accountSummaryView(a), updated_at: iso(a.updated_at)!, deleted_at: iso(a.deleted_at) },
    identities: identities.map((i) => ({
      id: i.id,
      provider: i.provider,
      provider_user_id: i.provider_user_id,
      email: i.provider === 'email' ? i.provider_user_id : null,
      verified: i.verified,
      linked_at: iso(i.linked_at)!,
      last_login_at: iso(i.last_login_at),
    })),
    sessions: sessions.map((s) => ({ ...s, created_at: iso(s.created_at)!, expires_at: iso(s.expires_at)!, revoked_at: iso(s.revoked_at) })),
    audit: entries.map((e) => ({ ...e, at: iso(e.at)! })),
    sanctions: list.map(sanctionView),
    guest_score: guestScore,
  };
}

/** What a role change needs: the whole context, or (the grant-role CLI) its database and revoker only. */
export type RoleContext = Pick<AuthContext, 'db' | 'revoker'>;

/**
 * An admin sets the account's roles (the whole list). Tokens carry roles: the new ones are in every token issued
 * from now on (sign-in and refresh). A role taken away must not outlive the change in the tokens issued before it:
 * then the change goes through the revoker (`roles_changed`, account scope, no session ended), so every verifier
 * refuses those tokens at once and the client refreshes for one with the new roles (docs/auth.md, "Roles").
 */
export async function setRoles(ctx: RoleContext, actor: Actor, accountId: string, roles: string[], who: AuditContext, extra: Record<string, unknown> = {}) {
  const { db, revoker } = ctx;
  const wanted = [...new Set(roles)];
  const change = async (tx: Queryable) => {
    const before = await lockAccount(tx, accountId);
    if (!before || before.status === 'deleted') throw accountNotFound();
    await setAccountRoles(tx, accountId, wanted);
    await audit(tx, who, 'role_change', accountId, { by: actor.id, from: before.roles, to: wanted, ...extra });
    return { before: before.roles, after: await accountListRow(tx, accountId) };
  };
  // Whether a role goes away is read again under the row lock: the revoker's notice is only skipped when none does.
  const current = await accountListRow(db, accountId);
  const removes = !current || current.roles.some((r) => !wanted.includes(r));
  const r = removes ? (await revoker.revoke({ reason: 'roles_changed', accountId, keepSessions: true }, { before: change })).value : await db.transaction(change);
  if (!removes && r.before.some((x) => !wanted.includes(x))) await revoker.revoke({ reason: 'roles_changed', accountId, keepSessions: true });
  return accountSummaryView(r.after!);
}

/**
 * The grant-role CLI: adds (or removes) roles of the account named by its email or id, audited as by `cli`.
 * Undefined when no (undeleted) account matches; a ConfigError for a role that cannot be granted.
 */
export async function grantRoles(ctx: RoleContext, account: string, roles: string[], opts: { remove: boolean; who: AuditContext; onBehalfOf?: string }) {
  const db = ctx.db;
  const bad = roles.filter((r) => !(GRANTABLE_ROLES as readonly string[]).includes(r));
  if (bad.length) throw new ConfigError([`not a role: ${bad.join(', ')} (roles: ${GRANTABLE_ROLES.join(', ')})`]);
  const id = UUID_PATTERN.test(account) ? account.toLowerCase() : await accountIdByEmail(db, normaliseEmail(account));
  const a = id ? await accountListRow(db, id) : undefined;
  if (!a || a.status === 'deleted') return undefined;
  const next = opts.remove ? a.roles.filter((r) => !roles.includes(r)) : [...new Set([...a.roles, ...roles])];
  const r = await setRoles(ctx, { id: opts.who.actor ?? 'cli', roles: [] }, a.id, next, opts.who, opts.onBehalfOf ? { on_behalf_of: opts.onBehalfOf } : {});
  return { id: r.id, roles: r.roles };
}
