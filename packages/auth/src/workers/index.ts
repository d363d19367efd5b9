/**
 * The auth service's background work on every node (kit Worker: started after build, stopped when the app closes):
 * key cache refresh and rotation steps, retention, the sanction sweep, key rotation notices, outbox delivery.
 */
import { periodicWorker, type Worker } from '@platform/kit';
import type { AuthApp } from '../app.js';
import type { AuthConfig } from '../config.js';
import { deleteStaleEmailTokens } from '../queries/email-tokens.js';
import { KEY_ROTATION_CHANNEL } from '../services/keys.js';
import { purgeExpiredDeviceGrants } from '../services/device-grants.js';
import { purgeDecayedGuestSignals } from '../services/retention.js';

export function authWorkers(app: AuthApp, config: AuthConfig): Worker[] {
  const ctx = app.auth;
  const log = app.log;
  let unsubscribe: (() => Promise<void>) | undefined;
  return [
    periodicWorker('key refresh', config.keyRefreshSeconds * 1000, ctx.refreshKeys, log),
    periodicWorker(
      'purge',
      config.purgeIntervalSeconds * 1000,
      async () => {
        await app.purgeDeletedAccounts();
        await app.pruneIdleGuests();
        await ctx.outbox.purgeDelivered();
        await purgeExpiredDeviceGrants(ctx);
        await deleteStaleEmailTokens(ctx.db);
        await purgeDecayedGuestSignals(ctx);
      },
      log,
    ),
    periodicWorker('sanction sweep', config.sanctionSweepSeconds * 1000, () => app.sweepSanctions(), log),
    {
      // Another node rotated the signing key: reload at once rather than at the next refresh. The arrival is the
      // notice: no member is read, so every version is (docs/decisions/0020-versioned-messages.md).
      name: 'key rotation notices',
      async start() {
        unsubscribe = await ctx.state
          .subscribe(KEY_ROTATION_CHANNEL, () => void ctx.keys.reload().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'key reload failed')))
          .catch(() => undefined);
      },
      stop: () => unsubscribe?.().catch(() => {}),
    },
    { name: 'outbox delivery', start: () => ctx.outbox.start(), stop: () => ctx.outbox.stop() },
  ];
}
