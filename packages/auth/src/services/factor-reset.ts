/**
 * An admin's reset of an account's sign-in factors (docs/auth.md, "Resetting lost factors"; decision 0031): for a
 * player who lost every device holding a factor and every recovery code. The authenticator app (with its recovery
 * codes) and every passkey go, every session ends (a reset may follow a takeover), the reason and the admin are in
 * the audit log, and the owner is told by email so a reset they did not ask for does not go unseen. Who may ask is
 * support's check, outside the service; the route is the admin role's only.
 */
import type { AuthContext } from '../context.js';
import { accountNotFound } from '../errors.js';
import { accountListRow, lockAccount } from '../queries/accounts.js';
import { deleteAllPasskeys } from '../queries/passkeys.js';
import { deleteTotp, totpOf } from '../queries/second-factors.js';
import { audit, type AuditContext } from './audit.js';
import { mailContext } from './email.js';
import { factorsResetMail } from './mail-templates.js';
import type { Actor } from './sanctions.js';

export interface FactorReset {
  totp_removed: boolean;
  passkeys_removed: number;
  sessions_revoked: number;
}

export async function resetFactors(ctx: AuthContext, actor: Actor, accountId: string, reason: string, who: AuditContext): Promise<FactorReset> {
  const { sessions, value } = await ctx.revoker.revoke(
    { reason: 'factors_reset', accountId },
    {
      before: async (tx) => {
        const a = await lockAccount(tx, accountId);
        if (!a || a.status === 'deleted') throw accountNotFound();
        const totp = await totpOf(tx, accountId, { lock: true });
        if (totp) await deleteTotp(tx, accountId);
        return { totp: Boolean(totp?.confirmed_at), passkeys: await deleteAllPasskeys(tx, accountId) };
      },
      after: (tx, ended, removed) =>
        audit(tx, who, 'factor_removed', accountId, { factor: 'all', by: actor.id, reason, totp: removed.totp, passkeys: removed.passkeys, sessions_revoked: ended.length }),
    },
  );
  const row = await accountListRow(ctx.db, accountId);
  if (row?.email) ctx.mailer.enqueue(factorsResetMail(mailContext(ctx.config), row.email));
  return { totp_removed: value.totp, passkeys_removed: value.passkeys, sessions_revoked: sessions.length };
}
