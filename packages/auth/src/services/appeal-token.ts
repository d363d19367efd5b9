/**
 * The appeal token of a banned sign-in (docs/auth.md, "Appeals"): "this account may appeal this ban until then",
 * encrypted and authenticated under AUTH_MASTER_KEY (AES-GCM, kit encryptSecret, with its own associated data so
 * no other envelope of the key is accepted as one). A banned player has no session; the 403 account_banned of a
 * sign-in after a correct credential carries it, and `POST /appeals` takes it instead of an access token.
 */
import { decryptSecret, encryptSecret } from '@platform/kit';
import { fail } from '../errors.js';

/** How long the token is good for. */
const APPEAL_TOKEN_TTL_MS = 24 * 3600_000;
const TOKEN_AAD = 'auth:appeal-token:v1';

/** The key (config.masterKey: buildApp refuses to start without one). */
function keyOf(masterKey: Buffer | undefined): Buffer {
  if (!masterKey) throw new Error('appeal tokens need AUTH_MASTER_KEY');
  return masterKey;
}

export function appealToken(masterKey: Buffer | undefined, accountId: string, sanctionId: string): string {
  const body = JSON.stringify({ a: accountId, s: sanctionId, e: Date.now() + APPEAL_TOKEN_TTL_MS });
  return Buffer.from(encryptSecret(keyOf(masterKey), body, TOKEN_AAD)).toString('base64url');
}

/** What the token states; 401 invalid_appeal_token for anything this service did not give, or expired. */
export function readAppealToken(masterKey: Buffer | undefined, token: string): { accountId: string; sanctionId: string } {
  const refused = () => fail('invalid_appeal_token', 'The appeal token is not valid (sign in again to get a new one)');
  let parsed: { a?: unknown; s?: unknown; e?: unknown };
  try {
    parsed = JSON.parse(decryptSecret(keyOf(masterKey), Buffer.from(token, 'base64url').toString(), TOKEN_AAD).toString()) as typeof parsed;
  } catch {
    throw refused();
  }
  if (typeof parsed.a !== 'string' || typeof parsed.s !== 'string' || typeof parsed.e !== 'number' || parsed.e < Date.now()) throw refused();
  return { accountId: parsed.a, sanctionId: parsed.s };
}
