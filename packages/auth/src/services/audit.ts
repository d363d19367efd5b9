/** Audit entries: who did what, from where, on which node. */
import type { Queryable } from '@platform/kit';
import { insertAuditEntry, type AuditEvent } from '../queries/audit.js';

export type { AuditEvent } from '../queries/audit.js';

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
  await insertAuditEntry(db, { accountId, event, ip: ctx.ip ?? null, nodeId: ctx.nodeId, detail });
}
