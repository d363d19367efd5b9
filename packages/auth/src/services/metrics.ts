/**
 * Auth's metrics (docs/auth.md, "Metrics"), on top of the kit's HTTP, process and database pool metrics:
 * refused rate limits by limit, password lockouts, outbox delivery attempts; read at each scrape: the outbox
 * backlog and its age, the signing keys' rotation state.
 */
import { createMetrics, databaseMetrics, perScrape, setOrAbsent, type Database, type LockoutHooks, type ServiceMetrics } from '@platform/kit';
import { authStats, type AuthStats } from '../queries/stats.js';
import type { KeyCache } from './keys.js';

export interface AuthMetrics {
  readonly metrics: ServiceMetrics;
  /** The kit rate limiter's `onLimited`. */
  rateLimited(limit: string): void;
  /** The password lockout's events. */
  readonly lockoutHooks: LockoutHooks;
  /** An outbox delivery attempt's outcome. */
  outboxAttempt(delivered: boolean): void;
}

type Stat = (s: AuthStats) => number | null;

export function createAuthMetrics(db: Database, keys: KeyCache): AuthMetrics {
  const metrics = createMetrics('auth');
  databaseMetrics(metrics, db);
  const limited = metrics.counter('rate_limited_total', 'Requests refused by a rate limit, by limit (all:ip, login:ip, login:ip_email …)', ['limit']);
  const lockouts = metrics.counter('lockouts_total', 'Sources locked out of a password credential after repeated wrong passwords');
  const lockedOut = metrics.counter('locked_out_attempts_total', 'Password sign-ins refused because their source is locked out (423 account_locked)');
  const attempts = metrics.counter('outbox_delivery_attempts_total', 'Outbox webhook deliveries by result (delivered: acknowledged with a 2xx; failed: retried later)', ['result']);

  // One query per scrape for every gauge below; absent when the database does not answer within a second.
  const read = perScrape(() => authStats(db));
  const fromStats = (name: string, help: string, pick: Stat) =>
    metrics.gauge(name, help, [], async (g) => {
      const s = await read();
      setOrAbsent(g, s && pick(s));
    });
  fromStats('outbox_pending_notices', 'Outbox notices not yet acknowledged by every target', (s) => s.pendingNotices);
  fromStats('outbox_oldest_pending_age_seconds', 'Age of the oldest outbox notice not yet acknowledged (0 when none)', (s) => s.oldestPendingSeconds);
  fromStats('outbox_pending_deliveries', 'Outbox deliveries (notice × target) not yet acknowledged', (s) => s.pendingDeliveries);
  fromStats('outbox_failing_deliveries', 'Outbox deliveries not yet acknowledged that failed at least once', (s) => s.failingDeliveries);
  fromStats('signing_key_active_age_seconds', 'Seconds since the active signing key started signing', (s) => s.activeKeyAgeSeconds);
  fromStats('signing_key_next_activation_seconds', 'Seconds until the next published key starts signing (absent when no rotation is under way)', (s) => s.nextKeyActivationSeconds);
  metrics.gauge('signing_keys', 'Signing keys in the database by state (published, active, retired)', ['state'], async (g) => {
    const s = await read();
    g.reset();
    if (s) for (const [state, n] of Object.entries(s.keysByState)) g.set({ state }, n);
  });
  metrics.gauge('signing_keys_published', 'Public keys in the key set this node serves (/.well-known/jwks.json)', [], (g) => {
    g.set(keys.jwks().keys.length);
  });

  return {
    metrics,
    rateLimited: (limit) => limited.inc({ limit }),
    lockoutHooks: { onLock: () => lockouts.inc(), onLockedOut: () => lockedOut.inc() },
    outboxAttempt: (delivered) => attempts.inc({ result: delivered ? 'delivered' : 'failed' }),
  };
}
