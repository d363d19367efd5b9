/** Friendships (one row per direction), pending friend requests and dm channels. */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export async function areFriends(db: Queryable, a: string, b: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM friendships WHERE user_id = $1 AND friend_id = $2', [a, b])).rowCount > 0;
}

export async function friendIds(db: Queryable, userId: string): Promise<string[]> {
  return (await db.query<{ friend_id: string }>('SELECT friend_id FROM friendships WHERE user_id = $1', [userId])).rows.map((r) => r.friend_id);
}

/** How many friends the user has. */
export async function friendCount(db: Queryable, userId: string): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM friendships WHERE user_id = $1', [userId])).rows[0]?.n ?? 0);
}

/** Both directions; idempotent. */
export async function insertFriendship(db: Queryable, a: string, b: string): Promise<void> {
  await db.query('INSERT INTO friendships (user_id, friend_id) VALUES ($1, $2), ($2, $1) ON CONFLICT DO NOTHING', [a, b]);
}

/** Both directions; false when they were not friends. */
export async function deleteFriendship(db: Queryable, a: string, b: string): Promise<boolean> {
  const r = await db.query('DELETE FROM friendships WHERE (user_id = $1 AND friend_id = $2) OR (user_id = $2 AND friend_id = $1)', [a, b]);
  return r.rowCount > 0;
}

/** Idempotent; `low` and `high` are the two users' ids in sorted order. */
export async function insertDmChannel(db: Queryable, channelId: string, low: string, high: string): Promise<void> {
  await db.query('INSERT INTO dm_channels (channel_id, user_low, user_high) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [channelId, low, high]);
}

/** The dm channel's two users, when `userId` is one of them. */
export async function dmChannelOf(db: Queryable, channelId: string, userId: string): Promise<{ user_low: string; user_high: string } | undefined> {
  const r = await db.query<{ user_low: string; user_high: string }>(
    'SELECT user_low, user_high FROM dm_channels WHERE channel_id = $1 AND (user_low = $2 OR user_high = $2)',
    [channelId, userId],
  );
  return r.rows[0];
}

/** Serialises the friend-request transactions of one pair (inside a transaction). */
export async function lockPair(db: Queryable, key: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
}

/** Removes the pending request from → to; its id, or undefined when there was none. */
export async function takeRequest(db: Queryable, from: string, to: string): Promise<string | undefined> {
  return (await db.query<{ id: string }>('DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id', [from, to])).rows[0]?.id;
}

/** The new request's id, or undefined when one from → to is pending already. */
export async function insertRequest(db: Queryable, from: string, to: string): Promise<string | undefined> {
  const r = await db.query<{ id: string }>(
    'INSERT INTO friend_requests (from_user, to_user) VALUES ($1, $2) ON CONFLICT (from_user, to_user) DO NOTHING RETURNING id',
    [from, to],
  );
  return r.rows[0]?.id;
}

/** Pending requests either way between two users. */
export async function deleteRequestsBetween(db: Queryable, a: string, b: string): Promise<void> {
  await db.query('DELETE FROM friend_requests WHERE (from_user = $1 AND to_user = $2) OR (from_user = $2 AND to_user = $1)', [a, b]);
}

export type RequestRow = UserRow & { request_id: string };

/** Pending requests with the other user's row (the sender for incoming, the addressee for outgoing), newest first. */
export async function pendingRequests(db: Queryable, userId: string, dir: 'incoming' | 'outgoing'): Promise<RequestRow[]> {
  const sql =
    dir === 'incoming'
      ? 'SELECT r.id AS request_id, u.* FROM friend_requests r JOIN users u ON u.id = r.from_user WHERE r.to_user = $1 ORDER BY r.created_at DESC'
      : 'SELECT r.id AS request_id, u.* FROM friend_requests r JOIN users u ON u.id = r.to_user WHERE r.from_user = $1 ORDER BY r.created_at DESC';
  return (await db.query<RequestRow>(sql, [userId])).rows;
}

export type FriendRow = UserRow & { muted: boolean; note: string | null };

/** The user's friends with whether the user muted them and the user's note about them, by handle. */
export async function friendRows(db: Queryable, userId: string): Promise<FriendRow[]> {
  const r = await db.query<FriendRow>(
    `SELECT u.*, (m.muter IS NOT NULL) AS muted, n.text AS note
         FROM friendships f JOIN users u ON u.id = f.friend_id
         LEFT JOIN mutes m ON m.muter = $1 AND m.muted = u.id
         LEFT JOIN notes n ON n.author = $1 AND n.subject = u.id
        WHERE f.user_id = $1 ORDER BY u.name_key, u.discriminator`,
    [userId],
  );
  return r.rows;
}

/** For several owners at once: each owner's friends who did not mute the owner. */
export async function unmutedFriendships(db: Queryable, ownerIds: string[]): Promise<{ user_id: string; friend_id: string }[]> {
  const r = await db.query<{ user_id: string; friend_id: string }>(
    `SELECT f.user_id, f.friend_id FROM friendships f
           WHERE f.user_id = ANY($1::uuid[])
             AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter = f.friend_id AND m.muted = f.user_id)`,
    [ownerIds],
  );
  return r.rows;
}
