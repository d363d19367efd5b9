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
/** What a search looks for: players and groups are limited apart, each per player and minute. */
const SEARCH_LIMITS = {
  player: { key: 'search', metric: 'search', limit: (ctx: Ctx) => ctx.config.searchesPerMinute, message: 'Too many searches; slow down' },
  group: { key: 'group-search', metric: 'group_search', limit: (ctx: Ctx) => ctx.config.groupSearchesPerMinute, message: 'Too many group searches; slow down' },
} as const;

export async function limitSearch(ctx: Ctx, userId: string, kind: keyof typeof SEARCH_LIMITS): Promise<void> {
  const search = SEARCH_LIMITS[kind];
  const d = await ctx.state.hit(`limit:${search.key}:${userId}`, search.limit(ctx), 60_000);
  if (d.allowed) return;
  ctx.metrics.rateLimited(search.metric);
  throw rateLimited(search.message, d.retryAfterMs);
}
