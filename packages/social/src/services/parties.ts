/**
 * Parties. A user is in at most one party at a time. Gating of joins:
 * Public = anyone (without a block against a member); FriendsOnly = friends
 * of any current member, or the holder of a valid invite; Private = only with
 * a valid invite addressed to the caller. Invites are in invites.ts.
 */
import { isUniqueViolation, type Queryable } from '@platform/kit';
import type { Ctx, UserRow } from '../context.js';
import { usableInvite } from './invites.js';
import { checkJoin, joinColumns, joinDto, type JoinMetadata } from './join-metadata.js';
import { leaderParty, memberParty, partyRow } from './party-access.js';
import { findByHandle, findByPublicId, fullHandle } from './users.js';
import { socialError } from './errors.js';
import { assertGuestAllowed, type GuestCaller } from './guest-restrictions.js';
import { publishNotification, storeNotification, type StoredNotification } from './notifications.js';
import { markAccepted, revokePartyInvites } from '../queries/invites.js';
import {
  currentPartyId,
  deleteMember,
  deleteParty,
  firstMember,
  hasFriendInParty,
  insertMember,
  insertParty,
  isPartyMember,
  lockParty,
  lockPartySize,
  memberCount,
  partyMembers,
  setJoinColumns,
  setLeader,
  setPartyVisibility,
  setSessionHandle,
  type MemberRow,
  type PartyRow,
  type PartyVisibility,
} from '../queries/parties.js';
import { blockedEitherWay } from '../queries/relations.js';
import { userById } from '../queries/users.js';

export { currentPartyId } from '../queries/parties.js';
export type { PartyVisibility } from '../queries/parties.js';
export type { JoinMetadata } from './join-metadata.js';

export async function partyDto(db: Queryable, p: PartyRow) {
  const ms = await partyMembers(db, p.id);
  const leader = ms.find((m) => m.id === p.leader);
  const join = joinDto(p);
  return {
    partyId: p.id,
    leaderPublicId: leader?.public_id ?? null,
    maxSize: p.max_size,
    visibility: p.visibility,
    ...(p.session_handle !== null ? { sessionHandle: p.session_handle } : {}),
    members: ms.map((m) => memberDto(m, p.leader)),
    ...(join ? { join } : {}),
  };
}

const memberDto = (m: MemberRow, leader: string) => ({
  publicId: m.public_id,
  fullHandle: fullHandle(m),
  displayName: m.display_name,
  isLeader: m.id === leader,
  joinedAt: new Date(m.joined_at).toISOString(),
});

export async function createParty(ctx: Ctx, me: UserRow, body: { maxSize?: number; visibility?: PartyVisibility; join?: JoinMetadata }, caller?: GuestCaller) {
  await assertGuestAllowed(ctx, caller, 'party_create');
  const maxSize = body.maxSize ?? ctx.config.partyDefaultMaxSize;
  if (maxSize < 2 || maxSize > ctx.config.partyMaxSizeLimit) {
    throw socialError('invalid_max_size', `maxSize must be between 2 and ${ctx.config.partyMaxSizeLimit}`, { field: 'maxSize' });
  }
  checkJoin(body.join);
  try {
    const p = await ctx.db.transaction(async (tx) => {
      const row = await insertParty(tx, {
        leader: me.id,
        maxSize,
        visibility: body.visibility ?? 'Private',
        join: joinColumns(body.join),
        hasJoin: body.join !== undefined,
      });
      await insertMember(tx, row.id, me.id);
      return row;
    });
    await ctx.events.control(me.id, '_partyChanged', { partyId: p.id });
    return partyDto(ctx.db, p);
  } catch (err) {
    if (isUniqueViolation(err)) throw socialError('already_in_party', 'Leave your current party first');
    throw err;
  }
}

export async function getParty(ctx: Ctx, me: UserRow, id: string) {
  return partyDto(ctx.db, await memberParty(ctx.db, me, id));
}

// ------------------------------------------------------------ join, leave

export async function joinParty(ctx: Ctx, me: UserRow, partyId: string, body: { inviteId?: string }) {
  const p = await partyRow(ctx.db, partyId);
  if (!p) throw socialError('party_not_found', 'No such party');
  const invite = body.inviteId !== undefined ? await usableInvite(ctx, me, body.inviteId, 'party', p.id) : undefined;
  const current = await currentPartyId(ctx.db, me.id);
  if (current) throw socialError('already_in_party', current === p.id ? 'You are already in this party' : 'Leave your current party first');
  const ms = await partyMembers(ctx.db, p.id);
  const denied = () => socialError('join_denied', 'You cannot join this party');
  for (const m of ms) {
    if (await blockedEitherWay(ctx.db, me.id, m.id)) throw denied();
  }
  if (!invite) {
    if (p.visibility === 'Private') throw denied();
    if (p.visibility === 'FriendsOnly' && !(await hasFriendInParty(ctx.db, me.id, p.id))) throw denied();
  }
  await ctx.db.transaction(async (tx) => {
    // Lock the party row so two joins cannot both take the last seat.
    const maxSize = await lockPartySize(tx, p.id);
    if (maxSize === undefined) throw socialError('party_not_found', 'No such party');
    if ((await memberCount(tx, p.id)) >= maxSize) throw socialError('party_full', 'The party is full');
    try {
      await insertMember(tx, p.id, me.id);
    } catch (err) {
      if (isUniqueViolation(err)) throw socialError('already_in_party', 'Leave your current party first');
      throw err;
    }
    if (invite) await markAccepted(tx, invite.id);
  });
  const fresh = (await partyRow(ctx.db, p.id))!;
  const member = (await partyMembers(ctx.db, p.id)).find((m) => m.id === me.id)!;
  const joined = { partyId: p.id, member: memberDto(member, fresh.leader) };
  await ctx.events.toParty(p.id, 'partyMemberJoined', joined, { actorPublicId: me.public_id });
  // The joiner's sockets are not on the party channel yet: the control message carries their copy.
  await ctx.events.control(me.id, '_partyChanged', { partyId: p.id, event: { type: 'partyMemberJoined', data: joined } });
  const join = joinDto(fresh);
  return { kind: 'party' as const, partyId: p.id, ...(fresh.session_handle !== null ? { sessionHandle: fresh.session_handle } : {}), ...(join ? { join } : {}) };
}

/**
 * Removes a member. A leaving leader hands leadership to the longest-standing
 * member; the last member leaving disbands the party (pending invites to it
 * become `revoked`).
 */
export async function removeMember(
  ctx: Ctx,
  partyId: string,
  user: UserRow,
  reason: 'left' | 'kicked' | 'deleted',
  /** Runs in the removal's transaction once the member is removed (the kicked member's notification). */
  within?: (tx: Queryable) => Promise<void>,
) {
  const result = await ctx.db.transaction(async (tx) => {
    const p = await lockParty(tx, partyId);
    if (!p) return undefined;
    await deleteMember(tx, partyId, user.id);
    await within?.(tx);
    const next = await firstMember(tx, partyId);
    if (!next) {
      await revokePartyInvites(tx, partyId);
      await deleteParty(tx, partyId);
      return { disbanded: true, newLeader: undefined as string | undefined };
    }
    if (p.leader === user.id) {
      await setLeader(tx, partyId, next);
      return { disbanded: false, newLeader: next };
    }
    return { disbanded: false, newLeader: undefined };
  });
  if (!result) return { disbanded: false };
  const left = { partyId, publicId: user.public_id, reason, disbanded: result.disbanded };
  await ctx.events.toParty(partyId, 'partyMemberLeft', left, { actorPublicId: user.public_id });
  if (reason === 'kicked') await ctx.events.toUser(user.id, 'partyMemberLeft', left);
  // After the party-channel events, so the removed member's sockets still receive them before leaving the channel.
  await ctx.events.control(user.id, '_partyChanged', { partyId: null, leftPartyId: partyId });
  if (result.newLeader) {
    const leader = (await userById(ctx.db, result.newLeader))!;
    await ctx.events.toParty(partyId, 'partyLeaderChanged', { partyId, leaderPublicId: leader.public_id, previousLeaderPublicId: user.public_id });
  }
  return { disbanded: result.disbanded };
}

export async function leaveParty(ctx: Ctx, me: UserRow, partyId: string) {
  await memberParty(ctx.db, me, partyId);
  const r = await removeMember(ctx, partyId, me, 'left');
  return { state: 'left' as const, partyId, disbanded: r.disbanded };
}

async function memberTarget(ctx: Ctx, p: PartyRow, body: { handle?: string; publicId?: string }): Promise<UserRow> {
  const given = [body.handle, body.publicId].filter((v) => v !== undefined);
  if (given.length !== 1) throw socialError('target_required', 'Give exactly one of handle or publicId');
  const u = body.handle !== undefined ? await findByHandle(ctx.db, body.handle) : await findByPublicId(ctx.db, body.publicId!);
  if (!u || !(await isPartyMember(ctx.db, p.id, u.id))) throw socialError('member_not_found', 'No such member in this party');
  return u;
}

export async function kick(ctx: Ctx, me: UserRow, partyId: string, body: { handle?: string; publicId?: string }) {
  const p = await leaderParty(ctx.db, me, partyId);
  const target = await memberTarget(ctx, p, body);
  if (target.id === me.id) throw socialError('cannot_kick_self', 'Leave the party instead');
  let note: StoredNotification | undefined;
  await removeMember(ctx, p.id, target, 'kicked', async (tx) => {
    note = await storeNotification(ctx, tx, target.id, 'partyKicked', me, { partyId: p.id });
  });
  await publishNotification(ctx, note);
  return partyDto(ctx.db, (await partyRow(ctx.db, p.id))!);
}

export async function transferLeader(ctx: Ctx, me: UserRow, partyId: string, body: { handle?: string; publicId?: string }) {
  const p = await leaderParty(ctx.db, me, partyId);
  const target = await memberTarget(ctx, p, body);
  if (target.id !== me.id) {
    await setLeader(ctx.db, p.id, target.id);
    await ctx.events.toParty(p.id, 'partyLeaderChanged', { partyId: p.id, leaderPublicId: target.public_id, previousLeaderPublicId: me.public_id });
  }
  return partyDto(ctx.db, (await partyRow(ctx.db, p.id))!);
}

export async function setSession(ctx: Ctx, me: UserRow, partyId: string, sessionHandle: string | undefined) {
  const p = await leaderParty(ctx.db, me, partyId);
  return partyDto(ctx.db, await setSessionHandle(ctx.db, p.id, sessionHandle ?? null));
}

export async function setVisibility(ctx: Ctx, me: UserRow, partyId: string, visibility: PartyVisibility) {
  const p = await leaderParty(ctx.db, me, partyId);
  return partyDto(ctx.db, await setPartyVisibility(ctx.db, p.id, visibility));
}

export async function setJoinMetadata(ctx: Ctx, me: UserRow, partyId: string, join: JoinMetadata) {
  checkJoin(join);
  const p = await leaderParty(ctx.db, me, partyId);
  return partyDto(ctx.db, await setJoinColumns(ctx.db, p.id, joinColumns(join)));
}
