/**
 * The appeal token of a banned sign-in (docs/auth.md, "Appeals"): "this account may appeal this ban until then", a
 * sealed token (kit sealed-token.ts). A banned player has no session; the 403 account_banned of a sign-in after a
 * correct credential carries it, and `POST /appeals` takes it instead of an access token.
 */
import { openToken, sealToken } from '@platform/kit';
import { fail } from '../errors.js';

/** How long the token is good for. */
const APPEAL_TOKEN_TTL_MS = 24 * 3600_000;
const KIND = 'auth:appeal-token:v1';

export const appealToken = (masterKey: Buffer | undefined, accountId: string, sanctionId: string): string =>
  sealToken(masterKey, KIND, { a: accountId, s: sanctionId }, APPEAL_TOKEN_TTL_MS);

/** What the token states; 401 invalid_appeal_token for anything this service did not give, or expired. */
export function readAppealToken(masterKey: Buffer | undefined, token: string): { accountId: string; sanctionId: string } {
  const claims = openToken(masterKey, KIND, token, ['a', 's']);
  if (!claims) throw fail('invalid_appeal_token', 'The appeal token is not valid (sign in again to get a new one)');
  return { accountId: claims.a!, sanctionId: claims.s! };
}
