/**
 * The service-independent core of an authenticator-app second factor (RFC 6238 TOTP through the maintained `otpauth`
 * library: SHA-1, 6 digits, 30 s, one step of drift either way) and its single-use recovery codes. Auth (player and
 * staff accounts) and the registry (developers) keep their own tables, routes and lockout rows; what a code is, which
 * one is accepted and how a recovery code is made and stored is decided once, here.
 */
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { decryptSecret, encryptSecret, sha256Hex } from './crypto.js';

export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
/** Wrong codes in a row before a factor locks, and for how long (the same for every service). */
export const TOTP_MAX_FAILURES = 5;
export const TOTP_LOCK_SECONDS = 15 * 60;

const totpFor = (secretBase32: string, issuer: string, label: string) =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });

/** A fresh 160-bit secret (base32) and the otpauth:// URI an authenticator app reads (as text or a QR code). */
export function newTotpSecret(issuer: string, label: string): { secret: string; otpauthUri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUri: totpFor(secret, issuer, label).toString() };
}

/**
 * The time step a code is valid for, if it is valid now (±1 step) and newer than `lastStep` (the newest step the
 * factor accepted: a code is never accepted twice, nor one older than an accepted one); else undefined.
 */
export function totpStep(secretBase32: string, code: string, lastStep: number, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  const step = Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
  return step > lastStep ? step : undefined;
}

/** Ten recovery codes of 80 random bits each (20 hex digits), shown once; store only recoveryCodeHash of each. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => randomBytes(10).toString('hex'));
}

/** The stored form of a recovery code as a person typed it: lower-case, separators dropped, SHA-256 (hex). */
export const recoveryCodeHash = (code: string): string => sha256Hex(code.toLowerCase().replace(/[^0-9a-z]/g, ''));

/** The secret at rest: AES-256-GCM under the service's master key, bound to `aad` (one per service and purpose). */
export const sealTotpSecret = (masterKey: Buffer, secretBase32: string, aad: string): string => encryptSecret(masterKey, secretBase32, aad);
export const openTotpSecret = (masterKey: Buffer, envelope: string, aad: string): string => decryptSecret(masterKey, envelope, aad).toString();

/** Seconds until `lockedUntil` (at least 1), or undefined when the factor is not locked now. */
export function totpLockSeconds(lockedUntil: Date | string | null | undefined, now = Date.now()): number | undefined {
  if (!lockedUntil) return undefined;
  const until = new Date(lockedUntil).getTime();
  return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : undefined;
}
