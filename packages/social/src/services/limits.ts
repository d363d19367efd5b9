/**
 * Per-user sliding-window limits (state store, so every node agrees): chat
 * messages, and "outreach" actions that reach other users (friend requests,
 * invites, reports) so they cannot be used to spam.
 */
import { tooManyRequests } from '@platform/kit';
import type { Ctx } from './context.js';

export async function limitChat(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:chat:${userId}`, ctx.config.chatPerMinute, 60_000);
  if (!d.allowed) throw tooManyRequests('rate_limited', 'Too many messages; slow down', d.retryAfterMs);
}

export async function limitOutreach(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:outreach:${userId}`, ctx.config.actionsPerMinute, 60_000);
  if (!d.allowed) throw tooManyRequests('rate_limited', 'Too many requests to other users; slow down', d.retryAfterMs);
}
