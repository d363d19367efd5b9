/**
 * A developer's passkeys (docs/registry.md, "Passkeys"; decision 0028): WebAuthn credentials through the kit's
 * ceremonies (kit webauthn.ts, the same as auth's player passkeys), a sign-in method of their own (the console's
 * "Sign in with a passkey") and a second factor after the password.
 *
 * - Challenges: five minutes in the shared state store (any node finishes what another started), bound to their
 *   purpose and developer, spent by the first answer that names them, right or wrong.
 * - User verification is required, so a passkey sign-in needs no other step, and a passkey counts as the second
 *   factor REGISTRY_SECOND_FACTOR_ROLES asks for.
 * - At most MAX_PASSKEYS; adding or removing one moves the developer's token generation (every other token stops
 *   working, the caller gets a fresh one) and is logged like the TOTP changes (the registry has no audit table).
 * - A counter that goes backwards (a cloned authenticator) is refused and logged as a warning.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
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
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import { assertRecentSignIn, type Caller } from './auth.js';
import { developerQueries, type DeveloperRow } from '../queries/developers.js';
import { passkeyQueries, type DeveloperPasskeyRow } from '../queries/passkeys.js';
import { secondFactorQueries } from '../queries/second-factors.js';

export const MAX_PASSKEYS = 10;

/** The developer making the change, and when they signed in (the replacement token keeps that time). */
type SignedIn = Pick<Caller, 'id' | 'signedInAt'>;

type Log = Pick<FastifyBaseLogger, 'info' | 'warn'>;

export interface PasskeyView {
  Id: string;
  Name: string;
  Transports: string[];
  CreatedAt: string;
  LastUsedAt: string | null;
}

const viewOf = (r: DeveloperPasskeyRow): PasskeyView => ({
  Id: r.id,
  Name: r.name,
  Transports: r.transports,
  CreatedAt: new Date(r.created_at).toISOString(),
  LastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
});

const stored = (r: DeveloperPasskeyRow): StoredPasskey => ({ credentialId: r.credential_id, publicKey: new Uint8Array(r.public_key), counter: Number(r.counter), transports: r.transports });
const invalid = (message = 'The passkey could not be verified; start again') => fail('invalid_passkey', message);
const limitReached = () => fail('passkey_limit', `A developer may have ${MAX_PASSKEYS} passkeys; remove one first`);
const challenges = (ctx: Context) => webauthnChallenges(ctx.state, 'registry:webauthn:');

function relyingParty(ctx: Context) {
  const rp = ctx.config.webauthn;
  if (!rp.rpId || !rp.origins.length) throw fail('passkeys_unavailable', 'Passkeys are not set up on this registry');
  return rp;
}

/** A token under the developer's new generation (the others stopped working). */
async function freshToken(ctx: Context, developer: SignedIn, generation: number): Promise<string> {
  const d = (await developerQueries(ctx.db).byId(developer.id))!;
  return ctx.tokens.issue({ developerId: d.id, role: d.role, generation, authTime: developer.signedInAt });
}

export async function listPasskeys(ctx: Context, developerId: string): Promise<{ Passkeys: PasskeyView[] }> {
  return { Passkeys: (await passkeyQueries(ctx.db).of(developerId)).map(viewOf) };
}

/** The options of `navigator.credentials.create()` for a new passkey of this developer. */
export async function registrationOptions(ctx: Context, developer: SignedIn & { email: string }): Promise<{ PublicKey: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const existing = await passkeyQueries(ctx.db).of(developer.id);
  if (existing.length >= MAX_PASSKEYS) throw limitReached();
  // Checked when the ceremony starts: its challenge lives minutes, and only this developer may spend it.
  assertRecentSignIn(ctx, developer);
  const d = await developerQueries(ctx.db).byId(developer.id);
  const options = await passkeyRegistrationOptions(rp, { handle: passkeyUserHandle(developer.id), name: developer.email, displayName: d?.display_name ?? '' }, existing.map(stored));
  await challenges(ctx).keep(options.challenge, 'register', developer.id);
  return { PublicKey: options };
}

/** Verifies the authenticator's attestation and stores the passkey; every other token ends; logged. */
export async function registerPasskey(ctx: Context, developer: SignedIn, input: { credential: RegistrationResponseJSON; name?: string }, log: Log): Promise<{ Passkey: PasskeyView; Token: string }> {
  const developerId = developer.id;
  const rp = relyingParty(ctx);
  const spent = await challenges(ctx).spend(input.credential.response.clientDataJSON);
  if (!spent || spent.purpose !== 'register' || spent.subject !== developerId) throw invalid('The registration expired, was used already or is not this developer’s; start again');
  const verified = await verifyPasskeyRegistration(rp, input.credential, spent.challenge);
  if (!verified.ok) throw invalid(`The authenticator’s answer was refused: ${verified.reason}`);
  const p = verified.passkey;
  let result: { row: DeveloperPasskeyRow; generation: number };
  try {
    result = await ctx.db.transaction(async (tx) => {
      const q = passkeyQueries(tx);
      await q.lockDeveloper(developerId);
      if ((await q.count(developerId)) >= MAX_PASSKEYS) throw limitReached();
      const row = await q.insert({ id: randomUUID(), developerId, credentialId: p.credentialId, publicKey: p.publicKey, counter: p.counter, transports: p.transports, name: input.name?.trim() || 'Passkey' });
      return { row, generation: await secondFactorQueries(tx).bumpTokenGeneration(developerId) };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'developer_passkeys_credential_id')) throw fail('passkey_exists', 'This authenticator’s passkey is registered already');
    throw err;
  }
  log.info({ developerId, event: 'factor_added', factor: 'passkey', passkeyId: result.row.id }, 'developer passkey added');
  return { Passkey: viewOf(result.row), Token: await freshToken(ctx, developer, result.generation) };
}

/** Removes one of the developer's passkeys (others' ids and any non-id: 404); every other token ends; logged. */
export async function removePasskey(ctx: Context, developer: SignedIn, id: string, log: Log): Promise<{ Token: string }> {
  assertRecentSignIn(ctx, developer);
  const developerId = developer.id;
  const generation = await ctx.db.transaction(async (tx) => {
    if (!(await passkeyQueries(tx).remove(developerId, id))) return undefined;
    return secondFactorQueries(tx).bumpTokenGeneration(developerId);
  });
  if (generation === undefined) throw fail('passkey_not_found', 'The developer has no passkey with this id');
  log.info({ developerId, event: 'factor_removed', factor: 'passkey', passkeyId: id }, 'developer passkey removed');
  return { Token: await freshToken(ctx, developer, generation) };
}

/** Options for `navigator.credentials.get()`: discoverable (no developer named, none revealed), or the developer's own for a second step. */
export async function assertionOptions(ctx: Context, purpose: 'login' | 'mfa', developerId: string | null): Promise<{ PublicKey: Record<string, unknown> }> {
  const rp = relyingParty(ctx);
  const allow = developerId ? (await passkeyQueries(ctx.db).of(developerId)).map(stored) : undefined;
  const options = await passkeyAssertionOptions(rp, allow);
  await challenges(ctx).keep(options.challenge, purpose, developerId);
  return { PublicKey: options };
}

/**
 * Verifies an assertion against the stored passkey: the spent challenge of this purpose (and developer), a known
 * credential whose user handle is its developer, the signature, origin, relying party, user verification and a
 * counter that moved forward. Returns the passkey's developer; invalid_passkey otherwise (logged).
 */
export async function verifyAssertion(ctx: Context, purpose: 'login' | 'mfa', expected: string | null, credential: AuthenticationResponseJSON, log: Log): Promise<string> {
  const rp = relyingParty(ctx);
  const spent = await challenges(ctx).spend(credential.response.clientDataJSON);
  if (!spent || spent.purpose !== purpose || spent.subject !== expected) throw invalid('The sign-in expired or was used already; start again');
  const q = passkeyQueries(ctx.db);
  const row = await q.byCredential(credential.id);
  if (!row || (expected && row.developer_id !== expected) || !userHandleMatches(credential, row.developer_id)) {
    log.info({ developerId: expected, event: 'login_failed', factor: 'passkey', reason: 'unknown_passkey' }, 'developer passkey not known');
    throw invalid('This passkey is not registered here');
  }
  const verified = await verifyPasskeyAssertion(rp, credential, spent.challenge, stored(row));
  if (!verified.ok) {
    // A counter that went backwards: a cloned authenticator, worth a warning of its own.
    const level = verified.reason === 'counter' ? 'warn' : 'info';
    log[level]({ developerId: row.developer_id, event: 'login_failed', factor: 'passkey', reason: verified.reason, passkeyId: row.id }, 'developer passkey refused');
    throw invalid('The passkey’s answer was refused');
  }
  await q.use(row.id, verified.newCounter);
  return row.developer_id;
}

/** A sign-in with a passkey alone (user-verified: no second step). */
export async function passkeySignIn(ctx: Context, credential: AuthenticationResponseJSON, log: Log): Promise<DeveloperRow> {
  const developerId = await verifyAssertion(ctx, 'login', null, credential, log);
  const d = await developerQueries(ctx.db).byId(developerId);
  if (!d) throw invalid('This passkey is not registered here');
  return d;
}
