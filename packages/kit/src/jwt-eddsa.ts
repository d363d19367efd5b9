/**
 * EdDSA (Ed25519) JWT verification written directly on node:crypto.
 *
 * Why by hand: `jose`'s jwtVerify measured at ~75% of a raw node:crypto
 * Ed25519 verify with a cached KeyObject (bench/load/verify.ts), against the
 * goal of ≥ 90% (docs/benchmarks.md). Same checks as the jwtVerify options the
 * kit used: compact JWS with a JSON object header, alg EdDSA (or Ed25519), no
 * `crit` extensions (none are understood), signature over `header.payload`,
 * JSON object payload, iss equal, aud equal (or listed), exp/nbf/iat
 * NumericDates with the clock tolerance, required claims present.
 * Signing is by hand too (one synchronous Ed25519 sign over `header.payload`)
 * for the same reason as in paseto-v4.ts; `jose` verifies the result in the
 * tests as an independent implementation.
 */
import { sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';

const B64URL = /^[A-Za-z0-9_-]*$/;

export interface JwtClaimOptions {
  issuer: string;
  audience: string;
  /** Seconds. */
  clockTolerance: number;
  requiredClaims: string[];
  /** Unix milliseconds; Date.now() when absent. */
  now?: number;
}

function jsonObject(part: string, what: string): Record<string, unknown> {
  if (!B64URL.test(part)) throw new Error(`${what} is not base64url`);
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new Error(`${what} is not JSON`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

function numericDate(p: Record<string, unknown>, name: string): number | undefined {
  const v = p[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`claim ${name} is not a NumericDate`);
  return v;
}

/** Encoded protected headers that passed the checks below. */
const acceptedHeaders = new Set<string>();

/** Signs a compact EdDSA JWS of `payload` with the given protected header (alg is set to EdDSA). */
export function signEdDsaJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const h = Buffer.from(JSON.stringify({ ...header, alg: 'EdDSA' })).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signingInput = `${h}.${p}`;
  return `${signingInput}.${edSign(null, Buffer.from(signingInput), key).toString('base64url')}`;
}

/** Verifies an EdDSA JWT and its registered claims; returns the payload. Throws on any defect. */
export function verifyEdDsaJwt(token: string, key: KeyObject, opts: JwtClaimOptions): Record<string, unknown> {
  if (typeof token !== 'string') throw new Error('not a JWT');
  // header.payload.signature, found by indexOf: the token is the hot path of every verifier.
  const d1 = token.indexOf('.');
  const d2 = d1 < 0 ? -1 : token.indexOf('.', d1 + 1);
  if (d2 < 0 || token.indexOf('.', d2 + 1) >= 0) throw new Error('not a compact JWS');
  const h = token.slice(0, d1);
  const p = token.slice(d1 + 1, d2);
  const s = token.slice(d2 + 1);
  // Every token of one key carries the same header: checked once, then remembered (bounded).
  if (!acceptedHeaders.has(h)) {
    const header = jsonObject(h, 'header');
    if (header.alg !== 'EdDSA' && header.alg !== 'Ed25519') throw new Error('alg not allowed');
    if (header.crit !== undefined) throw new Error('unsupported crit header');
    if (header.b64 !== undefined && header.b64 !== true) throw new Error('unencoded payloads are not accepted');
    if (acceptedHeaders.size >= 64) acceptedHeaders.clear();
    acceptedHeaders.add(h);
  }
  if (!B64URL.test(s)) throw new Error('signature is not base64url');
  const signature = Buffer.from(s, 'base64url');
  // The signing input is the token up to the second dot (a slice, not a concatenation).
  if (signature.length !== 64 || !edVerify(null, Buffer.from(token.slice(0, d2)), key, signature)) throw new Error('signature verification failed');
  const payload = jsonObject(p, 'payload');
  for (const c of opts.requiredClaims) if (payload[c] === undefined) throw new Error(`claim ${c} is missing`);
  if (payload.iss !== opts.issuer) throw new Error('unexpected iss');
  const aud = payload.aud;
  if (!(aud === opts.audience || (Array.isArray(aud) && aud.includes(opts.audience)))) throw new Error('unexpected aud');
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  const tol = opts.clockTolerance;
  const exp = numericDate(payload, 'exp');
  const nbf = numericDate(payload, 'nbf');
  numericDate(payload, 'iat');
  if (exp !== undefined && exp <= now - tol) throw new Error('token expired');
  if (nbf !== undefined && nbf > now + tol) throw new Error('token not active yet');
  return payload;
}
