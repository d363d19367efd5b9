/** The credentials table: password and guest-secret hashes, hanging off identities. */
import type { Queryable } from '@platform/kit';
import type { AccountRow } from './accounts.js';

/**
 * A successful password login in one statement (one round trip instead of a seven-statement
 * transaction): reset the failure counter, stamp the identity, upsert the device when one is given,
 * audit, and open the session with its first refresh token. $1 credential, $2 identity, $3 account,
 * $4 device platform, $5 device fingerprint hash (NULL: no device), $6 ip, $7 node id,
 * $8 session id, $9 ip cidr, $10 region, $11 session end, $12 refresh id, $13 refresh hash, $14 refresh end.
 */
// The credential row is written only when there is something to reset: most logins follow no failure, and
// an unconditional reset would write a new row version (and its WAL) per login.
export const LOGIN_SUCCESS_SQL = `WITH credential AS (
  UPDATE credentials SET failed_attempts = 0, locked_until = NULL WHERE id = $1::uuid AND (failed_attempts <> 0 OR locked_until IS NOT NULL)
), identity AS (
  UPDATE identities SET last_login_at = now() WHERE id = $2::uuid
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash)
  SELECT $3::uuid, COALESCE($4::text, 'web'), $5::text WHERE $5::text IS NOT NULL
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE($4::text, devices.platform)
  RETURNING id
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  VALUES ($3::uuid, 'login', $6::text, $7::text, '{"method":"email","outcome":"success"}'::jsonb)
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  VALUES ($8::uuid, $3::uuid, (SELECT id FROM device), 'email', $9::text, $10::text, $11::timestamptz)
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($12::uuid, $8::uuid, $13::text, NULL, $14::timestamptz)
)
SELECT (SELECT id FROM device) AS device_id`;

/** The values of LOGIN_SUCCESS_SQL, in its parameter order. */
export interface LoginSuccess {
  credentialId: string;
  identityId: string;
  accountId: string;
  platform: string | null;
  fingerprintHash: string | null;
  ip: string | null;
  nodeId: string;
  sessionId: string;
  ipCidr: string | null;
  region: string;
  expiresAt: Date;
  refreshId: string;
  refreshHash: string;
  refreshExpiresAt: Date;
}

export async function recordLoginSuccess(db: Queryable, l: LoginSuccess): Promise<void> {
  await db.query(LOGIN_SUCCESS_SQL, [
    l.credentialId,
    l.identityId,
    l.accountId,
    l.platform,
    l.fingerprintHash,
    l.ip,
    l.nodeId,
    l.sessionId,
    l.ipCidr,
    l.region,
    l.expiresAt,
    l.refreshId,
    l.refreshHash,
    l.refreshExpiresAt,
  ]);
}

export type PasswordLoginRow = AccountRow & { identity_id: string; credential_id: string; secret_hash: string; failed_attempts: number; email_verified: boolean };

/** The account, identity and password credential of an email (already normalised). */
export async function passwordLoginOf(db: Queryable, email: string): Promise<PasswordLoginRow | undefined> {
  const found = await db.query<PasswordLoginRow>(
    `SELECT a.*, i.id AS identity_id, c.id AS credential_id, c.secret_hash, c.failed_attempts, i.verified AS email_verified
         FROM identities i JOIN accounts a ON a.id = i.account_id
         JOIN credentials c ON c.identity_id = i.id AND c.type = 'password'
         WHERE i.provider = 'email' AND i.provider_user_id = $1`,
    [email],
  );
  return found.rows[0];
}

/** Counts a wrong password on the credential (kept for the account's record); returns the new count. */
export async function countPasswordFailure(db: Queryable, credentialId: string): Promise<number> {
  const r = await db.query<{ failed_attempts: number }>(
    `UPDATE credentials SET failed_attempts = failed_attempts + 1 WHERE id = $1 RETURNING failed_attempts`,
    [credentialId],
  );
  return r.rows[0]?.failed_attempts ?? 0;
}

export async function insertPasswordCredential(tx: Queryable, identityId: string, hash: string): Promise<void> {
  await tx.query(`INSERT INTO credentials (identity_id, type, secret_hash) VALUES ($1, 'password', $2)`, [identityId, hash]);
}

/** The account's credentials without their secret hashes (privacy export). */
export async function credentialsOf(db: Queryable, accountId: string): Promise<Record<string, unknown>[]> {
  const credentials = await db.query(
    `SELECT c.id, c.identity_id, c.type, c.failed_attempts, c.locked_until, c.rotated_at
         FROM credentials c JOIN identities i ON i.id = c.identity_id WHERE i.account_id = $1`,
    [accountId],
  );
  return credentials.rows;
}
