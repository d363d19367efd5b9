/**
 * The outbox and outbox_deliveries tables: notices written in the transaction of the change they announce,
 * and one delivery row per notice and target, claimed with FOR UPDATE SKIP LOCKED under a lease.
 */
import type { Queryable } from '@platform/kit';

export interface ClaimedDelivery {
  outbox_id: string;
  target: string;
  attempts: number;
  payload: Record<string, unknown>;
}

/** The account.deleted notice (`{type: 'account.deleted', account_id, deleted_at}`, as services/notice-wire.ts writes it), inside the deletion's transaction. */
export async function insertAccountDeletedNotice(tx: Queryable, payload: Record<string, unknown>): Promise<void> {
  await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('account.deleted', $1)`, [JSON.stringify(payload)]);
}

/** The key_rotation notice (`{type: 'key_rotation', kid, retire_previous}`, as services/notice-wire.ts writes it), inside the rotation's transaction. */
export async function insertKeyRotationNotice(tx: Queryable, payload: Record<string, unknown>): Promise<void> {
  await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('key_rotation', $1)`, [JSON.stringify(payload)]);
}

/** A revocation notice (services/revocation.ts), inside the transaction that ends the sessions; its id is the bus message's. */
export async function insertRevocationNotice(tx: Queryable, id: string, payload: Record<string, unknown>): Promise<void> {
  await tx.query(`INSERT INTO outbox (id, topic, payload) VALUES ($1, 'revocation', $2)`, [id, JSON.stringify(payload)]);
}

/** Every pending notice gets a delivery row per target (a target added later catches up). */
export async function fanOutNotices(db: Queryable, targets: string[]): Promise<void> {
  await db.query(
    `INSERT INTO outbox_deliveries (outbox_id, target)
       SELECT o.id, t.target FROM outbox o CROSS JOIN unnest($1::text[]) AS t(target)
       WHERE o.delivered_at IS NULL
       ON CONFLICT DO NOTHING`,
    [targets],
  );
}

/** Claims up to `limit` due deliveries for `leaseSeconds` (counted as an attempt), with their notices' payloads. */
export async function claimDueDeliveries(tx: Queryable, targets: string[], limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  const r = await tx.query<ClaimedDelivery>(
    `UPDATE outbox_deliveries d
                SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $3::int)
               FROM (SELECT outbox_id, target FROM outbox_deliveries
                      WHERE delivered_at IS NULL AND next_attempt_at <= now() AND target = ANY($1::text[])
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) due, outbox o
              WHERE d.outbox_id = due.outbox_id AND d.target = due.target AND o.id = d.outbox_id
          RETURNING d.outbox_id, d.target, d.attempts, o.payload`,
    [targets, limit, leaseSeconds],
  );
  return r.rows;
}

export async function markDelivered(db: Queryable, outboxId: string, target: string): Promise<void> {
  await db.query(`UPDATE outbox_deliveries SET delivered_at = now(), last_error = NULL WHERE outbox_id = $1 AND target = $2`, [outboxId, target]);
}

export async function scheduleRetry(db: Queryable, outboxId: string, target: string, delaySeconds: number, error: string): Promise<void> {
  await db.query(
    `UPDATE outbox_deliveries SET next_attempt_at = now() + make_interval(secs => $3::int), last_error = $4 WHERE outbox_id = $1 AND target = $2`,
    [outboxId, target, delaySeconds, error],
  );
}

/** A notice is done once every configured target acknowledged it. */
export async function closeDeliveredNotices(db: Queryable, targets: string[]): Promise<void> {
  await db.query(
    `UPDATE outbox o SET delivered_at = now(), attempts = (SELECT COALESCE(max(attempts), 0) FROM outbox_deliveries d WHERE d.outbox_id = o.id)
        WHERE o.delivered_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM unnest($1::text[]) AS t(target)
                           WHERE NOT EXISTS (SELECT 1 FROM outbox_deliveries d
                                              WHERE d.outbox_id = o.id AND d.target = t.target AND d.delivered_at IS NOT NULL))`,
    [targets],
  );
}

/** Deletes notices closed more than `days` ago (their delivery rows cascade). */
export async function deleteDeliveredNotices(db: Queryable, days: number): Promise<number> {
  const r = await db.query(`DELETE FROM outbox WHERE delivered_at < now() - make_interval(days => $1::int)`, [days]);
  return r.rowCount ?? 0;
}
