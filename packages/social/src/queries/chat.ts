/** Chat messages of dm, party and group channels. */
import type { Queryable } from '@platform/kit';

export type ChatKind = 'dm' | 'party' | 'group';

export interface MessageRow {
  id: string;
  channel: ChatKind;
  channel_id: string;
  body: string;
  sent_at: Date;
  /** The sender's publicId. */
  public_id: string;
}

export async function insertDmMessage(
  db: Queryable,
  m: { channelId: string; from: string; fromPublicId: string; body: string; sentAt: Date },
): Promise<MessageRow> {
  const r = await db.query<MessageRow>(
    `INSERT INTO chat_messages (channel, channel_id, from_user, body, sent_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING id, channel, channel_id, body, sent_at, $6::text AS public_id`,
    ['dm', m.channelId, m.from, m.body, m.sentAt, m.fromPublicId],
  );
  return r.rows[0];
}

export interface PartyInsert {
  id: string;
  channelId: string;
  from: string;
  body: string;
  sentAt: Date;
}

const PARTY_INSERT_SQL = `INSERT INTO chat_messages (id, channel, channel_id, from_user, body, sent_at)
SELECT m.id, 'party', m.channel_id, m.from_user, m.body, m.sent_at
FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS m(id, channel_id, from_user, body, sent_at, ord)
WHERE EXISTS (SELECT 1 FROM party_members pm WHERE pm.party_id = m.channel_id AND pm.user_id = m.from_user)
ORDER BY m.ord
RETURNING id, sent_at`;

/**
 * Party messages of many senders in one statement: each row is written only if its sender is a member
 * of the party at that moment; rows keep their arrival order (seq). Returns the rows written.
 */
export async function insertPartyMessages(db: Queryable, items: readonly PartyInsert[]): Promise<{ id: string; sent_at: Date }[]> {
  const r = await db.query<{ id: string; sent_at: Date }>(PARTY_INSERT_SQL, [
    items.map((m) => m.id),
    items.map((m) => m.channelId),
    items.map((m) => m.from),
    items.map((m) => m.body),
    items.map((m) => m.sentAt.toISOString()),
  ]);
  return r.rows;
}

/** A group message, written only if its sender is a member of the group at that moment; its stored time, or undefined. */
export async function insertGroupMessage(db: Queryable, m: PartyInsert): Promise<Date | undefined> {
  const r = await db.query<{ sent_at: Date }>(
    `INSERT INTO chat_messages (id, channel, channel_id, from_user, body, sent_at)
     SELECT $1, 'group', $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = $2 AND gm.user_id = $3)
     RETURNING sent_at`,
    [m.id, m.channelId, m.from, m.body, m.sentAt],
  );
  return r.rows[0]?.sent_at;
}

/** The members of a group who may read an author's message live: none blocked with the author either way. */
export async function groupReaders(db: Queryable, groupId: string, author: string): Promise<string[]> {
  const r = await db.query<{ user_id: string }>(
    `SELECT gm.user_id FROM group_members gm WHERE gm.group_id = $1
       AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = gm.user_id AND b.blocked = $2) OR (b.blocker = $2 AND b.blocked = gm.user_id))`,
    [groupId, author],
  );
  return r.rows.map((x) => x.user_id);
}

/** One page of a channel, newest first, before `before` (null: from the newest), without the messages of users blocked with `reader` either way. */
export async function channelHistory(
  db: Queryable,
  q: { kind: ChatKind; channelId: string; reader: string; before: Date | null; limit: number },
): Promise<MessageRow[]> {
  const r = await db.query<MessageRow>(
    `SELECT m.id, m.channel, m.channel_id, m.body, m.sent_at, u.public_id
         FROM chat_messages m JOIN users u ON u.id = m.from_user
        WHERE m.channel = $1 AND m.channel_id = $2 AND ($4::timestamptz IS NULL OR m.sent_at < $4)
          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker = $3 AND b.blocked = m.from_user) OR (b.blocker = m.from_user AND b.blocked = $3))
        ORDER BY m.sent_at DESC, m.seq DESC LIMIT $5`,
    [q.kind, q.channelId, q.reader, q.before, q.limit],
  );
  return r.rows;
}

/** Every message a user sent that is still kept (the export), newest first, on the (from_user, sent_at) index. */
export async function messagesBy(db: Queryable, userId: string): Promise<Omit<MessageRow, 'public_id'>[]> {
  const r = await db.query<Omit<MessageRow, 'public_id'>>(
    `SELECT id, channel, channel_id, body, sent_at FROM chat_messages WHERE from_user = $1 ORDER BY sent_at DESC, seq DESC`,
    [userId],
  );
  return r.rows;
}

/** Deletes the messages sent before `cutoff`; returns how many. */
export async function deleteMessagesBefore(db: Queryable, cutoff: Date): Promise<number> {
  return (await db.query('DELETE FROM chat_messages WHERE sent_at < $1', [cutoff])).rowCount;
}
