/** The notification inbox (table `notifications`, migration 0003). */
import type { Queryable } from '@platform/kit';

export interface NotificationRow {
  id: string;
  kind: string;
  data: Record<string, unknown>;
  created_at: Date;
  read_at: Date | null;
  /** bigserial, as text (the driver's int8). */
  seq: string;
  /** The actor's publicId and handle (NULL for notices without an actor). */
  actor_public_id: string | null;
  actor_display_name: string | null;
  actor_discriminator: string | null;
}

const COLUMNS = `n.id, n.kind, n.data, n.created_at, n.read_at, n.seq::text AS seq,
  a.public_id AS actor_public_id, a.display_name AS actor_display_name, a.discriminator AS actor_discriminator`;

export interface NotificationInsert {
  userId: string;
  kind: string;
  actorId: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
  /** The caller's id of a server notice: a second insert with it stores nothing. */
  sourceId?: string;
}

/**
 * Stores a notification unless the recipient muted the actor or a block stands between them (either way).
 * Returns the row (without the actor columns, which the caller has), `undefined` when it was filtered out or
 * its source id was stored already. (The per-user cap is applied by `trimInboxes`, not here: a trim on every
 * insert walked the rows deleted before it until a vacuum, and PGlite never vacuums by itself.)
 */
export async function insertNotification(db: Queryable, n: NotificationInsert): Promise<NotificationRow | undefined> {
  const r = await db.query<NotificationRow>(
    `INSERT INTO notifications (user_id, kind, actor_id, data, created_at, source_id)
     SELECT $1::uuid, $2::text, $3::uuid, $4::jsonb, $5::timestamptz, $6::text
      WHERE $3::uuid IS NULL OR NOT EXISTS (
              SELECT 1 FROM mutes WHERE muter = $1 AND muted = $3
              UNION ALL SELECT 1 FROM blocks WHERE (blocker = $1 AND blocked = $3) OR (blocker = $3 AND blocked = $1))
     ON CONFLICT (user_id, source_id) WHERE source_id IS NOT NULL DO NOTHING
     RETURNING id, kind, data, created_at, read_at, seq::text AS seq`,
    [n.userId, n.kind, n.actorId, JSON.stringify(n.data), n.createdAt, n.sourceId ?? null],
  );
  const row = r.rows[0];
  return row ? { ...row, actor_public_id: null, actor_display_name: null, actor_discriminator: null } : undefined;
}

/**
 * One notification of the same kind, actor and data for each of many users, in one statement (a group's disband): as
 * insertNotification for each, skipping a user who muted the actor or with a block between them.
 */
export async function insertNotifications(
  db: Queryable,
  n: { userIds: readonly string[]; kind: string; actorId: string; data: object; createdAt: Date },
): Promise<(NotificationRow & { user_id: string })[]> {
  if (!n.userIds.length) return [];
  const r = await db.query<NotificationRow & { user_id: string }>(
    `INSERT INTO notifications (user_id, kind, actor_id, data, created_at)
     SELECT u.id, $2::text, $3::uuid, $4::jsonb, $5::timestamptz FROM unnest($1::uuid[]) AS u(id)
      WHERE NOT EXISTS (
              SELECT 1 FROM mutes WHERE muter = u.id AND muted = $3
              UNION ALL SELECT 1 FROM blocks WHERE (blocker = u.id AND blocked = $3) OR (blocker = $3 AND blocked = u.id))
     RETURNING user_id, id, kind, data, created_at, read_at, seq::text AS seq`,
    [[...n.userIds], n.kind, n.actorId, JSON.stringify(n.data), n.createdAt],
  );
  return r.rows.map((row) => ({ ...row, actor_public_id: null, actor_display_name: null, actor_discriminator: null }));
}

/** Deletes, for every user holding more than `cap` notifications, all but their `cap` newest; returns how many. */
export async function trimInboxes(db: Queryable, cap: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM notifications n
      USING (SELECT o.user_id, (SELECT x.seq FROM notifications x WHERE x.user_id = o.user_id ORDER BY x.seq DESC OFFSET $1 LIMIT 1) AS edge
               FROM notifications o GROUP BY o.user_id HAVING count(*) > $1) t
      WHERE n.user_id = t.user_id AND n.seq <= t.edge`,
    [cap],
  );
  return r.rowCount;
}

/** The notification a server notice with this source id stored for the user. */
export async function notificationBySource(db: Queryable, userId: string, sourceId: string): Promise<NotificationRow | undefined> {
  const r = await db.query<NotificationRow>(
    `SELECT ${COLUMNS} FROM notifications n LEFT JOIN users a ON a.id = n.actor_id WHERE n.user_id = $1 AND n.source_id = $2`,
    [userId, sourceId],
  );
  return r.rows[0];
}

/**
 * One page of a user's inbox, newest first, after position `beforeSeq` (null: from the newest). Each of the four
 * shapes is its own statement text, so each prepared statement keeps a plan that walks an index in `seq` order
 * (a generic plan for `($2 IS NULL OR seq < $2)` sorted the whole inbox instead: bench/notifications.ts).
 */
export async function inboxPage(db: Queryable, q: { userId: string; beforeSeq: string | null; unreadOnly: boolean; limit: number }): Promise<NotificationRow[]> {
  const params: unknown[] = [q.userId, q.limit];
  const where = ['n.user_id = $1'];
  if (q.beforeSeq !== null) where.push(`n.seq < $${params.push(q.beforeSeq)}::bigint`);
  if (q.unreadOnly) where.push('n.read_at IS NULL');
  const r = await db.query<NotificationRow>(
    `SELECT ${COLUMNS} FROM notifications n LEFT JOIN users a ON a.id = n.actor_id
      WHERE ${where.join(' AND ')} ORDER BY n.seq DESC LIMIT $2`,
    params,
  );
  return r.rows;
}

/** Every notification of a user, newest first (privacy export). */
export async function allNotifications(db: Queryable, userId: string): Promise<NotificationRow[]> {
  const r = await db.query<NotificationRow>(
    `SELECT ${COLUMNS} FROM notifications n LEFT JOIN users a ON a.id = n.actor_id WHERE n.user_id = $1 ORDER BY n.seq DESC`,
    [userId],
  );
  return r.rows;
}

export async function unreadCount(db: Queryable, userId: string): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND read_at IS NULL', [userId]);
  return r.rows[0].n;
}

/** Marks one of the user's notifications read (the first read time is kept); undefined when it is not theirs. */
export async function markRead(db: Queryable, userId: string, id: string, at: Date): Promise<NotificationRow | undefined> {
  const r = await db.query<NotificationRow>(
    `WITH upd AS (
       UPDATE notifications SET read_at = COALESCE(read_at, $3) WHERE id = $2 AND user_id = $1
       RETURNING id, kind, data, created_at, read_at, seq, actor_id
     )
     SELECT n.id, n.kind, n.data, n.created_at, n.read_at, n.seq::text AS seq,
            a.public_id AS actor_public_id, a.display_name AS actor_display_name, a.discriminator AS actor_discriminator
       FROM upd n LEFT JOIN users a ON a.id = n.actor_id`,
    [userId, id, at],
  );
  return r.rows[0];
}

/** Marks every unread notification of the user read; returns how many. */
export async function markAllRead(db: Queryable, userId: string, at: Date): Promise<number> {
  return (await db.query('UPDATE notifications SET read_at = $2 WHERE user_id = $1 AND read_at IS NULL', [userId, at])).rowCount;
}

/** Deletes one of the user's notifications; false when it is not theirs. */
export async function deleteNotification(db: Queryable, userId: string, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM notifications WHERE id = $2 AND user_id = $1', [userId, id])).rowCount > 0;
}

/** A block between two users removes what either caused in the other's inbox. */
export async function deleteNotificationsBetween(db: Queryable, a: string, b: string): Promise<void> {
  await db.query('DELETE FROM notifications WHERE (user_id = $1 AND actor_id = $2) OR (user_id = $2 AND actor_id = $1)', [a, b]);
}

/** Deletes the notifications created before `cutoff`; returns how many. */
export async function deleteNotificationsBefore(db: Queryable, cutoff: Date): Promise<number> {
  return (await db.query('DELETE FROM notifications WHERE created_at < $1', [cutoff])).rowCount;
}
