import type { Queryable } from '@platform/kit';

export interface SigningKeyRow {
  purpose: string;
  kid: string;
  public_key: string;
  private_key_enc: string;
}

export function signingKeyQueries(db: Queryable) {
  return {
    /** Inserts unless a key for the purpose exists (another node may have won). */
    async insertIfAbsent(row: SigningKeyRow): Promise<void> {
      await db.query(
        `INSERT INTO signing_keys (purpose, kid, public_key, private_key_enc) VALUES ($1, $2, $3, $4) ON CONFLICT (purpose) DO NOTHING`,
        [row.purpose, row.kid, row.public_key, row.private_key_enc],
      );
    },
    async oldest(purpose: string): Promise<SigningKeyRow | undefined> {
      const r = await db.query<SigningKeyRow>(
        `SELECT purpose, kid, public_key, private_key_enc FROM signing_keys WHERE purpose = $1 ORDER BY created_at LIMIT 1`,
        [purpose],
      );
      return r.rows[0];
    },
  };
}
