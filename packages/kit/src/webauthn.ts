/**
 * Passkeys (WebAuthn) for any service (auth's players, the registry's developers; decisions 0025, 0028): the
 * ceremonies through the maintained `@simplewebauthn/server`, the single-use challenges in the shared state store,
 * the relying-party settings. A service keeps the credentials in its own table and answers its own errors: these
 * functions answer results, never a service's error.
 *
 * - Every ceremony starts with options whose challenge is kept in the state store (any node may finish it) for five
 *   minutes, bound to its purpose and subject, and is spent by the first answer that names it, right or wrong:
 *   `setIfAbsent` on a spent marker decides the one winner across nodes.
 * - User verification is required (a PIN or biometric on the authenticator): a passkey is possession and a second
 *   factor in one.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { StateStore } from './state/index.js';

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * 60_000;

/** Where passkeys are bound: an rpId of '' means passkeys are off (no domain to bind them to). */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: string[];
}

/** A stored passkey, as the ceremonies need it. */
export interface StoredPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
}

/** What a verified registration stores. */
export interface NewPasskey extends StoredPasskey {}

/** The spent challenge of an answer: the purpose and subject its options were made for. */
export interface SpentChallenge {
  challenge: string;
  purpose: string;
  subject: string | null;
}

const isDomain = (h: string) => /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(h) && !/^[0-9.]+$/.test(h);

/**
 * The relying party from a service's settings: the named rp id, or the host of `baseUrl` when it is a domain (an IP
 * address has none: passkeys off); the named origins, or `baseUrl`'s origin. Problems are pushed with the
 * setting's name (`names.rpId`, `names.origins`).
 */
export function relyingPartyOf(
  input: { rpId?: string; rpName: string; origins: string[]; baseUrl?: string },
  names: { rpId: string; origins: string[] | string },
  problems: string[],
): RelyingParty {
  const originsName = Array.isArray(names.origins) ? names.origins.join('/') : names.origins;
  let base: URL | undefined;
  try {
    base = input.baseUrl ? new URL(input.baseUrl) : undefined;
  } catch {
    /* not a URL (auth's issuer need not be one): then the settings must be given */
  }
  const named = input.rpId?.toLowerCase();
  if (named !== undefined && !isDomain(named)) problems.push(`${names.rpId}: ${JSON.stringify(named)} is not a domain name (an IP address cannot be one)`);
  const derived = base && isDomain(base.hostname.toLowerCase()) ? base.hostname.toLowerCase() : '';
  const rpId = named ?? derived;
  if (!rpId) return { rpId: '', rpName: input.rpName, origins: [] };
  const origins: string[] = [];
  for (const o of input.origins.length ? input.origins : base ? [base.origin] : []) {
    let u: URL | undefined;
    try {
      u = new URL(o);
    } catch {
      /* reported below */
    }
    if (!u || !['http:', 'https:'].includes(u.protocol) || u.origin !== o.replace(/\/+$/, '')) problems.push(`${originsName}: ${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
    else if (u.hostname !== rpId && !u.hostname.endsWith(`.${rpId}`)) problems.push(`${originsName}: ${o} is not on the relying party ${rpId} (${names.rpId})`);
    else origins.push(u.origin);
  }
  return { rpId, rpName: input.rpName, origins };
}

/** The WebAuthn user handle of a uuid subject: its 16 bytes (no personal data; a discoverable assertion names it). */
export const passkeyUserHandle = (uuid: string): Buffer => Buffer.from(uuid.replace(/-/g, ''), 'hex');

/** The challenges of one service's ceremonies in the shared state store, under `prefix` (e.g. `auth:webauthn:`). */
export function webauthnChallenges(state: StateStore, prefix: string) {
  const challengeKey = `${prefix}challenge:`;
  const spentKey = `${prefix}spent:`;
  return {
    async keep(challenge: string, purpose: string, subject: string | null): Promise<void> {
      await state.set(challengeKey + challenge, JSON.stringify({ p: purpose, a: subject }), WEBAUTHN_CHALLENGE_TTL_MS);
    },
    /**
     * Spends the challenge the client data names: its purpose and subject as kept, or undefined when unknown,
     * expired, spent already or malformed. The first answer to name a challenge spends it, whether it verifies or not.
     */
    async spend(clientDataJSON: string): Promise<SpentChallenge | undefined> {
      let challenge: unknown;
      try {
        challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
      } catch {
        return undefined;
      }
      if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) return undefined;
      if (!(await state.setIfAbsent(spentKey + challenge, '1', WEBAUTHN_CHALLENGE_TTL_MS))) return undefined;
      const kept = await state.get(challengeKey + challenge);
      if (!kept) return undefined;
      await state.del(challengeKey + challenge);
      const { p, a } = JSON.parse(kept) as { p: string; a: string | null };
      return { challenge, purpose: p, subject: a };
    },
  };
}

export type WebauthnChallenges = ReturnType<typeof webauthnChallenges>;

const descriptors = (list: StoredPasskey[]) => list.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransportFuture[] }));

/** The options of `navigator.credentials.create()` (discoverable, user-verified, no attestation). */
export async function passkeyRegistrationOptions(
  rp: RelyingParty,
  user: { handle: Uint8Array; name: string; displayName: string },
  existing: StoredPasskey[],
): Promise<Record<string, unknown> & { challenge: string }> {
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userID: new Uint8Array(user.handle),
    userName: user.name,
    userDisplayName: user.displayName,
    timeout: WEBAUTHN_CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: descriptors(existing),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { ...options };
}

/** Options for `navigator.credentials.get()`: discoverable (`allow` undefined: no account named), or these passkeys'. */
export async function passkeyAssertionOptions(rp: RelyingParty, allow?: StoredPasskey[]): Promise<Record<string, unknown> & { challenge: string }> {
  const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'required', timeout: WEBAUTHN_CHALLENGE_TTL_MS, ...(allow ? { allowCredentials: descriptors(allow) } : {}) });
  return { ...options };
}

/**
 * Verifies a new credential's attestation against the spent challenge: the passkey to store, or the reason it was
 * refused (the library's message, bounded).
 */
export async function verifyPasskeyRegistration(rp: RelyingParty, credential: RegistrationResponseJSON, challenge: string): Promise<{ ok: true; passkey: NewPasskey } | { ok: false; reason: string }> {
  try {
    const v = await verifyRegistrationResponse({ response: credential, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: true });
    // The id the client names is the one the authenticator signed into its data, or the answer is not one piece.
    if (!v.verified || v.registrationInfo.credential.id !== credential.id || credential.rawId !== credential.id) return { ok: false, reason: 'the credential does not match its attestation' };
    const c = v.registrationInfo.credential;
    return { ok: true, passkey: { credentialId: c.id, publicKey: c.publicKey, counter: c.counter, transports: c.transports ?? credential.response.transports ?? [] } };
  } catch (err) {
    return { ok: false, reason: (err as Error).message.slice(0, 250) };
  }
}

/**
 * Verifies an assertion by a stored passkey against the spent challenge: signature, origin, relying party, user
 * verification and a counter that moved forward (`counter`: it went backwards, a cloned authenticator).
 */
export async function verifyPasskeyAssertion(
  rp: RelyingParty,
  credential: AuthenticationResponseJSON,
  challenge: string,
  stored: StoredPasskey,
): Promise<{ ok: true; newCounter: number } | { ok: false; reason: 'counter' | 'bad_assertion' }> {
  try {
    const v = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      credential: { id: stored.credentialId, publicKey: new Uint8Array(stored.publicKey), counter: stored.counter, transports: stored.transports as AuthenticatorTransportFuture[] },
    });
    return v.verified ? { ok: true, newCounter: v.authenticationInfo.newCounter } : { ok: false, reason: 'bad_assertion' };
  } catch (err) {
    return { ok: false, reason: /counter/i.test((err as Error).message) ? 'counter' : 'bad_assertion' };
  }
}

/** Whether an assertion's user handle (when it names one) is this subject's. */
export const userHandleMatches = (credential: AuthenticationResponseJSON, subject: string): boolean =>
  !credential.response.userHandle || credential.response.userHandle === passkeyUserHandle(subject).toString('base64url');
