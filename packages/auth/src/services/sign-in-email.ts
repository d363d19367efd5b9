/** Email and password: sign-up and sign-in, with the per-source lockout (kit lockout.ts; docs/auth.md, "Lockout"). */
import { randomUUID } from 'node:crypto';
import { createSourceLockout, isUniqueViolation, lockoutSource, sha256Hex, verifyPassword, type LockoutHooks, type StateStore } from '@platform/kit';
import { fail } from '../errors.js';
import { insertAccount } from '../queries/accounts.js';
import { countPasswordFailure, insertPasswordCredential, passwordLoginOf, recordLoginSuccess, type PasswordLoginRow } from '../queries/credentials.js';
import { insertEmailIdentity } from '../queries/identities.js';
import { audit, type AuditContext } from './audit.js';
import { dummyHashFor, hashNewPassword } from './passwords.js';
import { assertUsable, finish, normaliseEmail, openSession, recordDevice, subjectOf, type DeviceInput, type SignInDeps, type SignInResult } from './sign-in-common.js';

type Lockout = ReturnType<typeof createSourceLockout>;

const invalidCredentials = () => fail('invalid_credentials', 'The email or password is wrong');

type RegisterInput = { email: string; password: string; displayName?: string; device?: DeviceInput };

/** AUTH_EMAIL_VERIFICATION=required: the account id of the answer, and the write that happens after it. */
export type DeferredSignUp = { account_id: string; create: () => Promise<boolean> };

/**
 * With AUTH_EMAIL_VERIFICATION=required the answer is the same for every address (no enumeration): the account id
 * is drawn and the password hashed (the same work for every address) before it; the rows are written after it
 * (`create`: false when the address has an account already, whose owner is then mailed instead).
 */
async function register(d: SignInDeps, input: RegisterInput, ctx: AuditContext): Promise<SignInResult | DeferredSignUp> {
  const email = normaliseEmail(input.email);
  const hash = await hashNewPassword(input.password, d.config.passwordParams);
  const displayName = input.displayName ?? email.split('@')[0];
  if (d.config.emailVerification === 'required') {
    const accountId = randomUUID();
    return { account_id: accountId, create: () => createUnverified(d, accountId, { email, hash, displayName, device: input.device }, ctx) };
  }
  try {
    const r = await d.db.transaction(async (tx) => {
      const a = await insertAccount(tx, displayName);
      const identityId = await insertEmailIdentity(tx, a.id, email, true);
      await insertPasswordCredential(tx, identityId, hash);
      const deviceId = await recordDevice(tx, input.device, a.id);
      await audit(tx, ctx, 'login', a.id, { method: 'email', outcome: 'success', registered: true });
      return openSession(d.tokens, tx, a, 'email', deviceId, ctx);
    });
    return finish(d.tokens, r);
  } catch (err) {
    if (isUniqueViolation(err, 'identities_provider_user')) throw fail('email_taken', 'An account with this email exists');
    throw err;
  }
}

/** The account of a deferred sign-up, without a session; false when the address has an account already. */
async function createUnverified(
  d: SignInDeps,
  accountId: string,
  input: { email: string; hash: string; displayName: string; device?: DeviceInput },
  ctx: AuditContext,
): Promise<boolean> {
  try {
    await d.db.transaction(async (tx) => {
      const a = await insertAccount(tx, input.displayName, accountId);
      const identityId = await insertEmailIdentity(tx, a.id, input.email, false);
      await insertPasswordCredential(tx, identityId, input.hash);
      await recordDevice(tx, input.device, a.id);
      await audit(tx, ctx, 'login', a.id, { method: 'email', outcome: 'registered_unverified', registered: true });
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
async function refuseWrongPassword(d: SignInDeps, lockout: Lockout, row: PasswordLoginRow, source: string, ctx: AuditContext): Promise<never> {
  const [{ failures, lockedSeconds }, attempts] = await Promise.all([lockout.failure(row.credential_id, source), countPasswordFailure(d.db, row.credential_id)]);
  await audit(d.db, ctx, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'wrong_password', failed_attempts: attempts, source_failures: failures });
  if (lockedSeconds > 0) await audit(d.db, ctx, 'lockout', row.id, { source_failures: failures, locked_seconds: lockedSeconds });
  throw invalidCredentials();
}

async function login(d: SignInDeps, lockout: Lockout, input: { email: string; password: string; device?: DeviceInput }, ctx: AuditContext): Promise<SignInResult> {
  const row = await passwordLoginOf(d.db, normaliseEmail(input.email));
  const source = lockoutSource(ctx.ip);
  const retryMs = row ? await lockout.lockedForMs(row.credential_id, source) : 0;
  if (row && retryMs > 0) {
    await audit(d.db, ctx, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'locked' });
    throw fail('account_locked', 'Too many wrong passwords; the credential is locked for a while', undefined, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))) },
    });
  }
  const ok = await verifyPassword(row?.secret_hash ?? (await dummyHashFor(d.config.passwordParams)), input.password);
  if (!row || row.status === 'deleted') {
    await audit(d.db, ctx, 'login', null, { method: 'email', outcome: 'failure', reason: 'unknown_email' });
    throw invalidCredentials();
  }
  if (!ok) return refuseWrongPassword(d, lockout, row, source, ctx);
  await assertUsable(d.db, row);
  if (!row.email_verified && d.config.emailVerification === 'required') {
    await audit(d.db, ctx, 'login', row.id, { method: 'email', outcome: 'failure', reason: 'email_not_verified' });
    throw fail('email_not_verified', 'Confirm your email address first (the link or code in the mail; POST /email/verify/resend sends another)');
  }
  if (row.failed_attempts !== 0) await lockout.success(row.credential_id, source);
  const subject = subjectOf(row);
  const sr = d.tokens.newSessionRows(subject, { method: 'email', ip: ctx.ip ?? undefined });
  // One statement: failure counter reset, identity stamp, device, audit row, session and refresh token.
  await recordLoginSuccess(d.db, {
    credentialId: row.credential_id,
    identityId: row.identity_id,
    accountId: row.id,
    platform: input.device?.platform ?? null,
    fingerprintHash: input.device ? sha256Hex(input.device.fingerprint) : null,
    ip: ctx.ip ?? null,
    nodeId: ctx.nodeId,
    sessionId: sr.sessionId,
    ipCidr: sr.ipCidr,
    region: sr.region,
    expiresAt: sr.expiresAt,
    refreshId: sr.refreshId,
    refreshHash: sr.refreshHash,
    refreshExpiresAt: sr.refreshExpiresAt,
  });
  return finish(d.tokens, { subject, session: { sessionId: sr.sessionId, refreshToken: sr.refreshToken }, method: 'email' });
}

export function createEmailSignIn(d: SignInDeps, state: StateStore, hooks?: LockoutHooks) {
  // Lockout per (source, credential): a stranger's wrong passwords lock the stranger out, never the owner.
  const lockout = createSourceLockout(state, 'password', {
    threshold: d.config.lockoutThreshold,
    baseSeconds: d.config.lockoutBaseSeconds,
    maxSeconds: d.config.lockoutMaxSeconds,
  }, hooks);
  return {
    register: (input: RegisterInput, ctx: AuditContext) => register(d, input, ctx),
    login: (input: { email: string; password: string; device?: DeviceInput }, ctx: AuditContext) => login(d, lockout, input, ctx),
  };
}
