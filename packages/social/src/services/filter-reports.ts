/**
 * Reports the text filter opens in mode flag (docs/social.md, "Text filter"): no player reporter, source
 * `text_filter`; the snapshot is the author's profile and, for a message, that message (the flagged text itself:
 * a later edit or deletion cannot hide it). One report per flagged text; the chat limit bounds how many.
 * Apart from services/reports.ts (player reports), which reads chat channels: chat files these.
 */
import type { Ctx, GameContext, UserRow } from '../context.js';
import { insertReport } from '../queries/reports.js';
import { profileSnapshot } from './users.js';

/** What the text filter flagged: a chat message as stored, or a display name or status as the author set it. */
export type FilteredText =
  | { kind: 'message'; channel: 'dm' | 'party' | 'group'; channelId: string; messageId: string; body: string; sentAt: string }
  | { kind: 'displayName' | 'status'; text: string }
  /** A group's name, tag or description, as its author set it (context `group:<id>`). */
  | { kind: 'group'; groupId: string; field: 'name' | 'tag' | 'description'; text: string };

export async function fileFilterReport(ctx: Ctx, game: GameContext, author: UserRow, what: FilteredText): Promise<void> {
  const at = ctx.now();
  // The shape of a player report's snapshot (services/reports.ts), so the queue shows both alike.
  const snapshot = {
    takenAt: at.toISOString(),
    target: profileSnapshot(author),
    ...(what.kind === 'message'
      ? { channel: { kind: what.channel, channelId: what.channelId, messages: [{ messageId: what.messageId, body: what.body, sentAt: what.sentAt }] } }
      : {}),
    ...(what.kind === 'group' ? { group: { groupId: what.groupId, field: what.field, text: what.text } } : {}),
  };
  const reason = what.kind === 'displayName' || (what.kind === 'group' && what.field !== 'description') ? 'offensive_name' : 'inappropriate_content';
  const context =
    what.kind === 'message'
      ? `${what.channel}:${what.channelId} text filter: message`
      : what.kind === 'group'
        ? `group:${what.groupId} text filter: ${what.field}`
        : `text filter: ${what.kind}`;
  await insertReport(ctx.db, { reporter: null, target: author.id, reason, context, gameId: game.gameId, snapshot, at, source: 'text_filter' });
}
