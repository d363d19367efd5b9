/** Operator actions on accounts (role admin). Key rotation is in keys.ts. */
import type { Database } from '@platform/kit';
import { accountNotFound } from '../errors.js';
import { setAccountStatus } from '../queries/accounts.js';
import { audit, type AuditContext } from './audit.js';
import type { Revoker } from './revocation.js';

export type OperatorStatus = 'active' | 'locked' | 'banned';

/**
 * Transition of the account status. Locking or banning ends every session through the revoker (deny set,
 * bus, outbox: open sockets close at once); reactivation ends nothing and announces nothing (docs/auth.md).
 */
export async function changeAccountStatus(
  db: Database,
  revoker: Revoker,
  accountId: string,
  status: OperatorStatus,
  ctx: AuditContext,
): Promise<{ id: string; status: OperatorStatus; sessions: string[] }> {
  if (status === 'active') {
    if (!(await setAccountStatus(db, accountId, status))) throw accountNotFound();
    return { id: accountId, status, sessions: [] };
  }
  const { sessions } = await revoker.revoke(
    { reason: status === 'banned' ? 'account_banned' : 'account_locked', accountId },
    {
      before: async (tx) => {
        if (!(await setAccountStatus(tx, accountId, status))) throw accountNotFound();
      },
      after: (tx, ended) => audit(tx, ctx, 'logout', accountId, { by: 'admin', status, sessions_revoked: ended.length }),
    },
  );
  return { id: accountId, status, sessions };
}
