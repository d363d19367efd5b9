/**
 * The signing_keys table: Ed25519 keys, the private half encrypted with the master key. Rotation steps run
 * under one advisory lock so concurrent nodes take each step once.
 */
import type { Queryable } from '@platform/kit';

export type KeyState = 'published' | 'active' | 'retired';

export interface KeyRow {
  kid: string;
  public_key: string;
  private_key_enc: string;
  state: KeyState;
}

export interface NewKey {
  kid: string;
  publicKey: string;
  privateKeyEnc: string;
}

export async function hasActiveKey(db: Queryable): Promise<boolean> {
  const existing = await db.query(`SELECT 1 FROM signing_keys WHERE state = 'active'`);
  return existing.rowCount > 0;
}

/** The first active key; false when another node's insert won (one active key at most, by a partial unique index). */
export async function insertInitialKey(tx: Queryable, k: NewKey): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO signing_keys (kid, public_key, private_key_enc, state, activated_at) VALUES ($1, $2, $3, 'active', now())
       ON CONFLICT DO NOTHING RETURNING kid`,
    [k.kid, k.publicKey, k.privateKeyEnc],
  );
  return r.rowCount > 0;
}

/** Serialises rotation steps across nodes until the transaction ends. */
export async function lockSigningKeys(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('auth:signing_keys'))`);
}

/** A published key that activates after `waitSeconds`; returns its activation time. */
export async function insertPublishedKey(tx: Queryable, k: NewKey, waitSeconds: number): Promise<Date> {
  const r = await tx.query<{ activate_at: Date }>(
    `INSERT INTO signing_keys (kid, public_key, private_key_enc, state, activate_at)
       VALUES ($1, $2, $3, 'published', now() + make_interval(secs => $4::int)) RETURNING activate_at`,
    [k.kid, k.publicKey, k.privateKeyEnc, waitSeconds],
  );
  return r.rows[0].activate_at;
}

/** The active key goes back to published, retiring after `retireAfterSeconds`; returns its kid. */
export async function supersedeActiveKey(tx: Queryable, retireAfterSeconds: number): Promise<string | undefined> {
  const old = await tx.query<{ kid: string }>(
    `UPDATE signing_keys SET state = 'published', retire_at = now() + make_interval(secs => $1::int)
     WHERE state = 'active' RETURNING kid`,
    [retireAfterSeconds],
  );
  return old.rows[0]?.kid;
}

export async function activateKey(tx: Queryable, kid: string): Promise<void> {
  await tx.query(`UPDATE signing_keys SET state = 'active', activated_at = now() WHERE kid = $1`, [kid]);
}

/** Retires the superseded keys whose time has come; returns their kids. */
export async function retireDueKeys(tx: Queryable): Promise<string[]> {
  const r = await tx.query<{ kid: string }>(
    `UPDATE signing_keys SET state = 'retired', retired_at = now()
     WHERE state = 'published' AND retire_at IS NOT NULL AND retire_at <= now() RETURNING kid`,
  );
  return r.rows.map((row) => row.kid);
}

/** Whether a rotation step (activation or retirement) is due. */
export async function rotationStepDue(db: Queryable): Promise<boolean> {
  const due = await db.query(
    `SELECT 1 FROM signing_keys WHERE (state = 'published' AND activated_at IS NULL AND activate_at <= now())
       OR (state = 'published' AND retire_at IS NOT NULL AND retire_at <= now()) LIMIT 1`,
  );
  return due.rowCount > 0;
}

/** The newest published key whose activation time has come. */
export async function keyDueForActivation(tx: Queryable): Promise<string | undefined> {
  const next = await tx.query<{ kid: string }>(
    `SELECT kid FROM signing_keys WHERE state = 'published' AND activated_at IS NULL AND activate_at <= now()
       ORDER BY activate_at DESC LIMIT 1`,
  );
  return next.rows[0]?.kid;
}

/** The keys served in the key set (published and active), oldest first. */
export async function servedKeys(db: Queryable): Promise<KeyRow[]> {
  const r = await db.query<KeyRow>(
    `SELECT kid, public_key, private_key_enc, state FROM signing_keys WHERE state IN ('published', 'active') ORDER BY created_at`,
  );
  return r.rows;
}
