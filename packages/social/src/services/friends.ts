/**
 * Friend graph: requests (pending only; accept/decline/cancel remove the
 * row), friendships (one row per direction), blocks and mutes.
 */
import { createHash } from 'node:crypto';
import { type Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import { readPresence, viewPresence, type VisibleState } from './presence.js';
import { limitOutreach } from './limits.js';
import { assertNotBlocked, fullHandle, resolveTarget, requireAddressableUser, requireUser, userSummary } from './users.js';
import { recordDecline } from '../queries/suggestions.js';
import { socialError } from './errors.js';
import { limitGuestFriendRequests, type GuestCaller } from './guest-restrictions.js';
import { publishNotification, storeNotification } from './notifications.js';
import {
  areFriends,
  deleteFriendship,
  deleteRequestsBetween,
  friendRows,
  insertDmChannel,
  friendCount,
  insertFriendship,
  insertRequest,
  lockPair,
  pendingRequests,
  takeRequest,
} from '../queries/friends.js';
import { revokeInvitesBetween } from '../queries/invites.js';
import { deleteNotificationsBetween } from '../queries/notifications.js';
import { blockedUsers, deleteBlock, deleteMute, insertBlock, insertMute, isMuted as mutes } from '../queries/relations.js';

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

/**
 * Makes a and b friends unless either has Social:Friends:Max already (409 friend_limit_reached). Each player's
 * friendships are serialised by a lock of their own, taken in id order (two accepts sharing a player cannot
 * deadlock), so concurrent accepts cannot pass the limit together.
 */
async function makeFriends(ctx: Ctx, tx: Queryable, a: string, b: string): Promise<void> {
  for (const id of [a, b].sort()) {
    await lockPair(tx, `friends-of:${id}`);
    if ((await friendCount(tx, id)) >= ctx.config.friendsMax) throw friendLimit(id === a ? 'You have' : 'This player has', ctx.config.friendsMax);
  }
  await insertFriendship(tx, a, b);
  const [lo, hi] = [a, b].sort();
  await insertDmChannel(tx, dmChannelId(a, b), lo, hi);
}

const friendLimit = (who: string, max: number) => socialError('friend_limit_reached', `${who} the most friends allowed (${max})`);

export const unfriend = deleteFriendship;

/**
 * A friendship a game's platform friends `befriend` mode makes (services/platform-friends.ts): at once, both ways,
 * with the dm channel; a pending request between the two goes (it is answered). False when either has
 * Social:Friends:Max already or they are friends (nothing made). Both hear `friendAdded` (source `platform`); no inbox
 * entry (a first import may add dozens at once, and there is nothing to answer).
 */
export async function befriendFromPlatform(ctx: Ctx, me: UserRow, other: UserRow): Promise<boolean> {
  const [lo, hi] = [me.id, other.id].sort();
  const made = await ctx.db.transaction(async (tx) => {
    await lockPair(tx, `friend:${lo}:${hi}`);
    if (await areFriends(tx, me.id, other.id)) return false;
    try {
      await makeFriends(ctx, tx, me.id, other.id);
    } catch (err) {
      if ((err as { code?: string }).code === 'friend_limit_reached') return false;
      throw err;
    }
    await deleteRequestsBetween(tx, me.id, other.id);
    return true;
  });
  if (!made) return false;
  const added = (u: UserRow) => ({ publicId: u.public_id, fullHandle: fullHandle(u), displayName: u.display_name, source: 'platform' as const });
  await ctx.events.toUser(other.id, 'friendAdded', added(me), { actorId: me.id });
  await ctx.events.toUser(me.id, 'friendAdded', added(other));
  return true;
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

export async function sendRequest(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string }, caller?: GuestCaller) {
  const target = await resolveTarget(ctx.db, { handle: body.toHandle, publicId: body.toPublicId }, { handle: 'toHandle', publicId: 'toPublicId' });
  if (target.id === me.id) throw socialError('cannot_friend_self', 'You cannot befriend yourself');
  await assertNotBlocked(ctx.db, me.id, target.id);
  if (await areFriends(ctx.db, me.id, target.id)) throw socialError('already_friends', 'You are already friends');
  // A request the sender could never see accepted is refused now, not when the other player accepts it.
  if ((await friendCount(ctx.db, me.id)) >= ctx.config.friendsMax) throw friendLimit('You have', ctx.config.friendsMax);
  // A guest's requests of the day (friend_requests_over_limit), then everyone's per-minute outreach limit.
  await limitGuestFriendRequests(ctx, caller, me.id);
  await limitOutreach(ctx, me.id);
  // One transaction per pair, serialised by an advisory lock, so two users asking each other at the same time
  // end as friends instead of as two crossing pending requests.
  const [lo, hi] = [me.id, target.id].sort();
  const outcome = await ctx.db.transaction(async (tx) => {
    await lockPair(tx, `friend:${lo}:${hi}`);
    const crossing = await takeRequest(tx, target.id, me.id);
    if (crossing) {
      await makeFriends(ctx, tx, me.id, target.id);
      return { accepted: true, id: crossing, note: await storeNotification(ctx, tx, target.id, 'friendRequestAccepted', me, { requestId: crossing }) };
    }
    if (await areFriends(tx, me.id, target.id)) throw socialError('already_friends', 'You are already friends');
    const inserted = await insertRequest(tx, me.id, target.id);
    if (!inserted) throw socialError('request_exists', 'A friend request to this user is already pending');
    return { accepted: false, id: inserted, note: await storeNotification(ctx, tx, target.id, 'friendRequestReceived', me, { requestId: inserted }) };
  });
  if (outcome.accepted) {
    await ctx.events.toUser(target.id, 'friendRequestAccepted', requestSummary(outcome.id, me, 'outgoing', 'accepted'), { actorId: me.id });
    await publishNotification(ctx, outcome.note);
    return requestSummary(outcome.id, target, 'outgoing', 'accepted');
  }
  const id = outcome.id;
  await ctx.events.toUser(target.id, 'friendRequestReceived', requestSummary(id, me, 'incoming', 'pending'), { actorId: me.id, actorPublicId: me.public_id });
  await publishNotification(ctx, outcome.note);
  return requestSummary(id, target, 'outgoing', 'pending');
}

export async function listRequests(ctx: Ctx, me: UserRow, dir: Direction) {
  const rows = await pendingRequests(ctx.db, me.id, dir);
  return rows.map((r) => requestSummary(r.request_id, r, dir, 'pending'));
}

export async function acceptRequest(ctx: Ctx, me: UserRow, fromPublicId: string) {
  const from = await requireRequester(ctx, fromPublicId);
  const taken = await ctx.db.transaction(async (tx) => {
    const requestId = await takeRequest(tx, from.id, me.id);
    if (!requestId) return undefined;
    await makeFriends(ctx, tx, me.id, from.id);
    return { id: requestId, note: await storeNotification(ctx, tx, from.id, 'friendRequestAccepted', me, { requestId }) };
  });
  if (!taken) throw socialError('request_not_found', 'No pending friend request from this user');
  const id = taken.id;
  await ctx.events.toUser(from.id, 'friendRequestAccepted', requestSummary(id, me, 'outgoing', 'accepted'), { actorId: me.id });
  await publishNotification(ctx, taken.note);
  return requestSummary(id, from, 'incoming', 'accepted');
}

export async function declineRequest(ctx: Ctx, me: UserRow, fromPublicId: string) {
  const from = await requireRequester(ctx, fromPublicId);
  const id = await takeRequest(ctx.db, from.id, me.id);
  if (!id) throw socialError('request_not_found', 'No pending friend request from this user');
  // Kept for a while so neither is suggested to the other (services/suggestions.ts).
  await recordDecline(ctx.db, me.id, from.id, ctx.now());
  return requestSummary(id, from, 'incoming', 'declined');
}

export async function cancelRequest(ctx: Ctx, me: UserRow, toPublicId: string): Promise<void> {
  const to = await requireRequester(ctx, toPublicId);
  if (!(await takeRequest(ctx.db, me.id, to.id))) throw socialError('request_not_found', 'No pending friend request to this user');
}

async function requireRequester(ctx: Ctx, publicId: string): Promise<UserRow> {
  try {
    return await requireUser(ctx.db, publicId);
  } catch {
    throw socialError('request_not_found', 'No pending friend request with this user');
  }
}

export async function removeFriend(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireUser(ctx.db, publicId).catch(() => {
    throw socialError('friend_not_found', 'This user is not your friend');
  });
  if (!(await unfriend(ctx.db, me.id, other.id))) throw socialError('friend_not_found', 'This user is not your friend');
  // Both sides hear of it: "a friend removed you" and "a friend was removed" (the caller's other devices).
  await ctx.events.toUser(other.id, 'friendRemoved', { publicId: me.public_id }, { actorId: me.id });
  await ctx.events.toUser(me.id, 'friendRemoved', { publicId: other.public_id });
}

/** FriendSummary list; presence and rich presence filtered for the caller's game. */
export async function listFriends(ctx: Ctx, me: UserRow, game: GameContext) {
  const rows = await friendRows(ctx.db, me.id);
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

/** Blocks a user: ends the friendship, pending requests and what each caused in the other's inbox, both ways. Idempotent. */
export async function block(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  if (other.id === me.id) throw socialError('cannot_block_self', 'You cannot block yourself');
  const wereFriends = await ctx.db.transaction(async (tx) => {
    await insertBlock(tx, me.id, other.id);
    await deleteRequestsBetween(tx, me.id, other.id);
    await revokeInvitesBetween(tx, me.id, other.id);
    await deleteNotificationsBetween(tx, me.id, other.id);
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
  await deleteBlock(ctx.db, me.id, other.id);
  await ctx.events.relationsChanged([me.id, other.id]);
}

export async function listBlocked(ctx: Ctx, me: UserRow) {
  const rows = await blockedUsers(ctx.db, me.id);
  return rows.map((u) => userSummary(u));
}

export async function mute(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  if (other.id === me.id) throw socialError('cannot_mute_self', 'You cannot mute yourself');
  await insertMute(ctx.db, me.id, other.id);
  await ctx.events.relationsChanged([me.id, other.id]);
}

export async function unmute(ctx: Ctx, me: UserRow, publicId: string): Promise<void> {
  const other = await requireAddressableUser(ctx.db, me, publicId);
  await deleteMute(ctx.db, me.id, other.id);
  await ctx.events.relationsChanged([me.id, other.id]);
}

/** For the realtime layer: does `muter` mute `mutedId`? */
export async function isMuted(ctx: Ctx, muter: string, mutedId: string): Promise<boolean> {
  return mutes(ctx.db, muter, mutedId);
}

