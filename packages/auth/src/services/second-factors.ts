/**
 * The second factor (docs/auth.md, "Second factor (TOTP)"; issue 30 item 3): an authenticator app (RFC 6238 TOTP,
 * kit totp.ts over the `otpauth` library: SHA-1, 6 digits, 30 s, one step of drift either way) with ten single-use recovery codes.
 *
 * - Enrolment: `POST /account/mfa/totp` makes a pending secret (encrypted at rest under AUTH_MASTER_KEY) and answers
 *   it with its otpauth:// URI; `POST /account/mfa/totp/confirm {code}` turns it on and answers the recovery codes
 *   once (stored as SHA-256 hashes: 80 random bits each). Adding or removing the factor ends the account's other
 *   sessions (a thief's session does not survive the owner's change) and is audited.
 * - Sign-in: a correct password of an account with a confirmed factor answers 401 `mfa_required` with an `mfa_token`
 *   (encrypted and authenticated, bound to the account, five minutes); `POST /login/mfa` with it and a code (or a
 *   recovery code, spent) opens the session. A code's time step is accepted once (no replay within its window).
 * - Lockout: five wrong codes in a row lock the factor for 15 minutes (423 `account_locked`, Retry-After), on top of
 *   the per-address rate limits of the sign-in routes.
 */
import { assertRecentSignIn } from './recent-sign-in.js';
import {
  newRecoveryCodes,
  newTotpSecret,
  openToken,
  openTotpSecret,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
  sealToken,
  sealTotpSecret,
  TOTP_LOCK_SECONDS,
  TOTP_MAX_FAILURES,
  totpLockSeconds,
  totpStep,
} from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { accountById } from '../queries/accounts.js';
import {
  acceptStep,
  confirmTotp,
  countFailure,
  deleteTotp,
  putPendingTotp,
  replaceRecoveryCodes,
  spendRecoveryCode,
  totpOf,
  unusedRecoveryCodes,
  type TotpRow,
} from '../queries/second-factors.js';
import { audit, type AuditContext } from './audit.js';
import { assertUsable, finish, openSession, type SignInResult } from './sign-in-common.js';
import { endOtherSessions } from './sessions.js';
import { countPasskeys, hasPasskey } from '../queries/passkeys.js';
import { verifyAssertion } from './passkeys.js';
import type { AuthenticationResponseJSON } from '@platform/kit';

const ISSUER = 'Game Platform';
const SECRET_AAD = 'auth:totp-secret:v1';
const MFA_TOKEN_KIND = 'auth:mfa-token:v1';
const MFA_TOKEN_TTL_MS = 5 * 60_000;

function keyOf(ctx: AuthContext): Buffer {
  if (!ctx.config.masterKey) throw new Error('second factors need AUTH_MASTER_KEY');
  return ctx.config.masterKey;
}

const secretOf = (ctx: AuthContext, row: TotpRow) => openTotpSecret(keyOf(ctx), row.secret_enc, SECRET_AAD);

export async function mfaStatus(ctx: AuthContext, accountId: string): Promise<{ totp: boolean; pending: boolean; recovery_codes_left: number; passkeys: number }> {
  const row = await totpOf(ctx.db, accountId);
  return {
    totp: Boolean(row?.confirmed_at),
    pending: Boolean(row && !row.confirmed_at),
    recovery_codes_left: row?.confirmed_at ? await unusedRecoveryCodes(ctx.db, accountId) : 0,
    passkeys: await countPasskeys(ctx.db, accountId),
  };
}

/** A pending secret for the authenticator app (replacing a pending one); 409 totp_enabled when one is on. */
export async function startTotp(ctx: AuthContext, accountId: string, sessionId: string | undefined): Promise<{ secret: string; otpauth_uri: string }> {
  await assertRecentSignIn(ctx, accountId, sessionId);
  const account = await accountById(ctx.db, accountId);
  const { secret, otpauthUri } = newTotpSecret(ISSUER, account?.display_name || accountId);
  await ctx.db.transaction(async (tx) => {
    const row = await totpOf(tx, accountId, { lock: true });
    if (row?.confirmed_at) throw fail('totp_enabled', 'An authenticator is on already; remove it first');
    await putPendingTotp(tx, accountId, sealTotpSecret(keyOf(ctx), secret, SECRET_AAD));
  });
  return { secret, otpauth_uri: otpauthUri };
}

/** Confirms the pending secret with a code: on, recovery codes answered once, the other sessions ended, audited. */
export async function confirmTotpFactor(ctx: AuthContext, accountId: string, currentSid: string | undefined, code: string, who: AuditContext): Promise<{ recovery_codes: string[] }> {
  const codes = newRecoveryCodes();
  await ctx.db.transaction(async (tx) => {
    const row = await totpOf(tx, accountId, { lock: true });
    if (!row || row.confirmed_at) throw fail('totp_not_pending', 'No authenticator is waiting for confirmation');
    const step = totpStep(secretOf(ctx, row), code, 0);
    if (step === undefined) throw fail('invalid_mfa_code', 'The code is not the authenticator’s current one');
    await confirmTotp(tx, accountId, step);
    await replaceRecoveryCodes(tx, accountId, codes.map(recoveryCodeHash));
    await audit(tx, who, 'factor_added', accountId, { factor: 'totp', recovery_codes: RECOVERY_CODE_COUNT });
  });
  if (currentSid) await endOtherSessions(ctx, accountId, currentSid, who);
  return { recovery_codes: codes };
}

/**
 * Checks a code (or spends a recovery code) of the account's confirmed factor: true when accepted. Wrong ones are
 * counted; a locked factor answers 423 account_locked with Retry-After.
 */
async function checkSecondFactor(ctx: AuthContext, accountId: string, input: { code?: string; recovery_code?: string }): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const row = await totpOf(tx, accountId, { lock: true });
    if (!row?.confirmed_at) return false;
    const seconds = totpLockSeconds(row.locked_until);
    if (seconds !== undefined) {
      throw fail('account_locked', 'Too many wrong codes; the second factor is locked for a while', undefined, { headers: { 'retry-after': String(seconds) } });
    }
    if (input.recovery_code !== undefined) {
      if (await spendRecoveryCode(tx, accountId, recoveryCodeHash(input.recovery_code))) {
        await acceptStep(tx, accountId, 0);
        return true;
      }
    } else if (input.code !== undefined) {
      const step = totpStep(secretOf(ctx, row), input.code, Number(row.last_step));
      if (step !== undefined) {
        await acceptStep(tx, accountId, step);
        return true;
      }
    }
    await countFailure(tx, accountId, TOTP_MAX_FAILURES, TOTP_LOCK_SECONDS);
    return false;
  });
}

/** Removes the factor (a current code or a recovery code proves the owner): off, other sessions ended, audited. */
export async function removeTotp(ctx: AuthContext, accountId: string, currentSid: string | undefined, input: { code?: string; recovery_code?: string }, who: AuditContext): Promise<void> {
  const row = await totpOf(ctx.db, accountId);
  if (!row?.confirmed_at) throw fail('totp_not_enabled', 'The account has no authenticator');
  if (!(await checkSecondFactor(ctx, accountId, input))) throw fail('invalid_mfa_code', 'The code is wrong or used already');
  await ctx.db.transaction(async (tx) => {
    await deleteTotp(tx, accountId);
    await audit(tx, who, 'factor_removed', accountId, { factor: 'totp' });
  });
  if (currentSid) await endOtherSessions(ctx, accountId, currentSid, who);
}

/**
 * The factors a sign-in of this account may finish with (none: no second step): `totp` (and its recovery codes)
 * when an authenticator app is on, `passkey` when the account has one (docs/auth.md, "Passkeys").
 */
export async function secondFactorsOf(ctx: AuthContext, accountId: string): Promise<('totp' | 'passkey')[]> {
  const [totp, passkey] = await Promise.all([totpOf(ctx.db, accountId), hasPasskey(ctx.db, accountId)]);
  return [...(totp?.confirmed_at ? (['totp'] as const) : []), ...(passkey ? (['passkey'] as const) : [])];
}

/** The token of a sign-in waiting for its second step: the account and the method, five minutes (kit sealed-token.ts). */
export const mfaToken = (ctx: AuthContext, accountId: string, method: string): string => sealToken(ctx.config.masterKey, MFA_TOKEN_KIND, { a: accountId, m: method }, MFA_TOKEN_TTL_MS);

function readMfaToken(ctx: AuthContext, token: string): { accountId: string; method: string } {
  const claims = openToken(ctx.config.masterKey, MFA_TOKEN_KIND, token, ['a', 'm']);
  if (!claims) throw fail('invalid_mfa_code', 'The sign-in expired or is not valid; sign in again');
  return { accountId: claims.a!, method: claims.m! };
}

/** The passkey options of a second step: the account's own passkeys (the mfa_token proved the password). */
export function readMfaAccount(ctx: AuthContext, token: string): string {
  return readMfaToken(ctx, token).accountId;
}

type SecondStep = { mfa_token: string; code?: string; recovery_code?: string; passkey?: AuthenticationResponseJSON };

/** The second step of a sign-in: the mfa_token and a code, a recovery code or a passkey assertion → the session. */
export async function completeSignIn(ctx: AuthContext, input: SecondStep, who: AuditContext): Promise<SignInResult> {
  const { accountId, method } = readMfaToken(ctx, input.mfa_token);
  const given = [input.code, input.recovery_code, input.passkey].filter((x) => x !== undefined).length;
  if (given !== 1) throw fail('validation_failed', 'Give one of code, recovery_code or passkey', { field: 'code' });
  let factor: 'totp' | 'recovery_code' | 'passkey';
  if (input.passkey !== undefined) {
    // Audited by verifyAssertion when refused (invalid_passkey).
    await verifyAssertion(ctx, 'mfa', accountId, input.passkey, who);
    factor = 'passkey';
  } else {
    if (!(await checkSecondFactor(ctx, accountId, input))) {
      await audit(ctx.db, who, 'login', accountId, { method, outcome: 'failure', reason: 'second_factor' });
      throw fail('invalid_mfa_code', 'The code is wrong or used already');
    }
    factor = input.code !== undefined ? 'totp' : 'recovery_code';
  }
  const account = await accountById(ctx.db, accountId);
  if (!account) throw fail('invalid_mfa_code', 'The sign-in expired or is not valid; sign in again');
  await assertUsable(ctx.db, account, ctx.config.masterKey);
  const opened = await ctx.db.transaction(async (tx) => {
    const s = await openSession(ctx, tx, account, method, null, who);
    await audit(tx, who, 'login', accountId, { method, outcome: 'success', second_factor: factor });
    return s;
  });
  return finish(ctx, opened);
}
