/** The identities table: the ways an account signs in (email, guest, platform providers). */
import type { Queryable } from '@platform/kit';
import type { AccountRow } from './accounts.js';

export interface IdentityRow {
  id: string;
  provider: string;
  provider_user_id: string;
  verified: boolean;
  linked_at: Date;
  last_login_at: Date | null;
}

export async function identitiesOf(db: Queryable, accountId: string): Promise<IdentityRow[]> {
  const r = await db.query<IdentityRow>(
    `SELECT id, provider, provider_user_id, verified, linked_at, last_login_at FROM identities WHERE account_id = $1 ORDER BY linked_at, id`,
    [accountId],
  );
  return r.rows;
}

/** Ids and providers only, in no particular order (the unlink guard). */
export async function identityProvidersOf(tx: Queryable, accountId: string): Promise<{ id: string; provider: string }[]> {
  return (await tx.query<{ id: string; provider: string }>(`SELECT id, provider FROM identities WHERE account_id = $1`, [accountId])).rows;
}

/** The account owning a provider's user, if any. */
export async function accountOfIdentity(db: Queryable, provider: string, providerUserId: string): Promise<AccountRow | undefined> {
  const r = await db.query<AccountRow>(
    `SELECT a.* FROM identities i JOIN accounts a ON a.id = i.account_id WHERE i.provider = $1 AND i.provider_user_id = $2`,
    [provider, providerUserId],
  );
  return r.rows[0];
}

/** A new email identity; `signedIn` stamps its first sign-in (registration) rather than a link. */
export async function insertEmailIdentity(tx: Queryable, accountId: string, email: string, signedIn: boolean): Promise<string> {
  const identity = signedIn
    ? await tx.query<{ id: string }>(
        `INSERT INTO identities (account_id, provider, provider_user_id, verified, last_login_at) VALUES ($1, 'email', $2, false, now()) RETURNING id`,
        [accountId, email],
      )
    : await tx.query<{ id: string }>(
        `INSERT INTO identities (account_id, provider, provider_user_id, verified) VALUES ($1, 'email', $2, false) RETURNING id`,
        [accountId, email],
      );
  return identity.rows[0].id;
}

/** Upserts the identity on (provider, provider_user_id); safe to retry. Returns its owner. */
export async function upsertPlatformIdentity(
  tx: Queryable,
  provider: string,
  providerUserId: string,
  accountId: string,
): Promise<{ identityId: string; accountId: string; created: boolean }> {
  const ins = await tx.query<{ id: string; account_id: string }>(
    `INSERT INTO identities (account_id, provider, provider_user_id, verified, last_login_at) VALUES ($1, $2, $3, true, now())
         ON CONFLICT (provider, provider_user_id) DO NOTHING RETURNING id, account_id`,
    [accountId, provider, providerUserId],
  );
  if (ins.rowCount) return { identityId: ins.rows[0].id, accountId: ins.rows[0].account_id, created: true };
  const got = await tx.query<{ id: string; account_id: string }>(
    `UPDATE identities SET last_login_at = now() WHERE provider = $1 AND provider_user_id = $2 RETURNING id, account_id`,
    [provider, providerUserId],
  );
  return { identityId: got.rows[0].id, accountId: got.rows[0].account_id, created: false };
}

export async function touchIdentityLogin(tx: Queryable, identityId: string): Promise<void> {
  await tx.query(`UPDATE identities SET last_login_at = now() WHERE id = $1`, [identityId]);
}

/**
 * The claim of an account by the first proof of its mailbox (docs/auth.md, "Account claim"): every identity
 * but the proven email identity is removed (credentials cascade), with the guest Idempotency-Keys that could
 * hand a guest secret out again. Returns what was removed.
 */
export async function removeIdentitiesExcept(tx: Queryable, accountId: string, keepIdentityId: string): Promise<{ id: string; provider: string }[]> {
  const r = await tx.query<{ id: string; provider: string }>(
    `DELETE FROM identities WHERE account_id = $1 AND id <> $2 RETURNING id, provider`,
    [accountId, keepIdentityId],
  );
  await tx.query(`DELETE FROM guest_idempotency WHERE account_id = $1`, [accountId]);
  return r.rows;
}

/** Whether the identity is unverified while its account holds other identities (a proof would claim it). */
export async function claimPending(db: Queryable, identityId: string): Promise<boolean> {
  const r = await db.query<{ pending: boolean }>(
    `SELECT NOT i.verified AND EXISTS (SELECT 1 FROM identities o WHERE o.account_id = i.account_id AND o.id <> i.id) AS pending
       FROM identities i WHERE i.id = $1`,
    [identityId],
  );
  return r.rows[0]?.pending ?? false;
}

/** Credentials go with them (cascade). */
export async function deleteIdentities(tx: Queryable, identityIds: string[]): Promise<void> {
  await tx.query(`DELETE FROM identities WHERE id = ANY($1::uuid[])`, [identityIds]);
}

/** An account's platform identities (not email, not guest), oldest link first: service callers' platform lookups. */
export async function platformIdentitiesOf(db: Queryable, accountId: string, providers: readonly string[]): Promise<IdentityRow[]> {
  const r = await db.query<IdentityRow>(
    `SELECT id, provider, provider_user_id, verified, linked_at, last_login_at FROM identities
      WHERE account_id = $1 AND provider = ANY($2::text[]) ORDER BY linked_at, id`,
    [accountId, [...providers]],
  );
  return r.rows;
}

/** Of one provider's user ids, those owned by an active account, with the account's id. */
export async function activeAccountsOfProviderUsers(db: Queryable, provider: string, providerUserIds: string[]): Promise<{ provider_user_id: string; account_id: string }[]> {
  const r = await db.query<{ provider_user_id: string; account_id: string }>(
    `SELECT i.provider_user_id, i.account_id FROM identities i JOIN accounts a ON a.id = i.account_id
      WHERE i.provider = $1 AND i.provider_user_id = ANY($2::text[]) AND a.status = 'active'
      ORDER BY i.provider_user_id`,
    [provider, providerUserIds],
  );
  return r.rows;
}
