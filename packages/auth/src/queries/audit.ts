/** The audit_log table: who did what, from where, on which node. */
import type { Queryable } from '@platform/kit';

export type AuditEvent =
  | 'login'
  | 'logout'
  | 'refresh'
  | 'link'
  | 'unlink'
  | 'lockout'
  | 'delete'
  | 'key_rotation'
  | 'sanction'
  | 'sanction_lift'
  | 'sanction_expiry'
  | 'role_change';

export interface AuditEntry {
  accountId: string | null;
  event: AuditEvent;
  ip: string | null;
  nodeId: string;
  detail: Record<string, unknown>;
}

export async function insertAuditEntry(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query('INSERT INTO audit_log (account_id, event, ip, node_id, detail) VALUES ($1, $2, $3, $4, $5)', [
    e.accountId,
    e.event,
    e.ip,
    e.nodeId,
    JSON.stringify(e.detail),
  ]);
}

/** The account's audit entries, oldest first (privacy export). */
export async function auditOf(db: Queryable, accountId: string): Promise<Record<string, unknown>[]> {
  return (await db.query(`SELECT id, event, ip, node_id, detail, at FROM audit_log WHERE account_id = $1 ORDER BY at`, [accountId])).rows;
}

/** The account's latest audit entries, newest first (an operator's lookup). */
export async function latestAuditOf(db: Queryable, accountId: string, limit: number) {
  const r = await db.query<{ id: string; event: string; ip: string | null; node_id: string; detail: Record<string, unknown>; at: Date }>(
    `SELECT id, event, ip, node_id, detail, at FROM audit_log WHERE account_id = $1 ORDER BY at DESC, id DESC LIMIT $2`,
    [accountId, limit],
  );
  return r.rows;
}
