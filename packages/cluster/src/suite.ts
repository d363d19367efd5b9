/** One set-up for the cluster test suites that run on the shared PostgreSQL and Redis servers. */
import { before, after } from 'node:test';
import { claimSuiteStores, releaseSuiteStores, sharedStores, type RedisKind, type SuiteStores } from './stores.js';

/**
 * The suite's before and after hooks (nothing when the shared servers are not configured: the suite skips):
 * claims a fresh schema and Redis database `redisDb` (on the cluster, a key prefix), then runs `start` with
 * them; after, runs `stop` and releases them.
 */
export function onSuiteStores(
  schemaPrefix: string,
  redisDb: number,
  hooks: { start(suite: SuiteStores): Promise<void>; stop(): Promise<void> },
  kind: RedisKind = 'redis',
): void {
  const shared = sharedStores();
  let suite: SuiteStores | undefined;
  before(async () => {
    if ('skip' in shared) return;
    suite = await claimSuiteStores(shared, schemaPrefix, redisDb, kind);
    await hooks.start(suite);
  });
  after(async () => {
    if ('skip' in shared) return;
    await hooks.stop();
    await releaseSuiteStores(suite);
  });
}
