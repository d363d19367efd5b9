/**
 * Passkeys (docs/auth.md, "Passkeys"; decision 0025; issue 30 item 3): WebAuthn credentials through the maintained
 * `@simplewebauthn/server`, as a sign-in method of their own and as the second step of an email sign-in.
 *
 * - Every ceremony starts with options whose challenge is kept in the shared state store (any node may finish it)
 *   for five minutes, bound to its purpose (and account), and is spent by the first answer that names it, right or
 *   wrong: `setIfAbsent` on a spent marker decides the one winner across nodes.
 * - User verification is required (a PIN or biometric on the authenticator): a passkey is possession and a second
 *   factor in one, so a passkey sign-in needs no other step and counts as an authenticator for
 *   AUTH_SECOND_FACTOR_ROLES.
 * - Registration: a signed-in account that is not a guest; at most MAX_PASSKEYS; adding or removing one ends the
 *   account's other sessions and is audited (`factor_added` / `factor_removed` with `factor: passkey`).
 */
import { randomUUID } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { guestRestrictionDetails, isUniqueViolation } from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { accountById } from '../queries/accounts.js';
import { countPasskeys, deletePasskey, insertPasskey, passkeyByCredential, passkeysOf, usePasskey, type PasskeyRow } from '../queries/passkeys.js';
import { audit, type AuditContext } from './audit.js';
import { endOtherSessions } from './sessions.js';
import { assertUsable, finish, openSession, recordDevice, type DeviceInput, type SignInResult } from './sign-in-common.js';

export const MAX_PASSKEYS = 10;
const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_KEY = 'auth:webauthn:challenge:';
const SPENT_KEY = 'auth:webauthn:spent:';

type Purpose = 'register' | 'login' | 'mfa';

export interface PasskeyView {
  id: string;
  name: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

const viewOf = (r: PasskeyRow): PasskeyView => ({
  id: r.id,
  name: r.name,
  transports: r.transports,
  created_at: new Date(r.created_at).toISOString(),
  last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
});

const invalid = (message = 'The passkey could not be verified; start again') => fail('invalid_passkey', message);

function relyingParty(ctx: AuthContext) {
  const rp = ctx.config.webauthn;
  if (!rp.rpId || !rp.origins.length) throw fail('passkeys_unavailable', 'Passkeys are not set up on this platform');
  return rp;
}

/** The WebAuthn user handle: the account id's 16 bytes (no personal data, and a discoverable assertion names it). */
const userHandleOf = (accountId: string) => Buffer.from(accountId.replace(/-/g, ''), 'hex');

async function keepChallenge(ctx: AuthContext, challenge: string, purpose: Purpose, accountId: string | null): Promise<void> {
  await ctx.state.set(CHALLENGE_KEY + challenge, JSON.stringify({ p: purpose, a: accountId }), CHALLENGE_TTL_MS);
}

/**
 * Spends the challenge the client data names: its purpose and account as kept, or undefined when unknown, expired,
 * spent already or malformed. The first answer to name a challenge spends it, whether it verifies or not.
 */
async function spendChallenge(ctx: AuthContext, clientDataJSON: string): Promise<{ challenge: string; purpose: Purpose; accountId: string | null } | undefined> {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    return undefined;
  }
  if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) return undefined;
  if (!(await ctx.state.setIfAbsent(SPENT_KEY + challenge, '1', CHALLENGE_TTL_MS))) return undefined;
  const kept = await ctx.state.get(CHALLENGE_KEY + challenge);
  if (!kept) return undefined;
  await ctx.state.del(CHALLENGE_KEY + challenge);
  const { p, a } = JSON.parse(kept) as { p: Purpose; a: string | null };
  return { challenge, purpose: p, accountId: a };
}

export async function listPasskeys(ctx: AuthContext, accountId: string): Promise<{ passkeys: PasskeyView[] }> {
  return { passkeys: (await passkeysOf(ctx.db, accountId)).map(viewOf) };
}

/** The options of `navigator.credentials.create()` for a new passkey of this account. */
export async function registrationOptions(ctx: AuthContext, accountId: string): Promise<{ public_key: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const account = await accountById(ctx.db, accountId);
  if (!account || account.status !== 'active') throw fail('invalid_token', 'The account is not active');
  // Read from the account, not the token: one upgraded a moment ago is not a guest any more.
  if (account.is_guest) throw fail('guest_restricted', 'Guest accounts cannot add passkeys; link an email address or a platform first', guestRestrictionDetails('passkeys'));
  const existing = await passkeysOf(ctx.db, accountId);
  if (existing.length >= MAX_PASSKEYS) throw fail('passkey_limit', `An account may have ${MAX_PASSKEYS} passkeys; remove one first`);
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userID: userHandleOf(accountId),
    userName: account.display_name || accountId,
    userDisplayName: account.display_name || '',
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await keepChallenge(ctx, options.challenge, 'register', accountId);
  return { public_key: { ...options } };
}

/** Verifies the authenticator's attestation and stores the passkey; the other sessions end; audited. */
export async function registerPasskey(
  ctx: AuthContext,
  accountId: string,
  currentSid: string | undefined,
  input: { credential: RegistrationResponseJSON; name?: string },
  who: AuditContext,
): Promise<PasskeyView> {
  const rp = relyingParty(ctx);
  const spent = await spendChallenge(ctx, input.credential.response.clientDataJSON);
  if (!spent || spent.purpose !== 'register' || spent.accountId !== accountId) throw invalid('The registration expired, was used already or is not this account’s; start again');
  let info;
  try {
    const v = await verifyRegistrationResponse({ response: input.credential, expectedChallenge: spent.challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: true });
    // The id the client names is the one the authenticator signed into its data, or the answer is not one piece.
    if (!v.verified || v.registrationInfo.credential.id !== input.credential.id || input.credential.rawId !== input.credential.id) throw invalid();
    info = v.registrationInfo;
  } catch (err) {
    if ((err as { code?: string }).code === 'invalid_passkey') throw err;
    throw invalid(`The authenticator’s answer was refused: ${(err as Error).message}`.slice(0, 300));
  }
  const id = randomUUID();
  const name = input.name?.trim() || 'Passkey';
  try {
    await ctx.db.transaction(async (tx) => {
      // The account's row serialises concurrent registrations, so the limit holds.
      await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if ((await countPasskeys(tx, accountId)) >= MAX_PASSKEYS) throw fail('passkey_limit', `An account may have ${MAX_PASSKEYS} passkeys; remove one first`);
      await insertPasskey(tx, {
        id,
        accountId,
        credentialId: info.credential.id,
        publicKey: info.credential.publicKey,
        counter: info.credential.counter,
        transports: info.credential.transports ?? input.credential.response.transports ?? [],
        name,
      });
      await audit(tx, who, 'factor_added', accountId, { factor: 'passkey', passkey_id: id });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'passkeys_credential_id')) throw fail('passkey_exists', 'This authenticator’s passkey is registered already');
    throw err;
  }
  if (currentSid) await endOtherSessions(ctx, accountId, currentSid, who);
  const row = (await passkeysOf(ctx.db, accountId)).find((p) => p.id === id);
  return viewOf(row!);
}

/** Removes one of the account's passkeys (others' ids and any non-id: 404); the other sessions end; audited. */
export async function removePasskey(ctx: AuthContext, accountId: string, currentSid: string | undefined, id: string, who: AuditContext): Promise<void> {
  const gone = await ctx.db.transaction(async (tx) => {
    if (!(await deletePasskey(tx, accountId, id))) return false;
    await audit(tx, who, 'factor_removed', accountId, { factor: 'passkey', passkey_id: id });
    return true;
  });
  if (!gone) throw fail('passkey_not_found', 'The account has no passkey with this id');
  if (currentSid) await endOtherSessions(ctx, accountId, currentSid, who);
}

/** Options for `navigator.credentials.get()`: discoverable (no account named, none revealed), or the account's own for a second step. */
async function assertionOptions(ctx: AuthContext, purpose: 'login' | 'mfa', accountId: string | null): Promise<{ public_key: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const allow = accountId ? (await passkeysOf(ctx.db, accountId)).map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransportFuture[] })) : undefined;
  const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'required', timeout: CHALLENGE_TTL_MS, ...(allow ? { allowCredentials: allow } : {}) });
  await keepChallenge(ctx, options.challenge, purpose, accountId);
  return { public_key: { ...options } };
}

export const loginOptions = (ctx: AuthContext) => assertionOptions(ctx, 'login', null);
export const secondStepOptions = (ctx: AuthContext, accountId: string) => assertionOptions(ctx, 'mfa', accountId);

/**
 * Verifies an assertion against the stored passkey: the spent challenge of this purpose (and account), a known
 * credential whose user handle is its account, the signature, origin, relying party, user verification and a
 * counter that moved forward. Returns the passkey's account; invalid_passkey otherwise (audited).
 */
export async function verifyAssertion(ctx: AuthContext, purpose: 'login' | 'mfa', expectedAccount: string | null, credential: AuthenticationResponseJSON, who: AuditContext): Promise<string> {
  const rp = relyingParty(ctx);
  const spent = await spendChallenge(ctx, credential.response.clientDataJSON);
  if (!spent || spent.purpose !== purpose || spent.accountId !== expectedAccount) throw invalid('The sign-in expired or was used already; start again');
  const row = await passkeyByCredential(ctx.db, credential.id);
  const handle = credential.response.userHandle;
  if (!row || (expectedAccount && row.account_id !== expectedAccount) || (handle && handle !== userHandleOf(row.account_id).toString('base64url'))) {
    await audit(ctx.db, who, 'login', expectedAccount, { method: 'passkey', outcome: 'failure', reason: 'unknown_passkey' });
    throw invalid('This passkey is not registered here');
  }
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: spent.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      credential: { id: row.credential_id, publicKey: new Uint8Array(row.public_key), counter: Number(row.counter), transports: row.transports as AuthenticatorTransportFuture[] },
    });
  } catch (err) {
    // A counter that went backwards: a cloned authenticator, its own audit event (docs/auth.md, "Passkeys").
    const cloned = /counter/i.test((err as Error).message);
    await audit(ctx.db, who, cloned ? 'passkey_rejected' : 'login', row.account_id, { method: 'passkey', outcome: 'failure', reason: cloned ? 'counter' : 'bad_assertion', passkey_id: row.id });
    throw invalid('The passkey’s answer was refused');
  }
  if (!verified.verified) {
    await audit(ctx.db, who, 'login', row.account_id, { method: 'passkey', outcome: 'failure', reason: 'bad_assertion', passkey_id: row.id });
    throw invalid('The passkey’s answer was refused');
  }
  await usePasskey(ctx.db, row.id, verified.authenticationInfo.newCounter);
  return row.account_id;
}

/** A sign-in with a passkey alone (user-verified: no second step); the same checks and session as the email sign-in. */
export async function loginWithPasskey(ctx: AuthContext, input: { credential: AuthenticationResponseJSON; device?: DeviceInput }, who: AuditContext): Promise<SignInResult> {
  const accountId = await verifyAssertion(ctx, 'login', null, input.credential, who);
  const account = await accountById(ctx.db, accountId);
  if (!account || account.status === 'deleted') throw invalid('This passkey is not registered here');
  try {
    await assertUsable(ctx.db, account, ctx.config.masterKey);
  } catch (err) {
    await audit(ctx.db, who, 'login', accountId, { method: 'passkey', outcome: 'failure', reason: (err as { code?: string }).code ?? 'unusable' });
    throw err;
  }
  const opened = await ctx.db.transaction(async (tx) => {
    const deviceId = await recordDevice(tx, input.device, accountId);
    const s = await openSession(ctx, tx, account, 'passkey', deviceId, who);
    await audit(tx, who, 'login', accountId, { method: 'passkey', outcome: 'success' });
    return s;
  });
  return finish(ctx, opened);
}
