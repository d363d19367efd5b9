/** A developer's passkeys: WebAuthn credentials (docs/registry.md, "Passkeys"; migration 0006). */
import type { Queryable } from '@platform/kit';

export interface DeveloperPasskeyRow {
  id: string;
  developer_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'id, developer_id, credential_id, public_key, counter, transports, name, created_at, last_used_at';

export function passkeyQueries(db: Queryable) {
  return {
    async of(developerId: string): Promise<DeveloperPasskeyRow[]> {
      return (await db.query<DeveloperPasskeyRow>(`SELECT ${COLUMNS} FROM developer_passkeys WHERE developer_id = $1 ORDER BY created_at, id`, [developerId])).rows;
    },
    async byCredential(credentialId: string): Promise<DeveloperPasskeyRow | undefined> {
      return (await db.query<DeveloperPasskeyRow>(`SELECT ${COLUMNS} FROM developer_passkeys WHERE credential_id = $1`, [credentialId])).rows[0];
    },
    async count(developerId: string): Promise<number> {
      return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM developer_passkeys WHERE developer_id = $1', [developerId])).rows[0]?.n ?? 0;
    },
    /** Serialises the developer's concurrent registrations (held until the transaction ends), so the limit holds. */
    async lockDeveloper(developerId: string): Promise<void> {
      await db.query('SELECT 1 FROM developers WHERE id = $1 FOR UPDATE', [developerId]);
    },
    /** Throws a unique violation (developer_passkeys_credential_id) when the credential is registered already. */
    async insert(p: { id: string; developerId: string; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[]; name: string }): Promise<DeveloperPasskeyRow> {
      const r = await db.query<DeveloperPasskeyRow>(
        `INSERT INTO developer_passkeys (id, developer_id, credential_id, public_key, counter, transports, name) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [p.id, p.developerId, p.credentialId, Buffer.from(p.publicKey), p.counter, p.transports, p.name],
      );
      return r.rows[0];
    },
    /** An accepted assertion: the new counter (never lower: the caller checked) and the time of use. */
    async use(id: string, counter: number): Promise<void> {
      await db.query('UPDATE developer_passkeys SET counter = GREATEST(counter, $2), last_used_at = now() WHERE id = $1', [id, counter]);
    },
    /** Deletes one of the developer's passkeys; false when the developer has none with this id. */
    /** Every passkey of the developer (the super-admin's factor reset); how many there were. */
    async removeAll(developerId: string): Promise<number> {
      return (await db.query('DELETE FROM developer_passkeys WHERE developer_id = $1', [developerId])).rowCount;
    },
    async remove(developerId: string, id: string): Promise<boolean> {
      return (await db.query('DELETE FROM developer_passkeys WHERE id = $1 AND developer_id = $2', [id, developerId])).rowCount > 0;
    },
  };
}
