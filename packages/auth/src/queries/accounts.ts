/** The accounts table: the account row itself (sign-in, the account's own operations, operators, internal callers). */
import type { Queryable } from '@platform/kit';

export type AccountStatus = 'active' | 'locked' | 'banned' | 'deleted';

export interface AccountRow {
  id: string;
  display_name: string;
  status: AccountStatus;
  roles: string[];
  home_region: string;
  is_guest: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export async function accountById(db: Queryable, accountId: string): Promise<AccountRow | undefined> {
  return (await db.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1`, [accountId])).rows[0];
}

/** The row, locked until the transaction ends. */
export async function lockAccount(tx: Queryable, accountId: string): Promise<AccountRow | undefined> {
  return (await tx.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1 FOR UPDATE`, [accountId])).rows[0];
}

/** Only the status, locked until the transaction ends (serialises the account's own changes). */
export async function lockAccountStatus(tx: Queryable, accountId: string): Promise<AccountStatus | undefined> {
  const a = await tx.query<{ status: AccountStatus }>(`SELECT status FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
  return a.rows[0]?.status;
}

export async function accountStatus(db: Queryable, accountId: string): Promise<AccountStatus | undefined> {
  const r = await db.query<{ status: AccountStatus }>(`SELECT status FROM accounts WHERE id = $1`, [accountId]);
  return r.rows[0]?.status;
}

/** What an internal caller may learn about an account. */
export interface AccountSummaryRow {
  id: string;
  status: AccountStatus;
  is_guest: boolean;
  display_name: string | null;
  created_at: Date;
}

export async function accountSummary(db: Queryable, accountId: string): Promise<AccountSummaryRow | undefined> {
  const r = await db.query<AccountSummaryRow>(`SELECT id, status, is_guest, display_name, created_at FROM accounts WHERE id = $1`, [accountId]);
  return r.rows[0];
}

/** A new (non-guest) account with the default roles and status (`id`: drawn before, e.g. announced in an answer). */
export async function insertAccount(tx: Queryable, displayName: string, id?: string): Promise<AccountRow> {
  const r = await tx.query<AccountRow>(`INSERT INTO accounts (id, display_name, is_guest) VALUES (COALESCE($2::uuid, gen_random_uuid()), $1, false) RETURNING *`, [
    displayName,
    id ?? null,
  ]);
  return r.rows[0];
}

/** A guest that links a credential of its own is no longer a guest. */
export async function markGuestUpgraded(tx: Queryable, accountId: string): Promise<void> {
  await tx.query(`UPDATE accounts SET is_guest = false, updated_at = now() WHERE id = $1`, [accountId]);
}

/** Null leaves a field as it is. */
export async function updateProfile(db: Queryable, accountId: string, displayName: string | null, homeRegion: string | null): Promise<void> {
  await db.query(
    `UPDATE accounts SET display_name = COALESCE($2, display_name), home_region = COALESCE($3, home_region), updated_at = now()
         WHERE id = $1 AND status <> 'deleted'`,
    [accountId, displayName, homeRegion],
  );
}

export async function markAccountDeleted(tx: Queryable, accountId: string): Promise<Date> {
  const d = await tx.query<{ deleted_at: Date }>(
    `UPDATE accounts SET status = 'deleted', deleted_at = now(), updated_at = now() WHERE id = $1 RETURNING deleted_at`,
    [accountId],
  );
  return d.rows[0].deleted_at;
}

/** An operator's lock set (true) or removed (false); `status` is then settled (settleAccountStatus). */
export async function setOperatorLock(tx: Queryable, accountId: string, locked: boolean): Promise<void> {
  await tx.query(
    `UPDATE accounts SET locked_at = CASE WHEN $2 THEN COALESCE(locked_at, now()) END, updated_at = now() WHERE id = $1 AND status <> 'deleted'`,
    [accountId, locked],
  );
}

/**
 * The effective status from the facts (migration 0007): banned while a ban sanction is active, else locked while an
 * operator's lock is in force, else active; a deleted account stays deleted. Every change of a lock or a ban ends
 * here, so ending one never undoes the other. Returns the status.
 */
export async function settleAccountStatus(tx: Queryable, accountId: string): Promise<AccountStatus | undefined> {
  const r = await tx.query<{ status: AccountStatus }>(
    `UPDATE accounts a SET status = CASE
         WHEN EXISTS (SELECT 1 FROM sanctions s WHERE s.account_id = a.id AND s.type = 'ban' AND s.lifted_at IS NULL
                        AND (s.expires_at IS NULL OR s.expires_at > now())) THEN 'banned'
         WHEN a.locked_at IS NOT NULL THEN 'locked'
         ELSE 'active' END,
       updated_at = now()
      WHERE a.id = $1 AND a.status <> 'deleted' RETURNING a.status`,
    [accountId],
  );
  return r.rows[0]?.status;
}

/** What an operator's search and lookup show of an account (email: its email identity, if any). */
export interface AccountListRow {
  id: string;
  display_name: string;
  status: AccountStatus;
  roles: string[];
  is_guest: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  email: string | null;
}

const LIST_COLUMNS = `a.id, a.display_name, a.status, a.roles, a.is_guest, a.created_at, a.updated_at, a.deleted_at,
  (SELECT i.provider_user_id FROM identities i WHERE i.account_id = a.id AND i.provider = 'email' ORDER BY i.linked_at LIMIT 1) AS email`;

/**
 * An operator's search: the account with this id (`id`), the one with this email identity (`email`, lower
 * case), and accounts whose display name starts with `prefix` (case-insensitive); newest first.
 */
export async function searchAccounts(db: Queryable, q: { id: string | null; email: string | null; prefix: string }, limit: number): Promise<AccountListRow[]> {
  const r = await db.query<AccountListRow>(
    `SELECT ${LIST_COLUMNS} FROM accounts a
      WHERE a.id = $1::uuid
         OR a.id IN (SELECT account_id FROM identities WHERE provider = 'email' AND provider_user_id = $2)
         OR lower(a.display_name) LIKE $3 ESCAPE '\\'
      ORDER BY a.created_at DESC, a.id DESC LIMIT $4`,
    [q.id, q.email, `${q.prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit],
  );
  return r.rows;
}

export async function accountListRow(db: Queryable, accountId: string): Promise<AccountListRow | undefined> {
  return (await db.query<AccountListRow>(`SELECT ${LIST_COLUMNS} FROM accounts a WHERE a.id = $1`, [accountId])).rows[0];
}

/** An admin's role change; false when there is no such account (or it is deleted). */
export async function setAccountRoles(tx: Queryable, accountId: string, roles: string[]): Promise<boolean> {
  const r = await tx.query(`UPDATE accounts SET roles = $2::text[], updated_at = now() WHERE id = $1 AND status <> 'deleted' RETURNING id`, [accountId, roles]);
  return r.rowCount > 0;
}

/** The account with this email identity (the grant-role CLI). */
export async function accountIdByEmail(db: Queryable, email: string): Promise<string | undefined> {
  const r = await db.query<{ account_id: string }>(`SELECT account_id FROM identities WHERE provider = 'email' AND provider_user_id = $1`, [email]);
  return r.rows[0]?.account_id;
}
