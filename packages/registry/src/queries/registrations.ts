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
    async all(): Promise<RegistrationRow[]> {
      return (await db.query<RegistrationRow>(`SELECT ${COLUMNS} FROM user_registrations ORDER BY registered_at, id`)).rows;
    },
  };
}
