/**
 * PASETO v4.public verification written directly on node:crypto.
 *
 * Why by hand: the `paseto` library verifies through WebCrypto (an async job
 * on the thread pool plus key and buffer conversions); measured in
 * bench/load/verify.ts it reached ~65–80% of a raw node:crypto Ed25519 verify
 * with a cached KeyObject, against the goal of ≥ 90% (docs/benchmarks.md).
 * This path does what the specification requires and nothing else:
 * header check, base64url decoding, PAE(h, m, f, i), one synchronous Ed25519
 * verify with the caller's KeyObject, then claim checks (JSON object; iss, aud
 * equal; exp, iat, nbf RFC 3339 strings in range; required claims present).
 * Signing is the mirror image (PAE, one synchronous Ed25519 sign): the
 * library signed through WebCrypto as well, an async thread-pool job per
 * token that cost the refresh path about 100 µs and two thread wake-ups per
 * request (bench/ refresh figure, docs/benchmarks.md).
 * Both directions are tested against the official v4 vectors
 * (../shared/vectors: the 4-S tokens are reproduced byte for byte), and the
 * tokens are checked by the `paseto` library as an independent verifier.
 */
import { sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';

const HEADER = 'v4.public.';
const HEADER_BYTES = Buffer.from(HEADER);
const B64URL = /^[A-Za-z0-9_-]*$/;

/** Pre-Authentication Encoding of the PASETO specification, written into one buffer. */
export function pae(...pieces: Buffer[]): Buffer {
  let size = 8;
  for (const p of pieces) size += 8 + p.length;
  const out = Buffer.allocUnsafe(size);
  // LE64 with the top bit clear; lengths here are far below 2^53.
  const le64 = (n: number, at: number) => {
    out.writeUInt32LE(n % 0x1_0000_0000, at);
    out.writeUInt32LE(Math.floor(n / 0x1_0000_0000) & 0x7fffffff, at + 4);
  };
  le64(pieces.length, 0);
  let at = 8;
  for (const p of pieces) {
    le64(p.length, at);
    p.copy(out, at + 8);
    at += 8 + p.length;
  }
  return out;
}

function b64u(s: string, what: string): Buffer {
  if (!B64URL.test(s)) throw new Error(`${what} is not base64url`);
  return Buffer.from(s, 'base64url');
}

/** Signs `message` (the claims' JSON bytes) as a v4.public token, with an optional footer and implicit assertion. */
export function signPasetoV4Public(message: Buffer, key: KeyObject, footer: Buffer = Buffer.alloc(0), implicit: Buffer = Buffer.alloc(0)): string {
  const signature = edSign(null, pae(HEADER_BYTES, message, footer, implicit), key);
  const body = Buffer.concat([message, signature]).toString('base64url');
  return footer.length ? `${HEADER}${body}.${footer.toString('base64url')}` : HEADER + body;
}

/** Verifies the signature; returns the raw message and footer. Throws on any defect. */
export function verifyPasetoV4Public(token: string, key: KeyObject, implicit: Buffer = Buffer.alloc(0)): { message: Buffer; footer: Buffer } {
  if (typeof token !== 'string' || !token.startsWith(HEADER)) throw new Error('not a v4.public token');
  const parts = token.split('.');
  if (parts.length !== 3 && parts.length !== 4) throw new Error('malformed token');
  const body = b64u(parts[2], 'payload');
  if (body.length < 64) throw new Error('payload too short');
  const footer = parts.length === 4 ? b64u(parts[3], 'footer') : Buffer.alloc(0);
  const message = body.subarray(0, body.length - 64);
  const signature = body.subarray(body.length - 64);
  if (!edVerify(null, pae(HEADER_BYTES, message, footer, implicit), key, signature)) throw new Error('invalid signature');
  return { message, footer };
}

export interface PasetoClaimOptions {
  issuer: string;
  audience: string;
  /** Seconds. */
  clockTolerance: number;
  requiredClaims: string[];
  /** Unix milliseconds; Date.now() when absent. */
  now?: number;
}

function time(payload: Record<string, unknown>, name: string): number | undefined {
  const v = payload[name];
  if (v === undefined) return undefined;
  // PASETO registered time claims are RFC 3339 strings (with an explicit offset).
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v)) throw new Error(`claim ${name} is not an RFC 3339 time`);
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new Error(`claim ${name} is not a valid time`);
  return t;
}

/** Verifies a v4.public token and its registered claims; returns the claims object. */
export function verifyPasetoV4Claims(token: string, key: KeyObject, opts: PasetoClaimOptions): Record<string, unknown> {
  const { message } = verifyPasetoV4Public(token, key);
  let payload: unknown;
  try {
    payload = JSON.parse(message.toString('utf8'));
  } catch {
    throw new Error('payload is not JSON');
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('payload is not a JSON object');
  const p = payload as Record<string, unknown>;
  for (const c of opts.requiredClaims) if (p[c] === undefined) throw new Error(`claim ${c} is missing`);
  if (p.iss !== opts.issuer) throw new Error('unexpected iss');
  if (p.aud !== opts.audience) throw new Error('unexpected aud');
  const now = opts.now ?? Date.now();
  const tol = opts.clockTolerance * 1000;
  const exp = time(p, 'exp');
  const iat = time(p, 'iat');
  const nbf = time(p, 'nbf');
  if (exp !== undefined && exp + tol <= now) throw new Error('token expired');
  if (iat !== undefined && iat - tol > now) throw new Error('token issued in the future');
  if (nbf !== undefined && nbf - tol > now) throw new Error('token not active yet');
  return p;
}
