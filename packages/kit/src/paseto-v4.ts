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
const EMPTY = Buffer.alloc(0);

/** LE64 with the top bit clear; lengths here are far below 2^53. */
function le64(out: Buffer, n: number, at: number): void {
  out.writeUInt32LE(n % 0x1_0000_0000, at);
  out.writeUInt32LE(Math.floor(n / 0x1_0000_0000) & 0x7fffffff, at + 4);
}

/** Pre-Authentication Encoding of the PASETO specification, written into one buffer. */
export function pae(...pieces: Buffer[]): Buffer {
  let size = 8;
  for (const p of pieces) size += 8 + p.length;
  const out = Buffer.allocUnsafe(size);
  le64(out, pieces.length, 0);
  let at = 8;
  for (const p of pieces) {
    le64(out, p.length, at);
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
export function signPasetoV4Public(message: Buffer, key: KeyObject, footer: Buffer = EMPTY, implicit: Buffer = EMPTY): string {
  const signature = edSign(null, pae(HEADER_BYTES, message, footer, implicit), key);
  const body = Buffer.concat([message, signature]).toString('base64url');
  return footer.length ? `${HEADER}${body}.${footer.toString('base64url')}` : HEADER + body;
}

/** Decoded footers (every token of one key carries the same one; a handful of live keys, so simply emptied). */
const footers = new Map<string, Buffer>();

function decodeFooter(encoded: string): Buffer {
  let f = footers.get(encoded);
  if (f === undefined) {
    f = b64u(encoded, 'footer');
    if (footers.size >= 64) footers.clear();
    footers.set(encoded, f);
  }
  return f;
}

/** Verifies the signature; returns the raw message and footer (the footer is shared between calls: read it, do not modify it). Throws on any defect. */
export function verifyPasetoV4Public(token: string, key: KeyObject, implicit: Buffer = EMPTY): { message: Buffer; footer: Buffer } {
  if (typeof token !== 'string' || !token.startsWith(HEADER)) throw new Error('not a v4.public token');
  // v4.public.<body>[.<footer>]: no split, the token is the hot path of every verifier.
  const dot = token.indexOf('.', HEADER.length);
  if (dot >= 0 && token.indexOf('.', dot + 1) >= 0) throw new Error('malformed token');
  const body = b64u(dot < 0 ? token.slice(HEADER.length) : token.slice(HEADER.length, dot), 'payload');
  if (body.length < 64) throw new Error('payload too short');
  const footer = dot < 0 ? EMPTY : decodeFooter(token.slice(dot + 1));
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

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN;
};
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/**
 * An RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, what PASETO's registered time claims are)
 * as Unix milliseconds, NaN when it is not one or names no real instant. Read by hand: a regex and
 * Date.parse per claim were the larger part of the verifier's own cost (bench/load/verify.ts).
 */
export function parseRfc3339(s: string): number {
  const n = s.length;
  if (n < 20 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return NaN;
  const year = two(s, 0) * 100 + two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  let i = 19;
  let ms = 0;
  if (s[i] === '.') {
    const start = ++i;
    while (i < n && digit(s, i) === digit(s, i)) i++;
    if (i === start) return NaN;
    // Milliseconds from the first three digits (finer digits are dropped, as Date.parse does).
    for (let k = 0; k < 3; k++) ms = ms * 10 + (start + k < i ? digit(s, start + k) : 0);
  }
  let offset = 0;
  if (s[i] === 'Z' && i + 1 === n) offset = 0;
  else if ((s[i] === '+' || s[i] === '-') && i + 6 === n && s[i + 3] === ':') {
    const oh = two(s, i + 1);
    const om = two(s, i + 4);
    if (!(oh <= 23 && om <= 59)) return NaN;
    offset = (s[i] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  } else return NaN;
  if (!(month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) return NaN;
  // Date.UTC reads years 0–99 as 1900–1999: shift by one Gregorian cycle (400 years, 146,097 days) and back.
  const early = year < 100;
  const t = Date.UTC(early ? year + 400 : year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 31 February over into March: a day the month does not have is no instant.
  if (new Date(t).getUTCDate() !== day) return NaN;
  return (early ? t - 146_097 * 86_400_000 : t) - offset;
}

function time(payload: Record<string, unknown>, name: string): number | undefined {
  const v = payload[name];
  if (v === undefined) return undefined;
  const t = typeof v === 'string' ? parseRfc3339(v) : NaN;
  if (Number.isNaN(t)) throw new Error(`claim ${name} is not an RFC 3339 time`);
  return t;
}

/** Verifies a v4.public token and its registered claims; returns the claims object. */
export function verifyPasetoV4Claims(token: string, key: KeyObject, opts: PasetoClaimOptions): Record<string, unknown> {
  return verifyPasetoV4Token(token, key, opts).claims;
}

/** The same, with exp and iat as Unix milliseconds (parsed once; undefined when absent). */
export function verifyPasetoV4Token(
  token: string,
  key: KeyObject,
  opts: PasetoClaimOptions,
): { claims: Record<string, unknown>; exp: number | undefined; iat: number | undefined } {
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
  return { claims: p, exp, iat };
}
