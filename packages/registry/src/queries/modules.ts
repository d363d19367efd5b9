import type { Queryable } from '@platform/kit';

export interface ModuleBuildRow {
  id: string;
  game_id: string;
  packaging: 'wasm' | 'native';
  version: string;
  size_bytes: number;
  sha256: string | null;
  admitted: boolean;
  schedulable: boolean;
  imports: string[];
  created_at: Date;
}

const COLUMNS = 'id, game_id, packaging, version, size_bytes, sha256, admitted, schedulable, imports, created_at';

export function moduleQueries(db: Queryable) {
  return {
    /** Throws a unique violation (module_builds_game_version) for a repeated Version. */
    async insert(b: Omit<ModuleBuildRow, 'id' | 'created_at'>): Promise<ModuleBuildRow> {
      const r = await db.query<ModuleBuildRow>(
        `INSERT INTO module_builds (game_id, packaging, version, size_bytes, sha256, admitted, schedulable, imports)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) RETURNING ${COLUMNS}`,
        [b.game_id, b.packaging, b.version, b.size_bytes, b.sha256, b.admitted, b.schedulable, JSON.stringify(b.imports)],
      );
      return r.rows[0];
    },
    async byGame(gameId: string): Promise<ModuleBuildRow[]> {
      return (await db.query<ModuleBuildRow>(`SELECT ${COLUMNS} FROM module_builds WHERE game_id = $1 ORDER BY created_at, id`, [gameId])).rows;
    },
    async referencesTo(sha256: string): Promise<number> {
      const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM module_builds WHERE sha256 = $1`, [sha256]);
      return r.rows[0].n;
    },
    /** Serialises blob writes and deletions of one digest across nodes (inside a transaction). */
    async lockBlob(sha256: string): Promise<void> {
      await db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`registry:blob:${sha256}`]);
    },
  };
}
