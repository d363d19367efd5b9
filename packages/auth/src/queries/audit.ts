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
  | 'role_change'
  // email flows (migration 0004)
  | 'password_reset'
  | 'email_verified'
  | 'email_change'
  | 'appeal'
  | 'appeal_decision'
  | 'factor_added'
  | 'factor_removed'
  // passkeys (migration 0011)
  | 'passkey_rejected';

export interface AuditEntry {
  accountId: string | null;
  event: AuditEvent;
  ip: string | null;
  nodeId: string;
  /** Who acted (services/audit.ts); null: no signed-in caller. */
  actor: string | null;
  detail: Record<string, unknown>;
}

export async function insertAuditEntry(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query('INSERT INTO audit_log (account_id, event, ip, node_id, actor, detail) VALUES ($1, $2, $3, $4, $5, $6)', [
    e.accountId,
    e.event,
    e.ip,
    e.nodeId,
    e.actor,
    JSON.stringify(e.detail),
  ]);
}

export interface AuditRow {
  id: string;
  event: string;
  ip: string | null;
  node_id: string;
  actor: string | null;
  detail: Record<string, unknown>;
  at: Date;
}

/** The account's audit entries, oldest first (privacy export). */
export async function auditOf(db: Queryable, accountId: string): Promise<AuditRow[]> {
  return (await db.query<AuditRow>(`SELECT id, event, ip, node_id, actor, detail, at FROM audit_log WHERE account_id = $1 ORDER BY at, id`, [accountId])).rows;
}

/** The account's latest audit entries, newest first (an operator's lookup). */
export async function latestAuditOf(db: Queryable, accountId: string, limit: number) {
  const r = await db.query<AuditRow>(
    `SELECT id, event, ip, node_id, actor, detail, at FROM audit_log WHERE account_id = $1 ORDER BY at DESC, id DESC LIMIT $2`,
    [accountId, limit],
  );
  return r.rows;
}
