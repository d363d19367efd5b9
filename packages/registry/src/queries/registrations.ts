import type { Queryable } from '@platform/kit';

export interface RegistrationRow {
  id: string;
  game_id: string;
  user_id: string;
  display_name: string | null;
  registered_at: Date;
}

const COLUMNS = 'id, game_id, user_id, display_name, registered_at';

export function registrationQueries(db: Queryable) {
  return {
    async byGame(gameId: string): Promise<RegistrationRow[]> {
      return (await db.query<RegistrationRow>(`SELECT ${COLUMNS} FROM user_registrations WHERE game_id = $1 ORDER BY registered_at, id`, [gameId])).rows;
    },
    /** Idempotent: one row per (game, user); a repeat keeps the row and updates a given display name. */
    async upsert(gameId: string, userId: string, displayName: string | null): Promise<RegistrationRow> {
      const r = await db.query<RegistrationRow>(
        `INSERT INTO user_registrations (game_id, user_id, display_name) VALUES ($1, $2, $3)
         ON CONFLICT (game_id, user_id) DO UPDATE SET display_name = COALESCE(EXCLUDED.display_name, user_registrations.display_name)
         RETURNING id, game_id, user_id, display_name, registered_at`,
        [gameId, userId, displayName],
      );
      return r.rows[0];
    },
    async all(): Promise<RegistrationRow[]> {
      return (await db.query<RegistrationRow>(`SELECT ${COLUMNS} FROM user_registrations ORDER BY registered_at, id`)).rows;
    },
  };
}
