/** Reports to moderation. */
import type { Ctx, GameContext, UserRow } from './context.js';
import { limitOutreach } from './limits.js';
import { resolveTarget } from './users.js';
import { socialError } from './errors.js';
import { insertReport } from '../queries/reports.js';

export const REPORT_REASONS = ['spam', 'harassment', 'cheating', 'offensive_name', 'inappropriate_content', 'other'] as const;

export async function fileReport(
  ctx: Ctx,
  me: UserRow,
  game: GameContext,
  body: { targetHandle?: string; targetPublicId?: string; reason: string; context?: string },
) {
  // A report about someone who blocked the caller is taken (a harassed player must be able to report the
  // harasser), so a report about nobody is answered the same way, storing nothing: a report never tells
  // whether its target exists or has blocked the caller.
  const target = await resolveTarget(ctx.db, { handle: body.targetHandle, publicId: body.targetPublicId }, { handle: 'targetHandle', publicId: 'targetPublicId' }).catch(
    (err: unknown) => {
      if ((err as { code?: string }).code === 'user_not_found') return null;
      throw err;
    },
  );
  if (target?.id === me.id) throw socialError('cannot_report_self', 'You cannot report yourself');
  await limitOutreach(ctx, me.id);
  if (!target) return { status: 'received' as const };
  await insertReport(ctx.db, { reporter: me.id, target: target.id, reason: body.reason, context: body.context ?? null, gameId: game.gameId });
  return { status: 'received' as const };
}
