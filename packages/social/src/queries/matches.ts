/** Match rosters a game server posted, and the recent players each roster gives its players. */
import type { Queryable } from '@platform/kit';
import type { UserRow } from './users.js';

export interface MatchRow {
  id: string;
  game_id: string;
  match_id: string;
  ended_at: Date;
}

/** The match of this game with this id, made when new (`created`); its end time is the first post's. */
export async function upsertMatch(db: Queryable, m: { gameId: string; matchId: string; endedAt: Date }): Promise<MatchRow & { created: boolean }> {
  const r = await db.query<MatchRow & { created: boolean }>(
    `INSERT INTO matches (game_id, match_id, ended_at) VALUES ($1, $2, $3)
       ON CONFLICT (game_id, match_id) DO UPDATE SET game_id = EXCLUDED.game_id
       RETURNING id, game_id, match_id, ended_at, (xmax = 0) AS created`,
    [m.gameId, m.matchId, m.endedAt],
  );
  return r.rows[0];
}

/** Adds the players (already members are kept); returns the roster's user ids. */
export async function addMatchPlayers(db: Queryable, match: string, userIds: string[]): Promise<string[]> {
  await db.query('INSERT INTO match_players (match, user_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING', [match, userIds]);
  return (await db.query<{ user_id: string }>('SELECT user_id FROM match_players WHERE match = $1', [match])).rows.map((r) => r.user_id);
}

/**
 * Every pair of the roster becomes (or stays) recent players of each other in the game, with this match when it is
 * the newer one; then each player keeps only their newest `keep` of the game.
 */
export async function recordRecentPlayers(db: Queryable, m: { match: string; gameId: string; playedAt: Date; userIds: string[]; keep: number }): Promise<void> {
  await db.query(
    `INSERT INTO recent_players (user_id, other_id, game_id, match, played_at)
       SELECT a, b, $2, $1, $3 FROM unnest($4::uuid[]) a CROSS JOIN unnest($4::uuid[]) b WHERE a <> b
        ORDER BY a, b -- one lock order for every post: two rosters sharing players do not deadlock
       ON CONFLICT (user_id, game_id, other_id) DO UPDATE SET match = EXCLUDED.match, played_at = EXCLUDED.played_at
         WHERE recent_players.played_at <= EXCLUDED.played_at`,
    [m.match, m.gameId, m.playedAt, m.userIds],
  );
  await db.query(
    `DELETE FROM recent_players r USING (
        SELECT user_id, other_id, row_number() OVER (PARTITION BY user_id ORDER BY played_at DESC, other_id) AS n
          FROM recent_players WHERE game_id = $1 AND user_id = ANY($2::uuid[])
      ) ranked
      WHERE r.user_id = ranked.user_id AND r.other_id = ranked.other_id AND r.game_id = $1 AND ranked.n > $3`,
    [m.gameId, m.userIds, m.keep],
  );
}

export type RecentPlayerRow = UserRow & { match_id: string; played_at: Date; friend: boolean };

const NOT_BLOCKED = `NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $1 AND b.blocked = u.id) OR (b.blocker = u.id AND b.blocked = $1))`;

/** One page of the caller's recent players in a game, newest first, after (played_at, other_id) when given. */
export async function recentPlayersPage(
  db: Queryable,
  q: { userId: string; gameId: string; since: Date; after?: { at: string; id: string }; limit: number },
): Promise<RecentPlayerRow[]> {
  const params: unknown[] = [q.userId, q.gameId, q.since, q.limit];
  let after = '';
  if (q.after) {
    params.push(q.after.at, q.after.id);
    after = 'AND (r.played_at, r.other_id) < ($5::timestamptz, $6::uuid)';
  }
  const r = await db.query<RecentPlayerRow>(
    `SELECT u.*, m.match_id, r.played_at,
            EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = $1 AND f.friend_id = u.id) AS friend
       FROM recent_players r JOIN users u ON u.id = r.other_id JOIN matches m ON m.id = r.match
      WHERE r.user_id = $1 AND r.game_id = $2 AND r.played_at >= $3 AND ${NOT_BLOCKED} ${after}
      ORDER BY r.played_at DESC, r.other_id DESC LIMIT $4`,
    params,
  );
  return r.rows;
}

/** The match of this game and id when `userId` played in it. */
export async function matchOfPlayer(db: Queryable, gameId: string, matchId: string, userId: string): Promise<MatchRow | undefined> {
  const r = await db.query<MatchRow>(
    `SELECT m.id, m.game_id, m.match_id, m.ended_at FROM matches m JOIN match_players p ON p.match = m.id
      WHERE m.game_id = $1 AND m.match_id = $2 AND p.user_id = $3`,
    [gameId, matchId, userId],
  );
  return r.rows[0];
}

/** The roster of a match (user rows, by name). */
export async function matchRoster(db: Queryable, match: string): Promise<UserRow[]> {
  return (await db.query<UserRow>('SELECT u.* FROM match_players p JOIN users u ON u.id = p.user_id WHERE p.match = $1 ORDER BY u.name_key, u.discriminator', [match])).rows;
}

/** Retention: matches ended before `before` go, with their rosters and the recent players they gave. */
export async function purgeMatches(db: Queryable, before: Date): Promise<number> {
  const r = await db.query('DELETE FROM matches WHERE ended_at < $1', [before]);
  return r.rowCount ?? 0;
}

/** Export: the caller's recent players in every game, newest first. */
export async function recentPlayersOf(db: Queryable, userId: string): Promise<(UserRow & { game_id: string; match_id: string; played_at: Date })[]> {
  const r = await db.query<UserRow & { game_id: string; match_id: string; played_at: Date }>(
    `SELECT u.*, r.game_id, m.match_id, r.played_at FROM recent_players r JOIN users u ON u.id = r.other_id JOIN matches m ON m.id = r.match
      WHERE r.user_id = $1 ORDER BY r.played_at DESC`,
    [userId],
  );
  return r.rows;
}
