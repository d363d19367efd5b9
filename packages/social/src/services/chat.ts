/**
 * Chat: messages stored in chat_messages. `sendChatMessage` is the one way in
 * (HTTP, and the realtime layer's chatSend frames). dm channels exist
 * between friends (dmChannelId); party channels are the partyId.
 */
import { randomUUID } from 'node:crypto';
import { createBatcher, onePer, UUID_PATTERN as GUID, type Queryable } from '@platform/kit';
import { NO_GAME, type Ctx, type UserRow } from '../context.js';
import { limitChat } from './limits.js';
import { socialError } from './errors.js';
import { filterText, reportFlagged } from './text-filter.js';
import { assertGuestAllowed, type GuestCaller } from './guest-restrictions.js';
import {
  channelHistory,
  deleteMessagesBefore,
  groupReaders,
  insertDmMessage,
  insertGroupMessage,
  insertPartyMessages,
  type ChatKind,
  type MessageRow,
  type PartyInsert,
} from '../queries/chat.js';
import { memberOf as groupMemberOf } from '../queries/groups.js';
import { areFriends, dmChannelOf } from '../queries/friends.js';
import { isPartyMember } from '../queries/parties.js';
import { blockedEitherWay } from '../queries/relations.js';

export type { ChatKind } from '../queries/chat.js';

const noChannel = () => socialError('channel_not_found', 'No such chat channel');

export function assertChatEnabled(ctx: Ctx): void {
  if (!ctx.config.chatEnabled) throw socialError('feature_disabled', 'Chat is disabled on this server');
}

const messageDto = (m: MessageRow) => ({
  messageId: m.id,
  channel: m.channel,
  channelId: m.channel_id,
  fromPublicId: m.public_id,
  body: m.body,
  sentAt: new Date(m.sent_at).toISOString(),
});

/** The other participant of a dm channel the user belongs to. */
export async function dmPeer(db: Queryable, userId: string, channelId: string): Promise<string | undefined> {
  const row = await dmChannelOf(db, channelId, userId);
  return row ? (row.user_low === userId ? row.user_high : row.user_low) : undefined;
}

/**
 * Party messages of many senders, arriving together, in one statement (group commit): each caller gets its
 * message's stored sent_at, or undefined where the sender is not a member.
 */
const partyInserter = onePer((db: Queryable) =>
  createBatcher<PartyInsert, Date | undefined>(async (items) => {
    const stored = new Map((await insertPartyMessages(db, items)).map((x) => [x.id, x.sent_at]));
    return items.map((m) => stored.get(m.id));
  }),
);

/**
 * Stores and publishes a message; refused while the sender has a chat sanction. dm: sender and peer must be friends (a
 * block ends the friendship); party: the sender must be a current member.
 * A peer who muted the sender still gets the message in history but no
 * chatMessage event. `game`: the context the sender writes from (their socket's or request's), whose text filter
 * applies (services/text-filter.ts): masked, refused (400 text_filtered, nothing stored or sent) or flagged (sent,
 * then reported to moderators).
 */
export async function sendChatMessage(ctx: Ctx, sender: UserRow, input: { channel: ChatKind; channelId: string; body: string }, caller?: GuestCaller) {
  // The context the sender writes from (their socket's or request's): its text filter applies.
  const game = caller?.game ?? NO_GAME;
  assertChatEnabled(ctx);
  // An active chat sanction (auth's notice, heard by every node): 403 chat_restricted, before anything is stored.
  ctx.sanctions.assertChatAllowed(sender.account_id);
  const body = input.body.trim();
  if (!body) throw socialError('invalid_body', 'body must not be empty', { field: 'body' });
  if (body.length > ctx.config.chatMaxLength) {
    throw socialError('body_too_long', `body must have at most ${ctx.config.chatMaxLength} characters`, { field: 'body' });
  }
  if (!GUID.test(input.channelId)) throw noChannel();
  const channelId = input.channelId.toLowerCase();
  let peer: string | undefined;
  let row: MessageRow | undefined;
  let filtered: { text: string; flagged: boolean };
  if (input.channel === 'dm') {
    peer = await dmPeer(ctx.db, sender.id, channelId);
    if (!peer) throw noChannel();
    if (!(await areFriends(ctx.db, sender.id, peer)) || (await blockedEitherWay(ctx.db, sender.id, peer))) {
      throw socialError('not_friends', 'Direct messages are only possible between friends');
    }
    await limitChat(ctx, sender.id);
    filtered = filterText(ctx, game, 'body', body);
    row = await insertDmMessage(ctx.db, { channelId, from: sender.id, fromPublicId: sender.public_id, body: filtered.text, sentAt: ctx.now() });
  } else if (input.channel === 'group') {
    // Group members need not be friends either: a guest may be refused group chat (group_chat).
    await assertGuestAllowed(ctx, caller, 'group_chat');
    await limitChat(ctx, sender.id);
    filtered = filterText(ctx, game, 'body', body);
    const id = randomUUID();
    const stored = await insertGroupMessage(ctx.db, { id, channelId, from: sender.id, body: filtered.text, sentAt: ctx.now() });
    row = stored ? { id, channel: 'group', channel_id: channelId, body: filtered.text, sent_at: stored, public_id: sender.public_id } : undefined;
    if (!row) throw noChannel();
  } else {
    // Party members need not be friends: a guest may be refused party chat (party_chat).
    await assertGuestAllowed(ctx, caller, 'party_chat');
    // The hot path of party chat: the membership check rides in the insert itself, and the inserts of
    // messages arriving together share one statement (group commit, see partyInserter). Attempts count against the
    // sender's chat limit.
    await limitChat(ctx, sender.id);
    filtered = filterText(ctx, game, 'body', body);
    const id = randomUUID();
    const sentAt = ctx.now();
    const stored = await partyInserter(ctx.db)({ id, channelId, from: sender.id, body: filtered.text, sentAt });
    row = stored ? { id, channel: 'party', channel_id: channelId, body: filtered.text, sent_at: stored, public_id: sender.public_id } : undefined;
    if (!row) throw noChannel();
  }
  const dto = messageDto(row);
  const opts = { actorId: sender.id, actorPublicId: sender.public_id };
  if (peer) {
    await ctx.events.toUser(peer, 'chatMessage', dto, opts);
    await ctx.events.toUser(sender.id, 'chatMessage', dto);
  } else if (dto.channel === 'group') {
    // To each member's own channel (a socket subscribes to no group channels): blocks either way leave a member
    // out here, a reader's mute of the author there (toUsers), and the author gets their own copy.
    const readers = await groupReaders(ctx.db, channelId, sender.id);
    await ctx.events.toUsers('chatMessage', readers.map((userId) => ({ userId, data: dto })), opts);
  } else {
    await ctx.events.toParty(channelId, 'chatMessage', dto, opts);
  }
  if (filtered.flagged) {
    await reportFlagged(ctx, game, sender, { kind: 'message', channel: dto.channel, channelId: dto.channelId, messageId: dto.messageId, body: dto.body, sentAt: dto.sentAt });
  }
  return dto;
}

/**
 * History, newest first. Readable by the two dm participants (also after the
 * friendship ended) and by current party and group members; messages of users blocked
 * either way are left out. `before` (an instant) pages backwards.
 */
export async function history(ctx: Ctx, me: UserRow, kind: ChatKind, channelIdRaw: string, limit: number, before?: string) {
  assertChatEnabled(ctx);
  if (!GUID.test(channelIdRaw)) throw noChannel();
  const channelId = channelIdRaw.toLowerCase();
  const readable =
    kind === 'dm'
      ? !!(await dmPeer(ctx.db, me.id, channelId))
      : kind === 'party'
        ? await isPartyMember(ctx.db, channelId, me.id)
        : !!(await groupMemberOf(ctx.db, channelId, me.id));
  if (!readable) throw noChannel();
  let beforeAt: Date | null = null;
  if (before !== undefined) {
    // An RFC 3339 instant (the route's date-time format) within years 1–9999: what JavaScript parses beyond
    // that (`99999`, year 0, negative years) PostgreSQL refuses.
    beforeAt = new Date(before);
    const year = beforeAt.getUTCFullYear();
    if (Number.isNaN(beforeAt.getTime()) || year < 1 || year > 9999) {
      throw socialError('validation_failed', 'before must be an RFC 3339 instant between years 1 and 9999', { field: 'before' });
    }
  }
  const rows = await channelHistory(ctx.db, { kind, channelId, reader: me.id, before: beforeAt, limit });
  return { messages: rows.map(messageDto) };
}

/** Deletes messages older than the retention period; returns how many. */
export async function purgeChat(ctx: Ctx, now: Date = ctx.now()): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.config.chatRetentionDays * 86_400_000);
  return deleteMessagesBefore(ctx.db, cutoff);
}
