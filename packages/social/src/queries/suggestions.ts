/** Suggestions (docs/social.md, "Suggestions"): platform friends, friends of friends and recent players, in one bounded read. */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

/** Of the caller's friends, the most recent ones read; of each of those, their most recent friends read. */
export const SCANNED_FRIENDS = 200;
/** Candidates kept at most (then paged): the most mutual friends first, then the most recent matches. */
export const MAX_CANDIDATES = 200;

export type SuggestionRow = UserRow & { source: 'platform' | 'friendsOfFriends' | 'recentPlayer'; mutual_friends: number; played_at: Date | null };

/**
 * The candidates, filtered: never the caller, a friend, someone blocked either way, muted by the caller, with a
 * pending request either way, or a pair with a friend request declined (either way) since `declinedSince`.
 * Friends of friends whose profile is private or not searchable are left out; recent players are the caller's
 * own matches of `gameId` since `playedSince` (none without a game); platform friends (with `platform`) are the
 * imports of `gameId` either way (the caller's, and those naming the caller: a platform friendship is mutual), but
 * not a pair an import befriended once (a friend the player removed is not suggested back). Platform friends first.
 */
export async function suggestionCandidates(
  db: Queryable,
  q: { userId: string; gameId: string | null; playedSince: Date; declinedSince: Date; platform: boolean },
): Promise<SuggestionRow[]> {
  const r = await db.query<SuggestionRow>(
    `WITH my_friends AS (
        SELECT friend_id FROM friendships WHERE user_id = $1 ORDER BY created_at DESC LIMIT ${SCANNED_FRIENDS}
      ), fof AS (
        SELECT ff.friend_id AS id, count(*)::int AS mutual
          FROM my_friends mf CROSS JOIN LATERAL (
            SELECT friend_id FROM friendships WHERE user_id = mf.friend_id ORDER BY created_at DESC LIMIT ${SCANNED_FRIENDS}
          ) ff
         GROUP BY ff.friend_id
      ), recent AS (
        SELECT other_id AS id, played_at FROM recent_players
         WHERE user_id = $1 AND game_id = $2 AND played_at >= $3
      ), platform AS (
        SELECT x.id FROM (
          SELECT friend_id AS id FROM platform_friends WHERE user_id = $1 AND game_id = $2
          UNION SELECT user_id AS id FROM platform_friends WHERE friend_id = $1 AND game_id = $2
        ) x
         WHERE $5::boolean
           AND NOT EXISTS (SELECT 1 FROM platform_friends b WHERE b.befriended_at IS NOT NULL AND ((b.user_id = $1 AND b.friend_id = x.id) OR (b.user_id = x.id AND b.friend_id = $1)))
      ), candidates AS (
        SELECT coalesce(f.id, r.id, p.id) AS id, coalesce(f.mutual, 0) AS mutual, r.played_at, (p.id IS NOT NULL) AS platform
          FROM fof f FULL JOIN recent r ON r.id = f.id FULL JOIN platform p ON p.id = coalesce(f.id, r.id)
      )
      SELECT u.*, c.mutual AS mutual_friends, c.played_at,
             CASE WHEN c.platform THEN 'platform' WHEN c.mutual > 0 THEN 'friendsOfFriends' ELSE 'recentPlayer' END AS source
        FROM candidates c JOIN users u ON u.id = c.id
       WHERE u.id <> $1
         AND (c.played_at IS NOT NULL OR c.platform OR (u.visibility <> 'private' AND u.searchable))
         AND NOT EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id)
         AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = u.id) OR (b.blocker = u.id AND b.blocked = $1))
         AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter = $1 AND m.muted = u.id)
         AND NOT EXISTS (SELECT 1 FROM friend_requests q WHERE (q.from_user = $1 AND q.to_user = u.id) OR (q.from_user = u.id AND q.to_user = $1))
         AND NOT EXISTS (SELECT 1 FROM friend_declines d WHERE ((d.decliner = u.id AND d.requester = $1) OR (d.decliner = $1 AND d.requester = u.id)) AND d.declined_at >= $4)
       ORDER BY c.platform DESC, c.mutual DESC, c.played_at DESC NULLS LAST, u.public_id
       LIMIT ${MAX_CANDIDATES}`,
    [q.userId, q.gameId ?? '', q.playedSince, q.declinedSince, q.platform],
  );
  return r.rows;
}

/** A declined friend request: the pair stays out of each other's suggestions for a while. */
export async function recordDecline(db: Queryable, decliner: string, requester: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO friend_declines (decliner, requester, declined_at) VALUES ($1, $2, $3)
       ON CONFLICT (decliner, requester) DO UPDATE SET declined_at = EXCLUDED.declined_at`,
    [decliner, requester, at],
  );
}

/** Export: the requests the user declined, newest first. */
export async function declinesBy(db: Queryable, decliner: string): Promise<(UserRow & { declined_at: Date })[]> {
  const r = await db.query<UserRow & { declined_at: Date }>(
    'SELECT u.*, d.declined_at FROM friend_declines d JOIN users u ON u.id = d.requester WHERE d.decliner = $1 ORDER BY d.declined_at DESC',
    [decliner],
  );
  return r.rows;
}

/** Retention: declines older than the window mean nothing any more. */
export async function purgeDeclines(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM friend_declines WHERE declined_at < $1', [before]);
}
