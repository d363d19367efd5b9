/**
 * Per-user sliding-window limits (state store, so every node agrees): chat
 * messages, and "outreach" actions that reach other users (friend requests,
 * invites, reports) so they cannot be used to spam.
 */
import { groupedHits } from '@platform/kit';
import type { Ctx } from '../context.js';
import { rateLimited } from './errors.js';

export async function limitChat(ctx: Ctx, userId: string): Promise<void> {
  // Chat hits of messages arriving together go to the store in one script call (group commit).
  const [d] = await groupedHits(ctx.state)([{ key: `limit:chat:${userId}`, limit: ctx.config.chatPerMinute, windowMs: 60_000 }]);
  if (!d.allowed) ctx.metrics.rateLimited('chat');
  if (!d.allowed) throw rateLimited('Too many messages; slow down', d.retryAfterMs);
}

export async function limitOutreach(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:outreach:${userId}`, ctx.config.actionsPerMinute, 60_000);
  if (!d.allowed) ctx.metrics.rateLimited('outreach');
  if (!d.allowed) throw rateLimited('Too many requests to other users; slow down', d.retryAfterMs);
}

/** Searches per user: one-letter prefixes must not list every public profile at speed. */
export async function limitSearch(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:search:${userId}`, ctx.config.searchesPerMinute, 60_000);
  if (!d.allowed) ctx.metrics.rateLimited('search');
  if (!d.allowed) throw rateLimited('Too many searches; slow down', d.retryAfterMs);
}

/** Group searches per user: the game's group directory is public, but not to be copied at speed. */
export async function limitGroupSearch(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:group-search:${userId}`, ctx.config.groupSearchesPerMinute, 60_000);
  if (!d.allowed) ctx.metrics.rateLimited('group_search');
  if (!d.allowed) throw rateLimited('Too many group searches; slow down', d.retryAfterMs);
}
