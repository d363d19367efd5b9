import type { Queryable } from '@platform/kit';

export type Role = 'super-admin' | 'developer';

export interface DeveloperRow {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  role: Role;
  created_at: Date;
  /** Tokens issued under an older generation are refused (migration 0005). */
  token_generation: number;
  /** A confirmed second factor (developer_totp). */
  totp_on: boolean;
  /** At least one passkey (developer_passkeys, migration 0006): a second factor too. */
  passkeys_on: boolean;
}

const BASE = 'id, email, display_name, password_hash, role, created_at, token_generation';
const COLUMNS = `${BASE}, EXISTS (SELECT 1 FROM developer_totp t WHERE t.developer_id = developers.id AND t.confirmed_at IS NOT NULL) AS totp_on,
  EXISTS (SELECT 1 FROM developer_passkeys p WHERE p.developer_id = developers.id) AS passkeys_on`;

export function developerQueries(db: Queryable) {
  return {
    /** Throws a unique violation (developers_email_key) when the email is taken. */
    async insert(d: { email: string; displayName: string; passwordHash: string; role: Role }): Promise<DeveloperRow> {
      const r = await db.query<DeveloperRow>(
        `INSERT INTO developers (email, display_name, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING ${BASE}, false AS totp_on, false AS passkeys_on`,
        [d.email, d.displayName, d.passwordHash, d.role],
      );
      return r.rows[0];
    },
    async byEmail(email: string): Promise<DeveloperRow | undefined> {
      const r = await db.query<DeveloperRow>(`SELECT ${COLUMNS} FROM developers WHERE lower(email) = lower($1)`, [email]);
      return r.rows[0];
    },
    async byId(id: string): Promise<DeveloperRow | undefined> {
      const r = await db.query<DeveloperRow>(`SELECT ${COLUMNS} FROM developers WHERE id = $1`, [id]);
      return r.rows[0];
    },
    /** Serialises the super-admin seeding of nodes starting together (held until the transaction ends). */
    async lockSuperAdminSeed(): Promise<void> {
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('registry:seed-super-admin'))`);
    },
    async superAdmins(): Promise<DeveloperRow[]> {
      return (await db.query<DeveloperRow>(`SELECT ${COLUMNS} FROM developers WHERE role = 'super-admin'`)).rows;
    },
    async setRole(id: string, role: Role): Promise<void> {
      await db.query(`UPDATE developers SET role = $2, updated_at = now() WHERE id = $1`, [id, role]);
    },
    async setPasswordHash(id: string, hash: string): Promise<void> {
      await db.query(`UPDATE developers SET password_hash = $2, updated_at = now() WHERE id = $1`, [id, hash]);
    },
    async list(): Promise<DeveloperRow[]> {
      return (await db.query<DeveloperRow>(`SELECT ${COLUMNS} FROM developers ORDER BY created_at, id`)).rows;
    },
  };
}
