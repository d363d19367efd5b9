/**
 * What every change to a game's credentials (or to the game context they give) goes through, once it is
 * committed: the validate-key cache entries it makes stale are dropped on every registry node (api-key-cache.ts),
 * and the notice (kit GAME_CREDENTIALS_CHANNEL) is published on the bus shared with the other services, so social
 * refuses a replaced credential at once on every node (docs/registry.md, "Credential notices").
 */
import { encodeGameCredentialsNotice, GAME_CREDENTIALS_CHANNEL, type App, type GameCredentialsNotice, type StateStore } from '@platform/kit';
import { clientCacheKey, type ApiKeyCache } from './api-key-cache.js';

export interface GameNotices {
  /** Drops the stale cache entries here and on the other registry nodes, then tells the other services. */
  announce(notice: Omit<GameCredentialsNotice, 'at'>): Promise<void>;
}

/**
 * The change is committed when this runs, so a state store that is down does not fail the request (the developer
 * would lose the new secret the answer shows): this node's cache is dropped anyway, the failure is logged, and the
 * other nodes and services refuse the old credential once their cache entries lapse (5 s here, 10 s in social).
 */
export function gameNotices(cache: ApiKeyCache, bus: StateStore, log: App['log']): GameNotices {
  return {
    async announce(notice) {
      const stale: string[] = [];
      // The ApiKey entry holds the secret digest and the visibility: stale for every change but a client key's.
      if (notice.change !== 'client_key_replaced') stale.push(notice.apiKey);
      if (notice.clientKey) stale.push(clientCacheKey(notice.clientKey));
      const message = encodeGameCredentialsNotice({ ...notice, at: new Date().toISOString() });
      const sent = await Promise.allSettled([...stale.map((key) => cache.invalidate(key)), bus.publish(GAME_CREDENTIALS_CHANNEL, message)]);
      const failed = sent.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        log.error({ err: failed.reason, gameId: notice.gameId, change: notice.change }, 'game credentials change not announced: other nodes refuse the old credential when their caches lapse');
      }
    },
  };
}
