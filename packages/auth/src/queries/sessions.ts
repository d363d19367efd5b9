/** The sessions table: one per sign-in, ended by logout, reuse detection, deletion or an operator. */
import type { Queryable } from '@platform/kit';

export interface NewSession {
  id: string;
  accountId: string;
  deviceId: string | null;
  method: string;
  ipCidr: string | null;
  region: string;
  expiresAt: Date;
}

export async function insertSession(tx: Queryable, s: NewSession): Promise<void> {
  await tx.query(
    `INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [s.id, s.accountId, s.deviceId, s.method, s.ipCidr, s.region, s.expiresAt],
  );
}

/** Ends one session; false when it had already ended. */
export async function revokeSession(tx: Queryable, sessionId: string): Promise<boolean> {
  const r = await tx.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id`, [sessionId]);
  return r.rowCount > 0;
}

/** Ends every live session of the account; returns their ids. */
export async function revokeAccountSessions(tx: Queryable, accountId: string): Promise<string[]> {
  const r = await tx.query<{ id: string }>(`UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`, [accountId]);
  return r.rows.map((s) => s.id);
}

/** The account's sessions (privacy export). */
export async function sessionsOf(db: Queryable, accountId: string): Promise<Record<string, unknown>[]> {
  const sessions = await db.query(
    `SELECT id, device_id, auth_method, ip_cidr, region, created_at, expires_at, revoked_at FROM sessions WHERE account_id = $1 ORDER BY created_at`,
    [accountId],
  );
  return sessions.rows;
}

/** The account's latest sessions with their device platform (an operator's lookup). */
export async function latestSessionsOf(db: Queryable, accountId: string, limit: number) {
  const r = await db.query<{
    id: string;
    auth_method: string;
    device_platform: string | null;
    ip_cidr: string | null;
    created_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
  }>(
    `SELECT s.id, s.auth_method, d.platform AS device_platform, s.ip_cidr, s.created_at, s.expires_at, s.revoked_at
       FROM sessions s LEFT JOIN devices d ON d.id = s.device_id
      WHERE s.account_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2`,
    [accountId, limit],
  );
  return r.rows;
}
