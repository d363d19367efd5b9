/**
 * Passkeys (docs/auth.md, "Passkeys"; decision 0025; issue 30 item 3): WebAuthn credentials through the maintained
 * `@simplewebauthn/server`, as a sign-in method of their own and as the second step of an email sign-in.
 *
 * - The ceremonies, their single-use challenges and the relying party are the kit's (webauthn.ts; the registry's
 *   developer passkeys use the same): challenges live five minutes in the shared state store, bound to their purpose
 *   and account, spent by the first answer that names them, right or wrong.
 * - User verification is required (a PIN or biometric on the authenticator): a passkey is possession and a second
 *   factor in one, so a passkey sign-in needs no other step and counts as an authenticator for
 *   AUTH_SECOND_FACTOR_ROLES.
 * - Registration: a signed-in account that is not a guest; at most MAX_PASSKEYS; adding or removing one ends the
 *   account's other sessions and is audited (`factor_added` / `factor_removed` with `factor: passkey`).
 */
import { assertRecentSignIn } from './recent-sign-in.js';
import { randomUUID } from 'node:crypto';
import {
  guestRestrictionDetails,
  isUniqueViolation,
  passkeyAssertionOptions,
  passkeyRegistrationOptions,
  passkeyUserHandle,
  userHandleMatches,
  verifyPasskeyAssertion,
  verifyPasskeyRegistration,
  webauthnChallenges,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  type StoredPasskey,
} from '@platform/kit';
import type { AuthContext } from '../context.js';
import { fail } from '../errors.js';
import { accountById } from '../queries/accounts.js';
import { countPasskeys, deletePasskey, insertPasskey, passkeyByCredential, passkeysOf, usePasskey, type PasskeyRow } from '../queries/passkeys.js';
import { audit, type AuditContext } from './audit.js';
import { endOtherSessions } from './sessions.js';
import { assertUsable, finish, openSession, recordDevice, type DeviceInput, type SignInResult } from './sign-in-common.js';

export const MAX_PASSKEYS = 10;

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

const stored = (r: PasskeyRow): StoredPasskey => ({ credentialId: r.credential_id, publicKey: new Uint8Array(r.public_key), counter: Number(r.counter), transports: r.transports });

const invalid = (message = 'The passkey could not be verified; start again') => fail('invalid_passkey', message);

function relyingParty(ctx: AuthContext) {
  const rp = ctx.config.webauthn;
  if (!rp.rpId || !rp.origins.length) throw fail('passkeys_unavailable', 'Passkeys are not set up on this platform');
  return rp;
}

/** The ceremonies' challenges (kit webauthn.ts): the shared state store, any node finishes what another started. */
const challenges = (ctx: AuthContext) => webauthnChallenges(ctx.state, 'auth:webauthn:');

export async function listPasskeys(ctx: AuthContext, accountId: string): Promise<{ passkeys: PasskeyView[] }> {
  return { passkeys: (await passkeysOf(ctx.db, accountId)).map(viewOf) };
}

/** The options of `navigator.credentials.create()` for a new passkey of this account. */
export async function registrationOptions(ctx: AuthContext, accountId: string, sessionId: string | undefined): Promise<{ public_key: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const account = await accountById(ctx.db, accountId);
  if (!account || account.status !== 'active') throw fail('invalid_token', 'The account is not active');
  // Read from the account, not the token: one upgraded a moment ago is not a guest any more.
  if (account.is_guest) throw fail('guest_restricted', 'Guest accounts cannot add passkeys; link an email address or a platform first', guestRestrictionDetails('passkeys'));
  const existing = await passkeysOf(ctx.db, accountId);
  if (existing.length >= MAX_PASSKEYS) throw fail('passkey_limit', `An account may have ${MAX_PASSKEYS} passkeys; remove one first`);
  // Checked when the ceremony starts: its challenge lives minutes, and only this account may spend it.
  await assertRecentSignIn(ctx, accountId, sessionId);
  const options = await passkeyRegistrationOptions(rp, { handle: passkeyUserHandle(accountId), name: account.display_name || accountId, displayName: account.display_name || '' }, existing.map(stored));
  await challenges(ctx).keep(options.challenge, 'register', accountId);
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
  const spent = await challenges(ctx).spend(input.credential.response.clientDataJSON);
  if (!spent || spent.purpose !== 'register' || spent.subject !== accountId) throw invalid('The registration expired, was used already or is not this account’s; start again');
  const verified = await verifyPasskeyRegistration(rp, input.credential, spent.challenge);
  if (!verified.ok) throw invalid(`The authenticator’s answer was refused: ${verified.reason}`);
  const info = verified.passkey;
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
        credentialId: info.credentialId,
        publicKey: info.publicKey,
        counter: info.counter,
        transports: info.transports,
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
  await assertRecentSignIn(ctx, accountId, currentSid);
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
  const allow = accountId ? (await passkeysOf(ctx.db, accountId)).map(stored) : undefined;
  const options = await passkeyAssertionOptions(rp, allow);
  await challenges(ctx).keep(options.challenge, purpose, accountId);
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
  const spent = await challenges(ctx).spend(credential.response.clientDataJSON);
  if (!spent || spent.purpose !== purpose || spent.subject !== expectedAccount) throw invalid('The sign-in expired or was used already; start again');
  const row = await passkeyByCredential(ctx.db, credential.id);
  if (!row || (expectedAccount && row.account_id !== expectedAccount) || !userHandleMatches(credential, row.account_id)) {
    await audit(ctx.db, who, 'login', expectedAccount, { method: 'passkey', outcome: 'failure', reason: 'unknown_passkey' });
    throw invalid('This passkey is not registered here');
  }
  const verified = await verifyPasskeyAssertion(rp, credential, spent.challenge, stored(row));
  if (!verified.ok) {
    // A counter that went backwards: a cloned authenticator, its own audit event (docs/auth.md, "Passkeys").
    const cloned = verified.reason === 'counter';
    await audit(ctx.db, who, cloned ? 'passkey_rejected' : 'login', row.account_id, { method: 'passkey', outcome: 'failure', reason: verified.reason, passkey_id: row.id });
    throw invalid('The passkey’s answer was refused');
  }
  await usePasskey(ctx.db, row.id, verified.newCounter);
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
