/**
 * Chat: messages stored in chat_messages. `sendChatMessage` is the one way in
 * (HTTP now, the realtime layer's chatSend frames later). dm channels exist
 * between friends (dmChannelId); party channels are the partyId.
 */
import { randomUUID } from 'node:crypto';
import { AppError, badRequest, createBatcher, notFound, onePer, UUID_PATTERN as GUID, type Queryable } from '@platform/kit';
import type { Ctx, UserRow } from './context.js';
import { areFriends, blockedEitherWay } from './users.js';
import { limitChat } from './limits.js';

export type ChatKind = 'dm' | 'party';

interface MessageRow {
  id: string;
  channel: ChatKind;
  channel_id: string;
  body: string;
  sent_at: Date;
  public_id: string;
}

const noChannel = () => notFound('channel_not_found', 'No such chat channel');

export function assertChatEnabled(ctx: Ctx): void {
  if (!ctx.config.chatEnabled) throw notFound('feature_disabled', 'Chat is disabled on this server');
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
async function dmPeer(db: Queryable, userId: string, channelId: string): Promise<string | undefined> {
  const r = await db.query<{ user_low: string; user_high: string }>(
    'SELECT user_low, user_high FROM dm_channels WHERE channel_id = $1 AND (user_low = $2 OR user_high = $2)',
    [channelId, userId],
  );
  const row = r.rows[0];
  return row ? (row.user_low === userId ? row.user_high : row.user_low) : undefined;
}

async function isPartyMember(db: Queryable, userId: string, partyId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM party_members WHERE party_id = $1 AND user_id = $2', [partyId, userId])).rowCount > 0;
}

interface PartyInsert {
  id: string;
  channelId: string;
  from: string;
  body: string;
  sentAt: Date;
}

/**
 * Party messages of many senders in one statement: each row is written only if its sender is a member
 * of the party at that moment; rows keep their arrival order (seq). Returns each message's stored
 * sent_at, or undefined where the sender is not a member.
 */
const PARTY_INSERT_SQL = `INSERT INTO chat_messages (id, channel, channel_id, from_user, body, sent_at)
SELECT m.id, 'party', m.channel_id, m.from_user, m.body, m.sent_at
FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS m(id, channel_id, from_user, body, sent_at, ord)
WHERE EXISTS (SELECT 1 FROM party_members pm WHERE pm.party_id = m.channel_id AND pm.user_id = m.from_user)
ORDER BY m.ord
RETURNING id, sent_at`;

const partyInserter = onePer((db: Queryable) =>
  createBatcher<PartyInsert, Date | undefined>(async (items) => {
    const r = await db.query<{ id: string; sent_at: Date }>(PARTY_INSERT_SQL, [
      items.map((m) => m.id),
      items.map((m) => m.channelId),
      items.map((m) => m.from),
      items.map((m) => m.body),
      items.map((m) => m.sentAt.toISOString()),
    ]);
    const stored = new Map(r.rows.map((x) => [x.id, x.sent_at]));
    return items.map((m) => stored.get(m.id));
  }),
);

/**
 * Stores and publishes a message. dm: sender and peer must be friends (a
 * block ends the friendship); party: the sender must be a current member.
 * A peer who muted the sender still gets the message in history but no
 * chatMessage event.
 */
export async function sendChatMessage(ctx: Ctx, sender: UserRow, input: { channel: ChatKind; channelId: string; body: string }) {
  assertChatEnabled(ctx);
  const body = input.body.trim();
  if (!body) throw badRequest('invalid_body', 'body must not be empty', { field: 'body' });
  if (body.length > ctx.config.chatMaxLength) {
    throw badRequest('body_too_long', `body must have at most ${ctx.config.chatMaxLength} characters`, { field: 'body' });
  }
  if (!GUID.test(input.channelId)) throw noChannel();
  const channelId = input.channelId.toLowerCase();
  let peer: string | undefined;
  let row: MessageRow | undefined;
  if (input.channel === 'dm') {
    peer = await dmPeer(ctx.db, sender.id, channelId);
    if (!peer) throw noChannel();
    if (!(await areFriends(ctx.db, sender.id, peer)) || (await blockedEitherWay(ctx.db, sender.id, peer))) {
      throw new AppError(403, 'not_friends', 'Direct messages are only possible between friends');
    }
    await limitChat(ctx, sender.id);
    row = (
      await ctx.db.query<MessageRow>(
        `INSERT INTO chat_messages (channel, channel_id, from_user, body, sent_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING id, channel, channel_id, body, sent_at, $6::text AS public_id`,
        [input.channel, channelId, sender.id, body, ctx.now(), sender.public_id],
      )
    ).rows[0];
  } else {
    // The hot path of party chat: the membership check rides in the INSERT, and the INSERTs of messages
    // arriving together share one statement (group commit, see partyInserter). Attempts count against the
    // sender's chat limit.
    await limitChat(ctx, sender.id);
    const id = randomUUID();
    const sentAt = ctx.now();
    const stored = await partyInserter(ctx.db)({ id, channelId, from: sender.id, body, sentAt });
    row = stored ? { id, channel: 'party', channel_id: channelId, body, sent_at: stored, public_id: sender.public_id } : undefined;
    if (!row) throw noChannel();
  }
  const dto = messageDto(row);
  const opts = { actorId: sender.id, actorPublicId: sender.public_id };
  if (peer) {
    await ctx.events.toUser(peer, 'chatMessage', dto, opts);
    await ctx.events.toUser(sender.id, 'chatMessage', dto);
  } else {
    await ctx.events.toParty(channelId, 'chatMessage', dto, opts);
  }
  return dto;
}

/**
 * History, newest first. Readable by the two dm participants (also after the
 * friendship ended) and by current party members; messages of users blocked
 * either way are left out. `before` (an instant) pages backwards.
 */
export async function history(ctx: Ctx, me: UserRow, kind: ChatKind, channelIdRaw: string, limit: number, before?: string) {
  assertChatEnabled(ctx);
  if (!GUID.test(channelIdRaw)) throw noChannel();
  const channelId = channelIdRaw.toLowerCase();
  if (kind === 'dm' ? !(await dmPeer(ctx.db, me.id, channelId)) : !(await isPartyMember(ctx.db, me.id, channelId))) throw noChannel();
  let beforeAt: Date | null = null;
  if (before !== undefined) {
    // An RFC 3339 instant (the route's date-time format) within years 1–9999: what JavaScript parses beyond
    // that (`99999`, year 0, negative years) PostgreSQL refuses.
    beforeAt = new Date(before);
    const year = beforeAt.getUTCFullYear();
    if (Number.isNaN(beforeAt.getTime()) || year < 1 || year > 9999) {
      throw badRequest('validation_failed', 'before must be an RFC 3339 instant between years 1 and 9999', { field: 'before' });
    }
  }
  const rows = (
    await ctx.db.query<MessageRow>(
      `SELECT m.id, m.channel, m.channel_id, m.body, m.sent_at, u.public_id
         FROM chat_messages m JOIN users u ON u.id = m.from_user
        WHERE m.channel = $1 AND m.channel_id = $2 AND ($4::timestamptz IS NULL OR m.sent_at < $4)
          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $3 AND b.blocked = m.from_user) OR (b.blocker = m.from_user AND b.blocked = $3))
        ORDER BY m.sent_at DESC, m.seq DESC LIMIT $5`,
      [kind, channelId, me.id, beforeAt, limit],
    )
  ).rows;
  return { messages: rows.map(messageDto) };
}

/** Deletes messages older than the retention period; returns how many. */
export async function purgeChat(ctx: Ctx, now: Date = ctx.now()): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.config.chatRetentionDays * 86_400_000);
  return (await ctx.db.query('DELETE FROM chat_messages WHERE sent_at < $1', [cutoff])).rowCount;
}
