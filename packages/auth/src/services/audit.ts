/** Audit entries: who did what, from where, on which node. */
import type { Queryable } from '@platform/kit';
import { insertAuditEntry, type AuditEvent, type AuditRow } from '../queries/audit.js';

export type { AuditEvent } from '../queries/audit.js';

export interface AuditContext {
  nodeId: string;
  ip?: string | null;
  /**
   * Who acted: the authenticated caller's subject (an account id or service:<name>), `cli`, or none (no one
   * signed in: a sign-in attempt, a background sweep). Set by auditCtx(req) from the request's verified caller.
   */
  actor?: string | null;
}

export async function audit(
  db: Queryable,
  ctx: AuditContext,
  event: AuditEvent,
  accountId: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await insertAuditEntry(db, { accountId, event, ip: ctx.ip ?? null, nodeId: ctx.nodeId, actor: ctx.actor ?? null, detail });
}

/** Keys that name who acted, whatever the entry (older entries kept the staff member as detail.by). */
const ACTOR_KEYS = new Set(['by', 'actor', 'created_by', 'lifted_by', 'on_behalf_of', 'ip', 'email']);

/** The detail without any key naming an actor and without any value that is (or holds) the actor's id. */
function withoutActor(detail: Record<string, unknown>, actor: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (ACTOR_KEYS.has(k)) continue;
    if (typeof v === 'string' && v.includes(actor)) continue;
    out[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? withoutActor(v as Record<string, unknown>, actor) : v;
  }
  return out;
}

/**
 * An audit entry as the account's owner reads it (the export). Entries the owner wrote, or that no signed-in
 * caller wrote (sign-in attempts on the account, the sanction sweeper), are whole: `by` is `self` or `none`.
 * An entry someone else wrote (a moderator, an admin, the grant-role command, a platform service) keeps its
 * event, time and what changed, but never that actor's id nor address: `by` is `staff` or `platform`, `ip` null.
 */
export function ownAuditEntry(row: AuditRow, accountId: string) {
  const at = new Date(row.at).toISOString();
  if (row.actor === null || row.actor === accountId) {
    return { id: row.id, event: row.event, by: row.actor === null ? 'none' : 'self', ip: row.ip, node_id: row.node_id, detail: row.detail, at };
  }
  const by = row.actor.startsWith('service:') ? 'platform' : 'staff';
  return { id: row.id, event: row.event, by, ip: null, node_id: row.node_id, detail: withoutActor(row.detail, row.actor), at };
}
