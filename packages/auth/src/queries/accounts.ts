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

/** A new (non-guest) account with the default roles and status. */
export async function insertAccount(tx: Queryable, displayName: string): Promise<AccountRow> {
  return (await tx.query<AccountRow>(`INSERT INTO accounts (display_name, is_guest) VALUES ($1, false) RETURNING *`, [displayName])).rows[0];
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

/** An operator's status change; false when there is no such account (or it is deleted). */
export async function setAccountStatus(tx: Queryable, accountId: string, status: 'active' | 'locked' | 'banned'): Promise<boolean> {
  const r = await tx.query<{ id: string }>(
    `UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 AND status <> 'deleted' RETURNING id`,
    [accountId, status],
  );
  return r.rowCount > 0;
}
