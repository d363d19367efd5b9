/** Reports to moderation (kept after erasure, anonymised by the foreign keys). */
import type { Queryable } from '@platform/kit';

export async function insertReport(
  db: Queryable,
  r: { reporter: string; target: string; reason: string; context: string | null; gameId: string | null },
): Promise<void> {
  await db.query('INSERT INTO reports (reporter, target, reason, context, game_id) VALUES ($1, $2, $3, $4, $5)', [r.reporter, r.target, r.reason, r.context, r.gameId]);
}
