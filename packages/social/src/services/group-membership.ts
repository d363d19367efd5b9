/** Joining groups: open joins, join requests and invites, leaving (services/groups.ts). */
import type { Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import {
  deleteGroup,
  deleteGroupMember,
  deleteInvite,
  deleteRequest,
  insertGroupMember,
  insertRequest,
  inviteById,
  invitesTo,
  isBanned,
  lockGroup,
  memberOf,
  membershipCount,
  requestsFor,
  upsertInvite,
  type GroupRow,
} from '../queries/groups.js';
import { blockedEitherWay, hasBlocked } from '../queries/relations.js';
import { socialError } from './errors.js';
import { publishNotification, storeNotification } from './notifications.js';
import { authority, demand, groupDto, groupEvent, groupLimit, groupLimits, groupMemberDto, memberJoined, memberLeft, membersWith, notMember, ownGameGroup, spaceOf, type GroupDto } from './group-access.js';
import { limitOutreach } from './limits.js';
import { findByPublicId, fullHandle, resolveTarget } from './users.js';


// ------------------------------------------------------------ joining and leaving

/** Whether a block stands between the player and the group's owner: the owner's group is closed to them. */
async function blockedByOwner(db: Queryable, groupId: string, userId: string): Promise<boolean> {
  const owner = (await db.query<{ user_id: string }>(`SELECT user_id FROM group_members WHERE group_id = $1 AND role = 'owner'`, [groupId])).rows[0];
  return owner ? blockedEitherWay(db, owner.user_id, userId) : false;
}

/** What every way into a group checks: not a member already, not banned, under the player's group limit. */
async function assertMayJoin(ctx: Ctx, tx: Queryable, game: GameContext, g: GroupRow, userId: string): Promise<void> {
  if (await memberOf(tx, g.id, userId)) throw socialError('already_group_member', 'Already a member of the group');
  if (await isBanned(tx, g.id, userId)) throw socialError('group_banned', 'Banned from the group');
  if ((await membershipCount(tx, userId, g.game_id)) >= groupLimits(ctx, game).perPlayer) throw groupLimit();
}

/** Adds a member under the group's lock, after assertMayJoin: the member limit, then the row. */
async function admitChecked(tx: Queryable, g: GroupRow, user: UserRow): Promise<void> {
  if (g.member_count >= g.member_limit) throw socialError('group_full', 'The group is full');
  await insertGroupMember(tx, g.id, user.id, 'member');
}

async function admit(ctx: Ctx, tx: Queryable, game: GameContext, g: GroupRow, user: UserRow): Promise<void> {
  await assertMayJoin(ctx, tx, game, g, user.id);
  await admitChecked(tx, g, user);
}

/**
 * Joins an `open` group at once, or files a join request to a `request` group (the members who may accept hear
 * groupJoinRequested); an `invite` group is joined through an invite only.
 */
export async function joinGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string): Promise<{ state: 'joined' | 'requested'; group: GroupDto }> {
  const outcome = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    if (await memberOf(tx, g.id, me.id)) throw socialError('already_group_member', 'Already a member of the group');
    if (await isBanned(tx, g.id, me.id)) throw socialError('group_banned', 'Banned from the group');
    if (g.join_policy === 'invite' || (await blockedByOwner(tx, g.id, me.id))) throw socialError('group_join_denied', 'You cannot join this group without an invite');
    if ((await membershipCount(tx, me.id, g.game_id)) >= groupLimits(ctx, game).perPlayer) throw groupLimit();
    if (g.join_policy === 'open') {
      await admitChecked(tx, g, me);
      return { state: 'joined' as const, g: { ...g, member_count: g.member_count + 1 } };
    }
    if (!(await insertRequest(tx, g.id, me.id))) throw socialError('group_request_exists', 'Your join request is pending already');
    return { state: 'requested' as const, g };
  });
  if (outcome.state === 'joined') {
    await memberJoined(ctx, outcome.g.id, me);
    return { state: 'joined', group: groupDto(outcome.g, 'member') };
  }
  const deciders = await membersWith(ctx.db, outcome.g.id, 'accept_requests');
  const notBlocking = [];
  for (const d of deciders) if (!(await hasBlocked(ctx.db, d, me.id))) notBlocking.push(d);
  await groupEvent(ctx, notBlocking, 'groupJoinRequested', { groupId: outcome.g.id, publicId: me.public_id, fullHandle: fullHandle(me), displayName: me.display_name }, me);
  return { state: 'requested', group: groupDto(outcome.g) };
}

/** Leaves the group, or withdraws a pending join request. The owner of a group with others in it hands over first. */
export async function leaveGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string): Promise<{ state: 'left' | 'withdrawn' }> {
  const left = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const m = await memberOf(tx, g.id, me.id);
    if (!m) {
      if (await deleteRequest(tx, g.id, me.id)) return undefined;
      throw notMember();
    }
    if (m.role === 'owner') {
      if (g.member_count > 1) throw socialError('owner_must_transfer', 'Hand ownership to another member first, or disband the group');
      // The last member leaving: the group goes with them.
      await deleteGroup(tx, g.id);
      return { g, emptied: true };
    }
    await deleteGroupMember(tx, g.id, me.id);
    return { g, emptied: false };
  });
  if (!left) return { state: 'withdrawn' };
  if (!left.emptied) await memberLeft(ctx, left.g.id, me, 'left', [me.id]);
  return { state: 'left' };
}

// ------------------------------------------------------------ requests

export async function listRequests(ctx: Ctx, me: UserRow, game: GameContext, id: string) {
  const g = await ownGameGroup(ctx.db, game, id);
  demand(await authority(ctx.db, g.id, me), 'accept_requests');
  const rows = await requestsFor(ctx.db, g.id, me.id, 100);
  return {
    requests: rows.map((u) => ({ publicId: u.public_id, fullHandle: fullHandle(u), displayName: u.display_name, requestedAt: new Date(u.requested_at).toISOString() })),
  };
}

export async function decideRequest(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string, accept: boolean) {
  const out = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    demand(await authority(tx, g.id, me), 'accept_requests');
    const u = await findByPublicId(tx, publicId);
    // A request by a player the decider blocked is not shown to them, nor decided by them.
    if (!u || (await hasBlocked(tx, me.id, u.id))) throw requestNotFound();
    if (!(await deleteRequest(tx, g.id, u.id))) throw requestNotFound();
    if (!accept) return { g, u, note: undefined };
    await admit(ctx, tx, game, g, u);
    return { g, u, note: await storeNotification(ctx, tx, u.id, 'groupRequestAccepted', me, { groupId: g.id }) };
  });
  if (!accept) return undefined;
  await memberJoined(ctx, out.g.id, out.u);
  await publishNotification(ctx, out.note);
  const m = (await memberOf(ctx.db, out.g.id, out.u.id))!;
  return groupMemberDto(m);
}

const requestNotFound = () => socialError('group_request_not_found', 'No such pending join request');

// ------------------------------------------------------------ invites

export async function inviteToGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string, body: { toHandle?: string; toPublicId?: string }) {
  const g = await ownGameGroup(ctx.db, game, id);
  demand(await authority(ctx.db, g.id, me), 'invite');
  const to = await resolveTarget(ctx.db, { handle: body.toHandle, publicId: body.toPublicId }, { handle: 'toHandle', publicId: 'toPublicId' });
  if (to.id === me.id) throw socialError('cannot_invite_self', 'You cannot invite yourself');
  // Nobody is invited by someone they blocked (and a player who blocked the inviter looks like no player).
  if (await hasBlocked(ctx.db, to.id, me.id)) throw socialError('user_not_found', 'No such user');
  if (await hasBlocked(ctx.db, me.id, to.id)) throw socialError('you_blocked_user', 'You blocked this user');
  if (await memberOf(ctx.db, g.id, to.id)) throw socialError('already_group_member', 'Already a member of the group');
  if (await isBanned(ctx.db, g.id, to.id)) throw socialError('group_banned', 'The player is banned from the group');
  await limitOutreach(ctx, me.id);
  // The invite and its inbox entry commit together; the entry outlives the socket being offline.
  const { inv, note } = await ctx.db.transaction(async (tx) => {
    const inv = await upsertInvite(tx, g.id, me.id, to.id, new Date(ctx.now().getTime() + ctx.config.groupInviteTtlSeconds * 1000));
    const expiresAt = new Date(inv.expires_at).toISOString();
    return { inv, note: await storeNotification(ctx, tx, to.id, 'groupInviteReceived', me, { inviteId: inv.id, groupId: g.id, expiresAt }) };
  });
  const dto = { inviteId: inv.id, groupId: g.id, groupName: g.name, groupTag: g.tag, fromPublicId: me.public_id, expiresAt: new Date(inv.expires_at).toISOString() };
  await ctx.events.toUser(to.id, 'groupInviteReceived', dto, { actorId: me.id, actorPublicId: me.public_id });
  await publishNotification(ctx, note);
  return dto;
}

export async function myGroupInvites(ctx: Ctx, me: UserRow) {
  const rows = await invitesTo(ctx.db, me.id, ctx.now());
  return {
    invites: rows.map((i) => ({
      inviteId: i.id,
      groupId: i.group_id,
      groupName: i.group_name,
      groupTag: i.group_tag,
      fromPublicId: i.from_public_id,
      expiresAt: new Date(i.expires_at).toISOString(),
    })),
  };
}

/** Accepts an invite to the caller (from the group's game): joins, whatever the group's join policy. */
export async function acceptGroupInvite(ctx: Ctx, me: UserRow, game: GameContext, inviteId: string) {
  const g = await ctx.db.transaction(async (tx) => {
    const inv = await inviteById(tx, inviteId);
    if (!inv || inv.to_user !== me.id || inv.expires_at.getTime() <= ctx.now().getTime()) throw inviteNotFound();
    const g = await lockGroup(tx, inv.group_id);
    if (!g || g.game_id !== spaceOf(game)) throw inviteNotFound();
    await deleteInvite(tx, inv.id);
    await admit(ctx, tx, game, g, me);
    return { ...g, member_count: g.member_count + 1 };
  });
  await memberJoined(ctx, g.id, me);
  return { state: 'joined' as const, group: groupDto(g, 'member') };
}

export async function declineGroupInvite(ctx: Ctx, me: UserRow, inviteId: string): Promise<void> {
  const inv = await inviteById(ctx.db, inviteId);
  if (!inv || inv.to_user !== me.id) throw inviteNotFound();
  await deleteInvite(ctx.db, inv.id);
}

const inviteNotFound = () => socialError('group_invite_not_found', 'No such group invite');
