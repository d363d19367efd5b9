/**
 * Passkeys (WebAuthn) for the SDK: the ceremony the service's options ask for, run by the browser's
 * `navigator.credentials` or by a function the game injects (a native client, a test's software authenticator).
 * The options and answers are WebAuthn's JSON form (base64url for every byte string), what the service speaks.
 */
import { PlatformError } from './errors.js';

/** The options of a ceremony as the service sends them (WebAuthn's JSON form). */
export type PasskeyOptionsJSON = Record<string, unknown> & { challenge: string };

/** What `PublicKeyCredential.toJSON()` gives for a new passkey or an assertion: sent to the service as it is. */
export type PasskeyCredentialJSON = {
  id: string;
  rawId: string;
  type: 'public-key';
  authenticatorAttachment?: 'platform' | 'cross-platform';
  clientExtensionResults: Record<string, unknown>;
  response: Record<string, unknown> & { clientDataJSON: string };
};

/**
 * Runs WebAuthn ceremonies: `create` for a new passkey (`navigator.credentials.create`), `get` for an assertion
 * (`navigator.credentials.get`). In a browser the SDK uses {@link browserPasskeys}; elsewhere pass your own.
 */
export interface PasskeyAuthenticator {
  /** Makes a new passkey for the options (`navigator.credentials.create`); answers its `toJSON()`. */
  create(options: PasskeyOptionsJSON): Promise<PasskeyCredentialJSON>;
  /** Signs the options' challenge with a passkey (`navigator.credentials.get`); answers its `toJSON()`. */
  get(options: PasskeyOptionsJSON): Promise<PasskeyCredentialJSON>;
}

const toBytes = (s: string): Uint8Array => {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '='));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
};
const toB64 = (buf: ArrayBuffer | ArrayBufferView): string => {
  const bytes = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

type Descriptor = { id: string; type?: string; transports?: string[] };
const descriptors = (list: unknown) => (list as Descriptor[] | undefined)?.map((d) => ({ ...d, type: 'public-key' as const, id: toBytes(d.id) }));

/** The credential's JSON: the browser's own `toJSON()` when it has one, else the same fields by hand. */
function credentialJSON(cred: PublicKeyCredential): PasskeyCredentialJSON {
  const own = (cred as unknown as { toJSON?: () => PasskeyCredentialJSON }).toJSON;
  if (typeof own === 'function') return own.call(cred);
  const response: PasskeyCredentialJSON['response'] = { clientDataJSON: toB64(cred.response.clientDataJSON) };
  if ('attestationObject' in cred.response) {
    const a = cred.response as AuthenticatorAttestationResponse;
    response.attestationObject = toB64(a.attestationObject);
    if (typeof a.getTransports === 'function') response.transports = a.getTransports();
  } else {
    const r = cred.response as AuthenticatorAssertionResponse;
    response.authenticatorData = toB64(r.authenticatorData);
    response.signature = toB64(r.signature);
    if (r.userHandle) response.userHandle = toB64(r.userHandle);
  }
  return {
    id: cred.id,
    rawId: toB64(cred.rawId),
    type: 'public-key',
    ...(cred.authenticatorAttachment ? { authenticatorAttachment: cred.authenticatorAttachment as 'platform' | 'cross-platform' } : {}),
    clientExtensionResults: cred.getClientExtensionResults() as Record<string, unknown>,
    response,
  };
}

/**
 * The browser's authenticator (`navigator.credentials`), or undefined outside a browser (or one without WebAuthn).
 * A cancelled or refused prompt rejects with the browser's DOMException (`NotAllowedError`).
 */
export function browserPasskeys(): PasskeyAuthenticator | undefined {
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  if (!nav?.credentials || typeof (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential === 'undefined') return undefined;
  return {
    async create(o) {
      const user = o.user as { id: string; name: string; displayName: string };
      const publicKey = {
        ...o,
        challenge: toBytes(o.challenge),
        user: { ...user, id: toBytes(user.id) },
        excludeCredentials: descriptors(o.excludeCredentials),
      } as unknown as PublicKeyCredentialCreationOptions;
      return credentialJSON((await nav.credentials.create({ publicKey })) as PublicKeyCredential);
    },
    async get(o) {
      const publicKey = { ...o, challenge: toBytes(o.challenge), allowCredentials: descriptors(o.allowCredentials) } as unknown as PublicKeyCredentialRequestOptions;
      return credentialJSON((await nav.credentials.get({ publicKey })) as PublicKeyCredential);
    },
  };
}

/** A ceremony that did not finish: the player cancelled or timed out (`passkey_cancelled`), or it failed (`passkey_failed`). */
function ceremonyError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  const name = (err as { name?: string })?.name;
  const cancelled = name === 'NotAllowedError' || name === 'AbortError';
  return new PlatformError({
    source: 'client',
    status: 0,
    code: cancelled ? 'passkey_cancelled' : 'passkey_failed',
    message: cancelled ? 'The passkey prompt was cancelled or timed out' : `The passkey ceremony failed: ${(err as Error)?.message ?? String(err)}`,
    cause: err,
  });
}

/**
 * Runs one ceremony with the injected authenticator, else the browser's: `passkeys_not_supported` when there is
 * neither, `passkey_cancelled` / `passkey_failed` (PlatformError, source `client`) when it does not finish.
 */
export async function runCeremony(given: PasskeyAuthenticator | undefined, kind: 'create' | 'get', options: PasskeyOptionsJSON): Promise<PasskeyCredentialJSON> {
  const a = given ?? browserPasskeys();
  if (!a) throw new PlatformError({ source: 'client', status: 0, code: 'passkeys_not_supported', message: 'No WebAuthn here: pass an authenticator (PasskeyAuthenticator)' });
  try {
    return await a[kind](options);
  } catch (err) {
    throw ceremonyError(err);
  }
}
