/** Audit entries: who did what, from where, on which node. */
import type { Queryable } from '@platform/kit';

export type AuditEvent = 'login' | 'logout' | 'refresh' | 'link' | 'unlink' | 'lockout' | 'delete' | 'key_rotation';

export interface AuditContext {
  nodeId: string;
  ip?: string | null;
}

export async function audit(
  db: Queryable,
  ctx: AuditContext,
  event: AuditEvent,
  accountId: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await db.query('INSERT INTO audit_log (account_id, event, ip, node_id, detail) VALUES ($1, $2, $3, $4, $5)', [
    accountId,
    event,
    ctx.ip ?? null,
    ctx.nodeId,
    JSON.stringify(detail),
  ]);
}
