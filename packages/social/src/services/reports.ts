/** Reports to moderation: filed by players, with a snapshot of the target taken at that moment. */
import { UUID_PATTERN, type Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { groupById, memberOf } from '../queries/groups.js';
import { dmPeer } from './chat.js';
import { limitOutreach } from './limits.js';
import { profileSnapshot, resolveTarget } from './users.js';
import { assertGuestAllowed, type GuestCaller } from './guest-restrictions.js';
import { socialError } from './errors.js';
import { insertReport, lastMessagesOf, lockReportPair, mergeRepeat } from '../queries/reports.js';
import { isPartyMember } from '../queries/parties.js';
import { reportedMatch } from './matches.js';

export const REPORT_REASONS = ['spam', 'harassment', 'cheating', 'offensive_name', 'inappropriate_content', 'other'] as const;

/** How many of the target's last messages a snapshot keeps from the channel the report names. */
export const SNAPSHOT_MESSAGES = 20;

/** `context` naming a chat channel: `party:<partyId>` or `dm:<channelId>` at its start (free text may follow). */
const CHANNEL_CONTEXT = /^(dm|party|group):([0-9a-fA-F-]{36})(?![0-9A-Za-z-])/;

/**
 * The channel `context` names, when the reporter can read it (a dm they are in, their current party): the
 * snapshot never copies a channel the reporter could not read themselves.
 */
async function reportedChannel(ctx: Ctx, reporter: UserRow, context: string | undefined) {
  const m = context ? CHANNEL_CONTEXT.exec(context.trim()) : null;
  if (!m || !UUID_PATTERN.test(m[2])) return undefined;
  const kind = m[1] as 'dm' | 'party' | 'group';
  const channelId = m[2].toLowerCase();
  const readable =
    kind === 'dm'
      ? !!(await dmPeer(ctx.db, reporter.id, channelId))
      : kind === 'party'
        ? await isPartyMember(ctx.db, channelId, reporter.id)
        : !!(await memberOf(ctx.db, channelId, reporter.id));
  return readable ? { kind, channelId } : undefined;
}

/** `context` naming a group: `group:<groupId>` at its start. */
const GROUP_CONTEXT = /^group:([0-9a-fA-F-]{36})(?![0-9A-Za-z-])/;

/** The group `context` names, when the reporter can see it (a group of the game they report from): its text as now. */
async function reportedGroup(ctx: Ctx, game: GameContext, context: string | undefined) {
  const m = context ? GROUP_CONTEXT.exec(context.trim()) : null;
  if (!m || !UUID_PATTERN.test(m[1])) return undefined;
  const g = await groupById(ctx.db, m[1]);
  return g && g.game_id === (game.gameId ?? '') ? { groupId: g.id, name: g.name, tag: g.tag, description: g.description } : undefined;
}

/** What the target looked like when the report was filed, what they last wrote in the named channel, the named group. */
async function snapshotOf(ctx: Ctx, reporter: UserRow, target: UserRow, context: string | undefined, game: GameContext, match?: MatchSnapshot) {
  const channel = await reportedChannel(ctx, reporter, context);
  const group = await reportedGroup(ctx, game, context);
  const messages = channel ? await lastMessagesOf(ctx.db, { ...channel, author: target.id, limit: SNAPSHOT_MESSAGES }) : [];
  return {
    takenAt: ctx.now().toISOString(),
    target: profileSnapshot(target),
    ...(channel
      ? { channel: { ...channel, messages: messages.map((x) => ({ messageId: x.id, body: x.body, sentAt: new Date(x.sent_at).toISOString() })) } }
      : {}),
    ...(group ? { group } : {}),
    ...(match ? { match } : {}),
  };
}

type MatchSnapshot = Awaited<ReturnType<typeof reportedMatch>>;

/** The snapshot stored with a report (moderators read it in the queue). */
export type ReportSnapshot = Awaited<ReturnType<typeof snapshotOf>>;

export async function fileReport(
  ctx: Ctx,
  me: UserRow,
  game: GameContext,
  body: { targetHandle?: string; targetPublicId?: string; reason: string; context?: string },
  caller?: GuestCaller,
) {
  await assertGuestAllowed(ctx, caller, 'reports');
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
  // Checked before the target is known to exist: the answer for a match tells nothing about the target.
  const match = await reportedMatch(ctx, me, game, body.context);
  await limitOutreach(ctx, me.id);
  if (!target) return { status: 'received' as const };
  // A repeat of an open report of the same pair within the window is merged into it, not filed again (the
  // answer is the same either way: a report never tells what happened to it). One pair at a time.
  const at = ctx.now();
  const since = new Date(at.getTime() - ctx.config.reportMergeHours * 3_600_000);
  const context = body.context ?? null;
  const merge = (db: Queryable) => mergeRepeat(db, { reporter: me.id, target: target.id, since, repeat: { reason: body.reason, context, at: at.toISOString() } });
  // A flood is one UPDATE per repeat; a first report takes its snapshot, then files it unless a repeat raced it.
  if (await merge(ctx.db)) return { status: 'received' as const };
  const snapshot = await snapshotOf(ctx, me, target, body.context, game, match);
  await ctx.db.transaction(async (tx) => {
    await lockReportPair(tx, me.id, target.id);
    if (!(await merge(tx))) await insertReport(tx, { reporter: me.id, target: target.id, reason: body.reason, context, gameId: game.gameId, snapshot, at });
  });
  return { status: 'received' as const };
}
