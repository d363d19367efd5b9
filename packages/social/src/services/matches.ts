/**
 * Recent players (docs/social.md, "Recent players"; decision 0029): a game server posts a match roster, and each
 * player of it sees the others among their recent players in that game, newest first, for a bounded time.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { fullHandle, userSummary } from './users.js';
import { purgeDeclines } from '../queries/suggestions.js';
import { addMatchPlayers, matchOfPlayer, matchRoster, purgeMatches, recentPlayersOf, recentPlayersPage, recordRecentPlayers, upsertMatch } from '../queries/matches.js';

/** Players a roster may name (a roster is every pair's recent players: at most 100 × 99 rows per post). */
export const MATCH_MAX_PLAYERS = 100;
/** A match id: what a game server calls it (also how a report names it after `match:`). */
export const MATCH_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const RECENT_CURSOR = 'recent-players';

export interface MatchPost {
  matchId?: string;
  players: string[];
  endedAt?: string;
}

/** Posts a roster for the caller's game: 201 a new match, 200 players added to a known one (a retried post). */
export async function postMatch(ctx: Ctx, game: GameContext, body: MatchPost) {
  const gameId = game.gameId!;
  const matchId = body.matchId ?? randomUUID();
  if (!MATCH_ID.test(matchId)) throw socialError('validation_failed', 'matchId must be 1–64 letters, digits, "_", "." or "-"', { field: 'matchId' });
  const now = ctx.now();
  const endedAt = body.endedAt !== undefined ? new Date(body.endedAt) : now;
  // A roster from the future, or older than the retention, would sort wrongly or be purged at once.
  if (Number.isNaN(endedAt.getTime()) || endedAt.getTime() > now.getTime() + 60_000 || endedAt.getTime() < now.getTime() - retentionMs(ctx)) {
    throw socialError('validation_failed', 'endedAt must be a time within the retention and not in the future', { field: 'endedAt' });
  }
  const publicIds = [...new Set(body.players)];
  if (publicIds.length < 2) throw socialError('validation_failed', 'players must name at least 2 different players', { field: 'players' });
  return ctx.db.transaction(async (tx) => {
    const known = await usersByPublicIds(tx, publicIds);
    const match = await upsertMatch(tx, { gameId, matchId, endedAt });
    const roster = await addMatchPlayers(tx, match.id, known.map((u) => u.id));
    if (roster.length >= 2) await recordRecentPlayers(tx, { match: match.id, gameId, playedAt: match.ended_at, userIds: roster, keep: ctx.config.recentPlayersMax });
    return {
      created: match.created,
      match: { matchId: match.match_id, endedAt: new Date(match.ended_at).toISOString(), players: roster.length, unknownPlayers: publicIds.length - known.length },
    };
  });
}

async function usersByPublicIds(db: Queryable, publicIds: string[]): Promise<UserRow[]> {
  return (await db.query<UserRow>('SELECT * FROM users WHERE public_id = ANY($1::text[])', [publicIds])).rows;
}

const retentionMs = (ctx: Ctx) => ctx.config.recentPlayersRetentionDays * 86_400_000;

/** The caller's recent players in the game of the request (none without a game), newest first, one page. */
export async function listRecentPlayers(ctx: Ctx, me: UserRow, game: GameContext, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 20;
  const space = game.gameId ?? '';
  let after: { at: string; id: string } | undefined;
  if (q.cursor !== undefined) {
    const [at, id] = ctx.cursors.open(RECENT_CURSOR, q.cursor, `${me.id}|${space}`)?.split('|') ?? [];
    if (!at || !id) throw socialError('invalid_cursor', 'This cursor was not given by this list');
    after = { at, id };
  }
  if (!game.gameId) return { players: [], nextCursor: null };
  const since = new Date(ctx.now().getTime() - retentionMs(ctx));
  const rows = await recentPlayersPage(ctx.db, { userId: me.id, gameId: game.gameId, since, limit: limit + 1, ...(after ? { after } : {}) });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    players: page.map((u) => ({ ...userSummary(u, { friend: u.friend }), matchId: u.match_id, playedAt: new Date(u.played_at).toISOString(), friend: u.friend })),
    nextCursor: rows.length > limit && last ? ctx.cursors.seal(RECENT_CURSOR, `${new Date(last.played_at).toISOString()}|${last.id}`, `${me.id}|${space}`) : null,
  };
}

/** `context` naming a match: `match:<matchId>` at its start (free text may follow). */
const MATCH_CONTEXT = /^match:([A-Za-z0-9_.-]{1,64})(?![A-Za-z0-9_.-])/;

/**
 * The match a report's context names: undefined when it names none; its roster when the reporter played in it (in
 * the game of the request); otherwise 404 `match_not_found`, the same for a match that does not exist: a player
 * never reports with, nor learns anything of, a match they were not in.
 */
export async function reportedMatch(ctx: Ctx, reporter: UserRow, game: GameContext, context: string | undefined) {
  const m = context ? MATCH_CONTEXT.exec(context.trim()) : null;
  if (!m) return undefined;
  const match = game.gameId ? await matchOfPlayer(ctx.db, game.gameId, m[1], reporter.id) : undefined;
  if (!match) throw socialError('match_not_found', 'You played in no match with this id in this game');
  const roster = await matchRoster(ctx.db, match.id);
  return {
    matchId: match.match_id,
    endedAt: new Date(match.ended_at).toISOString(),
    roster: roster.map((u) => ({ publicId: u.public_id, fullHandle: fullHandle(u) })),
  };
}

/** Export: every game's recent players of the user. */
export async function exportRecentPlayers(ctx: Ctx, me: UserRow) {
  return (await recentPlayersOf(ctx.db, me.id)).map((u) => ({ ...userSummary(u, {}), gameId: u.game_id, matchId: u.match_id, playedAt: new Date(u.played_at).toISOString() }));
}

/** Retention: rosters (and the recent players they gave) past Social:RecentPlayers:RetentionDays. */
export async function purgeOldMatches(ctx: Ctx): Promise<number> {
  return purgeMatches(ctx.db, new Date(ctx.now().getTime() - retentionMs(ctx)));
}

/** Retention: declines past Social:Suggestions:DeclineDays keep nobody out of suggestions any more. */
export async function purgeOldDeclines(ctx: Ctx): Promise<void> {
  await purgeDeclines(ctx.db, new Date(ctx.now().getTime() - ctx.config.declineDays * 86_400_000));
}
