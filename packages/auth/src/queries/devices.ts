/** The devices table: one row per fingerprint hash, owned by the account that last signed in on it. */
import type { Queryable } from '@platform/kit';

export interface DeviceRow {
  id: string;
  platform: string;
  push_handle: string | null;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** Inserts or refreshes the device of a fingerprint hash; a null platform keeps the known one ('web' for a new device). */
export async function upsertDevice(tx: Queryable, accountId: string | null, platform: string | null, fingerprintHash: string): Promise<string> {
  const r = await tx.query<{ id: string }>(
    `INSERT INTO devices (account_id, platform, fingerprint_hash) VALUES ($1, COALESCE($2::text, 'web'), $3)
     ON CONFLICT (fingerprint_hash) DO UPDATE
       SET last_seen_at = now(), account_id = COALESCE(EXCLUDED.account_id, devices.account_id),
           platform = COALESCE($2::text, devices.platform)
     RETURNING id`,
    [accountId, platform, fingerprintHash],
  );
  return r.rows[0].id;
}

export async function devicesOf(db: Queryable, accountId: string): Promise<DeviceRow[]> {
  const r = await db.query<DeviceRow>(
    `SELECT id, platform, push_handle, first_seen_at, last_seen_at FROM devices WHERE account_id = $1 ORDER BY first_seen_at, id`,
    [accountId],
  );
  return r.rows;
}
