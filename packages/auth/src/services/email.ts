/**
 * Password reset, email verification and email change (docs/auth.md, "Email flows").
 *
 * Tokens: 32 random bytes (256 bits), base64url, mailed once; only their SHA-256 is stored (email_tokens).
 * Requests that name an address (reset, resend) answer 202 whatever the address, after the same work (the rate
 * limits): the lookup, the token insert (one statement whether or not the address has an account) and the mail
 * happen after the answer (adapters/mailer.ts, `defer`), so neither the answer nor its time tells whether the
 * address is known.
 */
import { guestRestrictionDetails, isUniqueViolation, lockoutSource, randomToken, sha256Hex, verifyPassword, type Database, type Queryable } from '@platform/kit';
import type { AuthContext } from '../context.js';
import type { AuthConfig } from '../config.js';
import { accountInactive, fail } from '../errors.js';
import { accountSummary, lockAccountStatus } from '../queries/accounts.js';
import {
  changeIdentityEmail,
  consumeEmailToken,
  emailIdentityOf,
  emailTokenByHash,
  insertEmailToken,
  issueEmailChangeToken,
  issueResetToken,
  issueVerifyTokenByEmail,
  markIdentityVerified,
  setPasswordHash,
  spendAccountEmailTokens,
  type EmailIdentityRow,
  type EmailTokenPurpose,
  type EmailTokenRow,
} from '../queries/email-tokens.js';
import { claimPending, removeIdentitiesExcept } from '../queries/identities.js';
import { audit, type AuditContext } from './audit.js';
import type { OutgoingMail } from '../adapters/mailer.js';
import { addressInUseMail, emailChangeNoticeMail, passwordChangedMail, passwordResetMail, verifyEmailMail, type MailContext } from './mail-templates.js';
import { dummyHashFor, hashNewPassword } from './passwords.js';
import { normaliseEmail } from './sign-in-common.js';

/** Why a presented token is refused: unknown (or for another endpoint) 400; used or expired 410. */
function refuseToken(row: EmailTokenRow | undefined, purposes: EmailTokenPurpose[]): never {
  if (!row || !purposes.includes(row.purpose)) throw fail('invalid_email_token', 'The token is not valid');
  if (row.used_at) throw fail('email_token_used', 'The token was used already');
  throw fail('email_token_expired', 'The token has expired; ask for a new one');
}

/** The stored form of a presented token; anything not shaped like one of ours is unknown. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

type Tx = Queryable;

/** What the mail templates need (product name, link base). */
export const mailContext = (config: AuthConfig): MailContext => ({ product: config.mailProductName, linkBase: config.linkBase });
const resetTtl = (config: AuthConfig) => config.passwordResetTtlMinutes * 60;
const verifyTtl = (config: AuthConfig) => config.emailVerifyTtlHours * 3600;

/** A new token: the plaintext for the mail, the hash for the table. */
function newToken() {
  const token = randomToken(32);
  return { token, hash: sha256Hex(token) };
}

/** A presented token, checked before any costly work: unknown 400, used or expired 410. */
async function presented(db: Database, token: string, purposes: EmailTokenPurpose[]): Promise<EmailTokenRow> {
  if (!TOKEN_SHAPE.test(token)) refuseToken(undefined, purposes);
  const row = await emailTokenByHash(db, sha256Hex(token));
  if (!row || !purposes.includes(row.purpose) || row.used_at || row.expired) refuseToken(row, purposes);
  return row;
}

/** Inside the transaction: spends the token (one of concurrent uses wins) or says why not. */
async function consume(tx: Tx, token: string, purposes: EmailTokenPurpose[]): Promise<EmailTokenRow> {
  const hash = sha256Hex(token);
  const row = await consumeEmailToken(tx, hash, purposes);
  if (!row) refuseToken(await emailTokenByHash(tx, hash), purposes);
  return row;
}

/** A verification mail for an identity just created or linked (sign-up, link); none when there is nothing to verify. */
async function verificationMail(ctx: AuthContext, accountId: string): Promise<OutgoingMail | undefined> {
  const id = await emailIdentityOf(ctx.db, accountId);
  if (!id || id.verified) return undefined;
  const { token, hash } = newToken();
  await insertEmailToken(ctx.db, { purpose: 'verify_email', accountId, identityId: id.identity_id, email: id.email, tokenHash: hash, ttlSeconds: verifyTtl(ctx.config) });
  return verifyEmailMail(mailContext(ctx.config), id.email, token, ctx.config.emailVerifyTtlHours, false);
}

/**
 * The first proof of a mailbox that was unverified on the account (a reset or a verification) claims the account
 * for the mailbox's owner: every other identity (the guest device credential, platform identities), linked before
 * the proof by whoever held the account, is removed and audited `unlink` (`by: account_claim`). The caller ends
 * every session (docs/auth.md, "Account claim"). Returns the providers removed.
 */
async function claimAccount(tx: Queryable, accountId: string, identityId: string, who: AuditContext): Promise<string[]> {
  const removed = await removeIdentitiesExcept(tx, accountId, identityId);
  for (const r of removed) await audit(tx, who, 'unlink', accountId, { provider: r.provider, identity_id: r.id, by: 'account_claim' });
  return removed.map((r) => r.provider);
}

/**
 * The new password (same policy as sign-up), then in one transaction through the revoker: the token spent,
 * the password replaced, the address marked verified (the mail reached it; a first proof claims the account),
 * the other reset tokens spent, every session of the account ended (`password_reset`, account scope) and an
 * audit `password_reset`.
 */
export async function resetPassword(ctx: AuthContext, input: { token: string; password: string }, who: AuditContext): Promise<{ sessions_revoked: number }> {
  const row = await presented(ctx.db, input.token, ['password_reset']);
  const hash = await hashNewPassword(input.password, ctx.config.passwordParams);
  const { sessions, value } = await ctx.revoker.revoke(
    { reason: 'password_reset', accountId: row.account_id },
    {
      before: async (tx) => {
        const t = await consume(tx, input.token, ['password_reset']);
        if ((await lockAccountStatus(tx, t.account_id)) !== 'active') throw fail('invalid_email_token', 'The token is not valid');
        const credential = await setPasswordHash(tx, t.identity_id, hash);
        if (!credential) throw fail('invalid_email_token', 'The token is not valid');
        const proof = await markIdentityVerified(tx, t.identity_id, t.email);
        const claimed = proof && proof.firstProof ? await claimAccount(tx, t.account_id, t.identity_id, who) : [];
        await spendAccountEmailTokens(tx, t.account_id, 'password_reset');
        await spendAccountEmailTokens(tx, t.account_id, 'verify_email');
        return { credential, claimed };
      },
      after: async (tx, ended, v) => {
        await audit(tx, who, 'password_reset', row.account_id, { sessions_revoked: ended.length, ...(v.claimed.length ? { claimed: v.claimed } : {}) });
      },
    },
  );
  // The source that proved the mailbox is no longer locked out of the credential.
  await ctx.passwordLockout.success(value.credential, lockoutSource(who.ip)).catch(() => undefined);
  ctx.mailer.enqueue(passwordChangedMail(mailContext(ctx.config), row.email));
  return { sessions_revoked: sessions.length };
}

type Verified = { email: string; verified: true; changed: boolean };

/**
 * A verification or email-change token: the address is verified, or becomes the account's address. A first
 * proof of the address on an account holding other identities claims it (claimAccount): through the revoker,
 * so every session ends in the same transaction (`account_claimed`, account scope).
 */
export async function verifyEmail(ctx: AuthContext, token: string, who: AuditContext, holder?: string): Promise<Verified> {
  const row = await presented(ctx.db, token, ['verify_email', 'email_change']);
  // The proof comes from the account's own signed-in holder (a game's "enter the code" screen sends the session's
  // token): whoever holds the account also holds the mailbox, so there is no one else to cut off.
  const claims = row.account_id !== holder;
  const apply = async (tx: Queryable): Promise<{ result: Verified; claimed: string[] }> => {
    const t = await consume(tx, token, ['verify_email', 'email_change']);
    if ((await lockAccountStatus(tx, t.account_id)) === 'deleted') throw fail('invalid_email_token', 'The token is not valid');
    if (t.purpose === 'verify_email') {
      // The identity changed address (or is gone) since the mail: this token proves nothing any more.
      const proof = await markIdentityVerified(tx, t.identity_id, t.email);
      if (!proof) throw fail('invalid_email_token', 'The token is not valid');
      const claimed = proof.firstProof && claims ? await claimAccount(tx, t.account_id, t.identity_id, who) : [];
      await audit(tx, who, 'email_verified', t.account_id, { identity_id: t.identity_id, ...(claimed.length ? { claimed } : {}) });
      return { result: { email: t.email, verified: true as const, changed: false }, claimed };
    }
    const old = await changeIdentityEmail(tx, t.identity_id, t.email);
    if (old === undefined) throw fail('invalid_email_token', 'The token is not valid');
    await spendAccountEmailTokens(tx, t.account_id, 'verify_email');
    await spendAccountEmailTokens(tx, t.account_id, 'password_reset');
    await audit(tx, who, 'email_verified', t.account_id, { identity_id: t.identity_id, changed: true });
    return { result: { email: t.email, verified: true as const, changed: true }, claimed: [] };
  };
  try {
    if (claims && row.purpose === 'verify_email' && (await claimPending(ctx.db, row.identity_id))) {
      return (await ctx.revoker.revoke({ reason: 'account_claimed', accountId: row.account_id }, { before: apply })).value.result;
    }
    const r = await ctx.db.transaction(apply);
    // An identity linked between the check and the transaction was removed: the sessions end too.
    if (r.claimed.length) await ctx.revoker.revoke({ reason: 'account_claimed', accountId: row.account_id });
    return r.result;
  } catch (err) {
    if (isUniqueViolation(err, 'identities_provider_user')) throw fail('email_taken', 'An account with this email exists');
    throw err;
  }
}

/** The current password of an email change: the same per-source lockout as /login (423, then 401 on a wrong one). */
async function checkChangePassword(ctx: AuthContext, accountId: string, id: EmailIdentityRow, password: string, who: AuditContext): Promise<void> {
  const source = lockoutSource(who.ip);
  const credential = id.credential_id ?? id.identity_id;
  const retryMs = await ctx.passwordLockout.lockedForMs(credential, source);
  if (retryMs > 0) {
    throw fail('account_locked', 'Too many wrong passwords; the credential is locked for a while', undefined, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) },
    });
  }
  if (id.secret_hash && (await verifyPassword(id.secret_hash, password))) return;
  const { failures, lockedSeconds } = await ctx.passwordLockout.failure(credential, source);
  await audit(ctx.db, who, 'email_change', accountId, { outcome: 'failure', reason: 'wrong_password', source_failures: failures });
  if (lockedSeconds > 0) await audit(ctx.db, who, 'lockout', accountId, { source_failures: failures, locked_seconds: lockedSeconds });
  throw fail('invalid_credentials', 'The password is wrong');
}

/**
 * An email change (Bearer + the current password): the new address is mailed a token and becomes the account's
 * address only when it is confirmed (POST /email/verify); the old address is told. The answer is the same whether
 * or not the new address has an account (no enumeration): what depends on it — the token, or instead a mail to its
 * owner (`address_in_use`) — is `mailAfterAnswer`, run by the route once the answer is sent.
 */
export async function requestEmailChange(
  ctx: AuthContext,
  accountId: string,
  input: { email: string; password: string },
  who: AuditContext,
): Promise<{ pending_email: string; mailAfterAnswer: () => void }> {
  const next = normaliseEmail(input.email);
  const id = await emailIdentityOf(ctx.db, accountId);
  if (!id) {
    // Same cost as a wrong password; an account without an email links one (POST /account/link).
    await verifyPassword(await dummyHashFor(ctx.config.passwordParams), input.password);
    // A guest is told what upgrading unlocks (kit GUEST_FEATURES), read from the account, not the token's claim:
    // one upgraded a moment ago is not a guest any more.
    if ((await accountSummary(ctx.db, accountId))?.is_guest) {
      throw fail('guest_restricted', 'Guest accounts cannot set an email address here; link one with POST /account/link', guestRestrictionDetails('change_email'));
    }
    throw fail('identity_not_found', 'The account has no email address; link one with POST /account/link');
  }
  await checkChangePassword(ctx, accountId, id, input.password, who);
  if (next === id.email) throw fail('email_unchanged', 'This is the current email address');
  await ctx.db.transaction(async (tx) => {
    if ((await lockAccountStatus(tx, accountId)) !== 'active') throw accountInactive();
    await audit(tx, who, 'email_change', accountId, { outcome: 'requested' });
  });
  // The old address is told in every case (its owner may be the requester: the mails it gets must not differ).
  ctx.mailer.enqueue(emailChangeNoticeMail(mailContext(ctx.config), { address: id.email, verified: id.verified, name: id.display_name }, next));
  const mailAfterAnswer = () =>
    ctx.mailer.defer('email_change', async () => {
      const { token, hash } = newToken();
      const issued = await issueEmailChangeToken(ctx.db, { accountId, identityId: id.identity_id, email: next, tokenHash: hash, ttlSeconds: verifyTtl(ctx.config) });
      return issued ? verifyEmailMail(mailContext(ctx.config), next, token, ctx.config.emailVerifyTtlHours, true) : addressInUseMail(mailContext(ctx.config), next, 'email_change');
    });
  return { pending_email: next, mailAfterAnswer };
}

/** The verification mail of an identity just created or linked (queued; the caller does not wait for delivery). */
export async function sendVerification(ctx: AuthContext, accountId: string): Promise<void> {
  const m = await verificationMail(ctx, accountId);
  if (m) ctx.mailer.enqueue(m);
}

/**
 * After the answer to a sign-up that answers alike for every address (AUTH_EMAIL_VERIFICATION=required):
 * `create` writes the account (false: the address has one already); then the verification mail, or a mail to
 * the address's owner instead.
 */
export function afterSignUp(ctx: AuthContext, email: string, accountId: string, create: () => Promise<boolean>): void {
  ctx.mailer.defer('sign_up', async () => ((await create()) ? verificationMail(ctx, accountId) : addressInUseMail(mailContext(ctx.config), normaliseEmail(email), 'sign_up')));
}

/**
 * 202 whatever the address; a mail only when it is an active account with a password. The lookup and the
 * token insert run after the answer (mailer.defer): the answer's time does not depend on the address.
 */
export function requestPasswordReset(ctx: AuthContext, email: string): void {
  const { config } = ctx;
  ctx.mailer.defer('password_reset', async () => {
    const { token, hash } = newToken();
    const issued = await issueResetToken(ctx.db, normaliseEmail(email), hash, resetTtl(config));
    return issued && passwordResetMail(mailContext(config), { address: issued.email, verified: issued.verified, name: issued.display_name }, token, config.passwordResetTtlMinutes);
  });
}

/** 202 whatever the address; a mail only when it is an unverified email identity (deferred like the reset request). */
export function resendVerification(ctx: AuthContext, email: string): void {
  const { config } = ctx;
  ctx.mailer.defer('verify_email', async () => {
    const { token, hash } = newToken();
    const issued = await issueVerifyTokenByEmail(ctx.db, normaliseEmail(email), hash, verifyTtl(config));
    return issued && verifyEmailMail(mailContext(config), issued.email, token, config.emailVerifyTtlHours, false);
  });
}
