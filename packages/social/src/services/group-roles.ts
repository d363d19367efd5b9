/** Running a group: kicks, bans, roles and ownership (services/groups.ts). */
import type { Ctx, GameContext, UserRow } from '../context.js';
import {
  deleteBan,
  deleteGroupMember,
  deleteRole,
  groupById,
  groupRoles,
  insertBan,
  memberOf,
  roleCount,
  setMemberRole,
  upsertRole,
} from '../queries/groups.js';
import { socialError } from './errors.js';
import { publishNotification, storeNotification } from './notifications.js';
import { authority, BUILT_IN, demand, groupDto, groupMemberDto, isBuiltIn, lowerMember, MAX_DEFINED_ROLES, memberLeft, ownGameGroup, roleChanged, ROLE_NAME, visibleGroup, type GroupPermission } from './group-access.js';
import { findByPublicId } from './users.js';


// ------------------------------------------------------------ kicks, bans, roles, ownership

export async function kickMember(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string): Promise<void> {
  const { g, target, note } = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    demand(a, 'kick');
    const target = await lowerMember(tx, g.id, a, publicId);
    await deleteGroupMember(tx, g.id, target.id);
    return { g, target, note: await storeNotification(ctx, tx, target.id, 'groupRemoved', me, { groupId: g.id, reason: 'kicked' }) };
  });
  await memberLeft(ctx, g.id, target, 'kicked', [target.id]);
  await publishNotification(ctx, note);
}

/** Bans a player (a member is removed): they cannot join, request or be invited until unbanned. */
export async function banFromGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string): Promise<void> {
  const { g, target, wasMember, note } = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    demand(a, 'ban');
    const u = await findByPublicId(tx, publicId);
    if (!u) throw socialError('user_not_found', 'No such user');
    if (u.id === me.id) throw socialError('rank_too_low', 'You cannot ban yourself');
    const m = await memberOf(tx, g.id, u.id);
    if (m) {
      await lowerMember(tx, g.id, a, publicId);
      await deleteGroupMember(tx, g.id, u.id);
    }
    await insertBan(tx, g.id, u.id);
    // Only a member removed is told (a ban ahead of a join tells the player nothing until they try).
    const note = m ? await storeNotification(ctx, tx, u.id, 'groupRemoved', me, { groupId: g.id, reason: 'banned' }) : undefined;
    return { g, target: u, wasMember: Boolean(m), note };
  });
  if (wasMember) await memberLeft(ctx, g.id, target, 'banned', [target.id]);
  await publishNotification(ctx, note);
}

export async function unbanFromGroup(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string): Promise<void> {
  const g = await ownGameGroup(ctx.db, game, id);
  demand(await authority(ctx.db, g.id, me), 'ban');
  const u = await findByPublicId(ctx.db, publicId);
  if (!u || !(await deleteBan(ctx.db, g.id, u.id))) throw socialError('ban_not_found', 'The player is not banned from this group');
}

/** Gives a member a role below the caller's rank (manage_roles); `owner` only by a transfer. */
export async function setRole(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string, role: string) {
  const { g, target, note } = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    demand(a, 'manage_roles');
    if (role === 'owner') throw socialError('invalid_role', 'Ownership is handed over with POST /v1/groups/{id}/owner', { field: 'role' });
    const def = isBuiltIn(role) ? BUILT_IN[role] : (await groupRoles(tx, g.id)).find((r) => r.name === role);
    if (!def) throw socialError('role_not_found', 'No such role in the group');
    if (def.rank >= a.rank) throw socialError('rank_too_low', 'You may only grant roles below your own');
    const target = await lowerMember(tx, g.id, a, publicId);
    await setMemberRole(tx, g.id, target.id, role);
    return { g, target: { ...target, role }, note: await storeNotification(ctx, tx, target.id, 'groupRoleChanged', me, { groupId: g.id, role }) };
  });
  await roleChanged(ctx, g.id, target, me);
  await publishNotification(ctx, note);
  return groupMemberDto(target);
}

/** The owner hands the group to another member, and becomes an admin. */
export async function transferOwnership(ctx: Ctx, me: UserRow, game: GameContext, id: string, publicId: string) {
  const { g, target, meAfter, note } = await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    if (a.member.role !== 'owner') throw socialError('group_permission_denied', 'Only the owner hands the group over', { permission: 'transfer' });
    const u = await findByPublicId(tx, publicId);
    const m = u && (await memberOf(tx, g.id, u.id));
    if (!m) throw socialError('group_member_not_found', 'No such member of the group');
    if (m.id === me.id) throw socialError('rank_too_low', 'You own the group already');
    await setMemberRole(tx, g.id, m.id, 'owner');
    await setMemberRole(tx, g.id, me.id, 'admin');
    const note = await storeNotification(ctx, tx, m.id, 'groupRoleChanged', me, { groupId: g.id, role: 'owner' });
    return { g, target: { ...m, role: 'owner' }, meAfter: { ...a.member, role: 'admin' }, note };
  });
  await roleChanged(ctx, g.id, target, me);
  await roleChanged(ctx, g.id, meAfter, me);
  await publishNotification(ctx, note);
  return groupDto((await groupById(ctx.db, g.id))!, 'admin');
}

export async function listRoles(ctx: Ctx, me: UserRow, game: GameContext, id: string) {
  const g = await visibleGroup(ctx, game, id);
  const defined = await groupRoles(ctx.db, g.id);
  return {
    roles: [
      ...Object.entries(BUILT_IN).map(([name, r]) => ({ name, rank: r.rank, permissions: [...r.permissions], builtIn: true })),
      ...defined.map((r) => ({ name: r.name, rank: r.rank, permissions: r.permissions as GroupPermission[], builtIn: false })),
    ].sort((x, y) => y.rank - x.rank || x.name.localeCompare(y.name)),
  };
}

/** Defines or changes a role below the caller's rank (manage_roles), with permissions the caller holds. */
export async function putRole(ctx: Ctx, me: UserRow, game: GameContext, id: string, name: string, body: { rank: number; permissions: GroupPermission[] }) {
  if (!ROLE_NAME.test(name) || isBuiltIn(name) || body.rank < 1 || body.rank > 49) {
    throw socialError('invalid_role', 'A role is 2–24 lowercase letters, digits, "_" or "-", not owner, admin or member, with a rank of 1 to 49', { field: 'name' });
  }
  await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    demand(a, 'manage_roles');
    const existing = (await groupRoles(tx, g.id)).find((r) => r.name === name);
    if (body.rank >= a.rank || (existing && existing.rank >= a.rank)) throw socialError('rank_too_low', 'You may only define roles below your own');
    const missing = body.permissions.find((p) => !a.permissions.has(p));
    if (missing) throw socialError('group_permission_denied', `You cannot grant ${missing}, which you do not hold`, { permission: missing });
    if (!existing && (await roleCount(tx, g.id)) >= MAX_DEFINED_ROLES) throw socialError('too_many_roles', `A group defines at most ${MAX_DEFINED_ROLES} roles`);
    await upsertRole(tx, { group_id: g.id, name, rank: body.rank, permissions: [...new Set(body.permissions)] });
  });
  return { name, rank: body.rank, permissions: [...new Set(body.permissions)], builtIn: false };
}

export async function removeRole(ctx: Ctx, me: UserRow, game: GameContext, id: string, name: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const g = await ownGameGroup(tx, game, id, true);
    const a = await authority(tx, g.id, me);
    demand(a, 'manage_roles');
    const existing = (await groupRoles(tx, g.id)).find((r) => r.name === name);
    if (!existing) throw socialError('role_not_found', 'No such role in the group');
    if (existing.rank >= a.rank) throw socialError('rank_too_low', 'You may only remove roles below your own');
    await deleteRole(tx, g.id, name);
  });
}
