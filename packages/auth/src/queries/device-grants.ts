/**
 * The device_grants table (RFC 8628): one row per device authorization request. Codes are stored as SHA-256
 * only; every state change is one conditional statement, so a code is decided once and exchanged once.
 */
import type { Queryable } from '@platform/kit';

export interface NewDeviceGrant {
  id: string;
  deviceCodeHash: string;
  userCodeHash: string;
  clientId: string;
  deviceName: string | null;
  platform: string | null;
  fingerprintHash: string | null;
  ipCidr: string | null;
  intervalSeconds: number;
  expiresAt: Date;
}

export async function insertDeviceGrant(db: Queryable, g: NewDeviceGrant): Promise<void> {
  await db.query(
    `INSERT INTO device_grants (id, device_code_hash, user_code_hash, client_id, device_name, platform, fingerprint_hash, ip_cidr, interval_seconds, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [g.id, g.deviceCodeHash, g.userCodeHash, g.clientId, g.deviceName, g.platform, g.fingerprintHash, g.ipCidr, g.intervalSeconds, g.expiresAt],
  );
}

/** What the approval page shows about a pending request. */
export interface PendingGrant {
  id: string;
  client_id: string;
  device_name: string | null;
  platform: string | null;
  ip_cidr: string | null;
  created_at: Date;
  expires_at: Date;
  entries: number;
}

/**
 * Counts one submission of a user code against its pending, unexpired request and returns it; a request whose
 * code was submitted more than `maxEntries` times is void (denied) and not returned.
 */
export async function enterUserCode(db: Queryable, userCodeHash: string, maxEntries: number): Promise<PendingGrant | undefined> {
  const r = await db.query<PendingGrant>(
    `UPDATE device_grants SET entries = entries + 1,
            status = CASE WHEN entries + 1 > $2 THEN 'denied' ELSE status END,
            decided_at = CASE WHEN entries + 1 > $2 THEN now() ELSE decided_at END
      WHERE user_code_hash = $1 AND status = 'pending' AND expires_at > now()
      RETURNING id, client_id, device_name, platform, ip_cidr, created_at, expires_at, entries`,
    [userCodeHash, maxEntries],
  );
  const g = r.rows[0];
  return g && g.entries <= maxEntries ? g : undefined;
}

/** The player's decision on a pending request (by its id, after enterUserCode); false when it is no longer pending. */
export async function decideDeviceGrant(db: Queryable, id: string, accountId: string, approve: boolean): Promise<boolean> {
  const r = await db.query(
    `UPDATE device_grants SET status = $3, account_id = $2, decided_at = now()
      WHERE id = $1 AND status = 'pending' AND expires_at > now() RETURNING id`,
    [id, accountId, approve ? 'approved' : 'denied'],
  );
  return r.rowCount > 0;
}

export interface PolledGrant {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  client_id: string;
  account_id: string | null;
  device_name: string | null;
  platform: string | null;
  fingerprint_hash: string | null;
  expired: boolean;
  /** Polled again before the interval had passed (the interval has just grown by 5 s). */
  too_fast: boolean;
  interval_seconds: number;
}

/**
 * One poll of a device code: records the poll and, when it came before the interval had passed since the
 * previous one, grows the interval by 5 seconds (RFC 8628 §3.5 slow_down). The row is locked, so concurrent
 * polls are judged one after the other.
 */
export async function pollDeviceGrant(tx: Queryable, deviceCodeHash: string): Promise<PolledGrant | undefined> {
  const r = await tx.query<PolledGrant>(
    `WITH g AS (
       SELECT id, last_polled_at IS NOT NULL AND last_polled_at > now() - make_interval(secs => interval_seconds) AS too_fast
         FROM device_grants WHERE device_code_hash = $1 FOR UPDATE
     )
     UPDATE device_grants d SET last_polled_at = now(),
            interval_seconds = CASE WHEN g.too_fast AND d.status = 'pending' THEN d.interval_seconds + 5 ELSE d.interval_seconds END
       FROM g WHERE d.id = g.id
     RETURNING d.id, d.status, d.client_id, d.account_id, d.device_name, d.platform, d.fingerprint_hash,
               d.expires_at <= now() AS expired, g.too_fast, d.interval_seconds`,
    [deviceCodeHash],
  );
  return r.rows[0];
}

/** Spends an approved request (the device gets its tokens once); false when another poll spent it first. */
export async function consumeDeviceGrant(tx: Queryable, id: string, sessionId: string): Promise<boolean> {
  const r = await tx.query(`UPDATE device_grants SET status = 'consumed', session_id = $2 WHERE id = $1 AND status = 'approved' RETURNING id`, [id, sessionId]);
  return r.rowCount > 0;
}

/** Requests expired for a day (retention: their device names and address prefixes go with them). */
export async function purgeExpiredDeviceGrants(db: Queryable): Promise<number> {
  const r = await db.query(`DELETE FROM device_grants WHERE expires_at < now() - interval '1 day'`);
  return r.rowCount;
}
