/**
 * Per-user sliding-window limits (state store, so every node agrees): chat
 * messages, and "outreach" actions that reach other users (friend requests,
 * invites, reports) so they cannot be used to spam.
 */
import { createBatcher, tooManyRequests, type RateDecision, type StateStore, type WindowHit } from '@platform/kit';
import type { Ctx } from './context.js';

/** Chat hits of messages arriving together go to the store in one script call (group commit). */
const chatHits = new WeakMap<StateStore, (w: WindowHit) => Promise<RateDecision>>();

function hitChatWindow(state: StateStore, w: WindowHit): Promise<RateDecision> {
  let hit = chatHits.get(state);
  if (!hit) chatHits.set(state, (hit = createBatcher<WindowHit, RateDecision>((ws) => state.hitAll(ws))));
  return hit(w);
}

export async function limitChat(ctx: Ctx, userId: string): Promise<void> {
  const d = await hitChatWindow(ctx.state, { key: `limit:chat:${userId}`, limit: ctx.config.chatPerMinute, windowMs: 60_000 });
  if (!d.allowed) throw tooManyRequests('rate_limited', 'Too many messages; slow down', d.retryAfterMs);
}

export async function limitOutreach(ctx: Ctx, userId: string): Promise<void> {
  const d = await ctx.state.hit(`limit:outreach:${userId}`, ctx.config.actionsPerMinute, 60_000);
  if (!d.allowed) throw tooManyRequests('rate_limited', 'Too many requests to other users; slow down', d.retryAfterMs);
}
