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

/** A live session as its owner sees it (GET /account/sessions). */
export interface LiveSessionRow {
  id: string;
  device_id: string | null;
  platform: string | null;
  auth_method: string;
  client_id: string | null;
  device_name: string | null;
  ip_cidr: string | null;
  region: string;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
}

/**
 * The account's live sessions (not revoked, not expired), most recently used first, at most `limit`.
 * Last used = the issue time of the session's newest refresh token (sign-in or latest refresh): access tokens
 * are verified offline, so their use is never seen here.
 */
export async function liveSessionsOf(db: Queryable, accountId: string, limit: number): Promise<LiveSessionRow[]> {
  const r = await db.query<LiveSessionRow>(
    `SELECT s.id, s.device_id, d.platform, s.auth_method, s.client_id, s.device_name, s.ip_cidr, s.region, s.created_at, s.expires_at,
            COALESCE((SELECT max(rt.issued_at) FROM refresh_tokens rt WHERE rt.session_id = s.id), s.created_at) AS last_used_at
       FROM sessions s LEFT JOIN devices d ON d.id = s.device_id
      WHERE s.account_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
      ORDER BY last_used_at DESC, s.id LIMIT $2`,
    [accountId, limit],
  );
  return r.rows;
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

/** Whether the session is the account's and live (ending someone else's session or an ended one is 404). */
export async function isLiveSessionOf(db: Queryable, accountId: string, sessionId: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM sessions WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND expires_at > now()`, [sessionId, accountId]);
  return r.rowCount > 0;
}

/** Whether the live session of the account began (its sign-in) within the last `seconds`, by the database's clock. */
export async function signedInWithin(db: Queryable, accountId: string, sessionId: string, seconds: number): Promise<boolean> {
  const r = await db.query(
    `SELECT 1 FROM sessions WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND created_at > now() - make_interval(secs => $3)`,
    [sessionId, accountId, seconds],
  );
  return r.rowCount > 0;
}

/** Ends every live session of the account except one; returns their ids. */
export async function revokeAccountSessionsExcept(tx: Queryable, accountId: string, keepSessionId: string): Promise<string[]> {
  const r = await tx.query<{ id: string }>(
    `UPDATE sessions SET revoked_at = now() WHERE account_id = $1 AND id <> $2 AND revoked_at IS NULL RETURNING id`,
    [accountId, keepSessionId],
  );
  return r.rows.map((s) => s.id);
}

/** The client and device name of a session the device grant opened. */
export async function setSessionClient(tx: Queryable, sessionId: string, clientId: string, deviceName: string | null): Promise<void> {
  await tx.query(`UPDATE sessions SET client_id = $2, device_name = $3 WHERE id = $1`, [sessionId, clientId, deviceName]);
}
