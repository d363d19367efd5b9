/**
 * Access tokens: the platform-wide contract between the auth service (which
 * signs) and every verifier (social, game servers). Ed25519 only.
 *
 * - PASETO v4.public (default): claims as JSON; `iat`/`exp` are ISO 8601
 *   strings, as PASETO's registered claims require; the footer is JSON
 *   `{"kid":"k4.pid.…"}`.
 * - EdDSA JWT (alternative): header `{alg:"EdDSA", typ:"JWT", kid}`;
 *   `iat`/`exp` are NumericDate seconds.
 * - `kid` is the PASERK `k4.pid` of the public key in both formats, and the
 *   `kid` of the key's JWKS entry ({kty:OKP, crv:Ed25519, x, kid, alg:EdDSA, use:sig}).
 * Verifiers resolve the key by kid, check the signature, exp, iat, iss and
 * aud, and read sub, sid, platform, roles, region, jti, and `guest` (true on a guest account's tokens only;
 * absent, as on every token signed before the claim existed, means not a guest).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { blake2b } from '@noble/hashes/blake2.js';
import { decodeProtectedHeader } from 'jose';
import { AppError } from './errors.js';
import { kitError } from './error-codes.js';
import { signPasetoV4Public, verifyPasetoV4Token } from './paseto-v4.js';
import { signEdDsaJwt, verifyEdDsaJwt } from './jwt-eddsa.js';

export type TokenFormat = 'paseto' | 'jwt';

export interface AccessClaims {
  sub: string;
  sid: string;
  platform: string;
  roles: string[];
  region: string;
  iss: string;
  aud: string;
  /** Unix seconds, whatever the format carried. */
  iat: number;
  /**
   * Issued at in Unix milliseconds, at the precision the token carries: the platform's signer writes milliseconds
   * (a PASETO time with a fraction, a JWT NumericDate with decimals); a token with whole seconds reads as the start of
   * its second. Revocation cuts compare this, so a token issued just after a revocation is not refused with the
   * tokens of the second it happened in (docs/auth.md, "Revocation").
   */
  iatMs: number;
  exp: number;
  jti: string;
  kid: string;
  format: TokenFormat;
  /** The `guest` claim: true for a guest account (not upgraded yet); false when the claim is absent. */
  guest: boolean;
  /**
   * The `game` claim: the game a server-role token was issued for (auth's POST /internal/server-token with
   * `game_id`); social takes it as that game's server credential for match rosters. Absent on every other token.
   */
  game?: string;
}

export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** PASERK `k4.public` of a raw 32-byte Ed25519 public key. */
export function paserkPublic(raw: Uint8Array): string {
  if (raw.length !== 32) throw new Error('an Ed25519 public key has 32 bytes');
  return `k4.public.${b64u(raw)}`;
}

/** PASERK `k4.pid`: BLAKE2b-264 over "k4.pid." || the k4.public PASERK. */
export function paserkPid(raw: Uint8Array): string {
  const header = 'k4.pid.';
  const digest = blake2b(Buffer.from(header + paserkPublic(raw)), { dkLen: 33 });
  return header + b64u(digest);
}

/** The raw 32 bytes of an Ed25519 public KeyObject. */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' }) as { x: string };
  return Buffer.from(jwk.x, 'base64url');
}

export function publicJwk(key: KeyObject): Ed25519Jwk {
  const raw = rawPublicKey(key);
  return { kty: 'OKP', crv: 'Ed25519', x: b64u(raw), kid: paserkPid(raw), alg: 'EdDSA', use: 'sig' };
}

export function keyFromJwk(jwk: { kty?: string; crv?: string; x?: string }): KeyObject {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error('not an Ed25519 JWK');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

/** Encoded PASETO footers already read (bounded: a handful of live keys). */
const footerKids = new Map<string, string>();
/** The same for encoded JWT headers. */
const headerKids = new Map<string, string>();

/** `read(key)` once per key; a handful of live keys, so the map is simply emptied when it grows. */
function remembered(map: Map<string, string>, key: string, read: (key: string) => string): string {
  let v = map.get(key);
  if (v === undefined) {
    v = read(key);
    if (map.size >= 64) map.clear();
    map.set(key, v);
  }
  return v;
}

/** Reads the kid without verifying anything (to choose the key). */
export function tokenKid(token: string): { format: TokenFormat; kid: string } {
  if (token.startsWith('v4.public.')) {
    const dot = token.indexOf('.', 10);
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) throw new Error('PASETO token without a footer');
    // Every token of one key carries the same footer: decoded once, then looked up.
    const kid = remembered(footerKids, token.slice(dot + 1), (encoded) => {
      const footer = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { kid?: unknown };
      if (typeof footer.kid !== 'string') throw new Error('PASETO footer without kid');
      return footer.kid;
    });
    return { format: 'paseto', kid };
  }
  if (token.split('.').length === 3) {
    const kid = remembered(headerKids, token.slice(0, token.indexOf('.')), () => {
      const header = decodeProtectedHeader(token);
      if (typeof header.kid !== 'string') throw new Error('JWT header without kid');
      return header.kid;
    });
    return { format: 'jwt', kid };
  }
  throw new Error('neither a PASETO v4.public token nor a JWT');
}

// ------------------------------------------------------------ key sets

export interface KeyResolver {
  /** The public key for kid, or undefined when the key set has none. */
  resolve(kid: string): Promise<KeyObject | undefined>;
  /**
   * The key when it is known now without any I/O (a fresh cache hit), else undefined: lets the verifier
   * skip a promise per token on the hot path. `resolve` stays the authority.
   */
  peek?(kid: string): KeyObject | undefined;
  /** Drops cached keys (a key_rotation event arrived). */
  refresh(): Promise<void>;
}

/** Keys known in process (the auth service verifying its own tokens, tests). */
export function staticKeyResolver(keys: () => Map<string, KeyObject> | Promise<Map<string, KeyObject>>): KeyResolver {
  return {
    async resolve(kid) {
      return (await keys()).get(kid);
    },
    peek(kid) {
      const m = keys();
      return m instanceof Map ? m.get(kid) : undefined;
    },
    async refresh() {},
  };
}

export interface RemoteKeySetOptions {
  url: string;
  /** How long a fetched key set is trusted before it is fetched again. */
  cacheMs?: number;
  /** Minimum time between fetches caused by unknown kids. */
  cooldownMs?: number;
  /** Extra CA certificates (PEM) to trust, e.g. the auth service's self-signed one. */
  ca?: string | Buffer;
  timeoutMs?: number;
}

export function fetchJson(url: string, opts: { ca?: string | Buffer; timeoutMs?: number } = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const req = lib.get(u, { ca: opts.ca, timeout: opts.timeoutMs ?? 3000, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 400) return reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
  });
}

/**
 * A remote JWKS, parsed once into KeyObjects and cached. An unknown kid
 * causes a refetch, at most once per cooldown, so a rotated key is picked up
 * at once while garbage kids cannot hammer the auth service.
 */
export function remoteKeyResolver(opts: RemoteKeySetOptions): KeyResolver & { keys(): Map<string, KeyObject> } {
  const cacheMs = opts.cacheMs ?? 10 * 60_000;
  const cooldownMs = opts.cooldownMs ?? 30_000;
  let keys = new Map<string, KeyObject>();
  let fetchedAt = 0;
  let lastAttempt = 0;
  let inflight: Promise<void> | undefined;

  const load = () =>
    (inflight ??= (async () => {
      lastAttempt = Date.now();
      try {
        const body = (await fetchJson(opts.url, { ca: opts.ca, timeoutMs: opts.timeoutMs })) as { keys?: unknown[] };
        const next = new Map<string, KeyObject>();
        for (const jwk of body.keys ?? []) {
          const j = jwk as { kid?: string; use?: string };
          if (typeof j.kid !== 'string' || (j.use && j.use !== 'sig')) continue;
          try {
            next.set(j.kid, keyFromJwk(j as never));
          } catch {
            /* not an Ed25519 key: ignore */
          }
        }
        keys = next;
        fetchedAt = Date.now();
      } finally {
        inflight = undefined;
      }
    })());

  return {
    keys: () => keys,
    peek(kid) {
      return Date.now() - fetchedAt > cacheMs ? undefined : keys.get(kid);
    },
    async resolve(kid) {
      const stale = Date.now() - fetchedAt > cacheMs;
      if (stale || (!keys.has(kid) && Date.now() - lastAttempt >= cooldownMs)) {
        try {
          await load();
        } catch (err) {
          // A stale but present key set keeps working while the auth service is unreachable.
          if (!keys.size) throw kitError('key_set_unavailable', 'The token key set cannot be fetched', undefined, { cause: err });
        }
      }
      return keys.get(kid);
    },
    async refresh() {
      lastAttempt = 0;
      await load().catch(() => {});
    },
  };
}

// ------------------------------------------------------------ verification

export interface VerifierOptions {
  issuer: string;
  audience: string;
  keys: KeyResolver;
  /** Seconds of clock skew tolerated on exp/iat. */
  clockToleranceSec?: number;
  /** Formats accepted (both by default). */
  formats?: TokenFormat[];
}

export type AccessTokenVerifier = (token: string) => Promise<AccessClaims>;

/**
 * Every rejected token gets the same answer (a caller learns nothing of key ids, algorithms or parsers);
 * why it was rejected stays on the error for a debug log (tokenRejectionReason), never in a response.
 */
const invalid = (why: string) => Object.assign(kitError('invalid_token', 'Access token rejected'), { tokenRejection: why });

/** Why the verifier rejected a token (for debug logs), or undefined for any other error. */
export function tokenRejectionReason(err: unknown): string | undefined {
  const why = (err as { tokenRejection?: unknown } | null)?.tokenRejection;
  return typeof why === 'string' ? why : undefined;
}

function toSeconds(v: unknown, name: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.floor(v);
  throw invalid(`claim ${name} is missing or malformed`);
}

/** A NumericDate (seconds, decimals allowed) as whole milliseconds. */
function toMillis(v: unknown, name: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.floor(Math.round(v * 1e6) / 1e3);
  throw invalid(`claim ${name} is missing or malformed`);
}

function claimString(p: Record<string, unknown>, name: string): string {
  const v = p[name];
  if (typeof v !== 'string' || !v) throw invalid(`claim ${name} is missing`);
  return v;
}

/**
 * The platform's claim set. `iat`/`exp` are Unix seconds: the JWT's NumericDates, or the PASETO RFC 3339
 * times the signature check parsed already (passed in as milliseconds, so they are not parsed twice).
 */
function readClaims(p: Record<string, unknown>, kid: string, format: TokenFormat, iatMs?: number, expMs?: number): AccessClaims {
  const roles = p.roles;
  if (!Array.isArray(roles)) throw invalid('claim roles is malformed');
  const issuedMs = iatMs ?? toMillis(p.iat, 'iat');
  for (let i = 0; i < roles.length; i++) if (typeof roles[i] !== 'string') throw invalid('claim roles is malformed');
  return {
    sub: claimString(p, 'sub'),
    sid: claimString(p, 'sid'),
    platform: claimString(p, 'platform'),
    roles: roles as string[],
    region: typeof p.region === 'string' ? p.region : '',
    iss: claimString(p, 'iss'),
    aud: Array.isArray(p.aud) ? String(p.aud[0]) : claimString(p, 'aud'),
    iat: Math.floor(issuedMs / 1000),
    iatMs: issuedMs,
    exp: expMs !== undefined ? Math.floor(expMs / 1000) : toSeconds(p.exp, 'exp'),
    jti: claimString(p, 'jti'),
    kid,
    format,
    guest: p.guest === true,
    ...(typeof p.game === 'string' ? { game: p.game } : {}),
  };
}

const REQUIRED_CLAIMS = ['exp', 'iat', 'sub', 'jti'];

export function createAccessTokenVerifier(opts: VerifierOptions): AccessTokenVerifier {
  const tolerance = opts.clockToleranceSec ?? 30;
  const formats = opts.formats ?? ['paseto', 'jwt'];
  const claimOptions = { issuer: opts.issuer, audience: opts.audience, clockTolerance: tolerance, requiredClaims: REQUIRED_CLAIMS };
  const check = (token: string, format: TokenFormat, kid: string, key: KeyObject): AccessClaims => {
    let claims: AccessClaims;
    try {
      if (format === 'paseto') {
        // Hand-written on node:crypto (measured: the library cost >10% over a raw verify; see paseto-v4.ts).
        const v = verifyPasetoV4Token(token, key, claimOptions);
        claims = readClaims(v.claims, kid, format, v.iat, v.exp);
      } else {
        // Hand-written on node:crypto too (measured: jose cost >10% over a raw verify; see jwt-eddsa.ts).
        claims = readClaims(verifyEdDsaJwt(token, key, claimOptions), kid, format);
      }
    } catch (err) {
      throw err instanceof AppError ? err : invalid((err as Error).message);
    }
    const now = Math.floor(Date.now() / 1000);
    if (claims.exp + tolerance <= now) throw invalid('expired');
    if (claims.iat - tolerance > now) throw invalid('issued in the future');
    return claims;
  };
  return async (token) => {
    let format: TokenFormat;
    let kid: string;
    try {
      ({ format, kid } = tokenKid(token));
    } catch (err) {
      throw invalid((err as Error).message);
    }
    if (!formats.includes(format)) throw invalid(`format ${format} is not accepted`);
    // A cached key costs no promise; an unknown one is resolved (fetched) first.
    const key = opts.keys.peek?.(kid) ?? (await opts.keys.resolve(kid));
    if (!key) throw invalid('unknown key id');
    return check(token, format, kid, key);
  };
}

// ------------------------------------------------------------ signing

export interface AccessTokenInput {
  sub: string;
  sid: string;
  platform: string;
  roles: string[];
  region: string;
  jti: string;
  /** Unix seconds; a fraction (milliseconds) is written as such (AccessClaims.iatMs). */
  iat: number;
  /** Unix seconds (whole). */
  exp: number;
  /** A guest account: the token carries `guest: true` (omitted otherwise, so other tokens are unchanged). */
  guest?: boolean;
  /** A server token for one game's servers: the token carries `game` (omitted otherwise). */
  game?: string;
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * Signs an access token in the chosen format with the platform's claim set.
 * Synchronous, on node:crypto (see paseto-v4.ts for why not the libraries);
 * the tests check every token with `paseto` and `jose` as independent verifiers.
 */
export function signAccessToken(format: TokenFormat, key: SigningKey, iss: string, aud: string, c: AccessTokenInput): string {
  if (format === 'jwt') {
    return signEdDsaJwt(
      { alg: 'EdDSA', typ: 'JWT', kid: key.kid },
      {
        sid: c.sid,
        platform: c.platform,
        roles: c.roles,
        region: c.region,
        sub: c.sub,
        iss,
        aud,
        iat: Math.round(c.iat * 1000) / 1000,
        exp: c.exp,
        jti: c.jti,
        ...(c.guest ? { guest: true } : {}),
        ...(c.game ? { game: c.game } : {}),
      },
      key.privateKey,
    );
  }
  // RFC 3339 with +00:00; milliseconds only when there are some (`…:05.123+00:00`, else `…:05+00:00`).
  const iso = (s: number) => {
    const ms = Math.round(s * 1000);
    return new Date(ms).toISOString().replace(ms % 1000 ? /Z$/ : /\.\d{3}Z$/, '+00:00');
  };
  const claims = { sub: c.sub, sid: c.sid, platform: c.platform, roles: c.roles, region: c.region, iss, aud, iat: iso(c.iat), exp: iso(c.exp), jti: c.jti, ...(c.guest ? { guest: true } : {}), ...(c.game ? { game: c.game } : {}) };
  return signPasetoV4Public(Buffer.from(JSON.stringify(claims)), key.privateKey, Buffer.from(JSON.stringify({ kid: key.kid })));
}
