/**
 * Party and game invites: friends only, no block either way. An invite is pending until accepted (a party
 * invite by joining with it), declined, revoked by its sender, or past `expiresAt`.
 */
import { UUID_PATTERN as UUID } from '@platform/kit';
import type { Ctx, UserRow } from '../context.js';
import { checkJoin, joinColumns, joinDto, type JoinMetadata } from './join-metadata.js';
import { limitOutreach } from './limits.js';
import { memberParty } from './party-access.js';
import { assertNotBlocked, resolveTarget } from './users.js';
import { socialError } from './errors.js';
import { publishNotification, storeNotification } from './notifications.js';
import { areFriends } from '../queries/friends.js';
import { acceptPending, declinePending, expireInvite, insertInvite, inviteById, pendingInvites, revokePending, type InviteRow } from '../queries/invites.js';
import { currentPartyId } from '../queries/parties.js';
import { userById } from '../queries/users.js';

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

/** The invite by id (undefined for an unknown id, also one that is not a UUID). */
const findInvite = async (ctx: Ctx, inviteId: string) => (UUID.test(inviteId) ? inviteById(ctx.db, inviteId) : undefined);

async function createInvite(
  ctx: Ctx,
  me: UserRow,
  to: UserRow,
  fields: { kind: 'party' | 'game'; partyId?: string; sessionHandle?: string | null; join?: JoinMetadata },
) {
  // The invite and the invitee's notification commit together.
  const { dto, note } = await ctx.db.transaction(async (tx) => {
    const row = await insertInvite(tx, {
      kind: fields.kind,
      from: me.id,
      to: to.id,
      partyId: fields.partyId ?? null,
      sessionHandle: fields.sessionHandle ?? null,
      join: joinColumns(fields.join),
      hasJoin: fields.join !== undefined,
      expiresAt: new Date(ctx.now().getTime() + ctx.config.inviteTtlSeconds * 1000),
    });
    const made = inviteDto(row, me, to, ctx.now());
    const { inviteId, expiresAt } = made;
    const stored =
      fields.kind === 'party'
        ? await storeNotification(ctx, tx, to.id, 'partyInviteReceived', me, { inviteId, partyId: fields.partyId!, expiresAt })
        : await storeNotification(ctx, tx, to.id, 'gameInviteReceived', me, { inviteId, ...(made.targetHandle !== undefined ? { sessionHandle: made.targetHandle } : {}), expiresAt });
    return { dto: made, note: stored };
  });
  await ctx.events.toUser(to.id, fields.kind === 'party' ? 'partyInviteReceived' : 'gameInviteReceived', dto, { actorId: me.id, actorPublicId: me.public_id });
  await publishNotification(ctx, note);
  return dto;
}

/** Invite targets: friends only, no block either way, not yourself. */
async function inviteTarget(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string }): Promise<UserRow> {
  const to = await resolveTarget(ctx.db, { handle: body.toHandle, publicId: body.toPublicId }, { handle: 'toHandle', publicId: 'toPublicId' });
  if (to.id === me.id) throw socialError('cannot_invite_self', 'You cannot invite yourself');
  await assertNotBlocked(ctx.db, me.id, to.id);
  if (!(await areFriends(ctx.db, me.id, to.id))) throw socialError('not_friends', 'You can only invite friends');
  await limitOutreach(ctx, me.id);
  return to;
}

/** Any member may invite (the party's gating applies at join, the invite opens it). */
export async function inviteToParty(ctx: Ctx, me: UserRow, partyId: string, body: { toHandle?: string; toPublicId?: string }) {
  const p = await memberParty(ctx.db, me, partyId);
  const to = await inviteTarget(ctx, me, body);
  if ((await currentPartyId(ctx.db, to.id)) === p.id) throw socialError('already_member', 'This user is already in the party');
  return createInvite(ctx, me, to, { kind: 'party', partyId: p.id, sessionHandle: p.session_handle, join: joinDto(p) });
}

export async function inviteToGame(ctx: Ctx, me: UserRow, body: { toHandle?: string; toPublicId?: string; sessionHandle?: string; join?: JoinMetadata }) {
  checkJoin(body.join);
  const to = await inviteTarget(ctx, me, body);
  return createInvite(ctx, me, to, { kind: 'game', sessionHandle: body.sessionHandle, join: body.join });
}

/** A pending, unexpired invite addressed to the caller, or the matching error. */
export async function usableInvite(ctx: Ctx, me: UserRow, inviteId: string, kind: 'party' | 'game', partyId?: string): Promise<InviteRow> {
  const i = await findInvite(ctx, inviteId);
  if (!i || i.to_user !== me.id || i.kind !== kind || (partyId !== undefined && i.party_id !== partyId)) {
    throw socialError('invite_not_found', 'No such invite');
  }
  if (i.state !== 'pending') throw socialError('invite_not_pending', `The invite is ${i.state}`);
  if (new Date(i.expires_at) <= ctx.now()) {
    await expireInvite(ctx.db, i.id);
    throw socialError('invite_expired', 'The invite has expired');
  }
  return i;
}

export async function listInvites(ctx: Ctx, me: UserRow, dir: 'incoming' | 'outgoing') {
  const rows = await pendingInvites(ctx.db, me.id, dir, ctx.now());
  const out = [];
  for (const i of rows) {
    const from = dir === 'outgoing' ? me : (await userById(ctx.db, i.from_user))!;
    const to = dir === 'incoming' ? me : (await userById(ctx.db, i.to_user))!;
    out.push(inviteDto(i, from, to, ctx.now()));
  }
  return out;
}

export async function declineInvite(ctx: Ctx, me: UserRow, inviteId: string) {
  const i = await findInvite(ctx, inviteId);
  if (!i || i.to_user !== me.id) throw socialError('invite_not_found', 'No such invite');
  if (effectiveState(i, ctx.now()) !== 'pending') throw socialError('invite_not_pending', `The invite is ${effectiveState(i, ctx.now())}`);
  const r = await declinePending(ctx.db, i.id);
  if (!r) throw socialError('invite_not_pending', 'The invite is no longer pending');
  return inviteDto(r, (await userById(ctx.db, r.from_user))!, me, ctx.now());
}

/** The sender withdraws a pending invite (state `revoked`). */
export async function revokeInvite(ctx: Ctx, me: UserRow, inviteId: string): Promise<void> {
  const i = await findInvite(ctx, inviteId);
  if (!i || i.from_user !== me.id) throw socialError('invite_not_found', 'No such invite');
  if (!(await revokePending(ctx.db, i.id))) throw socialError('invite_not_pending', `The invite is ${i.state}`);
}

export async function acceptGameInvite(ctx: Ctx, me: UserRow, inviteId: string) {
  const i = await usableInvite(ctx, me, inviteId, 'game');
  if (!(await acceptPending(ctx.db, i.id))) throw socialError('invite_not_pending', 'The invite is no longer pending');
  const join = joinDto(i);
  return { kind: 'game' as const, inviteId: i.id, ...(i.session_handle !== null ? { sessionHandle: i.session_handle } : {}), ...(join ? { join } : {}) };
}
