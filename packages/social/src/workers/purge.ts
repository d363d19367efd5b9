/** The hourly purge of chat, notifications, match rosters and friend-request declines past their retention (docs/social.md), on every node. */
import { periodicWorker, type Worker } from '@platform/kit';
import type { SocialApp } from '../app.js';
import { purgeChat } from '../services/chat.js';
import { purgeNotifications } from '../services/notifications.js';
import { purgeOldMatches, purgeOldDeclines } from '../services/matches.js';

export const PURGE_INTERVAL_MS = 3_600_000;

export function purgeWorker(app: SocialApp): Worker {
  return periodicWorker(
    'retention purge',
    PURGE_INTERVAL_MS,
    async () => {
      // Each on its own: a failed chat purge does not keep notifications past their retention.
      const kinds = ['chat', 'notification', 'match', 'decline'];
      const results = await Promise.allSettled([purgeChat(app.ctx), purgeNotifications(app.ctx), purgeOldMatches(app.ctx), purgeOldDeclines(app.ctx)]);
      for (const [i, r] of results.entries()) {
        if (r.status === 'rejected') app.log.warn({ err: r.reason }, `${kinds[i]} purge failed`);
      }
    },
    app.log,
  );
}
