/** TOTP factors and recovery codes (docs/auth.md, "Second factor (TOTP)"). */
import type { Queryable } from '@platform/kit';

export interface TotpRow {
  account_id: string;
  secret_enc: string;
  confirmed_at: Date | null;
  last_step: string;
  failures: number;
  locked_until: Date | null;
}

const COLUMNS = 'account_id, secret_enc, confirmed_at, last_step, failures, locked_until';

export async function totpOf(db: Queryable, accountId: string, opts: { lock?: boolean } = {}): Promise<TotpRow | undefined> {
  return (await db.query<TotpRow>(`SELECT ${COLUMNS} FROM totp_factors WHERE account_id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [accountId])).rows[0];
}

/** A new pending secret (replacing a pending one; never a confirmed one: the caller checks). */
export async function putPendingTotp(tx: Queryable, accountId: string, secretEnc: string): Promise<void> {
  await tx.query(
    `INSERT INTO totp_factors (account_id, secret_enc) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET secret_enc = EXCLUDED.secret_enc, created_at = now(), confirmed_at = NULL, last_step = 0, failures = 0, locked_until = NULL`,
    [accountId, secretEnc],
  );
}

export async function confirmTotp(tx: Queryable, accountId: string, step: number): Promise<void> {
  await tx.query('UPDATE totp_factors SET confirmed_at = now(), last_step = $2, failures = 0, locked_until = NULL WHERE account_id = $1', [accountId, step]);
}

/** A code accepted: its step is the newest, the failures start again. */
export async function acceptStep(tx: Queryable, accountId: string, step: number): Promise<void> {
  await tx.query('UPDATE totp_factors SET last_step = GREATEST(last_step, $2), failures = 0, locked_until = NULL WHERE account_id = $1', [accountId, step]);
}

/** A wrong code: counted; at `max` in a row the factor locks for `lockSeconds`. */
export async function countFailure(db: Queryable, accountId: string, max: number, lockSeconds: number): Promise<void> {
  await db.query(
    `UPDATE totp_factors SET failures = failures + 1,
       locked_until = CASE WHEN failures + 1 >= $2 THEN now() + make_interval(secs => $3) ELSE locked_until END
     WHERE account_id = $1`,
    [accountId, max, lockSeconds],
  );
}

export async function deleteTotp(tx: Queryable, accountId: string): Promise<void> {
  await tx.query('DELETE FROM totp_factors WHERE account_id = $1', [accountId]);
  await tx.query('DELETE FROM recovery_codes WHERE account_id = $1', [accountId]);
}

export async function replaceRecoveryCodes(tx: Queryable, accountId: string, hashes: string[]): Promise<void> {
  await tx.query('DELETE FROM recovery_codes WHERE account_id = $1', [accountId]);
  await tx.query('INSERT INTO recovery_codes (account_id, code_hash) SELECT $1, unnest($2::text[])', [accountId, hashes]);
}

/** Spends an unused recovery code; false when it is unknown or spent already. */
export async function spendRecoveryCode(tx: Queryable, accountId: string, hash: string): Promise<boolean> {
  const r = await tx.query('UPDATE recovery_codes SET used_at = now() WHERE account_id = $1 AND code_hash = $2 AND used_at IS NULL', [accountId, hash]);
  return r.rowCount > 0;
}

export async function unusedRecoveryCodes(db: Queryable, accountId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM recovery_codes WHERE account_id = $1 AND used_at IS NULL', [accountId])).rows[0]?.n ?? 0;
}
