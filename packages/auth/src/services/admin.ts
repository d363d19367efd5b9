/** Operator actions on accounts (role admin). Key rotation is in keys.ts. */
import type { Database } from '@platform/kit';
import { accountNotFound } from '../errors.js';
import { setAccountStatus } from '../queries/accounts.js';
import { spendTokensOfSessions } from '../queries/refresh-tokens.js';
import { revokeAccountSessions } from '../queries/sessions.js';
import { audit, type AuditContext } from './audit.js';

export type OperatorStatus = 'active' | 'locked' | 'banned';

/** Transition of the account status; locking or banning ends every session (the caller denies their sids). */
export async function changeAccountStatus(
  db: Database,
  accountId: string,
  status: OperatorStatus,
  ctx: AuditContext,
): Promise<{ id: string; status: OperatorStatus; sessions: string[] }> {
  return db.transaction(async (tx) => {
    if (!(await setAccountStatus(tx, accountId, status))) throw accountNotFound();
    let sessions: string[] = [];
    if (status !== 'active') {
      sessions = await revokeAccountSessions(tx, accountId);
      await spendTokensOfSessions(tx, sessions);
      await audit(tx, ctx, 'logout', accountId, { by: 'admin', status, sessions_revoked: sessions.length });
    }
    return { id: accountId, status, sessions };
  });
}
