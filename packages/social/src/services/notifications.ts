/**
 * The notification inbox (docs/social.md, "Notifications"): friend requests received and accepted, party and
 * game invites, party kicks and moderation notices are stored for their recipient whether or not they are
 * online, and published live as the `notification` event. A muted or blocked actor's notifications are
 * neither stored nor delivered. Pages are newest first behind an opaque cursor bound to the reader.
 */
import { UUID_PATTERN as UUID, type Queryable } from '@platform/kit';
import type { Ctx, UserRow } from '../context.js';
import { socialError } from './errors.js';
import { fullHandle } from './users.js';
import {
  allNotifications,
  deleteNotification,
  deleteNotificationsBefore,
  inboxPage,
  insertNotification,
  insertNotifications,
  markAllRead,
  markRead,
  notificationBySource,
  trimInboxes,
  unreadCount,
  type NotificationRow,
} from '../queries/notifications.js';

export const NOTIFICATION_KINDS = [
  'friendRequestReceived',
  'friendRequestAccepted',
  'partyInviteReceived',
  'gameInviteReceived',
  'partyKicked',
  'groupInviteReceived',
  'groupRequestAccepted',
  'groupRemoved',
  'groupRoleChanged',
  'groupDisbanded',
  'moderationNotice',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What each kind stores beside its actor: the ids the client needs to act on it. */
export interface NotificationData {
  friendRequestReceived: { requestId: string };
  friendRequestAccepted: { requestId: string };
  partyInviteReceived: { inviteId: string; partyId: string; expiresAt: string };
  gameInviteReceived: { inviteId: string; sessionHandle?: string; expiresAt: string };
  partyKicked: { partyId: string };
  groupInviteReceived: { inviteId: string; groupId: string; expiresAt: string };
  groupRequestAccepted: { groupId: string };
  groupRemoved: { groupId: string; reason: 'kicked' | 'banned' };
  groupRoleChanged: { groupId: string; role: string };
  groupDisbanded: { groupId: string; name: string };
  moderationNotice: { message: string; title?: string; reference?: string };
}

/** The page size when none is asked for, and the largest one. */
export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

/** One notification as clients see it: `kind` says which `data` it has; every kind but moderationNotice has an actor. */
export type NotificationDto = {
  [K in NotificationKind]: {
    notificationId: string;
    kind: K;
    actor: K extends 'moderationNotice' ? undefined : { publicId: string; fullHandle: string };
    data: NotificationData[K];
    createdAt: string;
    readAt: string | null;
  };
}[NotificationKind];

function toDto(r: NotificationRow, actor?: UserRow): NotificationDto {
  const a = actor
    ? { publicId: actor.public_id, fullHandle: fullHandle(actor) }
    : r.actor_public_id
      ? { publicId: r.actor_public_id, fullHandle: `${r.actor_display_name}#${r.actor_discriminator}` }
      : undefined;
  return {
    notificationId: r.id,
    kind: r.kind,
    ...(a ? { actor: a } : {}),
    data: r.data,
    createdAt: new Date(r.created_at).toISOString(),
    readAt: r.read_at ? new Date(r.read_at).toISOString() : null,
  } as NotificationDto;
}

/**
 * Stores a notification for `recipientId` in `tx` (the transaction of the change it tells of, so both commit or
 * neither does) and returns what to publish after the commit, or undefined when the recipient muted the actor
 * or a block stands between them (nothing is stored then).
 */
export async function storeNotification<K extends Exclude<NotificationKind, 'moderationNotice'>>(
  ctx: Ctx,
  tx: Queryable,
  recipientId: string,
  kind: K,
  actor: UserRow,
  data: NotificationData[K],
): Promise<StoredNotification | undefined> {
  const row = await insertNotification(tx, {
    userId: recipientId,
    kind,
    actorId: actor.id,
    data: { ...data },
    createdAt: ctx.now(),
  });
  return row ? { recipientId, actorPublicId: actor.public_id, dto: toDto(row, actor) } : undefined;
}

/** storeNotification for many recipients of one change, in one statement (a group's disband to its members). */
export async function storeNotifications<K extends Exclude<NotificationKind, 'moderationNotice'>>(
  ctx: Ctx,
  tx: Queryable,
  recipientIds: readonly string[],
  kind: K,
  actor: UserRow,
  data: NotificationData[K],
): Promise<StoredNotification[]> {
  const rows = await insertNotifications(tx, { userIds: recipientIds, kind, actorId: actor.id, data: { ...data }, createdAt: ctx.now() });
  return rows.map((row) => ({ recipientId: row.user_id, actorPublicId: actor.public_id, dto: toDto(row, actor) }));
}

export interface StoredNotification {
  recipientId: string;
  actorPublicId?: string;
  dto: NotificationDto;
}

/**
 * The `notification` event (data: the DTO) of a stored notification, after the commit. Like every event a
 * failed publish is logged, not retried: the inbox is the record.
 */
export async function publishNotification(ctx: Ctx, stored: StoredNotification | undefined): Promise<void> {
  if (!stored) return;
  await ctx.events.toUser(stored.recipientId, 'notification', stored.dto, stored.actorPublicId ? { actorPublicId: stored.actorPublicId } : {});
}

/**
 * A moderation notice from a server caller (sanctions, warnings). `noticeId` is the caller's id for it: a
 * repeat with the same id stores nothing new and answers the notification stored the first time
 * (`created: false`), so an at-least-once sender needs nothing more.
 */
export async function notifyModeration(
  ctx: Ctx,
  recipient: UserRow,
  noticeId: string,
  data: NotificationData['moderationNotice'],
): Promise<{ created: boolean; notification: NotificationDto }> {
  const row = await insertNotification(ctx.db, {
    userId: recipient.id,
    kind: 'moderationNotice',
    actorId: null,
    data: { ...data },
    createdAt: ctx.now(),
    sourceId: noticeId,
  });
  if (!row) {
    const stored = await notificationBySource(ctx.db, recipient.id, noticeId);
    // Deleted between the two statements (by the reader, the cap or the purge): store it again.
    if (!stored) return notifyModeration(ctx, recipient, noticeId, data);
    return { created: false, notification: toDto(stored) };
  }
  const dto = toDto(row);
  await publishNotification(ctx, { recipientId: recipient.id, dto });
  return { created: true, notification: dto };
}

// ------------------------------------------------------------ cursors

const MAX_SEQ = 9223372036854775807n;
const CURSOR_KIND = 'notifications';

/** A sealed cursor (kit cursor.ts): the position, encrypted and authenticated, bound to its reader. */
export function encodeCursor(ctx: Ctx, me: UserRow, seq: string): string {
  return ctx.cursors.seal(CURSOR_KIND, seq, me.id);
}

/** The position a cursor names; 400 `invalid_cursor` for anything this service did not give this reader. */
export function decodeCursor(ctx: Ctx, me: UserRow, cursor: string): string {
  const seq = ctx.cursors.open(CURSOR_KIND, cursor, me.id);
  if (seq === undefined || !/^(0|[1-9]\d{0,18})$/.test(seq) || BigInt(seq) > MAX_SEQ) {
    throw socialError('invalid_cursor', 'cursor is not a cursor of your notifications (use nextCursor as given)', { field: 'cursor' });
  }
  return seq;
}

// ------------------------------------------------------------ the inbox

export async function listNotifications(ctx: Ctx, me: UserRow, q: { limit?: number; cursor?: string; unread?: boolean }) {
  const limit = q.limit ?? DEFAULT_PAGE;
  const beforeSeq = q.cursor !== undefined ? decodeCursor(ctx, me, q.cursor) : null;
  // One more than asked: whether a next page exists without a second query.
  const [rows, unread] = await Promise.all([
    inboxPage(ctx.db, { userId: me.id, beforeSeq, unreadOnly: q.unread === true, limit: limit + 1 }),
    unreadCount(ctx.db, me.id),
  ]);
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return {
    notifications: page.map((r) => toDto(r)),
    ...(more ? { nextCursor: encodeCursor(ctx, me, page[page.length - 1].seq) } : {}),
    unreadCount: unread,
  };
}

export async function countUnread(ctx: Ctx, me: UserRow) {
  return { unreadCount: await unreadCount(ctx.db, me.id) };
}

const notFound = () => socialError('notification_not_found', 'No such notification');

/** Marks one notification read (idempotent: the first read time stays). Another user's id is unknown here. */
export async function readNotification(ctx: Ctx, me: UserRow, id: string): Promise<NotificationDto> {
  if (!UUID.test(id)) throw notFound();
  const row = await markRead(ctx.db, me.id, id.toLowerCase(), ctx.now());
  if (!row) throw notFound();
  return toDto(row);
}

export async function readAllNotifications(ctx: Ctx, me: UserRow) {
  return { marked: await markAllRead(ctx.db, me.id, ctx.now()), unreadCount: 0 as const };
}

export async function removeNotification(ctx: Ctx, me: UserRow, id: string): Promise<void> {
  if (!UUID.test(id) || !(await deleteNotification(ctx.db, me.id, id.toLowerCase()))) throw notFound();
}

/** The privacy export's part: every notification of the user, newest first. */
export async function exportNotifications(ctx: Ctx, me: UserRow): Promise<NotificationDto[]> {
  return (await allNotifications(ctx.db, me.id)).map((r) => toDto(r));
}

/**
 * The periodic purge (hourly, start.ts): deletes notifications older than the retention period, then trims
 * every inbox over the per-user cap to its newest; returns how many went.
 */
export async function purgeNotifications(ctx: Ctx, now: Date = ctx.now()): Promise<number> {
  const old = await deleteNotificationsBefore(ctx.db, new Date(now.getTime() - ctx.config.notificationsRetentionDays * 86_400_000));
  return old + (await trimInboxes(ctx.db, ctx.config.notificationsMaxPerUser));
}
