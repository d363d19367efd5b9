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
import type { AuthConfig } from '../config.js';
import {
  activateKey,
  hasActiveKey,
  insertInitialKey,
  insertPublishedKey,
  keyDueForActivation,
  lockSigningKeys,
  retireDueKeys,
  rotationStepDue,
  servedKeys,
  supersedeActiveKey,
  type KeyState,
  type NewKey,
} from '../queries/signing-keys.js';
import { insertKeyRotationNotice } from '../queries/outbox.js';
import { OUTBOX_NOTICE_WIRE } from './notice-wire.js';
import { audit, type AuditContext } from './audit.js';

export type { KeyState } from '../queries/signing-keys.js';

export const KEY_ROTATION_CHANNEL = 'auth:key_rotation';

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

/** The rotation waits of the configuration: a superseded key outlives the tokens it signed (TTL plus clock skew). */
export function keyTimings(config: Pick<AuthConfig, 'keyPropagationSeconds' | 'accessTtlSeconds'>): KeyTimings {
  return { propagationSeconds: config.keyPropagationSeconds, retireAfterSeconds: config.accessTtlSeconds + 60 };
}

function newKeyRow(masterKey: Buffer): NewKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicJwk(publicKey);
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  return { kid: jwk.kid, publicKey: jwk.x, privateKeyEnc: encryptSecret(masterKey, pkcs8, jwk.kid) };
}

/** Creates the first active key unless one exists (safe when nodes start together). */
export async function ensureActiveKey(db: Database, masterKey: Buffer, ctx: AuditContext): Promise<void> {
  if (await hasActiveKey(db)) return;
  const k = newKeyRow(masterKey);
  await db.transaction(async (tx) => {
    // The partial unique index allows one active key; a concurrent node's insert makes ours a no-op.
    if (await insertInitialKey(tx, k)) await audit(tx, ctx, 'key_rotation', null, { step: 'initial', kid: k.kid });
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
    await lockSigningKeys(tx);
    const activateAt = await insertPublishedKey(tx, k, opts.emergency ? 0 : timings.propagationSeconds);
    await audit(tx, ctx, 'key_rotation', null, { step: 'publish', kid: k.kid, emergency: !!opts.emergency });
    let state: KeyState = 'published';
    if (opts.emergency) {
      await activate(tx, k.kid, opts.retirePrevious ? 0 : timings.retireAfterSeconds, ctx);
      state = 'active';
      // Verifiers without the shared pub/sub channel learn of it through the outbox.
      await insertKeyRotationNotice(tx, OUTBOX_NOTICE_WIRE.encodeObject({ type: 'key_rotation', kid: k.kid, retire_previous: !!opts.retirePrevious }));
    }
    return { kid: k.kid, state, activateAt: new Date(activateAt).toISOString() };
  });
}

async function activate(tx: Queryable, kid: string, retireAfterSeconds: number, ctx: AuditContext) {
  const previous = await supersedeActiveKey(tx, retireAfterSeconds);
  await activateKey(tx, kid);
  await audit(tx, ctx, 'key_rotation', null, { step: 'activate', kid, previous: previous ?? null });
  if (retireAfterSeconds === 0) await retireDue(tx, ctx);
}

async function retireDue(tx: Queryable, ctx: AuditContext) {
  for (const kid of await retireDueKeys(tx)) await audit(tx, ctx, 'key_rotation', null, { step: 'retire', kid });
}

/** Steps 2 and 3 when due. Idempotent: any node may run it at any time. Returns true when something changed. */
export async function advanceRotation(db: Database, timings: KeyTimings, ctx: AuditContext): Promise<boolean> {
  if (!(await rotationStepDue(db))) return false;
  return db.transaction(async (tx) => {
    await lockSigningKeys(tx);
    const next = await keyDueForActivation(tx);
    if (next) await activate(tx, next, timings.retireAfterSeconds, ctx);
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
    const keys: LoadedKey[] = [];
    let signing: SigningKey | undefined;
    for (const row of await servedKeys(this.db)) {
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
