/**
 * The games a player was seen in: a request with a game context records (player, game) once, so search can keep
 * to the caller's game (docs/social.md, "Profiles and search"). A node remembers what it recorded for an hour
 * (bounded), so a player's requests cost one insert per game and hour at most, not one each.
 */
import type { Ctx, GameContext, UserRow } from '../context.js';

const REMEMBER_MS = 3_600_000;
const REMEMBER_MAX = 50_000;
const recorded = new Map<string, number>();

export async function noteGamePlayed(ctx: Ctx, me: UserRow, game: GameContext | undefined): Promise<void> {
  if (!game?.gameId) return;
  const key = `${me.id}|${game.gameId}`;
  const now = Date.now();
  const at = recorded.get(key);
  if (at !== undefined && now - at < REMEMBER_MS) return;
  await ctx.db.query('INSERT INTO user_games (user_id, game_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [me.id, game.gameId]);
  if (recorded.size >= REMEMBER_MAX) recorded.clear();
  recorded.set(key, now);
}
