/** Blocks and mutes between users. */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export async function hasBlocked(db: Queryable, blocker: string, blocked: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM blocks WHERE blocker = $1 AND blocked = $2', [blocker, blocked])).rowCount > 0;
}

export async function blockedEitherWay(db: Queryable, a: string, b: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM blocks WHERE (blocker = $1 AND blocked = $2) OR (blocker = $2 AND blocked = $1)', [a, b])).rowCount > 0;
}

/** Idempotent. */
export async function insertBlock(db: Queryable, blocker: string, blocked: string): Promise<void> {
  await db.query('INSERT INTO blocks (blocker, blocked) VALUES ($1, $2) ON CONFLICT DO NOTHING', [blocker, blocked]);
}

export async function deleteBlock(db: Queryable, blocker: string, blocked: string): Promise<void> {
  await db.query('DELETE FROM blocks WHERE blocker = $1 AND blocked = $2', [blocker, blocked]);
}

/** The users `blocker` blocked, oldest block first. */
export async function blockedUsers(db: Queryable, blocker: string): Promise<UserRow[]> {
  return (await db.query<UserRow>('SELECT u.* FROM blocks b JOIN users u ON u.id = b.blocked WHERE b.blocker = $1 ORDER BY b.created_at', [blocker])).rows;
}

/** Idempotent. */
export async function insertMute(db: Queryable, muter: string, muted: string): Promise<void> {
  await db.query('INSERT INTO mutes (muter, muted) VALUES ($1, $2) ON CONFLICT DO NOTHING', [muter, muted]);
}

export async function deleteMute(db: Queryable, muter: string, muted: string): Promise<void> {
  await db.query('DELETE FROM mutes WHERE muter = $1 AND muted = $2', [muter, muted]);
}

export async function isMuted(db: Queryable, muter: string, muted: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM mutes WHERE muter = $1 AND muted = $2', [muter, muted])).rowCount > 0;
}

/** The users `muter` muted. */
export async function mutedUsers(db: Queryable, muter: string): Promise<UserRow[]> {
  return (await db.query<UserRow>('SELECT u.* FROM mutes m JOIN users u ON u.id = m.muted WHERE m.muter = $1', [muter])).rows;
}

/** Those of `userIds` who muted `muted`, in one statement. */
export async function mutersAmong(db: Queryable, muted: string, userIds: string[]): Promise<string[]> {
  const r = await db.query<{ muter: string }>('SELECT muter FROM mutes WHERE muted = $1 AND muter = ANY($2::uuid[])', [muted, userIds]);
  return r.rows.map((m) => m.muter);
}

/**
 * For each author (by publicId): the internal ids of the users who must not receive their party chat, that
 * is who muted them and who is blocked with them either way. One statement for several authors.
 */
export async function chatExclusions(db: Queryable, authorPublicIds: string[]): Promise<{ author: string; id: string }[]> {
  const r = await db.query<{ author: string; id: string }>(
    `SELECT a.public_id AS author, x.id::text AS id FROM users a,
         LATERAL (SELECT m.muter AS id FROM mutes m WHERE m.muted = a.id
                  UNION SELECT b.blocker FROM blocks b WHERE b.blocked = a.id
                  UNION SELECT b.blocked FROM blocks b WHERE b.blocker = a.id) x
        WHERE a.public_id = ANY($1::text[])`,
    [authorPublicIds],
  );
  return r.rows;
}

/**
 * Those of `publicIds` the viewer may see now — existing users with no block between them and the viewer either
 * way (the viewer's own publicId included) — each with whether they are the viewer's friend. One statement.
 */
export async function visiblePublicIds(db: Queryable, viewer: string, publicIds: string[]): Promise<Map<string, { friend: boolean }>> {
  const r = await db.query<{ public_id: string; friend: boolean }>(
    `SELECT u.public_id, EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend FROM users u
      WHERE u.public_id = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = u.id) OR (b.blocker = u.id AND b.blocked = $1))`,
    [viewer, publicIds],
  );
  return new Map(r.rows.map((x) => [x.public_id, { friend: x.friend }]));
}
