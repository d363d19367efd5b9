/** The sanctions table (docs/auth.md, "Sanctions"): bans, chat mutes and studio-named features of accounts. */
import type { Queryable } from '@platform/kit';

export interface SanctionRow {
  id: string;
  account_id: string;
  type: string;
  reason: string;
  created_at: Date;
  created_by: string;
  expires_at: Date | null;
  lifted_at: Date | null;
  lifted_by: string | null;
  lift_reason: string | null;
  ended_at: Date | null;
  /** Not lifted and not past expires_at (the database's clock). */
  active: boolean;
}

const COLUMNS = `id, account_id, type, reason, created_at, created_by, expires_at, lifted_at, lifted_by, lift_reason, ended_at,
  (lifted_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS active`;

export async function insertSanction(
  tx: Queryable,
  s: { accountId: string; type: string; reason: string; createdBy: string; expiresAt: Date | null },
): Promise<SanctionRow> {
  const r = await tx.query<SanctionRow>(
    `INSERT INTO sanctions (account_id, type, reason, created_by, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [s.accountId, s.type, s.reason, s.createdBy, s.expiresAt],
  );
  return r.rows[0];
}

export async function sanctionById(db: Queryable, id: string): Promise<SanctionRow | undefined> {
  return (await db.query<SanctionRow>(`SELECT ${COLUMNS} FROM sanctions WHERE id = $1`, [id])).rows[0];
}

/** The rows of these ids (one query for a page of them), by id. */
export async function sanctionsByIds(db: Queryable, ids: string[]): Promise<Map<string, SanctionRow>> {
  if (!ids.length) return new Map();
  const rows = (await db.query<SanctionRow>(`SELECT ${COLUMNS} FROM sanctions WHERE id = ANY($1::uuid[])`, [[...new Set(ids)]])).rows;
  return new Map(rows.map((r) => [r.id, r]));
}

/** The row, locked until the transaction ends (a lift against the sweeper or another lift). */
export async function lockSanction(tx: Queryable, id: string): Promise<SanctionRow | undefined> {
  return (await tx.query<SanctionRow>(`SELECT ${COLUMNS} FROM sanctions WHERE id = $1 FOR UPDATE`, [id])).rows[0];
}

/** Every sanction of the account, newest first. */
export async function sanctionsOf(db: Queryable, accountId: string, opts: { activeOnly?: boolean } = {}): Promise<SanctionRow[]> {
  const active = opts.activeOnly ? `AND lifted_at IS NULL AND (expires_at IS NULL OR expires_at > now())` : '';
  const r = await db.query<SanctionRow>(`SELECT ${COLUMNS} FROM sanctions WHERE account_id = $1 ${active} ORDER BY created_at DESC, id DESC`, [accountId]);
  return r.rows;
}

/** The active ban ending last (a permanent one first), if any. */
export async function activeBan(db: Queryable, accountId: string): Promise<SanctionRow | undefined> {
  const r = await db.query<SanctionRow>(
    `SELECT ${COLUMNS} FROM sanctions
      WHERE account_id = $1 AND type = 'ban' AND lifted_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      ORDER BY expires_at DESC NULLS FIRST LIMIT 1`,
    [accountId],
  );
  return r.rows[0];
}

/** The latest ban, active or not (what a banned account's sign-in names when the sweeper has not run yet). */
export async function latestBan(db: Queryable, accountId: string): Promise<SanctionRow | undefined> {
  const r = await db.query<SanctionRow>(`SELECT ${COLUMNS} FROM sanctions WHERE account_id = $1 AND type = 'ban' ORDER BY created_at DESC LIMIT 1`, [accountId]);
  return r.rows[0];
}

export async function liftSanction(tx: Queryable, id: string, by: string, reason: string | null): Promise<SanctionRow> {
  const r = await tx.query<SanctionRow>(
    `UPDATE sanctions SET lifted_at = now(), lifted_by = $2, lift_reason = $3, ended_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, by, reason],
  );
  return r.rows[0];
}

/** Lifts every active ban of the account (the status endpoint's reactivation); returns them. */
export async function liftActiveBans(tx: Queryable, accountId: string, by: string, reason: string): Promise<SanctionRow[]> {
  const r = await tx.query<SanctionRow>(
    `UPDATE sanctions SET lifted_at = now(), lifted_by = $2, lift_reason = $3, ended_at = now()
      WHERE account_id = $1 AND type = 'ban' AND lifted_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      RETURNING ${COLUMNS}`,
    [accountId, by, reason],
  );
  return r.rows;
}

/** Claims up to `limit` sanctions past expires_at not yet ended (skipping rows another node holds) and ends them. */
export async function endExpiredSanctions(tx: Queryable, limit: number): Promise<SanctionRow[]> {
  const r = await tx.query<SanctionRow>(
    `UPDATE sanctions s SET ended_at = now()
       FROM (SELECT id FROM sanctions WHERE ended_at IS NULL AND lifted_at IS NULL AND expires_at <= now()
              ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
      WHERE s.id = due.id
      RETURNING s.id, s.account_id, s.type, s.reason, s.created_at, s.created_by, s.expires_at, s.lifted_at, s.lifted_by, s.lift_reason,
                s.ended_at, false AS active`,
    [limit],
  );
  return r.rows;
}

/** The sanction notice (`sanction` topic), inside the transaction of the change it announces. */
export async function insertSanctionNotice(tx: Queryable, id: string, payload: Record<string, unknown>): Promise<void> {
  await tx.query(`INSERT INTO outbox (id, topic, payload) VALUES ($1, 'sanction', $2)`, [id, JSON.stringify(payload)]);
}
