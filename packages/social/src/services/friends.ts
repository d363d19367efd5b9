/**
 * Friend graph: requests (pending only; accept/decline/cancel remove the
 * row), friendships (one row per direction), blocks and mutes.
 */
import { createHash } from 'node:crypto';
import { badRequest, conflict, notFound, type Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from './context.js';
import { readPresence, viewPresence, type VisibleState } from './presence.js';
import { limitOutreach } from './limits.js';
import { areFriends, assertNotBlocked, fullHandle, resolveTarget, requireAddressableUser, requireUser, userSummary } from './users.js';

/**
 * The dm channel of two users: SHA-256 over the sorted internal ids, shaped
 * as a version-5-style UUID. Deterministic, and not derivable by clients
 * (internal ids are never exposed).
 */
export function dmChannelId(a: string, b: string): string {
  const [lo, hi] = [a, b].sort();
  const h = createHash('sha256').update(`dm:${lo}:${hi}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

async function makeFriends(tx: Queryable, a: string, b: string): Promise<void> {
  await tx.query('INSERT INTO friendships (user_id, friend_id) VALUES ($1, $2), ($2, $1) ON CONFLICT DO NOTHING', [a, b]);
  const [lo, hi] = [a, b].sort();
  await tx.query('INSERT INTO dm_channels (channel_id, user_low, user_high) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [dmChannelId(a, b), lo, hi]);
}

export async function unfriend(tx: Queryable, a: string, b: string): Promise<boolean> {
  const r = await tx.query('DELETE FROM friendships WHERE (user_id = $1 AND friend_id = $2) OR (user_id = $2 AND friend_id = $1)', [a, b]);
  return r.rowCount > 0;
}

type Direction = 'incoming' | 'outgoing';
type RequestState = 'pending' | 'accepted' | 'declined';
const requestSummary = (requestId: string, other: UserRow, direction: Direction, state: RequestState) => ({
  requestId,
  publicId: other.public_id,
  fullHandle: fullHandle(other),
  direction,
  state,
});

export async function sendRequest(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string }) {
  const target = await resolveTarget(ctx.db, { handle: body.toHandle, publicId: body.toPublicId }, { handle: 'toHandle', publicId: 'toPublicId' });
  if (target.id === me.id) throw badRequest('cannot_friend_self', 'You cannot befriend yourself');
  await assertNotBlocked(ctx.db, me.id, target.id);
  if (await areFriends(ctx.db, me.id, target.id)) throw conflict('already_friends', 'You are already friends');
  await limitOutreach(ctx, me.id);
  // One transaction per pair, serialised by an advisory lock, so two users asking each other at the same time
  // end as friends instead of as two crossing pending requests.
  const [lo, hi] = [me.id, target.id].sort();
  const outcome = await ctx.db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`friend:${lo}:${hi}`]);
    const crossing = await tx.query<{ id: string }>('DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id', [target.id, me.id]);
    if (crossing.rows[0]) {
      await makeFriends(tx, me.id, target.id);
      return { accepted: true, id: crossing.rows[0].id };
    }
    if (await areFriends(tx, me.id, target.id)) throw conflict('already_friends', 'You are already friends');
    const inserted = await tx.query<{ id: string }>(
      'INSERT INTO friend_requests (from_user, to_user) VALUES ($1, $2) ON CONFLICT (from_user, to_user) DO NOTHING RETURNING id',
      [me.id, target.id],
    );
    if (!inserted.rows[0]) throw conflict('request_exists', 'A friend request to this user is already pending');
    return { accepted: false, id: inserted.rows[0].id };
  });
  if (outcome.accepted) {
    await ctx.events.toUser(target.id, 'friendRequestAccepted', requestSummary(outcome.id, me, 'outgoing', 'accepted'), { actorId: me.id });
    return requestSummary(outcome.id, target, 'outgoing', 'accepted');
  }
  const id = outcome.id;
  await ctx.events.toUser(target.id, 'friendRequestReceived', requestSummary(id, me, 'incoming', 'pending'), { actorId: me.id, actorPublicId: me.public_id });
  return requestSummary(id, target, 'outgoing', 'pending');
}

export async function listRequests(ctx: Ctx, me: UserRow, dir: Direction) {
  const sql =
    dir === 'incoming'
      ? 'SELECT r.id AS request_id, u.* FROM friend_requests r JOIN users u ON u.id = r.from_user WHERE r.to_user = $1 ORDER BY r.created_at DESC'
      : 'SELECT r.id AS request_id, u.* FROM friend_requests r JOIN users u ON u.id = r.to_user WHERE r.from_user = $1 ORDER BY r.created_at DESC';
  const rows = (await ctx.db.query<UserRow & { request_id: string }>(sql, [me.id])).rows;
  return rows.map((r) => requestSummary(r.request_id, r, dir, 'pending'));
}

export async function acceptRequest(ctx: Ctx, me: UserRow, fromPublicId: string) {
  const from = await requireRequester(ctx, fromPublicId);
  const id = await ctx.db.transaction(async (tx) => {
    const r = await tx.query<{ id: string }>('DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id', [from.id, me.id]);
    if (!r.rows[0]) return undefined;
    await makeFriends(tx, me.id, from.id);
    return r.rows[0].id;
  });
  if (!id) throw notFound('request_not_found', 'No pending friend request from this user');
  await ctx.events.toUser(from.id, 'friendRequestAccepted', requestSummary(id, me, 'outgoing', 'accepted'), { actorId: me.id });
  return requestSummary(id, from, 'incoming', 'accepted');
}

export async function declineRequest(ctx: Ctx, me: UserRow, fromPublicId: string) {
  const from = await requireRequester(ctx, fromPublicId);
  const r = await ctx.db.query<{ id: string }>('DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id', [from.id, me.id]);
  if (!r.rows[0]) throw notFound('request_not_found', 'No pending friend request from this user');
  return requestSummary(r.rows[0].id, from, 'incoming', 'declined');
}

export async function cancelRequest(ctx: Ctx, me: UserRow, toPublicId: string): Promise<void> {
  const to = await requireRequester(ctx, toPublicId);
  const r = await ctx.db.query('DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2', [me.id, to.id]);
  if (!r.rowCount) throw notFound('request_not_found', 'No pending friend request to this user');
}

async function requireRequester(ctx: Ctx, publicId: string): Promise<UserRow> {
  try {
    return await requireUser(ctx.db, publicId);
  } catch {
    throw notFound('request_not_found', 'No pending friend request with this user');
  }
}

export async function removeFriend(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireUser(ctx.db, publicId).catch(() => {
    throw notFound('friend_not_found', 'This user is not your friend');
  });
  if (!(await unfriend(ctx.db, me.id, other.id))) throw notFound('friend_not_found', 'This user is not your friend');
  // Both sides hear of it: "a friend removed you" and "a friend was removed" (the caller's other devices).
  await ctx.events.toUser(other.id, 'friendRemoved', { publicId: me.public_id }, { actorId: me.id });
  await ctx.events.toUser(me.id, 'friendRemoved', { publicId: other.public_id });
}

/** FriendSummary list; presence and rich presence filtered for the caller's game. */
export async function listFriends(ctx: Ctx, me: UserRow, game: GameContext) {
  const rows = (
    await ctx.db.query<UserRow & { muted: boolean; note: string | null }>(
      `SELECT u.*, (m.muter IS NOT NULL) AS muted, n.text AS note
         FROM friendships f JOIN users u ON u.id = f.friend_id
         LEFT JOIN mutes m ON m.muter = $1 AND m.muted = u.id
         LEFT JOIN notes n ON n.author = $1 AND n.subject = u.id
        WHERE f.user_id = $1 ORDER BY u.name_key, u.discriminator`,
      [me.id],
    )
  ).rows;
  const out = [];
  for (const u of rows) {
    const view = viewPresence(await readPresence(ctx, u.id), u, me.id, game);
    out.push({
      publicId: u.public_id,
      fullHandle: fullHandle(u),
      displayName: u.display_name,
      ...(u.avatar_url ? { avatarUrl: u.avatar_url } : {}),
      ...(u.status ? { status: u.status } : {}),
      presenceState: view.state as VisibleState,
      muted: u.muted,
      ...(view.richPresence ? { richPresence: view.richPresence } : {}),
      ...(u.note !== null ? { note: u.note } : {}),
      sameGame: view.sameGame,
      dmChannelId: dmChannelId(me.id, u.id),
    });
  }
  return out;
}

// ------------------------------------------------------------ blocks, mutes

/** Blocks a user: ends the friendship and pending requests both ways. Idempotent. */
export async function block(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  if (other.id === me.id) throw badRequest('cannot_block_self', 'You cannot block yourself');
  const wereFriends = await ctx.db.transaction(async (tx) => {
    await tx.query('INSERT INTO blocks (blocker, blocked) VALUES ($1, $2) ON CONFLICT DO NOTHING', [me.id, other.id]);
    await tx.query('DELETE FROM friend_requests WHERE (from_user = $1 AND to_user = $2) OR (from_user = $2 AND to_user = $1)', [me.id, other.id]);
    await tx.query(
      `UPDATE invites SET state = 'revoked' WHERE state = 'pending' AND ((from_user = $1 AND to_user = $2) OR (from_user = $2 AND to_user = $1))`,
      [me.id, other.id],
    );
    return unfriend(tx, me.id, other.id);
  });
  await ctx.events.relationsChanged([me.id, other.id]);
  if (wereFriends) {
    await ctx.events.toUser(other.id, 'friendRemoved', { publicId: me.public_id });
    await ctx.events.toUser(me.id, 'friendRemoved', { publicId: other.public_id });
  }
}

export async function unblock(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  await ctx.db.query('DELETE FROM blocks WHERE blocker = $1 AND blocked = $2', [me.id, other.id]);
  await ctx.events.relationsChanged([me.id, other.id]);
}

export async function listBlocked(ctx: Ctx, me: UserRow) {
  const rows = (await ctx.db.query<UserRow>('SELECT u.* FROM blocks b JOIN users u ON u.id = b.blocked WHERE b.blocker = $1 ORDER BY b.created_at', [me.id])).rows;
  return rows.map((u) => userSummary(u));
}

export async function mute(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  if (other.id === me.id) throw badRequest('cannot_mute_self', 'You cannot mute yourself');
  await ctx.db.query('INSERT INTO mutes (muter, muted) VALUES ($1, $2) ON CONFLICT DO NOTHING', [me.id, other.id]);
  await ctx.events.relationsChanged([me.id, other.id]);
}

export async function unmute(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  await ctx.db.query('DELETE FROM mutes WHERE muter = $1 AND muted = $2', [me.id, other.id]);
  await ctx.events.relationsChanged([me.id, other.id]);
}

/** For the realtime layer: does `muter` mute `mutedId`? */
export async function isMuted(ctx: Ctx, muter: string, mutedId: string): Promise<boolean> {
  return (await ctx.db.query('SELECT 1 FROM mutes WHERE muter = $1 AND muted = $2', [muter, mutedId])).rowCount > 0;
}

