/**
 * People the caller may know (docs/social.md, "Suggestions"; decisions 0029, 0030): platform friends who play the
 * game of the request (unless the game's PlatformFriends is `off`), friends of friends with their count of mutual
 * friends, and recent players of the game. Cost: one statement reading at most 200 × 200 friendship rows, the
 * caller's recent players (at most Social:RecentPlayers:Max) and platform friends (at most 2,000 per game either
 * way), keeping 200 candidates, whatever the page.
 */
import type { Ctx, GameContext, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { userSummary } from './users.js';
import { suggestionCandidates } from '../queries/suggestions.js';
import { platformFriendsMode } from './platform-friends.js';

export type SuggestionSource = 'friendsOfFriends' | 'recentPlayer' | 'platform';
const CURSOR_KIND = 'suggestions';

export async function listSuggestions(ctx: Ctx, me: UserRow, game: GameContext, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 20;
  let offset = 0;
  if (q.cursor !== undefined) {
    const opened = ctx.cursors.open(CURSOR_KIND, q.cursor, me.id);
    if (opened === undefined || !/^\d{1,4}$/.test(opened)) throw socialError('invalid_cursor', 'This cursor was not given by this list');
    offset = Number(opened);
  }
  const now = ctx.now().getTime();
  const rows = await suggestionCandidates(ctx.db, {
    userId: me.id,
    gameId: game.gameId,
    playedSince: new Date(now - ctx.config.recentPlayersRetentionDays * 86_400_000),
    declinedSince: new Date(now - ctx.config.declineDays * 86_400_000),
    platform: game.gameId !== null && platformFriendsMode(game) !== 'off',
  });
  const page = rows.slice(offset, offset + limit);
  return {
    suggestions: page.map((u) => ({
      ...userSummary(u),
      source: u.source as SuggestionSource,
      mutualFriends: u.mutual_friends,
      ...(u.played_at ? { playedAt: new Date(u.played_at).toISOString() } : {}),
    })),
    nextCursor: rows.length > offset + limit ? ctx.cursors.seal(CURSOR_KIND, String(offset + limit), me.id) : null,
  };
}
