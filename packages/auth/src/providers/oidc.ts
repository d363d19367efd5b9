/**
 * ID-token verification (store_b, idp_a, idp_b): a compact JWS signed by a
 * key of the provider's published key set, with issuer, audience and expiry
 * checked. Only asymmetric algorithms are accepted, so a token "signed" with
 * the public key as an HMAC secret, or with `alg: none`, never verifies.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { safeEqual, sha256Hex } from '@platform/kit';
import type { OidcProviderConfig } from './config.js';
import { invalidTicket, MAX_TICKET_CHARS, providerUnavailable } from './errors.js';
import type { PlatformProvider, TicketVerifier } from './types.js';

export const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Seconds of clock skew tolerated on exp, nbf and iat. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * How the request's `nonce` is compared with the token's `nonce` claim:
 * `raw` = equal (OIDC convention, checked only when the request carries one);
 * `sha256` = the claim is the SHA-256 hex of the request's nonce, and both are
 * required (Apple's convention, idp_b).
 */
export type NonceRule = 'raw-if-given' | 'sha256-required';

export interface OidcVerifierOptions {
  /** Key-set fetch timeout. */
  keySetTimeoutMs?: number;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Marks an error raised while fetching the key set (not the token's fault). */
class KeySetUnreachable extends Error {
  constructor(cause: unknown) {
    super('key set unreachable', { cause });
  }
}

/**
 * Wraps jose's remote key set so that failures to fetch it (network error,
 * timeout, non-200, not a key set) are told apart from "no key matches this
 * token", which is the token's fault.
 */
function keySet(url: string, timeoutMs: number): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(url), { timeoutDuration: timeoutMs });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (err) {
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys ||
        err instanceof errors.JOSENotSupported ||
        err instanceof errors.JOSEAlgNotAllowed
      ) {
        throw err;
      }
      throw new KeySetUnreachable(err);
    }
  };
}

function reasonFor(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return `token has no "${err.claim}" claim`;
    switch (err.claim) {
      case 'iss':
        return 'issuer does not match';
      case 'aud':
        return 'audience does not match';
      case 'nbf':
        return 'token is not valid yet';
      case 'iat':
        return 'issued-at time is invalid';
      default:
        return `"${err.claim}" claim is invalid`;
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSMultipleMatchingKeys) {
    return 'signature does not verify';
  }
  if (err instanceof errors.JWKSNoMatchingKey) return "token is not signed by a key of the provider's key set";
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) return 'signing algorithm is not allowed';
  return 'token is malformed';
}

const optionalString = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** Apple sends booleans as "true"/"false" strings in identity tokens. */
function optionalBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

export function createOidcVerifier(
  provider: PlatformProvider,
  config: OidcProviderConfig,
  nonceRule: NonceRule,
  options: OidcVerifierOptions = {},
): TicketVerifier {
  const getKey = keySet(config.jwksUrl, options.keySetTimeoutMs ?? 5000);

  return async (ticket, { nonce }) => {
    const token = ticket.trim();
    if (token.length > MAX_TICKET_CHARS) throw invalidTicket(provider, 'token is too long');
    if (!COMPACT_JWS.test(token)) throw invalidTicket(provider, 'token is malformed (expected a signed JWT)');
    if (nonceRule === 'sha256-required' && !nonce) throw invalidTicket(provider, 'nonce is required');

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: ID_TOKEN_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
      }));
    } catch (err) {
      if (err instanceof KeySetUnreachable) throw providerUnavailable(provider, err.cause);
      throw invalidTicket(provider, reasonFor(err));
    }

    const sub = optionalString(payload.sub);
    if (!sub) throw invalidTicket(provider, 'token has an empty "sub" claim');

    if (nonce !== undefined && nonce !== '') {
      const claim = payload.nonce;
      if (typeof claim !== 'string') throw invalidTicket(provider, 'token has no "nonce" claim');
      const ok = nonceRule === 'sha256-required' ? safeEqual(claim.toLowerCase(), sha256Hex(nonce)) : safeEqual(claim, nonce);
      if (!ok) throw invalidTicket(provider, 'nonce does not match');
    }

    return {
      provider,
      providerUserId: sub,
      email: optionalString(payload.email),
      emailVerified: optionalBool(payload.email_verified),
      displayName: optionalString(payload.name),
    };
  };
}
