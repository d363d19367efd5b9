/** Counts for the registry's metrics (services/metrics.ts), read at each scrape: small tables only. */
import type { Queryable } from '@platform/kit';

export interface RegistryCounts {
  developers: number;
  games: number;
  module_builds: number;
}

export async function registryCounts(db: Queryable): Promise<RegistryCounts> {
  const r = await db.query<{ developers: string; games: string; module_builds: string }>(
    `SELECT (SELECT count(*) FROM developers) AS developers, (SELECT count(*) FROM games) AS games, (SELECT count(*) FROM module_builds) AS module_builds`,
  );
  const row = r.rows[0];
  return { developers: Number(row.developers), games: Number(row.games), module_builds: Number(row.module_builds) };
}
