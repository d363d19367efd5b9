/** Email and password: sign-up and sign-in, with the per-source lockout (kit lockout.ts; docs/auth.md, "Lockout"). */
import { mfaToken, secondFactorsOf } from './second-factors.js';
import { randomUUID } from 'node:crypto';
import { isUniqueViolation, lockoutSource, sha256Hex, verifyPassword } from '@platform/kit';
import { newSessionRows } from './tokens.js';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { insertAccount } from '../queries/accounts.js';
import { countPasswordFailure, insertPasswordCredential, passwordLoginOf, recordLoginSuccess, type PasswordLoginRow } from '../queries/credentials.js';
import { insertEmailIdentity } from '../queries/identities.js';
import { audit, type AuditContext } from './audit.js';
import { dummyHashFor, hashNewPassword } from './passwords.js';
import { assertUsable, finish, normaliseEmail, openSession, recordDevice, subjectOf, type DeviceInput, type SignInResult } from './sign-in-common.js';


const invalidCredentials = () => fail('invalid_credentials', 'The email or password is wrong');

type RegisterInput = { email: string; password: string; displayName?: string; device?: DeviceInput };

/** AUTH_EMAIL_VERIFICATION=required: the account id of the answer, and the write that happens after it. */
export type DeferredSignUp = { account_id: string; create: () => Promise<boolean> };

/**
 * With AUTH_EMAIL_VERIFICATION=required the answer is the same for every address (no enumeration): the account id
 * is drawn and the password hashed (the same work for every address) before it; the rows are written after it
 * (`create`: false when the address has an account already, whose owner is then mailed instead).
 */
export async function registerWithEmail(ctx: AuthContext, input: RegisterInput, who: AuditContext): Promise<SignInResult | DeferredSignUp> {
  const email = normaliseEmail(input.email);
  const hash = await hashNewPassword(input.password, ctx.config.passwordParams);
  const displayName = input.displayName ?? email.split('@')[0];
  if (ctx.config.emailVerification === 'required') {
    const accountId = randomUUID();
    return { account_id: accountId, create: () => createUnverified(ctx, accountId, { email, hash, displayName, device: input.device }, who) };
  }
  try {
    const r = await ctx.db.transaction(async (tx) => {
      const a = await insertAccount(tx, displayName);
      const identityId = await insertEmailIdentity(tx, a.id, email, true);
      await insertPasswordCredential(tx, identityId, hash);
      const deviceId = await recordDevice(tx, input.device, a.id);
      await audit(tx, who, 'login', a.id, { method: 'email', outcome: 'success', registered: true });
      return openSession(ctx, tx, a, 'email', deviceId, who);
    });
    return finish(ctx, r);
  } catch (err) {
    if (isUniqueViolation(err, 'identities_provider_user')) throw fail('email_taken', 'An account with this email exists');
    throw err;
  }
}

/** The account of a deferred sign-up, without a session; false when the address has an account already. */
async function createUnverified(
  ctx: AuthContext,
  accountId: string,
  input: { email: string; hash: string; displayName: string; device?: DeviceInput },
  who: AuditContext,
): Promise<boolean> {
  try {
    await ctx.db.transaction(async (tx) => {
      const a = await insertAccount(tx, input.displayName, accountId);
      const identityId = await insertEmailIdentity(tx, a.id, input.email, false);
      await insertPasswordCredential(tx, identityId, input.hash);
      await recordDevice(tx, input.device, a.id);
      await audit(tx, who, 'login', a.id, { method: 'email', outcome: 'registered_unverified', registered: true });
    });
    return true;
  } catch (err) {
    if (isUniqueViolation(err, 'identities_provider_user')) return false;
    throw err;
  }
}

/**
 * A wrong password: the source's count (atomic in the state store, so parallel failures on any node add up
 * exactly) decides its lock; the credential's count in the database is kept for the account's record.
 */
async function refuseWrongPassword(ctx: AuthContext, row: PasswordLoginRow, source: string, who: AuditContext): Promise<never> {
  const [{ failures, lockedSeconds }, attempts] = await Promise.all([ctx.passwordLockout.failure(row.credential_id, source), countPasswordFailure(ctx.db, row.credential_id)]);
  await audit(ctx.db, who, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'wrong_password', failed_attempts: attempts, source_failures: failures });
  if (lockedSeconds > 0) await audit(ctx.db, who, 'lockout', row.id, { source_failures: failures, locked_seconds: lockedSeconds });
  throw invalidCredentials();
}

export async function loginWithEmail(ctx: AuthContext, input: { email: string; password: string; device?: DeviceInput }, who: AuditContext): Promise<SignInResult> {
  const row = await passwordLoginOf(ctx.db, normaliseEmail(input.email));
  const source = lockoutSource(who.ip);
  const retryMs = row ? await ctx.passwordLockout.lockedForMs(row.credential_id, source) : 0;
  if (row && retryMs > 0) {
    await audit(ctx.db, who, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'locked' });
    throw fail('account_locked', 'Too many wrong passwords; the credential is locked for a while', undefined, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) },
    });
  }
  const ok = await verifyPassword(row?.secret_hash ?? (await dummyHashFor(ctx.config.passwordParams)), input.password);
  if (!row || row.status === 'deleted') {
    await audit(ctx.db, who, 'login', null, { method: 'email', outcome: 'failure', reason: 'unknown_email' });
    throw invalidCredentials();
  }
  if (!ok) return refuseWrongPassword(ctx, row, source, who);
  await assertUsable(ctx.db, row, ctx.config.masterKey);
  if (!row.email_verified && ctx.config.emailVerification === 'required') {
    await audit(ctx.db, who, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'email_not_verified' });
    throw fail('email_not_verified', 'Confirm your email address first (the link or code in the mail; POST /email/verify/resend sends another)');
  }
  if (row.failed_attempts !== 0) await ctx.passwordLockout.success(row.credential_id, source);
  // An authenticator on the account: the password was right, the session waits for the code (POST /login/mfa).
  const factors = await secondFactorsOf(ctx, row.id);
  if (factors.length) {
    throw fail('mfa_required', factors.includes('totp') ? 'Enter the code of your authenticator app (or a recovery code)' : 'Confirm with your passkey', { mfa_token: mfaToken(ctx, row.id, 'email'), factors });
  }
  const subject = subjectOf(row);
  const sr = newSessionRows(ctx.config, subject, { method: 'email', ip: who.ip ?? undefined });
  // One statement: failure counter reset, identity stamp, device, audit row, session and refresh token.
  await recordLoginSuccess(ctx.db, {
    credentialId: row.credential_id,
    identityId: row.identity_id,
    accountId: row.id,
    platform: input.device?.platform ?? null,
    fingerprintHash: input.device ? sha256Hex(input.device.fingerprint) : null,
    ip: who.ip ?? null,
    nodeId: who.nodeId,
    sessionId: sr.sessionId,
    ipCidr: sr.ipCidr,
    region: sr.region,
    expiresAt: sr.expiresAt,
    refreshId: sr.refreshId,
    refreshHash: sr.refreshHash,
    refreshExpiresAt: sr.refreshExpiresAt,
  });
  return finish(ctx, { subject, session: { sessionId: sr.sessionId, refreshToken: sr.refreshToken }, method: 'email' });
}

