/** Passkeys: WebAuthn credentials of player accounts (docs/auth.md, "Passkeys"; migration 0011). */
import type { Queryable } from '@platform/kit';

export interface PasskeyRow {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'id, account_id, credential_id, public_key, counter, transports, name, created_at, last_used_at';

export async function passkeysOf(db: Queryable, accountId: string): Promise<PasskeyRow[]> {
  return (await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE account_id = $1 ORDER BY created_at, id`, [accountId])).rows;
}

export async function passkeyByCredential(db: Queryable, credentialId: string, opts: { lock?: boolean } = {}): Promise<PasskeyRow | undefined> {
  return (await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [credentialId])).rows[0];
}

export async function countPasskeys(db: Queryable, accountId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE account_id = $1', [accountId])).rows[0]?.n ?? 0;
}

export async function hasPasskey(db: Queryable, accountId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM passkeys WHERE account_id = $1 LIMIT 1', [accountId])).rows.length > 0;
}

export async function insertPasskey(
  tx: Queryable,
  p: { id: string; accountId: string; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[]; name: string },
): Promise<void> {
  await tx.query('INSERT INTO passkeys (id, account_id, credential_id, public_key, counter, transports, name) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    p.id,
    p.accountId,
    p.credentialId,
    Buffer.from(p.publicKey),
    p.counter,
    p.transports,
    p.name,
  ]);
}

/** An accepted assertion: the new counter (never lower: the caller checked) and the time of use. */
export async function usePasskey(tx: Queryable, id: string, counter: number): Promise<void> {
  await tx.query('UPDATE passkeys SET counter = GREATEST(counter, $2), last_used_at = now() WHERE id = $1', [id, counter]);
}

/** Deletes one of the account's passkeys; false when the account has none with this id. */
/** Removes every passkey of the account (an admin's factor reset); how many there were. */
export async function deleteAllPasskeys(tx: Queryable, accountId: string): Promise<number> {
  return (await tx.query('DELETE FROM passkeys WHERE account_id = $1', [accountId])).rowCount;
}

export async function deletePasskey(tx: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await tx.query('DELETE FROM passkeys WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount > 0;
}
