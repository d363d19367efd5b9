/**
 * Paging cursors every service hands out: sealed with a server key (AES-256-GCM: the position is encrypted,
 * so a cursor reveals nothing such as a platform-wide count, and authenticated over the whole cursor, so a
 * changed bit, another list's cursor or another reader's is refused). `kind` names the list and `binding`
 * what the cursor is bound to (e.g. its reader) — both authenticated, neither in the cursor.
 *
 * The key must be the same on every node of a service: `serviceSecret` keeps one random key per name in the
 * service's database (table `service_secrets`, in the service's migrations), made by the first node to start.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Queryable } from './db.js';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;

export interface CursorSealer {
  /** An opaque cursor for `payload` (the position), for list `kind` and `binding`. */
  seal(kind: string, payload: string, binding?: string): string;
  /** The payload of a cursor this service sealed for `kind` and `binding`; undefined for anything else. */
  open(kind: string, cursor: string, binding?: string): string | undefined;
}

const aad = (kind: string, binding: string) => Buffer.from(`cursor\u0000${kind}\u0000${binding}`);

/** Cursors sealed with a key derived from `secret` (≥ 32 bytes of a server secret). */
export function cursorSealer(secret: Buffer): CursorSealer {
  if (secret.length < 32) throw new Error('cursorSealer: the secret needs at least 32 bytes');
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'platform cursors v1', 32));
  return {
    seal(kind, payload, binding = '') {
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(aad(kind, binding));
      const body = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(kind, cursor, binding = '') {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor) || cursor.length > 1024) return undefined;
      const raw = Buffer.from(cursor, 'base64url');
      // Only the canonical spelling: Node's decoder ignores stray trailing bits.
      if (raw.toString('base64url') !== cursor || raw.length < 1 + NONCE + TAG || raw[0] !== VERSION) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 1 + NONCE));
        decipher.setAAD(aad(kind, binding));
        decipher.setAuthTag(raw.subarray(raw.length - TAG));
        return Buffer.concat([decipher.update(raw.subarray(1 + NONCE, raw.length - TAG)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The service's random secret `name` (32 bytes), the same for every node on the database: the first caller
 * makes it, every later one reads it. Needs the table `service_secrets (name text primary key, secret bytea)`.
 */
export async function serviceSecret(db: Queryable, name: string): Promise<Buffer> {
  await db.query('INSERT INTO service_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
  const r = await db.query<{ secret: Buffer | Uint8Array }>('SELECT secret FROM service_secrets WHERE name = $1', [name]);
  return Buffer.from(r.rows[0].secret);
}
