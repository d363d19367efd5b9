/**
 * Retention across the account's tables: purging the personal data of deleted accounts after the grace
 * window, and removing idle guests with everything hanging off them.
 */
import type { Queryable } from '@platform/kit';

/** Up to 500 deleted, not yet purged accounts deleted at least `graceHours` before `now`. */
export async function accountsDueForPurge(db: Queryable, now: Date, graceHours: number): Promise<string[]> {
  const due = await db.query<{ id: string }>(
    `SELECT id FROM accounts WHERE status = 'deleted' AND purged_at IS NULL AND deleted_at <= $1::timestamptz - make_interval(hours => $2::int) LIMIT 500`,
    [now, graceHours],
  );
  return due.rows.map((r) => r.id);
}

/** Inside one transaction: everything personal of the account goes; the account row (its sub) stays, blanked. */
export async function purgeAccountData(tx: Queryable, id: string): Promise<void> {
  await tx.query(`DELETE FROM identities WHERE account_id = $1`, [id]); // credentials cascade
  await tx.query(`DELETE FROM devices WHERE account_id = $1`, [id]);
  await tx.query(`DELETE FROM audit_log WHERE account_id = $1`, [id]);
  await tx.query(`DELETE FROM sessions WHERE account_id = $1`, [id]); // refresh tokens cascade
  await tx.query(`DELETE FROM guest_idempotency WHERE account_id = $1`, [id]);
  await tx.query(`UPDATE accounts SET display_name = '', home_region = '', purged_at = now() WHERE id = $1`, [id]);
}

/** Up to 500 active guest accounts created, signed in and refreshed last more than `idleDays` before `now`. */
export async function idleGuests(db: Queryable, now: Date, idleDays: number): Promise<string[]> {
  const idle = await db.query<{ id: string }>(
    `SELECT a.id FROM accounts a
         WHERE a.is_guest AND a.status = 'active'
           AND a.created_at < $1::timestamptz - make_interval(days => $2::int)
           AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.account_id = a.id AND i.last_login_at >= $1::timestamptz - make_interval(days => $2::int))
           AND NOT EXISTS (SELECT 1 FROM sessions s JOIN refresh_tokens rt ON rt.session_id = s.id
                           WHERE s.account_id = a.id AND rt.issued_at >= $1::timestamptz - make_interval(days => $2::int))
         LIMIT 500`,
    [now, idleDays],
  );
  return idle.rows.map((r) => r.id);
}

/** Inside one transaction: the guest account and everything hanging off it (never an upgraded account). */
export async function deleteGuest(tx: Queryable, id: string): Promise<void> {
  await tx.query(`DELETE FROM audit_log WHERE account_id = $1`, [id]);
  await tx.query(`DELETE FROM devices WHERE account_id = $1`, [id]);
  await tx.query(`DELETE FROM accounts WHERE id = $1 AND is_guest`, [id]); // identities, credentials, sessions cascade
}
