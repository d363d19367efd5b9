/**
 * Short-lived statements a service hands to a client and reads back (auth's appeal token of a banned sign-in, the
 * mfa token of a sign-in waiting for its second factor in auth and the registry): string claims and an expiry,
 * encrypted and authenticated with AES-256-GCM under the service's master key (encryptSecret), each kind under
 * associated data of its own so no other envelope of the key reads as one. Nothing is stored for them.
 */
import { decryptSecret, encryptSecret } from './crypto.js';

function keyOf(masterKey: Buffer | undefined): Buffer {
  if (!masterKey) throw new Error('sealed tokens need a master key');
  return masterKey;
}

export function sealToken(masterKey: Buffer | undefined, kind: string, claims: Record<string, string>, ttlMs: number): string {
  return Buffer.from(encryptSecret(keyOf(masterKey), JSON.stringify({ ...claims, exp: Date.now() + ttlMs }), kind)).toString('base64url');
}

/** The claims of a token of this kind, or undefined for anything not sealed here as one, or expired. */
export function openToken(masterKey: Buffer | undefined, kind: string, token: string, names: readonly string[]): Record<string, string> | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(decryptSecret(keyOf(masterKey), Buffer.from(token, 'base64url').toString(), kind).toString()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof parsed.exp !== 'number' || parsed.exp < Date.now()) return undefined;
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = parsed[n];
    if (typeof v !== 'string') return undefined;
    out[n] = v;
  }
  return out;
}
