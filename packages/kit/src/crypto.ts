/** Small, shared cryptographic helpers (node:crypto and @node-rs/argon2). */
import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseKey32 } from './config.js';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';

/** `bytes` random bytes as base64url (32 bytes = 256 bits = 43 chars). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(data: string | Buffer): string {
  // One-shot crypto.hash (Node ≥ 20.12): no Hash object per call; on every API-key check and refresh.
  return hash('sha256', data, 'hex');
}

/** Constant-time equality of two strings (length leaks, content does not). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    // Compare against itself so both paths cost the same.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function safeEqualHex(a: string, b: string): boolean {
  return safeEqual(a.toLowerCase(), b.toLowerCase());
}

/**
 * AES-256-GCM envelope for secrets at rest (signing keys). Output:
 * `v1.<iv>.<tag>.<ciphertext>`, each base64url. `aad` binds the ciphertext to
 * its row (for example the key id) so blobs cannot be swapped.
 */
export function encryptSecret(masterKey: Buffer, plaintext: Buffer | string, aad = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function decryptSecret(masterKey: Buffer, envelope: string, aad = ''): Buffer {
  const [v, iv, tag, ct] = envelope.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unknown secret envelope');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
}

export interface Argon2Params {
  memoryCost: number; // KiB
  timeCost: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet: m=19456 KiB (19 MiB), t=2, p=1. */
export const OWASP_ARGON2: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string, params: Argon2Params = OWASP_ARGON2): Promise<string> {
  return argonHash(password, { ...params, algorithm: 2 /* Algorithm.Argon2id (const enum) */ });
}

export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  try {
    return await argonVerify(encoded, password);
  } catch {
    return false;
  }
}

/**
 * A fixed hash to verify against when the account does not exist, so that a
 * login for an unknown email costs the same as one with a wrong password.
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(params: Argon2Params = OWASP_ARGON2): Promise<string> {
  dummyHash ??= hashPassword(randomToken(16), params);
  return dummyHash;
}

/**
 * A 32-byte key kept in a file (mode 0600), created on first use. For the
 * embedded, single-machine default only: production passes the key through
 * configuration from a secret manager. Two processes racing to create it
 * agree on one file ('wx' fails for the loser, which then reads the winner's).
 */
export function loadOrCreateKeyFile(file: string): { key: Buffer; file: string; created: boolean } {
  if (existsSync(file)) return { key: parseKey32(readFileSync(file, 'utf8')), file, created: false };
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { key: parseKey32(readFileSync(file, 'utf8')), file, created: false };
    throw err;
  }
  return { key, file, created: true };
}
