/**
 * A developer's second factor (docs/registry.md, "Second factor (TOTP)"; decision 0026): an authenticator app
 * (kit totp.ts: RFC 6238 through otpauth, the newest-step rule, recovery codes) with ten single-use recovery codes.
 *
 * - Enrolment: start → a pending secret (sealed under REGISTRY_MASTER_KEY) and its otpauth:// URI; confirm with a
 *   code → on, the recovery codes answered once. Removal takes a current code or a recovery code (not the password:
 *   a stolen password plus a stolen token must not be enough to strip the factor).
 * - Adding or removing the factor moves the developer's token generation: every other token stops working, the caller
 *   gets a fresh one in the answer.
 * - Sign-in: a correct password answers 401 mfa_required with an MfaToken (sealed, bound to the developer, five
 *   minutes); POST /developers/login/mfa with it and a code or a recovery code answers the AuthResponse.
 * - Lockout: five wrong codes in a row lock the factor for 15 minutes (423 account_locked, Retry-After).
 */
import {
  newRecoveryCodes,
  newTotpSecret,
  openToken,
  openTotpSecret,
  recoveryCodeHash,
  sealToken,
  sealTotpSecret,
  TOTP_LOCK_SECONDS,
  TOTP_MAX_FAILURES,
  totpLockSeconds,
  totpStep,
  type AuthenticationResponseJSON,
} from '@platform/kit';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import { assertRecentSignIn, type Caller } from './auth.js';
import { developerQueries, type DeveloperRow } from '../queries/developers.js';
import { secondFactorQueries, type DeveloperTotpRow } from '../queries/second-factors.js';
import { verifyAssertion } from './passkeys.js';

const ISSUER = 'Game Platform (developers)';
const SECRET_AAD = 'registry:totp-secret:v1';
const MFA_TOKEN_KIND = 'registry:mfa-token:v1';
const MFA_TOKEN_TTL_MS = 5 * 60_000;

export interface MfaProof {
  code?: string;
  recoveryCode?: string;
}

/** The second step of a sign-in: a code, a recovery code or a passkey assertion (services/passkeys.ts). */
export interface SecondStepProof extends MfaProof {
  passkey?: AuthenticationResponseJSON;
}

const secretOf = (ctx: Context, row: DeveloperTotpRow) => openTotpSecret(ctx.config.masterKey, row.secret_enc, SECRET_AAD);
const wrongCode = () => fail('invalid_mfa_code', 'The code is wrong or used already');

export async function mfaStatus(ctx: Context, developerId: string): Promise<{ Totp: boolean; Pending: boolean; RecoveryCodesLeft: number }> {
  const q = secondFactorQueries(ctx.db);
  const row = await q.totpOf(developerId);
  return { Totp: Boolean(row?.confirmed_at), Pending: Boolean(row && !row.confirmed_at), RecoveryCodesLeft: row?.confirmed_at ? await q.unusedRecoveryCodes(developerId) : 0 };
}

/** A pending secret for the authenticator app (replacing a pending one); 409 totp_enabled when one is on. */
export async function startTotp(ctx: Context, developer: Pick<Caller, 'id' | 'email' | 'signedInAt'>): Promise<{ Secret: string; OtpauthUri: string }> {
  assertRecentSignIn(ctx, developer);
  const { secret, otpauthUri } = newTotpSecret(ISSUER, developer.email);
  await ctx.db.transaction(async (tx) => {
    const q = secondFactorQueries(tx);
    if ((await q.totpOf(developer.id, { lock: true }))?.confirmed_at) throw fail('totp_enabled', 'An authenticator is on already; remove it first');
    await q.putPending(developer.id, sealTotpSecret(ctx.config.masterKey, secret, SECRET_AAD));
  });
  return { Secret: secret, OtpauthUri: otpauthUri };
}

/** A token under the developer's current generation (after the factor changed, the caller's replacement). */
async function tokenFor(ctx: Context, d: Pick<DeveloperRow, 'id' | 'role' | 'token_generation'>, signedInAt: number): Promise<string> {
  return ctx.tokens.issue({ developerId: d.id, role: d.role, generation: d.token_generation, authTime: signedInAt });
}

/** Confirms the pending secret with a code: on, recovery codes answered once, every other token ended. */
export async function confirmTotp(ctx: Context, developer: Pick<Caller, 'id' | 'signedInAt'>, code: string): Promise<{ RecoveryCodes: string[]; Token: string }> {
  const developerId = developer.id;
  const codes = newRecoveryCodes();
  const generation = await ctx.db.transaction(async (tx) => {
    const q = secondFactorQueries(tx);
    const row = await q.totpOf(developerId, { lock: true });
    if (!row || row.confirmed_at) throw fail('totp_not_pending', 'No authenticator is waiting for confirmation');
    const step = totpStep(secretOf(ctx, row), code, 0);
    if (step === undefined) throw fail('invalid_mfa_code', 'The code is not the authenticator’s current one');
    await q.confirm(developerId, step);
    await q.replaceRecoveryCodes(developerId, codes.map(recoveryCodeHash));
    return q.bumpTokenGeneration(developerId);
  });
  const d = (await developerQueries(ctx.db).byId(developerId))!;
  return { RecoveryCodes: codes, Token: await tokenFor(ctx, { ...d, token_generation: generation }, developer.signedInAt) };
}

/**
 * Checks a code (or spends a recovery code) of the developer's confirmed factor: true when accepted. Wrong ones are
 * counted; a locked factor answers 423 account_locked with Retry-After, whatever the code.
 */
async function checkSecondFactor(ctx: Context, developerId: string, input: MfaProof): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const q = secondFactorQueries(tx);
    const row = await q.totpOf(developerId, { lock: true });
    if (!row?.confirmed_at) return false;
    const seconds = totpLockSeconds(row.locked_until);
    if (seconds !== undefined) {
      throw fail('account_locked', 'Too many wrong codes; the second factor is locked for a while', undefined, { headers: { 'retry-after': String(seconds) } });
    }
    if (input.recoveryCode !== undefined) {
      if (await q.spendRecoveryCode(developerId, recoveryCodeHash(input.recoveryCode))) {
        await q.acceptStep(developerId, 0);
        return true;
      }
    } else if (input.code !== undefined) {
      const step = totpStep(secretOf(ctx, row), input.code, Number(row.last_step));
      if (step !== undefined) {
        await q.acceptStep(developerId, step);
        return true;
      }
    }
    await q.countFailure(developerId, TOTP_MAX_FAILURES, TOTP_LOCK_SECONDS);
    return false;
  });
}

const oneProof = (input: MfaProof) => {
  if ((input.code === undefined) === (input.recoveryCode === undefined)) throw fail('validation_failed', 'Give Code or RecoveryCode', { Field: 'Code' });
};

/** Removes the factor (a current code or a recovery code proves the owner): off, every other token ended. */
export async function removeTotp(ctx: Context, developer: Pick<Caller, 'id' | 'signedInAt'>, input: MfaProof): Promise<{ Token: string }> {
  const developerId = developer.id;
  oneProof(input);
  const row = await secondFactorQueries(ctx.db).totpOf(developerId);
  if (!row?.confirmed_at) throw fail('totp_not_enabled', 'The account has no authenticator');
  if (!(await checkSecondFactor(ctx, developerId, input))) throw wrongCode();
  const generation = await ctx.db.transaction(async (tx) => {
    const q = secondFactorQueries(tx);
    await q.remove(developerId);
    return q.bumpTokenGeneration(developerId);
  });
  const d = (await developerQueries(ctx.db).byId(developerId))!;
  return { Token: await tokenFor(ctx, { ...d, token_generation: generation }, developer.signedInAt) };
}

/** The token of a sign-in waiting for its second step: the developer, five minutes (kit sealed-token.ts). */
export const mfaToken = (ctx: Context, developerId: string): string => sealToken(ctx.config.masterKey, MFA_TOKEN_KIND, { d: developerId }, MFA_TOKEN_TTL_MS);

/** The developer an MfaToken names (the password was right within five minutes); invalid_mfa_code otherwise. */
export function mfaDeveloper(ctx: Context, token: string): string {
  const claims = openToken(ctx.config.masterKey, MFA_TOKEN_KIND, token, ['d']);
  if (!claims) throw fail('invalid_mfa_code', 'The sign-in expired or is not valid; sign in again');
  return claims.d!;
}

/** The second factors a developer has, as the 401 mfa_required lists them (`Factors`). */
export const factorsOf = (d: Pick<DeveloperRow, 'totp_on' | 'passkeys_on'>): ('totp' | 'passkey')[] => [
  ...(d.totp_on ? (['totp'] as const) : []),
  ...(d.passkeys_on ? (['passkey'] as const) : []),
];

/**
 * The second step of a sign-in: the MfaToken and a code, a recovery code or a passkey assertion (of the developer's
 * own passkeys, a challenge from POST /developers/login/mfa/passkey/options) → the developer, signed in.
 */
export async function completeMfaSignIn(ctx: Context, input: SecondStepProof & { mfaToken: string }, log: Pick<FastifyBaseLogger, 'info' | 'warn'>): Promise<DeveloperRow> {
  const developerId = mfaDeveloper(ctx, input.mfaToken);
  const given = [input.code, input.recoveryCode, input.passkey].filter((x) => x !== undefined).length;
  if (given !== 1) throw fail('validation_failed', 'Give one of Code, RecoveryCode or Passkey', { Field: 'Code' });
  if (input.passkey !== undefined) await verifyAssertion(ctx, 'mfa', developerId, input.passkey, log);
  else if (!(await checkSecondFactor(ctx, developerId, input))) throw wrongCode();
  const d = await developerQueries(ctx.db).byId(developerId);
  if (!d) throw fail('invalid_mfa_code', 'The sign-in expired or is not valid; sign in again');
  return d;
}
