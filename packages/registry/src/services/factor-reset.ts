/**
 * The super-admin's reset of a developer's second factors (docs/registry.md, "Lost factors"; decision 0031): for a
 * developer who lost every device with a factor and every recovery code (a passkey has none). The authenticator
 * (with its recovery codes) and every passkey go, and the token generation moves, so every token of the developer
 * stops working; the password signs in alone afterwards. Logged with the super-admin and the reason (the registry has
 * no audit table). Who asks is the super-admin's check, outside the service.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.js';
import { fail } from '../errors.js';
import { developerQueries } from '../queries/developers.js';
import { passkeyQueries } from '../queries/passkeys.js';
import { secondFactorQueries } from '../queries/second-factors.js';
import type { Caller } from './auth.js';

export async function resetDeveloperFactors(
  ctx: Context,
  admin: Pick<Caller, 'id'>,
  developerId: string,
  reason: string,
  log: Pick<FastifyBaseLogger, 'info'>,
): Promise<{ TotpRemoved: boolean; PasskeysRemoved: number }> {
  const removed = await ctx.db.transaction(async (tx) => {
    if (!(await developerQueries(tx).byId(developerId))) throw fail('developer_not_found', 'No developer has this id');
    const q = secondFactorQueries(tx);
    const totp = await q.totpOf(developerId, { lock: true });
    if (totp) await q.remove(developerId);
    const passkeys = await passkeyQueries(tx).removeAll(developerId);
    await q.bumpTokenGeneration(developerId);
    return { TotpRemoved: Boolean(totp?.confirmed_at), PasskeysRemoved: passkeys };
  });
  log.info({ developerId, event: 'factors_reset', by: admin.id, reason, ...removed }, 'developer second factors reset by the super-admin');
  return removed;
}
