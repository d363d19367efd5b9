/**
 * The email_tokens table: password-reset, email-verification and email-change tokens (only their SHA-256).
 * Issuing is one statement whether or not the address belongs to an account (it inserts one row or none), so
 * a request for an unknown address does the same work as one for a known address.
 */
import type { Queryable } from '@platform/kit';

export type EmailTokenPurpose = 'password_reset' | 'verify_email' | 'email_change';

/** What a token was issued for: the account, its email identity, the address mailed. */
export interface IssuedToken {
  account_id: string;
  identity_id: string;
  email: string;
  display_name: string;
  /** Whether the address was proven (only then may a mail to it carry the display name). */
  verified: boolean;
}

/**
 * A password-reset token for the active account whose email identity (with a password) is `email`; none for
 * an unknown address, an account without a password, or one that is not active.
 */
export function issueResetToken(db: Queryable, email: string, tokenHash: string, ttlSeconds: number): Promise<IssuedToken | undefined> {
  return issueTokenByEmail(db, 'password_reset', RESET_TARGET, email, tokenHash, ttlSeconds);
}

/**
 * A verification token for the email identity `email` when it is not verified yet (any status but deleted: a
 * locked account may still confirm its address); none otherwise.
 */
export function issueVerifyTokenByEmail(db: Queryable, email: string, tokenHash: string, ttlSeconds: number): Promise<IssuedToken | undefined> {
  return issueTokenByEmail(db, 'verify_email', VERIFY_TARGET, email, tokenHash, ttlSeconds);
}

/** The email identity `$1` (with a password) of an active account. */
const RESET_TARGET = `
       SELECT i.id AS identity_id, i.account_id, i.provider_user_id AS email, a.display_name, i.verified
         FROM identities i JOIN accounts a ON a.id = i.account_id
         JOIN credentials c ON c.identity_id = i.id AND c.type = 'password'
        WHERE i.provider = 'email' AND i.provider_user_id = $1 AND a.status = 'active'`;

/** The email identity `$1` when not verified yet, of an account that is not deleted. */
const VERIFY_TARGET = `
       SELECT i.id AS identity_id, i.account_id, i.provider_user_id AS email, a.display_name, i.verified
         FROM identities i JOIN accounts a ON a.id = i.account_id
        WHERE i.provider = 'email' AND i.provider_user_id = $1 AND NOT i.verified AND a.status <> 'deleted'`;

/** One statement: a `purpose` token for the identity `target` selects (none when it selects none). */
async function issueTokenByEmail(
  db: Queryable,
  purpose: 'password_reset' | 'verify_email',
  target: string,
  email: string,
  tokenHash: string,
  ttlSeconds: number,
): Promise<IssuedToken | undefined> {
  const r = await db.query<IssuedToken>(
    `WITH target AS (${target}
     ), issued AS (
       INSERT INTO email_tokens (purpose, account_id, identity_id, email, token_hash, expires_at)
       SELECT '${purpose}', account_id, identity_id, email, $2, now() + make_interval(secs => $3::int) FROM target
       RETURNING account_id
     )
     SELECT t.account_id, t.identity_id, t.email, t.display_name, t.verified FROM target t JOIN issued USING (account_id)`,
    [email, tokenHash, ttlSeconds],
  );
  return r.rows[0];
}

/** The account's email identity (there is at most one: one email per account), with its password hash. */
export interface EmailIdentityRow {
  identity_id: string;
  email: string;
  verified: boolean;
  display_name: string;
  credential_id: string | null;
  secret_hash: string | null;
}

export async function emailIdentityOf(db: Queryable, accountId: string): Promise<EmailIdentityRow | undefined> {
  const r = await db.query<EmailIdentityRow>(
    `SELECT i.id AS identity_id, i.provider_user_id AS email, i.verified, a.display_name, c.id AS credential_id, c.secret_hash
       FROM identities i JOIN accounts a ON a.id = i.account_id
       LEFT JOIN credentials c ON c.identity_id = i.id AND c.type = 'password'
      WHERE i.account_id = $1 AND i.provider = 'email'`,
    [accountId],
  );
  return r.rows[0];
}

/** A token for a known identity (verification after sign-up or link; email change to `email`). */
export async function insertEmailToken(
  db: Queryable,
  t: { purpose: EmailTokenPurpose; accountId: string; identityId: string; email: string; tokenHash: string; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO email_tokens (purpose, account_id, identity_id, email, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::int))`,
    [t.purpose, t.accountId, t.identityId, t.email, t.tokenHash, t.ttlSeconds],
  );
}

/**
 * An email-change token to `email` unless another identity has that address: one statement either way (run after
 * the answer, so the request's time does not depend on the address). True when the token was written.
 */
export async function issueEmailChangeToken(
  db: Queryable,
  t: { accountId: string; identityId: string; email: string; tokenHash: string; ttlSeconds: number },
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO email_tokens (purpose, account_id, identity_id, email, token_hash, expires_at)
     SELECT 'email_change', $1, $2, $3, $4, now() + make_interval(secs => $5::int)
      WHERE NOT EXISTS (SELECT 1 FROM identities WHERE provider = 'email' AND provider_user_id = $3)`,
    [t.accountId, t.identityId, t.email, t.tokenHash, t.ttlSeconds],
  );
  return (r.rowCount ?? 0) > 0;
}

export interface EmailTokenRow {
  id: string;
  purpose: EmailTokenPurpose;
  account_id: string;
  identity_id: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  expired: boolean;
}

/** The token row by hash, whatever its state (to tell unknown, used and expired apart). */
export async function emailTokenByHash(db: Queryable, tokenHash: string): Promise<EmailTokenRow | undefined> {
  const r = await db.query<EmailTokenRow>(
    `SELECT id, purpose, account_id, identity_id, email, expires_at, used_at, expires_at <= now() AS expired FROM email_tokens WHERE token_hash = $1`,
    [tokenHash],
  );
  return r.rows[0];
}

/** Spends the token if it is unused and unexpired (exactly one of concurrent uses wins); undefined otherwise. */
export async function consumeEmailToken(tx: Queryable, tokenHash: string, purposes: EmailTokenPurpose[]): Promise<EmailTokenRow | undefined> {
  const r = await tx.query<EmailTokenRow>(
    `UPDATE email_tokens SET used_at = now()
      WHERE token_hash = $1 AND purpose = ANY($2::text[]) AND used_at IS NULL AND expires_at > now()
      RETURNING id, purpose, account_id, identity_id, email, expires_at, used_at, false AS expired`,
    [tokenHash, purposes],
  );
  return r.rows[0];
}

/** Every unused token of the account for `purpose` is spent (after a reset: the other reset links die). */
export async function spendAccountEmailTokens(tx: Queryable, accountId: string, purpose: EmailTokenPurpose): Promise<void> {
  await tx.query(`UPDATE email_tokens SET used_at = now() WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL`, [accountId, purpose]);
}

/** The new password of a reset: the hash replaced, the failure count cleared; the credential's id (none: no password). */
export async function setPasswordHash(tx: Queryable, identityId: string, hash: string): Promise<string | undefined> {
  const r = await tx.query<{ id: string }>(
    `UPDATE credentials SET secret_hash = $2, failed_attempts = 0, locked_until = NULL, rotated_at = now() WHERE identity_id = $1 AND type = 'password' RETURNING id`,
    [identityId, hash],
  );
  return r.rows[0]?.id;
}

/**
 * Marks the identity verified while it still has this address: false when it changed or is gone, else whether
 * this is the first proof of the address (it was unverified: the proof claims the account).
 */
export async function markIdentityVerified(tx: Queryable, identityId: string, email: string): Promise<false | { firstProof: boolean }> {
  const r = await tx.query<{ was: boolean }>(
    `UPDATE identities i SET verified = true FROM identities o
      WHERE i.id = $1 AND o.id = i.id AND i.provider = 'email' AND i.provider_user_id = $2 RETURNING o.verified AS was`,
    [identityId, email],
  );
  return r.rows[0] ? { firstProof: !r.rows[0].was } : false;
}

/** Switches the email identity to a new (verified) address; a unique violation means the address was taken. */
export async function changeIdentityEmail(tx: Queryable, identityId: string, email: string): Promise<string | undefined> {
  const r = await tx.query<{ old: string }>(
    `UPDATE identities i SET provider_user_id = $2, verified = true FROM identities o
      WHERE i.id = $1 AND o.id = i.id AND i.provider = 'email' RETURNING o.provider_user_id AS old`,
    [identityId, email],
  );
  return r.rows[0]?.old;
}

/** Tokens past their expiry for more than a day (the purge tick). */
export async function deleteStaleEmailTokens(db: Queryable): Promise<number> {
  const r = await db.query(`DELETE FROM email_tokens WHERE expires_at < now() - interval '1 day'`);
  return r.rowCount ?? 0;
}

/** The account's mailed tokens without their hashes (privacy export): what was mailed where, and when. */
export async function emailTokensOf(db: Queryable, accountId: string): Promise<Record<string, unknown>[]> {
  const r = await db.query(`SELECT id, purpose, email, created_at, expires_at, used_at FROM email_tokens WHERE account_id = $1 ORDER BY created_at`, [accountId]);
  return r.rows;
}
