/**
 * Signing keys shared by every node through the database. The private key is
 * stored encrypted with the master key (aad = kid); each node keeps a cache it
 * reloads periodically and on a `key_rotation` message.
 *
 * Rotation (three steps, each advanced by `advanceRotation`, which every node
 * runs on its refresh tick; the SQL is idempotent and serialised by an
 * advisory lock):
 *   1. publish: a new key is `published` (served in the JWKS, not signing)
 *      with activate_at = now + propagation wait;
 *   2. activate: at activate_at the new key becomes `active`; the old one goes
 *      back to `published` with retire_at = now + max access-token lifetime;
 *   3. retire: at retire_at the old key becomes `retired` (out of the JWKS).
 */
import { generateKeyPairSync, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { encryptSecret, decryptSecret, publicJwk, type Database, type Queryable, type Ed25519Jwk, type SigningKey } from '@platform/kit';
import { audit, type AuditContext } from './audit.js';

export const KEY_ROTATION_CHANNEL = 'auth:key_rotation';

export type KeyState = 'published' | 'active' | 'retired';

interface KeyRow {
  kid: string;
  public_key: string;
  private_key_enc: string;
  state: KeyState;
}

export interface LoadedKey {
  kid: string;
  state: KeyState;
  publicKey: KeyObject;
  jwk: Ed25519Jwk;
}

export interface KeyTimings {
  propagationSeconds: number;
  /** Longest lifetime of a token signed by a superseded key (TTL plus clock skew). */
  retireAfterSeconds: number;
}

function newKeyRow(masterKey: Buffer) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicJwk(publicKey);
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  return { kid: jwk.kid, publicKey: jwk.x, privateKeyEnc: encryptSecret(masterKey, pkcs8, jwk.kid) };
}

/** Creates the first active key unless one exists (safe when nodes start together). */
export async function ensureActiveKey(db: Database, masterKey: Buffer, ctx: AuditContext): Promise<void> {
  const existing = await db.query(`SELECT 1 FROM signing_keys WHERE state = 'active'`);
  if (existing.rowCount) return;
  const k = newKeyRow(masterKey);
  await db.transaction(async (tx) => {
    // The partial unique index allows one active key; a concurrent node's insert makes ours a no-op.
    const r = await tx.query(
      `INSERT INTO signing_keys (kid, public_key, private_key_enc, state, activated_at) VALUES ($1, $2, $3, 'active', now())
       ON CONFLICT DO NOTHING RETURNING kid`,
      [k.kid, k.publicKey, k.privateKeyEnc],
    );
    if (r.rowCount) await audit(tx, ctx, 'key_rotation', null, { step: 'initial', kid: k.kid });
  });
}

/** Step 1 (or all at once for an emergency): a new key beside the current one. */
export async function rotateSigningKey(
  db: Database,
  masterKey: Buffer,
  timings: KeyTimings,
  ctx: AuditContext,
  opts: { emergency?: boolean; retirePrevious?: boolean } = {},
): Promise<{ kid: string; state: KeyState; activateAt: string }> {
  const k = newKeyRow(masterKey);
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('auth:signing_keys'))`);
    const wait = opts.emergency ? 0 : timings.propagationSeconds;
    const r = await tx.query<{ activate_at: Date }>(
      `INSERT INTO signing_keys (kid, public_key, private_key_enc, state, activate_at)
       VALUES ($1, $2, $3, 'published', now() + make_interval(secs => $4::int)) RETURNING activate_at`,
      [k.kid, k.publicKey, k.privateKeyEnc, wait],
    );
    await audit(tx, ctx, 'key_rotation', null, { step: 'publish', kid: k.kid, emergency: !!opts.emergency });
    let state: KeyState = 'published';
    if (opts.emergency) {
      await activate(tx, k.kid, opts.retirePrevious ? 0 : timings.retireAfterSeconds, ctx);
      state = 'active';
      // Verifiers without the shared pub/sub channel learn of it through the outbox.
      await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('key_rotation', $1)`, [
        JSON.stringify({ type: 'key_rotation', kid: k.kid, retire_previous: !!opts.retirePrevious }),
      ]);
    }
    return { kid: k.kid, state, activateAt: new Date(r.rows[0].activate_at).toISOString() };
  });
}

async function activate(tx: Queryable, kid: string, retireAfterSeconds: number, ctx: AuditContext) {
  const old = await tx.query<{ kid: string }>(
    `UPDATE signing_keys SET state = 'published', retire_at = now() + make_interval(secs => $1::int)
     WHERE state = 'active' RETURNING kid`,
    [retireAfterSeconds],
  );
  await tx.query(`UPDATE signing_keys SET state = 'active', activated_at = now() WHERE kid = $1`, [kid]);
  await audit(tx, ctx, 'key_rotation', null, { step: 'activate', kid, previous: old.rows[0]?.kid ?? null });
  if (retireAfterSeconds === 0) await retireDue(tx, ctx);
}

async function retireDue(tx: Queryable, ctx: AuditContext) {
  const r = await tx.query<{ kid: string }>(
    `UPDATE signing_keys SET state = 'retired', retired_at = now()
     WHERE state = 'published' AND retire_at IS NOT NULL AND retire_at <= now() RETURNING kid`,
  );
  for (const row of r.rows) await audit(tx, ctx, 'key_rotation', null, { step: 'retire', kid: row.kid });
}

/** Steps 2 and 3 when due. Idempotent: any node may run it at any time. Returns true when something changed. */
export async function advanceRotation(db: Database, timings: KeyTimings, ctx: AuditContext): Promise<boolean> {
  const due = await db.query(
    `SELECT 1 FROM signing_keys WHERE (state = 'published' AND activated_at IS NULL AND activate_at <= now())
       OR (state = 'published' AND retire_at IS NOT NULL AND retire_at <= now()) LIMIT 1`,
  );
  if (!due.rowCount) return false;
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('auth:signing_keys'))`);
    const next = await tx.query<{ kid: string }>(
      `SELECT kid FROM signing_keys WHERE state = 'published' AND activated_at IS NULL AND activate_at <= now()
       ORDER BY activate_at DESC LIMIT 1`,
    );
    if (next.rowCount) await activate(tx, next.rows[0].kid, timings.retireAfterSeconds, ctx);
    await retireDue(tx, ctx);
    return true;
  });
}

/** The node-local cache of published and active keys. */
export class KeyCache {
  private keys: LoadedKey[] = [];
  private signing: SigningKey | undefined;
  private loadedAt = 0;

  constructor(
    private readonly db: Database,
    private readonly masterKey: Buffer,
  ) {}

  get loaded(): boolean {
    return this.loadedAt > 0 && this.signing !== undefined;
  }

  async reload(): Promise<void> {
    const r = await this.db.query<KeyRow>(
      `SELECT kid, public_key, private_key_enc, state FROM signing_keys WHERE state IN ('published', 'active') ORDER BY created_at`,
    );
    const keys: LoadedKey[] = [];
    let signing: SigningKey | undefined;
    for (const row of r.rows) {
      const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: row.public_key }, format: 'jwk' });
      keys.push({ kid: row.kid, state: row.state, publicKey, jwk: publicJwk(publicKey) });
      if (row.state === 'active') {
        // Reuse the decrypted key object when the active key did not change.
        signing =
          this.signing?.kid === row.kid
            ? this.signing
            : {
                kid: row.kid,
                privateKey: createPrivateKey({
                  key: decryptSecret(this.masterKey, row.private_key_enc, row.kid),
                  format: 'der',
                  type: 'pkcs8',
                }),
              };
      }
    }
    this.keys = keys;
    this.signing = signing;
    this.loadedAt = Date.now();
  }

  signingKey(): SigningKey {
    if (!this.signing) throw new Error('no active signing key loaded');
    return this.signing;
  }

  publicKeys(): Map<string, KeyObject> {
    return new Map(this.keys.map((k) => [k.kid, k.publicKey]));
  }

  jwks(): { keys: Ed25519Jwk[] } {
    return { keys: this.keys.map((k) => k.jwk) };
  }
}
