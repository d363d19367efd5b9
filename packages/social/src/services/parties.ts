/**
 * Parties and invites. A user is in at most one party at a time. Gating of
 * joins: Public = anyone (without a block against a member); FriendsOnly =
 * friends of any current member, or the holder of a valid invite; Private =
 * only with a valid invite addressed to the caller.
 */
import { AppError, badRequest, conflict, forbidden, isUniqueViolation, notFound, UUID_PATTERN as UUID, type Queryable } from '@platform/kit';
import type { Ctx, UserRow } from './context.js';
import { limitOutreach } from './limits.js';
import { areFriends, assertNotBlocked, findByHandle, findByPublicId, fullHandle, resolveTarget } from './users.js';

export type PartyVisibility = 'Public' | 'FriendsOnly' | 'Private';
export interface JoinMetadata {
  lobbyId?: string;
  bag?: Record<string, unknown>;
}

interface PartyRow {
  id: string;
  leader: string;
  max_size: number;
  visibility: PartyVisibility;
  session_handle: string | null;
  join_lobby_id: string | null;
  join_bag: Record<string, unknown> | null;
  has_join: boolean;
  created_at: Date;
}

interface InviteRow {
  id: string;
  kind: 'party' | 'game';
  from_user: string;
  to_user: string;
  party_id: string | null;
  session_handle: string | null;
  join_lobby_id: string | null;
  join_bag: Record<string, unknown> | null;
  has_join: boolean;
  state: string;
  expires_at: Date;
}

const MAX_BAG_BYTES = 2048;

export function checkJoin(join: JoinMetadata | undefined): void {
  if (join?.bag !== undefined && Buffer.byteLength(JSON.stringify(join.bag)) > MAX_BAG_BYTES) {
    throw badRequest('join_bag_too_large', 'join.bag must serialise to at most 2 KiB', { field: 'join.bag' });
  }
}

const joinDto = (row: { has_join: boolean; join_lobby_id: string | null; join_bag: Record<string, unknown> | null }) =>
  row.has_join ? { ...(row.join_lobby_id !== null ? { lobbyId: row.join_lobby_id } : {}), ...(row.join_bag !== null ? { bag: row.join_bag } : {}) } : undefined;

async function partyRow(db: Queryable, id: string): Promise<PartyRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return (await db.query<PartyRow>('SELECT * FROM parties WHERE id = $1', [id])).rows[0];
}

async function members(db: Queryable, partyId: string) {
  return (
    await db.query<UserRow & { joined_at: Date }>(
      'SELECT u.*, m.joined_at FROM party_members m JOIN users u ON u.id = m.user_id WHERE m.party_id = $1 ORDER BY m.seq',
      [partyId],
    )
  ).rows;
}

export async function partyDto(db: Queryable, p: PartyRow) {
  const ms = await members(db, p.id);
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

const memberDto = (m: UserRow & { joined_at: Date }, leader: string) => ({
  publicId: m.public_id,
  fullHandle: fullHandle(m),
  displayName: m.display_name,
  isLeader: m.id === leader,
  joinedAt: new Date(m.joined_at).toISOString(),
});

/** The party of a member; non-members (and unknown ids) get 404 party_not_found. */
async function memberParty(db: Queryable, me: UserRow, id: string): Promise<PartyRow> {
  const p = await partyRow(db, id);
  if (!p || !(await db.query('SELECT 1 FROM party_members WHERE party_id = $1 AND user_id = $2', [id, me.id])).rowCount) {
    throw notFound('party_not_found', 'No such party');
  }
  return p;
}

async function leaderParty(db: Queryable, me: UserRow, id: string): Promise<PartyRow> {
  const p = await memberParty(db, me, id);
  if (p.leader !== me.id) throw forbidden('not_leader', 'Only the party leader can do this');
  return p;
}

export async function currentPartyId(db: Queryable, userId: string): Promise<string | undefined> {
  return (await db.query<{ party_id: string }>('SELECT party_id FROM party_members WHERE user_id = $1', [userId])).rows[0]?.party_id;
}

export async function createParty(ctx: Ctx, me: UserRow, body: { maxSize?: number; visibility?: PartyVisibility; join?: JoinMetadata }) {
  const maxSize = body.maxSize ?? ctx.config.partyDefaultMaxSize;
  if (maxSize < 2 || maxSize > ctx.config.partyMaxSizeLimit) {
    throw badRequest('invalid_max_size', `maxSize must be between 2 and ${ctx.config.partyMaxSizeLimit}`, { field: 'maxSize' });
  }
  checkJoin(body.join);
  try {
    const p = await ctx.db.transaction(async (tx) => {
      const row = (
        await tx.query<PartyRow>(
          `INSERT INTO parties (leader, max_size, visibility, join_lobby_id, join_bag, has_join) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
          [me.id, maxSize, body.visibility ?? 'Private', body.join?.lobbyId ?? null, body.join?.bag ? JSON.stringify(body.join.bag) : null, body.join !== undefined],
        )
      ).rows[0];
      await tx.query('INSERT INTO party_members (party_id, user_id) VALUES ($1, $2)', [row.id, me.id]);
      return row;
    });
    await ctx.events.control(me.id, '_partyChanged', { partyId: p.id });
    return partyDto(ctx.db, p);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('already_in_party', 'Leave your current party first');
    throw err;
  }
}

export async function getParty(ctx: Ctx, me: UserRow, id: string) {
  return partyDto(ctx.db, await memberParty(ctx.db, me, id));
}

// ------------------------------------------------------------ invites

function inviteDto(i: InviteRow, from: UserRow, to: UserRow, now: Date) {
  const join = joinDto(i);
  return {
    inviteId: i.id,
    kind: i.kind as 'party' | 'game',
    fromPublicId: from.public_id,
    toPublicId: to.public_id,
    ...(i.party_id ? { targetId: i.party_id } : {}),
    ...(i.session_handle !== null ? { targetHandle: i.session_handle } : {}),
    state: effectiveState(i, now),
    expiresAt: new Date(i.expires_at).toISOString(),
    ...(join ? { join } : {}),
  };
}

type InviteState = 'pending' | 'accepted' | 'declined' | 'expired' | 'revoked';
const effectiveState = (i: InviteRow, now: Date): InviteState =>
  i.state === 'pending' && new Date(i.expires_at) <= now ? 'expired' : (i.state as InviteState);

async function createInvite(
  ctx: Ctx,
  me: UserRow,
  to: UserRow,
  fields: { kind: 'party' | 'game'; partyId?: string; sessionHandle?: string | null; join?: JoinMetadata },
) {
  const expires = new Date(ctx.now().getTime() + ctx.config.inviteTtlSeconds * 1000);
  const row = (
    await ctx.db.query<InviteRow>(
      `INSERT INTO invites (kind, from_user, to_user, party_id, session_handle, join_lobby_id, join_bag, has_join, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [
        fields.kind,
        me.id,
        to.id,
        fields.partyId ?? null,
        fields.sessionHandle ?? null,
        fields.join?.lobbyId ?? null,
        fields.join?.bag ? JSON.stringify(fields.join.bag) : null,
        fields.join !== undefined,
        expires,
      ],
    )
  ).rows[0];
  const dto = inviteDto(row, me, to, ctx.now());
  await ctx.events.toUser(to.id, fields.kind === 'party' ? 'partyInviteReceived' : 'gameInviteReceived', dto, { actorId: me.id, actorPublicId: me.public_id });
  return dto;
}

/** Invite targets: friends only, no block either way, not yourself. */
async function inviteTarget(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string }): Promise<UserRow> {
  const to = await resolveTarget(ctx.db, { handle: body.toHandle, publicId: body.toPublicId }, { handle: 'toHandle', publicId: 'toPublicId' });
  if (to.id === me.id) throw badRequest('cannot_invite_self', 'You cannot invite yourself');
  await assertNotBlocked(ctx.db, me.id, to.id);
  if (!(await areFriends(ctx.db, me.id, to.id))) throw forbidden('not_friends', 'You can only invite friends');
  await limitOutreach(ctx, me.id);
  return to;
}

/** Any member may invite (the party's gating applies at join, the invite opens it). */
export async function inviteToParty(ctx: Ctx, me: UserRow, partyId: string, body: { toHandle?: string; toPublicId?: string }) {
  const p = await memberParty(ctx.db, me, partyId);
  const to = await inviteTarget(ctx, me, body);
  if ((await currentPartyId(ctx.db, to.id)) === p.id) throw conflict('already_member', 'This user is already in the party');
  return createInvite(ctx, me, to, { kind: 'party', partyId: p.id, sessionHandle: p.session_handle, join: joinDto(p) });
}

export async function inviteToGame(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string; sessionHandle?: string; join?: JoinMetadata }) {
  checkJoin(body.join);
  const to = await inviteTarget(ctx, me, body);
  return createInvite(ctx, me, to, { kind: 'game', sessionHandle: body.sessionHandle, join: body.join });
}

/** A pending, unexpired invite addressed to the caller, or the matching error. */
async function usableInvite(ctx: Ctx, me: UserRow, inviteId: string, kind: 'party' | 'game', partyId?: string): Promise<InviteRow> {
  const i = UUID.test(inviteId)
    ? (await ctx.db.query<InviteRow>('SELECT * FROM invites WHERE id = $1', [inviteId])).rows[0]
    : undefined;
  if (!i || i.to_user !== me.id || i.kind !== kind || (partyId !== undefined && i.party_id !== partyId)) {
    throw notFound('invite_not_found', 'No such invite');
  }
  if (i.state !== 'pending') throw conflict('invite_not_pending', `The invite is ${i.state}`);
  if (new Date(i.expires_at) <= ctx.now()) {
    await ctx.db.query(`UPDATE invites SET state = 'expired' WHERE id = $1 AND state = 'pending'`, [i.id]);
    throw new AppError(410, 'invite_expired', 'The invite has expired');
  }
  return i;
}

export async function listInvites(ctx: Ctx, me: UserRow, dir: 'incoming' | 'outgoing') {
  const col = dir === 'incoming' ? 'to_user' : 'from_user';
  const rows = (
    await ctx.db.query<InviteRow>(`SELECT * FROM invites WHERE ${col} = $1 AND state = 'pending' AND expires_at > $2 ORDER BY created_at DESC`, [
      me.id,
      ctx.now(),
    ])
  ).rows;
  const out = [];
  for (const i of rows) {
    const from = dir === 'outgoing' ? me : (await findUser(ctx.db, i.from_user))!;
    const to = dir === 'incoming' ? me : (await findUser(ctx.db, i.to_user))!;
    out.push(inviteDto(i, from, to, ctx.now()));
  }
  return out;
}

const findUser = async (db: Queryable, id: string) => (await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id])).rows[0];

export async function declineInvite(ctx: Ctx, me: UserRow, inviteId: string) {
  const i = UUID.test(inviteId) ? (await ctx.db.query<InviteRow>('SELECT * FROM invites WHERE id = $1', [inviteId])).rows[0] : undefined;
  if (!i || i.to_user !== me.id) throw notFound('invite_not_found', 'No such invite');
  if (effectiveState(i, ctx.now()) !== 'pending') throw conflict('invite_not_pending', `The invite is ${effectiveState(i, ctx.now())}`);
  const r = (await ctx.db.query<InviteRow>(`UPDATE invites SET state = 'declined' WHERE id = $1 AND state = 'pending' RETURNING *`, [i.id])).rows[0];
  if (!r) throw conflict('invite_not_pending', 'The invite is no longer pending');
  return inviteDto(r, (await findUser(ctx.db, r.from_user))!, me, ctx.now());
}

/** The sender withdraws a pending invite (state `revoked`). */
export async function revokeInvite(ctx: Ctx, me: UserRow, inviteId: string): Promise<void> {
  const i = UUID.test(inviteId) ? (await ctx.db.query<InviteRow>('SELECT * FROM invites WHERE id = $1', [inviteId])).rows[0] : undefined;
  if (!i || i.from_user !== me.id) throw notFound('invite_not_found', 'No such invite');
  const r = await ctx.db.query(`UPDATE invites SET state = 'revoked' WHERE id = $1 AND state = 'pending'`, [i.id]);
  if (!r.rowCount) throw conflict('invite_not_pending', `The invite is ${i.state}`);
}

export async function acceptGameInvite(ctx: Ctx, me: UserRow, inviteId: string) {
  const i = await usableInvite(ctx, me, inviteId, 'game');
  const r = await ctx.db.query(`UPDATE invites SET state = 'accepted' WHERE id = $1 AND state = 'pending'`, [i.id]);
  if (!r.rowCount) throw conflict('invite_not_pending', 'The invite is no longer pending');
  const join = joinDto(i);
  return { kind: 'game' as const, inviteId: i.id, ...(i.session_handle !== null ? { sessionHandle: i.session_handle } : {}), ...(join ? { join } : {}) };
}

// ------------------------------------------------------------ join, leave

export async function joinParty(ctx: Ctx, me: UserRow, partyId: string, body: { inviteId?: string }) {
  const p = await partyRow(ctx.db, partyId);
  if (!p) throw notFound('party_not_found', 'No such party');
  const invite = body.inviteId !== undefined ? await usableInvite(ctx, me, body.inviteId, 'party', p.id) : undefined;
  const current = await currentPartyId(ctx.db, me.id);
  if (current) throw conflict('already_in_party', current === p.id ? 'You are already in this party' : 'Leave your current party first');
  const ms = await members(ctx.db, p.id);
  const denied = () => forbidden('join_denied', 'You cannot join this party');
  for (const m of ms) {
    if ((await ctx.db.query('SELECT 1 FROM blocks WHERE (blocker = $1 AND blocked = $2) OR (blocker = $2 AND blocked = $1)', [me.id, m.id])).rowCount) {
      throw denied();
    }
  }
  if (!invite) {
    if (p.visibility === 'Private') throw denied();
    if (p.visibility === 'FriendsOnly') {
      const friend = await ctx.db.query(
        'SELECT 1 FROM friendships f JOIN party_members m ON m.user_id = f.friend_id WHERE f.user_id = $1 AND m.party_id = $2 LIMIT 1',
        [me.id, p.id],
      );
      if (!friend.rowCount) throw denied();
    }
  }
  await ctx.db.transaction(async (tx) => {
    // Lock the party row so two joins cannot both take the last seat.
    const locked = (await tx.query<{ max_size: number }>('SELECT max_size FROM parties WHERE id = $1 FOR UPDATE', [p.id])).rows[0];
    if (!locked) throw notFound('party_not_found', 'No such party');
    const count = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM party_members WHERE party_id = $1', [p.id])).rows[0].n;
    if (count >= locked.max_size) throw conflict('party_full', 'The party is full');
    try {
      await tx.query('INSERT INTO party_members (party_id, user_id) VALUES ($1, $2)', [p.id, me.id]);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('already_in_party', 'Leave your current party first');
      throw err;
    }
    if (invite) await tx.query(`UPDATE invites SET state = 'accepted' WHERE id = $1`, [invite.id]);
  });
  const fresh = (await partyRow(ctx.db, p.id))!;
  const member = (await members(ctx.db, p.id)).find((m) => m.id === me.id)!;
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
export async function removeMember(ctx: Ctx, partyId: string, user: UserRow, reason: 'left' | 'kicked' | 'deleted') {
  const result = await ctx.db.transaction(async (tx) => {
    const p = (await tx.query<PartyRow>('SELECT * FROM parties WHERE id = $1 FOR UPDATE', [partyId])).rows[0];
    if (!p) return undefined;
    await tx.query('DELETE FROM party_members WHERE party_id = $1 AND user_id = $2', [partyId, user.id]);
    const next = (await tx.query<{ user_id: string }>('SELECT user_id FROM party_members WHERE party_id = $1 ORDER BY seq LIMIT 1', [partyId])).rows[0];
    if (!next) {
      await tx.query(`UPDATE invites SET state = 'revoked' WHERE party_id = $1 AND state = 'pending'`, [partyId]);
      await tx.query('DELETE FROM parties WHERE id = $1', [partyId]);
      return { disbanded: true, newLeader: undefined as string | undefined };
    }
    if (p.leader === user.id) {
      await tx.query('UPDATE parties SET leader = $2 WHERE id = $1', [partyId, next.user_id]);
      return { disbanded: false, newLeader: next.user_id };
    }
    return { disbanded: false, newLeader: undefined };
  });
  if (!result) return { disbanded: false };
  const left = { partyId, publicId: user.public_id, reason, disbanded: result.disbanded };
  await ctx.events.toParty(partyId, 'partyMemberLeft', left, { actorPublicId: user.public_id });
  if (reason === 'kicked') await ctx.events.toUser(user.id, 'partyMemberLeft', left);
  // After the party-channel events, so the removed member's sockets still receive them before leaving the channel.
  await ctx.events.control(user.id, '_partyChanged', { partyId: null });
  if (result.newLeader) {
    const leader = (await findUser(ctx.db, result.newLeader))!;
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
  if (given.length !== 1) throw badRequest('target_required', 'Give exactly one of handle or publicId');
  const u = body.handle !== undefined ? await findByHandle(ctx.db, body.handle) : await findByPublicId(ctx.db, body.publicId!);
  if (!u || !(await ctx.db.query('SELECT 1 FROM party_members WHERE party_id = $1 AND user_id = $2', [p.id, u.id])).rowCount) {
    throw notFound('member_not_found', 'No such member in this party');
  }
  return u;
}

export async function kick(ctx: Ctx, me: UserRow, partyId: string, body: { handle?: string; publicId?: string }) {
  const p = await leaderParty(ctx.db, me, partyId);
  const target = await memberTarget(ctx, p, body);
  if (target.id === me.id) throw badRequest('cannot_kick_self', 'Leave the party instead');
  await removeMember(ctx, p.id, target, 'kicked');
  return partyDto(ctx.db, (await partyRow(ctx.db, p.id))!);
}

export async function transferLeader(ctx: Ctx, me: UserRow, partyId: string, body: { handle?: string; publicId?: string }) {
  const p = await leaderParty(ctx.db, me, partyId);
  const target = await memberTarget(ctx, p, body);
  if (target.id !== me.id) {
    await ctx.db.query('UPDATE parties SET leader = $2 WHERE id = $1', [p.id, target.id]);
    await ctx.events.toParty(p.id, 'partyLeaderChanged', { partyId: p.id, leaderPublicId: target.public_id, previousLeaderPublicId: me.public_id });
  }
  return partyDto(ctx.db, (await partyRow(ctx.db, p.id))!);
}

export async function setSession(ctx: Ctx, me: UserRow, partyId: string, sessionHandle: string | undefined) {
  const p = await leaderParty(ctx.db, me, partyId);
  const row = (await ctx.db.query<PartyRow>('UPDATE parties SET session_handle = $2 WHERE id = $1 RETURNING *', [p.id, sessionHandle ?? null])).rows[0];
  return partyDto(ctx.db, row);
}

export async function setVisibility(ctx: Ctx, me: UserRow, partyId: string, visibility: PartyVisibility) {
  const p = await leaderParty(ctx.db, me, partyId);
  const row = (await ctx.db.query<PartyRow>('UPDATE parties SET visibility = $2 WHERE id = $1 RETURNING *', [p.id, visibility])).rows[0];
  return partyDto(ctx.db, row);
}

export async function setJoinMetadata(ctx: Ctx, me: UserRow, partyId: string, join: JoinMetadata) {
  checkJoin(join);
  const p = await leaderParty(ctx.db, me, partyId);
  const row = (
    await ctx.db.query<PartyRow>('UPDATE parties SET join_lobby_id = $2, join_bag = $3, has_join = true WHERE id = $1 RETURNING *', [
      p.id,
      join.lobbyId ?? null,
      join.bag ? JSON.stringify(join.bag) : null,
    ])
  ).rows[0];
  return partyDto(ctx.db, row);
}
