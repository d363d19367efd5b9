/** A developer's TOTP factor and recovery codes (docs/registry.md, "Second factor (TOTP)"). */
import type { Queryable } from '@platform/kit';

export interface DeveloperTotpRow {
  developer_id: string;
  secret_enc: string;
  confirmed_at: Date | null;
  last_step: string;
  failures: number;
  locked_until: Date | null;
}

const COLUMNS = 'developer_id, secret_enc, confirmed_at, last_step, failures, locked_until';

export function secondFactorQueries(db: Queryable) {
  return {
    async totpOf(developerId: string, opts: { lock?: boolean } = {}): Promise<DeveloperTotpRow | undefined> {
      return (await db.query<DeveloperTotpRow>(`SELECT ${COLUMNS} FROM developer_totp WHERE developer_id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [developerId])).rows[0];
    },
    /** A new pending secret (replacing a pending one; never a confirmed one: the caller checks). */
    async putPending(developerId: string, secretEnc: string): Promise<void> {
      await db.query(
        `INSERT INTO developer_totp (developer_id, secret_enc) VALUES ($1, $2)
         ON CONFLICT (developer_id) DO UPDATE SET secret_enc = EXCLUDED.secret_enc, created_at = now(), confirmed_at = NULL, last_step = 0, failures = 0, locked_until = NULL`,
        [developerId, secretEnc],
      );
    },
    async confirm(developerId: string, step: number): Promise<void> {
      await db.query('UPDATE developer_totp SET confirmed_at = now(), last_step = $2, failures = 0, locked_until = NULL WHERE developer_id = $1', [developerId, step]);
    },
    /** A code accepted: its step is the newest, the failures start again. */
    async acceptStep(developerId: string, step: number): Promise<void> {
      await db.query('UPDATE developer_totp SET last_step = GREATEST(last_step, $2), failures = 0, locked_until = NULL WHERE developer_id = $1', [developerId, step]);
    },
    /** A wrong code: counted; at `max` in a row the factor locks for `lockSeconds`. */
    async countFailure(developerId: string, max: number, lockSeconds: number): Promise<void> {
      await db.query(
        `UPDATE developer_totp SET failures = failures + 1,
           locked_until = CASE WHEN failures + 1 >= $2 THEN now() + make_interval(secs => $3) ELSE locked_until END
         WHERE developer_id = $1`,
        [developerId, max, lockSeconds],
      );
    },
    async remove(developerId: string): Promise<void> {
      await db.query('DELETE FROM developer_totp WHERE developer_id = $1', [developerId]);
      await db.query('DELETE FROM developer_recovery_codes WHERE developer_id = $1', [developerId]);
    },
    async replaceRecoveryCodes(developerId: string, hashes: string[]): Promise<void> {
      await db.query('DELETE FROM developer_recovery_codes WHERE developer_id = $1', [developerId]);
      await db.query('INSERT INTO developer_recovery_codes (developer_id, code_hash) SELECT $1, unnest($2::text[])', [developerId, hashes]);
    },
    /** Spends an unused recovery code; false when it is unknown or spent already. */
    async spendRecoveryCode(developerId: string, hash: string): Promise<boolean> {
      const r = await db.query('UPDATE developer_recovery_codes SET used_at = now() WHERE developer_id = $1 AND code_hash = $2 AND used_at IS NULL', [developerId, hash]);
      return r.rowCount > 0;
    },
    async unusedRecoveryCodes(developerId: string): Promise<number> {
      return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM developer_recovery_codes WHERE developer_id = $1 AND used_at IS NULL', [developerId])).rows[0]?.n ?? 0;
    },
    /** Ends every token of the developer issued before (docs: token generation); returns the new generation. */
    async bumpTokenGeneration(developerId: string): Promise<number> {
      return (await db.query<{ g: number }>('UPDATE developers SET token_generation = token_generation + 1, updated_at = now() WHERE id = $1 RETURNING token_generation AS g', [developerId])).rows[0].g;
    },
  };
}
