/**
 * Guest accounts: the one-statement sign-up (single and batched), the Idempotency-Key lookup, the guest
 * credential (tables accounts, identities, credentials, devices, guest_idempotency, sessions, refresh_tokens).
 */
import type { Queryable } from '@platform/kit';
import type { AccountRow } from './accounts.js';

/**
 * Guest sign-up in one statement. $1 account id, $2 display name, $3 device platform (null: keep/web),
 * $4 fingerprint hash, $5 identity id, $6 guest secret hash, $7 idempotency key hash (null: none),
 * $8 client ip, $9 node id, $10 session id, $11 ip cidr, $12 region, $13 session expiry,
 * $14 refresh token id, $15 its hash, $16 its expiry.
 */
export const GUEST_CREATE_SQL = `WITH account AS (
  INSERT INTO accounts (id, display_name, is_guest, roles) VALUES ($1::uuid, $2::text, true, ARRAY['player'])
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash) VALUES ($1::uuid, COALESCE($3::text, 'web'), $4::text)
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE($3::text, devices.platform)
  RETURNING id
), identity AS (
  INSERT INTO identities (id, account_id, provider, provider_user_id, verified, last_login_at)
  VALUES ($5::uuid, $1::uuid, 'guest', $1::text, true, now())
), credential AS (
  INSERT INTO credentials (identity_id, type, secret_hash) VALUES ($5::uuid, 'guest_secret', $6::text)
), idempotency AS (
  INSERT INTO guest_idempotency (key_hash, account_id, device_id) SELECT $7::text, $1::uuid, id FROM device WHERE $7::text IS NOT NULL
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  VALUES ($1::uuid, 'login', $8::text, $9::text, '{"method":"guest","outcome":"success","created":true}'::jsonb)
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  SELECT $10::uuid, $1::uuid, id, 'guest', $11::text, $12::text, $13::timestamptz FROM device
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at) VALUES ($14::uuid, $10::uuid, $15::text, NULL, $16::timestamptz)
)
SELECT id AS device_id FROM device`;

/**
 * GUEST_CREATE_SQL for several guests in one statement (group commit of concurrent sign-ups): the same
 * sixteen values, each as an array with one element per guest, in the same order. Devices already known
 * keep their platform when none is given, as in the single statement. Two guests of one device in the
 * same batch cannot be upserted by one command: the statement fails, and the caller then runs every guest
 * of the batch on its own (createGuest), which is also how a per-guest conflict (an Idempotency-Key sent
 * twice at once) reaches its own request.
 */
export const GUEST_CREATE_MANY_SQL = `WITH presented AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::uuid[], $11::text[], $12::text[], $13::timestamptz[], $14::uuid[], $15::text[], $16::timestamptz[])
    AS p(account_id, display_name, platform, fingerprint_hash, identity_id, secret_hash, key_hash, ip, node_id,
         session_id, ip_cidr, region, session_expires_at, refresh_id, refresh_hash, refresh_expires_at)
), account AS (
  INSERT INTO accounts (id, display_name, is_guest, roles) SELECT account_id, display_name, true, ARRAY['player'] FROM presented
), device AS (
  INSERT INTO devices (account_id, platform, fingerprint_hash) SELECT account_id, COALESCE(platform, 'web'), fingerprint_hash FROM presented
  ON CONFLICT (fingerprint_hash) DO UPDATE
    SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
        platform = COALESCE((SELECT p.platform FROM presented p WHERE p.fingerprint_hash = EXCLUDED.fingerprint_hash), devices.platform)
  RETURNING id, fingerprint_hash
), identity AS (
  INSERT INTO identities (id, account_id, provider, provider_user_id, verified, last_login_at)
  SELECT identity_id, account_id, 'guest', account_id::text, true, now() FROM presented
), credential AS (
  INSERT INTO credentials (identity_id, type, secret_hash) SELECT identity_id, 'guest_secret', secret_hash FROM presented
), idempotency AS (
  INSERT INTO guest_idempotency (key_hash, account_id, device_id)
  SELECT p.key_hash, p.account_id, d.id FROM presented p JOIN device d USING (fingerprint_hash) WHERE p.key_hash IS NOT NULL
), logged AS (
  INSERT INTO audit_log (account_id, event, ip, node_id, detail)
  SELECT account_id, 'login', ip, node_id, '{"method":"guest","outcome":"success","created":true}'::jsonb FROM presented
), session AS (
  INSERT INTO sessions (id, account_id, device_id, auth_method, ip_cidr, region, expires_at)
  SELECT p.session_id, p.account_id, d.id, 'guest', p.ip_cidr, p.region, p.session_expires_at FROM presented p JOIN device d USING (fingerprint_hash)
), refresh AS (
  INSERT INTO refresh_tokens (id, session_id, token_hash, prev_token_id, expires_at)
  SELECT refresh_id, session_id, refresh_hash, NULL, refresh_expires_at FROM presented
)
SELECT count(*)::int AS created FROM device`;

/** The sixteen values of GUEST_CREATE_SQL, in its parameter order. */
export type GuestRow = [
  accountId: string,
  displayName: string,
  platform: string | null,
  fingerprintHash: string,
  identityId: string,
  secretHash: string,
  keyHash: string | null,
  ip: string | null,
  nodeId: string,
  sessionId: string,
  ipCidr: string | null,
  region: string,
  sessionExpiresAt: string,
  refreshId: string,
  refreshHash: string,
  refreshExpiresAt: string,
];

export async function insertGuest(db: Queryable, row: GuestRow): Promise<void> {
  await db.query(GUEST_CREATE_SQL, row);
}

/** Several guests in one statement: each column as an array with one element per guest. */
export async function insertGuests(db: Queryable, rows: GuestRow[]): Promise<void> {
  await db.query(GUEST_CREATE_MANY_SQL, rows[0].map((_, column) => rows.map((r) => r[column])));
}

/** The guest an Idempotency-Key created, and the device it was created on. */
export async function guestOfIdempotencyKey(db: Queryable, keyHash: string): Promise<{ account_id: string; fingerprint_hash: string } | undefined> {
  const found = await db.query<{ account_id: string; fingerprint_hash: string }>(
    `SELECT g.account_id, d.fingerprint_hash FROM guest_idempotency g JOIN devices d ON d.id = g.device_id WHERE g.key_hash = $1`,
    [keyHash],
  );
  return found.rows[0];
}

/** A guest account with its guest identity and secret hash. */
export async function guestWithSecret(db: Queryable, accountId: string): Promise<(AccountRow & { secret_hash: string; identity_id: string }) | undefined> {
  const found = await db.query<AccountRow & { secret_hash: string; identity_id: string }>(
    `SELECT a.*, c.secret_hash, i.id AS identity_id FROM accounts a
         JOIN identities i ON i.account_id = a.id AND i.provider = 'guest'
         JOIN credentials c ON c.identity_id = i.id AND c.type = 'guest_secret'
         WHERE a.id = $1`,
    [accountId],
  );
  return found.rows[0];
}

/** Replaces the guest secret (an idempotent replay hands out a fresh one) and clears its failures. */
export async function replaceGuestSecret(tx: Queryable, accountId: string, secretHash: string): Promise<void> {
  await tx.query(
    `UPDATE credentials SET secret_hash = $2, rotated_at = now(), failed_attempts = 0, locked_until = NULL
           WHERE type = 'guest_secret' AND identity_id IN (SELECT id FROM identities WHERE account_id = $1 AND provider = 'guest')`,
    [accountId, secretHash],
  );
}
