/** Platform friends (docs/social.md, "Platform friends"): the imports per (player, game) and their refresh times. */
import type { Database, Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

/**
 * Claims the (player, game) refresh when the last one is older than `dueBefore` (or there was none): one statement,
 * so of several nodes (or requests) only one wins. Returns undefined when claimed, else when the last refresh was.
 */
export async function claimRefresh(db: Queryable, userId: string, gameId: string, now: Date, dueBefore: Date): Promise<Date | undefined> {
  const r = await db.query(
    `INSERT INTO platform_friend_refreshes (user_id, game_id, refreshed_at, outcome) VALUES ($1, $2, $3, 'running')
       ON CONFLICT (user_id, game_id) DO UPDATE SET refreshed_at = EXCLUDED.refreshed_at, outcome = 'running'
       WHERE platform_friend_refreshes.refreshed_at <= $4
     RETURNING 1`,
    [userId, gameId, now, dueBefore],
  );
  if (r.rowCount) return undefined;
  const last = await db.query<{ refreshed_at: Date }>('SELECT refreshed_at FROM platform_friend_refreshes WHERE user_id = $1 AND game_id = $2', [userId, gameId]);
  return last.rows[0] ? new Date(last.rows[0].refreshed_at) : now;
}

export async function recordOutcome(db: Queryable, userId: string, gameId: string, outcome: string): Promise<void> {
  await db.query('UPDATE platform_friend_refreshes SET outcome = $3 WHERE user_id = $1 AND game_id = $2', [userId, gameId, outcome]);
}

/** Of these accounts, the profiles of players seen in the game (user_games), the caller left out. */
export async function playersOfGame(db: Queryable, accountIds: string[], gameId: string, exceptUserId: string): Promise<{ id: string; account_id: string }[]> {
  if (!accountIds.length) return [];
  const r = await db.query<{ id: string; account_id: string }>(
    `SELECT u.id, u.account_id FROM users u JOIN user_games g ON g.user_id = u.id AND g.game_id = $2
      WHERE u.account_id = ANY($1::text[]) AND u.id <> $3`,
    [accountIds, gameId, exceptUserId],
  );
  return r.rows;
}

/**
 * The import becomes exactly `friendIds` (rows no longer there go; befriended_at of kept rows stays). With `visible`
 * (the player's list was read, not a private profile) the other players' rows of the game naming the player and not
 * in the list go too: a platform friendship is mutual, and the newer list says it ended.
 */
export async function replaceImport(db: Database, userId: string, gameId: string, provider: string, friendIds: string[], at: Date, visible: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM platform_friends WHERE user_id = $1 AND game_id = $2 AND NOT (friend_id = ANY($3::uuid[]))', [userId, gameId, friendIds]);
    if (visible) {
      await tx.query('DELETE FROM platform_friends WHERE friend_id = $1 AND game_id = $2 AND NOT (user_id = ANY($3::uuid[]))', [userId, gameId, friendIds]);
    }
    if (friendIds.length) {
      await tx.query(
        `INSERT INTO platform_friends (user_id, game_id, friend_id, provider, imported_at)
           SELECT $1, $2, f, $3, $4 FROM unnest($5::uuid[]) AS f
         ON CONFLICT (user_id, game_id, friend_id) DO UPDATE SET imported_at = EXCLUDED.imported_at, provider = EXCLUDED.provider`,
        [userId, gameId, provider, at, friendIds],
      );
    }
  });
}

/**
 * Of the imported friends, those `befriend` may make friends of the player: not friends already, never befriended
 * by an import before (either way, any game: a removed friend is not added again), no block either way, no decline
 * either way since `declinedSince`.
 */
export async function befriendable(db: Queryable, userId: string, friendIds: string[], declinedSince: Date): Promise<string[]> {
  if (!friendIds.length) return [];
  const r = await db.query<{ id: string }>(
    `SELECT f AS id FROM unnest($2::uuid[]) AS f
      WHERE NOT EXISTS (SELECT 1 FROM friendships x WHERE x.user_id = $1 AND x.friend_id = f)
        AND NOT EXISTS (SELECT 1 FROM platform_friends p WHERE p.befriended_at IS NOT NULL AND ((p.user_id = $1 AND p.friend_id = f) OR (p.user_id = f AND p.friend_id = $1)))
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = f) OR (b.blocker = f AND b.blocked = $1))
        AND NOT EXISTS (SELECT 1 FROM friend_declines d WHERE ((d.decliner = $1 AND d.requester = f) OR (d.decliner = f AND d.requester = $1)) AND d.declined_at >= $3)`,
    [userId, friendIds, declinedSince],
  );
  return r.rows.map((x) => x.id);
}

export async function markBefriended(db: Queryable, userId: string, gameId: string, friendId: string, at: Date): Promise<void> {
  await db.query('UPDATE platform_friends SET befriended_at = $4 WHERE user_id = $1 AND game_id = $2 AND friend_id = $3', [userId, gameId, friendId, at]);
}

export type PlatformFriendRow = UserRow & { game_id: string; provider: string; imported_at: Date; befriended_at: Date | null };

/** Export: the player's imports in every game, newest first. */
export async function importsOf(db: Queryable, userId: string): Promise<PlatformFriendRow[]> {
  const r = await db.query<PlatformFriendRow>(
    `SELECT u.*, p.game_id, p.provider, p.imported_at, p.befriended_at FROM platform_friends p JOIN users u ON u.id = p.friend_id
      WHERE p.user_id = $1 ORDER BY p.imported_at DESC, p.game_id, u.public_id`,
    [userId],
  );
  return r.rows;
}

/** Export: when the player's platform friends were last refreshed in each game, and how it went. */
export async function refreshesOf(db: Queryable, userId: string): Promise<{ game_id: string; refreshed_at: Date; outcome: string }[]> {
  const r = await db.query<{ game_id: string; refreshed_at: Date; outcome: string }>(
    'SELECT game_id, refreshed_at, outcome FROM platform_friend_refreshes WHERE user_id = $1 ORDER BY game_id',
    [userId],
  );
  return r.rows;
}
