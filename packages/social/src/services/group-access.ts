/** Groups: who may see a group, who acts in it with which rank and permissions, and the events they cause (services/groups.ts). */
import type { GroupLimits, Queryable } from '@platform/kit';
import type { Ctx, GameContext, UserRow } from '../context.js';
import {
  groupById,
  groupRoles,
  lockGroup,
  memberIds,
  memberOf,
  type GroupMemberRow,
  type GroupRow,
} from '../queries/groups.js';
import { socialError } from './errors.js';
import { findByPublicId, fullHandle } from './users.js';


/**
 * The group limits in `game`: the game's (registry GroupLimits) where it set them, the deployment's otherwise; the
 * deployment's maximum member limit caps the game's member limits.
 */
export function groupLimits(ctx: Ctx, game: GameContext): Required<GroupLimits> {
  const own = game.groupLimits ?? {};
  const ceiling = ctx.config.groupsMaxMemberLimit;
  const maxMemberLimit = Math.min(own.maxMemberLimit ?? ceiling, ceiling);
  return {
    perPlayer: own.perPlayer ?? ctx.config.groupsPerPlayer,
    createdPerDay: own.createdPerDay ?? ctx.config.groupsCreatedPerDay,
    maxMemberLimit,
    defaultMemberLimit: Math.min(own.defaultMemberLimit ?? ctx.config.groupsDefaultMemberLimit, maxMemberLimit),
  };
}

export const GROUP_PERMISSIONS = ['invite', 'accept_requests', 'kick', 'ban', 'edit', 'moderate_chat', 'manage_roles'] as const;
export type GroupPermission = (typeof GROUP_PERMISSIONS)[number];

/** The built-in roles: the owner and admins may do everything (only the owner disbands and hands over), members nothing. */
export const BUILT_IN: Record<string, { rank: number; permissions: readonly GroupPermission[] }> = {
  owner: { rank: 100, permissions: GROUP_PERMISSIONS },
  admin: { rank: 50, permissions: GROUP_PERMISSIONS },
  member: { rank: 0, permissions: [] },
};
export const isBuiltIn = (role: string) => Object.hasOwn(BUILT_IN, role);

export const MAX_DEFINED_ROLES = 10;
export const ROLE_NAME = /^[a-z0-9_-]{2,24}$/;

/** The game space of a context: groups of "no game" form their own. */
export const spaceOf = (game: GameContext) => game.gameId ?? '';

export function groupDto(g: GroupRow, myRole?: string) {
  return {
    groupId: g.id,
    name: g.name,
    tag: g.tag,
    description: g.description,
    language: g.language,
    avatarUrl: g.avatar_url,
    metadata: g.metadata,
    joinPolicy: g.join_policy,
    memberLimit: g.member_limit,
    memberCount: g.member_count,
    createdAt: new Date(g.created_at).toISOString(),
    ...(myRole ? { myRole } : {}),
  };
}
export type GroupDto = ReturnType<typeof groupDto>;

export const groupMemberDto = (m: GroupMemberRow) => ({
  publicId: m.public_id,
  fullHandle: fullHandle(m),
  displayName: m.display_name,
  role: m.role,
  joinedAt: new Date(m.joined_at).toISOString(),
});

// ------------------------------------------------------------ access

/** The group as the caller may see it: its own game's, or another's when the caller's game sees every game in full. */
export async function visibleGroup(ctx: Ctx, game: GameContext, id: string): Promise<GroupRow> {
  const g = await groupById(ctx.db, id);
  if (!g || (g.game_id !== spaceOf(game) && game.visibility !== 'full')) throw groupNotFound();
  return g;
}

/** A group of the caller's own game (every change is made from the group's game). */
export async function ownGameGroup(db: Queryable, game: GameContext, id: string, lock = false): Promise<GroupRow> {
  const g = lock ? await lockGroup(db, id) : await groupById(db, id);
  if (!g || g.game_id !== spaceOf(game)) throw groupNotFound();
  return g;
}

export const groupNotFound = () => socialError('group_not_found', 'No such group');
export const notMember = () => socialError('group_not_found', 'No such group');

export interface Authority {
  member: GroupMemberRow;
  rank: number;
  permissions: ReadonlySet<GroupPermission>;
}

export async function roleDefinition(db: Queryable, groupId: string, role: string): Promise<{ rank: number; permissions: readonly GroupPermission[] }> {
  if (isBuiltIn(role)) return BUILT_IN[role];
  const r = (await groupRoles(db, groupId)).find((x) => x.name === role);
  // A role deleted meanwhile counts as member (deleteRole turns its holders into members).
  return r ? { rank: r.rank, permissions: r.permissions as GroupPermission[] } : BUILT_IN.member;
}

/** The caller as a member of the group: 404 for a non-member (a closed group's inside is not shown to outsiders). */
export async function authority(db: Queryable, groupId: string, me: UserRow): Promise<Authority> {
  const member = await memberOf(db, groupId, me.id);
  if (!member) throw notMember();
  const def = await roleDefinition(db, groupId, member.role);
  return { member, rank: def.rank, permissions: new Set(def.permissions) };
}

export function demand(a: Authority, permission: GroupPermission): void {
  if (!a.permissions.has(permission)) throw socialError('group_permission_denied', `Your group role may not ${permission.replace('_', ' ')}`, { permission });
}

/** The target member below the actor's rank. */
export async function lowerMember(db: Queryable, groupId: string, a: Authority, publicId: string): Promise<GroupMemberRow & { rank: number }> {
  const u = await findByPublicId(db, publicId);
  const m = u && (await memberOf(db, groupId, u.id));
  if (!m) throw socialError('group_member_not_found', 'No such member of the group');
  if (m.id === a.member.id) throw socialError('rank_too_low', 'You cannot act on yourself this way');
  const { rank } = await roleDefinition(db, groupId, m.role);
  if (rank >= a.rank) throw socialError('rank_too_low', 'That member has an equal or higher rank');
  return { ...m, rank };
}

// ------------------------------------------------------------ events

export type GroupEventType = 'groupJoinRequested' | 'groupInviteReceived' | 'groupMemberJoined' | 'groupMemberLeft' | 'groupRoleChanged' | 'groupDisbanded';

export async function groupEvent(ctx: Ctx, userIds: readonly string[], type: GroupEventType, data: unknown, actor?: UserRow): Promise<void> {
  if (!userIds.length) return;
  await ctx.events.toUsers(type, userIds.map((userId) => ({ userId, data })), actor ? { actorPublicId: actor.public_id } : {});
}

export async function membersWith(db: Queryable, groupId: string, permission: GroupPermission): Promise<string[]> {
  const rows = (await db.query<{ user_id: string; role: string }>('SELECT user_id, role FROM group_members WHERE group_id = $1', [groupId])).rows;
  const defined = await groupRoles(db, groupId);
  const holds = (role: string) => (isBuiltIn(role) ? BUILT_IN[role].permissions : (defined.find((r) => r.name === role)?.permissions ?? [])).includes(permission);
  return rows.filter((r) => holds(r.role)).map((r) => r.user_id);
}

export async function memberJoined(ctx: Ctx, groupId: string, u: UserRow): Promise<void> {
  const m = await memberOf(ctx.db, groupId, u.id);
  if (!m) return;
  await groupEvent(ctx, await memberIds(ctx.db, groupId), 'groupMemberJoined', { groupId, member: groupMemberDto(m) }, u);
}

/** The remaining members and `also` (a removed player) hear who left and why. */
export async function memberLeft(ctx: Ctx, groupId: string, u: UserRow, reason: 'left' | 'kicked' | 'banned' | 'deleted', also: string[]): Promise<void> {
  const ids = [...new Set([...(await memberIds(ctx.db, groupId)), ...also])];
  await groupEvent(ctx, ids, 'groupMemberLeft', { groupId, publicId: u.public_id, reason });
}

export async function roleChanged(ctx: Ctx, groupId: string, target: GroupMemberRow, actor: UserRow): Promise<void> {
  await groupEvent(ctx, await memberIds(ctx.db, groupId), 'groupRoleChanged', { groupId, publicId: target.public_id, role: target.role }, actor);
}

export const groupLimit = () => socialError('group_limit_reached', 'You belong to as many groups of this game as allowed');
