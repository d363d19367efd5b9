/**
 * Developer tokens: EdDSA (Ed25519) JWTs. The signing key is made on the
 * first start, stored encrypted with the master key, and shared by every node
 * through the database.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { decryptSecret, encryptSecret, type Queryable } from '@platform/kit';
import { signingKeyQueries } from '../queries/signing-keys.js';
import type { Role } from '../queries/developers.js';
import { fail } from '../errors.js';

export const TOKEN_ISSUER = 'platform-registry';
export const TOKEN_AUDIENCE = 'platform-registry';
const PURPOSE = 'developer-token';

export type { Role };

export interface TokenClaims {
  developerId: string;
  role: Role;
  /** The developer's token generation at issue (claim `gen`; 0 when absent): an older one than the account's is refused. */
  generation: number;
  /**
   * When the developer signed in, epoch seconds (claim `auth_time`, OpenID Connect's name; a token without it: its
   * `iat`). A token issued in place of another after a factor change keeps the sign-in's time.
   */
  authTime?: number;
}

export interface TokenService {
  issue(claims: TokenClaims): Promise<string>;
  /** Verifies signature, issuer, audience and expiry; throws 401 unauthorized. */
  verify(token: string): Promise<TokenClaims & { authTime: number }>;
  /** Now in epoch seconds, by the clock tokens are issued and checked with. */
  now(): number;
}

export async function loadSigningKey(db: Queryable, masterKey: Buffer): Promise<{ kid: string; privateKey: KeyObject; publicKey: KeyObject }> {
  const q = signingKeyQueries(db);
  let row = await q.oldest(PURPOSE);
  if (!row) {
    const kid = randomUUID();
    const pair = generateKeyPairSync('ed25519');
    const pkcs8 = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
    await q.insertIfAbsent({
      purpose: PURPOSE,
      kid,
      public_key: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      private_key_enc: encryptSecret(masterKey, pkcs8, kid),
    });
    row = (await q.oldest(PURPOSE))!;
  }
  let der: Buffer;
  try {
    der = decryptSecret(masterKey, row.private_key_enc, row.kid);
  } catch {
    throw new Error('REGISTRY_MASTER_KEY does not decrypt the stored token-signing key (was the master key changed?)');
  }
  return {
    kid: row.kid,
    privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: Buffer.from(row.public_key, 'base64'), format: 'der', type: 'spki' }),
  };
}

export function tokenService(
  key: { kid: string; privateKey: KeyObject; publicKey: KeyObject },
  opts: { ttlSeconds: number; clock: () => number },
): TokenService {
  const invalid = () => fail('unauthorized', 'A valid developer bearer token is required');
  return {
    now: () => Math.floor(opts.clock() / 1000),
    async issue({ developerId, role, generation, authTime }) {
      const now = Math.floor(opts.clock() / 1000);
      return new SignJWT({ role, gen: generation, auth_time: authTime ?? now })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject(developerId)
        .setIssuedAt(now)
        .setExpirationTime(now + opts.ttlSeconds)
        .setJti(randomUUID())
        .sign(key.privateKey);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key.publicKey, {
          issuer: TOKEN_ISSUER,
          audience: TOKEN_AUDIENCE,
          algorithms: ['EdDSA'],
          currentDate: new Date(opts.clock()),
          requiredClaims: ['sub', 'exp'],
        });
        const role = payload.role;
        const gen = payload.gen ?? 0;
        const authTime = payload.auth_time ?? payload.iat ?? 0;
        if (typeof payload.sub !== 'string' || (role !== 'super-admin' && role !== 'developer') || !Number.isSafeInteger(gen) || !Number.isSafeInteger(authTime)) throw invalid();
        return { developerId: payload.sub, role, generation: gen as number, authTime: authTime as number };
      } catch {
        throw invalid();
      }
    },
  };
}
