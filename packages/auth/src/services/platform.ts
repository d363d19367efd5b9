/**
 * Platform tickets, for sign-in and for linking: the contract with the external ticket verifiers (defined
 * once in src/providers, built from the configuration by buildApp unless a test injects its own), the
 * ticket check and the identity link both flows share; and platform identities for service callers (docs/auth.md,
 * "Internal endpoints and service callers"): social reads a player's platform ids to fetch their platform friends and
 * maps the friends' ids back to accounts (docs/social.md, "Platform friends"; decision 0030). Never an email.
 */
import { AppError, UUID_PATTERN, type Queryable } from '@platform/kit';
import { accountNotFound, fail } from '../errors.js';
import { accountStatus, markGuestUpgraded } from '../queries/accounts.js';
import { activeAccountsOfProviderUsers, platformIdentitiesOf, upsertPlatformIdentity } from '../queries/identities.js';
import { PLATFORM_PROVIDERS, type PlatformVerifiers, type VerifiedPlatformIdentity } from '../providers/types.js';
import { audit, type AuditContext } from './audit.js';

export type { PlatformVerifiers, VerifiedPlatformIdentity } from '../providers/types.js';

/** The identity the ticket vouches for; 400 when the provider is not configured, 401 invalid_ticket when it fails. */
export async function verifyTicket(verifiers: PlatformVerifiers, provider: string, ticket: string, nonce?: string): Promise<VerifiedPlatformIdentity> {
  if (!(verifiers.configured() as string[]).includes(provider)) {
    throw fail('provider_not_configured', `The provider ${provider} is not configured on this platform`);
  }
  try {
    const id = await verifiers.verify(provider, ticket, nonce === undefined ? undefined : { nonce });
    if (!id.providerUserId) throw new Error('verifier returned no subject');
    return id;
  } catch (err) {
    if (err instanceof AppError && err.status !== 500) throw err;
    throw fail('invalid_ticket', 'The platform ticket could not be verified', undefined, { cause: err });
  }
}

/**
 * Inside the caller's transaction, the account locked: links the platform identity to the account (a guest
 * linking one is upgraded), or finds it linked already; 409 when it belongs to another account.
 */
export async function linkPlatformIdentity(tx: Queryable, id: VerifiedPlatformIdentity, accountId: string, ctx: AuditContext): Promise<void> {
  const got = await upsertPlatformIdentity(tx, id.provider, id.providerUserId, accountId);
  if (got.accountId !== accountId) throw fail('identity_linked_elsewhere', 'This platform identity belongs to another account');
  if (got.created) {
    await markGuestUpgraded(tx, accountId);
    await audit(tx, ctx, 'link', accountId, { provider: id.provider, identity_id: got.identityId });
  }
}

/** The account's platform identities; 404 account_not_found for an unknown, malformed or deleted account. */
export async function platformIdentities(db: Queryable, accountId: string) {
  if (!UUID_PATTERN.test(accountId)) throw accountNotFound();
  const status = await accountStatus(db, accountId);
  if (status === undefined || status === 'deleted') throw accountNotFound();
  const rows = await platformIdentitiesOf(db, accountId, PLATFORM_PROVIDERS);
  return {
    id: accountId,
    identities: rows.map((r) => ({ provider: r.provider, provider_user_id: r.provider_user_id, linked_at: r.linked_at.toISOString() })),
  };
}

/** Which of one provider's user ids belong to an active account (unknown, deleted, locked and banned ones are left out). */
export async function lookupPlatformAccounts(db: Queryable, provider: string, providerUserIds: string[]) {
  const rows = await activeAccountsOfProviderUsers(db, provider, [...new Set(providerUserIds)]);
  return { accounts: rows.map((r) => ({ provider_user_id: r.provider_user_id, account_id: r.account_id })) };
}
