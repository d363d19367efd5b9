/** The appeals table (docs/auth.md, "Appeals"): one per sanction, filed by its player, decided by staff. */
import type { Queryable } from '@platform/kit';

export type AppealStatus = 'open' | 'upheld' | 'shortened' | 'lifted';

export interface AppealRow {
  id: string;
  sanction_id: string;
  account_id: string;
  reason: string;
  text: string;
  status: AppealStatus;
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  response: string | null;
  previous_expires_at: Date | null;
  new_expires_at: Date | null;
}

const COLUMNS = 'id, sanction_id, account_id, reason, text, status, created_at, decided_at, decided_by, response, previous_expires_at, new_expires_at';

/** The new appeal, or undefined when the sanction has one already. */
export async function insertAppeal(tx: Queryable, a: { sanctionId: string; accountId: string; reason: string; text: string }): Promise<AppealRow | undefined> {
  const r = await tx.query<AppealRow>(
    `INSERT INTO appeals (sanction_id, account_id, reason, text) VALUES ($1, $2, $3, $4) ON CONFLICT (sanction_id) DO NOTHING RETURNING ${COLUMNS}`,
    [a.sanctionId, a.accountId, a.reason, a.text],
  );
  return r.rows[0];
}

export async function lockAppeal(tx: Queryable, id: string): Promise<AppealRow | undefined> {
  return (await tx.query<AppealRow>(`SELECT ${COLUMNS} FROM appeals WHERE id = $1 FOR UPDATE`, [id])).rows[0];
}

export async function appealById(db: Queryable, id: string): Promise<AppealRow | undefined> {
  return (await db.query<AppealRow>(`SELECT ${COLUMNS} FROM appeals WHERE id = $1`, [id])).rows[0];
}

/** The account's appeals, newest first. */
export async function appealsOf(db: Queryable, accountId: string): Promise<AppealRow[]> {
  return (await db.query<AppealRow>(`SELECT ${COLUMNS} FROM appeals WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [accountId])).rows;
}

/** The queue: appeals of one status, oldest first, after a keyset position (created_at, id). */
export async function appealsByStatus(db: Queryable, status: AppealStatus, after: { at: string; id: string } | undefined, limit: number): Promise<AppealRow[]> {
  const r = after
    ? await db.query<AppealRow>(
        `SELECT ${COLUMNS} FROM appeals WHERE status = $1 AND (created_at, id) > ($2::timestamptz, $3::uuid) ORDER BY created_at, id LIMIT $4`,
        [status, after.at, after.id, limit],
      )
    : await db.query<AppealRow>(`SELECT ${COLUMNS} FROM appeals WHERE status = $1 ORDER BY created_at, id LIMIT $2`, [status, limit]);
  return r.rows;
}

export async function decideAppeal(
  tx: Queryable,
  id: string,
  d: { status: Exclude<AppealStatus, 'open'>; by: string; response: string | null; previousExpiresAt: Date | null; newExpiresAt: Date | null },
): Promise<AppealRow> {
  const r = await tx.query<AppealRow>(
    `UPDATE appeals SET status = $2, decided_at = now(), decided_by = $3, response = $4, previous_expires_at = $5, new_expires_at = $6
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, d.status, d.by, d.response, d.previousExpiresAt, d.newExpiresAt],
  );
  return r.rows[0]!;
}

/** Moves an active sanction's end earlier (a shortening); the sweeper ends it when the new end passes. */
export async function shortenSanction(tx: Queryable, sanctionId: string, expiresAt: Date): Promise<void> {
  await tx.query('UPDATE sanctions SET expires_at = $2 WHERE id = $1', [sanctionId, expiresAt]);
}

/** The appeal decision notice (`appeal` topic), inside the decision's transaction. */
export async function insertAppealNotice(tx: Queryable, id: string, payload: Record<string, unknown>): Promise<void> {
  await tx.query(`INSERT INTO outbox (id, topic, payload) VALUES ($1, 'appeal', $2)`, [id, JSON.stringify(payload)]);
}
