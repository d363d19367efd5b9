/** Sign-in with an external platform ticket: the account of the identity, a new one, or (with a Bearer token) the caller's. */
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { insertAccount, lockAccount } from '../queries/accounts.js';
import { accountOfIdentity, upsertPlatformIdentity } from '../queries/identities.js';
import { audit, type AuditContext } from './audit.js';
import { linkPlatformIdentity, verifyTicket, type VerifiedPlatformIdentity } from './platform.js';
import { assertUsable, finish, openSession, recordDevice, type DeviceInput, type SignInResult } from './sign-in-common.js';

export type PlatformSignInResult = SignInResult & { account_created: boolean };

export interface PlatformSignInInput {
  provider: string;
  ticket: string;
  nonce?: string;
  device?: DeviceInput;
  /** The account of the Bearer token presented with the ticket: the identity is linked to it. */
  linkTo?: string;
}

class RetrySignIn extends Error {}

/** Signs the Bearer token's account in, linking the identity to it first. */
async function signInLinked(ctx: AuthContext, id: VerifiedPlatformIdentity, accountId: string, device: DeviceInput | undefined, who: AuditContext): Promise<SignInResult> {
  const r = await ctx.db.transaction(async (tx) => {
    const a = await lockAccount(tx, accountId);
    if (!a || a.status !== 'active') throw fail('invalid_token', 'The account is not active');
    await linkPlatformIdentity(tx, id, a.id, who);
    const deviceId = await recordDevice(tx, device, a.id);
    await audit(tx, who, 'login', a.id, { method: id.provider, outcome: 'success' });
    return openSession(ctx, tx, a, id.provider, deviceId, who);
  });
  return finish(ctx, r);
}

/** The identity's account, created with the identity on its first sign-in. */
async function signInOrCreate(ctx: AuthContext, id: VerifiedPlatformIdentity, device: DeviceInput | undefined, who: AuditContext): Promise<PlatformSignInResult> {
  let created = false;
  const r = await ctx.db
    .transaction(async (tx) => {
      let a = await accountOfIdentity(tx, id.provider, id.providerUserId);
      if (!a) {
        created = true;
        a = await insertAccount(tx, id.displayName ?? `${id.provider}-player`);
      }
      const got = await upsertPlatformIdentity(tx, id.provider, id.providerUserId, a.id);
      if (got.accountId !== a.id) {
        // A concurrent first sign-in created the identity: retry against its account.
        throw new RetrySignIn();
      }
      await assertUsable(tx, a, ctx.config.masterKey);
      const deviceId = await recordDevice(tx, device, a.id);
      await audit(tx, who, 'login', a.id, { method: id.provider, outcome: 'success', created: got.created });
      return openSession(ctx, tx, a, id.provider, deviceId, who);
    })
    .catch(async (err) => {
      if (err instanceof RetrySignIn) {
        created = false;
        return signInExisting(ctx, id, device, who);
      }
      throw err;
    });
  return { ...('subject' in r ? await finish(ctx, r) : r), account_created: created };
}

/** Second attempt after losing a creation race; the identity exists now. */
async function signInExisting(ctx: AuthContext, id: VerifiedPlatformIdentity, device: DeviceInput | undefined, who: AuditContext): Promise<SignInResult> {
  const r = await ctx.db.transaction(async (tx) => {
    const a = await accountOfIdentity(tx, id.provider, id.providerUserId);
    if (!a) throw fail('conflict_retry', 'Concurrent sign-in; retry');
    await assertUsable(tx, a, ctx.config.masterKey);
    const deviceId = await recordDevice(tx, device, a.id);
    await audit(tx, who, 'login', a.id, { method: id.provider, outcome: 'success' });
    return openSession(ctx, tx, a, id.provider, deviceId, who);
  });
  return finish(ctx, r);
}

export async function platformSignIn(ctx: AuthContext, input: PlatformSignInInput, who: AuditContext): Promise<PlatformSignInResult> {
  const id = await verifyTicket(ctx.verifiers, input.provider, input.ticket, input.nonce);
  if (input.linkTo) return { ...(await signInLinked(ctx, id, input.linkTo, input.device, who)), account_created: false };
  return signInOrCreate(ctx, id, input.device, who);
}
