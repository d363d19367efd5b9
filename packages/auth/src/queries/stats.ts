/** Reads for auth's metrics (services/metrics.ts), at each scrape: the outbox backlog and the signing keys' state. */
import type { Queryable } from '@platform/kit';

export interface AuthStats {
  /** Notices not yet acknowledged by every target. */
  pendingNotices: number;
  /** Seconds since the oldest of them was written (0 when none). */
  oldestPendingSeconds: number;
  /** Deliveries (notice × target) not yet acknowledged, and those that failed at least once. */
  pendingDeliveries: number;
  failingDeliveries: number;
  /** Seconds since the active key started signing (null: none). */
  activeKeyAgeSeconds: number | null;
  /** Seconds until the next published key starts signing (null: none scheduled). */
  nextKeyActivationSeconds: number | null;
  keysByState: Record<'published' | 'active' | 'retired', number>;
}

export async function authStats(db: Queryable): Promise<AuthStats> {
  const r = await db.query<Record<string, string | null>>(
    `SELECT
       (SELECT count(*) FROM outbox WHERE delivered_at IS NULL) AS pending_notices,
       (SELECT COALESCE(extract(epoch FROM now() - min(created_at)), 0) FROM outbox WHERE delivered_at IS NULL) AS oldest_pending_seconds,
       (SELECT count(*) FROM outbox_deliveries WHERE delivered_at IS NULL) AS pending_deliveries,
       (SELECT count(*) FROM outbox_deliveries WHERE delivered_at IS NULL AND attempts > 0) AS failing_deliveries,
       (SELECT extract(epoch FROM now() - activated_at) FROM signing_keys WHERE state = 'active' LIMIT 1) AS active_key_age_seconds,
       (SELECT extract(epoch FROM min(activate_at) - now()) FROM signing_keys WHERE state = 'published' AND activate_at > now()) AS next_key_activation_seconds,
       (SELECT count(*) FROM signing_keys WHERE state = 'published') AS published,
       (SELECT count(*) FROM signing_keys WHERE state = 'active') AS active,
       (SELECT count(*) FROM signing_keys WHERE state = 'retired') AS retired`,
  );
  const row = r.rows[0];
  const n = (v: string | null) => (v === null ? null : Number(v));
  return {
    pendingNotices: Number(row.pending_notices),
    oldestPendingSeconds: Number(row.oldest_pending_seconds),
    pendingDeliveries: Number(row.pending_deliveries),
    failingDeliveries: Number(row.failing_deliveries),
    activeKeyAgeSeconds: n(row.active_key_age_seconds),
    nextKeyActivationSeconds: n(row.next_key_activation_seconds),
    keysByState: { published: Number(row.published), active: Number(row.active), retired: Number(row.retired) },
  };
}
